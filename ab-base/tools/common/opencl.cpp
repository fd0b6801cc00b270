#include "opencl.hpp"

namespace clscan_tools {

void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw clscan::opencl_error(status, call);
}

cl::Buffer make_buffer(const cl::Context& context, std::size_t bytes) {
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  check(status, "clCreateBuffer");
  return buffer;
}

device_queue make_queue(const cl::Device& device, cl_command_queue_properties properties) {
  cl_int status = CL_SUCCESS;
  device_queue result;
  result.context = cl::Context(device, nullptr, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  result.queue = cl::CommandQueue(result.context, device, properties, &status);
  check(status, "clCreateCommandQueue");
  return result;
}

} // namespace clscan_tools
