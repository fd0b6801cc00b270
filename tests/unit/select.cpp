// Stream compaction (select_if, select_flagged, partition_if, unique) and segmented scans
// (inclusive_by_key, exclusive_by_key), compared exactly against the standard library and a sequential
// reference: every element type, both ways of chaining tiles (the look-back and totals scanned
// beforehand), sizes around the device's tile, selections of none, all, half, alternating and only the
// last element, runs and segments that straddle tiles, offsets, and guard elements (poisoned) around
// every output, so that an element written where it must not be shows.
#include "support/guarded.hpp"

#include <common/reference.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace clscan_test;
using namespace clscan_test::guarded;
using clscan::algorithm;
using clscan::scan_kind;

namespace {

constexpr std::uint64_t data_seed = 0x2026'1122'5e1eull;
constexpr std::size_t guard = 3;           // poisoned elements before and after every output range
constexpr std::size_t large_size = 20'000; // sizes above run fewer patterns

template <typename T> bool device_supports() {
  // As clscan sees the device (CLSCAN_DEVICE_LIMITS may take fp64 away).
  return !std::is_same_v<T, cl_double> || clscan::capabilities(env().device).fp64;
}

// Elements per tile of the single-pass shape for T on this device, at large and small sizes.
// Sizes around the tiles of both shapes; with `all_sizes` false, only those up to large_size (the
// tile-spanning cases of a CPU's long runs are then left to the types that run them all). With
// `all_sizes`, on GPUs also the last size of the small-input class (`by_key`: scans by key's own
// limit) and sizes past it, which run the large-input shape.
template <typename T> std::vector<std::size_t> interesting_sizes(bool all_sizes, bool by_key) {
  const clscan::dispatch_plan plan = clscan::plan_for(env().device, clscan::element_traits<T>::type);
  std::vector<std::size_t> sizes = {1, 2, 3, 17};
  for (const clscan::tuning& shape : {plan.single_pass, plan.single_pass_small}) {
    const std::size_t tile = shape.work_group_size * std::min<std::size_t>(shape.items_per_thread, 64);
    for (std::size_t t : {tile - 1, tile, tile + 1, 2 * tile + 3})
      if (t > 0 && t <= (std::size_t{1} << 20) && (all_sizes || t <= large_size)) sizes.push_back(t);
  }
  if (all_sizes) sizes.push_back(100'003);
  const std::size_t class_limit =
      (by_key ? plan.by_key_small_input_bytes : plan.small_input_bytes) / sizeof(T);
  if (all_sizes && class_limit) {
    const std::size_t large_tile =
        plan.single_pass.work_group_size * std::min<std::size_t>(plan.single_pass.items_per_thread, 64);
    for (std::size_t t : {class_limit, class_limit + 1, class_limit + large_tile + 1})
      sizes.push_back(t);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// The algorithms the selection and by-key suites run: automatic and three_stage, or those named in
// CLSCAN_TEST_ALGORITHMS. A run whose subject is the single-pass path alone (the fixed tree on rusticl,
// tests/cmake/rusticl.cmake) names automatic: three_stage would repeat what another run of the same
// suite checks.
std::vector<algorithm> suite_algorithms() {
  return clscan_test::algorithms_under_test({algorithm::automatic, algorithm::three_stage});
}

enum class pattern { none, all, half_random, alternating, last_only };
const char* pattern_name(pattern p) {
  switch (p) {
  case pattern::none: return "none selected";
  case pattern::all: return "all selected";
  case pattern::half_random: return "half, at random";
  case pattern::alternating: return "alternating";
  case pattern::last_only: return "only the last";
  }
  return "?";
}

bool chosen(pattern p, std::size_t i, std::size_t n, clscan_reference::splitmix64& r) {
  switch (p) {
  case pattern::none: return false;
  case pattern::all: return true;
  case pattern::half_random: return (r.next() >> 40) & 1;
  case pattern::alternating: return i % 2 == 1;
  case pattern::last_only: return i + 1 == n;
  }
  return false;
}

// Data whose "x > 0" is the pattern (small integers, exact in every type), and the pattern as flags.
template <typename T>
void make_selection(pattern p, std::size_t n, std::vector<T>& data, std::vector<cl_uchar>& flags) {
  clscan_reference::splitmix64 r{data_seed ^ n ^ (static_cast<std::uint64_t>(p) << 32)};
  data.resize(n);
  flags.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool keep = chosen(p, i, n, r);
    const auto magnitude = static_cast<long long>(1 + r.next() % 1000);
    if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>)
      data[i] = static_cast<T>(keep ? magnitude : -magnitude + 1); // -999 .. 0 when not kept
    else
      data[i] = static_cast<T>(keep ? magnitude : 0);
    flags[i] = keep ? static_cast<cl_uchar>(1 + r.next() % 255) : 0;
  }
}

// Runs of equal values of random lengths (1 .. 2 * max_run), values that repeat after a different one.
template <typename T> std::vector<T> make_runs(std::size_t n, std::size_t max_run, std::uint64_t seed) {
  clscan_reference::splitmix64 r{seed ^ n};
  std::vector<T> data(n);
  for (std::size_t i = 0; i < n;) {
    const std::size_t run = 1 + r.next() % (2 * max_run);
    const T value = static_cast<T>(r.next() % 3); // few distinct values: equal runs meet often
    for (std::size_t j = 0; j < run && i < n; ++j)
      data[i++] = value;
  }
  return data;
}

enum class selection_call { select_if, select_flagged, partition_if, unique };

// `call` on the suite's queue (flags: select_flagged's, unused by the others).
template <typename T>
cl::Event enqueue_selection(selection_call call, const cl::Buffer& in, const cl::Buffer& flags,
                            const cl::Buffer& out, const cl::Buffer& count, std::size_t n,
                            const clscan::select_options<T>& opts) {
  switch (call) {
  case selection_call::select_if: return clscan::select_if(env().queue, in, out, count, n, opts);
  case selection_call::select_flagged:
    return clscan::select_flagged(env().queue, in, flags, out, count, n, opts);
  case selection_call::partition_if: return clscan::partition_if(env().queue, in, out, count, n, opts);
  case selection_call::unique: return clscan::unique(env().queue, in, out, count, n, opts);
  }
  return {};
}

// One call with poisoned guards around the output and the count; checks the output, the count, the
// guards, and that no element of `out` past the count was written (the partition writes them all).
template <typename T>
void check_selection(selection_call call, const std::vector<T>& in, const std::vector<cl_uchar>& flags,
                     algorithm algo) {
  const std::size_t n = in.size();
  clscan::select_options<T> opts;
  opts.algorithm = algo;
  opts.in_offset = 1;
  opts.out_offset = guard;
  opts.count_offset = 2;
  opts.flags_offset = 5;
  if (call == selection_call::select_if || call == selection_call::partition_if) opts.predicate = "x > 0";

  std::vector<T> expected;
  switch (call) {
  case selection_call::select_if:
    std::copy_if(in.begin(), in.end(), std::back_inserter(expected), [](T x) { return x > 0; });
    break;
  case selection_call::select_flagged:
    for (std::size_t i = 0; i < n; ++i)
      if (flags[i]) expected.push_back(in[i]);
    break;
  case selection_call::partition_if:
    expected = in;
    std::stable_partition(expected.begin(), expected.end(), [](T x) { return x > 0; });
    break;
  case selection_call::unique: std::unique_copy(in.begin(), in.end(), std::back_inserter(expected)); break;
  }
  const std::size_t expected_count =
      call == selection_call::partition_if
          ? static_cast<std::size_t>(std::count_if(in.begin(), in.end(), [](T x) { return x > 0; }))
          : expected.size();

  std::vector<T> in_image(n + 1, poison_value<T>());
  std::copy(in.begin(), in.end(), in_image.begin() + 1);
  std::vector<cl_uchar> flags_image(n + 5, 0xA5);
  std::copy(flags.begin(), flags.end(), flags_image.begin() + 5);
  const cl::Buffer in_buffer = make_buffer(in_image);
  const cl::Buffer flags_buffer = make_buffer(flags_image);
  const cl::Buffer out_buffer = make_buffer(std::vector<T>(guard + n + guard, poison_value<T>()));
  const cl::Buffer count_buffer = make_buffer(std::vector<cl_ulong>(4, poison_value<cl_ulong>()));

  const cl::Event done = enqueue_selection(call, in_buffer, flags_buffer, out_buffer, count_buffer, n, opts);
  REQUIRE(done.wait() == CL_SUCCESS);
  const std::vector<T> out = read_buffer<T>(out_buffer, guard + n + guard);
  const std::vector<cl_ulong> counts = read_buffer<cl_ulong>(count_buffer, 4);
  CHECK(counts[2] == expected_count);
  CHECK(same_bits(counts[1], poison_value<cl_ulong>()));
  CHECK(same_bits(counts[3], poison_value<cl_ulong>()));
  check_exact("output", out, guard, expected);
  check_guards("output", out, guard, expected.size());
  CHECK(read_buffer<T>(in_buffer, n + 1) == in_image);
}

// all_sizes: also the sizes of several CPU tiles. A selection's tiles carry a ulong count whatever
// T is, so those run for one 4-byte and one 8-byte type; every type runs the rest.
template <typename T> void selection_suite(bool all_sizes) {
  if (!device_supports<T>()) {
    WARN("skipped for " << clscan::opencl_name(clscan::element_traits<T>::type) << ": no fp64");
    return;
  }
  for (algorithm algo : suite_algorithms()) {
    for (std::size_t n : interesting_sizes<T>(all_sizes, false)) {
      // Every selection pattern on the small sizes; on the large ones (several tiles of a CPU's long
      // runs), the random half and the last element only, which keeps the suite short on llvmpipe.
      const bool large = n > large_size;
      for (pattern p :
           {pattern::none, pattern::all, pattern::half_random, pattern::alternating, pattern::last_only}) {
        if (large && p != pattern::half_random && p != pattern::last_only) continue;
        CAPTURE(clscan::to_string(algo), n, pattern_name(p));
        std::vector<T> data;
        std::vector<cl_uchar> flags;
        make_selection(p, n, data, flags);
        check_selection(selection_call::select_if, data, flags, algo);
        check_selection(selection_call::select_flagged, data, flags, algo);
        check_selection(selection_call::partition_if, data, flags, algo);
      }
      for (std::size_t max_run : {std::size_t{1}, std::size_t{40}, n}) {
        if (large && max_run != 40) continue;
        CAPTURE(clscan::to_string(algo), n, max_run);
        check_selection(selection_call::unique, make_runs<T>(n, max_run, data_seed), {}, algo);
      }
    }
  }
}

template <typename K, typename T>
void check_by_key(scan_kind kind, const std::vector<K>& keys, const std::vector<T>& in,
                  const clscan::options<T>& opts, bool in_place) {
  const std::size_t n = in.size();
  const std::vector<T> expected = clscan_reference::scan_by_key(keys, in, kind, opts.operation, opts.initial);
  std::vector<K> keys_image(opts.in_offset + n);
  std::copy(keys.begin(), keys.end(), keys_image.begin() + static_cast<std::ptrdiff_t>(opts.in_offset));
  std::vector<T> in_image(opts.in_offset + n + guard, poison_value<T>());
  std::copy(in.begin(), in.end(), in_image.begin() + static_cast<std::ptrdiff_t>(opts.in_offset));
  const cl::Buffer keys_buffer = make_buffer(keys_image);
  const cl::Buffer in_buffer = make_buffer(in_image);
  const cl::Buffer out_buffer =
      in_place ? in_buffer : make_buffer(std::vector<T>(opts.out_offset + n + guard, poison_value<T>()));
  cl::Event done =
      kind == scan_kind::inclusive
          ? clscan::inclusive_by_key<K, T>(env().queue, keys_buffer, in_buffer, out_buffer, n, opts)
          : clscan::exclusive_by_key<K, T>(env().queue, keys_buffer, in_buffer, out_buffer, n, opts);
  REQUIRE(done.wait() == CL_SUCCESS);
  const std::vector<T> out = read_buffer<T>(out_buffer, opts.out_offset + n + guard);
  check_exact("output", out, opts.out_offset, expected);
  check_guards("output", out, opts.out_offset, n);
  if (!in_place) CHECK(read_buffer<T>(in_buffer, in_image.size()) == in_image);
}

// all_sizes as for selection_suite: a by-key tile carries a value of T and a flag.
template <typename K, typename T> void by_key_suite(bool all_sizes) {
  if (!device_supports<T>() || !device_supports<K>()) {
    WARN("skipped: no fp64");
    return;
  }
  for (algorithm algo : suite_algorithms()) {
    for (std::size_t n : interesting_sizes<T>(all_sizes, true)) {
      // Segments of length 1, short random ones, long ones that straddle tiles, and one of everything.
      for (std::size_t max_run : {std::size_t{0}, std::size_t{4}, std::size_t{700}, n}) {
        if (n > large_size && (max_run == 0 || max_run == 4)) continue;
        CAPTURE(clscan::to_string(algo), n, max_run);
        std::vector<K> keys(n);
        if (max_run == 0)
          for (std::size_t i = 0; i < n; ++i)
            keys[i] = static_cast<K>(i % 2);
        else
          keys = make_runs<K>(n, max_run, data_seed + 1);
        if (max_run == n) std::fill(keys.begin(), keys.end(), K{7});
        std::vector<T> values(n);
        clscan_reference::splitmix64 r{data_seed ^ n};
        for (auto& x : values)
          x = static_cast<T>(r.next() % 100);
        clscan::options<T> opts;
        opts.algorithm = algo;
        opts.out_offset = guard;
        check_by_key(scan_kind::inclusive, keys, values, opts, false);
        check_by_key(scan_kind::exclusive, keys, values, opts, false);
        opts.in_offset = guard;
        opts.initial = T{5};
        check_by_key(scan_kind::inclusive, keys, values, opts, true);
        opts.operation = clscan::op::max;
        check_by_key(scan_kind::exclusive, keys, values, opts, false);
        // Into the values buffer (in place), as the scans run in place: each tile overwrites its own
        // values only once it has its prefix.
        check_by_key(scan_kind::exclusive, keys, values, opts, true);
      }
    }
  }
}

} // namespace

// Segments across the device's own single-pass tiles, uncapped (a CPU's runs are a MiB, which
// interesting_sizes leaves out): a run's pair is taken from its last segment start, searched from the
// end backwards, so runs with none, with one at either end and with many must all carry the right pair.
// Float values (small integers: exact sums in any order) take CPUs' vector path through a run.
template <typename T> void check_segments_across_tiles() {
  const clscan::dispatch_plan plan = clscan::plan_for(env().device, clscan::element_traits<T>::type);
  const std::size_t tile = plan.single_pass.work_group_size * plan.single_pass.items_per_thread;
  const std::size_t n = 3 * tile + 5;
  CAPTURE(tile, n);
  for (const std::size_t leading : {std::size_t{1}, tile - 1, tile + 1, 2 * tile + 1, n}) {
    // A leading segment of `leading` elements, then segments of 1 to 39 elements.
    std::vector<cl_int> keys(n);
    const std::vector<cl_int> tail = make_runs<cl_int>(n, 20, data_seed + leading);
    cl_int key = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i >= leading && (i == leading || tail[i] != tail[i - 1])) ++key;
      keys[i] = key;
    }
    std::vector<T> values(n);
    clscan_reference::splitmix64 r{data_seed ^ leading};
    for (auto& x : values)
      x = static_cast<T>(r.next() % 16);
    CAPTURE(leading);
    clscan::options<T> opts;
    check_by_key(scan_kind::inclusive, keys, values, opts, false);
    check_by_key(scan_kind::exclusive, keys, values, opts, false);
    opts.operation = clscan::op::max;
    opts.initial = T(3);
    check_by_key(scan_kind::inclusive, keys, values, opts, false);
    check_by_key(scan_kind::exclusive, keys, values, opts, false);
  }
}

