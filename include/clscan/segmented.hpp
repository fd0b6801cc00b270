// Segmented scans and reductions over segments given by offsets, as CSR row pointers give them (CUB's
// DeviceSegmentedScan and DeviceSegmentedReduce): `offsets` holds num_segments + 1 entries of O
// (cl_uint or cl_ulong), and segment s is [offsets[s], offsets[s + 1]). Empty segments are allowed.
//
//   clscan::inclusive_segmented<cl_float>(queue, in, out, n, row_ptr, rows);   // per-row running sums
//   clscan::reduce_segmented<cl_float>(queue, in, row_sums, n, row_ptr, rows); // row_sums[s], s < rows
//
// The library never reads the offsets on the host (that would wait for the device), so any values are
// accepted, and what they mean is defined for all of them:
//
// - The scans (inclusive_segmented, exclusive_segmented) write all n outputs. Element i starts a segment
//   iff i == 0 or i == offsets[s] for some s in [0, num_segments] (the last entry too): entries at or
//   past n start nothing, and their order does not matter. So the elements before offsets[0] form a
//   segment of their own, and so do those from offsets[num_segments] on; with CSR offsets
//   (non-decreasing, offsets[0] == 0, offsets[num_segments] == n) these are the CSR segments.
//   inclusive: out[i] = in[h] op ... op in[i], where h is the start of i's segment; exclusive: out[h] =
//   the identity, then the running value. With options::initial, every segment starts from it (inclusive
//   out[i] = initial op in[h] op ... op in[i], exclusive out[h] = initial), as in the scans by key.
// - reduce_segmented writes out[out_offset + s] for s in [0, num_segments): with b = offsets[s] and
//   e = min(n, offsets[s + 1]), the identity (or `initial`) when b >= e (an empty segment, one past n,
//   or offsets[s + 1] <= offsets[s]); otherwise `initial` (if set) op in[b] op ... op in[e - 1]: each
//   range on its own, as CUB's DeviceSegmentedReduce defines it, whatever the other ranges (unsorted,
//   overlapping, nested). Floating-point results are combined in an order fixed by the device, n and
//   the offsets (below), so the same call gives the same bits every run.
//
// The options are those of the scans by key (by_key.hpp): operators, custom operators with their
// identity, named parameters, `initial`, deterministic, algorithm, in_offset, out_offset, wait list;
// not transform, key_equal or initial_on_device (clscan::invalid_argument). in == out (the same buffer
// and offset) scans in place. The offsets may be any readable buffer of the queue's context, and may
// share memory with the input, not with the output. The contracts of the scans hold: the call only
// enqueues, bad arguments (null, foreign or too small buffers, num_segments + 1 offsets past
// offsets_offset, bad options, an output overlapping the input or the offsets) throw before anything is
// enqueued, and a repeat call with the same or a smaller n and num_segments builds and allocates nothing.
// n == 0: the scans enqueue a marker; reduce_segmented writes the identity (or `initial`) to every
// result. num_segments == 0: reduce_segmented enqueues a marker; the scans read offsets[0] only.
//
// How they run, inside the one call, chained by events, on device memory of clscan's per-(context,
// device) storage beside the user's buffers (kept for later calls, as the scans' temporaries are).
// The scans (inclusive_segmented, exclusive_segmented):
//   1. a kernel of one work-item per offset sets the one-byte head flag of each segment start in a
//      temporary of in_offset + n flags (the first in_offset never used), which is all zeros between
//      calls: cleared whole once when it is allocated, and cleared again by the call's last kernel, which
//      resets the flags the call set;
//   2. the scan by key (kernels/by_key.cl) of the input with those flags as keys, an element continuing
//      its segment where its flag is 0, into `out`, on its look-back or three-stage paths as `algorithm`
//      asks.
//   They read the input and a byte of flags per element once, and the offsets three times.
// reduce_segmented (kernels/segment_reduce.cl; `algorithm` and `deterministic` change nothing: its
// order is always fixed), the input cut into chunks of C elements (4096 on GPUs, 1024 on other devices):
//   1. a kernel of one work-item per whole chunk (n / C of them): a binary search of the offsets for a
//      segment that covers the chunk whole; where it finds one, the chunk's total (in element order, or
//      for the built-in operators in vectors of 8 lanes, combined in lane order) and a flag saying so;
//   2. a kernel per level of totals above the chunks (up to three levels while one has an entry): one
//      work-item per entry, the total of 64 entries of the level below where all of them have one;
//   3. a kernel of one work-item per segment: the reduction of its head (to its first chunk edge), the
//      totals of the whole chunks inside it, taken from the highest levels whose entries lie inside it
//      whole (it reads an entry's elements itself where the entry has no total, which only unsorted
//      offsets cause), and its tail, in element order; `initial` in front.
//   With CSR offsets each element is read once: a short segment by its own work-item, a long one mostly
//   by the chunks' kernel in parallel; a segment of all n costs its work-item fewer than 2 * 64
//   combinations per level and the entries of the highest level (n / (64^3 C)). Nothing of n elements is
//   written: the temporaries are the totals and cl_uint flags of n / C chunks and of the levels above
//   (about n / 63 C more of each). Unsorted or overlapping offsets only cost more: some elements are
//   then read more than once.
// Work is O(n + num_segments) whatever the segments' lengths (reduce_segmented adds n / C searches of
// log2(num_segments) steps): many tiny segments and a few huge ones run alike. The offsets must not change
// while a call runs (they are an input, as `in` is): flags set from them and not cleared would start segments
// in later scans on the same storage.
#pragma once

