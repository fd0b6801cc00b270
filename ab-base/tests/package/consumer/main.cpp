// A consumer of clscan, built against an installed package (tests/package/consumer) or through
// add_subdirectory (tests/package/subdir): scans on clscan::select_device() and checks the results.
#include <clscan/clscan.hpp>

// clscan's private headers live in lib/; a consumer must not be able to include them.
#if __has_include("workspace.hpp") ||                                                                        \
                  __has_include(                                                                             \
                      "disk_cache.hpp") ||                                                                   \
                      __has_include("dispatch.hpp") ||                                                       \
                                    __has_include("program_cache.hpp") ||                                    \
                                                  __has_include(<workspace.hpp>) || __has_include(<disk_cache.hpp>)
#error "clscan's private headers (lib/) are visible to a consumer"
#endif

#include <cstdio>
#include <cstring>
#include <exception>
#include <numeric>
#include <vector>

int main() {
#ifdef CLSCAN_EXPECTED_VERSION
  if (std::strcmp(CLSCAN_VERSION_STRING, CLSCAN_EXPECTED_VERSION) != 0) {
    std::printf("consumer: clscan/version.hpp says %s, expected %s\n", CLSCAN_VERSION_STRING,
                CLSCAN_EXPECTED_VERSION);
    return 1;
  }
#endif
  try {
    const cl::Device device = clscan::select_device();
    cl::Context context(device);
    cl::CommandQueue queue(context, device);

    const std::size_t n = 100000; // several tiles on every device
    std::vector<cl_int> data(n);
    for (std::size_t i = 0; i < n; ++i)
      data[i] = static_cast<cl_int>(i % 17) - 8;
    std::vector<cl_int> inclusive(n), exclusive(n);
    std::inclusive_scan(data.begin(), data.end(), inclusive.begin());
    std::exclusive_scan(data.begin(), data.end(), exclusive.begin(), 0);

    cl::Buffer in(context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
    cl::Buffer out(context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
    if (queue.enqueueWriteBuffer(in, CL_TRUE, 0, n * sizeof(cl_int), data.data()) != CL_SUCCESS) return 1;

    std::vector<cl_int> result(n);
    clscan::exclusive(queue, in, out, n).wait();
    if (queue.enqueueReadBuffer(out, CL_TRUE, 0, n * sizeof(cl_int), result.data()) != CL_SUCCESS) return 1;
    const bool exclusive_ok = result == exclusive;

    clscan::inclusive(queue, in, n).wait();
    if (queue.enqueueReadBuffer(in, CL_TRUE, 0, n * sizeof(cl_int), result.data()) != CL_SUCCESS) return 1;
    const bool inclusive_ok = result == inclusive;

    std::printf("consumer: clscan %s on %s: exclusive %s, inclusive %s\n", CLSCAN_VERSION_STRING,
                device.getInfo<CL_DEVICE_NAME>().c_str(), exclusive_ok ? "ok" : "WRONG",
                inclusive_ok ? "ok" : "WRONG");
    clscan::release_cached_resources();
    return exclusive_ok && inclusive_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("consumer: %s\n", e.what());
    return 1;
  }
}
