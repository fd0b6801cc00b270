// cub_bench: cub::DeviceScan::InclusiveSum, cub::DeviceSelect::If ("x > 0"),
// cub::DeviceScan::InclusiveSumByKey, cub::DeviceReduce::Sum, cub::DeviceRadixSort::SortKeys /
// SortPairs, cub::DeviceReduce::ReduceByKey, cub::DeviceRunLengthEncode::Encode,
// cub::DeviceSelect::UniqueByKey, cub::DeviceSegmentedReduce::Sum, a segmented scan (InclusiveSumByKey
// over segment numbers) or a scan or reduce of a transform (over thrust::transform_iterator) timed against
// cudaMemcpyAsync (device to device) of the same input bytes, with clscan-bench's method and data
// (tools/bench/), so that docs/PERFORMANCE.md can put CUB beside clscan measured in the same run. Not part of
// clscan's build or CI: bench/cub/README.md.
#include "../../tools/bench/inputs.hpp"
#include "../../tools/bench/run_checks.hpp"
#include "../../tools/common/sort_order.hpp"
#include "../common/arguments.hpp"

#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

// A named namespace, its functions inline: build.sh compiles this file once per element type
// (CUB_BENCH_PART) and once for main (CUB_BENCH_SPLIT), in parallel, and links them (bench_one below).
namespace cub_bench_impl {

const char* const help_text = R"(usage: cub_bench [options]

Measures a CUB call against cudaMemcpyAsync (device to device) of the same input bytes on CUDA device
0, with clscan-bench's method and data, and checks every result against a host reference.

options:
  --primitive P  what is measured, as clscan-bench --primitive P measures clscan. Default scan.
                   scan    cub::DeviceScan::InclusiveSum on random inputs
                   select  cub::DeviceSelect::If with "x > 0" on inputs of which ~43 % are > 0
                   by_key  cub::DeviceScan::InclusiveSumByKey: int keys, segments of random length
                           1 to 1999 (1000 on average), random values of --type
                   reduce  cub::DeviceReduce::Sum on the scan's inputs; compared with a read of
                           the same bytes, half the copy's time (below)
                   sort    cub::DeviceRadixSort::SortKeys, keys of --type (--keys)
                   sort_by_key  cub::DeviceRadixSort::SortPairs, keys of --type (--keys) and
                           random uint values
                   reduce_by_key  cub::DeviceReduce::ReduceByKey (sum): by_key's int keys and
                           values
                   unique_by_key  cub::DeviceSelect::UniqueByKey: by_key's int keys and values
                   run_length_encode  cub::DeviceRunLengthEncode::Encode (uint lengths): keys of
                           --type in by_key's runs, each run's key its number mod 2^20
                   reduce_segmented  cub::DeviceSegmentedReduce::Sum over CSR offsets s * N
                           (--segment-length N), the last n, on the scan's inputs
                   inclusive_segmented  the inclusive sum of each of those segments:
                           cub::DeviceScan::InclusiveSumByKey with each element's segment
                           number as its int key (CUB 3.0 has no DeviceSegmentedScan; it came
                           in 3.3)
  --transform F  scan and reduce: cub::DeviceScan::InclusiveSum / cub::DeviceReduce::Sum over a
                 thrust::transform_iterator that applies F as each element is read, F one of
                 clscan-bench's: 'x * 2' (integers wrap), 'x > 0 ? 1 : 0', 'i % 2 == 0 ? x : 0'
                 (over a counting iterator, reading the input at i); blanks ignored.
  --segment-length N  reduce_segmented and inclusive_segmented: the segments' length, 1 to
                 2^31-1. Default 1000.
  --type T       int | uint | long | ulong | float | double (32, 32, 64, 64, 32, 64 bits): the
                 values (sort, sort_by_key: the keys). Default int.
  --keys K       sort and sort_by_key: uniform (the scan's random inputs: all bit patterns for
                 integers, floats uniform in [-1, 1)) | distinct7 (7 such values, each element one
                 of them at random). Default uniform.
  --sizes LIST   comma-separated element counts, 1 to 2^31-1: plain numbers or 2^N.
                 Default 2^10,2^12,...,2^26.
  --reps N       timed repetitions per size, 1 to 100000. Default 50.
  --csv          print CSV (header + one row per size) instead of the table.
  --help         this text.

Method, as clscan-bench's (bench/cub/README.md): k = min(8, max(1, 256 MiB / input bytes)) inputs read
in turn (a by_key input is its keys and its values), clscan-bench's inputs (same generators and seeds),
temporary storage allocated outside the timing, warm-up 3 calls and 3 copies, then calls (events around
the call, behind a copy of 32 MiB or more that takes at least 200 us) and copies (events around it)
alternate; medians. The copy is of one input's values, n * sizeof(T) bytes (by_key: not the keys);
(sort, sort_by_key: the keys' bytes); GB/s counts 2 * n * sizeof(T) for both; ratio = copy time /
call time; keys/s = n / call time. reduce and reduce_segmented read n * sizeof(T)
bytes and write one element (a segment): their GB/s count n * sizeof(T) and their ratio ("vs_read") is
(copy time / 2) / call time, as clscan-bench's reduce and reduce_segmented rows.
The last call is verified: scan, by_key, inclusive_segmented and reduce integers exactly (sums wrap),
floats within 16 * epsilon * (prefix sum of |x|, per segment for by_key and inclusive_segmented; per
segment's sum for reduce_segmented and reduce_by_key); with --transform against f applied on the host
first; select: the count and the kept elements exactly against std::copy_if; reduce_by_key,
unique_by_key and run_length_encode: the count and the keys (and values or lengths) exactly against
serial loops (tools/bench/run_checks.hpp, clscan-bench's); sort and sort_by_key: keys (and values)
exactly against std::stable_sort (the inputs hold no NaN, so CUB's order of floats is the standard
one). The copy the ratio compares with is of the values (by_key, reduce_by_key, unique_by_key,
inclusive_segmented: not the keys), of the keys for run_length_encode and the sorts.

Exit status: 0 when every row verified; 1 on a wrong result or a CUDA error; 2 on a bad command line.
)";

constexpr std::size_t mib = std::size_t{1} << 20;
constexpr std::size_t rotation_bytes = 256 * mib;
constexpr std::size_t max_rotation = 8;
// The spacer copy before each timed call: 32 MiB, grown until it takes at least min_spacer_us on the
// GPU (clscan-bench sizes its spacer the same way).
constexpr std::size_t first_spacer_bytes = 32 * mib;
constexpr float min_spacer_us = 200;

[[noreturn]] inline void usage_error(const std::string& message) {
  std::fprintf(stderr, "cub_bench: %s (see --help)\n", message.c_str());
  std::exit(2);
}

// Every CUDA call goes through check(): a failure ends the program with the call and CUDA's message.
inline void check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "cub_bench: %s failed: %s (%s)\n", call, cudaGetErrorString(status),
               cudaGetErrorName(status));
  std::exit(1);
}
#define CUDA_CHECK(call) check((call), #call)

// A count: digits, or 2^N; 1 to INT_MAX (CUB is called with an int count, as most callers do).
inline std::size_t parse_count(const std::string& text) {
  const std::optional<unsigned long long> value = bench::read_count(text);
  if (!value) usage_error("--sizes: '" + text + "' is not a count (a number or 2^N)");
  if (*value < 1 || *value > static_cast<unsigned long long>(INT_MAX))
    usage_error("--sizes: '" + text + "' is out of range (1 to 2^31-1)");
  return static_cast<std::size_t>(*value);
}

inline std::string count_text(std::size_t n) {
  if (n & (n - 1)) return std::to_string(n);
  int e = 0;
  while ((std::size_t{1} << e) != n)
    ++e;
  return "2^" + std::to_string(e);
}

enum class primitive {
  scan,
  select,
  by_key,
  reduce,
  sort,
  sort_by_key,
  reduce_by_key,
  unique_by_key,
  run_length_encode,
  reduce_segmented,
  inclusive_segmented
};

inline const char* primitive_name(primitive p) {
  switch (p) {
  case primitive::select: return "select";
  case primitive::by_key: return "by_key";
  case primitive::reduce: return "reduce";
  case primitive::sort: return "sort";
  case primitive::sort_by_key: return "sort_by_key";
  case primitive::reduce_by_key: return "reduce_by_key";
  case primitive::unique_by_key: return "unique_by_key";
  case primitive::run_length_encode: return "run_length_encode";
  case primitive::reduce_segmented: return "reduce_segmented";
  case primitive::inclusive_segmented: return "inclusive_segmented";
  default: return "scan";
  }
}

constexpr primitive all_primitives[] = {primitive::scan,
                                        primitive::select,
                                        primitive::by_key,
                                        primitive::reduce,
                                        primitive::sort,
                                        primitive::sort_by_key,
                                        primitive::reduce_by_key,
                                        primitive::unique_by_key,
                                        primitive::run_length_encode,
                                        primitive::reduce_segmented,
                                        primitive::inclusive_segmented};

using clscan_bench::transform_kind;

inline bool segmented(primitive p) {
  return p == primitive::reduce_segmented || p == primitive::inclusive_segmented;
}

struct settings {
  primitive what = primitive::scan;
  std::string type = "int";
  std::vector<std::size_t> sizes;
  std::size_t reps = 50;
  bool csv = false;
  bool distinct_keys = false;                      // --keys distinct7
  transform_kind transform = transform_kind::none; // --transform
  std::size_t segment_length = 1000;               // --segment-length
  bool segment_length_given = false;
};

inline settings parse_arguments(int argc, char** argv) {
  settings s;
  for (int e = 10; e <= 26; e += 2)
    s.sizes.push_back(std::size_t{1} << e);
  bench::for_each_flag(argc, argv, help_text, usage_error, [&](const std::string& arg, const auto& value) {
    if (arg == "--primitive") {
      const std::string name = value();
      std::string names;
      bool found = false;
      for (const primitive p : all_primitives) {
        names += std::string(names.empty() ? "" : ", ") + primitive_name(p);
        if (name == primitive_name(p)) {
          s.what = p;
          found = true;
        }
      }
      if (!found) usage_error("--primitive: unknown '" + name + "' (" + names + ")");
    } else if (arg == "--transform") {
      const std::string text = value();
      const std::optional<transform_kind> kind = clscan_bench::parse_transform(text);
      if (!kind) usage_error("--transform: unknown '" + text + "' (" + clscan_bench::transform_list() + ")");
      s.transform = *kind;
    } else if (arg == "--segment-length") {
      const std::string text = value();
      const std::optional<unsigned long long> length = bench::read_count(text);
      if (!length || *length < 1 || *length > static_cast<unsigned long long>(INT_MAX))
        usage_error("--segment-length: '" + text + "' is not a count from 1 to 2^31-1");
      s.segment_length = static_cast<std::size_t>(*length);
      s.segment_length_given = true;
    } else if (arg == "--keys") {
      const std::string name = value();
      if (name != "uniform" && name != "distinct7")
        usage_error("--keys: unknown '" + name + "' (uniform, distinct7)");
      s.distinct_keys = name == "distinct7";
    } else if (arg == "--type") {
      s.type = value();
      if (!bench::known_type(s.type))
        usage_error("--type: unknown '" + s.type + "' (int, uint, long, ulong, float, double)");
    } else if (arg == "--sizes") {
      const std::string list = value();
      s.sizes.clear();
      std::size_t start = 0;
      while (true) {
        const std::size_t comma = list.find(',', start);
        s.sizes.push_back(parse_count(list.substr(start, comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (arg == "--reps") {
      const std::string text = value();
      if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(text) < 1 || std::stoul(text) > 100000)
        usage_error("--reps: '" + text + "' is not a number from 1 to 100000");
      s.reps = std::stoul(text);
    } else if (arg == "--csv") {
      s.csv = true;
    } else {
      usage_error("unknown option '" + arg + "'");
    }
  });
  if (s.transform != transform_kind::none && s.what != primitive::scan && s.what != primitive::reduce)
    usage_error("--transform applies to --primitive scan and reduce only");
  if (s.segment_length_given && !segmented(s.what))
    usage_error("--segment-length applies to --primitive reduce_segmented and inclusive_segmented only");
  return s;
}

struct device_info {
  std::string name, driver; // driver: CUDA driver API and runtime versions, and CUB's version
  std::size_t memory = 0;
};

struct row {
  std::size_t n = 0, reps = 0, buffers = 0;
  double scan_us = 0, copy_us = 0, scan_gbps = 0, copy_gbps = 0, ratio = 0, keys_per_s = 0;
  std::string status, message; // "ok" or "FAIL", and the first mismatch
};

// clscan-bench's inputs (tools/bench/inputs.hpp): the same generators, seeds and distributions, so
// that both programs measure the same data.
using clscan_bench::fill_distinct;
using clscan_bench::fill_random;
using clscan_bench::fill_segment_keys;
using clscan_bench::fill_segment_runs;
using clscan_bench::fill_selectable;
using clscan_bench::keys_seed;
using clscan_bench::values_seed;

// select's predicate, "x > 0" as clscan-bench passes it to clscan::select_if.
struct greater_than_zero {
  template <typename T> __host__ __device__ bool operator()(const T& x) const { return x > T(0); }
};

// --transform's expressions as CUB's callers write them: functors applied by a thrust::transform_iterator
// (the host forms are clscan_bench::apply_transform's). Integer products wrap, computed unsigned.
template <typename T> struct twice {
  __host__ __device__ T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(x) * U{2}));
    } else {
      return x * T(2);
    }
  }
};

template <typename T> struct positive_flag {
  __host__ __device__ T operator()(T x) const { return x > T(0) ? T(1) : T(0); }
};

// "i % 2 == 0 ? x : 0" needs the index: applied to a counting iterator, reading the input at i.
template <typename T> struct even_index {
  const T* in;
  __host__ __device__ T operator()(std::int64_t i) const { return i % 2 == 0 ? in[i] : T(0); }
};

// InclusiveSum or Sum (reduce) of the elements `in` yields.
template <typename T, typename Iterator>
cudaError_t sum_of(bool reduce, void* temp, std::size_t& temp_bytes, Iterator in, T* out, int count,
                   cudaStream_t stream) {
  if (reduce) return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, count, stream);
  return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, count, stream);
}

