// options::transform_input: a transform reads an input of another type than the result's. Exact against
// a host reference for each pair: float flags counted into uints, ints summed into longs (sums that
// overflow an int), the top bits of ulongs summed as floats (exact: small integers), doubles' signs
// into ints where the device has fp64; inclusive, exclusive from an initial value and reduce, with every
// algorithm (and deterministic floats), sizes around the tiles and large enough for several tiles and
// work-group ranges, element offsets into both buffers, the same buffer holding input and output apart.
// The program cache keys on the input's type. Refusals (no transform, in place, an input buffer too
// small for n elements of its type, calls that take no transform) leave the buffers as they were.
#include "support/environment.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

using namespace clscan_test;

namespace {

// Around the tiles of the default shapes (PoCL: three-stage 4096, single-pass 2^18, reduce 512) and
// past several of each.
const std::size_t sizes[] = {1, 1000, 4096, 4097, 262'145, (std::size_t{1} << 20) + 3};

bool fp64() { return clscan::capabilities(env().device).fp64; }

std::vector<clscan::algorithm> scan_algorithms(clscan::element_type type) {
  std::vector<clscan::algorithm> out = {clscan::algorithm::automatic, clscan::algorithm::three_stage};
  if (clscan::plan_for(env().device, type).single_pass_available)
    out.push_back(clscan::algorithm::single_pass);
  return out;
}

// One pair of types: the transform's text, its host reference, and the operator's (sum or custom
// "a + b", both exact here).
template <typename In, typename T> struct pair_case {
  const char* name;
  std::string transform;
  T (*reference)(In x, std::size_t i);
  bool custom_sum = false;
};

template <typename T> T sum_of(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// A buffer of `front` poison elements, then `contents`.
template <typename E> cl::Buffer buffer_after(std::size_t front, const std::vector<E>& contents) {
  std::vector<E> all(front, poison_value<E>());
  all.insert(all.end(), contents.begin(), contents.end());
  return make_buffer(all);
}

// Inclusive and exclusive scans (from initial 7) of the pair's transform of `data`, out of place, and
// its reduce (from initial 7), with `opts`' algorithm and offsets, on `queue` of `context`; the output's
// elements before out_offset and the input stay as they were.
template <typename In, typename T>
void check_pair(const cl::CommandQueue& queue, const pair_case<In, T>& c, const std::vector<In>& data,
                clscan::options<T> opts) {
  const std::size_t n = data.size();
  const std::size_t in_offset = opts.in_offset, out_offset = opts.out_offset;
  CAPTURE(c.name, n, clscan::to_string(opts.algorithm), opts.deterministic, in_offset, out_offset);
  opts.transform = c.transform;
  opts.transform_input = clscan::element_traits<In>::type;
  if (c.custom_sum) {
    opts.operation = clscan::op::custom;
    opts.custom_op = "a + b";
    opts.custom_identity = T(0);
  }
  const cl::Buffer in = buffer_after(in_offset, data);
  std::vector<T> transformed(n);
  for (std::size_t i = 0; i < n; ++i)
    transformed[i] = c.reference(data[i], i);

  for (const bool exclusive : {false, true}) {
    INFO((exclusive ? "exclusive" : "inclusive"));
    opts.initial.reset();
    if (exclusive) opts.initial = T(7);
    const cl::Buffer out = make_buffer(std::vector<T>(out_offset + n, poison_value<T>()));
    if (exclusive)
      clscan::exclusive<T>(queue, in, out, n, opts);
    else
      clscan::inclusive<T>(queue, in, out, n, opts);
    std::vector<T> expected(out_offset, poison_value<T>());
    T running = exclusive ? T(7) : T(0);
    for (std::size_t i = 0; i < n; ++i) {
      if (exclusive) expected.push_back(running);
      running = sum_of(running, transformed[i]);
      if (!exclusive) expected.push_back(running);
    }
    std::vector<T> got(out_offset + n);
    REQUIRE(queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(T), got.data()) == CL_SUCCESS);
    CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(T)) == 0);
    if (std::memcmp(got.data(), expected.data(), got.size() * sizeof(T)) != 0) {
      std::size_t first = 0;
      while (std::memcmp(&got[first], &expected[first], sizeof(T)) == 0)
        ++first;
      FAIL_CHECK("first difference at " << first << ": " << got[first] << " != " << expected[first]);
    }
  }

