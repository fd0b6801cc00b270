// Stable LSD radix sort: sort, sort_by_key and sorted_order (argsort) of any element type.
//
//   cl::Event e = clscan::sort<cl_int>(queue, keys, n);                      // in place, ascending
//   clscan::sort_options<cl_float> o; o.descending = true;
//   clscan::sort_by_key<cl_float, cl_uint>(queue, keys, values, keys_out, values_out, n, o);
//   clscan::sorted_order<cl_double>(queue, keys, indices, n);               // indices: cl_uint
//
// Order. Integers numerically. Floating-point keys in numpy's order:
//   -inf < ... < -0.0 == +0.0 < ... < +inf < every NaN
// -0.0 and +0.0 compare equal (they keep their input order) and every NaN, of any sign or payload,
// goes last in input order. Descending reverses the order of the non-NaN keys (+inf first) and still
// puts the NaNs last, in input order. The output holds the input's own bits: -0.0 stays -0.0 and a
// NaN keeps its payload. Every sort is stable: equal keys keep their input order.
//
// The keys are sorted on their order-preserving unsigned image u(k), of 8 * sizeof(K) bits: unsigned
// integers as they are; signed integers with the sign bit flipped; floating point with -0.0 read as
// +0.0, then a negative value's bits all inverted and a positive value's sign bit set; every NaN is
// all ones. Descending sorts on ~u(k) for every key but NaN. Only the bits [begin_bit, end_bit) of that
// image take part: keys equal in those bits keep their input order.
//
// Like every clscan call, these only enqueue work on `queue`: they never wait for the device and
// never read data back; the returned event completes when the outputs are written. n == 0 enqueues a
// marker. n may exceed 2^32. Bad arguments throw clscan::invalid_argument naming the argument before
// anything is enqueued, and then no buffer has been touched. Inputs and outputs must not overlap
// except exactly (the same buffer and offset), which sorts in place. A repeated call of the same
// types builds and allocates nothing.
//
// Memory beside the user's buffers, held per (context, device) like the scans' temporaries and
// reused by later sorts (one set per sort in flight on the device at once), grown to the largest call:
//   n * sizeof(K)               a second key buffer (the passes ping-pong); sorted_order, which never
//                               writes its keys, two of them when it makes three passes or more
//   + n * sizeof(V)             a second value buffer (sort_by_key; sizeof(I) for sorted_order)
//   + tiles * 256 * (4 + 4)     three-stage passes: per-tile digit counts and their offsets (4 + 8
//                               where n >= 2^32), tiles = ceil(n / tile): 16384 keys on CPUs, 4096
//                               on GPUs (fewer for 64-bit keys where local memory is small)
//   + 256 * 4                   three-stage passes: the digits' totals in a pass (8 where n >= 2^32)
//   + tiles * 256 * 8 + 8       one-pass passes instead: the look-back's status words, a slot of
//                               8 bytes per tile and digit (the same buffer as the single-pass scans'
//                               status words on that set, grown to the larger need); tiles of 6144
//                               keys on GPUs for keys alone, 4096 with values (on NVIDIA, ranked in
//                               warps: 384 work-items, 7680 and 4608; fewer where local memory is
//                               small, as for 64-bit keys there: 3840 and 3072)
//   + 8 * 256 * 4               one-pass passes: each pass's digit offsets
//   + passes * 256 * 4          the histogram of every pass (n >= 2^32: one per work-group, 4 per
//                               compute unit at most)
//   + 32                        a flag per pass
// where passes = ceil((end_bit - begin_bit) / 8). For 32-bit keys on a GPU that is about
// n * (4 + sizeof(V) + 0.5) bytes with either kind of pass (n * 4.3 for keys alone with one-pass ones).
#pragma once

#include <clscan/options.hpp>
#include <clscan/types.hpp>

#include <cstddef>
#include <type_traits>
#include <vector>