TEST_CASE("by_key: segments that span the device's single-pass tiles", "[by_key]") {
  check_segments_across_tiles<cl_int>();
  check_segments_across_tiles<cl_float>();
}

TEST_CASE("select: select_if, select_flagged, partition_if and unique match the standard library",
          "[select]") {
  selection_suite<cl_int>(true);
  selection_suite<cl_uint>(false);
  selection_suite<cl_long>(false);
  selection_suite<cl_ulong>(true);
  selection_suite<cl_float>(false);
  selection_suite<cl_double>(false);
}

TEST_CASE("select: n == 0 writes a zero count and nothing else", "[select]") {
  const cl::Buffer in = make_buffer(std::vector<cl_int>(4, 1));
  const cl::Buffer out = make_buffer(std::vector<cl_int>(4, poison_value<cl_int>()));
  const cl::Buffer count = make_buffer(std::vector<cl_ulong>(2, poison_value<cl_ulong>()));
  clscan::select_options<cl_int> opts;
  opts.predicate = "x > 0";
  opts.count_offset = 1;
  REQUIRE(clscan::select_if(env().queue, in, out, count, 0, opts).wait() == CL_SUCCESS);
  const std::vector<cl_ulong> counts = read_buffer<cl_ulong>(count, 2);
  CHECK(counts[1] == 0);
  CHECK(same_bits(counts[0], poison_value<cl_ulong>()));
  check_guards("output", read_buffer<cl_int>(out, 4), 0, 0);
}

