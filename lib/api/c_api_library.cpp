// The C API's calls about the library rather than one scan: status names, the version, the device
// choice and the per-context cache (include/clscan/clscan.h).
#include "c_api_support.hpp"

#include <clscan/cache.hpp>
#include <clscan/clscan.h>
#include <clscan/device.hpp>
#include <clscan/error.hpp>

using namespace clscan::c_api;

extern "C" {

const char* clscan_status_name(clscan_status status) {
  switch (integer_of(status)) {
  case CLSCAN_SUCCESS: return "CLSCAN_SUCCESS";
  case CLSCAN_INVALID_ARGUMENT: return "CLSCAN_INVALID_ARGUMENT";
  case CLSCAN_UNSUPPORTED: return "CLSCAN_UNSUPPORTED";
  case CLSCAN_BUILD_ERROR: return "CLSCAN_BUILD_ERROR";
  case CLSCAN_OPENCL_ERROR: return "CLSCAN_OPENCL_ERROR";
  case CLSCAN_OUT_OF_MEMORY: return "CLSCAN_OUT_OF_MEMORY";
  case CLSCAN_DEVICE_NOT_FOUND: return "CLSCAN_DEVICE_NOT_FOUND";
  case CLSCAN_INTERNAL_ERROR: return "CLSCAN_INTERNAL_ERROR";
  }
  return "CLSCAN_UNKNOWN_STATUS";
}

const char* clscan_opencl_status_name(cl_int status) { return clscan::status_name(status); }

const char* clscan_version(void) { return CLSCAN_VERSION_STRING; }

clscan_status clscan_select_device(cl_device_id* device) {
  if (device) *device = nullptr;
  return guarded(
      [&] {
        if (!device)
          throw clscan::invalid_argument("clscan: clscan_select_device: the device pointer is NULL");
        // A root device, which OpenCL does not reference-count: the handle outlives the wrapper.
        *device = clscan::select_device()();
      },
      CLSCAN_DEVICE_NOT_FOUND);
}

clscan_status clscan_release_cached_resources(void) {
  return guarded([] { clscan::release_cached_resources(); });
}

clscan_status clscan_release_context_resources(cl_context context) {
  return guarded([&] {
    const borrowed<cl::Context> borrowed_context(context);
    clscan::release_cached_resources(borrowed_context.get());
  });
}

clscan_status clscan_set_cache_limit(size_t contexts) {
  return guarded([&] { clscan::set_cache_limit(contexts); });
}

clscan_status clscan_get_cache_limit(size_t* contexts) {
  return guarded([&] {
    if (!contexts)
      throw clscan::invalid_argument("clscan: clscan_get_cache_limit: the result pointer is NULL");
    *contexts = clscan::cache_limit();
  });
}

} // extern "C"
