// Segmented scans and reductions over offsets (inclusive_segmented, exclusive_segmented,
// reduce_segmented), compared exactly against sequential references written here as plain loops over the
// documented rules (segmented.hpp): all six value types with both offset types, both ways of chaining
// tiles, one segment, all singletons, many empty segments, segments across the device's tiles, a huge
// segment beside tiny ones, unsorted and out-of-range offsets, n = 0, num_segments = 0, offsets on every
// buffer, initial values, other operators and a custom operator with a parameter, and poisoned guards
// around every output. Then the errors the host can see, each thrown before anything is enqueued.
#include "robustness.hpp"
#include "support/guarded.hpp"
#include "support/own_contexts.hpp"

#include <common/reference.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace clscan_test;
using namespace clscan_test::guarded;
using clscan::algorithm;
using clscan::scan_kind;

namespace {

constexpr std::uint64_t data_seed = 0x2026'1127'5e91ull;
constexpr std::size_t guard = 3;

// A parameter whose type is not deduced from its argument (std::nullopt passes for any T).
template <typename T> using given = typename std::enable_if<true, T>::type;

template <typename T> bool device_supports() {
  return !std::is_same_v<T, cl_double> || clscan::capabilities(env().device).fp64;
}

enum class call_kind { inclusive, exclusive, reduce };
const char* call_name(call_kind c) {
  switch (c) {
  case call_kind::inclusive: return "inclusive_segmented";
  case call_kind::exclusive: return "exclusive_segmented";
  case call_kind::reduce: return "reduce_segmented";
  }
  return "?";
}

// How a case combines: an operator of the library, or a custom one (its text, identity, parameters and
// host function).
template <typename T> struct operation {
  clscan::op op = clscan::op::sum;
  std::string custom_op;
  T custom_identity{};
  std::vector<clscan::parameter> parameters;
  std::function<T(T, T)> custom;

  T identity() const {
    return op == clscan::op::custom ? custom_identity : clscan_reference::identity<T>(op);
  }
  T combine(T a, T b) const {
    return op == clscan::op::custom ? custom(a, b) : clscan_reference::combine(op, a, b);
  }
};

// Segment heads as the scans define them: element 0, and every entry of offsets[0, S] below n.
template <typename O> std::vector<bool> scan_heads(const std::vector<O>& offsets, std::size_t n) {
  std::vector<bool> heads(n, false);
  if (n) heads[0] = true;
  for (const O o : offsets)
    if (static_cast<std::uint64_t>(o) < n) heads[static_cast<std::size_t>(o)] = true;
  return heads;
}

template <typename T, typename O>
std::vector<T> reference_scan(call_kind kind, const std::vector<T>& in, const std::vector<O>& offsets,
                              const operation<T>& f, std::optional<T> initial) {
  const std::vector<bool> heads = scan_heads(offsets, in.size());
  std::vector<T> out(in.size());
  T running{};
  for (std::size_t i = 0; i < in.size(); ++i) {
    const T before = heads[i] ? f.identity() : running;
    running = heads[i] ? in[i] : f.combine(running, in[i]);
    const T result = kind == call_kind::exclusive ? before : running;
    out[i] = initial ? f.combine(*initial, result) : result;
  }
  return out;
}

// result[s]: the identity (or initial) for an empty [b, e), b = offsets[s], e = min(n, offsets[s + 1]);
// else (initial op) in[b] op ... op in[e - 1], whatever the other ranges.
template <typename T, typename O>
std::vector<T> reference_reduce(const std::vector<T>& in, const std::vector<O>& offsets,
                                const operation<T>& f, std::optional<T> initial) {
  const std::size_t n = in.size(), segments = offsets.size() - 1;
  const auto range = [&](std::size_t s) {
    const std::uint64_t b = offsets[s], e = std::min<std::uint64_t>(n, offsets[s + 1]);
    return std::make_pair(b, e);
  };
  std::vector<T> out(segments);
  for (std::size_t s = 0; s < segments; ++s) {
    const auto [b, e] = range(s);
    if (b >= e) {
      out[s] = initial ? *initial : f.identity();
      continue;
    }
    T total = in[static_cast<std::size_t>(b)];
    for (std::size_t i = static_cast<std::size_t>(b) + 1; i < e; ++i)
      total = f.combine(total, in[i]);
    out[s] = initial ? f.combine(*initial, total) : total;
  }
  return out;
}

// The offsets of a case: CSR-like shapes of n elements, as segment lengths.
enum class shape { one, singletons, many_empty, huge_and_tiny, random_long };
const char* shape_name(shape s) {
  switch (s) {
  case shape::one: return "one segment";
  case shape::singletons: return "all singletons";
  case shape::many_empty: return "many empty segments";
  case shape::huge_and_tiny: return "a huge segment among tiny ones";
  case shape::random_long: return "random segments of 1 to 700";
  }
  return "?";
}

template <typename O> std::vector<O> make_offsets(shape s, std::size_t n) {
  std::vector<O> offsets = {0};
  clscan_reference::splitmix64 r{data_seed ^ n ^ (static_cast<std::uint64_t>(s) << 40)};
  std::size_t at = 0;
  const auto push = [&](std::size_t length) {
    at = std::min(n, at + length);
    offsets.push_back(static_cast<O>(at));
  };
  switch (s) {
  case shape::one: push(n); break;
  case shape::singletons:
    while (at < n)
      push(1);
    break;
  case shape::many_empty:
    // Mostly empty, a few of 1 to 8; empty ones at the start and the end too.
    push(0);
    while (at < n)
      push(r.next() % 4 ? 0 : 1 + r.next() % 8);
    push(0);
    push(0);
    break;
  case shape::huge_and_tiny:
    for (std::size_t k = 0; k < 5 && at < n; ++k)
      push(r.next() % 3);
    push(n / 2 + 1);
    while (at < n)
      push(r.next() % 3);
    break;
  case shape::random_long:
    while (at < n)
      push(1 + r.next() % 700);
    break;
  }
  return offsets;
}

template <typename T> std::vector<T> make_values(std::size_t n, std::uint64_t seed) {
  std::vector<T> values(n);
  clscan_reference::splitmix64 r{seed + n};
  for (auto& x : values)
    x = static_cast<T>(r.next() % 100); // small integers: float sums exact in any order
  return values;
}

// Where the buffers' ranges start: all zero, or apart from zero everywhere.
struct placement {
  std::size_t in_offset = 0, out_offset = 0, offsets_offset = 0;
};
constexpr placement at_zero{}, shifted{2, guard, 5};

// Runs one call over guarded buffers and checks its output (n elements, or one per segment) against
// the reference, the guards around it, and the inputs and offsets unchanged. in_place: the scan runs in
// the input buffer (in_offset == out_offset).
template <typename T, typename O>
void check_call(call_kind kind, const std::vector<T>& in, const std::vector<O>& offsets,
                const operation<T>& f, given<std::optional<T>> initial, algorithm algo, placement at,
                bool in_place = false) {
  CAPTURE(call_name(kind), clscan::to_string(algo), in.size(), offsets.size() - 1, at.in_offset,
          at.out_offset, at.offsets_offset, in_place, initial.has_value());
  const std::size_t n = in.size(), segments = offsets.size() - 1;
  const bool reduce = kind == call_kind::reduce;
  if (in_place) at.out_offset = at.in_offset;
  const std::vector<T> expected =
      reduce ? reference_reduce(in, offsets, f, initial) : reference_scan(kind, in, offsets, f, initial);
  const std::vector<T> in_image = guarded_image(&in, n, at.in_offset, guard);
  const std::vector<O> offsets_image = guarded_image(&offsets, offsets.size(), at.offsets_offset, guard);
  const cl::Buffer in_buffer = make_buffer(in_image), offsets_buffer = make_buffer(offsets_image);
  const std::size_t out_n = reduce ? segments : n;
  const cl::Buffer out_buffer =
      in_place ? in_buffer : make_buffer(guarded_image<T>(nullptr, out_n, at.out_offset, guard));

  clscan::segmented_options<T> opts;
  opts.algorithm = algo;
  opts.operation = f.op;
  opts.custom_op = f.custom_op;
  opts.custom_identity = f.custom_identity;
  opts.parameters = f.parameters;
  opts.initial = initial;
  opts.in_offset = at.in_offset;
  opts.out_offset = at.out_offset;
  opts.offsets_offset = at.offsets_offset;
  const auto& q = env().queue;
  cl::Event done =
      kind == call_kind::inclusive
          ? clscan::inclusive_segmented<T, O>(q, in_buffer, out_buffer, n, offsets_buffer, segments, opts)
      : kind == call_kind::exclusive
          ? clscan::exclusive_segmented<T, O>(q, in_buffer, out_buffer, n, offsets_buffer, segments, opts)
          : clscan::reduce_segmented<T, O>(q, in_buffer, out_buffer, n, offsets_buffer, segments, opts);
  REQUIRE(done.wait() == CL_SUCCESS);
  const std::size_t out_size = in_place ? in_image.size() : at.out_offset + out_n + guard;
  const std::vector<T> got = read_buffer<T>(out_buffer, out_size);
  check_exact("output", got, at.out_offset, expected);
  check_guards("output", got, at.out_offset, out_n);
  if (!in_place) {
    const std::vector<T> in_after = read_buffer<T>(in_buffer, in_image.size());
    CHECK(std::equal(in_after.begin(), in_after.end(), in_image.begin(), same_bits<T>));
  }
  CHECK(read_buffer<O>(offsets_buffer, offsets_image.size()) == offsets_image);
}

template <typename T, typename O>
void check_all_calls(const std::vector<T>& in, const std::vector<O>& offsets, const operation<T>& f,
                     given<std::optional<T>> initial, algorithm algo, placement at) {
  for (call_kind kind : {call_kind::inclusive, call_kind::exclusive, call_kind::reduce})
    check_call(kind, in, offsets, f, initial, algo, at);
}

// 1, 2, 17, and sizes around the by-key single-pass tiles of T (large and small shapes), up to `limit`.
template <typename T> std::vector<std::size_t> sizes(std::size_t limit) {
  std::vector<std::size_t> out = {1, 2, 17};
  const clscan::dispatch_plan plan = clscan::plan_for(env().device, clscan::element_traits<T>::type);
  for (const clscan::tuning& shape : {plan.single_pass, plan.single_pass_small}) {
    const std::size_t tile = shape.work_group_size * std::min<std::size_t>(shape.items_per_thread, 64);
    for (std::size_t t : {tile - 1, tile, tile + 1, 2 * tile + 3})
      if (t > 0 && t <= limit) out.push_back(t);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Every shape of offsets at every size, sums, each call; with and without offsets and an initial value.
template <typename T, typename O> void type_suite(algorithm algo, std::size_t limit) {
  if (!device_supports<T>()) {
    WARN("skipped for " << clscan::opencl_name(clscan::element_traits<T>::type) << " values: no fp64");
    return;
  }
  const operation<T> sum;
  for (std::size_t n : sizes<T>(limit)) {
    for (shape s :
         {shape::one, shape::singletons, shape::many_empty, shape::huge_and_tiny, shape::random_long}) {
      CAPTURE(shape_name(s));
      const std::vector<O> offsets = make_offsets<O>(s, n);
      const std::vector<T> values = make_values<T>(n, data_seed);
      const bool odd = (n + static_cast<std::size_t>(s)) % 2 != 0;
      check_all_calls(values, offsets, sum, odd ? std::optional<T>(T{5}) : std::nullopt, algo,
                      odd ? shifted : at_zero);
    }
  }
}

} // namespace

TEST_CASE("segmented: every value type, both offset types, match a sequential reference", "[segmented]") {
  // The look-back (or its fallback where the device has no single-pass verdict) for every type; the
  // three-stage family for one type of each size.
  type_suite<cl_int, cl_uint>(algorithm::automatic, 20'000);
  type_suite<cl_uint, cl_ulong>(algorithm::automatic, 5'000);
  type_suite<cl_long, cl_uint>(algorithm::automatic, 5'000);
  type_suite<cl_ulong, cl_ulong>(algorithm::automatic, 5'000);
  type_suite<cl_float, cl_ulong>(algorithm::automatic, 20'000);
  type_suite<cl_double, cl_uint>(algorithm::automatic, 5'000);
  type_suite<cl_int, cl_ulong>(algorithm::three_stage, 20'000);
  type_suite<cl_double, cl_ulong>(algorithm::three_stage, 5'000);
}

namespace {

// Segments across the device's own single-pass tiles, uncapped (a CPU's tile is a MiB, which sizes()
// leaves out): a leading segment of `leading` elements that ends before, at or after a tile's edge, then
// segments of 0 to 40 elements, over three tiles and a few elements.
template <typename T, typename O> void check_segments_across_tiles() {
  if (!device_supports<T>()) {
    WARN("skipped: no fp64");
    return;
  }
  const clscan::dispatch_plan plan = clscan::plan_for(env().device, clscan::element_traits<T>::type);
  const std::size_t tile = plan.single_pass.work_group_size * plan.single_pass.items_per_thread;
  const std::size_t n = 3 * tile + 5;
  CAPTURE(tile, n);
  const operation<T> sum;
  const std::vector<T> values = make_values<T>(n, data_seed + 8);
  for (const std::size_t leading : {std::size_t{1}, tile - 1, tile + 1, 2 * tile + 1, n}) {
    CAPTURE(leading);
    std::vector<O> offsets = {0, static_cast<O>(leading)};
    clscan_reference::splitmix64 r{data_seed ^ leading};
    for (std::size_t at = leading; at < n;)
      offsets.push_back(static_cast<O>(at = std::min(n, at + r.next() % 41)));
    for (algorithm algo : algorithms_under_test({algorithm::automatic, algorithm::three_stage})) {
      check_all_calls(values, offsets, sum, std::nullopt, algo, at_zero);
      check_all_calls(values, offsets, sum, std::optional<T>(T{3}), algo, shifted);
    }
  }
}

} // namespace

// [segmented-gpu]: the 4-byte case alone in the GPU layout (segmented-gpu-shape, on the look-back alone:
// CLSCAN_TEST_ALGORITHMS), where PoCL takes about 15 s to build each program on a cold cache.
TEST_CASE("segmented: segments that span the device's single-pass tiles, cl_int values",
          "[segmented][segmented-gpu]") {
  check_segments_across_tiles<cl_int, cl_uint>();
}

TEST_CASE("segmented: segments that span the device's single-pass tiles, cl_double values", "[segmented]") {
  check_segments_across_tiles<cl_double, cl_ulong>();
}

TEST_CASE("segmented: other operators, a custom operator with a parameter, initial values", "[segmented]") {
  const std::size_t n = 3'001;
  const std::vector<cl_uint> offsets = make_offsets<cl_uint>(shape::random_long, n);
  const std::vector<cl_uint> sparse = make_offsets<cl_uint>(shape::many_empty, n);
  for (algorithm algo : {algorithm::automatic, algorithm::three_stage}) {
    operation<cl_int> largest;
    largest.op = clscan::op::max;
    std::vector<cl_int> values = make_values<cl_int>(n, data_seed + 1);
    for (std::size_t i = 0; i < n; i += 3)
      values[i] = -values[i];
    check_all_calls(values, offsets, largest, std::nullopt, algo, shifted);
    check_all_calls(values, sparse, largest, std::optional<cl_int>(-7), algo, at_zero);

    // (a + b) & mask: associative, with identity 0, and a parameter the kernels take as an argument.
    operation<cl_uint> masked;
    masked.op = clscan::op::custom;
    masked.custom_op = "(a + b) & mask";
    masked.custom_identity = 0;
    masked.parameters = {{"mask", cl_uint{0xff}}};
    masked.custom = [](cl_uint a, cl_uint b) { return (a + b) & 0xffu; };
    const std::vector<cl_uint> unsigned_values = make_values<cl_uint>(n, data_seed + 2);
    check_all_calls(unsigned_values, offsets, masked, std::nullopt, algo, shifted);
    check_all_calls(unsigned_values, sparse, masked, std::optional<cl_uint>(200), algo, at_zero);
    // A new value of the parameter: the same program.
    masked.parameters = {{"mask", cl_uint{0x3f}}};
    masked.custom = [](cl_uint a, cl_uint b) { return (a + b) & 0x3fu; };
    check_all_calls(unsigned_values, offsets, masked, std::nullopt, algo, at_zero);
  }
}

// A forced single_pass: the same results where the device runs it; unsupported_error, before anything is
// enqueued, where it does not (no atomics, or disqualified).
TEST_CASE("segmented: algorithm::single_pass where the device runs it, refused where not", "[segmented]") {
  const cl::Device& device = env().device;
  const bool runs = clscan::plan_for(device, clscan::element_type::int32).single_pass_available &&
                    clscan::qualify_single_pass(device, clscan::element_type::int32).passed;
  const operation<cl_int> sum;
  const std::vector<cl_int> values = make_values<cl_int>(5'000, data_seed + 12);
  const std::vector<cl_uint> offsets = make_offsets<cl_uint>(shape::random_long, 5'000);
  if (runs) {
    check_all_calls(values, offsets, sum, std::optional<cl_int>(1), algorithm::single_pass, shifted);
    return;
  }
  const cl::Buffer in = make_buffer(values), o = make_buffer(offsets);
  const cl::Buffer out = make_buffer(std::vector<cl_int>(values.size(), poison_value<cl_int>()));
  clscan::segmented_options<cl_int> forced;
  forced.algorithm = algorithm::single_pass;
  bool refused = false;
  try {
    clscan::inclusive_segmented<cl_int>(env().queue, in, out, values.size(), o, offsets.size() - 1, forced);
  } catch (const clscan::unsupported_error& e) {
    refused = true;
    INFO("message: " << e.what());
    CHECK_THAT(e.what(), Catch::Matchers::Contains("single_pass"));
  }
  CHECK(refused);
  REQUIRE(env().queue.finish() == CL_SUCCESS);
  CHECK(read_buffer<cl_int>(out, values.size()) ==
        std::vector<cl_int>(values.size(), poison_value<cl_int>()));
}

TEST_CASE("segmented: in place, and elements outside the offsets' range", "[segmented]") {
  const std::size_t n = 2'500;
  const operation<cl_float> sum;
  const std::vector<cl_float> values = make_values<cl_float>(n, data_seed + 3);
  // CSR offsets that start late and end early: [0, 100) and [2400, n) are segments of their own in the
  // scans, and outside every result of the reduction.
  std::vector<cl_uint> inner = {100};
  for (cl_uint at = 100; at < 2'400;)
    inner.push_back(at = std::min<cl_uint>(2'400, at + 1 + at % 97));
  for (algorithm algo : {algorithm::automatic, algorithm::three_stage}) {
    check_all_calls(values, inner, sum, std::nullopt, algo, shifted);
    for (call_kind kind : {call_kind::inclusive, call_kind::exclusive})
      check_call(kind, values, inner, sum, std::optional<cl_float>(1.0f), algo, shifted, true);
  }
}

TEST_CASE("segmented: unsorted, repeated and out-of-range offsets follow the documented rules",
          "[segmented]") {
  const std::size_t n = 1'000;
  const operation<cl_long> sum;
  const std::vector<cl_long> values = make_values<cl_long>(n, data_seed + 4);
  const cl_ulong past = std::numeric_limits<cl_ulong>::max();
  // Disjoint non-empty ranges in any order ([500, 700), [0, 300), [700, n)), empty ones (including
  // offsets[s + 1] < offsets[s]), repeated begins, ranges past n, and overlapping ones ([100, 600) and
  // [250, 400) inside it).
  const std::vector<cl_ulong> unsorted = {500, 700, 0,   300, 300, 700, n,    1'200, 50,
                                          10,  100, 600, 250, 400, 400, past, 999,   1'000};
  // A reference check of the rule itself, on a case computed by hand: [500, 700) is its own range.
  {
    const std::vector<cl_long> results = reference_reduce(values, unsorted, sum, std::optional<cl_long>());
    cl_long expected = 0;
    for (std::size_t i = 500; i < 700; ++i)
      expected += values[i];
    CHECK(results[0] == expected);
    CHECK(results[1] == 0); // [700, 0) is empty
  }
  for (algorithm algo : {algorithm::automatic, algorithm::three_stage})
    check_all_calls(values, unsorted, sum, std::optional<cl_long>(3), algo, shifted);
}

TEST_CASE("segmented: n == 0 and num_segments == 0", "[segmented]") {
  const operation<cl_int> sum;
  const std::vector<cl_int> none;
  const std::vector<cl_int> values = make_values<cl_int>(40, data_seed + 5);
  // n == 0: the scans write nothing, the reduction the identity or the initial value to every result.
  check_all_calls(none, std::vector<cl_uint>{0, 0, 0, 0}, sum, std::nullopt, algorithm::automatic, shifted);
  check_all_calls(none, std::vector<cl_uint>{0, 3, 9}, sum, std::optional<cl_int>(-4), algorithm::automatic,
                  at_zero);
  // num_segments == 0: the scans read offsets[0] only (a segment starts there), the reduction writes
  // nothing.
  for (const cl_uint first : {0u, 17u, 40u, 1'000u})
    check_all_calls(values, std::vector<cl_uint>{first}, sum, std::nullopt, algorithm::automatic, shifted);
}

namespace {

// reduce_segmented reads whole chunks through their totals where a segment covers them: 4096 elements on
// GPUs, 1024 on other devices (kernels/segment_reduce.cl CLSCAN_SEGMENT_CHUNK, lib/algorithms/segments.hpp
// segment_chunk). The cases below cut around the edges of both (a 4096 edge is a 1024 one too).
constexpr std::size_t chunks_tried[] = {1024, 4096};

// Offsets over n elements, around chunk edges: (sorted) one segment of all n; lengths chunk - 1, chunk,
// chunk + 1, 2 chunk - 1, 3 chunk + 5, 1 and 0 in turn (ends before, at and after the edges; several
// whole chunks); segments that start and end exactly on edges; and (unsorted) the same edge-aligned
// ranges backwards with overlapping ranges that cover the same chunks and ranges past n; and two cases
// whose chunks the chunks' binary search cannot find (it lands on [1, 2)), so that [5, n) and [chunk, n)
// read their chunks themselves, through the head and the loop over chunks.
template <typename O> std::vector<std::vector<O>> chunk_offsets(std::size_t n, std::size_t chunk) {
  std::vector<std::vector<O>> cases;
  cases.push_back({0, static_cast<O>(n)});
  std::vector<O> around = {0};
  const std::size_t lengths[] = {chunk - 1, chunk, chunk + 1, 2 * chunk - 1, 3 * chunk + 5, 1, 0};
  for (std::size_t at = 0, k = 0; at < n; ++k)
    around.push_back(static_cast<O>(at = std::min(n, at + lengths[k % 7])));
  cases.push_back(around);
  std::vector<O> edges = {0};
  for (std::size_t at = 0, k = 1; at < n; ++k)
    edges.push_back(static_cast<O>(at = std::min(n, at + k * chunk)));
  cases.push_back(edges);
  std::vector<O> backwards;
  for (std::size_t s = edges.size(); s-- > 1;) {
    backwards.push_back(edges[s - 1]);
    backwards.push_back(edges[s]);
  }
  const O past = std::numeric_limits<O>::max();
  for (const O o : {O{0}, static_cast<O>(n), O{5}, static_cast<O>(n - 3), static_cast<O>(chunk),
                    static_cast<O>(3 * chunk), static_cast<O>(chunk - 7), past, O{1}})
    backwards.push_back(o);
  cases.push_back(backwards);
  cases.push_back({3, 4, 5, static_cast<O>(n), 1, 2});
  cases.push_back({1, 2, static_cast<O>(chunk), static_cast<O>(n), 1, 2});
  return cases;
}

template <typename T, typename O> void check_chunks(const operation<T>& f, std::optional<T> initial) {
  if (!device_supports<T>()) {
    WARN("skipped: no fp64");
    return;
  }
  for (const std::size_t chunk : chunks_tried)
    for (const std::size_t n : {chunk, 2 * chunk - 1, 10 * chunk + 123}) {
      CAPTURE(chunk);
      std::uint64_t seed = data_seed + 13;
      for (const std::vector<O>& offsets : chunk_offsets<O>(n, chunk)) {
        // Other values for each case: a chunk total left from the call before is never right by chance.
        const std::vector<T> values = make_values<T>(n, ++seed);
        check_call(call_kind::reduce, values, offsets, f, initial, algorithm::automatic, at_zero);
        check_call(call_kind::reduce, values, offsets, f, initial, algorithm::automatic, shifted);
      }
    }
}

} // namespace

// reduce_segmented's chunks: segments inside one chunk, across edges, over many whole chunks, a huge one;
// unsorted and overlapping ranges over chunks; the built-in operators (interleaved accumulators) and a
// custom one that is not commutative (in order only). In segmented-gpu-shape too: the launches' shapes
// are the implementation's, whatever the device's limits.
TEST_CASE("segmented: reduce_segmented over whole chunks, sorted or not", "[segmented][segmented-gpu]") {
  check_chunks<cl_int, cl_uint>(operation<cl_int>(), std::nullopt);
  check_chunks<cl_ulong, cl_ulong>(operation<cl_ulong>(), std::optional<cl_ulong>(9));
  check_chunks<cl_float, cl_uint>(operation<cl_float>(), std::optional<cl_float>(2.0f));
  check_chunks<cl_double, cl_ulong>(operation<cl_double>(), std::nullopt);
  operation<cl_int> largest;
  largest.op = clscan::op::max;
  check_chunks<cl_int, cl_ulong>(largest, std::nullopt);
  // The last non-zero element: associative, identity 0, not commutative; values of 0 to 99 make it the
  // last non-zero of each range.
  operation<cl_uint> last;
  last.op = clscan::op::custom;
  last.custom_op = "b != skip ? b : a";
  last.custom_identity = 0;
  last.parameters = {{"skip", cl_uint{0}}};
  last.custom = [](cl_uint a, cl_uint b) { return b != 0 ? b : a; };
  check_chunks<cl_uint, cl_uint>(last, std::nullopt);
  check_chunks<cl_uint, cl_uint>(last, std::optional<cl_uint>(77));
}

// reduce_segmented's levels of totals above the chunks (kernels/segment_reduce.cl): an entry per 64
// entries below, so a level-1 entry spans 64 chunks and a level-2 one 4096 (2^22 elements in chunks of
// 1024, 2^24 in chunks of 4096). Over a little more than two level-2 entries of 1024-element chunks (one
// level-1 entry short of them in 4096-element chunks): one segment of all n; segments that start and end
// around level edges, so that the walk climbs, takes whole entries and comes down to the chunks on both
// sides; edges of exactly one level-1 entry; and unsorted ranges whose chunks the binary search cannot
// find, so that whole level entries without a total are read element by element.
TEST_CASE("segmented: reduce_segmented through the levels of totals", "[segmented][segmented-gpu]") {
  constexpr std::size_t level1 = 1024 * 64, level2 = level1 * 64;
  const std::size_t n = 2 * level2 + 3 * level1 + 12'345;
  const std::vector<cl_int> values = make_values<cl_int>(n, data_seed + 29);
  std::vector<std::vector<cl_uint>> cases;
  cases.push_back({0, static_cast<cl_uint>(n)});
  cases.push_back({0, 5, static_cast<cl_uint>(level1 - 1), static_cast<cl_uint>(level2 + 7),
                   static_cast<cl_uint>(2 * level2), static_cast<cl_uint>(2 * level2 + 4 * 4096 + 1),
                   static_cast<cl_uint>(n - 3), static_cast<cl_uint>(n)});
  std::vector<cl_uint> edges = {0};
  for (std::size_t at = 0; at < n;)
    edges.push_back(static_cast<cl_uint>(at = std::min(n, at + 4 * level1)));
  cases.push_back(edges);
  cases.push_back({1, 2, static_cast<cl_uint>(level1), static_cast<cl_uint>(n), 1, 2});
  cases.push_back({3, 4, 5, static_cast<cl_uint>(n - level1 - 9), 1, 2});
  const operation<cl_int> sum;
  for (const std::vector<cl_uint>& offsets : cases)
    check_call(call_kind::reduce, values, offsets, sum, std::optional<cl_int>(), algorithm::automatic,
               shifted);
  // Not commutative, in order only: the last non-zero element.
  operation<cl_uint> last;
  last.op = clscan::op::custom;
  last.custom_op = "b != 0 ? b : a";
  last.custom_identity = 0;
  last.custom = [](cl_uint a, cl_uint b) { return b != 0 ? b : a; };
  std::vector<cl_uint> unsigned_values(values.begin(), values.end());
  for (const std::vector<cl_uint>& offsets : cases)
    check_call(call_kind::reduce, unsigned_values, offsets, last, std::optional<cl_uint>(7u),
               algorithm::automatic, at_zero);
}

// A smaller call after a larger one on the same storage (the head flags the first set and cleared are the
// second's). That repeats build and allocate nothing is the hot-path test's (tests/programs/hot_path.cpp).
TEST_CASE("segmented: a smaller call after a larger one on the same storage", "[segmented]") {
  const operation<cl_int> sum;
  const std::vector<cl_uint> offsets = make_offsets<cl_uint>(shape::random_long, 9'000);
  const std::vector<cl_int> values = make_values<cl_int>(9'000, data_seed + 6);
  check_all_calls(values, offsets, sum, std::nullopt, algorithm::automatic, at_zero);
  const std::vector<cl_uint> fewer = make_offsets<cl_uint>(shape::huge_and_tiny, 4'000);
  check_all_calls(std::vector<cl_int>(values.begin(), values.begin() + 4'000), fewer, sum, std::nullopt,
                  algorithm::automatic, at_zero);
}

// The kernels under Oclgrind (oclgrind-segmented, tests/cmake/reliability.cmake): the head flags' atomic
// stores of repeated begins (empty segments), their clearing by the call that set them (three calls in
// one context), the scan by key over them in the GPU layout, and reduce_segmented's two kernels (chunk
// totals read only where their flags say they were written this call).
TEST_CASE("segmented: small inputs for Oclgrind", "[.][segmented-oclgrind]") {
  REQUIRE_THAT(env().device_name, Catch::Matchers::Contains("Oclgrind"));
  const own_contexts in_own_context;
  const clscan::dispatch_plan plan = clscan::plan_for(env().device, clscan::element_type::int32);
  const std::size_t tile = plan.single_pass_small.work_group_size *
                           std::min<std::size_t>(plan.single_pass_small.items_per_thread, 64);
  const operation<cl_int> sum;
  for (algorithm algo : {algorithm::automatic, algorithm::three_stage})
    for (std::size_t n : {std::size_t{1}, tile + 301}) {
      const std::vector<cl_int> values = make_values<cl_int>(n, data_seed + 9);
      const std::vector<cl_uint> offsets = make_offsets<cl_uint>(shape::many_empty, n);
      in_own_context([&] {
        check_call(call_kind::inclusive, values, offsets, sum, std::nullopt, algo, shifted);
        check_call(call_kind::reduce, values, offsets, sum, std::optional<cl_int>(2), algo, at_zero);
        check_call(call_kind::exclusive, values, make_offsets<cl_uint>(shape::singletons, n), sum,
                   std::nullopt, algo, shifted);
      });
    }
  // reduce_segmented's chunk totals (two whole chunks and a part): segments around the edges, then the
  // same ranges unsorted, where the segments read chunks the chunks' search did not find.
  const std::size_t n = 2 * 4096 + 77;
  const std::vector<cl_int> values = make_values<cl_int>(n, data_seed + 14);
  const std::vector<std::vector<cl_uint>> cases = chunk_offsets<cl_uint>(n, 1024);
  in_own_context([&] {
    for (const std::size_t c : {std::size_t{1}, std::size_t{3}})
      check_call(call_kind::reduce, values, cases[c], sum, std::optional<cl_int>(2), algorithm::automatic,
                 shifted);
  });
}

// On an out-of-order queue each pass waits for the one before (the head flags, the scan by key, the
// results, the clearing): two calls in a row, the second on other offsets, and the first waiting for an
// upload's event.
TEST_CASE("segmented: an out-of-order queue", "[segmented]") {
  const cl::Device& device = env().device;
  if (!(device.getInfo<CL_DEVICE_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
    WARN("not run: the device has no out-of-order queues");
    return;
  }
  const cl::CommandQueue queue(env().context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  const std::size_t n = 70'000;
  const operation<cl_int> sum;
  const std::vector<cl_int> values = make_values<cl_int>(n, data_seed + 13);
  const std::vector<cl_uint> first = make_offsets<cl_uint>(shape::random_long, n);
  const std::vector<cl_uint> second = make_offsets<cl_uint>(shape::many_empty, n);
  const cl::Buffer in(env().context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
  cl::Event uploaded;
  REQUIRE(queue.enqueueWriteBuffer(in, CL_FALSE, 0, n * sizeof(cl_int), values.data(), nullptr, &uploaded) ==
          CL_SUCCESS);
  const cl::Buffer o1 = make_buffer(first), o2 = make_buffer(second);
  const cl::Buffer scanned = make_buffer(std::vector<cl_int>(n, poison_value<cl_int>()));
  const cl::Buffer totals = make_buffer(std::vector<cl_int>(second.size() - 1, poison_value<cl_int>()));
  clscan::segmented_options<cl_int> after_upload;
  after_upload.wait_list = {uploaded};
  const cl::Event scan_done =
      clscan::inclusive_segmented<cl_int>(queue, in, scanned, n, o1, first.size() - 1, after_upload);
  clscan::segmented_options<cl_int> after_scan;
  after_scan.wait_list = {scan_done};
  const cl::Event reduce_done =
      clscan::reduce_segmented<cl_int>(queue, in, totals, n, o2, second.size() - 1, after_scan);
  REQUIRE(reduce_done.wait() == CL_SUCCESS);
  REQUIRE(scan_done.wait() == CL_SUCCESS);
  check_exact("inclusive_segmented", read_buffer<cl_int>(scanned, n), 0,
              reference_scan(call_kind::inclusive, values, first, sum, std::optional<cl_int>()));
  check_exact("reduce_segmented", read_buffer<cl_int>(totals, second.size() - 1), 0,
              reference_reduce(values, second, sum, std::optional<cl_int>()));
}

namespace {

// `call` must throw E naming `needle`, and leave the output, the input and the offsets as they were.
template <typename E = clscan::invalid_argument, typename Call>
void expect_rejected(const char* what, const std::string& needle,
                     const std::vector<const cl::Buffer*>& buffers, Call call) {
  INFO(what);
  std::vector<std::vector<cl_int>> before;
  for (const cl::Buffer* b : buffers)
    before.push_back(read_buffer<cl_int>(*b, b->getInfo<CL_MEM_SIZE>() / sizeof(cl_int)));
  bool thrown = false;
  try {
    call();
  } catch (const E& e) {
    thrown = true;
    INFO("message: " << e.what());
    CHECK_THAT(e.what(), Catch::Matchers::Contains(needle));
  }
  CHECK(thrown);
  REQUIRE(env().queue.finish() == CL_SUCCESS);
  for (std::size_t i = 0; i < buffers.size(); ++i)
    CHECK(read_buffer<cl_int>(*buffers[i], before[i].size()) == before[i]);
}

} // namespace

TEST_CASE("segmented: bad arguments throw before anything is enqueued, and leave the buffers as they were",
          "[segmented][errors]") {
  const auto& q = env().queue;
  const std::size_t n = 64;
  const cl::Buffer in = make_buffer(make_values<cl_int>(n, data_seed + 7));
  const cl::Buffer out = make_buffer(std::vector<cl_int>(n, poison_value<cl_int>()));
  const cl::Buffer offsets = make_buffer(std::vector<cl_uint>{0, 10, 20, 64});
  const cl::Buffer short_out = make_buffer(std::vector<cl_int>(2, poison_value<cl_int>()));
  const std::vector<const cl::Buffer*> all = {&in, &out, &offsets, &short_out};
  using opts_t = clscan::segmented_options<cl_int>;

  expect_rejected("null offsets", "offsets buffer is null", all,
                  [&] { clscan::inclusive_segmented<cl_int>(q, in, out, n, cl::Buffer(), 3); });
  expect_rejected("offsets shorter than num_segments + 1", "num_segments + 1", all,
                  [&] { clscan::exclusive_segmented<cl_int>(q, in, out, n, offsets, 4); });
  opts_t past_offsets;
  past_offsets.offsets_offset = 1;
  expect_rejected("offsets_offset past the offsets", "fewer than offset 1", all,
                  [&] { clscan::reduce_segmented<cl_int>(q, in, out, n, offsets, 3, past_offsets); });
  expect_rejected("cl_ulong offsets in a buffer of 2", "num_segments + 1", all,
                  [&] { clscan::inclusive_segmented<cl_int, cl_ulong>(q, in, out, n, offsets, 3); });
  expect_rejected("a reduction's output shorter than num_segments", "num_segments 3", all,
                  [&] { clscan::reduce_segmented<cl_int>(q, in, short_out, n, offsets, 3); });
  expect_rejected("a scan's output shorter than n", "output buffer holds 2", all,
                  [&] { clscan::inclusive_segmented<cl_int>(q, in, short_out, n, offsets, 3); });
  expect_rejected("the offsets as the output", "offsets and the output overlap", all,
                  [&] { clscan::inclusive_segmented<cl_int>(q, in, offsets, 4, offsets, 3); });
  expect_rejected("the offsets as a reduction's output", "offsets and the output overlap", all,
                  [&] { clscan::reduce_segmented<cl_int>(q, in, offsets, n, offsets, 3); });
  opts_t partly;
  partly.out_offset = 1;
  expect_rejected("partly in place", "overlap without being the same range", all,
                  [&] { clscan::inclusive_segmented<cl_int>(q, out, out, n - 1, offsets, 3, partly); });
  opts_t transformed;
  transformed.transform = "x * 2";
  expect_rejected("a transform", "options::transform", all,
                  [&] { clscan::inclusive_segmented<cl_int>(q, in, out, n, offsets, 3, transformed); });
  opts_t keyed;
  keyed.key_equal = "a == b";
  expect_rejected("key_equal", "options::key_equal", all,
                  [&] { clscan::reduce_segmented<cl_int>(q, in, out, n, offsets, 3, keyed); });
  opts_t on_device;
  on_device.initial_on_device = clscan::device_value{out, 0};
  expect_rejected("initial_on_device", "initial_on_device", all,
                  [&] { clscan::exclusive_segmented<cl_int>(q, in, out, n, offsets, 3, on_device); });
  expect_rejected("num_segments + 1 past size_t", "num_segments", all, [&] {
    clscan::reduce_segmented<cl_int>(q, in, out, n, offsets, std::numeric_limits<std::size_t>::max());
  });
  opts_t custom_without_text;
  custom_without_text.operation = clscan::op::custom;
  expect_rejected("op::custom without custom_op", "custom_op", all, [&] {
    clscan::inclusive_segmented<cl_int>(q, in, out, n, offsets, 3, custom_without_text);
  });
  // Errors found whatever n and num_segments are: the call is as invalid with nothing to do.
  expect_rejected("a transform, n == 0", "options::transform", all,
                  [&] { clscan::reduce_segmented<cl_int>(q, in, out, 0, offsets, 0, transformed); });
  const cl::Buffer write_only(env().context, CL_MEM_WRITE_ONLY, 4 * sizeof(cl_uint));
  expect_rejected("write-only offsets", "CL_MEM_WRITE_ONLY", all,
                  [&] { clscan::inclusive_segmented<cl_int>(q, in, out, n, write_only, 3); });
  CHECK(read_buffer<cl_int>(out, n) == std::vector<cl_int>(n, poison_value<cl_int>()));
}

using clscan_test::robustness::settled_reference_count;
using clscan_test::robustness::wait_at_most;

TEST_CASE("segmented: no call keeps a caller's buffer referenced once its commands have ended",
          "[segmented][references]") {
  const environment& e = env();
  for (const std::size_t n : {std::size_t{1000}, std::size_t{70'000}}) {
    const std::vector<cl_int> values = make_values<cl_int>(n, data_seed + 10);
    const std::vector<cl_uint> offsets = make_offsets<cl_uint>(shape::random_long, n);
    for (call_kind kind : {call_kind::inclusive, call_kind::exclusive, call_kind::reduce})
      for (algorithm algo : {algorithm::automatic, algorithm::three_stage}) {
        INFO(call_name(kind) << ", " << clscan::to_string(algo) << ", n = " << n << " on " << e.device_name);
        const cl::Buffer in = make_buffer(values), out = make_buffer(values), o = make_buffer(offsets);
        clscan::segmented_options<cl_int> opts;
        opts.algorithm = algo;
        const std::size_t segments = offsets.size() - 1;
        cl::Event done = kind == call_kind::inclusive
                             ? clscan::inclusive_segmented<cl_int>(e.queue, in, out, n, o, segments, opts)
                         : kind == call_kind::exclusive
                             ? clscan::exclusive_segmented<cl_int>(e.queue, in, out, n, o, segments, opts)
                             : clscan::reduce_segmented<cl_int>(e.queue, in, out, n, o, segments, opts);
        REQUIRE(done.wait() == CL_SUCCESS);
        done = cl::Event();
        REQUIRE(e.queue.finish() == CL_SUCCESS);
        for (const cl::Buffer* b : {&in, &out, &o})
          CHECK(settled_reference_count(*b) == 1);
      }
  }
}

// A user event fails after the call (and after a second call that waits for the first one's event):
// both calls' events report a failure, neither writes its output, and the same calls afterwards are
// exact: the head flags of the failed calls were never set (each command waits for the one before), and
// their storage is given up.
TEST_CASE("segmented: a wait list that fails after the call reaches every pass, and later calls are exact",
          "[segmented][failed-wait-calls]") {
  const environment& e = env();
  const std::size_t n = 600'000; // several of a CPU's tiles
  const cl::Context context(e.device);
  const cl::CommandQueue queue(context, e.device);
  const std::vector<cl_int> values = make_values<cl_int>(n, data_seed + 11);
  const std::vector<cl_uint> offsets = make_offsets<cl_uint>(shape::random_long, n);
  const std::size_t segments = offsets.size() - 1;
  const auto buffer_of = [&](const auto& data) {
    using T = typename std::decay_t<decltype(data)>::value_type;
    cl::Buffer b(context, CL_MEM_READ_WRITE, data.size() * sizeof(T));
    REQUIRE(queue.enqueueWriteBuffer(b, CL_TRUE, 0, data.size() * sizeof(T), data.data()) == CL_SUCCESS);
    return b;
  };
  const operation<cl_int> sum;
  const cl::Buffer in = buffer_of(values), o = buffer_of(offsets);
  const std::vector<cl_int> poison(n, poison_value<cl_int>());
  for (call_kind kind : {call_kind::inclusive, call_kind::reduce})
    for (algorithm algo : {algorithm::automatic, algorithm::three_stage}) {
      CAPTURE(call_name(kind), clscan::to_string(algo));
      const std::vector<cl_int> expected =
          kind == call_kind::reduce ? reference_reduce(values, offsets, sum, std::optional<cl_int>())
                                    : reference_scan(kind, values, offsets, sum, std::optional<cl_int>());
      const auto call = [&](const cl::Buffer& out, std::vector<cl::Event> waits) {
        clscan::segmented_options<cl_int> opts;
        opts.algorithm = algo;
        opts.wait_list = std::move(waits);
        return kind == call_kind::reduce
                   ? clscan::reduce_segmented<cl_int>(queue, in, out, n, o, segments, opts)
                   : clscan::inclusive_segmented<cl_int>(queue, in, out, n, o, segments, opts);
      };
      const cl::Buffer first = buffer_of(poison), second = buffer_of(poison);
      cl::UserEvent gate(context);
      const cl::Event failed = call(first, {gate});
      const cl::Event chained = call(second, {failed});
      queue.flush();
      REQUIRE(gate.setStatus(-1) == CL_SUCCESS);
      CHECK(wait_at_most(failed, 60) < 0);
      CHECK(wait_at_most(chained, 60) < 0);
      for (const cl::Buffer* out : {&first, &second}) {
        std::vector<cl_int> got(n);
        REQUIRE(queue.enqueueReadBuffer(*out, CL_TRUE, 0, n * sizeof(cl_int), got.data()) == CL_SUCCESS);
        CHECK(got == poison);
      }
      const cl::Event done = call(first, {});
      queue.flush();
      REQUIRE(wait_at_most(done, 60) == CL_COMPLETE);
      std::vector<cl_int> got(expected.size());
      REQUIRE(queue.enqueueReadBuffer(first, CL_TRUE, 0, got.size() * sizeof(cl_int), got.data()) ==
              CL_SUCCESS);
      CHECK(got == expected);
    }
}