TEST_CASE("select: the predicate sees the element's index i", "[select]") {
  const std::size_t n = 5000;
  std::vector<cl_int> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<cl_int>(i % 7);
  std::vector<cl_int> expected;
  for (std::size_t i = 0; i < n; ++i)
    if ((i & 1) == 0 && data[i] != 0) expected.push_back(data[i]);
  const cl::Buffer in = make_buffer(data);
  const cl::Buffer out = make_buffer(std::vector<cl_int>(n, poison_value<cl_int>()));
  const cl::Buffer count = make_buffer(std::vector<cl_ulong>(1, 0));
  clscan::select_options<cl_int> opts;
  opts.predicate = "(i & 1) == 0 && x != 0";
  REQUIRE(clscan::select_if(env().queue, in, out, count, n, opts).wait() == CL_SUCCESS);
  CHECK(read_buffer<cl_ulong>(count, 1)[0] == expected.size());
  check_exact("output", read_buffer<cl_int>(out, n), 0, expected);
}

TEST_CASE("by_key: inclusive and exclusive scans by key match a sequential reference", "[by_key]") {
  by_key_suite<cl_int, cl_int>(true);
  by_key_suite<cl_long, cl_uint>(false);
  by_key_suite<cl_uint, cl_long>(true);
  by_key_suite<cl_int, cl_ulong>(false);
  by_key_suite<cl_float, cl_float>(false);
  by_key_suite<cl_double, cl_double>(false);
}