  opts.initial = T(7);
  const cl::Buffer total = make_buffer(std::vector<T>(out_offset + 1, poison_value<T>()));
  clscan::reduce<T>(queue, in, total, n, opts);
  T expected_total = T(7);
  for (std::size_t i = 0; i < n; ++i)
    expected_total = sum_of(expected_total, transformed[i]);
  std::vector<T> got(out_offset + 1);
  REQUIRE(queue.enqueueReadBuffer(total, CL_TRUE, 0, got.size() * sizeof(T), got.data()) == CL_SUCCESS);
  CHECK(got.back() == expected_total);
  const T poison = poison_value<T>();
  for (std::size_t i = 0; i < out_offset; ++i)
    CHECK(std::memcmp(&got[i], &poison, sizeof poison) == 0);

  std::vector<In> input(in_offset + n);
  REQUIRE(queue.enqueueReadBuffer(in, CL_TRUE, 0, input.size() * sizeof(In), input.data()) == CL_SUCCESS);
  CHECK(std::memcmp(input.data() + in_offset, data.data(), n * sizeof(In)) == 0);
}

// Floats of both signs, zeros of both signs, NaNs and infinities.
std::vector<cl_float> mixed_floats(std::size_t n) {
  std::vector<cl_float> data(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = (i * 7919) % 1009;
    data[i] = k == 0   ? -0.0f
              : k == 1 ? 0.0f
              : k == 2 ? std::numeric_limits<cl_float>::quiet_NaN()
              : k == 3 ? -std::numeric_limits<cl_float>::infinity()
                       : (static_cast<cl_float>(k) - 504.5f) * 0.25f;
  }
  return data;
}

// Ints near INT_MAX, and now and then near INT_MIN: their sums overflow an int at once.
std::vector<cl_int> large_ints(std::size_t n) {
  std::vector<cl_int> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = i % 4 == 3 ? std::numeric_limits<cl_int>::min() + static_cast<cl_int>(i % 13)
                         : std::numeric_limits<cl_int>::max() - static_cast<cl_int>((i * 7919) % 1000);
  return data;
}

// ulongs whose top three bits vary.
std::vector<cl_ulong> spread_ulongs(std::size_t n) {
  std::vector<cl_ulong> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = (static_cast<cl_ulong>(i) + 1) * 0x9E3779B97F4A7C15ull;
  return data;
}

std::vector<cl_double> mixed_doubles(std::size_t n) {
  std::vector<cl_double> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = (static_cast<cl_double>((i * 7919) % 2001) - 1000.0) * 1e-300;
  return data;
}

const pair_case<cl_float, cl_uint> positive_floats{
    "float -> uint", "x > 0 ? 1 : 0", [](cl_float x, std::size_t) -> cl_uint { return x > 0 ? 1 : 0; }};
const pair_case<cl_int, cl_long> widened_ints{"int -> long", "x",
                                              [](cl_int x, std::size_t) -> cl_long { return x; }};
const pair_case<cl_ulong, cl_float> top_bits{
    "ulong -> float", "(float)(x >> 61) + (float)(i % 3)", [](cl_ulong x, std::size_t i) -> cl_float {
      return static_cast<cl_float>(x >> 61) + static_cast<cl_float>(i % 3);
    }};
const pair_case<cl_double, cl_int> double_signs{
    "double -> int", "x < 0.0 ? -1 : (x > 0.0 ? 2 : 0)",
    [](cl_double x, std::size_t) -> cl_int { return x < 0.0 ? -1 : (x > 0.0 ? 2 : 0); }};

