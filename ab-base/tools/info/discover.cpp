// clscan-info: the platforms and devices of this machine, read with the C API so that one broken
// platform does not hide the others, and what clscan reads from and plans for each.
#include "info.hpp"

#include <string>
#include <utility>
#include <vector>

namespace clscan_info {
namespace {

// A string query of the C API (clGetPlatformInfo, clGetDeviceInfo) through `get(size, data, size_ret)`,
// without trailing NULs and spaces; "?" when it fails.
template <typename Get> std::string info_text(Get get) {
  std::size_t size = 0;
  if (get(0, nullptr, &size) != CL_SUCCESS) return "?";
  std::string text(size, '\0');
  if (get(size, text.data(), nullptr) != CL_SUCCESS) return "?";
  while (!text.empty() && (text.back() == '\0' || text.back() == ' '))
    text.pop_back();
  return text;
}

std::string info_string(cl_platform_id platform, cl_platform_info what) {
  return info_text([&](std::size_t size, void* data, std::size_t* size_ret) {
    return clGetPlatformInfo(platform, what, size, data, size_ret);
  });
}

std::string device_name(cl_device_id device) {
  return info_text([&](std::size_t size, void* data, std::size_t* size_ret) {
    return clGetDeviceInfo(device, CL_DEVICE_NAME, size, data, size_ret);
  });
}

} // namespace

std::string describe(const std::exception& e) {
  std::string text = e.what();
  if (dynamic_cast<const clscan::build_error*>(&e))
    text = "build error: " + text;
  else if (dynamic_cast<const clscan::unsupported_error*>(&e))
    text = "unsupported: " + text;
  else if (dynamic_cast<const clscan::invalid_argument*>(&e))
    text = "invalid argument: " + text;
  return text;
}

// `text` without trailing newlines and with its later lines indented by `indent`: build logs end in
// a newline and span several lines.
std::string indent_lines(std::string text, const std::string& indent) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  for (std::size_t pos = text.find('\n'); pos != std::string::npos; pos = text.find('\n', pos + 1))
    text.insert(pos + 1, indent);
  return text;
}

machine discover(bool with_details, bool selected_only) {
  machine m;
  m.selected_only = selected_only;
  m.cache = probe_cache();
  cl_uint platform_count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &platform_count);
  if (status != CL_SUCCESS || platform_count == 0) {
    m.error = status == CL_SUCCESS ? "no OpenCL platform found"
                                   : std::string("clGetPlatformIDs failed: ") + clscan::status_name(status) +
                                         " (" + std::to_string(status) + "); is an OpenCL ICD installed?";
    return m;
  }
  std::vector<cl_platform_id> ids(platform_count);
  clGetPlatformIDs(platform_count, ids.data(), nullptr);

  cl_device_id selected = nullptr;
  try {
    selected = clscan::select_device()();
  } catch (const std::exception& e) {
    m.selection_error = e.what();
  }

  for (std::size_t p = 0; p < ids.size(); ++p) {
    platform_entry platform;
    platform.index = p;
    platform.id = ids[p];
    platform.name = info_string(ids[p], CL_PLATFORM_NAME);
    platform.version = info_string(ids[p], CL_PLATFORM_VERSION);
    cl_uint device_count = 0;
    const cl_int device_status = clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
    if (device_status != CL_SUCCESS && device_status != CL_DEVICE_NOT_FOUND) {
      platform.error = std::string("clGetDeviceIDs failed: ") + clscan::status_name(device_status);
    } else if (device_count > 0) {
      std::vector<cl_device_id> devices(device_count);
      clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, device_count, devices.data(), nullptr);
      for (std::size_t d = 0; d < devices.size(); ++d) {
        device_entry device;
        device.index = d;
        device.id = devices[d];
        device.name = device_name(devices[d]);
        device.selected = devices[d] == selected;
        if (selected_only && !device.selected) continue;
        if (with_details) {
          const cl::Device handle(devices[d], true);
          try {
            device.caps = clscan::capabilities(handle);
            device.cache_entries = clscan::disk_cache_entries(handle);
            device.tuning_file = existing_tuning_file(handle);
          } catch (const std::exception& e) {
            device.error = describe(e);
          }
          if (device.caps) {
            try {
              device.plan = clscan::plan_for(handle, clscan::element_type::int32);
            } catch (const std::exception& e) {
              device.plan_error = describe(e);
            }
          }
        }
        platform.devices.push_back(std::move(device));
      }
    }
    // Under --selected a platform without the device is left out, its errors included: they say
    // nothing about the device asked for.
    if (!selected_only || !platform.devices.empty()) m.platforms.push_back(std::move(platform));
  }
  return m;
}

} // namespace clscan_info