namespace {

// Expects `call` to throw E whose message contains `needle`, with the output and count untouched.
template <typename E, typename Call>
void expect_rejected(const char* what, const std::string& needle, const cl::Buffer& out,
                     const cl::Buffer& count, Call call) {
  INFO(what);
  bool thrown = false;
  try {
    call();
  } catch (const E& e) {
    thrown = true;
    INFO("message: " << e.what());
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
  CHECK(thrown);
  REQUIRE(env().queue.finish() == CL_SUCCESS);
  check_guards("output", read_buffer<cl_int>(out, 64), 0, 0);
  check_guards("count", read_buffer<cl_ulong>(count, 2), 0, 0);
}

} // namespace

TEST_CASE("select: bad arguments throw before anything is enqueued, and leave the buffers as they were",
          "[select]") {
  std::vector<cl_int> data(64);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<cl_int>(i % 5) - 2;
  const cl::Buffer in = make_buffer(data);
  const cl::Buffer out = make_buffer(std::vector<cl_int>(64, poison_value<cl_int>()));
  const cl::Buffer count = make_buffer(std::vector<cl_ulong>(2, poison_value<cl_ulong>()));
  const cl::Buffer flags = make_buffer(std::vector<cl_uchar>(10, 1));
  const cl::Buffer keys = make_buffer(std::vector<cl_int>(10, 1));
  const auto& q = env().queue;
  clscan::select_options<cl_int> good;
  good.predicate = "x > 0";

  expect_rejected<clscan::invalid_argument>("empty predicate", "predicate is empty", out, count,
                                            [&] { clscan::select_if<cl_int>(q, in, out, count, 64, {}); });
  clscan::select_options<cl_int> with_predicate = good;
  expect_rejected<clscan::invalid_argument>("unique with a predicate", "must be empty", out, count, [&] {
    clscan::unique<cl_int>(q, in, out, count, 64, with_predicate);
  });
  // In place is the same range; a range of the same buffer that starts elsewhere overlaps it.
  clscan::select_options<cl_int> shifted = good;
  shifted.out_offset = 1;
  expect_rejected<clscan::invalid_argument>(
      "partly in place", "overlap without being the same range", out, count,
      [&] { clscan::select_if<cl_int>(q, out, out, count, 63, shifted); });
  // A capacity the output buffer does not hold is named in the message.
  clscan::select_options<cl_int> too_large = good;
  too_large.out_capacity = 65;
  expect_rejected<clscan::invalid_argument>(
      "capacity past the output", "fewer than offset 0 + select_options::out_capacity 65", out, count,
      [&] { clscan::select_if<cl_int>(q, in, out, count, 64, too_large); });
  too_large.out_capacity = 60;
  too_large.out_offset = 5;
  expect_rejected<clscan::invalid_argument>(
      "capacity past the output at an offset", "fewer than offset 5 + select_options::out_capacity 60", out,
      count, [&] { clscan::unique<cl_int>(q, in, out, count, 64, too_large); });
  clscan::select_options<cl_int> far_count = good;
  far_count.count_offset = 2;
  // The count's one element is not the caller's n: the message does not call it n.
  expect_rejected<clscan::invalid_argument>(
      "count past its buffer", "fewer than offset 2 + 1, the elements the call uses there", out, count,
      [&] { clscan::select_if<cl_int>(q, in, out, count, 64, far_count); });
  expect_rejected<clscan::invalid_argument>("null count", "count buffer is null", out, count, [&] {
    clscan::select_if<cl_int>(q, in, out, cl::Buffer(), 64, good);
  });
  expect_rejected<clscan::invalid_argument>("short flags", "flags", out, count, [&] {
    clscan::select_flagged<cl_int>(q, in, flags, out, count, 64);
  });
  clscan::select_options<cl_int> nul = good;
  nul.predicate = std::string("x > 0\0", 6);
  expect_rejected<clscan::invalid_argument>("NUL in the predicate", "NUL", out, count,
                                            [&] { clscan::select_if<cl_int>(q, in, out, count, 64, nul); });
  clscan::select_options<cl_int> forced = good;
  forced.algorithm = algorithm::single_pass;
  expect_rejected<clscan::invalid_argument>("partition_if on the look-back", "partition_if", out, count, [&] {
    clscan::partition_if<cl_int>(q, in, out, count, 64, forced);
  });
  // Whatever n: with nothing to select, the call is as invalid as with elements.
  expect_rejected<clscan::invalid_argument>(
      "partition_if on the look-back, n = 0", "partition_if", out, count,
      [&] { clscan::partition_if<cl_int>(q, in, out, count, 0, forced); });
  expect_rejected<clscan::invalid_argument>("short keys", "keys", out, count, [&] {
    clscan::inclusive_by_key<cl_int, cl_int>(q, keys, in, out, 64);
  });
  // The keys as the output are refused, and the message says what to do instead.
  expect_rejected<clscan::invalid_argument>(
      "keys overlapping the output", "values buffer (in place)", out, count,
      [&] { clscan::inclusive_by_key<cl_int, cl_int>(q, out, in, out, 64); });

  clscan::select_options<cl_int> broken = good;
  broken.predicate = "x >> no_such_name";
  bool built = true;
  try {
    clscan::select_if<cl_int>(q, in, out, count, 64, broken);
  } catch (const clscan::build_error& e) {
    built = false;
    INFO("build log: " << e.build_log());
    CHECK(e.build_log().find("no_such_name") != std::string::npos);
  }
  CHECK_FALSE(built);
  REQUIRE(q.finish() == CL_SUCCESS);
  check_guards("output", read_buffer<cl_int>(out, 64), 0, 0);
  check_guards("count", read_buffer<cl_ulong>(count, 2), 0, 0);
  CHECK(read_buffer<cl_int>(in, 64) == data);
}

TEST_CASE("select: a count that overlaps select_flagged's flags is rejected, one beside them is not",
          "[select]") {
  // The count is written while every tile reads the flags: through one handle or a sub-buffer of the
  // same memory, the flags would change under the selection.
  const auto& q = env().queue;
  const std::size_t n = 64;
  std::vector<cl_int> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<cl_int>(i) - 20;
  const cl::Buffer in = make_buffer(data);
  const cl::Buffer out = make_buffer(std::vector<cl_int>(n, poison_value<cl_int>()));
  const cl::Buffer count = make_buffer(std::vector<cl_ulong>(2, poison_value<cl_ulong>()));
  cl_uint base_bits = 0;
  REQUIRE(clGetDeviceInfo(env().device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof base_bits, &base_bits,
                          nullptr) == CL_SUCCESS);
  const std::size_t align = std::max<std::size_t>(base_bits / 8, sizeof(cl_ulong));
  // Flags at the front (every other element selected), a sub-buffer's origin past them, and room for
  // a count beside the sub-buffer's flags.
  const std::size_t base = (n + align - 1) / align * align;
  std::vector<cl_uchar> flag_bytes(base + n + 32, 0);
  for (std::size_t i = 0; i < n; ++i)
    flag_bytes[i] = static_cast<cl_uchar>(i % 2);
  cl::Buffer shared = make_buffer(flag_bytes);
  clscan::select_options<cl_int> at;
  for (const std::size_t count_offset : {std::size_t{0}, std::size_t{3}, n / 8 - 1}) {
    at.count_offset = count_offset;
    INFO("count at element " << count_offset << " of the flags' buffer");
    expect_rejected<clscan::invalid_argument>(
        "count over the flags, one handle", "count overlaps the flags", out, count,
        [&] { clscan::select_flagged<cl_int>(q, in, shared, out, shared, n, at); });
  }
  // The flags as a sub-buffer that starts `base` bytes into the buffer holding the count.
  cl_buffer_region region{base, n};
  cl_int status = CL_SUCCESS;
  const cl::Buffer flags_view =
      shared.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
  REQUIRE(status == CL_SUCCESS);
  REQUIRE(q.enqueueWriteBuffer(flags_view, CL_TRUE, 0, n, flag_bytes.data()) == CL_SUCCESS);
  at.count_offset = base / sizeof(cl_ulong) + 1;
  expect_rejected<clscan::invalid_argument>(
      "count in a sub-buffer's flags", "count overlaps the flags", out, count,
      [&] { clscan::select_flagged<cl_int>(q, in, flags_view, out, shared, n, at); });
  std::vector<cl_uchar> expected_bytes = flag_bytes;
  std::copy(flag_bytes.begin(), flag_bytes.begin() + static_cast<std::ptrdiff_t>(n),
            expected_bytes.begin() + static_cast<std::ptrdiff_t>(base));
  CHECK(read_buffer<cl_uchar>(shared, flag_bytes.size()) == expected_bytes);

  // Beside the flags, in the same buffer, the count is allowed, and right.
  at.count_offset = (base + n) / sizeof(cl_ulong) + 1;
  REQUIRE(clscan::select_flagged<cl_int>(q, in, shared, out, shared, n, at).wait() == CL_SUCCESS);
  const std::vector<cl_ulong> words = read_buffer<cl_ulong>(shared, at.count_offset + 1);
  CHECK(words[at.count_offset] == n / 2);
  const std::vector<cl_int> got = read_buffer<cl_int>(out, n / 2);
  for (std::size_t i = 0; i < n / 2; ++i)
    CHECK(got[i] == data[2 * i + 1]);
}

namespace {

// The selections' expected output (select_if and partition_if "x > 0", select_flagged, unique), for the
// bounded cases.
template <typename T>
std::vector<T> expected_selection(selection_call call, const std::vector<T>& in,
                                  const std::vector<cl_uchar>& flags) {
  std::vector<T> expected;
  switch (call) {
  case selection_call::select_if:
    std::copy_if(in.begin(), in.end(), std::back_inserter(expected), [](T x) { return x > 0; });
    break;
  case selection_call::select_flagged:
    for (std::size_t i = 0; i < in.size(); ++i)
      if (flags[i]) expected.push_back(in[i]);
    break;
  case selection_call::partition_if:
    expected = in;
    std::stable_partition(expected.begin(), expected.end(), [](T x) { return x > 0; });
    break;
  case selection_call::unique: std::unique_copy(in.begin(), in.end(), std::back_inserter(expected)); break;
  }
  return expected;
}

// The count a selection reports: its output's length, but partition_if's selected elements only.
template <typename T>
std::size_t expected_count(selection_call call, const std::vector<T>& in,
                           const std::vector<cl_uchar>& flags) {
  if (call == selection_call::partition_if)
    return static_cast<std::size_t>(std::count_if(in.begin(), in.end(), [](T x) { return x > 0; }));
  return expected_selection(call, in, flags).size();
}

const char* selection_name(selection_call call) {
  switch (call) {
  case selection_call::select_if: return "select_if";
  case selection_call::select_flagged: return "select_flagged";
  case selection_call::partition_if: return "partition_if";
  case selection_call::unique: return "unique";
  }
  return "?";
}

// One selection into an output bounded by `capacity` (select_options::out_capacity; none: n), either a
// buffer of its own holding the capacity and poisoned past it, or in place (the input's own buffer
// and offset). The count reports every selected element; out[0, min(count, capacity)) holds the first
// of them (partition_if: the first min(n, capacity) of its n); every other element of the output's
// buffer is as it was (poison, or in place the input).
template <typename T>
void check_bounded(selection_call call, const std::vector<T>& in, const std::vector<cl_uchar>& flags,
                   algorithm algo, std::optional<std::size_t> capacity, bool in_place) {
  const std::size_t n = in.size();
  CAPTURE(selection_name(call), capacity.value_or(n), in_place);
  std::vector<T> expected = expected_selection(call, in, flags);
  const std::size_t selected = expected_count(call, in, flags);
  expected.resize(std::min(capacity.value_or(n), expected.size()));

  // The offsets of check_selection, whose programs (built for the addresses' alignment) this reuses.
  clscan::select_options<T> opts;
  opts.algorithm = algo;
  opts.out_capacity = capacity;
  opts.in_offset = 1;
  opts.out_offset = in_place ? 1 : guard;
  opts.count_offset = 2;
  opts.flags_offset = 5;
  if (call == selection_call::select_if || call == selection_call::partition_if) opts.predicate = "x > 0";

  std::vector<T> in_image(1 + n + guard, poison_value<T>());
  std::copy(in.begin(), in.end(), in_image.begin() + 1);
  std::vector<cl_uchar> flags_image(5 + n, 0xA5);
  std::copy(flags.begin(), flags.end(), flags_image.begin() + 5);
  const cl::Buffer in_buffer = make_buffer(in_image);
  const cl::Buffer flags_buffer = make_buffer(flags_image);
  // Poison past the capacity, a few elements more than the output may hold.
  const std::vector<T> out_image =
      in_place ? in_image : std::vector<T>(guard + capacity.value_or(n) + guard, poison_value<T>());
  const cl::Buffer out_buffer = in_place ? in_buffer : make_buffer(out_image);
  const cl::Buffer count_buffer = make_buffer(std::vector<cl_ulong>(4, poison_value<cl_ulong>()));
  const cl::Event done = enqueue_selection(call, in_buffer, flags_buffer, out_buffer, count_buffer, n, opts);
  REQUIRE(done.wait() == CL_SUCCESS);
  const std::vector<cl_ulong> counts = read_buffer<cl_ulong>(count_buffer, 4);
  CHECK(counts[2] == selected);
  CHECK(same_bits(counts[1], poison_value<cl_ulong>()));
  CHECK(same_bits(counts[3], poison_value<cl_ulong>()));
  const std::vector<T> out = read_buffer<T>(out_buffer, out_image.size());
  check_exact("output", out, opts.out_offset, expected);
  std::size_t changed = 0, first_changed = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i >= opts.out_offset && i < opts.out_offset + expected.size()) continue;
    if (!same_bits(out[i], out_image[i]) && changed++ == 0) first_changed = i;
  }
  INFO("elements written outside the first min(count, capacity) of the output: "
       << changed << ", the first at " << first_changed);
  CHECK(changed == 0);
  if (!in_place) CHECK(read_buffer<T>(in_buffer, in_image.size()) == in_image);
}

