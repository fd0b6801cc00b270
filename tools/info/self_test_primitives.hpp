// clscan-info --self-test beyond the scans: select_if, select_flagged, partition_if and unique of
// every element type the device has (out of place, and in place into half the results' capacity),
// inclusive_by_key / exclusive_by_key over keys of every type, and inclusive_segmented / reduce_segmented
// over the same segments given by offsets, at sizes around the tile these calls run in (one tile less one,
// one more, three and a bit), compared bit for bit with std::copy_if, a loop over the flags,
// std::stable_partition, std::unique_copy and clscan_reference::scan_by_key. Every output lies between
// poisoned guards, and the count between two poisoned slots, so that an element written where it must not be
// shows; the inputs must come back unchanged. Included by self_test.cpp only (a header, so that
// tools/CMakeLists.txt lists no new file).
#pragma once

#include "common/opencl.hpp"
#include "common/reference.hpp"

#include <clscan/clscan.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace clscan_info {

// Progress on stderr once a device's self-test has run a moment (PoCL builds every variant it meets,
// for a minute or more): the check under way, at most one line a second, so that a slow run shows
// what it is doing; stdout keeps the report alone.
struct self_test_progress {
  std::string device; // "<device>, <algorithm>"
  std::chrono::steady_clock::time_point start, last;
};
inline self_test_progress progress;

inline void progress_begin(std::string device) {
  progress.device = std::move(device);
  progress.start = progress.last = std::chrono::steady_clock::now();
}

inline void progress_note(const std::string& what) {
  const auto now = std::chrono::steady_clock::now();
  if (now - progress.start < std::chrono::milliseconds(1500) || now - progress.last < std::chrono::seconds(1))
    return;
  progress.last = now;
  std::fprintf(stderr, "clscan-info: self-test of %s: %s\n", progress.device.c_str(), what.c_str());
}

// Where progress was shown, its last line: the device's verdict, so that stderr does not end on a
// check as if it were still under way.
inline void progress_end(bool passed) {
  if (progress.last == progress.start) return;
  std::fprintf(stderr, "clscan-info: self-test of %s: done, %s\n", progress.device.c_str(),
               passed ? "passed" : "failed");
}

} // namespace clscan_info

namespace clscan_info::primitive_self_test {

// What the checks of one device and algorithm found.
struct report {
  std::size_t checks = 0;
  std::size_t passed = 0;
  std::vector<std::string> failures; // "<call> (<types>), n = <n>: <what was wrong>"
  std::vector<std::string> skipped;
  std::vector<std::pair<std::string, std::vector<std::size_t>>> sizes; // per element type, in type order
  std::string running; // the check under way, named in the report when it throws
};

namespace detail {

constexpr std::size_t guard = 4; // poisoned elements before and after every output range
// Sizes up to three tiles and a bit; a tile tuned far larger than the defaults is not followed past this.
constexpr std::size_t largest_size = std::size_t{1} << 22;

template <typename T> T poison() {
  T value;
  std::memset(&value, 0xA5, sizeof value);
  return value;
}

// The bits of a cl_uchar, a 32-bit or a 64-bit element, as an unsigned integer (comparing those
// compares -0.0 with 0.0, and NaNs, as the bits they are).
template <typename T> auto bits_of(const T& value) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8, "clscan's element types");
  using bits = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
  bits b = 0;
  std::memcpy(&b, &value, sizeof b);
  return b;
}

template <typename T> bool same_bits(const T& a, const T& b) { return bits_of(a) == bits_of(b); }

template <typename T> bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const T& x, const T& y) { return same_bits(x, y); });
}

template <typename T> std::string show(T value) {
  std::ostringstream out;
  if constexpr (std::is_floating_point_v<T>) out << std::setprecision(std::numeric_limits<T>::max_digits10);
  out << +value;
  return out.str();
}

template <typename T> const char* type_name() { return clscan::opencl_name(clscan::element_traits<T>::type); }

struct device_context {
  const cl::Context& context;
  const cl::CommandQueue& queue;
};

