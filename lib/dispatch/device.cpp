#include "device_info.hpp"
#include "error_check.hpp"
#include "settings.hpp"

#include <clscan/device.hpp>
#include <clscan/error.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

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
  while (!text.empty() && (text.back() == '\0' || text.back() == ' '))
    text.pop_back();
  return text;
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  std::size_t size = 0;
  detail::check(clGetPlatformInfo(platform, what, 0, nullptr, &size), "clGetPlatformInfo");
  std::string text(size, '\0');
  detail::check(clGetPlatformInfo(platform, what, size, text.data(), nullptr), "clGetPlatformInfo");
  while (!text.empty() && (text.back() == '\0' || text.back() == ' '))
    text.pop_back();
  return text;
}

// OpenCL 3.0 queries, which the OpenCL 1.2 headers clscan builds against do not name.
constexpr cl_device_info device_opencl_c_all_versions = 0x1066;
constexpr cl_device_info device_opencl_c_features = 0x106F;
struct name_version { // cl_name_version
  cl_uint version;
  char name[64];
};
constexpr cl_uint major_of(cl_uint version) { return version >> 22; }

// The entries of an OpenCL 3.0 name-version list, or none where the query is unknown (1.x, 2.x).
std::vector<name_version> name_versions(cl_device_id device, cl_device_info what) {
  std::size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size % sizeof(name_version) != 0)
    return {};
  std::vector<name_version> list(size / sizeof(name_version));
  if (!list.empty() && clGetDeviceInfo(device, what, size, list.data(), nullptr) != CL_SUCCESS) return {};
  for (name_version& entry : list)
    entry.name[sizeof entry.name - 1] = '\0';
  return list;
}

// "CL2.0" or "CL3.0" where OpenCL C offers release/acquire atomics at device scope, else "".
std::string acq_rel_cl_std(cl_device_id device, const std::string& opencl_c_version) {
  // "OpenCL C 2.x ...": every 2.x device has them.
  if (opencl_c_version.rfind("OpenCL C 2.", 0) == 0) return "CL2.0";
  bool c30 = false, acq_rel = false, device_scope = false;
  for (const name_version& v : name_versions(device, device_opencl_c_all_versions))
    c30 = c30 || major_of(v.version) == 3;
  for (const name_version& f : name_versions(device, device_opencl_c_features)) {
    acq_rel = acq_rel || std::strcmp(f.name, "__opencl_c_atomic_order_acq_rel") == 0;
    device_scope = device_scope || std::strcmp(f.name, "__opencl_c_atomic_scope_device") == 0;
  }
  return c30 && acq_rel && device_scope ? "CL3.0" : "";
}

bool has_extension(const std::string& extensions, const char* name) {
  const std::string padded = " " + extensions + " ";
  return padded.find(std::string(" ") + name + " ") != std::string::npos;
}

// A positive decimal count, or nothing.
std::optional<std::size_t> parse_limit(const std::string& text) {
  if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const std::size_t value = std::stoull(text);
  return value ? std::optional<std::size_t>(value) : std::nullopt;
}

// CLSCAN_DEVICE_LIMITS (include/clscan/device.hpp): caps what clscan believes of the device.
void apply_limits(device_capabilities& caps, const std::string& text) {
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string field = text.substr(pos, end - pos);
    pos = end + 1;
    if (field.empty()) continue;
    const std::size_t equals = field.find('=');
    const std::string name = field.substr(0, equals);
    const std::optional<std::size_t> value =
        equals == std::string::npos ? std::nullopt : parse_limit(field.substr(equals + 1));
    if (field == "gpu") {
      caps.type = CL_DEVICE_TYPE_GPU;
    } else if (field == "cpu") {
      caps.type = CL_DEVICE_TYPE_CPU;
    } else if (name == "wg" && value) {
      caps.max_work_group_size = std::min(caps.max_work_group_size, *value);
    } else if (name == "local" && value) {
      caps.local_mem_size = std::min<cl_ulong>(caps.local_mem_size, *value);
    } else if (field == "no_int64_atomics") {
      caps.int64_atomics = caps.int64_extended_atomics = false;
    } else if (field == "no_fp64") {
      caps.fp64 = false;
    } else if (field == "no_out_of_order") {
      caps.out_of_order_queues = false;
    } else if (field == "no_acq_rel") {
      caps.acq_rel_cl_std.clear();
    } else if (field == "few_events") {
      caps.event_per_command = false;
    } else if (field == "no_warp_ptx") {
      caps.nvidia_warp_ptx = false;
    } else if (field == "loops_limited") {
      caps.loops_limited = true;
    } else {
      std::string message = "CLSCAN_DEVICE_LIMITS='";
      message.append(text).append("': '").append(field);
      message.append("' is not one of gpu, cpu, wg=N, local=N, no_int64_atomics, no_fp64, no_out_of_order, "
                     "no_acq_rel, few_events, no_warp_ptx, loops_limited (N a positive whole number)");
      throw invalid_argument(message);
    }
  }
  caps.limits = text;
}

