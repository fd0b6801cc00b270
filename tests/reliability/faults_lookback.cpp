// Faults of the single-pass look-back: a look-back that gets no news (CLSCAN_SPIN_LIMIT=0), a tile that
// never publishes (with its child case), and one-element tiles (with theirs).
#include "faults_scan.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using namespace clscan_test;

TEST_CASE("faults: a look-back that gets no news falls back and stays correct (CLSCAN_SPIN_LIMIT=0)",
          "[faults]") {
  // CLSCAN_SPIN_LIMIT=0 makes every single-pass work-group stop waiting for its predecessors at once
  // and reduce their tiles itself (the decoupled fallback); out of place it walks back to the first
  // tile whatever the timing, so the look-back loop runs for many rounds on every run (a PoCL
  // miscompilation of that loop once showed only when two test processes ran side by side). In
  // place it stops at a published prefix, as it must. Read once per (context, device), like
  // CLSCAN_TUNING, so each shape below gets a fresh context. The disk cache is off, so every program
  // is built here, and its build options (in the log) show that the limit reached the kernel.
  scoped_env spin("CLSCAN_SPIN_LIMIT", std::string("0"));
  scoped_env no_cache("CLSCAN_NO_CACHE", std::string("1"));
  std::mutex mutex;
  std::vector<std::string> builds;
  clscan::set_log_handler([&](clscan::log_level, const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex);
    if (message.find("built program from source") != std::string::npos) builds.push_back(message);
  });
  struct remove_handler {
    ~remove_handler() { clscan::set_log_handler({}); }
  } remove_at_end;

  const cl::Device device = env().device;
  // Device defaults (large tiles: on PoCL one work-item per MiB), and 32-element tiles with a
  // look-back window of 2, so that a scan has thousands of tiles. Every work-group reduces all of its
  // predecessors' tiles, so the work grows with the square of the tile count: three default tiles
  // and a bit, but no more than about 3000 small ones.
  for (const std::optional<std::string>& tuning :
       {std::optional<std::string>(), std::optional<std::string>("wg=4,items=8,vec=4,lookback=2")}) {
    const std::string shape = tuning ? *tuning : "device defaults";
    CAPTURE(shape);
    scoped_env tuning_env("CLSCAN_TUNING", tuning);
    const clscan::tuning single = clscan::plan_for(device).single_pass;
    const std::size_t tile = single.work_group_size * single.items_per_thread;
    const std::size_t largest = tuning ? 100003 : 3 * tile + 5;
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    for (std::size_t n :
         {std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{33}, std::size_t{1000}, largest})
      for (bool in_place : {false, true})
        for (auto kind : {clscan::scan_kind::inclusive, clscan::scan_kind::exclusive})
          for (bool affine : {false, true}) {
            scan_spec s;
            s.algo = clscan::algorithm::single_pass;
            s.n = n, s.in_place = in_place, s.kind = kind, s.affine = affine;
            s.in_offset = s.out_offset = 4;
            if (!in_place) s.out_offset = 8;
            if (n == 1000) s.initial = 12345;
            s.seed = n * 31 + in_place * 7 + affine;
            std::string problem = affine ? checked_scan<cl_uint>(context, queue, s, std::chrono::seconds(60))
                                         : checked_scan<cl_int>(context, queue, s, std::chrono::seconds(60));
            INFO(problem);
            CHECK(problem.empty());
          }
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::string all;
    for (const auto& b : builds)
      all += b + "\n";
    INFO("programs built:\n" << all);
    CHECK_FALSE(builds.empty());
    for (const auto& b : builds)
      CHECK_THAT(b, Contains("-DCLSCAN_SPIN_LIMIT=0"));
  }
  // A value that is not a number is rejected like an invalid CLSCAN_TUNING.
  {
    scoped_env bad("CLSCAN_SPIN_LIMIT", std::string("soon"));
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    cl::Buffer buffer(context, CL_MEM_READ_WRITE, 64 * sizeof(cl_int));
    clscan::options<cl_int> opts;
    opts.algorithm = clscan::algorithm::single_pass;
    CHECK_THROWS_AS(clscan::inclusive(queue, buffer, 64, opts), clscan::invalid_argument);
  }
  clscan::release_cached_resources();
}

