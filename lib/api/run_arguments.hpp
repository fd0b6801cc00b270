// The argument checks of the calls on runs of equal keys (runs.hpp).
#pragma once

#include "arguments.hpp"

#include <clscan/runs.hpp>

namespace clscan::detail {

// "clscan::reduce_by_key" and so on, for messages.
const char* run_call_name(run_call kind);

// The queue, the wait list and the request as a scan's; the keys and values (values_in null for
// run_length_encode), both outputs and the count (each buffer named in messages: of the queue's
// context, holding its range, access flags); no output sharing memory with another buffer; a predicate
// left empty; cl_uint lengths only below 2^32 elements.
checked_call check_run_arguments(const cl::CommandQueue& queue, const cl::Buffer& keys_in,
                                 const cl::Buffer* values_in, const cl::Buffer& keys_out,
                                 const cl::Buffer& values_out, const cl::Buffer& count, std::size_t n,
                                 const run_request& request);

} // namespace clscan::detail