// The scan (or reduce) of f(x), f applied as each element is read.
template <typename T>
cudaError_t call_transformed(transform_kind kind, bool reduce, void* temp, std::size_t& temp_bytes,
                             const T* in, T* out, int count, cudaStream_t stream) {
  switch (kind) {
  case transform_kind::twice:
    return sum_of(reduce, temp, temp_bytes, thrust::make_transform_iterator(in, twice<T>{}), out, count,
                  stream);
  case transform_kind::positive_flag:
    return sum_of(reduce, temp, temp_bytes, thrust::make_transform_iterator(in, positive_flag<T>{}), out,
                  count, stream);
  default:
    return sum_of(
        reduce, temp, temp_bytes,
        thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), even_index<T>{in}), out,
        count, stream);
  }
}

// The calls on runs, each as its CUB caller writes it; the count is written as an 8-byte integer, as
// clscan writes it.
template <typename T>
cudaError_t call_reduce_by_key(void* temp, std::size_t& temp_bytes, const std::int32_t* keys, const T* values,
                               std::int32_t* keys_out, T* sums_out, unsigned long long* runs, int count,
                               cudaStream_t stream) {
  return cub::DeviceReduce::ReduceByKey(temp, temp_bytes, keys, keys_out, values, sums_out, runs,
                                        ::cuda::std::plus<>{}, count, stream);
}

