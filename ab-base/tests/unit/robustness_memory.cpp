// Robustness: buffers whose memory is only element-aligned, and overlapping views of one buffer as
// input and output (see robustness.hpp).
#include "robustness.hpp"

#include <clscan/cache.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

using namespace clscan_test;
using namespace clscan_test::robustness;
using clscan::algorithm;

// ---------------------------------------------------------------------------------------------------
// #10 item 2: buffers whose memory is only element-aligned

namespace {

cl_uint base_address_align_bytes(const cl::Device& device) {
  return device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8;
}

template <typename T>
void check_host_pointer_scans(const cl::Context& context, const cl::CommandQueue& queue) {
  const std::size_t guard = 3;
  for (std::size_t n : {std::size_t{1000}, std::size_t{100003}})
    for (std::size_t shift : {std::size_t{1}, std::size_t{2}, std::size_t{3}})
      for (std::size_t offset : {std::size_t{0}, std::size_t{4}, std::size_t{5}})
        for (algorithm algo : {algorithm::three_stage, algorithm::single_pass, algorithm::automatic})
          for (bool in_place : {false, true})
            for (bool exclusive : {false, true}) {
              CAPTURE(n, shift, offset, algo_name(algo), in_place, exclusive, sizeof(T));
              const std::vector<T> data = small_values<T>(n, n + shift);
              const T poison = poison_value<T>();
              // Host memory with `shift` elements before the buffer, so its base is only element-aligned
              // (a vector's allocation is aligned to 16 bytes).
              std::vector<T> host_in(shift + offset + n + guard, poison),
                  host_out(shift + offset + n + guard, poison);
              std::copy(data.begin(), data.end(),
                        host_in.begin() + static_cast<std::ptrdiff_t>(shift + offset));
              const std::size_t bytes = (offset + n + guard) * sizeof(T);
              cl_int status = CL_SUCCESS;
              cl::Buffer in(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host_in.data() + shift,
                            &status);
              REQUIRE(status == CL_SUCCESS);
              cl::Buffer out(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host_out.data() + shift,
                             &status);
              REQUIRE(status == CL_SUCCESS);
              const cl::Buffer& target = in_place ? in : out;
              clscan::options<T> opts;
              opts.algorithm = algo;
              opts.in_offset = opts.out_offset = offset;
              const cl::Event done = exclusive ? clscan::exclusive<T>(queue, in, target, n, opts)
                                               : clscan::inclusive<T>(queue, in, target, n, opts);
              REQUIRE(done.wait() == CL_SUCCESS);
              std::vector<T> got(offset + n + guard);
              REQUIRE(queue.enqueueReadBuffer(target, CL_TRUE, 0, bytes, got.data()) == CL_SUCCESS);
              guarded::check_exact("result", got, offset,
                                   exclusive ? exclusive_reference(data) : inclusive_reference(data));
              guarded::check_guards("guards", got, offset, n);
              if (!in_place) {
                std::vector<T> input(offset + n + guard);
                REQUIRE(queue.enqueueReadBuffer(in, CL_TRUE, 0, bytes, input.data()) == CL_SUCCESS);
                guarded::check_exact("input untouched", input, offset, data);
              }
            }
}

} // namespace

TEST_CASE("robustness: CL_MEM_USE_HOST_PTR buffers over element-aligned host memory scan exactly",
          "[robustness]") {
  auto& e = env();
  check_host_pointer_scans<cl_int>(e.context, e.queue);
  check_host_pointer_scans<cl_long>(e.context, e.queue);
}

TEST_CASE("robustness: sub-buffers whose base is only element-aligned scan exactly", "[robustness]") {
  auto& e = env();
  const std::size_t align = base_address_align_bytes(e.device);
  const std::size_t n = 100003, shift = 1;
  const std::vector<cl_int> data = small_values<cl_int>(n, 77);
  const std::vector<cl_int> expected = inclusive_reference(data);
  const std::size_t origin_elements = align / sizeof(cl_int);
  for (bool host_parent : {true, false})
    for (algorithm algo : {algorithm::three_stage, algorithm::single_pass, algorithm::automatic}) {
      CAPTURE(host_parent, algo_name(algo));
      // Parent: host memory at element `shift` of a vector (only element-aligned), or device memory.
      std::vector<cl_int> host(shift + origin_elements + n + 8, poison_value<cl_int>());
      const std::size_t parent_bytes = (origin_elements + n + 7) * sizeof(cl_int);
      cl_int status = CL_SUCCESS;
      cl::Buffer parent = host_parent
                              ? cl::Buffer(e.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, parent_bytes,
                                           host.data() + shift, &status)
                              : cl::Buffer(e.context, CL_MEM_READ_WRITE, parent_bytes, nullptr, &status);
      REQUIRE(status == CL_SUCCESS);
      REQUIRE(e.queue.enqueueWriteBuffer(parent, CL_TRUE, origin_elements * sizeof(cl_int),
                                         n * sizeof(cl_int), data.data()) == CL_SUCCESS);
      // The sub-buffer starts `align` bytes in (the smallest origin OpenCL allows), so its base is the
      // parent's base plus `align`.
      cl_buffer_region region{align, (n + 7) * sizeof(cl_int)};
      cl::Buffer sub =
          parent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
      REQUIRE(status == CL_SUCCESS);
      cl::Buffer out = poisoned_buffer(e.context, e.queue, n + 1);
      clscan::options<cl_int> opts;
      opts.algorithm = algo;
      opts.out_offset = 1; // the output's offset is not vector-aligned either
      REQUIRE(clscan::inclusive(e.queue, sub, out, n, opts).wait() == CL_SUCCESS);
      const std::vector<cl_int> got = read_on(e.queue, out, n + 1);
      guarded::check_exact("result", got, 1, expected);
      guarded::check_guards("guards", got, 1, n);
      // In place in the sub-buffer, at an offset of 3 elements.
      opts.out_offset = 0;
      REQUIRE(clscan::exclusive(e.queue, sub, n, opts).wait() == CL_SUCCESS);
      std::vector<cl_int> in_place = read_on(e.queue, sub, n);
      guarded::check_exact("in place", in_place, 0, exclusive_reference(data));
    }
}

