// Calls on runs of equal consecutive keys (compared with ==, so every NaN key is a run of its own, and
// -0.0 and 0.0 are one run): Thrust's and Boost.Compute's reduce_by_key and unique_by_key, CUB's
// DeviceRunLengthEncode::Encode.
//
//   clscan::reduce_by_key_options<cl_float> opts;               // op::sum by default
//   clscan::reduce_by_key<cl_int, cl_float>(queue, keys, values, keys_out, sums_out, count, n, opts);
//   // run j of keys[0, n): keys_out[j] its key, sums_out[j] its values' sum; count[0] = the runs (cl_ulong)
//
// keys_out[j] is the run's first key (what unique keeps). Keys and values may have different element
// types. Outputs past the count are not written. They hold n elements, or out_capacity where the
// options set it (outputs sized for the result): no element at or past out_offset + out_capacity of
// either output is written, and the count still reports every run. As the other calls, each only enqueues
// work on `queue` and never waits for the device; bad arguments throw clscan::invalid_argument before
// anything is enqueued (user buffers untouched); a repeat call builds and allocates nothing. No output may
// overlap an input, another output or the count.
//
// How they run: in one pass (kernels/runs.cl) where the device qualified the single-pass look-back,
// `algorithm` is automatic or single_pass, n is below 2^32 and what a tile carries fits 64 bits: the
// count of run heads before it and the value of the run open at its end, so reduce_by_key of 4-byte
// values (cl_int, cl_uint, cl_float), run_length_encode (its lengths, below 2^32 there, carried as
// cl_uint whatever their type), and unique_by_key of any values. Each tile reads its keys and values
// once and writes its runs' keys and values where the count of heads before them puts them. Otherwise
// (reduce_by_key of 8-byte values, n of 2^32 or more, algorithm::three_stage, a device that failed
// the qualification) as several passes of the existing
// kernels inside the one call, chained by events:
//   reduce_by_key      a scan by key of the values into a temporary, unique of the keys (keys_out and
//                      the count), then a selection of the temporary at each run's last element;
//   unique_by_key      unique of the keys, then a selection of the values at each run's first element;
//   run_length_encode  a temporary of ones, its scan by key (the lengths so far), unique of the keys,
//                      then a selection of the scan at each run's last element.
// Each pass is one-pass (look-back) or three-stage as `algorithm` asks; the passes read the keys three
// times.
#pragma once

#include <clscan/by_key.hpp>
#include <clscan/select.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>

namespace clscan {

// The options of a scan (operator, custom operator and identity, deterministic, algorithm, offsets,
// wait list) and where the count goes. With `initial`, every run's reduction has it combined in front
// (as the scans by key start every segment from it); initial_on_device is not supported. in_offset
// applies to the keys and the values alike, out_offset to both outputs.
template <typename V = cl_int> struct reduce_by_key_options : options<V> {
  std::size_t count_offset = 0; // in cl_ulong elements of `count`
  // Elements each output holds from out_offset on, as select_options::out_capacity. Unset: n.
  std::optional<std::size_t> out_capacity;
};

namespace detail {

enum class run_call { reduce_by_key, unique_by_key, run_length_encode };

struct run_request {
  run_call kind = run_call::reduce_by_key;
  // The values' (or the lengths') type, operator, initial value, offsets, algorithm and wait list.
  scan_request scan;
  element_type key_type = element_type::int32;
  std::size_t count_offset = 0;
  const std::string* predicate = nullptr;  // select_options::predicate, which must be empty
  std::optional<std::size_t> out_capacity; // of each output; none: n
};

// values_in: null for run_length_encode.
cl::Event enqueue_runs(const cl::CommandQueue& queue, const cl::Buffer& keys_in, const cl::Buffer* values_in,
                       const cl::Buffer& keys_out, const cl::Buffer& values_out, const cl::Buffer& count,
                       std::size_t n, const run_request& request);

template <typename K, typename V> run_request make_run_request(run_call kind, const select_options<K>& opts) {
  static_assert(element_traits<K>::supported && element_traits<V>::supported,
                "clscan keys and values are cl_int, cl_uint, cl_long, cl_ulong, cl_float or cl_double");
  run_request r;
  r.kind = kind;
  r.scan.type = element_traits<V>::type;
  take_select_options(r.scan, opts); // parameters and key_equal are refused (run_arguments.cpp)
  r.key_type = element_traits<K>::type;
  r.count_offset = opts.count_offset;
  r.predicate = &opts.predicate;
  r.out_capacity = opts.out_capacity;
  return r;
}

} // namespace detail

// For each run j of equal keys in keys_in[0, n): keys_out[j] = its first key, values_out[j] = its
// values combined in order with opts.operation (sum by default; any operator the scans take);
// count[count_offset] = the number of runs, as a cl_ulong.
template <typename K = cl_int, typename V = cl_int>
cl::Event reduce_by_key(const cl::CommandQueue& queue, const cl::Buffer& keys_in, const cl::Buffer& values_in,
                        const cl::Buffer& keys_out, const cl::Buffer& values_out, const cl::Buffer& count,
                        std::size_t n, const reduce_by_key_options<V>& opts = {}) {
  static_assert(element_traits<K>::supported,
                "clscan keys are cl_int, cl_uint, cl_long, cl_ulong, cl_float or cl_double");
  detail::run_request r;
  r.kind = detail::run_call::reduce_by_key;
  r.scan = detail::make_request(scan_kind::inclusive, static_cast<const options<V>&>(opts));
  r.key_type = element_traits<K>::type;
  r.count_offset = opts.count_offset;
  r.out_capacity = opts.out_capacity;
  return detail::enqueue_runs(queue, keys_in, &values_in, keys_out, values_out, count, n, r);
}

// For each run j of equal keys: keys_out[j] = its first key, values_out[j] = the value beside it;
// count = the number of runs. opts.predicate must be empty.
template <typename K = cl_int, typename V = cl_int>
cl::Event unique_by_key(const cl::CommandQueue& queue, const cl::Buffer& keys_in, const cl::Buffer& values_in,
                        const cl::Buffer& keys_out, const cl::Buffer& values_out, const cl::Buffer& count,
                        std::size_t n, const select_options<K>& opts = {}) {
  return detail::enqueue_runs(queue, keys_in, &values_in, keys_out, values_out, count, n,
                              detail::make_run_request<K, V>(detail::run_call::unique_by_key, opts));
}

// For each run j of equal elements of in[0, n): unique_out[j] = its first element, lengths_out[j] = its
// length; count = the number of runs. Lengths are L: cl_uint (the default; n must then be below 2^32,
// else clscan::invalid_argument) or cl_ulong. opts.predicate must be empty; opts.flags_offset is unused.
template <typename K = cl_int, typename L = cl_uint>
cl::Event run_length_encode(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& unique_out,
                            const cl::Buffer& lengths_out, const cl::Buffer& count, std::size_t n,
                            const select_options<K>& opts = {}) {
  static_assert(std::is_same_v<L, cl_uint> || std::is_same_v<L, cl_ulong>,
                "run_length_encode writes cl_uint or cl_ulong lengths");
  return detail::enqueue_runs(queue, in, nullptr, unique_out, lengths_out, count, n,
                              detail::make_run_request<K, L>(detail::run_call::run_length_encode, opts));
}

} // namespace clscan