template <typename T>
cudaError_t call_unique_by_key(void* temp, std::size_t& temp_bytes, const std::int32_t* keys, const T* values,
                               std::int32_t* keys_out, T* values_out, unsigned long long* runs, int count,
                               cudaStream_t stream) {
  return cub::DeviceSelect::UniqueByKey(temp, temp_bytes, keys, values, keys_out, values_out, runs, count,
                                        stream);
}

template <typename T>
cudaError_t call_run_length_encode(void* temp, std::size_t& temp_bytes, const T* in, T* unique_out,
                                   std::uint32_t* lengths_out, unsigned long long* runs, int count,
                                   cudaStream_t stream) {
  return cub::DeviceRunLengthEncode::Encode(temp, temp_bytes, in, unique_out, lengths_out, runs, count,
                                            stream);
}

// Segment s is [offsets[s], offsets[s + 1]): CSR offsets, begin and end from the same array.
template <typename T>
cudaError_t call_reduce_segmented(void* temp, std::size_t& temp_bytes, const T* in, T* sums_out,
                                  const int* offsets, int num_segments, cudaStream_t stream) {
  return cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, sums_out, num_segments, offsets, offsets + 1,
                                         stream);
}

// CUB 3.0 has no segmented scan over offsets (DeviceSegmentedScan came in CUB 3.3): a scan by key whose
// keys are each element's segment number, made outside the timing.
template <typename T>
cudaError_t call_inclusive_segmented(void* temp, std::size_t& temp_bytes, const std::int32_t* segment_of,
                                     const T* in, T* out, int count, cudaStream_t stream) {
  return cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, segment_of, in, out, count,
                                            ::cuda::std::equal_to<>{}, stream);
}

inline std::string mismatch(std::size_t i, std::size_t n, const std::string& expected,
                            const std::string& actual) {
  return "mismatch at " + std::to_string(i) + " of " + std::to_string(n) + ": expected " + expected +
         ", got " + actual;
}