namespace clscan {

template <typename K = cl_uint> struct sort_options {
  bool descending = false;
  // Sort on bits [begin_bit, end_bit) of the key's order-preserving unsigned image (above); the other
  // bits are ignored. A smaller range means fewer passes (e.g. keys known to be < 2^20). Needs
  // begin_bit <= end_bit <= 8 * sizeof(K); begin_bit == end_bit copies the input in its order.
  unsigned begin_bit = 0, end_bit = 8 * sizeof(K);
  // Element offsets into the buffers (values_in/out_offset: of sort_by_key's values, or of
  // sorted_order's indices as values_out_offset).
  std::size_t keys_in_offset = 0, keys_out_offset = 0, values_in_offset = 0, values_out_offset = 0;
  // three_stage: per 8-bit digit pass, count each tile's digits, scan the tile-by-digit counts, scatter;
  // runs on any device. single_pass: one kernel per pass, whose tiles learn how many keys of each digit
  // the tiles before them hold through a decoupled look-back with a fallback (a tile whose predecessor
  // stays silent counts that predecessor's digits itself, so no tile waits for another to be
  // scheduled). single_pass runs where the device shape ranks tiles in work-groups (GPUs), n < 2^30
  // and the device qualified for the single-pass scans' look-back (clscan::qualify_single_pass, 4-byte
  // elements; the first such call may run that check, as a scan's does); elsewhere the three-stage
  // passes run, with the same result. automatic: single_pass wherever it would run (on an H100 it was
  // the faster from 2^20 to 2^28 keys, alone and with values: docs/PERFORMANCE.md, "Sort").
  clscan::algorithm algorithm = clscan::algorithm::automatic;
  // Events the sort waits for before it reads its inputs.
  std::vector<cl::Event> wait_list;
};

namespace detail {

enum class sort_call { keys, pairs, order };

// A sort with its element types erased, as scan_request is for scans.
struct sort_request {
  sort_call call = sort_call::keys;
  element_type key_type = element_type::uint32;
  element_type value_type = element_type::uint32; // pairs: V; order: I (uint32 or uint64)
  bool descending = false;
  unsigned begin_bit = 0, end_bit = 32;
  std::size_t keys_in_offset = 0, keys_out_offset = 0, values_in_offset = 0, values_out_offset = 0;
  clscan::algorithm algo = clscan::algorithm::automatic;
  const std::vector<cl::Event>* wait_list = nullptr;
};

// values_in: sort_by_key's values, else null; values_out: sort_by_key's values or sorted_order's
// indices, else null.
cl::Event enqueue_sort(const cl::CommandQueue& queue, const cl::Buffer& keys_in, const cl::Buffer& keys_out,
                       const cl::Buffer* values_in, const cl::Buffer* values_out, std::size_t n,
                       const sort_request& request);

// Field by field, as make_request is for scans (scan.hpp): the two requests share no field's meaning,
// so one generic copy would only hide which option lands where.
template <typename K> sort_request make_sort_request(sort_call call, const sort_options<K>& opts) {
  static_assert(element_traits<K>::supported,
                "clscan sorts keys of cl_int, cl_uint, cl_long, cl_ulong, cl_float and cl_double");
  sort_request r;
  r.call = call;
  r.key_type = element_traits<K>::type;
  r.descending = opts.descending;
  r.begin_bit = opts.begin_bit;
  r.end_bit = opts.end_bit;
  r.keys_in_offset = opts.keys_in_offset;
  r.keys_out_offset = opts.keys_out_offset;
  r.values_in_offset = opts.values_in_offset;
  r.values_out_offset = opts.values_out_offset;
  r.algo = opts.algorithm;
  r.wait_list = &opts.wait_list;
  return r;
}

} // namespace detail

// Stable LSD radix sort of keys_in[0, n) into keys_out[0, n). keys_in == keys_out with equal offsets
// sorts in place.
template <typename K = cl_uint>
cl::Event sort(const cl::CommandQueue& queue, const cl::Buffer& keys_in, const cl::Buffer& keys_out,
               std::size_t n, const sort_options<K>& opts = {}) {
  return detail::enqueue_sort(queue, keys_in, keys_out, nullptr, nullptr, n,
                              detail::make_sort_request(detail::sort_call::keys, opts));
}

// In place: keys[keys_in_offset, + n) sorted; keys_out_offset must equal keys_in_offset.
template <typename K = cl_uint>
cl::Event sort(const cl::CommandQueue& queue, const cl::Buffer& keys, std::size_t n,
               const sort_options<K>& opts = {}) {
  return detail::enqueue_sort(queue, keys, keys, nullptr, nullptr, n,
                              detail::make_sort_request(detail::sort_call::keys, opts));
}

// Keys and values moved together; equal keys keep their input order. In place when both outputs are
// their inputs (same buffers and offsets). V is any of the six element types.
template <typename K = cl_uint, typename V = cl_uint>
cl::Event sort_by_key(const cl::CommandQueue& queue, const cl::Buffer& keys_in, const cl::Buffer& values_in,
                      const cl::Buffer& keys_out, const cl::Buffer& values_out, std::size_t n,
                      const sort_options<K>& opts = {}) {
  static_assert(element_traits<V>::supported,
                "clscan sorts values of cl_int, cl_uint, cl_long, cl_ulong, cl_float and cl_double");
  detail::sort_request r = detail::make_sort_request(detail::sort_call::pairs, opts);
  r.value_type = element_traits<V>::type;
  return detail::enqueue_sort(queue, keys_in, keys_out, &values_in, &values_out, n, r);
}

// argsort: indices_out[values_out_offset + j] = the input position (0-based, relative to
// keys_in_offset) of the j-th key in stable sorted order. The keys are only read. I is cl_uint or
// cl_ulong; cl_uint with n > 2^32 throws invalid_argument.
template <typename K = cl_uint, typename I = cl_uint>
cl::Event sorted_order(const cl::CommandQueue& queue, const cl::Buffer& keys, const cl::Buffer& indices_out,
                       std::size_t n, const sort_options<K>& opts = {}) {
  static_assert(std::is_same<I, cl_uint>::value || std::is_same<I, cl_ulong>::value,
                "sorted_order writes cl_uint or cl_ulong indices");
  detail::sort_request r = detail::make_sort_request(detail::sort_call::order, opts);
  r.value_type = element_traits<I>::type;
  return detail::enqueue_sort(queue, keys, keys, nullptr, &indices_out, n, r);
}

} // namespace clscan
