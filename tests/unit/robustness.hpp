// Robustness ("[robustness]"): the library's own state stays right when the application does
// something legal but unusual (issues #10 and #16). Integer results are compared exactly with
// std:: scans, and outputs are poisoned first.
//
//   - a scan whose wait list fails ([failed-wait], its own ctest test "robustness-failed-wait": it
//     prints "robustness: skipped:" where the OpenCL implementation itself leaves the queue unusable
//     after a failed event, and ctest then reports it skipped)
//   - buffers whose memory is only element-aligned: CL_MEM_USE_HOST_PTR over host memory at any
//     element, sub-buffers of such a parent; the vector-aligned fast path stays where it is valid
//   - sub-buffers of one parent (or buffers over one host range) that overlap as input and output
//   - a scan never waits for commands it was not given: many queues gated on unset user events
//   - the per-(context, device) cache is bounded: dropped contexts do not accumulate, per-context
//     release, set_cache_limit, and eviction never breaks or waits for work in flight
//
// Exit behaviour (global objects, Oclgrind, unset user events at exit) is tested by
// tests/programs/exit_check.cpp, run as separate ctest tests.
//
// The cases: robustness_failed_wait.cpp, robustness_memory.cpp (element-aligned memory, overlapping
// views), robustness_contexts.cpp (user events, the bounded cache). This header holds their helpers.
#pragma once

#include "support/guarded.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace clscan_test::robustness {

using clscan::algorithm;
using guarded::splitmix64;

template <typename T> std::vector<T> small_values(std::size_t n, std::uint64_t seed) {
  splitmix64 r{seed};
  std::vector<T> data(n);
  for (auto& x : data)
    x = static_cast<T>(static_cast<std::int64_t>(r.next() % 2001) - 1000);
  return data;
}

template <typename T> std::vector<T> inclusive_reference(const std::vector<T>& data) {
  return clscan_reference::scan(data, clscan::scan_kind::inclusive, clscan::op::sum);
}

template <typename T> std::vector<T> exclusive_reference(const std::vector<T>& data) {
  return clscan_reference::scan(data, clscan::scan_kind::exclusive, clscan::op::sum);
}

// A buffer of `context` holding `data` (not empty), written through `queue`.
inline cl::Buffer buffer_on(const cl::Context& context, const cl::CommandQueue& queue,
                            const std::vector<cl_int>& data) {
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, data.size() * sizeof(cl_int));
  REQUIRE(queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, data.size() * sizeof(cl_int), data.data()) ==
          CL_SUCCESS);
  return buffer;
}

inline cl::Buffer poisoned_buffer(const cl::Context& context, const cl::CommandQueue& queue, std::size_t n) {
  return buffer_on(context, queue, std::vector<cl_int>(std::max<std::size_t>(n, 1), poison_value<cl_int>()));
}

inline std::vector<cl_int> read_on(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t n) {
  std::vector<cl_int> got(n);
  REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(cl_int), got.data()) == CL_SUCCESS);
  return got;
}

inline cl_int event_status(const cl::Event& event) {
  cl_int status = CL_QUEUED;
  REQUIRE(event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status) == CL_SUCCESS);
  return status;
}

// Polls `event` until it is terminal or `seconds` pass; never blocks on it.
inline cl_int wait_at_most(const cl::Event& event, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  cl_int status = event_status(event);
  while (status > CL_COMPLETE && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    status = event_status(event);
  }
  return status;
}

// A buffer's reference count once the implementation has retired the commands that used it (rusticl
// drops a completed command's references on a thread of its own, a little later): at most 2 s of polling.
inline cl_uint settled_reference_count(const cl::Buffer& buffer) {
  const auto count_now = [&] {
    cl_uint count = 0;
    REQUIRE(clGetMemObjectInfo(buffer(), CL_MEM_REFERENCE_COUNT, sizeof count, &count, nullptr) ==
            CL_SUCCESS);
    return count;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  cl_uint count = count_now();
  while (count > 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    count = count_now();
  }
  return count;
}

// Counts clscan's log messages that start with `prefix` while it lives.
class log_counter {
public:
  explicit log_counter(std::vector<std::string> prefixes) : prefixes_(std::move(prefixes)) {
    clscan::set_log_handler([this](clscan::log_level, const std::string& message) {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& prefix : prefixes_)
        if (message.find(prefix) != std::string::npos) messages_.push_back(message);
    });
  }
  ~log_counter() { clscan::set_log_handler({}); }
  log_counter(const log_counter&) = delete;
  log_counter& operator=(const log_counter&) = delete;
  std::vector<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(messages_, {});
  }

private:
  std::vector<std::string> prefixes_;
  std::mutex mutex_;
  std::vector<std::string> messages_;
};

inline const char* algo_name(algorithm a) { return clscan::to_string(a); }

} // namespace clscan_test::robustness
