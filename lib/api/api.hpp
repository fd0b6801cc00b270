// What the layers over the single-device calls (lib/api/parts.cpp) use of lib/api/api.cpp beyond the calls.
#pragma once

#include <clscan/scan.hpp>

#include <cstddef>

namespace clscan::detail {

// Everything enqueue_scan and enqueue_reduce do before they enqueue: the argument checks, the plan (the
// single-pass qualification where it needs one) and the program, built or loaded. Nothing is enqueued,
// so a layer that makes several calls can have every program ready (a build_error thrown) before it
// enqueues any of them.
void prepare_scan(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                  const scan_request& request);
void prepare_reduce(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                    const scan_request& request);

} // namespace clscan::detail
