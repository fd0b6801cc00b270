#include "error_check.hpp"

#include <clscan/error.hpp>

#include <string>

namespace clscan {

const char* status_name(cl_int status) noexcept {
  switch (status) {
#define CLSCAN_STATUS(name)                                                                                  \
  case name: return #name;
    CLSCAN_STATUS(CL_SUCCESS)
    CLSCAN_STATUS(CL_DEVICE_NOT_FOUND)
    CLSCAN_STATUS(CL_DEVICE_NOT_AVAILABLE)
    CLSCAN_STATUS(CL_COMPILER_NOT_AVAILABLE)
    CLSCAN_STATUS(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    CLSCAN_STATUS(CL_OUT_OF_RESOURCES)
    CLSCAN_STATUS(CL_OUT_OF_HOST_MEMORY)
    CLSCAN_STATUS(CL_PROFILING_INFO_NOT_AVAILABLE)
    CLSCAN_STATUS(CL_MEM_COPY_OVERLAP)
    CLSCAN_STATUS(CL_IMAGE_FORMAT_MISMATCH)
    CLSCAN_STATUS(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    CLSCAN_STATUS(CL_BUILD_PROGRAM_FAILURE)
    CLSCAN_STATUS(CL_MAP_FAILURE)
    CLSCAN_STATUS(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    CLSCAN_STATUS(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    CLSCAN_STATUS(CL_COMPILE_PROGRAM_FAILURE)
    CLSCAN_STATUS(CL_LINKER_NOT_AVAILABLE)
    CLSCAN_STATUS(CL_LINK_PROGRAM_FAILURE)
    CLSCAN_STATUS(CL_DEVICE_PARTITION_FAILED)
    CLSCAN_STATUS(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    CLSCAN_STATUS(CL_INVALID_VALUE)
    CLSCAN_STATUS(CL_INVALID_DEVICE_TYPE)
    CLSCAN_STATUS(CL_INVALID_PLATFORM)
    CLSCAN_STATUS(CL_INVALID_DEVICE)
    CLSCAN_STATUS(CL_INVALID_CONTEXT)
    CLSCAN_STATUS(CL_INVALID_QUEUE_PROPERTIES)
    CLSCAN_STATUS(CL_INVALID_COMMAND_QUEUE)
    CLSCAN_STATUS(CL_INVALID_HOST_PTR)
    CLSCAN_STATUS(CL_INVALID_MEM_OBJECT)
    CLSCAN_STATUS(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    CLSCAN_STATUS(CL_INVALID_IMAGE_SIZE)
    CLSCAN_STATUS(CL_INVALID_SAMPLER)
    CLSCAN_STATUS(CL_INVALID_BINARY)
    CLSCAN_STATUS(CL_INVALID_BUILD_OPTIONS)
    CLSCAN_STATUS(CL_INVALID_PROGRAM)
    CLSCAN_STATUS(CL_INVALID_PROGRAM_EXECUTABLE)
    CLSCAN_STATUS(CL_INVALID_KERNEL_NAME)
    CLSCAN_STATUS(CL_INVALID_KERNEL_DEFINITION)
    CLSCAN_STATUS(CL_INVALID_KERNEL)
    CLSCAN_STATUS(CL_INVALID_ARG_INDEX)
    CLSCAN_STATUS(CL_INVALID_ARG_VALUE)
    CLSCAN_STATUS(CL_INVALID_ARG_SIZE)
    CLSCAN_STATUS(CL_INVALID_KERNEL_ARGS)
    CLSCAN_STATUS(CL_INVALID_WORK_DIMENSION)
    CLSCAN_STATUS(CL_INVALID_WORK_GROUP_SIZE)
    CLSCAN_STATUS(CL_INVALID_WORK_ITEM_SIZE)
    CLSCAN_STATUS(CL_INVALID_GLOBAL_OFFSET)
    CLSCAN_STATUS(CL_INVALID_EVENT_WAIT_LIST)
    CLSCAN_STATUS(CL_INVALID_EVENT)
    CLSCAN_STATUS(CL_INVALID_OPERATION)
    CLSCAN_STATUS(CL_INVALID_GL_OBJECT)
    CLSCAN_STATUS(CL_INVALID_BUFFER_SIZE)
    CLSCAN_STATUS(CL_INVALID_MIP_LEVEL)
    CLSCAN_STATUS(CL_INVALID_GLOBAL_WORK_SIZE)
    CLSCAN_STATUS(CL_INVALID_PROPERTY)
    CLSCAN_STATUS(CL_INVALID_IMAGE_DESCRIPTOR)
    CLSCAN_STATUS(CL_INVALID_COMPILER_OPTIONS)
    CLSCAN_STATUS(CL_INVALID_LINKER_OPTIONS)
    CLSCAN_STATUS(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef CLSCAN_STATUS
  default: return "CL_UNKNOWN_ERROR";
  }
}

namespace {
std::string describe(cl_int status, const std::string& call, const std::string& detail) {
  std::string text = call + " failed: " + status_name(status) + " (" + std::to_string(status) + ")";
  if (!detail.empty()) text += ": " + detail;
  return text;
}
} // namespace

opencl_error::opencl_error(cl_int status, std::string call, const std::string& detail)
    : error(describe(status, call, detail)), status_(status), call_(std::move(call)) {}

build_error::build_error(cl_int status, std::string device_name, std::string options, std::string log)
    : opencl_error(status, "clBuildProgram",
                   "kernels did not build for device '" + device_name + "' with options '" + options +
                       "'; build log:\n" + log),
      device_name_(std::move(device_name)), options_(std::move(options)), log_(std::move(log)) {}

namespace detail {
void throw_opencl_error(cl_int status, const char* call) { throw opencl_error(status, call); }
} // namespace detail

} // namespace clscan