device_capabilities read_capabilities(cl_device_id device) {
  device_capabilities caps;
  caps.id = device;
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
  // Launches are one-dimensional, and a device may allow fewer work-items along one dimension than
  // in a work-group.
  const cl_uint dimensions = device_info<cl_uint>(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
  std::vector<std::size_t> item_sizes(std::max<cl_uint>(dimensions, 1), 0);
  detail::check(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                                item_sizes.size() * sizeof(std::size_t), item_sizes.data(), nullptr),
                "clGetDeviceInfo");
  if (item_sizes[0] != 0) caps.max_work_group_size = std::min(caps.max_work_group_size, item_sizes[0]);
  caps.local_mem_size = device_info<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE);
  caps.global_mem_size = device_info<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  caps.max_mem_alloc_size = device_info<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  const std::string extensions = device_string(device, CL_DEVICE_EXTENSIONS);
  caps.fp64 = has_extension(extensions, "cl_khr_fp64") ||
              device_info<cl_device_fp_config>(device, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  caps.int64_atomics = has_extension(extensions, "cl_khr_int64_base_atomics");
  caps.int64_extended_atomics = has_extension(extensions, "cl_khr_int64_extended_atomics");
  caps.acq_rel_cl_std = acq_rel_cl_std(device, caps.opencl_c_version);
  // Global 32-bit atomics are core from OpenCL C 1.1 on; "OpenCL C 1.0" devices need the extension.
  caps.int32_global_atomics = has_extension(extensions, "cl_khr_global_int32_base_atomics") ||
                              caps.opencl_c_version.rfind("OpenCL C 1.0", 0) != 0;
  caps.subgroups =
      has_extension(extensions, "cl_khr_subgroups") || has_extension(extensions, "cl_intel_subgroups");
  caps.out_of_order_queues = (device_info<cl_command_queue_properties>(device, CL_DEVICE_QUEUE_PROPERTIES) &
                              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
  // Measured there: an H200 ran a call's later commands exactly after a failed one (robustness tests,
  // [failed-wait]), and each further event cost about 2.8 µs of device time (runtime/launch.hpp).
  caps.event_per_command = caps.platform_name.find("NVIDIA") == std::string::npos;
  caps.required_size_fits = caps.platform_name.find("NVIDIA") != std::string::npos;
  // The PTX of vote.sync and shfl.sync (PTX ISA 6.0) came with compute capability 7.0's first drivers.
  caps.nvidia_warp_ptx = caps.platform_name.find("NVIDIA") != std::string::npos &&
                         has_extension(extensions, "cl_nv_device_attribute_query") &&
                         device_info<cl_uint>(device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV) >= 7;
  caps.loops_limited = caps.name.find("llvmpipe") != std::string::npos;
  if (const std::string_view limits = detail::device_limits(); !limits.empty())
    apply_limits(caps, std::string(limits));
  return caps;
}

std::string lower(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// True when `wanted` (from the environment) is unset, equals `index`, or is part of `name`.
bool matches(std::string_view wanted, std::size_t index, const std::string& name) {
  if (wanted.empty()) return true;
  const std::string text(wanted);
  if (text.find_first_not_of("0123456789") == std::string::npos)
    return std::strtoull(text.c_str(), nullptr, 10) == index; // out of range: matches none
  return lower(name).find(lower(text)) != std::string::npos;
}

} // namespace

cl::Device select_device() {
  const std::string_view wanted_platform = detail::wanted_platform();
  const std::string_view wanted_device = detail::wanted_device();
  cl_uint platform_count = 0;
  if (clGetPlatformIDs(0, nullptr, &platform_count) != CL_SUCCESS || platform_count == 0)
    throw error("clscan: no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)");
  std::vector<cl_platform_id> platforms(platform_count);
  detail::check(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");

  std::vector<cl_device_id> candidates;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    if (!matches(wanted_platform, p, platform_string(platforms[p], CL_PLATFORM_NAME))) continue;
    cl_uint device_count = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count) != CL_SUCCESS) continue;
    std::vector<cl_device_id> devices(device_count);
    detail::check(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, device_count, devices.data(), nullptr),
                  "clGetDeviceIDs");
    for (std::size_t d = 0; d < devices.size(); ++d)
      if (matches(wanted_device, d, device_string(devices[d], CL_DEVICE_NAME)))
        candidates.push_back(devices[d]);
  }
  if (candidates.empty())
    throw error("clscan: no OpenCL device matches CLSCAN_PLATFORM='" + std::string(wanted_platform) +
                "' CLSCAN_DEVICE='" + std::string(wanted_device) + "'");
  for (cl_device_id device : candidates)
    if (device_info<cl_device_type>(device, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) return cl::Device(device);
  return cl::Device(candidates.front());
}

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

device_capabilities capabilities(const cl::Device& device) { return detail::cached_capabilities(device()); }

} // namespace clscan
