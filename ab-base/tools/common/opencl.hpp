// OpenCL plumbing the tools repeat: checked calls (the C++ bindings are used without exceptions, as
// clscan configures them), a context with a queue, buffers, and a call per element type.
#pragma once

#include <clscan/clscan.hpp>

#include <cstddef>

namespace clscan_tools {

// clscan::opencl_error(status, call) unless status is CL_SUCCESS.
void check(cl_int status, const char* call);

// A read-write buffer of `bytes` bytes, checked.
cl::Buffer make_buffer(const cl::Context& context, std::size_t bytes);

// A context on one device with one in-order queue, both checked.
struct device_queue {
  cl::Context context;
  cl::CommandQueue queue;
};
device_queue make_queue(const cl::Device& device, cl_command_queue_properties properties = 0);

// f(T{}) with T the host type of `type` (cl_int for int32, ...): a run-time type to a template.
template <typename F> decltype(auto) with_element_type(clscan::element_type type, F&& f) {
  switch (type) {
  case clscan::element_type::int32: return f(cl_int{});
  case clscan::element_type::uint32: return f(cl_uint{});
  case clscan::element_type::int64: return f(cl_long{});
  case clscan::element_type::uint64: return f(cl_ulong{});
  case clscan::element_type::float32: return f(cl_float{});
  case clscan::element_type::float64: break;
  }
  return f(cl_double{});
}

} // namespace clscan_tools
