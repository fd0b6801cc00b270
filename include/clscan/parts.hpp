// Scans of one logical array split into parts, each part in a buffer of its own device (any
// platforms, any contexts), scanned in place in part order:
//
//   std::vector<clscan::part> parts = {{queue_gpu0, buffer0, n0}, {queue_gpu1, buffer1, n1}};
//   std::vector<cl::Event> done = clscan::inclusive(parts);   // one event per part
//
// Part k's result is the scan of the concatenation of parts 0..k, so each device scans its own part
// once it knows the total of the parts before it: every part but the last is reduced first
// (clscan::reduce), those totals travel through host memory, and each device combines the totals it
// needs with the operator's own code before it scans its part with that value in front
// (options::initial_on_device). A device reads its part twice and writes it once.
//
// Options as for the single-device scans, with these differences: `initial` goes in front of part 0
// only; in_offset and out_offset must be 0 (each part has its own `offset`); initial_on_device is not
// taken; an event of `wait_list` is waited for by the parts whose queue shares its context (and must
// share the context of at least one part). `deterministic` holds per part as for a single-device scan.
//
// The call only enqueues: the caller's thread never blocks. The totals move between contexts through
// user events that a thread the call starts opens once the totals have been read (it waits in
// clWaitForEvents and ends when the last total is in), so queues must be flushed for work to start,
// which the call does. It allocates a few small buffers per part per call. Bad arguments in any part
// throw before any part's data is touched. The returned events complete when each part holds its
// result. A failure of an earlier part's commands (a failed wait-list event) fails the later parts'
// events too, where the implementation ends the commands a failure terminates (NVIDIA 580, PoCL 5.0
// and Mesa rusticl 22.3 do; PoCL 3.1 aborts the process while it fails them). The totals take the
// host path in one context too: on two H200s in one NVIDIA context, copying them device to device
// behind the reduces' events made 2 x 2^29 take 3000 us against 2000 us (2026-11-23, docs/PERFORMANCE.md).
#pragma once

#include <clscan/scan.hpp>

#include <cstddef>
#include <vector>

namespace clscan {

struct part {
  cl::CommandQueue queue;
  cl::Buffer buffer;
  std::size_t n = 0;
  std::size_t offset = 0; // in elements of `buffer`
};

namespace detail {

std::vector<cl::Event> enqueue_parts(const std::vector<part>& parts, const scan_request& request);

} // namespace detail

template <typename T = cl_int>
std::vector<cl::Event> inclusive(const std::vector<part>& parts, const options<T>& opts = {}) {
  return detail::enqueue_parts(parts, detail::make_request(scan_kind::inclusive, opts));
}

template <typename T = cl_int>
std::vector<cl::Event> exclusive(const std::vector<part>& parts, const options<T>& opts = {}) {
  return detail::enqueue_parts(parts, detail::make_request(scan_kind::exclusive, opts));
}

} // namespace clscan
