// Scans of more than 2^32 elements, where the device has the memory (a 17 GiB buffer): element
// indices, tile counts and global sizes must all be 64-bit clean.
//
// Where the device or the host cannot hold the data the scan cannot run, and the test says
// "large: skipped: <why>" on stdout: tests/CMakeLists.txt gives the ctest test "large" that text as
// its SKIP_REGULAR_EXPRESSION, so ctest reports it as skipped, never as passed.
#include "support/guarded.hpp"

#include <iostream>
#include <numeric>
#include <sstream>

#include <unistd.h>

using namespace clscan_test;

namespace {

// Tells ctest that the test did not run (see above), and Catch's own output why.
void skip(const std::string& why) {
  std::cout << "large: skipped: " << why << std::endl;
  WARN("skipped: " << why);
}

} // namespace

TEST_CASE("large: an in-place scan of more than 2^32 cl_int elements", "[large]") {
  auto& e = env();
  const std::size_t n = (std::size_t{1} << 32) + 12345;
  const std::size_t bytes = n * sizeof(cl_int);
  const auto caps = clscan::capabilities(e.device);
  if (caps.max_mem_alloc_size < bytes || caps.global_mem_size < bytes + (bytes >> 2)) {
    std::ostringstream why;
    why << "device '" << e.device_name << "' cannot hold " << bytes << " bytes in one buffer (max allocation "
        << caps.max_mem_alloc_size << ", global memory " << caps.global_mem_size
        << "); the more-than-2^32-elements scan did not run";
    skip(why.str());
    return;
  }
  // The test keeps the data on the host too (and reads the result back into a second copy), which
  // on a CPU device shares the same memory as the device buffer: three copies in all.
  const auto host_bytes = static_cast<unsigned long long>(sysconf(_SC_PHYS_PAGES)) *
                          static_cast<unsigned long long>(sysconf(_SC_PAGE_SIZE));
  const unsigned long long host_needed = (caps.is_gpu() ? 2ull : 3ull) * bytes + (bytes >> 2);
  if (host_bytes < host_needed) {
    std::ostringstream why;
    why << "the host has " << host_bytes << " bytes of memory and the test needs " << host_needed
        << "; the more-than-2^32-elements scan did not run";
    skip(why.str());
    return;
  }
  for (auto algo : {clscan::algorithm::single_pass, clscan::algorithm::three_stage}) {
    CAPTURE(n, clscan::to_string(algo), e.device_name);
    std::vector<cl_int> host(n);
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    for (auto& x : host) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      x = static_cast<cl_int>(state >> 40) - (1 << 23);
    }
    cl::Buffer buffer(e.context, CL_MEM_READ_WRITE, bytes);
    REQUIRE(e.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, host.data()) == CL_SUCCESS);
    clscan::options<cl_int> opts;
    opts.algorithm = algo;
    REQUIRE(clscan::inclusive(e.queue, buffer, n, opts).wait() == CL_SUCCESS);
    std::vector<cl_int> got(n);
    REQUIRE(e.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, got.data()) == CL_SUCCESS);
    // Wrapping reference, compared as it goes (a whole reference would be another 17 GiB).
    cl_int running = 0;
    std::size_t first_wrong = n;
    for (std::size_t i = 0; i < n; ++i) {
      running = clscan_reference::wrapping_sum(running, host[i]);
      if (got[i] != running) {
        first_wrong = i;
        break;
      }
    }
    CHECK(first_wrong == n);
  }
}