namespace {

// Floating-point values of mixed sign and magnitude, so that the order of combination shows in the
// rounding.
template <typename T> std::vector<T> rounding_sensitive_input(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  std::uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (T& x : v) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const double magnitude = std::ldexp(1.0 + static_cast<double>(state % 1000) / 1000.0,
                                        static_cast<int>((state >> 10) % 40) - 20);
    x = static_cast<T>((state >> 20) % 2 ? magnitude : -magnitude);
  }
  return v;
}

// A context and queue of their own: CLSCAN_SPIN_LIMIT and CLSCAN_TUNING are read at a context's first
// call.
struct fresh_queue {
  cl::Context context{env().device};
  cl::CommandQueue queue{context, env().device};
};

// The key of element i in the by-key calls: segments of 37 elements, which straddle tiles.
cl_int segment_key(std::size_t i) { return static_cast<cl_int>(i / 37); }

// A deterministic single-pass scan of `input` (by_key: inclusive_by_key / exclusive_by_key on
// segment_key) with initial value 0.25: its output bits.
template <typename T>
std::vector<T> deterministic_single_pass(const fresh_queue& q, const std::vector<T>& input,
                                         clscan::scan_kind kind, bool in_place, bool by_key) {
  const std::size_t n = input.size();
  const std::size_t bytes = n * sizeof(T);
  cl::Buffer in(q.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, const_cast<T*>(input.data()));
  std::vector<T> poison(n, std::numeric_limits<T>::quiet_NaN());
  cl::Buffer out(q.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, poison.data());
  std::vector<cl_int> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = segment_key(i);
  cl::Buffer key_buffer(q.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(cl_int), keys.data());
  clscan::options<T> opts;
  opts.algorithm = clscan::algorithm::single_pass;
  opts.deterministic = true;
  opts.initial = T(0.25);
  const cl::Buffer& target = in_place ? in : out;
  const bool inclusive = kind == clscan::scan_kind::inclusive;
  const cl::Event done =
      by_key ? (inclusive ? clscan::inclusive_by_key<cl_int, T>(q.queue, key_buffer, in, target, n, opts)
                          : clscan::exclusive_by_key<cl_int, T>(q.queue, key_buffer, in, target, n, opts))
             : (inclusive ? clscan::inclusive(q.queue, in, target, n, opts)
                          : clscan::exclusive(q.queue, in, target, n, opts));
  REQUIRE(done.wait() == CL_SUCCESS);
  std::vector<T> result(n);
  REQUIRE(q.queue.enqueueReadBuffer(target, CL_TRUE, 0, bytes, result.data()) == CL_SUCCESS);
  return result;
}

// The exact result for small integers: initial value 0.25 in front of the scan, or of each segment.
template <typename T>
std::vector<T> expected_scan(const std::vector<T>& input, clscan::scan_kind kind, bool by_key) {
  std::vector<T> expected(input.size());
  T running = T(0);
  for (std::size_t i = 0; i < input.size(); ++i) {
    if (by_key && i > 0 && segment_key(i) != segment_key(i - 1)) running = T(0);
    expected[i] = T(0.25) + (kind == clscan::scan_kind::inclusive ? running + input[i] : running);
    running += input[i];
  }
  return expected;
}

// Index of the first element whose bits differ, or n.
template <typename T> std::size_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  std::size_t i = 0;
  while (i < a.size() && std::memcmp(&a[i], &b[i], sizeof(T)) == 0)
    ++i;
  return i;
}

