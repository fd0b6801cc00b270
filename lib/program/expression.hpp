// The OpenCL C expressions callers give (a custom operator of a and b, a predicate of x and i): what
// is accepted, and the function of its own each one is compiled in.
#pragma once

#include <clscan/options.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace clscan::detail {

enum class expression_kind {
  custom_op, // of a and b, two elements
  predicate, // of x, the element, and i, its index (a ulong)
  key_equal, // of a and b, two neighbouring keys (or elements, for unique)
  transform, // of x, an input element, and i, its index (a ulong)
};

// Throws clscan::invalid_argument, naming `what` and the problem, unless `text` is one OpenCL C
// expression: brackets balanced; no ';', '{', '}', preprocessor directive, comment, string literal,
// line continuation, digraph or trigraph; no name of clscan's own (its macros, the names its kernels
// declare) besides the documented ones. Names the expression may use: its parameters and OpenCL C's
// built-in functions, types and constants; any other name fails to compile, as it is not declared
// where the expression is compiled (expression_function).
// The caller's named parameters (`parameters`, may be null) are names the expression may use too,
// whatever clscan's kernels call theirs.
void check_expression(std::string_view text, expression_kind kind, const char* what,
                      const std::vector<parameter>* parameters = nullptr);

// The function a checked expression is compiled in, for the top of a program before any of clscan's
// own declarations and macros, so that the expression sees only its parameters and OpenCL C's
// built-ins: clscan_user_op(a, b) or clscan_user_transform(x, i) returning the element type,
// clscan_user_predicate(x, i) returning 1u where the expression holds, else 0u, or
// clscan_user_key_equal(a, b) returning 1 or 0.
// `parameters`, the caller's named ones (options::parameters), end the function's parameter list.
struct named_parameter {
  std::string_view name;
  const char* type; // OpenCL C's name of its type
};
// A transform returns the element type, and its x has `input_type` (null: the element type).
std::string expression_function(expression_kind kind, std::string_view text, const char* element_type,
                                const std::vector<named_parameter>& parameters,
                                const char* input_type = nullptr);

// True for OpenCL C's keywords and built-in type names, which no parameter can take.
bool language_keyword(std::string_view name);

} // namespace clscan::detail
