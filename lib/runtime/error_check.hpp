#pragma once

#include <clscan/config.hpp>

namespace clscan::detail {

[[noreturn]] void throw_opencl_error(cl_int status, const char* call);

// Throws clscan::opencl_error naming `call` unless status is CL_SUCCESS.
inline void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw_opencl_error(status, call);
}

} // namespace clscan::detail