template <typename T> void check_fixed_order(const char* type, bool by_key) {
  const cl::Device device = env().device;
  for (const std::optional<std::string>& tuning :
       {std::optional<std::string>(), std::optional<std::string>("wg=4,items=8,vec=4,lookback=2")}) {
    // The device's own shape for float scans only: every program is built here (and CI's PoCL
    // cache starts empty), and the small tiles reach every path.
    if (!tuning && (by_key || sizeof(T) != sizeof(cl_float))) continue;
    const std::string shape = tuning ? *tuning : "device defaults";
    scoped_env tuning_env("CLSCAN_TUNING", tuning);
    if (!clscan::qualify_single_pass(device, clscan::element_traits<T>::type).passed) {
      std::cout << "faults: fixed order (" << (by_key ? "by key, " : "") << type << ", " << shape
                << "): skipped: no single-pass scan on " << env().device_name << "\n";
      continue;
    }
    const clscan::tuning single = clscan::plan_for(device).single_pass;
    const std::size_t tile = single.work_group_size * single.items_per_thread;
    // The tree of tiles has two levels at 1001 small tiles' elements, three past 256 tiles.
    const std::vector<std::size_t> sizes =
        tuning ? std::vector<std::size_t>{1001, 300 * tile + 7} : std::vector<std::size_t>{2 * tile + 5};
    // A context's first call reads the settings: one call each fixes them.
    const std::vector<T> one{T(1)};
    const fresh_queue normal;
    deterministic_single_pass(normal, one, clscan::scan_kind::inclusive, false, by_key);
    scoped_env spin("CLSCAN_SPIN_LIMIT", std::string("0"));
    const fresh_queue falling_back;
    deterministic_single_pass(falling_back, one, clscan::scan_kind::inclusive, false, by_key);
    for (std::size_t n : sizes)
      for (clscan::scan_kind kind : {clscan::scan_kind::inclusive, clscan::scan_kind::exclusive}) {
        const char* kind_name = clscan::to_string(kind);
        CAPTURE(type, by_key, shape, n, kind_name);
        // Small integers: every order of combination gives the exact sums, so each tile's prefix must
        // be the reference's (a tile counted twice or left out shows).
        std::vector<T> integers(n);
        for (std::size_t i = 0; i < n; ++i)
          integers[i] = static_cast<T>(static_cast<int>((i * 7919) % 7) - 3);
        const std::vector<T> expected = expected_scan(integers, kind, by_key);
        INFO("integer-valued input, first element that differs from the reference");
        CHECK(first_difference(deterministic_single_pass(normal, integers, kind, false, by_key), expected) ==
              n);
        CHECK(first_difference(deterministic_single_pass(falling_back, integers, kind, false, by_key),
                               expected) == n);

        // Rounding-sensitive input: the same bits every run, and when every tile falls back.
        const std::vector<T> input = rounding_sensitive_input<T>(n, n);
        const std::vector<T> first = deterministic_single_pass(normal, input, kind, false, by_key);
        INFO("rounding-sensitive input, first element that differs from the first run");
        CHECK(first_difference(deterministic_single_pass(normal, input, kind, false, by_key), first) == n);
        for (bool in_place : {false, true}) {
          CAPTURE(in_place);
          CHECK(first_difference(deterministic_single_pass(falling_back, input, kind, in_place, by_key),
                                 first) == n);
        }
      }
  }
}

} // namespace

// options::deterministic on the single-pass scan and scan by key (CLSCAN_FIXED_ORDER): every tile's
// prefix combines
// the same group totals of a fixed tree over the tiles, whether a tile found them published or
// computed them itself. CLSCAN_SPIN_LIMIT=0 makes every work-group compute every total it needs
// from the input (out of place; in place it takes what was published, as it must): the bits must
// still be those of a normal run.
TEST_CASE("faults: deterministic single-pass scans give the same bits when every tile falls back",
          "[faults]") {
  scoped_env no_cache("CLSCAN_NO_CACHE", std::string("1"));
  // Scans by key, whose look-back is the same code with another carry, run on float only.
  check_fixed_order<cl_float>("float", false);
  check_fixed_order<cl_float>("float", true);
  if (env().device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0)
    check_fixed_order<cl_double>("double", false);
  else
    std::cout << "faults: fixed order (double): skipped: no fp64 on " << env().device_name << "\n";
  clscan::release_cached_resources();
}

