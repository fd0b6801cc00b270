#include "opencl.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace clscan_tools {

void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw clscan::opencl_error(status, call);
}

cl::Buffer make_buffer(const cl::Context& context, std::size_t bytes) {
  // Past the limit, named before the implementation is asked: some report only a status
  // (CL_INVALID_BUFFER_SIZE), others one of memory, or nothing until the buffer is first used (NVIDIA
  // allocates lazily).
  std::vector<cl::Device> devices;
  if (context.getInfo(CL_CONTEXT_DEVICES, &devices) == CL_SUCCESS && !devices.empty()) {
    cl_ulong limit = ~cl_ulong{0};
    for (const cl::Device& device : devices)
      limit = std::min(limit, device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>());
    if (bytes > limit)
      throw clscan::invalid_argument(
          "a buffer of " + std::to_string(bytes) +
          " bytes is larger than the device allows (CL_DEVICE_MAX_MEM_ALLOC_SIZE " + std::to_string(limit) +
          " bytes)");
  }
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