template <typename T> cl::Buffer upload(const device_context& dc, const std::vector<T>& image) {
  cl::Buffer buffer =
      clscan_tools::make_buffer(dc.context, std::max<std::size_t>(image.size(), 1) * sizeof(T));
  if (!image.empty())
    clscan_tools::check(
        dc.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, image.size() * sizeof(T), image.data()),
        "clEnqueueWriteBuffer");
  return buffer;
}

template <typename T>
std::vector<T> download(const device_context& dc, const cl::Buffer& buffer, std::size_t n) {
  std::vector<T> contents(n);
  if (n)
    clscan_tools::check(dc.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(T), contents.data()),
                        "clEnqueueReadBuffer");
  return contents;
}

// got[front, front + expected.size()) against `expected` bit for bit, and every other element of `got`
// against the poison: "" when both hold, else the first thing wrong.
template <typename T>
std::string compare_output(const std::vector<T>& got, std::size_t front, const std::vector<T>& expected) {
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!same_bits(got[front + i], expected[i]) && wrong++ == 0) first = i;
  if (wrong)
    return std::to_string(wrong) + " of " + std::to_string(expected.size()) +
           " elements wrong, first at index " + std::to_string(first) + ": expected " +
           show(expected[first]) + ", got " + show(got[front + first]);
  std::size_t damaged = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool inside = i >= front && i < front + expected.size();
    if (!inside && !same_bits(got[i], poison<T>()) && damaged++ == 0) first = i;
  }
  if (damaged)
    return std::to_string(damaged) + " elements written outside the " + std::to_string(expected.size()) +
           " of the result, first at output index " +
           std::to_string(static_cast<long long>(first) - static_cast<long long>(front)) + " (holds " +
           show(got[first]) + ")";
  return {};
}

// --- data ----------------------------------------------------------------------------------------

// Elements whose "x > 0" holds with probability `keep` (small integers: exact in every type), and
// flags drawn the same way on their own.
template <typename T>
void make_selection(std::size_t n, double keep, clscan_reference::splitmix64& r, std::vector<T>& data,
                    std::vector<cl_uchar>& flags) {
  data.resize(n);
  flags.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto magnitude = static_cast<long long>(1 + r.next() % 1000);
    const bool kept = r.unit() < keep;
    if constexpr (std::is_unsigned_v<T>)
      data[i] = static_cast<T>(kept ? magnitude : 0);
    else
      data[i] = static_cast<T>(kept ? magnitude : 1 - magnitude); // -999 .. 0 when not kept
    flags[i] = r.unit() < keep ? static_cast<cl_uchar>(1 + r.next() % 255) : 0;
  }
}

// Runs of equal values: mostly 1 to 8 long, one in eight up to 512, and one in 512 up to `long_run`
// (whole tiles without a run's start), of three values, so that equal runs also meet.
template <typename T>
std::vector<T> make_runs(std::size_t n, std::size_t long_run, clscan_reference::splitmix64& r) {
  std::vector<T> data(n);
  for (std::size_t i = 0; i < n;) {
    const std::uint64_t roll = r.next() % 512;
    const std::size_t run = roll == 0       ? 1 + r.next() % long_run
                            : roll % 8 == 1 ? 1 + r.next() % 512
                                            : 1 + r.next() % 8;
    const T value = static_cast<T>(r.next() % 3);
    for (std::size_t j = 0; j < run && i < n; ++j)
      data[i++] = value;
  }
  return data;
}

// Values to sum by key: any bits for integers (sums wrap); small integers for floating types, small
// enough that no partial sum of n of them passes 2^23, so every order of addition gives the same bits.
template <typename T> std::vector<T> make_values(std::size_t n, clscan_reference::splitmix64& r) {
  std::vector<T> values(n);
  if constexpr (std::is_floating_point_v<T>) {
    const std::uint64_t largest = std::clamp<std::uint64_t>((std::uint64_t{1} << 23) / (n + 8), 1, 15);
    for (T& x : values)
      x = static_cast<T>(r.next() % (largest + 1));
  } else {
    for (T& x : values)
      x = static_cast<T>(r.next());
  }
  return values;
}

// --- the calls -----------------------------------------------------------------------------------

