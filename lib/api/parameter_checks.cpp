// Checks of the caller's expressions and of their named parameters (options::parameters). They run on every
// call, so a call that passes allocates nothing (tests/programs/hot_path.cpp): messages are built only
// on failure.
#include "arguments.hpp"

#include "program/expression.hpp"

#include <clscan/error.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace clscan::detail {
namespace {

// Longest parameter name accepted: names are repeated in the program's source and in messages.
constexpr std::size_t max_parameter_name = 64;

bool identifier(std::string_view name) {
  const auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  return !name.empty() && start(name[0]) &&
         std::all_of(name.begin(), name.end(), [&](char c) { return start(c) || (c >= '0' && c <= '9'); });
}

bool starts_with(std::string_view name, std::string_view prefix) {
  return name.substr(0, prefix.size()) == prefix;
}

// Macros of OpenCL C (its limits, constants and flags) and names the language reserves: a parameter of
// such a name would be replaced by the preprocessor, or collide with the implementation's own.
bool opencl_macro(std::string_view name) {
  static constexpr std::array<std::string_view, 20> prefixes = {
      "__",    "CL_",    "CLK_", "FLT_",  "DBL_",  "HALF_",  "M_",  "CHAR_",    "SCHAR_",   "UCHAR_",
      "SHRT_", "USHRT_", "INT_", "UINT_", "LONG_", "ULONG_", "FP_", "MAXFLOAT", "HUGE_VAL", "INFINITY"};
  for (const std::string_view prefix : prefixes)
    if (starts_with(name, prefix)) return true;
  return name == "NAN" || name == "NULL" || name == "ATOMIC_VAR_INIT" || name == "ATOMIC_FLAG_INIT";
}

[[noreturn]] void refuse_parameter(const char* what, std::size_t index, const std::string& problem) {
  throw invalid_argument("clscan: " + std::string(what) + "[" + std::to_string(index) + "] " + problem);
}

} // namespace

// Checks an OpenCL C expression the caller gives (a custom operator, a predicate) before it goes into
// a program: program/expression.cpp for what one may hold.
void check_user_expression(const std::string& text, expression_kind kind, const char* what,
                           const std::vector<parameter>* parameters) {
  if (text.find('\0') != std::string::npos)
    throw invalid_argument(std::string(what) +
                           " contains a NUL character, which OpenCL C source cannot hold");
  if (text.size() > max_custom_op_bytes)
    throw invalid_argument(std::string(what) + " is " + std::to_string(text.size()) +
                           " bytes; an expression may have at most " + std::to_string(max_custom_op_bytes));
  detail::check_expression(text, kind, what, parameters);
}

void check_parameters(const scan_request& request, const device_capabilities& caps, const char* what) {
  if (!request.parameters) return;
  const std::vector<parameter>& parameters = *request.parameters;
  if (parameters.size() > max_parameters)
    throw invalid_argument("clscan: " + std::string(what) + " holds " + std::to_string(parameters.size()) +
                           " parameters; a call takes at most " + std::to_string(max_parameters));
  for (std::size_t p = 0; p < parameters.size(); ++p) {
    const std::string& name = parameters[p].name;
    const auto named = [&] { return "is named '" + name + "', "; };
    if (name.size() > max_parameter_name)
      refuse_parameter(what, p,
                       "has a name of " + std::to_string(name.size()) + " characters; at most " +
                           std::to_string(max_parameter_name));
    if (!identifier(name))
      refuse_parameter(what, p, named() + "not an identifier (a letter or '_', then letters, digits, '_')");
    if (name == "x" || name == "i" || name == "a" || name == "b")
      refuse_parameter(what, p, named() + "a name the expressions give their operands (x, i, a, b)");
    if (language_keyword(name)) refuse_parameter(what, p, named() + "one of OpenCL C's keywords and types");
    if (starts_with(name, "clscan") || starts_with(name, "CLSCAN"))
      refuse_parameter(what, p, named() + "in clscan's own names (clscan..., CLSCAN...)");
    if (opencl_macro(name)) refuse_parameter(what, p, named() + "one of OpenCL C's macros or reserved names");
    for (std::size_t q = 0; q < p; ++q)
      if (parameters[q].name == name)
        refuse_parameter(what, p, named() + "as " + what + "[" + std::to_string(q) + "] is");
    if (parameters[p].value.valueless_by_exception()) refuse_parameter(what, p, "holds no value");
    if (std::holds_alternative<cl_double>(parameters[p].value) && !caps.fp64)
      throw unsupported_error("clscan: " + std::string(what) + "[" + std::to_string(p) + "] ('" + name +
                              "') is a cl_double, which needs fp64 (cl_khr_fp64); device '" + caps.name +
                              "' does not have it");
  }
}

} // namespace clscan::detail