// An empty string when `got` is the inclusive sum of `in`, restarted where `keys` (if given) changes,
// else the first mismatch.
template <typename T>
std::string verify_sum(const std::vector<T>& in, const std::vector<T>& got,
                       const std::vector<std::int32_t>* keys) {
  const auto head = [&](std::size_t i) { return keys && i > 0 && (*keys)[i] != (*keys)[i - 1]; };
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>; // wrapping sums: signed overflow would be undefined
    U sum = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (head(i)) sum = 0;
      sum = static_cast<U>(sum + static_cast<U>(in[i]));
      if (static_cast<T>(sum) != got[i])
        return mismatch(i, in.size(), std::to_string(static_cast<T>(sum)), std::to_string(got[i]));
    }
  } else {
    const long double tolerance = 16 * static_cast<long double>(std::numeric_limits<T>::epsilon());
    long double sum = 0, magnitude = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (head(i)) sum = magnitude = 0;
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
      const long double bound = tolerance * magnitude + 1e-30L;
      if (!(std::fabs(static_cast<long double>(got[i]) - sum) <= bound)) {
        char expected[80], actual[40];
        std::snprintf(expected, sizeof expected, "%.17Lg (bound %.3Lg)", sum, bound);
        std::snprintf(actual, sizeof actual, "%.17g", static_cast<double>(got[i]));
        return mismatch(i, in.size(), expected, actual);
      }
    }
  }
  return {};
}

// An empty string when `got` is the sum of `in` (integers wrap; floats within 16 * epsilon * (sum of
// |x|) of a long double sum), else what differs.
template <typename T> std::string verify_total(const std::vector<T>& in, T got) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    U sum = 0;
    for (const T x : in)
      sum = static_cast<U>(sum + static_cast<U>(x));
    if (static_cast<T>(sum) == got) return {};
    return "total: expected " + std::to_string(static_cast<T>(sum)) + ", got " + std::to_string(got);
  } else {
    long double sum = 0, magnitude = 0;
    for (const T x : in) {
      sum += x;
      magnitude += std::fabs(static_cast<long double>(x));
    }
    const long double bound =
        16 * static_cast<long double>(std::numeric_limits<T>::epsilon()) * magnitude + 1e-30L;
    if (std::fabs(static_cast<long double>(got) - sum) <= bound) return {};
    char text[120];
    std::snprintf(text, sizeof text, "total: expected %.17Lg (bound %.3Lg), got %.17g", sum, bound,
                  static_cast<double>(got));
    return text;
  }
}

// An empty string when `got` (and `got_values`, where values are given) are std::stable_sort's of `in`
// (and its values), else the first difference. The inputs hold no NaN, so numpy's order, which the
// linear-time reference computes (std::stable_sort's indirect sort of 2^28 keys took minutes), is
// operator<'s, as CUB sorts them.
template <typename T>
std::string verify_sort(const std::vector<T>& in, const std::vector<T>& got,
                        const std::vector<std::uint32_t>* values,
                        const std::vector<std::uint32_t>& got_values) {
  const std::vector<std::size_t> order = clscan_reference::stable_order_linear(in);
  for (std::size_t j = 0; j < order.size(); ++j) {
    if (!(in[order[j]] == got[j]))
      return mismatch(j, in.size(), std::to_string(in[order[j]]), std::to_string(got[j]));
    if (values && (*values)[order[j]] != got_values[j])
      return mismatch(j, in.size(), "value " + std::to_string((*values)[order[j]]),
                      "value " + std::to_string(got_values[j]));
  }
  return {};
}

// An empty string when `count` and got[0, count) are std::copy_if's of `in` with "x > 0", else the first
// difference.
template <typename T>
std::string verify_select(const std::vector<T>& in, const std::vector<T>& got, unsigned long long count) {
  std::vector<T> expected;
  std::copy_if(in.begin(), in.end(), std::back_inserter(expected), greater_than_zero{});
  if (count != expected.size())
    return "count " + std::to_string(count) + ", expected " + std::to_string(expected.size()) + " of " +
           std::to_string(in.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!(expected[i] == got[i]))
      return mismatch(i, in.size(), std::to_string(expected[i]), std::to_string(got[i]));
  return {};
}

// An empty string when got[s] is the sum of segment s of `in` (segments of `length`, the last one
// shorter), for every segment; else the first mismatch. Integers wrap; floats within 16 * epsilon * the
// sum of |x| over the segment.
template <typename T>
std::string verify_segment_sums(const std::vector<T>& in, std::size_t length, const std::vector<T>& got) {
  for (std::size_t s = 0, begin = 0; begin < in.size(); ++s, begin += length) {
    const std::size_t end = std::min(in.size(), begin + length);
    const std::vector<T> segment(in.begin() + static_cast<std::ptrdiff_t>(begin),
                                 in.begin() + static_cast<std::ptrdiff_t>(end));
    if (std::string message = verify_total(segment, got[s]); !message.empty())
      return "segment " + std::to_string(s) + ": " + message;
  }
  return {};
}