TEST_CASE("robustness: the vector-aligned fast path is kept where the base allows it, and not elsewhere",
          "[robustness]") {
  // Programs are built from source in a fresh context (disk cache off), and the build options in the
  // log say which path each scan compiled.
  auto& e = env();
  scoped_env no_cache("CLSCAN_NO_CACHE", std::string("1"));
  log_counter builds({"built program from source"});
  const cl::Context context(e.device);
  const cl::CommandQueue queue(context, e.device);
  const std::size_t n = 100000;
  const std::vector<cl_int> data = small_values<cl_int>(n, 5);
  clscan::options<cl_int> opts;
  opts.algorithm = algorithm::three_stage;

  const auto scan_and_options = [&](const cl::Buffer& in, const cl::Buffer& out) {
    builds.take();
    REQUIRE(clscan::inclusive(queue, in, out, n, opts).wait() == CL_SUCCESS);
    CHECK(read_on(queue, out, n) == inclusive_reference(data));
    const auto messages = builds.take();
    return messages.empty() ? std::string() : messages.back();
  };

  // Host memory aligned to 128 bytes: the aligned path (no build needed after the first).
  std::vector<cl_int> storage(n + 64 + 32);
  cl_int* aligned = storage.data();
  while (reinterpret_cast<std::uintptr_t>(aligned) % 128)
    ++aligned;
  std::copy(data.begin(), data.end(), aligned);
  cl_int status = CL_SUCCESS;
  cl::Buffer host_aligned(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * sizeof(cl_int), aligned,
                          &status);
  REQUIRE(status == CL_SUCCESS);
  cl::Buffer device_out(context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
  const std::string first = scan_and_options(host_aligned, device_out);
  INFO("first build: " << first);
  CHECK(first.find("-DCLSCAN_ALIGNED=1") != std::string::npos);

  // The same at element 1: the unaligned path.
  std::copy(data.begin(), data.end(), aligned + 1);
  cl::Buffer host_shifted(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * sizeof(cl_int), aligned + 1,
                          &status);
  REQUIRE(status == CL_SUCCESS);
  const std::string second = scan_and_options(host_shifted, device_out);
  INFO("second build: " << second);
  CHECK(second.find("-DCLSCAN_ALIGNED=0") != std::string::npos);

  // Device memory again: the aligned program, already built.
  cl::Buffer device_in(context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
  REQUIRE(queue.enqueueWriteBuffer(device_in, CL_TRUE, 0, n * sizeof(cl_int), data.data()) == CL_SUCCESS);
  CHECK(scan_and_options(device_in, device_out).empty());
}

TEST_CASE("robustness: a host pointer that is not element-aligned is rejected", "[robustness]") {
  auto& e = env();
  const std::size_t n = 1000;
  std::vector<cl_int> storage(n + 2, 7);
  char* misaligned = reinterpret_cast<char*>(storage.data()) + 2;
  cl_int status = CL_SUCCESS;
  cl::Buffer odd(e.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * sizeof(cl_int), misaligned, &status);
  if (status != CL_SUCCESS) {
    WARN("the implementation refuses a host pointer that is not element-aligned (" << status
                                                                                   << "); not tested");
    return;
  }
  std::vector<char> before(n * sizeof(cl_int));
  std::copy(misaligned, misaligned + before.size(), before.begin());
  cl::Buffer out = poisoned_buffer(e.context, e.queue, n);
  CHECK_THROWS_AS(clscan::inclusive(e.queue, odd, out, n), clscan::invalid_argument);
  CHECK_THROWS_AS(clscan::inclusive(e.queue, out, odd, n), clscan::invalid_argument);
  CHECK_THROWS_AS(clscan::inclusive(e.queue, odd, n), clscan::invalid_argument);
  try {
    clscan::inclusive(e.queue, odd, out, n);
  } catch (const clscan::invalid_argument& error) {
    INFO(error.what());
    CHECK(std::string(error.what()).find("aligned") != std::string::npos);
  }
  REQUIRE(e.queue.finish() == CL_SUCCESS);
  CHECK(std::equal(before.begin(), before.end(), misaligned));
  CHECK(read_on(e.queue, out, n) == std::vector<cl_int>(n, poison_value<cl_int>()));
}

// ---------------------------------------------------------------------------------------------------
// #10 item 6: overlapping sub-buffers of one parent

TEST_CASE("robustness: overlapping views of one buffer as input and output are rejected", "[robustness]") {
  auto& e = env();
  const std::size_t align = base_address_align_bytes(e.device);
  const std::size_t step = align / sizeof(cl_int); // elements between two allowed sub-buffer origins
  const std::size_t total = 8 * step + 64;
  std::vector<cl_int> contents(total);
  std::iota(contents.begin(), contents.end(), 1);
  cl::Buffer parent = make_buffer(contents);
  cl_int status = CL_SUCCESS;
  const auto sub = [&](std::size_t first, std::size_t count) {
    cl_buffer_region region{first * sizeof(cl_int), count * sizeof(cl_int)};
    cl::Buffer b = parent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
    REQUIRE(status == CL_SUCCESS);
    return b;
  };
  const cl::Buffer a = sub(0, 4 * step), b = sub(step, 4 * step), same_as_a = sub(0, 4 * step),
                   after_a = sub(4 * step, 4 * step);
  const std::size_t n = 3 * step;

  const auto rejected = [&](const cl::Buffer& in, const cl::Buffer& out, std::size_t in_offset,
                            std::size_t out_offset) {
    clscan::options<cl_int> opts;
    opts.in_offset = in_offset;
    opts.out_offset = out_offset;
    try {
      clscan::inclusive(e.queue, in, out, n, opts);
    } catch (const clscan::invalid_argument& error) {
      INFO(error.what());
      CHECK(std::string(error.what()).find("overlap") != std::string::npos);
      return true;
    }
    return false;
  };
  CHECK(rejected(a, b, 0, 0));             // [0, 3s) and [s, 4s) of the parent
  CHECK(rejected(b, a, 0, 0));             // the other way round
  CHECK(rejected(a, same_as_a, 0, 0));     // two handles of the very same range
  CHECK(rejected(parent, b, 0, 0));        // a buffer and its own sub-buffer
  CHECK(rejected(b, parent, 0, 2 * step)); // [s, 4s) and [2s, 5s)
  CHECK(rejected(a, b, step, 0));          // same parent range [s, 4s): still two handles
  REQUIRE(e.queue.finish() == CL_SUCCESS);
  CHECK(read_buffer<cl_int>(parent, total) == contents); // nothing was written

  // Views that do not overlap scan normally, exactly.
  const std::vector<cl_int> first(contents.begin(), contents.begin() + static_cast<std::ptrdiff_t>(n));
  REQUIRE(clscan::inclusive(e.queue, a, after_a, n).wait() == CL_SUCCESS);
  std::vector<cl_int> got = read_buffer<cl_int>(parent, total);
  guarded::check_exact("adjacent sub-buffers", got, 4 * step, inclusive_reference(first));
  // Overlapping views with offsets that keep the element ranges apart are fine too.
  clscan::options<cl_int> apart;
  apart.out_offset = 3 * step; // b starts at s: output [4s, 7s); input a [0, 3s)
  const std::vector<cl_int> before = read_buffer<cl_int>(parent, total);
  const std::vector<cl_int> input(before.begin(), before.begin() + static_cast<std::ptrdiff_t>(step));
  REQUIRE(clscan::inclusive(e.queue, a, b, step, apart).wait() == CL_SUCCESS);
  got = read_buffer<cl_int>(parent, total);
  guarded::check_exact("disjoint ranges of overlapping sub-buffers", got, 4 * step,
                       inclusive_reference(input));

  // Two buffers over overlapping host memory (CL_MEM_USE_HOST_PTR) are views of one range too.
  std::vector<cl_int> host(4 * step, 1);
  cl::Buffer h1(e.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 2 * step * sizeof(cl_int), host.data(),
                &status);
  REQUIRE(status == CL_SUCCESS);
  cl::Buffer h2(e.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 2 * step * sizeof(cl_int),
                host.data() + step, &status);
  REQUIRE(status == CL_SUCCESS);
  clscan::options<cl_int> none;
  CHECK_THROWS_AS(clscan::inclusive(e.queue, h1, h2, 2 * step, none), clscan::invalid_argument);
  REQUIRE(e.queue.finish() == CL_SUCCESS);
  CHECK(std::all_of(host.begin(), host.end(), [](cl_int x) { return x == 1; }));
}