// Every pair with every algorithm and size on `queue`; offsets (unaligned for vector loads) on some.
// Without every_algorithm: automatic alone, and no doubles.
void check_pairs(const cl::CommandQueue& queue, bool every_algorithm) {
  for (const std::size_t n : sizes) {
    const std::vector<cl_float> floats = mixed_floats(n);
    const std::vector<cl_int> ints = large_ints(n);
    const std::vector<cl_ulong> ulongs = spread_ulongs(n);
    for (const clscan::algorithm algo : every_algorithm ? scan_algorithms(clscan::element_type::int64)
                                                        : std::vector{clscan::algorithm::automatic}) {
      clscan::options<cl_uint> counts;
      counts.algorithm = algo;
      check_pair(queue, positive_floats, floats, counts);
      clscan::options<cl_long> sums;
      sums.algorithm = algo;
      check_pair(queue, widened_ints, ints, sums);
      clscan::options<cl_float> bits;
      bits.algorithm = algo;
      bits.deterministic = algo != clscan::algorithm::three_stage;
      check_pair(queue, top_bits, ulongs, bits);
    }
    if (every_algorithm && fp64()) {
      clscan::options<cl_int> signs;
      check_pair(queue, double_signs, mixed_doubles(n), signs);
    }
    // Offsets that leave no vector aligned, and a custom operator (GPUs: the local-tile reduce).
    clscan::options<cl_long> shifted;
    shifted.in_offset = 3;
    shifted.out_offset = 1;
    pair_case<cl_int, cl_long> custom = widened_ints;
    custom.custom_sum = true;
    check_pair(queue, custom, ints, shifted);
    clscan::options<cl_uint> shifted_counts;
    shifted_counts.in_offset = 5;
    shifted_counts.out_offset = 2;
    shifted_counts.algorithm = clscan::algorithm::three_stage;
    check_pair(queue, positive_floats, floats, shifted_counts);
  }
}

} // namespace

TEST_CASE("transform_input: a transform reads an input of another type, exactly, with every algorithm",
          "[parameters][transform][transform_input]") {
  check_pairs(env().queue, true);
}

// The same with automatic alone (and three_stage where offsets are given, no doubles), for the ctest
// entry that runs it in the GPU layouts (CLSCAN_DEVICE_LIMITS=gpu: tiles in local memory, the strided
// and local-tile reduces, whose vectors end inside an input that ends mid-vector) on tiles of a few
// elements (CLSCAN_TUNING): levels of tile totals several deep, partial totals over several tiles.
TEST_CASE("transform_input: the pairs in the layouts and shapes of the environment",
          "[transform_input-layouts]") {
  check_pairs(env().queue, false);
}

TEST_CASE("transform_input: the program cache keys on the input's type",
          "[parameters][transform][transform_input]") {
  auto& e = env();
  const std::size_t n = 5000;
  std::vector<cl_int> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = -static_cast<cl_int>(i % 100) - 1;
  const cl::Buffer in = make_buffer(data);
  clscan::options<cl_long> opts;
  opts.transform = "x";
  for (const clscan::element_type input : {clscan::element_type::int32, clscan::element_type::uint32}) {
    CAPTURE(clscan::to_string(input));
    opts.transform_input = input;
    const cl::Buffer out = make_buffer(std::vector<cl_long>(n, poison_value<cl_long>()));
    const cl::Buffer total = make_buffer(std::vector<cl_long>(1, poison_value<cl_long>()));
    clscan::inclusive<cl_long>(e.queue, in, out, n, opts);
    clscan::reduce<cl_long>(e.queue, in, total, n, opts);
    std::vector<cl_long> expected(n);
    cl_long running = 0;
    for (std::size_t i = 0; i < n; ++i)
      expected[i] = running += input == clscan::element_type::int32
                                   ? static_cast<cl_long>(data[i])
                                   : static_cast<cl_long>(static_cast<cl_uint>(data[i]));
    CHECK(read_buffer<cl_long>(out, n) == expected);
    CHECK(read_buffer<cl_long>(total, 1)[0] == running);
  }
}