template <typename T>
row bench_one(const device_info& dev, primitive what, bool distinct_keys, transform_kind transform,
              std::size_t segment_length, cudaStream_t stream, void* spacer_src, void* spacer_dst,
              std::size_t spacer_bytes, std::size_t n, std::size_t reps) {
  row r;
  r.n = n;
  r.reps = reps;
  const std::size_t bytes = n * sizeof(T);
  const bool pairs = what == primitive::sort_by_key;
  // The calls with int keys beside their values (inclusive_segmented: each element's segment number).
  const bool keyed = what == primitive::by_key || what == primitive::reduce_by_key ||
                     what == primitive::unique_by_key || what == primitive::inclusive_segmented;
  // The calls on runs, which write the runs' keys and their count.
  const bool runs = what == primitive::reduce_by_key || what == primitive::unique_by_key ||
                    what == primitive::run_length_encode;
  const std::size_t key_bytes = keyed ? n * sizeof(std::int32_t) : 0;
  const std::size_t pair_bytes = pairs ? n * sizeof(std::uint32_t) : 0; // SortPairs' values
  const std::size_t input_bytes = bytes + key_bytes + pair_bytes;
  std::size_t k = std::min(max_rotation, std::max<std::size_t>(1, rotation_bytes / input_bytes));
  while (k > 1 && k * input_bytes + 2 * bytes > dev.memory / 2)
    --k;
  r.buffers = k;

  std::vector<std::vector<T>> host(k, std::vector<T>(n));
  std::vector<std::vector<std::int32_t>> host_keys(keyed ? k : 0, std::vector<std::int32_t>(n));
  std::vector<T*> inputs(k, nullptr);
  std::vector<std::int32_t*> keys(host_keys.size(), nullptr);
  std::vector<std::vector<std::uint32_t>> host_values(pairs ? k : 0, std::vector<std::uint32_t>(n));
  std::vector<std::uint32_t*> values(host_values.size(), nullptr);
  for (std::size_t i = 0; i < k; ++i) {
    if (what == primitive::select)
      fill_selectable(host[i], values_seed(n, i));
    else if (what == primitive::run_length_encode)
      fill_segment_runs(host[i], keys_seed(n, i)); // by_key's runs, as clscan-bench's
    else if (distinct_keys && (what == primitive::sort || pairs))
      fill_distinct(host[i], values_seed(n, i));
    else
      fill_random(host[i], values_seed(n, i));
    CUDA_CHECK(cudaMalloc(&inputs[i], bytes));
    CUDA_CHECK(cudaMemcpy(inputs[i], host[i].data(), bytes, cudaMemcpyHostToDevice));
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (what == primitive::inclusive_segmented)
      for (std::size_t j = 0; j < n; ++j)
        host_keys[i][j] = static_cast<std::int32_t>(j / segment_length);
    else
      fill_segment_keys(host_keys[i], keys_seed(n, i));
    CUDA_CHECK(cudaMalloc(&keys[i], key_bytes));
    CUDA_CHECK(cudaMemcpy(keys[i], host_keys[i].data(), key_bytes, cudaMemcpyHostToDevice));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    fill_random(host_values[i], keys_seed(n, i));
    CUDA_CHECK(cudaMalloc(&values[i], pair_bytes));
    CUDA_CHECK(cudaMemcpy(values[i], host_values[i].data(), pair_bytes, cudaMemcpyHostToDevice));
  }
  std::uint32_t* values_out = nullptr;
  CUDA_CHECK(cudaMalloc(&values_out, std::max<std::size_t>(pair_bytes, 1)));
  T *output = nullptr, *copy_dst = nullptr;
  unsigned long long* selected = nullptr; // select's count, 8 bytes as clscan's
  CUDA_CHECK(cudaMalloc(&output, bytes));
  CUDA_CHECK(cudaMalloc(&copy_dst, bytes));
  CUDA_CHECK(cudaMalloc(&selected, sizeof *selected));
  // Touched once, so that first-touch costs are not timed (as clscan-bench does).
  CUDA_CHECK(cudaMemcpy(output, inputs[0], bytes, cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaMemcpy(copy_dst, inputs[0], bytes, cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaMemset(selected, 0, sizeof *selected));
  // The calls on runs' other outputs: the runs' int keys, or run_length_encode's lengths.
  std::int32_t* keys_out = nullptr;
  std::uint32_t* lengths = nullptr;
  CUDA_CHECK(cudaMalloc(&keys_out, runs ? n * sizeof(std::int32_t) : 1));
  CUDA_CHECK(cudaMalloc(&lengths, what == primitive::run_length_encode ? n * sizeof(std::uint32_t) : 1));
  if (runs) {
    CUDA_CHECK(cudaMemset(keys_out, 0, n * sizeof(std::int32_t)));
    CUDA_CHECK(cudaMemset(lengths, 0, what == primitive::run_length_encode ? n * sizeof(std::uint32_t) : 1));
  }
  // reduce_segmented's CSR offsets: s * segment_length, the last n; one array for every input.
  const std::size_t num_segments = segmented(what) ? (n + segment_length - 1) / segment_length : 0;
  std::vector<int> host_offsets(num_segments + 1);
  for (std::size_t s = 0; s < num_segments; ++s)
    host_offsets[s] = static_cast<int>(s * segment_length);
  host_offsets[num_segments] = static_cast<int>(n);
  int* offsets = nullptr;
  CUDA_CHECK(cudaMalloc(&offsets, host_offsets.size() * sizeof(int)));
  CUDA_CHECK(
      cudaMemcpy(offsets, host_offsets.data(), host_offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  const int count = static_cast<int>(n); // parse_count keeps n <= INT_MAX
  // The call on input i; with temp == nullptr, CUB's query of its temporary storage.
  const auto call = [&](std::size_t i) -> cudaError_t {
    if (transform != transform_kind::none)
      return call_transformed(transform, what == primitive::reduce, temp, temp_bytes, inputs[i], output,
                              count, stream);
    switch (what) {
    case primitive::reduce_by_key:
      return call_reduce_by_key(temp, temp_bytes, keys[i], inputs[i], keys_out, output, selected, count,
                                stream);
    case primitive::unique_by_key:
      return call_unique_by_key(temp, temp_bytes, keys[i], inputs[i], keys_out, output, selected, count,
                                stream);
    case primitive::run_length_encode:
      return call_run_length_encode(temp, temp_bytes, inputs[i], output, lengths, selected, count, stream);
    case primitive::reduce_segmented:
      return call_reduce_segmented(temp, temp_bytes, inputs[i], output, offsets,
                                   static_cast<int>(num_segments), stream);
    case primitive::inclusive_segmented:
      return call_inclusive_segmented(temp, temp_bytes, keys[i], inputs[i], output, count, stream);
    case primitive::select:
      return cub::DeviceSelect::If(temp, temp_bytes, inputs[i], output, selected, count, greater_than_zero{},
                                   stream);
    case primitive::by_key:
      return cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, keys[i], inputs[i], output, count,
                                                ::cuda::std::equal_to<>{}, stream);
    case primitive::reduce: return cub::DeviceReduce::Sum(temp, temp_bytes, inputs[i], output, count, stream);
    case primitive::sort:
      return cub::DeviceRadixSort::SortKeys(temp, temp_bytes, inputs[i], output, count, 0,
                                            static_cast<int>(8 * sizeof(T)), stream);
    case primitive::sort_by_key:
      return cub::DeviceRadixSort::SortPairs(temp, temp_bytes, inputs[i], output, values[i], values_out,
                                             count, 0, static_cast<int>(8 * sizeof(T)), stream);
    default: return cub::DeviceScan::InclusiveSum(temp, temp_bytes, inputs[i], output, count, stream);
    }
  };
  CUDA_CHECK(call(0));
  CUDA_CHECK(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 1)));
  CUDA_CHECK(cudaDeviceSynchronize());

  cudaEvent_t scan_start, scan_end, copy_start, copy_end;
  for (cudaEvent_t* e : {&scan_start, &scan_end, &copy_start, &copy_end})
    CUDA_CHECK(cudaEventCreate(e));
  std::size_t next = 0; // rotation counter shared by calls and copies, as in clscan-bench
  const auto scan = [&](std::size_t i) { CUDA_CHECK(call(i)); };
  const auto copy = [&](std::size_t i) {
    CUDA_CHECK(cudaMemcpyAsync(copy_dst, inputs[i], bytes, cudaMemcpyDeviceToDevice, stream));
  };

  for (int w = 0; w < 3; ++w)
    scan(next++ % k);
  for (int w = 0; w < 3; ++w)
    copy(next++ % k);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<double> scan_us, copy_us;
  for (std::size_t rep = 0; rep < reps; ++rep) {
    // The spacer keeps the GPU busy while the host enqueues the scan, so that CUB's host time (its
    // launches and queries) is not counted as device time: clscan-bench's spacer, marker and scan.
    CUDA_CHECK(cudaMemcpyAsync(spacer_dst, spacer_src, spacer_bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaEventRecord(scan_start, stream));
    scan(next++ % k);
    CUDA_CHECK(cudaEventRecord(scan_end, stream));
    CUDA_CHECK(cudaEventRecord(copy_start, stream));
    copy(next++ % k);
    CUDA_CHECK(cudaEventRecord(copy_end, stream));
    CUDA_CHECK(cudaEventSynchronize(copy_end));
    float scan_ms = 0, copy_ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&scan_ms, scan_start, scan_end));
    CUDA_CHECK(cudaEventElapsedTime(&copy_ms, copy_start, copy_end));
    scan_us.push_back(1e3 * scan_ms);
    copy_us.push_back(1e3 * copy_ms);
  }
  const std::size_t last_scan_input = (next - 2) % k; // the last rep's scan took next - 2

  r.scan_us = bench::median(scan_us);
  r.copy_us = bench::median(copy_us);
  const double moved = 2.0 * static_cast<double>(bytes);
  r.scan_gbps = moved / (r.scan_us * 1e3);
  r.copy_gbps = moved / (r.copy_us * 1e3);
  r.ratio = r.copy_us / r.scan_us;
  r.keys_per_s = static_cast<double>(n) / (r.scan_us * 1e-6);
  if (what == primitive::reduce || what == primitive::reduce_segmented) {
    // Against a read of the input: half the copy, which reads and writes it.
    r.scan_gbps = static_cast<double>(bytes) / (r.scan_us * 1e3);
    r.ratio = (r.copy_us / 2) / r.scan_us;
  }

  std::vector<T> got(n);
  CUDA_CHECK(cudaMemcpy(got.data(), output, bytes, cudaMemcpyDeviceToHost));
  const std::vector<T>& last_input = host[last_scan_input];
  if (transform != transform_kind::none) {
    const std::vector<T> transformed = clscan_bench::apply_transform(transform, last_input);
    r.message =
        what == primitive::reduce ? verify_total(transformed, got[0]) : verify_sum(transformed, got, nullptr);
  } else if (runs) {
    unsigned long long found = 0;
    CUDA_CHECK(cudaMemcpy(&found, selected, sizeof found, cudaMemcpyDeviceToHost));
    const std::size_t read = static_cast<std::size_t>(std::min<unsigned long long>(found, n));
    got.resize(read);
    if (what == primitive::run_length_encode) {
      std::vector<std::uint32_t> got_lengths(read);
      if (read)
        CUDA_CHECK(
            cudaMemcpy(got_lengths.data(), lengths, read * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
      r.message = clscan_bench::check_run_length_encode(last_input, found, got, got_lengths);
    } else {
      std::vector<std::int32_t> got_keys(read);
      if (read)
        CUDA_CHECK(
            cudaMemcpy(got_keys.data(), keys_out, read * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
      const std::vector<std::int32_t>& in_keys = host_keys[last_scan_input];
      r.message = what == primitive::reduce_by_key
                      ? clscan_bench::check_reduce_by_key_sum(in_keys, last_input, found, got_keys, got)
                      : clscan_bench::check_unique_by_key(in_keys, last_input, found, got_keys, got);
    }
  } else if (what == primitive::reduce_segmented) {
    r.message = verify_segment_sums(last_input, segment_length, got);
  } else if (what == primitive::select) {
    unsigned long long kept = 0;
    CUDA_CHECK(cudaMemcpy(&kept, selected, sizeof kept, cudaMemcpyDeviceToHost));
    r.message = verify_select(host[last_scan_input], got, kept);
  } else if (what == primitive::reduce) {
    r.message = verify_total(host[last_scan_input], got[0]);
  } else if (what == primitive::sort || pairs) {
    std::vector<std::uint32_t> got_values(pairs ? n : 0);
    if (pairs) CUDA_CHECK(cudaMemcpy(got_values.data(), values_out, pair_bytes, cudaMemcpyDeviceToHost));
    r.message =
        verify_sort(host[last_scan_input], got, pairs ? &host_values[last_scan_input] : nullptr, got_values);
  } else {
    r.message = verify_sum(host[last_scan_input], got, keyed ? &host_keys[last_scan_input] : nullptr);
  }
  r.status = r.message.empty() ? "ok" : "FAIL";

  for (cudaEvent_t e : {scan_start, scan_end, copy_start, copy_end})
    CUDA_CHECK(cudaEventDestroy(e));
  CUDA_CHECK(cudaFree(temp));
  CUDA_CHECK(cudaFree(selected));
  CUDA_CHECK(cudaFree(copy_dst));
  CUDA_CHECK(cudaFree(output));
  for (T* p : inputs)
    CUDA_CHECK(cudaFree(p));
  for (std::int32_t* p : keys)
    CUDA_CHECK(cudaFree(p));
  for (std::uint32_t* p : values)
    CUDA_CHECK(cudaFree(p));
  CUDA_CHECK(cudaFree(values_out));
  CUDA_CHECK(cudaFree(keys_out));
  CUDA_CHECK(cudaFree(lengths));
  CUDA_CHECK(cudaFree(offsets));
  return r;
}

// A CSV field: quoted when it holds a comma or a quote.
inline std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// clscan-bench's columns where they apply, primitive then keys_per_s last as there; a select's op is its
// predicate and its kind is empty, a sort's op is its direction and its kind the keys' distribution, as
// in clscan-bench's rows.
const char* const csv_header =
    "device,driver,n,type,op,kind,algorithm,reps,buffers,scan_us,copy_us,scan_gbps,"
    "copy_gbps,ratio,verified,error,primitive,keys_per_s,transform";

inline bool sorts(primitive p) { return p == primitive::sort || p == primitive::sort_by_key; }

inline void print_row(const settings& s, const device_info& dev, const row& r) {
  if (s.csv) {
    // As clscan-bench's rows: reduce_by_key's op is its operator, unique_by_key's and
    // run_length_encode's op and kind are empty.
    const char* const op_kind =
        s.what == primitive::select ? "x > 0,"
        : s.what == primitive::reduce || s.what == primitive::reduce_by_key ||
                s.what == primitive::reduce_segmented
            ? "sum,"
        : s.what == primitive::unique_by_key || s.what == primitive::run_length_encode ? ","
        : sorts(s.what) ? (s.distinct_keys ? "ascending,distinct7" : "ascending,uniform")
                        : "sum,inclusive";
    std::printf("%s,%s,%zu,%s,%s,cub,%zu,%zu,%.3f,%.3f,%.4f,%.4f,%.4f,%s,%s,%s,%.0f,%s\n",
                csv_field(dev.name).c_str(), csv_field(dev.driver).c_str(), r.n, s.type.c_str(), op_kind,
                r.reps, r.buffers, r.scan_us, r.copy_us, r.scan_gbps, r.copy_gbps, r.ratio, r.status.c_str(),
                csv_field(r.message).c_str(), primitive_name(s.what), r.keys_per_s,
                clscan_bench::transform_text(s.transform));
  } else {
    std::printf("%-10s %-6s %5zu %7zu %12.1f %12.1f %9.2f %9.2f %7.3f  %s", count_text(r.n).c_str(),
                s.type.c_str(), r.reps, r.buffers, r.scan_us, r.copy_us, r.scan_gbps, r.copy_gbps, r.ratio,
                r.status.c_str());
    if (sorts(s.what)) std::printf("  %.2f G keys/s", r.keys_per_s / 1e9);
    std::printf("\n");
    if (r.status == "FAIL") std::printf("    FAIL: %s\n", r.message.c_str());
  }
  if (r.status == "FAIL" && s.csv)
    std::fprintf(stderr, "cub_bench: FAIL n=%zu %s: %s\n", r.n, s.type.c_str(), r.message.c_str());
  std::fflush(stdout);
}

// The rows of one element type each, declared here with the types main measures. With CUB_BENCH_PART=k
// this file is only type k's instantiation (no main); with CUB_BENCH_SPLIT only main, which uses the
// parts' instantiations instead of making its own. Neither: the whole program, as one nvcc call builds it.
#define CUB_BENCH_ROW(T)                                                                                     \
  row bench_one<T>(const device_info&, primitive, bool, transform_kind, std::size_t, cudaStream_t, void*,    \
                   void*, std::size_t, std::size_t, std::size_t)
#if defined(CUB_BENCH_SPLIT)
extern template CUB_BENCH_ROW(std::int32_t);
extern template CUB_BENCH_ROW(std::uint32_t);
extern template CUB_BENCH_ROW(std::int64_t);
extern template CUB_BENCH_ROW(std::uint64_t);
extern template CUB_BENCH_ROW(float);
extern template CUB_BENCH_ROW(double);
#elif defined(CUB_BENCH_PART)
#if CUB_BENCH_PART == 0
template CUB_BENCH_ROW(std::int32_t);
#elif CUB_BENCH_PART == 1
template CUB_BENCH_ROW(std::uint32_t);
#elif CUB_BENCH_PART == 2
template CUB_BENCH_ROW(std::int64_t);
#elif CUB_BENCH_PART == 3
template CUB_BENCH_ROW(std::uint64_t);
#elif CUB_BENCH_PART == 4
template CUB_BENCH_ROW(float);
#elif CUB_BENCH_PART == 5
template CUB_BENCH_ROW(double);
#else
#error "CUB_BENCH_PART: 0 to 5 (int, uint, long, ulong, float, double)"
#endif
#endif

} // namespace cub_bench_impl

#if !defined(CUB_BENCH_PART)
int main(int argc, char** argv) {
  using namespace cub_bench_impl;
  const settings s = parse_arguments(argc, argv);

  CUDA_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  device_info dev;
  dev.name = prop.name;
  dev.memory = prop.totalGlobalMem;
  char text[160];
  std::snprintf(text, sizeof text, "CUDA driver %d.%d runtime %d.%d CUB %d.%d.%d", driver / 1000,
                driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10, CUB_VERSION / 100000,
                CUB_VERSION / 100 % 1000, CUB_VERSION % 100);
  dev.driver = text;

  cudaStream_t stream = nullptr;
  // A blocking stream: ordered after the uploads that cudaMemcpy makes on the legacy default stream.
  CUDA_CHECK(cudaStreamCreate(&stream));
  void *spacer_src = nullptr, *spacer_dst = nullptr;
  const std::size_t spacer_limit = std::max<std::size_t>(mib, dev.memory / 32);
  std::size_t spacer_bytes = std::min(first_spacer_bytes, spacer_limit);
  float spacer_us = 0;
  for (;;) {
    CUDA_CHECK(cudaMalloc(&spacer_src, spacer_bytes));
    CUDA_CHECK(cudaMalloc(&spacer_dst, spacer_bytes));
    CUDA_CHECK(cudaMemset(spacer_src, 0, spacer_bytes));
    CUDA_CHECK(cudaMemset(spacer_dst, 0, spacer_bytes));
    cudaEvent_t before, after;
    CUDA_CHECK(cudaEventCreate(&before));
    CUDA_CHECK(cudaEventCreate(&after));
    std::vector<float> us;
    for (int k = 0; k < 3; ++k) {
      CUDA_CHECK(cudaEventRecord(before, stream));
      CUDA_CHECK(cudaMemcpyAsync(spacer_dst, spacer_src, spacer_bytes, cudaMemcpyDeviceToDevice, stream));
      CUDA_CHECK(cudaEventRecord(after, stream));
      CUDA_CHECK(cudaEventSynchronize(after));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, before, after));
      if (k) us.push_back(ms * 1000);
    }
    CUDA_CHECK(cudaEventDestroy(before));
    CUDA_CHECK(cudaEventDestroy(after));
    spacer_us = std::min(us[0], us[1]);
    if (spacer_us >= min_spacer_us || spacer_bytes >= spacer_limit) break;
    CUDA_CHECK(cudaFree(spacer_src));
    CUDA_CHECK(cudaFree(spacer_dst));
    const double grow = std::ceil(min_spacer_us / std::max(spacer_us, 0.1f));
    spacer_bytes = std::min(spacer_limit, spacer_bytes * static_cast<std::size_t>(grow));
  }

  if (s.csv) {
    std::printf("%s\n", csv_header);
  } else {
    std::printf("device:   %s (sm_%d%d, %.0f MiB)\n", dev.name.c_str(), prop.major, prop.minor,
                static_cast<double>(dev.memory) / mib);
    std::printf("versions: %s\n", dev.driver.c_str());
    std::printf("spacer:   a copy of %zu MiB before each timed call, %.1f us\n", spacer_bytes / mib,
                spacer_us);
    const char* const call =
        s.what == primitive::select ? "cub::DeviceSelect::If with \"x > 0\" (~43 % kept)"
        : s.what == primitive::by_key
            ? "cub::DeviceScan::InclusiveSumByKey (int keys, segments of 1000 on average)"
        : s.what == primitive::reduce ? "cub::DeviceReduce::Sum"
        : s.what == primitive::sort
            ? (s.distinct_keys ? "cub::DeviceRadixSort::SortKeys (keys of 7 distinct values)"
                               : "cub::DeviceRadixSort::SortKeys (uniform random keys)")
        : s.what == primitive::sort_by_key
            ? (s.distinct_keys ? "cub::DeviceRadixSort::SortPairs (keys of 7 distinct values, uint values)"
                               : "cub::DeviceRadixSort::SortPairs (uniform random keys, uint values)")
        : s.what == primitive::reduce_by_key
            ? "cub::DeviceReduce::ReduceByKey, sum (int keys, runs of 1000 on average)"
        : s.what == primitive::unique_by_key
            ? "cub::DeviceSelect::UniqueByKey (int keys, runs of 1000 on average)"
        : s.what == primitive::run_length_encode
            ? "cub::DeviceRunLengthEncode::Encode (runs of 1000 on average, uint lengths)"
        : s.what == primitive::reduce_segmented ? "cub::DeviceSegmentedReduce::Sum (CSR offsets)"
        : s.what == primitive::inclusive_segmented
            ? "segmented inclusive sum: cub::DeviceScan::InclusiveSumByKey over each element's segment number"
            : "cub::DeviceScan::InclusiveSum";
    if (segmented(s.what))
      std::printf("segments: %zu elements each, the last one shorter\n", s.segment_length);
    if (s.transform != transform_kind::none)
      std::printf("transform: f(x) = %s, through a thrust::transform_iterator\n",
                  clscan_bench::transform_text(s.transform));
    if (sorts(s.what))
      std::printf("%s; times are medians; GB/s counts read + write bytes of the keys (2 * n * sizeof(T)), "
                  "as for the copy of the keys\n\n",
                  call);
    else if (s.what == primitive::reduce)
      std::printf("%s; times are medians; call GB/s counts the bytes read (n * sizeof(T)), copy GB/s read + "
                  "write; vs_read = (copy time / 2) / call time\n\n",
                  call);
    else if (s.what == primitive::run_length_encode)
      std::printf("%s; times are medians; GB/s counts read + write bytes of the keys (2 * n * sizeof(T)), "
                  "as for the copy of the keys\n\n",
                  call);
    else
      std::printf("%s; times are medians; GB/s counts read + write bytes of the values (2 * n * sizeof(T)), "
                  "as for the copy\n\n",
                  call);
    std::printf("%-10s %-6s %5s %7s %12s %12s %9s %9s %7s  %s\n", "n", "type", "reps", "buffers",
                s.what == primitive::scan ? "scan_us" : "call_us", "copy_us",
                s.what == primitive::scan ? "scan_GB/s" : "call_GB/s", "copy_GB/s",
                s.what == primitive::reduce || s.what == primitive::reduce_segmented ? "vs_read" : "ratio",
                "verified");
  }

  std::size_t failed = 0;
  for (const std::size_t n : s.sizes) {
    row r;
    const auto run = [&](auto zero) {
      r = bench_one<decltype(zero)>(dev, s.what, s.distinct_keys, s.transform, s.segment_length, stream,
                                    spacer_src, spacer_dst, spacer_bytes, n, s.reps);
    };
    // clscan's long and ulong are 64 bits (OpenCL C's), as std::int64_t and std::uint64_t here.
    // clang-format off
    if (s.type == "int") run(std::int32_t{});
    else if (s.type == "uint") run(std::uint32_t{});
    else if (s.type == "long") run(std::int64_t{});
    else if (s.type == "ulong") run(std::uint64_t{});
    else if (s.type == "float") run(float{});
    else run(double{});
    // clang-format on
    print_row(s, dev, r);
    if (r.status != "ok") ++failed;
  }

  CUDA_CHECK(cudaFree(spacer_src));
  CUDA_CHECK(cudaFree(spacer_dst));
  CUDA_CHECK(cudaStreamDestroy(stream));
  if (failed)
    std::fprintf(stderr, "cub_bench: %zu of %zu sizes FAILED verification\n", failed, s.sizes.size());
  return failed ? 1 : 0;
}
#endif
