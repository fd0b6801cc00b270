// Faults ("[faults]"): what clscan does when its environment fails it. The tests are in
// faults_resources.cpp, faults_cache.cpp, faults_lookback.cpp and faults_status_tags.cpp, each with
// the child cases it runs; this header holds what they share: the checked scan and the children's log.
//
//   - temporary storage that cannot be allocated: a clscan::opencl_error naming clCreateBuffer, the
//     user's buffers untouched, the context still usable, no OpenCL object left behind (context and
//     queue reference counts) (in a child process with a small device)
//   - a full disk (ENOSPC) under the disk cache: correct scans, a warning, no partial entry
//   - eight processes starting together on an empty disk cache: all correct, the cache valid after
//   - 2000 scans with fresh buffers: no growth of host memory or of OpenCL objects (context and
//     queue reference counts); release_cached_resources() gives contexts back
//   - a single-pass look-back that gets no news (CLSCAN_SPIN_LIMIT=0): falls back, stays correct,
//     never hangs
//   - a single-pass tile that never publishes (CLSCAN_TEST_SILENT_TILE, CLSCAN_SPIN_LIMIT=4): its
//     successor's bounded wait runs out and it reduces the tile itself; correct, never hangs (64- and
//     32-bit status words, in child processes)
//   - more than 2 x 65535 single-pass launches on one queue with 32-bit status words: the 16-bit
//     tags wrap, the status words are cleared, every result is right (in a child process)
//   - a launch shape of one-element tiles (CLSCAN_TUNING=wg=1,items=1,vec=1): a correct result or a
//     clear rejection, never a crash (in a child process)
//
// The child processes are this executable again (/proc/self/exe), running one of the hidden
// "[.faults-child]" test cases below; they print "result: ok" when everything they checked was right,
// and every clscan log event as "log: <level>: <message>".
#pragma once

#include "support/guarded.hpp"
#include "support/process.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace clscan_test {

using guarded::splitmix64;

// A child process running the hidden "[.faults-child]" test case `test_name` of this executable, with
// `env`'s changes to the environment.
inline child_spec faults_child(const std::string& test_name, decltype(child_spec::env) env = {}) {
  child_spec spec;
  spec.command = {self_executable(), test_name};
  spec.env = std::move(env);
  return spec;
}

// A child test case's last line, which its parent looks for, and its own check.
inline void child_verdict(bool ok) {
  std::cout << "result: " << (ok ? "ok" : "wrong") << std::endl;
  CHECK(ok);
}

struct print_log_events {
  std::mutex mutex;
  print_log_events() {
    clscan::set_log_handler([this](clscan::log_level level, const std::string& message) {
      std::lock_guard<std::mutex> lock(mutex);
      std::cout << "log: " << clscan::to_string(level) << ": " << message << std::endl;
    });
  }
  ~print_log_events() { clscan::set_log_handler({}); }
};

// --- scans the children and the in-process tests run ------------------------------------------------

// One scan on guarded buffers in `context`, checked against the CPU (sum, max or xor of integers, or
// the affine composition on cl_uint). Returns "" when right, else what was wrong. No Catch macros.
struct scan_spec {
  clscan::algorithm algo = clscan::algorithm::automatic;
  clscan::op operation = clscan::op::sum;
  bool affine = false; // op::custom: composition of affine maps modulo 2^16 (not commutative)
  clscan::scan_kind kind = clscan::scan_kind::inclusive;
  bool in_place = false;
  std::size_t n = 1, in_offset = 0, out_offset = 0;
  std::optional<std::int64_t> initial;
  std::uint64_t seed = 1;
};

inline std::string describe(const scan_spec& s) {
  std::ostringstream out;
  out << clscan::to_string(s.algo) << " " << (s.affine ? "affine custom" : clscan::to_string(s.operation))
      << " " << clscan::to_string(s.kind) << " n=" << s.n << (s.in_place ? " in place" : " out of place")
      << " offsets " << s.in_offset << "/" << s.out_offset << (s.initial ? " with initial" : "");
  return out.str();
}

