#include "device_info.hpp"
#include "error_check.hpp"

#include <clscan/device.hpp>

#include <map>
#include <mutex>

namespace clscan {
namespace {

template <typename T>
T device_info(cl_device_id device, cl_device_info what, const char* call = "clGetDeviceInfo") {
  T value{};
  detail::check(clGetDeviceInfo(device, what, sizeof(T), &value, nullptr), call);
  return value;
}

std::string device_string(cl_device_id device, cl_device_info what) {
  std::size_t size = 0;
  detail::check(clGetDeviceInfo(device, what, 0, nullptr, &size), "clGetDeviceInfo");
  std::string text(size, '\0');
  detail::check(clGetDeviceInfo(device, what, size, text.data(), nullptr), "clGetDeviceInfo");
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  std::size_t size = 0;
  detail::check(clGetPlatformInfo(platform, what, 0, nullptr, &size), "clGetPlatformInfo");
  std::string text(size, '\0');
  detail::check(clGetPlatformInfo(platform, what, size, text.data(), nullptr), "clGetPlatformInfo");
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

bool has_extension(const std::string& extensions, const char* name) {
  const std::string padded = " " + extensions + " ";
  return padded.find(std::string(" ") + name + " ") != std::string::npos;
}

device_capabilities read_capabilities(cl_device_id device) {
  device_capabilities caps;
  const auto platform = device_info<cl_platform_id>(device, CL_DEVICE_PLATFORM);
  caps.platform_name = platform_string(platform, CL_PLATFORM_NAME);
  caps.platform_version = platform_string(platform, CL_PLATFORM_VERSION);
  caps.name = device_string(device, CL_DEVICE_NAME);
  caps.vendor = device_string(device, CL_DEVICE_VENDOR);
  caps.version = device_string(device, CL_DEVICE_VERSION);
  caps.driver_version = device_string(device, CL_DRIVER_VERSION);
  caps.opencl_c_version = device_string(device, CL_DEVICE_OPENCL_C_VERSION);
  caps.type = device_info<cl_device_type>(device, CL_DEVICE_TYPE);
  caps.compute_units = device_info<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  caps.max_work_group_size = device_info<std::size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  caps.local_mem_size = device_info<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE);
  caps.global_mem_size = device_info<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  caps.max_mem_alloc_size = device_info<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  const std::string extensions = device_string(device, CL_DEVICE_EXTENSIONS);
  caps.fp64 = has_extension(extensions, "cl_khr_fp64") ||
              device_info<cl_device_fp_config>(device, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  caps.int64_atomics = has_extension(extensions, "cl_khr_int64_base_atomics");
  // Global 32-bit atomics are core from OpenCL C 1.1 on; "OpenCL C 1.0" devices need the extension.
  caps.int32_global_atomics = has_extension(extensions, "cl_khr_global_int32_base_atomics") ||
                              caps.opencl_c_version.rfind("OpenCL C 1.0", 0) != 0;
  caps.subgroups = has_extension(extensions, "cl_khr_subgroups") ||
                   has_extension(extensions, "cl_intel_subgroups");
  return caps;
}

} // namespace

namespace detail {

const device_capabilities& cached_capabilities(cl_device_id device) {
  static std::mutex mutex;
  static std::map<cl_device_id, device_capabilities> known;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(device);
  if (it == known.end()) it = known.emplace(device, read_capabilities(device)).first;
  return it->second;
}

} // namespace detail

device_capabilities capabilities(const cl::Device& device) {
  return detail::cached_capabilities(device());
}

} // namespace clscan