TEST_CASE("transform_input: the input and output in ranges apart of one buffer; reduce into the input",
          "[parameters][transform][transform_input]") {
  auto& e = env();
  const std::size_t n = 10'001;
  const std::vector<cl_int> ints = large_ints(n);
  // ints at [0, n), then n longs from the first 8-byte boundary after them.
  const std::size_t out_offset = (n * sizeof(cl_int) + sizeof(cl_long) - 1) / sizeof(cl_long);
  std::vector<cl_int> contents(ints);
  contents.resize((out_offset + n) * 2, poison_value<cl_int>());
  const cl::Buffer both = make_buffer(contents);
  clscan::options<cl_long> opts;
  opts.transform = "x";
  opts.transform_input = clscan::element_type::int32;
  opts.out_offset = out_offset;
  clscan::inclusive<cl_long>(e.queue, both, both, n, opts);
  const std::vector<cl_int> after = read_buffer<cl_int>(both, contents.size());
  CHECK(std::equal(ints.begin(), ints.end(), after.begin()));
  std::vector<cl_long> scanned(n);
  std::memcpy(scanned.data(), after.data() + out_offset * 2, n * sizeof(cl_long));
  cl_long running = 0;
  for (std::size_t i = 0; i < n; ++i) {
    running += ints[i];
    INFO("i = " << i);
    REQUIRE(scanned[i] == running);
  }
  // The total written over the input's first two ints, which the reduce read first.
  opts.out_offset = 0;
  clscan::reduce<cl_long>(e.queue, both, both, n, opts);
  cl_long total = 0;
  REQUIRE(e.queue.enqueueReadBuffer(both, CL_TRUE, 0, sizeof total, &total) == CL_SUCCESS);
  CHECK(total == running);
}

TEST_CASE("transform_input: refused without a transform, in place, past the input, and by the other calls",
          "[parameters][transform][transform_input]") {
  auto& e = env();
  const std::size_t n = 1000;
  std::vector<cl_int> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<cl_int>(i) - 500;
  const cl::Buffer in = make_buffer(data);
  const std::vector<cl_long> poison(n, poison_value<cl_long>());
  const cl::Buffer out = make_buffer(poison);
  clscan::options<cl_long> opts;
  opts.transform_input = clscan::element_type::int32;
  check_invalid_argument([&] { clscan::inclusive<cl_long>(e.queue, in, out, n, opts); },
                         "options::transform_input (int) is set without options::transform");
  check_invalid_argument([&] { clscan::reduce<cl_long>(e.queue, in, out, n, opts); },
                         "options::transform_input (int) is set without options::transform");
  opts.transform = "x";
  // In place: a scan over an input of another type.
  check_invalid_argument([&] { clscan::exclusive<cl_long>(e.queue, in, n / 2, opts); },
                         "a scan cannot write its result over an input of another type");
  // Past the input: n longs of a buffer of n ints, scanned into ints.
  clscan::options<cl_int> narrowing;
  narrowing.transform = "(int)(x >> 32)";
  narrowing.transform_input = clscan::element_type::int64;
  check_invalid_argument([&] { clscan::inclusive<cl_int>(e.queue, in, out, n, narrowing); },
                         "the input buffer holds 500 elements of 8 bytes");
  check_invalid_argument([&] { clscan::reduce<cl_int>(e.queue, in, out, n, narrowing); },
                         "the input buffer holds 500 elements of 8 bytes");
  opts.transform_input = clscan::element_type::int32;
  opts.in_offset = 1;
  check_invalid_argument([&] { clscan::reduce<cl_long>(e.queue, in, out, n, opts); },
                         "the input buffer holds 1000 elements of 4 bytes, fewer than offset 1 + n 1000");
  opts.in_offset = 0;
  // Not an element type (as a C caller's cast could give).
  opts.transform_input = static_cast<clscan::element_type>(17);
  check_invalid_argument([&] { clscan::inclusive<cl_long>(e.queue, in, out, n, opts); },
                         "options::transform_input is 17");
  // The calls that take no transform take no transform_input either.
  opts.transform.clear();
  opts.transform_input = clscan::element_type::int32;
  check_invalid_argument(
      [&] { clscan::inclusive_by_key<cl_long, cl_long>(e.queue, out, out, out, n / 2, opts); },
      "options::transform_input");
  REQUIRE(e.queue.finish() == CL_SUCCESS);
  CHECK(read_buffer<cl_long>(out, n) == poison);
  CHECK(read_buffer<cl_int>(in, n) == data);
}