template <typename T>
std::string checked_scan(const cl::Context& context, const cl::CommandQueue& queue, const scan_spec& s,
                         std::chrono::seconds timeout = std::chrono::seconds(120)) {
  splitmix64 r{s.seed};
  std::vector<T> input(s.n);
  for (auto& x : input) {
    const std::uint64_t bits = r.next();
    std::memcpy(&x, &bits, sizeof x);
  }
  clscan::options<T> opts;
  opts.algorithm = s.algo;
  opts.operation = s.affine ? clscan::op::custom : s.operation;
  T identity{};
  if (s.affine) {
    opts.custom_op = guarded::affine<cl_uint>::expression();
    identity = static_cast<T>(1u << guarded::affine<cl_uint>::half);
    opts.custom_identity = identity;
  } else {
    identity = clscan_reference::identity<T>(s.operation);
  }
  if (s.initial) opts.initial = static_cast<T>(*s.initial);
  opts.in_offset = s.in_offset;
  opts.out_offset = s.out_offset;
  const auto combine = [&](T a, T b) -> T {
    if (s.affine) {
      if constexpr (std::is_same<T, cl_uint>::value) return guarded::affine<cl_uint>::compose(a, b);
      return a;
    }
    return clscan_reference::combine(s.operation, a, b);
  };
  const std::vector<T> reference =
      clscan_reference::scan(input, s.kind, s.initial ? static_cast<T>(*s.initial) : identity, combine);
  const T poison = poison_value<T>();
  constexpr std::size_t back = 3;
  std::vector<T> in_image(s.in_offset + s.n + back, poison);
  std::copy(input.begin(), input.end(), in_image.begin() + static_cast<std::ptrdiff_t>(s.in_offset));
  std::vector<T> out_image = s.in_place ? in_image : std::vector<T>(s.out_offset + s.n + back, poison);
  std::vector<T> expected = out_image;
  std::copy(reference.begin(), reference.end(), expected.begin() + static_cast<std::ptrdiff_t>(s.out_offset));

  cl::Buffer in(context, CL_MEM_READ_WRITE, in_image.size() * sizeof(T));
  cl::Buffer out = s.in_place ? in : cl::Buffer(context, CL_MEM_READ_WRITE, out_image.size() * sizeof(T));
  if (queue.enqueueWriteBuffer(in, CL_TRUE, 0, in_image.size() * sizeof(T), in_image.data()) != CL_SUCCESS ||
      (!s.in_place && queue.enqueueWriteBuffer(out, CL_TRUE, 0, out_image.size() * sizeof(T),
                                               out_image.data()) != CL_SUCCESS))
    return "upload failed";
  cl::Event done;
  try {
    if (s.kind == clscan::scan_kind::inclusive)
      done = s.in_place ? clscan::inclusive<T>(queue, in, s.n, opts)
                        : clscan::inclusive<T>(queue, in, out, s.n, opts);
    else
      done = s.in_place ? clscan::exclusive<T>(queue, in, s.n, opts)
                        : clscan::exclusive<T>(queue, in, out, s.n, opts);
  } catch (const std::exception& e) {
    return describe(s) + ": threw " + e.what();
  }
  queue.flush();
  auto waiting = std::async(std::launch::async, [&done] { return done.wait(); });
  if (waiting.wait_for(timeout) == std::future_status::timeout) {
    std::cerr << "clscan faults test: " << describe(s) << " did not complete within " << timeout.count()
              << " s; taking it for a hang and aborting" << std::endl;
    std::abort();
  }
  if (waiting.get() != CL_SUCCESS) return describe(s) + ": the event failed";
  std::vector<T> got(expected.size());
  if (queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(T), got.data()) != CL_SUCCESS)
    return "read failed";
  std::size_t differences = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0 && differences++ == 0) first = i;
  if (!s.in_place) {
    std::vector<T> in_after(in_image.size());
    if (queue.enqueueReadBuffer(in, CL_TRUE, 0, in_after.size() * sizeof(T), in_after.data()) != CL_SUCCESS)
      return "read failed";
    if (in_after != in_image) return describe(s) + ": the input buffer changed";
  }
  if (!differences) return {};
  std::ostringstream message;
  message << describe(s) << ": " << differences << " elements differ, the first at buffer index " << first
          << ": expected " << +expected[first] << ", got " << +got[first];
  return message.str();
}

} // namespace clscan_test
