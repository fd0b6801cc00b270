// Calls on runs of equal keys (reduce_by_key, unique_by_key, run_length_encode), compared exactly
// against sequential references written here as plain loops: several key and value types, both ways
// of chaining tiles, runs of length 1, one run, random lengths, runs across the device's tiles, n = 0
// and 1, offsets on every buffer, and poisoned guards around every output (and past the count), so that
// an element written where it must not be shows.
#include "robustness.hpp"
#include "support/guarded.hpp"
#include "support/own_contexts.hpp"

#include <common/reference.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

using namespace clscan_test;
using namespace clscan_test::guarded;
using clscan::algorithm;

namespace {

constexpr std::uint64_t data_seed = 0x2026'1127'0b1eull;
constexpr std::size_t guard = 3;
constexpr std::size_t in_offset = 2, out_offset = guard, count_offset = 1;

template <typename T> bool device_supports() {
  return !std::is_same_v<T, cl_double> || clscan::capabilities(env().device).fp64;
}

// 1, 2, 3, 17, sizes around the single-pass tiles of K and V (large and small shapes), and with
// `large` one size of several tiles of a CPU's long runs.
template <typename K, typename V> std::vector<std::size_t> sizes(bool large) {
  std::vector<std::size_t> out = {1, 2, 3, 17};
  for (const clscan::element_type type : {clscan::element_traits<K>::type, clscan::element_traits<V>::type}) {
    const clscan::dispatch_plan plan = clscan::plan_for(env().device, type);
    for (const clscan::tuning& shape : {plan.single_pass, plan.single_pass_small}) {
      const std::size_t tile = shape.work_group_size * std::min<std::size_t>(shape.items_per_thread, 64);
      for (std::size_t t : {tile - 1, tile, tile + 1, 2 * tile + 3})
        if (t > 0 && t <= 20'000) out.push_back(t);
    }
  }
  if (large) out.push_back(100'003);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

enum class shape { distinct, one_run, short_runs, long_runs };
const char* shape_name(shape s) {
  switch (s) {
  case shape::distinct: return "runs of 1";
  case shape::one_run: return "one run";
  case shape::short_runs: return "random runs of 1 to 8";
  case shape::long_runs: return "random runs of 1 to 1400";
  }
  return "?";
}

template <typename K> std::vector<K> make_keys(shape s, std::size_t n) {
  std::vector<K> keys(n);
  clscan_reference::splitmix64 r{data_seed ^ n ^ (static_cast<std::uint64_t>(s) << 40)};
  const std::size_t max_run = s == shape::short_runs ? 4 : 700;
  for (std::size_t i = 0; i < n;) {
    std::size_t run = s == shape::distinct ? 1 : s == shape::one_run ? n : 1 + r.next() % (2 * max_run);
    // Few distinct keys (0, 1, 2), so that a run's key often equals the key of the run before the last.
    K key = static_cast<K>(r.next() % 3);
    if (i > 0 && key == keys[i - 1]) key = static_cast<K>(key + 1);
    for (; run > 0 && i < n; --run)
      keys[i++] = key;
  }
  return keys;
}

template <typename V> std::vector<V> make_values(std::size_t n) {
  std::vector<V> values(n);
  clscan_reference::splitmix64 r{data_seed + n};
  for (auto& x : values)
    x = static_cast<V>(r.next() % 100); // small integers: float sums exact in any order
  return values;
}

// The runs of `keys` as [first, last] index pairs, found with == as the library compares.
template <typename K> std::vector<std::pair<std::size_t, std::size_t>> runs_of(const std::vector<K>& keys) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || !(keys[i] == keys[i - 1]))
      runs.emplace_back(i, i);
    else
      runs.back().second = i;
  }
  return runs;
}

template <typename T> cl::Buffer input_buffer(const std::vector<T>& data) {
  std::vector<T> image(in_offset + data.size() + 1, poison_value<T>());
  std::copy(data.begin(), data.end(), image.begin() + in_offset);
  return make_buffer(image);
}

template <typename T> cl::Buffer output_buffer(std::size_t n) {
  return make_buffer(std::vector<T>(out_offset + n + guard, poison_value<T>()));
}

cl::Buffer count_buffer() { return make_buffer(std::vector<cl_ulong>(3, poison_value<cl_ulong>())); }

// The count at count_offset, and its neighbours untouched.
void check_count(const cl::Buffer& count, std::size_t expected) {
  const std::vector<cl_ulong> counts = read_buffer<cl_ulong>(count, 3);
  CHECK(counts[count_offset] == expected);
  CHECK(same_bits(counts[0], poison_value<cl_ulong>()));
  CHECK(same_bits(counts[2], poison_value<cl_ulong>()));
}

// An output: its first expected.size() elements, and poison before and after them (nothing past the
// count written).
template <typename T>
void check_output(const char* what, const cl::Buffer& buffer, std::size_t n, const std::vector<T>& expected) {
  const std::vector<T> got = read_buffer<T>(buffer, out_offset + n + guard);
  check_exact(what, got, out_offset, expected);
  check_guards(what, got, out_offset, expected.size());
}

template <typename T>
void check_input(const char* what, const cl::Buffer& buffer, const std::vector<T>& data) {
  std::vector<T> image(in_offset + data.size() + 1, poison_value<T>());
  std::copy(data.begin(), data.end(), image.begin() + in_offset);
  const std::vector<T> got = read_buffer<T>(buffer, image.size());
  INFO(what << " unchanged");
  CHECK(std::equal(got.begin(), got.end(), image.begin(), [](T a, T b) { return same_bits(a, b); }));
}

// The options' offsets set to this file's (in_offset, out_offset, count_offset).
template <typename Options> void at_offsets(Options& opts) {
  opts.in_offset = in_offset;
  opts.out_offset = out_offset;
  opts.count_offset = count_offset;
}

// Runs a call of keys and values (`call`: keys, values, keys_out, values_out, count, n, options) at this
// file's offsets, and checks the count, both outputs against the expected runs and both inputs unchanged.
template <typename K, typename V, typename Options, typename Call>
void check_pairs(const std::vector<K>& keys, const std::vector<V>& values, Options opts,
                 const std::vector<K>& expected_keys, const std::vector<V>& expected_values, Call call) {
  const std::size_t n = keys.size();
  at_offsets(opts);
  const cl::Buffer k = input_buffer(keys), v = input_buffer(values);
  const cl::Buffer ko = output_buffer<K>(n), vo = output_buffer<V>(n), count = count_buffer();
  REQUIRE(call(k, v, ko, vo, count, n, opts).wait() == CL_SUCCESS);
  check_count(count, expected_keys.size());
  check_output("keys_out", ko, n, expected_keys);
  check_output("values_out", vo, n, expected_values);
  check_input("keys", k, keys);
  check_input("values", v, values);
}

template <typename K, typename V>
void check_reduce_by_key(const std::vector<K>& keys, const std::vector<V>& values,
                         clscan::reduce_by_key_options<V> opts) {
  INFO("reduce_by_key, op " << static_cast<int>(opts.operation) << ", " << sizeof(K) << "-byte keys, "
                            << sizeof(V) << "-byte values");
  std::vector<K> expected_keys;
  std::vector<V> expected_values;
  for (const auto& [first, last] : runs_of(keys)) {
    V total = values[first];
    for (std::size_t i = first + 1; i <= last; ++i)
      total = opts.operation == clscan::op::custom
                  ? clscan_reference::wrapping_product(total, values[i])
                  : clscan_reference::combine(opts.operation, total, values[i]);
    if (opts.initial) total = clscan_reference::combine(opts.operation, *opts.initial, total);
    expected_keys.push_back(keys[first]);
    expected_values.push_back(total);
  }
  check_pairs(keys, values, opts, expected_keys, expected_values,
              [](auto&&... arguments) { return clscan::reduce_by_key<K, V>(env().queue, arguments...); });
}

template <typename K, typename V>
void check_unique_by_key(const std::vector<K>& keys, const std::vector<V>& values, algorithm algo) {
  INFO("unique_by_key, " << sizeof(K) << "-byte keys, " << sizeof(V) << "-byte values");
  std::vector<K> expected_keys;
  std::vector<V> expected_values;
  for (const auto& run : runs_of(keys)) {
    expected_keys.push_back(keys[run.first]);
    expected_values.push_back(values[run.first]);
  }
  clscan::select_options<K> opts;
  opts.algorithm = algo;
  check_pairs(keys, values, opts, expected_keys, expected_values,
              [](auto&&... arguments) { return clscan::unique_by_key<K, V>(env().queue, arguments...); });
}

template <typename K, typename L> void check_run_length_encode(const std::vector<K>& keys, algorithm algo) {
  INFO("run_length_encode, " << sizeof(K) << "-byte keys, " << sizeof(L) << "-byte lengths");
  const std::size_t n = keys.size();
  std::vector<K> expected_keys;
  std::vector<L> expected_lengths;
  for (const auto& [first, last] : runs_of(keys)) {
    expected_keys.push_back(keys[first]);
    expected_lengths.push_back(static_cast<L>(last - first + 1));
  }
  clscan::select_options<K> opts;
  opts.algorithm = algo;
  at_offsets(opts);
  const cl::Buffer k = input_buffer(keys);
  const cl::Buffer ko = output_buffer<K>(n), lo = output_buffer<L>(n), count = count_buffer();
  REQUIRE(clscan::run_length_encode<K, L>(env().queue, k, ko, lo, count, n, opts).wait() == CL_SUCCESS);
  check_count(count, expected_keys.size());
  check_output("unique_out", ko, n, expected_keys);
  check_output("lengths_out", lo, n, expected_lengths);
  check_input("input", k, keys);
}

// Every runs call on one input: reduce_by_key (sum, then max from an initial value), unique_by_key and
// run_length_encode.
template <typename K, typename V>
void check_every_runs_call(const std::vector<K>& keys, const std::vector<V>& values, algorithm algo) {
  clscan::reduce_by_key_options<V> opts;
  opts.algorithm = algo;
  check_reduce_by_key(keys, values, opts);
  opts.operation = clscan::op::max;
  opts.initial = V{42};
  check_reduce_by_key(keys, values, opts);
  check_unique_by_key(keys, values, algo);
  check_run_length_encode<K, cl_uint>(keys, algo);
}

template <typename K, typename V> void runs_suite(bool large) {
  if (!device_supports<K>() || !device_supports<V>()) {
    WARN("skipped for " << clscan::opencl_name(clscan::element_traits<K>::type) << " keys, "
                        << clscan::opencl_name(clscan::element_traits<V>::type) << " values: no fp64");
    return;
  }
  for (algorithm algo : {algorithm::automatic, algorithm::three_stage}) {
    for (std::size_t n : sizes<K, V>(large)) {
      for (shape s : {shape::distinct, shape::one_run, shape::short_runs, shape::long_runs}) {
        if (n > 20'000 && s != shape::long_runs) continue;
        CAPTURE(clscan::to_string(algo), n, shape_name(s));
        const std::vector<K> keys = make_keys<K>(s, n);
        check_every_runs_call(keys, make_values<V>(n), algo);
      }
    }
  }
}

} // namespace

// [runs-types]: 4-byte keys and values, and 8-byte keys with 4-byte values and lengths (the layout whose
// alignment once crashed the GPU layout's vector loads); runs-gpu-shape runs these alone, since on a cold
// cache every type pair's GPU-layout programs take PoCL minutes to build.
TEST_CASE("runs: reduce_by_key, unique_by_key and run_length_encode match a sequential reference",
          "[runs][runs-types]") {
  runs_suite<cl_int, cl_int>(true);
  runs_suite<cl_long, cl_int>(false);
}

TEST_CASE("runs: the same for other key and value types", "[runs]") {
  runs_suite<cl_uint, cl_float>(false);
  runs_suite<cl_int, cl_double>(false);
  runs_suite<cl_ulong, cl_ulong>(true);
  runs_suite<cl_double, cl_long>(false);
}

TEST_CASE("runs: other operators, cl_ulong lengths, single-pass forced", "[runs]") {
  const std::vector<cl_int> keys = make_keys<cl_int>(shape::short_runs, 5000);
  std::vector<cl_int> values = make_values<cl_int>(keys.size());
  for (auto& x : values)
    x = x % 5 - 2;
  clscan::reduce_by_key_options<cl_int> opts;
  opts.operation = clscan::op::custom;
  opts.custom_op = "a * b";
  opts.custom_identity = 1;
  check_reduce_by_key(keys, values, opts);
  opts = {};
  for (clscan::op o : {clscan::op::min, clscan::op::bit_xor, clscan::op::bit_or}) {
    CAPTURE(static_cast<int>(o));
    opts.operation = o;
    check_reduce_by_key(keys, values, opts);
  }
  check_run_length_encode<cl_int, cl_ulong>(keys, algorithm::automatic);
  check_run_length_encode<cl_int, cl_ulong>(keys, algorithm::three_stage);
  if (clscan::plan_for(env().device, clscan::element_type::int32).single_pass_available) {
    opts = {};
    opts.algorithm = algorithm::single_pass;
    check_reduce_by_key(keys, values, opts);
    check_unique_by_key(keys, values, algorithm::single_pass);
    check_run_length_encode<cl_int, cl_uint>(keys, algorithm::single_pass);
  }
}

TEST_CASE("runs: float keys compare with ==: every NaN is a run, -0.0 and 0.0 are one", "[runs]") {
  const cl_float nan = std::numeric_limits<cl_float>::quiet_NaN();
  const std::vector<cl_float> keys = {nan, nan, 1.0f, 1.0f, -0.0f, 0.0f, 0.0f, nan, 2.0f, 2.0f, 2.0f};
  const std::vector<cl_int> values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  for (algorithm algo : {algorithm::automatic, algorithm::three_stage}) {
    CAPTURE(clscan::to_string(algo));
    clscan::reduce_by_key_options<cl_int> opts;
    opts.algorithm = algo;
    check_reduce_by_key(keys, values, opts); // keys_out holds -0.0 (the run's first key)
    check_unique_by_key(keys, values, algo);
    check_run_length_encode<cl_float, cl_uint>(keys, algo);
  }
}

TEST_CASE("runs: n == 0 writes a zero count and nothing else", "[runs]") {
  const auto& q = env().queue;
  const cl::Buffer k = input_buffer(std::vector<cl_int>{}), v = input_buffer(std::vector<cl_int>{});
  const cl::Buffer ko = output_buffer<cl_int>(0), vo = output_buffer<cl_int>(0);
  clscan::reduce_by_key_options<cl_int> reduce_opts;
  reduce_opts.count_offset = count_offset;
  clscan::select_options<cl_int> opts;
  opts.count_offset = count_offset;
  for (int call = 0; call < 3; ++call) {
    CAPTURE(call);
    const cl::Buffer count = count_buffer();
    cl::Event done = call == 0 ? clscan::reduce_by_key<cl_int, cl_int>(q, k, v, ko, vo, count, 0, reduce_opts)
                     : call == 1 ? clscan::unique_by_key<cl_int, cl_int>(q, k, v, ko, vo, count, 0, opts)
                                 : clscan::run_length_encode<cl_int>(q, k, ko, vo, count, 0, opts);
    REQUIRE(done.wait() == CL_SUCCESS);
    check_count(count, 0);
    check_output("keys_out", ko, 0, std::vector<cl_int>{});
    check_output("values_out", vo, 0, std::vector<cl_int>{});
  }
}

TEST_CASE("runs: bad arguments throw before anything is enqueued, and leave the buffers as they were",
          "[runs]") {
  const auto& q = env().queue;
  const std::size_t n = 64;
  const std::vector<cl_int> keys = make_keys<cl_int>(shape::short_runs, n);
  const cl::Buffer k = make_buffer(keys), v = make_buffer(keys);
  const cl::Buffer ko = make_buffer(std::vector<cl_int>(n, poison_value<cl_int>()));
  const cl::Buffer vo = make_buffer(std::vector<cl_int>(n, poison_value<cl_int>()));
  const cl::Buffer count = make_buffer(std::vector<cl_ulong>(2, poison_value<cl_ulong>()));
  const cl::Buffer shorter = make_buffer(std::vector<cl_int>(n - 1, 0));
  const auto rejected = [&](const char* what, const std::string& needle, auto call) {
    INFO(what);
    check_invalid_argument(call, needle);
    REQUIRE(q.finish() == CL_SUCCESS);
    check_guards("keys_out", read_buffer<cl_int>(ko, n), 0, 0);
    check_guards("values_out", read_buffer<cl_int>(vo, n), 0, 0);
    check_guards("count", read_buffer<cl_ulong>(count, 2), 0, 0);
  };
  using clscan::reduce_by_key;
  rejected("keys_out is the keys", "overlap",
           [&] { reduce_by_key<cl_int, cl_int>(q, k, v, k, vo, count, n); });
  rejected("values_out is keys_out", "overlap",
           [&] { reduce_by_key<cl_int, cl_int>(q, k, v, ko, ko, count, n); });
  rejected("values_out is the values", "overlap",
           [&] { clscan::unique_by_key<cl_int, cl_int>(q, k, v, ko, v, count, n); });
  rejected("short values", "values", [&] { reduce_by_key<cl_int, cl_int>(q, k, shorter, ko, vo, count, n); });
  rejected("short lengths", "lengths_out",
           [&] { clscan::run_length_encode<cl_int>(q, k, ko, shorter, count, n); });
  rejected("null count", "count", [&] { reduce_by_key<cl_int, cl_int>(q, k, v, ko, vo, cl::Buffer(), n); });
  // A capacity (outputs sized for the result) that the outputs do not hold is named in the message.
  clscan::select_options<cl_int> past;
  past.out_capacity = n + 1;
  rejected("a capacity past keys_out", "fewer than offset 0 + out_capacity 65",
           [&] { clscan::unique_by_key<cl_int, cl_int>(q, k, v, ko, vo, count, n, past); });
  rejected("count in an output", "overlap", [&] {
    clscan::reduce_by_key_options<cl_int> opts;
    reduce_by_key<cl_int, cl_int>(q, k, v, ko, vo, ko, n, opts);
  });
  rejected("a predicate", "predicate", [&] {
    clscan::select_options<cl_int> opts;
    opts.predicate = "x > 0";
    clscan::unique_by_key<cl_int, cl_int>(q, k, v, ko, vo, count, n, opts);
  });
  rejected("initial_on_device", "initial_on_device", [&] {
    clscan::reduce_by_key_options<cl_int> opts;
    opts.initial_on_device = clscan::device_value{v, 0};
    reduce_by_key<cl_int, cl_int>(q, k, v, ko, vo, count, n, opts);
  });
  rejected("bitwise float", "bitwise", [&] {
    clscan::reduce_by_key_options<cl_float> opts;
    opts.operation = clscan::op::bit_or;
    reduce_by_key<cl_int, cl_float>(q, k, v, ko, vo, count, n, opts);
  });
  rejected("parameters", "parameters", [&] {
    clscan::reduce_by_key_options<cl_int> opts;
    opts.parameters = {{"m", cl_int{3}}};
    reduce_by_key<cl_int, cl_int>(q, k, v, ko, vo, count, n, opts);
  });
  rejected("key_equal", "key_equal", [&] {
    clscan::select_options<cl_int> opts;
    opts.key_equal = "a / 16 == b / 16";
    clscan::run_length_encode<cl_int>(q, k, ko, vo, count, n, opts);
  });
  rejected("transform", "transform", [&] {
    clscan::reduce_by_key_options<cl_int> opts;
    opts.transform = "x * 2";
    reduce_by_key<cl_int, cl_int>(q, k, v, ko, vo, count, n, opts);
  });
  rejected("cl_uint lengths past 2^32", "cl_ulong lengths",
           [&] { clscan::run_length_encode<cl_int, cl_uint>(q, k, ko, vo, count, std::size_t{1} << 32); });
  CHECK(read_buffer<cl_int>(k, n) == keys);
}

TEST_CASE("runs: a repeated call builds and allocates nothing", "[runs]") {
  auto& e = env();
  const std::size_t n = 30'000;
  const std::vector<cl_long> keys = make_keys<cl_long>(shape::short_runs, n);
  const std::vector<cl_float> values = make_values<cl_float>(n);
  const cl::Buffer k = make_buffer(keys), v = make_buffer(values);
  const cl::Buffer ko = make_buffer(keys), vo = make_buffer(values), lo = make_buffer(keys);
  const cl::Buffer count = make_buffer(std::vector<cl_ulong>(1, 0));
  const auto all_three = [&](std::size_t size) {
    clscan::reduce_by_key<cl_long, cl_float>(e.queue, k, v, ko, vo, count, size);
    clscan::unique_by_key<cl_long, cl_float>(e.queue, k, v, ko, vo, count, size);
    clscan::run_length_encode<cl_long, cl_ulong>(e.queue, k, ko, lo, count, size).wait();
  };
  all_three(n);
  int events = 0;
  clscan::set_log_handler([&](clscan::log_level, const std::string&) { ++events; });
  struct remove_handler {
    ~remove_handler() { clscan::set_log_handler({}); }
  } remove;
  for (std::size_t i = 0; i < 3; ++i)
    all_three(n - 1000 * i);
  CHECK(events == 0); // no build, no cache access, no temporary storage
}

// Under Oclgrind (tests/cmake/reliability.cmake, oclgrind-runs): the one-pass kernel (kernels/runs.cl;
// automatic, values of 4 bytes), the selections by the keys of another buffer (select.cl
// CLSCAN_SELECT_RUN_HEADS / _TAILS) and the passes around them (three_stage, 8-byte values), in
// Oclgrind's GPU layout (the tile in local memory), on one and on two tiles, where its memory,
// uninitialized-value and race checks watch them. Each call in a context of its own, for the
// reasons tests/unit/sort.cpp's Oclgrind case gives.
TEST_CASE("runs: small inputs for Oclgrind", "[.][runs-oclgrind]") {
  REQUIRE_THAT(env().device_name, Catch::Matchers::Contains("Oclgrind"));
  const own_contexts in_own_context;
  const clscan::dispatch_plan plan = clscan::plan_for(env().device, clscan::element_type::int32);
  const std::size_t tile = plan.single_pass_small.work_group_size *
                           std::min<std::size_t>(plan.single_pass_small.items_per_thread, 64);
  for (algorithm algo : {algorithm::automatic, algorithm::three_stage})
    for (std::size_t n : {std::size_t{1}, tile + 301}) {
      CAPTURE(clscan::to_string(algo), n);
      const std::vector<cl_int> keys = make_keys<cl_int>(shape::short_runs, n);
      const std::vector<cl_float> values = make_values<cl_float>(n);
      clscan::reduce_by_key_options<cl_float> opts;
      opts.algorithm = algo;
      in_own_context([&] { check_reduce_by_key(keys, values, opts); });
      in_own_context([&] { check_unique_by_key(keys, values, algo); });
      // The composition's run_length_encode scans ones the library fills with clEnqueueFillBuffer,
      // which Oclgrind's uninitialized-value check does not see (a kernel reading a filled buffer is
      // reported): its kernels run here through reduce_by_key of 8-byte values instead. The one pass
      // (automatic) reads no ones.
      if (algo == algorithm::automatic) {
        in_own_context([&] { check_run_length_encode<cl_int, cl_uint>(keys, algo); });
        in_own_context([&] { check_run_length_encode<cl_int, cl_ulong>(keys, algo); });
        in_own_context([&] {
          check_reduce_by_key(keys, make_values<cl_int>(n), clscan::reduce_by_key_options<cl_int>{});
        });
      }
      clscan::reduce_by_key_options<cl_ulong> wide;
      wide.algorithm = algo;
      in_own_context([&] { check_reduce_by_key(keys, make_values<cl_ulong>(n), wide); });
    }
}

using clscan_test::robustness::settled_reference_count;

TEST_CASE("runs: no call keeps a caller's buffer referenced once its commands have ended",
          "[runs][references]") {
  const environment& e = env();
  for (const std::size_t n : {std::size_t{1000}, std::size_t{70'000}}) {
    const std::vector<cl_int> keys = make_keys<cl_int>(shape::short_runs, n);
    const std::vector<cl_int> values = make_values<cl_int>(n);
    for (int call = 0; call < 3; ++call)
      for (algorithm algo : {algorithm::automatic, algorithm::three_stage}) {
        INFO("call " << call << " (reduce_by_key, unique_by_key, run_length_encode), "
                     << clscan::to_string(algo) << ", n = " << n << " on " << e.device_name);
        const cl::Buffer k = make_buffer(keys), v = make_buffer(values);
        const cl::Buffer ko = make_buffer(keys), vo = make_buffer(values);
        const cl::Buffer count = make_buffer(std::vector<cl_ulong>(1, 0));
        clscan::reduce_by_key_options<cl_int> reduce_opts;
        reduce_opts.algorithm = algo;
        clscan::select_options<cl_int> opts;
        opts.algorithm = algo;
        cl::Event done =
            call == 0   ? clscan::reduce_by_key<cl_int, cl_int>(e.queue, k, v, ko, vo, count, n, reduce_opts)
            : call == 1 ? clscan::unique_by_key<cl_int, cl_int>(e.queue, k, v, ko, vo, count, n, opts)
                        : clscan::run_length_encode<cl_int>(e.queue, k, ko, vo, count, n, opts);
        REQUIRE(done.wait() == CL_SUCCESS);
        done = cl::Event();
        REQUIRE(e.queue.finish() == CL_SUCCESS);
        for (const cl::Buffer* b : {&k, &v, &ko, &vo, &count})
          CHECK(settled_reference_count(*b) == 1);
      }
  }
}

// A user event fails after the call (and after a second call that waits for the first one's event):
// both calls' events report a failure, neither writes an output or its count, and the same call
// afterwards is exact. The calls enqueue several passes behind the wait list, whose failure must reach
// the last one (rusticl runs an in-order queue's later commands unless they wait for the failed one).
TEST_CASE("runs: a wait list that fails after the call reaches every pass, and later calls are exact",
          "[runs][failed-wait-calls]") {
  const environment& e = env();
  const std::size_t n = 600'000; // several of a CPU's tiles
  const cl::Context context(e.device);
  const cl::CommandQueue queue(context, e.device);
  const std::vector<cl_int> keys = make_keys<cl_int>(shape::short_runs, n);
  const std::vector<cl_int> values = make_values<cl_int>(n);
  const auto buffer_of = [&](const auto& data) {
    using T = typename std::decay_t<decltype(data)>::value_type;
    cl::Buffer b(context, CL_MEM_READ_WRITE, data.size() * sizeof(T));
    REQUIRE(queue.enqueueWriteBuffer(b, CL_TRUE, 0, data.size() * sizeof(T), data.data()) == CL_SUCCESS);
    return b;
  };
  // Polls `event` until it is terminal or `seconds` pass; never blocks on it.
  const auto wait_at_most = [](const cl::Event& event, int seconds) {
    const auto status_of = [&] {
      cl_int status = CL_QUEUED;
      REQUIRE(event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status) == CL_SUCCESS);
      return status;
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    cl_int status = status_of();
    while (status > CL_COMPLETE && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      status = status_of();
    }
    return status;
  };
  const cl::Buffer k = buffer_of(keys), v = buffer_of(values);
  const std::vector<cl_int> poison(n, poison_value<cl_int>());
  const cl_ulong count_poison = poison_value<cl_ulong>();
  std::vector<cl_int> expected_keys, expected_values;
  for (const auto& [first, last] : runs_of(keys)) {
    expected_keys.push_back(keys[first]);
    cl_int total = 0;
    for (std::size_t i = first; i <= last; ++i)
      total = clscan_reference::wrapping_sum(total, values[i]);
    expected_values.push_back(total);
  }
  for (algorithm algo : {algorithm::automatic, algorithm::three_stage}) {
    CAPTURE(clscan::to_string(algo));
    const auto call = [&](const cl::Buffer& ko, const cl::Buffer& vo, const cl::Buffer& count,
                          std::vector<cl::Event> waits) {
      clscan::reduce_by_key_options<cl_int> opts;
      opts.algorithm = algo;
      opts.wait_list = std::move(waits);
      return clscan::reduce_by_key<cl_int, cl_int>(queue, k, v, ko, vo, count, n, opts);
    };
    std::vector<cl::Buffer> outs;
    for (int i = 0; i < 4; ++i)
      outs.push_back(buffer_of(poison));
    const cl::Buffer failed_count = buffer_of(std::vector<cl_ulong>(1, count_poison));
    const cl::Buffer chained_count = buffer_of(std::vector<cl_ulong>(1, count_poison));
    cl::UserEvent gate(context);
    const cl::Event failed = call(outs[0], outs[1], failed_count, {gate});
    const cl::Event chained = call(outs[2], outs[3], chained_count, {failed});
    queue.flush();
    REQUIRE(gate.setStatus(-1) == CL_SUCCESS);
    CHECK(wait_at_most(failed, 60) < 0);
    CHECK(wait_at_most(chained, 60) < 0);
    for (const cl::Buffer& out : outs) {
      std::vector<cl_int> got(n);
      REQUIRE(queue.enqueueReadBuffer(out, CL_TRUE, 0, n * sizeof(cl_int), got.data()) == CL_SUCCESS);
      CHECK(got == poison);
    }
    for (const cl::Buffer* count : {&failed_count, &chained_count}) {
      cl_ulong got = 0;
      REQUIRE(queue.enqueueReadBuffer(*count, CL_TRUE, 0, sizeof got, &got) == CL_SUCCESS);
      CHECK(got == count_poison);
    }
    const cl::Buffer count = buffer_of(std::vector<cl_ulong>(1, count_poison));
    const cl::Event done = call(outs[0], outs[1], count, {});
    queue.flush();
    REQUIRE(wait_at_most(done, 60) == CL_COMPLETE);
    cl_ulong runs = 0;
    REQUIRE(queue.enqueueReadBuffer(count, CL_TRUE, 0, sizeof runs, &runs) == CL_SUCCESS);
    CHECK(runs == expected_keys.size());
    std::vector<cl_int> got_keys(expected_keys.size()), got_values(expected_values.size());
    REQUIRE(queue.enqueueReadBuffer(outs[0], CL_TRUE, 0, got_keys.size() * sizeof(cl_int), got_keys.data()) ==
            CL_SUCCESS);
    REQUIRE(queue.enqueueReadBuffer(outs[1], CL_TRUE, 0, got_values.size() * sizeof(cl_int),
                                    got_values.data()) == CL_SUCCESS);
    CHECK(got_keys == expected_keys);
    CHECK(got_values == expected_values);
  }
}

namespace {

// An output of `capacity` elements from out_offset (poisoned before, and past the capacity): its first
// min(count, capacity) elements are the expected ones, nothing else is written.
template <typename T> cl::Buffer bounded_output(std::size_t capacity) {
  return make_buffer(std::vector<T>(out_offset + capacity + guard, poison_value<T>()));
}
template <typename T>
void check_bounded_output(const char* what, const cl::Buffer& buffer, std::size_t capacity,
                          std::vector<T> expected) {
  expected.resize(std::min(expected.size(), capacity));
  const std::vector<T> got = read_buffer<T>(buffer, out_offset + capacity + guard);
  check_exact(what, got, out_offset, expected);
  check_guards(what, got, out_offset, expected.size());
}

// The three calls with outputs sized for fewer runs than there are, exactly as many, and none: the
// count reports every run, and no output element at or past the capacity is written.
template <typename K, typename V> void bounded_runs(std::size_t n) {
  const std::vector<K> keys = make_keys<K>(shape::short_runs, n);
  const std::vector<V> values = make_values<V>(n);
  const auto runs = runs_of(keys);
  std::vector<K> unique_keys;
  std::vector<V> sums, firsts;
  std::vector<cl_uint> lengths;
  for (const auto& [first, last] : runs) {
    unique_keys.push_back(keys[first]);
    firsts.push_back(values[first]);
    V total = values[first];
    for (std::size_t i = first + 1; i <= last; ++i)
      total = clscan_reference::combine(clscan::op::sum, total, values[i]);
    sums.push_back(total);
    lengths.push_back(static_cast<cl_uint>(last - first + 1));
  }
  const cl::Buffer k = input_buffer(keys), v = input_buffer(values);
  for (algorithm algo : {algorithm::automatic, algorithm::three_stage}) {
    for (std::size_t capacity : {std::size_t{0}, runs.size() / 2, runs.size() - 1, runs.size()}) {
      CAPTURE(clscan::to_string(algo), n, runs.size(), capacity);
      clscan::reduce_by_key_options<V> reduce_opts;
      at_offsets(reduce_opts);
      reduce_opts.algorithm = algo;
      reduce_opts.out_capacity = capacity;
      cl::Buffer ko = bounded_output<K>(capacity), vo = bounded_output<V>(capacity), count = count_buffer();
      REQUIRE(clscan::reduce_by_key<K, V>(env().queue, k, v, ko, vo, count, n, reduce_opts).wait() ==
              CL_SUCCESS);
      check_count(count, runs.size());
      check_bounded_output("reduce_by_key keys_out", ko, capacity, unique_keys);
      check_bounded_output("reduce_by_key values_out", vo, capacity, sums);

      clscan::select_options<K> opts;
      at_offsets(opts);
      opts.algorithm = algo;
      opts.out_capacity = capacity;
      ko = bounded_output<K>(capacity), vo = bounded_output<V>(capacity), count = count_buffer();
      REQUIRE(clscan::unique_by_key<K, V>(env().queue, k, v, ko, vo, count, n, opts).wait() == CL_SUCCESS);
      check_count(count, runs.size());
      check_bounded_output("unique_by_key keys_out", ko, capacity, unique_keys);
      check_bounded_output("unique_by_key values_out", vo, capacity, firsts);

      const cl::Buffer lo = bounded_output<cl_uint>(capacity);
      ko = bounded_output<K>(capacity), count = count_buffer();
      REQUIRE(clscan::run_length_encode<K, cl_uint>(env().queue, k, ko, lo, count, n, opts).wait() ==
              CL_SUCCESS);
      check_count(count, runs.size());
      check_bounded_output("run_length_encode unique_out", ko, capacity, unique_keys);
      check_bounded_output("run_length_encode lengths_out", lo, capacity, lengths);
      check_input("keys", k, keys);
      check_input("values", v, values);
    }
  }
}

} // namespace

// The type pairs of [runs-types], whose programs the runs suites build already (runs-gpu-shape runs
// this too, in the GPU layout); sizes of one and of several tiles.
TEST_CASE("runs: outputs bounded by out_capacity", "[runs][runs-bounded]") {
  for (const std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{5000}, std::size_t{70'001}}) {
    bounded_runs<cl_int, cl_int>(n);
    bounded_runs<cl_long, cl_int>(n);
  }
}

namespace {

// The tiles of the one-pass calls on values of type V in the device's layout, large and small shape
// (plan_primitive, lib/dispatch/dispatch.cpp: the single-pass scan's shape, at most 64 elements a GPU
// work-item; a CPU's tile is a work-group's whole range).
template <typename V> std::vector<std::size_t> one_pass_tiles() {
  const clscan::dispatch_plan plan = clscan::plan_for(env().device, clscan::element_traits<V>::type);
  const bool gpu = clscan::capabilities(env().device).is_gpu();
  std::vector<std::size_t> tiles;
  for (const clscan::tuning& shape : {plan.single_pass, plan.single_pass_small}) {
    const std::size_t items =
        gpu ? std::max(shape.vector_width, std::min<std::size_t>(shape.items_per_thread, 64))
            : shape.items_per_thread;
    tiles.push_back(shape.work_group_size * items);
  }
  return tiles;
}

// Sizes of one, two, three and a half tiles and around them, for every tile of one_pass_tiles.
template <typename V> std::vector<std::size_t> one_pass_sizes() {
  std::vector<std::size_t> out = {1, 2};
  for (const std::size_t tile : one_pass_tiles<V>())
    for (const std::size_t n : {tile - 1, tile, tile + 1, 2 * tile + 3, 3 * tile + tile / 2})
      out.push_back(n);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Keys in runs of `length` (the first cut short) whose boundaries fall `phase` elements after
// multiples of the length: at tile boundaries, just before them, or runs spanning several tiles.
template <typename K> std::vector<K> keys_in_runs_of(std::size_t n, std::size_t length, std::size_t phase) {
  std::vector<K> keys(n);
  const std::size_t shift = length - phase % length;
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = static_cast<K>((i + shift) / length % 3);
  return keys;
}

// The three calls (reduce_by_key with sum, and with max after an initial value; unique_by_key;
// run_length_encode with cl_uint lengths) on runs placed against the tiles of the one-pass kernel:
// every run a single element, one run of everything, random runs, runs of exactly a tile starting at
// a tile's first element or one before it, runs of two tiles and one.
template <typename K, typename V> void one_pass_suite(algorithm algo) {
  for (const std::size_t n : one_pass_sizes<V>()) {
    std::vector<std::pair<std::string, std::vector<K>>> cases;
    for (shape s : {shape::distinct, shape::one_run, shape::short_runs, shape::long_runs})
      cases.emplace_back(shape_name(s), make_keys<K>(s, n));
    std::vector<std::size_t> tiles = one_pass_tiles<V>();
    if (tiles[0] == tiles[1]) tiles.pop_back();
    for (const std::size_t tile : tiles) {
      const std::string of = " (tile " + std::to_string(tile) + ")";
      cases.emplace_back("runs of a tile from each tile's start" + of, keys_in_runs_of<K>(n, tile, 0));
      cases.emplace_back("runs of a tile from one before each tile's start" + of,
                         keys_in_runs_of<K>(n, tile, tile - 1));
      cases.emplace_back("runs of two tiles and one" + of, keys_in_runs_of<K>(n, 2 * tile + 1, 5));
    }
    std::vector<V> values = make_values<V>(n);
    // Sums of runs of a million below 2^24: exact in any order for floats too.
    for (auto& x : values)
      x = static_cast<V>(static_cast<int>(x) % 16);
    for (const auto& [name, keys] : cases) {
      CAPTURE(clscan::to_string(algo), n, name);
      check_every_runs_call(keys, values, algo);
    }
  }
}

} // namespace

// The one-pass kernel (kernels/runs.cl) on inputs of several of its tiles: runs that cross tile
// boundaries, begin or end at them, or span whole tiles. runs-one-pass-fallback and
// runs-gpu-shape-fallback (tests/CMakeLists.txt) run it under CLSCAN_SPIN_LIMIT=0, where every tile
// reduces every tile before it itself, in the CPU and the GPU layout.
TEST_CASE("runs: one pass across tiles", "[runs][runs-one-pass]") {
  for (algorithm algo : {algorithm::automatic, algorithm::single_pass}) {
    if (algo == algorithm::single_pass &&
        !clscan::plan_for(env().device, clscan::element_type::int32).single_pass_available)
      continue;
    one_pass_suite<cl_int, cl_int>(algo);
    one_pass_suite<cl_long, cl_float>(algo);
  }
  // Deterministic floating-point reductions combine on the look-back's fixed tree (CLSCAN_FIXED_ORDER).
  for (const std::size_t n : one_pass_sizes<cl_float>()) {
    CAPTURE(n);
    std::vector<cl_float> values = make_values<cl_float>(n);
    for (auto& x : values)
      x = static_cast<cl_float>(static_cast<int>(x) % 16);
    clscan::reduce_by_key_options<cl_float> opts;
    opts.deterministic = true;
    check_reduce_by_key(make_keys<cl_int>(shape::long_runs, n), values, opts);
  }
  // run_length_encode carries its lengths as uints: cl_ulong lengths take the one pass too, on the
  // tiles planned for 8-byte elements.
  for (algorithm algo : {algorithm::automatic, algorithm::single_pass}) {
    if (algo == algorithm::single_pass &&
        !clscan::plan_for(env().device, clscan::element_type::uint64).single_pass_available)
      continue;
    for (const std::size_t n : one_pass_sizes<cl_ulong>()) {
      CAPTURE(clscan::to_string(algo), n);
      for (shape s : {shape::distinct, shape::one_run, shape::short_runs, shape::long_runs})
        check_run_length_encode<cl_int, cl_ulong>(make_keys<cl_int>(s, n), algo);
      const std::size_t tile = one_pass_tiles<cl_ulong>().front();
      check_run_length_encode<cl_int, cl_ulong>(keys_in_runs_of<cl_int>(n, tile, tile - 1), algo);
    }
  }
  // unique_by_key carries no value: 8-byte values take the one pass too.
  if (device_supports<cl_double>()) {
    const std::size_t n = 2 * one_pass_tiles<cl_double>().front() + 3;
    check_unique_by_key(make_keys<cl_int>(shape::short_runs, n), make_values<cl_double>(n),
                        algorithm::automatic);
  }
  // Outputs bounded by out_capacity, the capacity ending in a later tile than the first.
  bounded_runs<cl_int, cl_int>(2 * one_pass_tiles<cl_int>().front() + 3);
}

// On a device that fails the single-pass qualification, the calls run the composition on tile totals
// known beforehand: under CLSCAN_BUILD_OPTIONS=-DCLSCAN_TEST_WRONG_LOOKBACK (runs-gpu-shape-disqualified,
// tests/CMakeLists.txt) every look-back forgets its predecessors, so the qualification fails and a call
// that ran the one-pass kernel anyway would be wrong beyond its first tile; a forced single_pass is
// refused. Hidden from "[runs]": it needs that build.
TEST_CASE("runs: a device that fails the qualification keeps the composition", "[.][runs-disqualified]") {
  auto& e = env();
  REQUIRE_FALSE(clscan::qualify_single_pass(e.device, clscan::element_type::int32).passed);
  REQUIRE_FALSE(clscan::qualify_single_pass(e.device, clscan::element_type::uint32).passed);
  REQUIRE_FALSE(clscan::qualify_single_pass(e.device, clscan::element_type::float32).passed);
  for (const std::size_t n : one_pass_sizes<cl_int>()) {
    CAPTURE(n);
    const std::vector<cl_int> keys = make_keys<cl_int>(shape::short_runs, n);
    check_reduce_by_key(keys, make_values<cl_int>(n), clscan::reduce_by_key_options<cl_int>{});
    check_reduce_by_key(make_keys<cl_long>(shape::long_runs, n), make_values<cl_float>(n),
                        clscan::reduce_by_key_options<cl_float>{});
    check_unique_by_key(keys, make_values<cl_int>(n), algorithm::automatic);
    check_run_length_encode<cl_int, cl_uint>(keys, algorithm::automatic);
  }
  const std::size_t n = 3 * one_pass_tiles<cl_int>().front();
  const cl::Buffer k = make_buffer(make_keys<cl_int>(shape::short_runs, n)),
                   v = make_buffer(make_values<cl_int>(n));
  const cl::Buffer ko = output_buffer<cl_int>(n), vo = output_buffer<cl_int>(n), count = count_buffer();
  clscan::reduce_by_key_options<cl_int> forced;
  forced.algorithm = algorithm::single_pass;
  const auto forced_call = [&] {
    clscan::reduce_by_key<cl_int, cl_int>(e.queue, k, v, ko, vo, count, n, forced);
  };
  CHECK_THROWS_AS(forced_call(), clscan::unsupported_error);
}

// Which calls take the one-pass kernel: under CLSCAN_BUILD_OPTIONS=-DCLSCAN_TEST_RUNS_COUNT_BIAS=1000
// (runs-one-pass-taken, tests/CMakeLists.txt) the kernel's count is 1000 too high, and only its calls
// show it: automatic and single_pass calls of 4-byte values, run_length_encode with either lengths and
// unique_by_key of any values; not three_stage, nor reduce_by_key of 8-byte values (the composition).
// Hidden from "[runs]": it needs that build.
TEST_CASE("runs: the calls that take the one pass", "[.][runs-one-pass-taken]") {
  auto& e = env();
  REQUIRE(clscan::plan_for(e.device, clscan::element_type::int32).single_pass_available);
  constexpr cl_ulong bias = 1000;
  const std::size_t n = 2 * one_pass_tiles<cl_int>().front() + 3;
  const std::vector<cl_int> keys = make_keys<cl_int>(shape::short_runs, n);
  const cl_ulong runs = runs_of(keys).size();
  const cl::Buffer k = make_buffer(keys), v32 = make_buffer(make_values<cl_int>(n));
  const cl::Buffer v64 = make_buffer(make_values<cl_long>(n));
  const cl::Buffer ko = make_buffer(std::vector<cl_int>(n)), vo = make_buffer(std::vector<cl_long>(n));
  const auto count_of = [&](auto call) {
    const cl::Buffer count = make_buffer(std::vector<cl_ulong>(1, 0));
    REQUIRE(call(count).wait() == CL_SUCCESS);
    return read_buffer<cl_ulong>(count, 1)[0];
  };
  for (algorithm algo : {algorithm::automatic, algorithm::single_pass, algorithm::three_stage}) {
    CAPTURE(clscan::to_string(algo));
    const cl_ulong one_pass = algo == algorithm::three_stage ? runs : runs + bias;
    clscan::reduce_by_key_options<cl_int> ints;
    ints.algorithm = algo;
    clscan::reduce_by_key_options<cl_long> longs;
    longs.algorithm = algo;
    clscan::select_options<cl_int> opts;
    opts.algorithm = algo;
    CHECK(count_of([&](const cl::Buffer& c) {
            return clscan::reduce_by_key<cl_int, cl_int>(e.queue, k, v32, ko, vo, c, n, ints);
          }) == one_pass);
    CHECK(count_of([&](const cl::Buffer& c) {
            return clscan::reduce_by_key<cl_int, cl_long>(e.queue, k, v64, ko, vo, c, n, longs);
          }) == runs);
    CHECK(count_of([&](const cl::Buffer& c) {
            return clscan::unique_by_key<cl_int, cl_long>(e.queue, k, v64, ko, vo, c, n, opts);
          }) == one_pass);
    CHECK(count_of([&](const cl::Buffer& c) {
            return clscan::run_length_encode<cl_int, cl_uint>(e.queue, k, ko, vo, c, n, opts);
          }) == one_pass);
    CHECK(count_of([&](const cl::Buffer& c) {
            return clscan::run_length_encode<cl_int, cl_ulong>(e.queue, k, ko, vo, c, n, opts);
          }) == one_pass);
  }
}