// Run with CLSCAN_FAULTS_SILENT_TILE=<k>, CLSCAN_BUILD_OPTIONS=-DCLSCAN_TEST_SILENT_TILE=<k>, a small
// CLSCAN_SPIN_LIMIT and small tiles (CLSCAN_TUNING): single-pass tile k never publishes, so its
// successor can only get past it by giving up waiting after CLSCAN_SPIN_LIMIT rounds and reducing
// the tile itself. A correct result is therefore proof that the bounded wait ran out and the
// fallback's value was right; a broken bound hangs (the watchdogs here and in the parent end it).
// Out of place only: in place the silent tile still writes its output over the input its successor
// reduces (kernels/single_pass.cl). Sizes put tile k second to last (the last tile never publishes
// anyway), with a one-element, a partial and a full last tile, and in the middle of 41 tiles; with
// and without an initial value. The affine operator is not commutative, so a fallback that combined
// in the wrong order would show.
TEST_CASE("faults child: a tile that never publishes", "[.faults-child]") {
  print_log_events logging;
  const char* silent = std::getenv("CLSCAN_FAULTS_SILENT_TILE");
  REQUIRE(silent);
  const std::size_t k = static_cast<std::size_t>(std::strtoull(silent, nullptr, 10));
  const cl::Device device = clscan::select_device();
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  bool ok = true;
  std::size_t scans = 0;
  // One program per type (each build option is a program of its own, and PoCL compiles every one
  // cold on a fresh machine): aligned offsets for int and the affine operator, unaligned ones for long.
  const auto for_type = [&](clscan::element_type type, auto zero, bool affine, std::size_t in_offset,
                            std::size_t out_offset) {
    using T = decltype(zero);
    const clscan::tuning shape = clscan::plan_for(device, type).single_pass;
    const std::size_t tile = shape.work_group_size * shape.items_per_thread;
    std::cout << clscan::opencl_name(type) << (affine ? " affine" : " sum") << ": tile " << tile
              << " elements, spin limit " << shape.spin_limit << " (" << shape.origin << ")" << std::endl;
    std::vector<std::size_t> sizes = {(k + 1) * tile + 1, (k + 2) * tile - 7, (k + 2) * tile};
    if (k + 2 < 41) sizes.push_back(41 * tile - 13);
    for (std::size_t n : sizes)
      for (auto kind : {clscan::scan_kind::inclusive, clscan::scan_kind::exclusive})
        for (bool with_initial : {false, true}) {
          scan_spec s;
          s.algo = clscan::algorithm::single_pass;
          s.affine = affine;
          s.kind = kind;
          s.n = n;
          s.in_offset = in_offset, s.out_offset = out_offset;
          if (with_initial) s.initial = static_cast<std::int64_t>(n * 977 + k);
          s.seed = n * 131 + k * 7 + with_initial;
          const std::string problem = checked_scan<T>(context, queue, s, std::chrono::seconds(60));
          ++scans;
          if (!problem.empty()) {
            std::cout << "problem: " << problem << std::endl;
            ok = false;
          }
        }
  };
  for_type(clscan::element_type::int32, cl_int{}, false, 4, 8);
  for_type(clscan::element_type::int64, cl_long{}, false, 3, 5);
  for_type(clscan::element_type::uint32, cl_uint{}, true, 0, 0);
  std::cout << "scans: " << scans << std::endl;
  child_verdict(ok);
}

