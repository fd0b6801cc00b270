// Reduce: the total of n elements under a scan operator, written to one element of a device buffer.
//
//   cl::Event e = clscan::reduce(queue, in, out, n);   // out[0] = in[0] + ... + in[n-1]
//
// out[out_offset] = initial op in[in_offset] op ... op in[in_offset + n - 1], where initial is
// options::initial or options::initial_on_device when set and is otherwise left out (n == 0 writes
// initial, or the operator's identity). The other options are those of the scans (operator, custom
// operator, wait list); the result is the same bits every run on the same device for every type, so
// `deterministic` changes nothing. `algorithm` is ignored: reduce has one algorithm, two launches in an
// order fixed by the device and n (work-groups reduce contiguous ranges, one work-group combines their
// totals), which needs no atomics and no single-pass qualification, so no choice is left to make. The
// contracts of the scans hold: the call only enqueues, bad arguments throw before anything is enqueued,
// repeated calls build and allocate nothing. `out` may be `in` (the total is written after every element is
// read).
#pragma once

#include <clscan/scan.hpp>

#include <cstddef>

namespace clscan {

namespace detail {

// request.kind is ignored.
cl::Event enqueue_reduce(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                         std::size_t n, const scan_request& request);

} // namespace detail

template <typename T = cl_int>
cl::Event reduce(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                 const options<T>& opts = {}) {
  return detail::enqueue_reduce(queue, in, out, n, detail::make_request(scan_kind::inclusive, opts));
}

} // namespace clscan