enum class selection { select_if, select_flagged, partition_if, unique };

inline const char* selection_name(selection call) {
  switch (call) {
  case selection::select_if: return "select_if";
  case selection::select_flagged: return "select_flagged";
  case selection::partition_if: return "partition_if";
  case selection::unique: return "unique";
  }
  return "?";
}

// One selection call, its count at count_offset 1: out of place with its output at out_offset `guard`;
// or in place (input and output at offset `guard` of one buffer) with an output capacity of half the
// selected elements, where only that many results may be written and the rest of the input stays.
template <typename T>
std::string check_selection(const device_context& dc, selection call, const std::vector<T>& data,
                            const std::vector<cl_uchar>& flags, clscan::algorithm algo, bool in_place) {
  const std::size_t n = data.size();
  const auto positive = [](T x) { return x > T(0); };
  std::vector<T> expected;
  switch (call) {
  case selection::select_if:
    std::copy_if(data.begin(), data.end(), std::back_inserter(expected), positive);
    break;
  case selection::select_flagged:
    for (std::size_t i = 0; i < n; ++i)
      if (flags[i]) expected.push_back(data[i]);
    break;
  case selection::partition_if:
    expected = data;
    std::stable_partition(expected.begin(), expected.end(), positive);
    break;
  case selection::unique: std::unique_copy(data.begin(), data.end(), std::back_inserter(expected)); break;
  }
  const std::size_t expected_count =
      call == selection::partition_if
          ? static_cast<std::size_t>(std::count_if(data.begin(), data.end(), positive))
          : expected.size();

  clscan::select_options<T> opts;
  opts.algorithm = algo;
  opts.out_offset = guard;
  opts.count_offset = 1;
  if (call == selection::select_if || call == selection::partition_if) opts.predicate = "x > 0";
  // In place: the buffer before the call, and what it must hold after it.
  std::vector<T> image(guard, poison<T>());
  image.insert(image.end(), data.begin(), data.end());
  image.resize(guard + n + guard, poison<T>());
  const cl::Buffer in = upload(dc, in_place ? image : data);
  if (in_place) {
    opts.in_offset = guard;
    opts.out_capacity = expected_count / 2;
    std::copy(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(*opts.out_capacity),
              image.begin() + guard);
  }
  const cl::Buffer flag_buffer =
      upload(dc, call == selection::select_flagged ? flags : std::vector<cl_uchar>());
  const cl::Buffer out = in_place ? in : upload(dc, std::vector<T>(guard + n + guard, poison<T>()));
  const cl::Buffer count = upload(dc, std::vector<cl_ulong>(3, poison<cl_ulong>()));
  cl::Event done;
  switch (call) {
  case selection::select_if: done = clscan::select_if(dc.queue, in, out, count, n, opts); break;
  case selection::select_flagged:
    done = clscan::select_flagged(dc.queue, in, flag_buffer, out, count, n, opts);
    break;
  case selection::partition_if: done = clscan::partition_if(dc.queue, in, out, count, n, opts); break;
  case selection::unique: done = clscan::unique(dc.queue, in, out, count, n, opts); break;
  }
  clscan_tools::check(done.wait(), "clWaitForEvents");

  const std::vector<cl_ulong> counts = download<cl_ulong>(dc, count, 3);
  if (counts[1] != expected_count)
    return "count " + std::to_string(counts[1]) + ", expected " + std::to_string(expected_count);
  if (!same_bits(counts[0], poison<cl_ulong>()) || !same_bits(counts[2], poison<cl_ulong>()))
    return "the count buffer was written beside count_offset";
  if (in_place) {
    const std::vector<T> got = download<T>(dc, out, image.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!same_bits(got[i], image[i]))
        return "in place, out_capacity " + std::to_string(*opts.out_capacity) + ": buffer index " +
               std::to_string(i) + " holds " + show(got[i]) + ", expected " + show(image[i]);
    return {};
  }
  std::string problem = compare_output(download<T>(dc, out, guard + n + guard), guard, expected);
  if (problem.empty() && !same_bits(download<T>(dc, in, n), data)) problem = "the input buffer was modified";
  return problem;
}