TEST_CASE("faults: a tile that never publishes is waited for boundedly, then reduced by its successor",
          "[faults]") {
  // Real spin counters this time (CLSCAN_SPIN_LIMIT=4, not 0): tile k of every single-pass scan is
  // compiled never to publish (-DCLSCAN_TEST_SILENT_TILE=k), as if its work-group had stalled, so its
  // successor's wait for news must run out and fall back (see "faults child: a tile that never
  // publishes"). Both status layouts: 64-bit words, and 32-bit words with 16-bit payloads
  // (CLSCAN_NARROW_STATUS=1), in which a cl_long takes four words. 32-element tiles with a look-back
  // window of 2. The disk cache is off, so every program is built in the child and its build
  // options (in the log) show that the define reached it. The children of one layout run side by
  // side; a child still running after 240 s is taken for a hang and fails the test.
  temp_dir work;
  // Tile 0 (its successor's fallback ends the walk with the initial value), tile 1 (the walk goes on
  // to a published prefix) and tile 39 (the walk passes many published aggregates).
  const std::size_t silent_tiles[] = {0, 1, 39};
  for (bool narrow : {false, true}) {
    std::vector<running_child> children;
    for (std::size_t k : silent_tiles) {
      child_spec spec = faults_child("faults child: a tile that never publishes");
      spec.env["CLSCAN_FAULTS_SILENT_TILE"] = std::to_string(k);
      spec.env["CLSCAN_BUILD_OPTIONS"] = "-DCLSCAN_TEST_SILENT_TILE=" + std::to_string(k);
      // The silent tile breaks in-place scans on purpose, which the qualification would catch.
      spec.env["CLSCAN_QUALIFY"] = std::string("0");
      spec.env["CLSCAN_SPIN_LIMIT"] = std::string("4");
      spec.env["CLSCAN_TUNING"] = std::string("wg=4,items=8,vec=4,lookback=2");
      spec.env["CLSCAN_NO_CACHE"] = std::string("1");
      spec.env["CLSCAN_NARROW_STATUS"] = narrow ? std::optional<std::string>("1") : std::nullopt;
      children.push_back(start_child(
          spec, work.path() / ("silent-" + std::to_string(k) + (narrow ? "-narrow" : "-wide") + ".out")));
    }
    for (std::size_t i = 0; i < children.size(); ++i) {
      const std::size_t k = silent_tiles[i];
      const child_result result = finish_child(children[i], std::chrono::seconds(240));
      INFO("silent tile " << k << ", " << (narrow ? "32-bit" : "64-bit")
                          << " status words; child output (exit code " << result.exit_code
                          << "; 134 = 128 + SIGABRT, the in-child watchdog):\n"
                          << result.output);
      CHECK(result.ok());
      CHECK_FALSE(result.has("problem:"));
      CHECK(result.has(k + 2 < 41 ? "scans: 48" : "scans: 36"));
      CHECK(result.has("tile 32 elements, spin limit 4"));
      CHECK(result.has("-DCLSCAN_TEST_SILENT_TILE=" + std::to_string(k)));
      // Every program built carries the define and the spin limit.
      std::istringstream lines(result.output);
      std::size_t builds = 0;
      for (std::string line; std::getline(lines, line);) {
        if (line.find("built program from source") == std::string::npos) continue;
        ++builds;
        CHECK_THAT(line, Contains("-DCLSCAN_TEST_SILENT_TILE=" + std::to_string(k)) &&
                             Contains("-DCLSCAN_SPIN_LIMIT=4"));
      }
      CHECK(builds >= 3);
    }
  }
}

// Run with CLSCAN_TUNING=wg=1,items=1,vec=1: one-element tiles, for both algorithms.
TEST_CASE("faults child: one-element tiles", "[.faults-child]") {
  const cl::Device device = clscan::select_device();
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  bool ok = true;
  for (auto algo : {clscan::algorithm::single_pass, clscan::algorithm::three_stage}) {
    for (std::size_t n : {1, 2, 3, 100}) {
      scan_spec s;
      s.algo = algo, s.n = n, s.seed = n;
      std::cout << "scan: " << describe(s) << std::endl;
      std::string problem;
      try {
        problem = checked_scan<cl_int>(context, queue, s);
      } catch (const std::exception& e) {
        problem = e.what();
      }
      if (problem.find("invalid_argument") != std::string::npos ||
          problem.find("CLSCAN_TUNING") != std::string::npos) {
        std::cout << "rejected: " << problem << std::endl; // a clear rejection of the shape is fine
      } else if (!problem.empty()) {
        std::cout << "problem: " << problem << std::endl;
        ok = false;
      }
    }
  }
  child_verdict(ok);
}

TEST_CASE("faults: one-element tiles (CLSCAN_TUNING=wg=1,items=1,vec=1) scan correctly or are rejected",
          "[faults]") {
  temp_dir work;
  const child_result child =
      run_child(faults_child("faults child: one-element tiles", {{"CLSCAN_TUNING", "wg=1,items=1,vec=1"}}),
                work.path());
  INFO("child output (exit code " << child.exit_code << "; 139 = 128 + SIGSEGV):\n" << child.output);
  CHECK(child.exit_code == 0);
  CHECK(child.ok());
}