#include <clscan/primitives.hpp>

#include <cstddef>
#include <type_traits>

namespace clscan {

template <typename T = cl_int> struct segmented_options : options<T> {
  std::size_t offsets_offset = 0; // the first entry of `offsets` used, in its elements
};

namespace detail {

enum class segmented_call { inclusive, exclusive, reduce };

struct segmented_request {
  segmented_call kind = segmented_call::inclusive;
  // The values' type, operator, initial value, offsets in and out, algorithm and wait list.
  scan_request scan;
  element_type offset_type = element_type::uint32; // uint32 or uint64
  std::size_t offsets_offset = 0;
};

// in: n values; out: n values (scans) or num_segments (reduce); offsets: num_segments + 1 entries.
cl::Event enqueue_segmented(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                            std::size_t n, const cl::Buffer& offsets, std::size_t num_segments,
                            const segmented_request& request);

template <typename T, typename O>
segmented_request make_segmented_request(segmented_call kind, const segmented_options<T>& opts) {
  static_assert(std::is_same_v<O, cl_uint> || std::is_same_v<O, cl_ulong>,
                "clscan segment offsets are cl_uint or cl_ulong");
  segmented_request r;
  r.kind = kind;
  r.scan = make_request(kind == segmented_call::exclusive ? scan_kind::exclusive : scan_kind::inclusive,
                        static_cast<const options<T>&>(opts));
  r.offset_type = element_traits<O>::type;
  r.offsets_offset = opts.offsets_offset;
  return r;
}

} // namespace detail

// out[i] = in[h] op ... op in[i], h the start of i's segment (see above); n outputs.
template <typename T = cl_int, typename O = cl_uint>
cl::Event inclusive_segmented(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                              std::size_t n, const cl::Buffer& offsets, std::size_t num_segments,
                              const segmented_options<T>& opts = {}) {
  return detail::enqueue_segmented(
      queue, in, out, n, offsets, num_segments,
      detail::make_segmented_request<T, O>(detail::segmented_call::inclusive, opts));
}

// Each segment starts from the identity (or options::initial); n outputs.
template <typename T = cl_int, typename O = cl_uint>
cl::Event exclusive_segmented(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                              std::size_t n, const cl::Buffer& offsets, std::size_t num_segments,
                              const segmented_options<T>& opts = {}) {
  return detail::enqueue_segmented(
      queue, in, out, n, offsets, num_segments,
      detail::make_segmented_request<T, O>(detail::segmented_call::exclusive, opts));
}

// out[out_offset + s] = the reduction of segment s of in[0, n) (see above), s < num_segments: `out` holds
// num_segments elements from out_offset on. The same arguments as the scans'.
template <typename T = cl_int, typename O = cl_uint>
cl::Event reduce_segmented(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                           std::size_t n, const cl::Buffer& offsets, std::size_t num_segments,
                           const segmented_options<T>& opts = {}) {
  return detail::enqueue_segmented(
      queue, in, out, n, offsets, num_segments,
      detail::make_segmented_request<T, O>(detail::segmented_call::reduce, opts));
}

} // namespace clscan