// One scan by key with op::sum: out of place at out_offset `guard`, or in place (input and output at
// offset `guard` of one buffer, the keys at the same offset of theirs).
template <typename K, typename T>
std::string check_by_key(const device_context& dc, clscan::scan_kind kind, const std::vector<K>& keys,
                         const std::vector<T>& values, clscan::algorithm algo, bool in_place,
                         std::optional<T> initial) {
  const std::size_t n = values.size();
  const std::vector<T> expected = clscan_reference::scan_by_key(keys, values, kind, clscan::op::sum, initial);
  clscan::options<T> opts;
  opts.algorithm = algo;
  opts.initial = initial;
  opts.out_offset = guard;
  opts.in_offset = in_place ? guard : 0;
  std::vector<K> key_image(opts.in_offset, poison<K>());
  key_image.insert(key_image.end(), keys.begin(), keys.end());
  std::vector<T> in_image(opts.in_offset, poison<T>());
  in_image.insert(in_image.end(), values.begin(), values.end());
  in_image.resize(in_image.size() + guard, poison<T>());
  const cl::Buffer key_buffer = upload(dc, key_image);
  const cl::Buffer in = upload(dc, in_image);
  const cl::Buffer out = in_place ? in : upload(dc, std::vector<T>(guard + n + guard, poison<T>()));
  const cl::Event done = kind == clscan::scan_kind::inclusive
                             ? clscan::inclusive_by_key<K, T>(dc.queue, key_buffer, in, out, n, opts)
                             : clscan::exclusive_by_key<K, T>(dc.queue, key_buffer, in, out, n, opts);
  clscan_tools::check(done.wait(), "clWaitForEvents");

  std::string problem = compare_output(download<T>(dc, out, guard + n + guard), guard, expected);
  if (problem.empty() && !same_bits(download<K>(dc, key_buffer, key_image.size()), key_image))
    problem = "the keys buffer was modified";
  if (problem.empty() && !in_place && !same_bits(download<T>(dc, in, in_image.size()), in_image))
    problem = "the input buffer was modified";
  return problem;
}

// inclusive_segmented over cl_uint offsets (out of place) and reduce_segmented over cl_ulong offsets
// (initial 5) of `values`, the segments the runs of `keys` (CSR offsets of their heads), against the
// scan by key of the same segments.
template <typename K, typename T>
std::string check_segmented(const device_context& dc, const std::vector<K>& keys,
                            const std::vector<T>& values, clscan::algorithm algo) {
  const std::size_t n = values.size();
  std::vector<cl_uint> offsets;
  for (std::size_t i = 0; i < n; ++i)
    if (i == 0 || !(keys[i] == keys[i - 1])) offsets.push_back(static_cast<cl_uint>(i));
  offsets.push_back(static_cast<cl_uint>(n));
  const std::size_t segments = offsets.size() - 1;
  const std::vector<T> scanned =
      clscan_reference::scan_by_key(keys, values, clscan::scan_kind::inclusive, clscan::op::sum);
  const std::vector<T> from_five = clscan_reference::scan_by_key(keys, values, clscan::scan_kind::inclusive,
                                                                 clscan::op::sum, std::optional<T>(5));
  std::vector<T> totals(segments);
  for (std::size_t s = 0; s < segments; ++s)
    totals[s] = from_five[offsets[s + 1] - 1];

  clscan::segmented_options<T> opts;
  opts.algorithm = algo;
  opts.out_offset = guard;
  const cl::Buffer in = upload(dc, values);
  const cl::Buffer narrow = upload(dc, offsets);
  const cl::Buffer out = upload(dc, std::vector<T>(guard + n + guard, poison<T>()));
  clscan_tools::check(
      clscan::inclusive_segmented<T, cl_uint>(dc.queue, in, out, n, narrow, segments, opts).wait(),
      "clWaitForEvents");
  std::string problem = compare_output(download<T>(dc, out, guard + n + guard), guard, scanned);
  if (!problem.empty()) return "inclusive_segmented: " + problem;

  const std::vector<cl_ulong> wide_offsets(offsets.begin(), offsets.end());
  const cl::Buffer wide = upload(dc, wide_offsets);
  const cl::Buffer results = upload(dc, std::vector<T>(guard + segments + guard, poison<T>()));
  opts.initial = T(5);
  clscan_tools::check(
      clscan::reduce_segmented<T, cl_ulong>(dc.queue, in, results, n, wide, segments, opts).wait(),
      "clWaitForEvents");
  problem = compare_output(download<T>(dc, results, guard + segments + guard), guard, totals);
  if (!problem.empty()) return "reduce_segmented: " + problem;
  if (!same_bits(download<T>(dc, in, n), values)) return "the input buffer was modified";
  return {};
}