// Sizes around both shapes' tiles; capacities of none, fewer than the selected elements (cutting a
// tile's output in its middle), one fewer, exactly as many, more (partition_if: cutting its unselected
// elements); and in place with and without one.
template <typename T> void bounded_suite(bool all_sizes) {
  if (!device_supports<T>()) {
    WARN("skipped for " << clscan::opencl_name(clscan::element_traits<T>::type) << ": no fp64");
    return;
  }
  for (algorithm algo : suite_algorithms()) {
    std::vector<std::size_t> sizes = interesting_sizes<T>(false, false);
    if (!all_sizes) sizes = {1, sizes[sizes.size() / 2], sizes.back()};
    for (std::size_t n : sizes) {
      CAPTURE(clscan::to_string(algo), n);
      std::vector<T> data;
      std::vector<cl_uchar> flags;
      make_selection(pattern::half_random, n, data, flags);
      const std::vector<T> runs = make_runs<T>(n, 3, data_seed);
      for (selection_call call : {selection_call::select_if, selection_call::select_flagged,
                                  selection_call::partition_if, selection_call::unique}) {
        const std::vector<T>& in = call == selection_call::unique ? runs : data;
        const std::size_t selected = expected_count(call, in, flags);
        std::vector<std::size_t> capacities = {0, selected / 2, selected, selected + 2};
        if (selected > 0) capacities.push_back(selected - 1);
        std::sort(capacities.begin(), capacities.end());
        capacities.erase(std::unique(capacities.begin(), capacities.end()), capacities.end());
        for (std::size_t capacity : capacities)
          check_bounded(call, in, flags, algo, capacity, false);
        check_bounded(call, in, flags, algo, std::nullopt, true);
        check_bounded(call, in, flags, algo, selected / 2, true);
      }
    }
  }
}

} // namespace

TEST_CASE("select: outputs bounded by out_capacity, and in place, match the standard library",
          "[select][select-bounded]") {
  bounded_suite<cl_int>(true);
  bounded_suite<cl_uint>(false);
  bounded_suite<cl_long>(false);
  bounded_suite<cl_ulong>(true);
  bounded_suite<cl_float>(false);
  bounded_suite<cl_double>(false);
}
