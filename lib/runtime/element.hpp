// Element values as the kernels see them: identities of the operators, and exact OpenCL C literals.
#pragma once

#include <clscan/options.hpp>
#include <clscan/types.hpp>

#include <string>

namespace clscan::detail {

inline bool is_floating(element_type type) {
  return type == element_type::float32 || type == element_type::float64;
}

// The operator's identity for `type` (for op::custom, the request's custom_identity).
element_value identity_of(element_type type, op operation, const element_value& custom_identity);

// An exact OpenCL C expression for a value: its bits reinterpreted with as_<type>().
std::string opencl_literal(element_type type, const element_value& value);

} // namespace clscan::detail