// --- sizes ---------------------------------------------------------------------------------------

// One tile less one, one more, and three tiles and a bit, of the launch shape these calls take for T
// at such sizes: the single-pass scan's (for both ways of chaining tiles), with at most 64 elements a
// work-item on GPUs. (Dispatch may halve the items again to fit local memory; the sizes then lie
// around two tiles instead of one, still on tile boundaries.)
template <typename T>
std::vector<std::size_t> sizes_for(const cl::Device& device, const clscan::device_capabilities& caps) {
  const clscan::dispatch_plan plan = clscan::plan_for(device, clscan::element_traits<T>::type);
  clscan::tuning shape = plan.small_input_bytes ? plan.single_pass_small : plan.single_pass;
  if (caps.is_gpu())
    shape.items_per_thread = std::max(shape.vector_width, std::min<std::size_t>(shape.items_per_thread, 64));
  const std::size_t tile = shape.work_group_size * shape.items_per_thread;
  std::vector<std::size_t> sizes = {1};
  for (const std::size_t n : {tile - 1, tile + 1, 3 * tile + 5})
    if (n > 1 && n <= largest_size && n * sizeof(T) * 2 <= caps.max_mem_alloc_size) sizes.push_back(n);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// Runs check(), counting it, and records what was wrong under `what`.
template <typename Check> void run_check(report& r, const std::string& what, Check&& check) {
  r.running = what;
  progress_note(what);
  const std::string problem = check(); // counted once it has run: a check that throws is not
  ++r.checks;
  if (problem.empty())
    ++r.passed;
  else
    r.failures.push_back(what + ": " + problem);
  r.running.clear();
}

template <typename T>
void check_selections(const cl::Device& device, const clscan::device_capabilities& caps,
                      const device_context& dc, clscan::algorithm algo, report& r) {
  const std::vector<std::size_t> sizes = sizes_for<T>(device, caps);
  r.sizes.emplace_back(type_name<T>(), sizes);
  // Selectivity changes with the size: half, few, most.
  const double keep[] = {0.5, 0.03, 0.97, 0.5};
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const std::size_t n = sizes[k];
    clscan_reference::splitmix64 random{0x5e1ec7'5e1f7e57ull ^ (n * 0x9E3779B97F4A7C15ull) ^
                                        static_cast<std::uint64_t>(clscan::element_traits<T>::type)};
    std::vector<T> data;
    std::vector<cl_uchar> flags;
    make_selection(n, keep[k % 4], random, data, flags);
    const std::vector<T> runs = make_runs<T>(n, std::max<std::size_t>(n / 2, 1), random);
    for (const selection call :
         {selection::select_if, selection::select_flagged, selection::partition_if, selection::unique}) {
      // partition_if always waits for the total (three-stage); a forced single_pass is refused.
      if (call == selection::partition_if && algo == clscan::algorithm::single_pass) continue;
      for (const bool in_place : {false, true}) {
        const std::string what = std::string(selection_name(call)) + " (" + type_name<T>() + ")" +
                                 (in_place ? " in place, half the results' capacity" : "") +
                                 ", n = " + std::to_string(n);
        run_check(r, what, [&] {
          return check_selection(dc, call, call == selection::unique ? runs : data, flags, algo, in_place);
        });
      }
    }
  }
}

template <typename K, typename T>
void check_scans_by_key(const cl::Device& device, const clscan::device_capabilities& caps,
                        const device_context& dc, clscan::algorithm algo, report& r) {
  const std::vector<std::size_t> sizes = sizes_for<T>(device, caps);
  const auto listed = [](const auto& entry) { return entry.first == type_name<T>(); };
  if (std::none_of(r.sizes.begin(), r.sizes.end(), listed)) r.sizes.emplace_back(type_name<T>(), sizes);
  for (const std::size_t n : sizes) {
    clscan_reference::splitmix64 random{0xB7'4E75'CA9ull ^ (n * 0x9E3779B97F4A7C15ull) ^
                                        (static_cast<std::uint64_t>(clscan::element_traits<K>::type) << 8) ^
                                        static_cast<std::uint64_t>(clscan::element_traits<T>::type)};
    // Segments of 1 to 8 elements, some longer, and now and then ones over whole tiles.
    const std::vector<K> keys = make_runs<K>(n, std::max<std::size_t>(n / 2, 1), random);
    const std::vector<T> values = make_values<T>(n, random);
    const std::string types = std::string(" (keys ") + type_name<K>() + ", values " + type_name<T>() + ")";
    run_check(r, "inclusive_by_key" + types + " out of place, n = " + std::to_string(n), [&] {
      return check_by_key<K, T>(dc, clscan::scan_kind::inclusive, keys, values, algo, false, std::nullopt);
    });
    run_check(r, "exclusive_by_key" + types + " in place, initial 5, n = " + std::to_string(n), [&] {
      return check_by_key<K, T>(dc, clscan::scan_kind::exclusive, keys, values, algo, true, T(5));
    });
    run_check(r,
              std::string("inclusive_segmented and reduce_segmented (values ") + type_name<T>() +
                  ") over the keys' runs, n = " + std::to_string(n),
              [&] { return check_segmented<K, T>(dc, keys, values, algo); });
  }
}

} // namespace detail

namespace detail {

inline void run_selections(const cl::Device& device, const clscan::device_capabilities& caps,
                           const device_context& dc, clscan::algorithm algo, report& r) {
  check_selections<cl_int>(device, caps, dc, algo, r);
  check_selections<cl_uint>(device, caps, dc, algo, r);
  check_selections<cl_long>(device, caps, dc, algo, r);
  check_selections<cl_ulong>(device, caps, dc, algo, r);
  check_selections<cl_float>(device, caps, dc, algo, r);
  if (caps.fp64) check_selections<cl_double>(device, caps, dc, algo, r);
  if (algo == clscan::algorithm::single_pass)
    r.skipped.emplace_back("partition_if: it always chains tiles by counts scanned first, and refuses "
                           "single_pass (automatic and three_stage check it)");
}

// Every value type with a key type of another width or signedness, so that every type is a key once.
inline void run_scans_by_key(const cl::Device& device, const clscan::device_capabilities& caps,
                             const device_context& dc, clscan::algorithm algo, report& r) {
  check_scans_by_key<cl_uint, cl_int>(device, caps, dc, algo, r);
  check_scans_by_key<cl_long, cl_uint>(device, caps, dc, algo, r);
  check_scans_by_key<cl_ulong, cl_long>(device, caps, dc, algo, r);
  check_scans_by_key<cl_int, cl_ulong>(device, caps, dc, algo, r);
  check_scans_by_key<cl_float, cl_float>(device, caps, dc, algo, r);
  if (caps.fp64) check_scans_by_key<cl_double, cl_double>(device, caps, dc, algo, r);
}

} // namespace detail

// The selections and (or) the scans by key on `algo` for every element type of the device
// (cl_double where it has fp64, as clscan sees it). Exceptions propagate, with r.running naming the
// check.
inline void run(const cl::Device& device, const clscan::device_capabilities& caps, const cl::Context& context,
                const cl::CommandQueue& queue, clscan::algorithm algo, bool selections, bool by_key,
                report& r) {
  const detail::device_context dc{context, queue};
  if (!caps.fp64) r.skipped.emplace_back("double: the device has no fp64");
  if (selections) detail::run_selections(device, caps, dc, algo, r);
  if (by_key) detail::run_scans_by_key(device, caps, dc, algo, r);
}

} // namespace clscan_info::primitive_self_test
