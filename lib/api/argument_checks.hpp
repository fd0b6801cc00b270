// What the argument checks of the calls share (arguments.cpp, sort_arguments.cpp): the queue, the wait
// list, and the rule for an input and the output a call writes from it.
#pragma once

#include "arguments.hpp"

#include <clscan/error.hpp>

#include <cstddef>
#include <vector>

namespace clscan::detail {

// The queue of a call (not null; `who` names the call) and what the checks need from it: its context,
// device and mode.
checked_call call_on(const cl::CommandQueue& queue, const char* who);

// The wait list (null: none), checked against the call's context, as the call passes it on.
void take_wait_list(const std::vector<cl::Event>* wait_list, checked_call& call);

// True when [a, a + n) and [b, b + n) in the same buffer overlap without being the same range.
inline bool partially_overlapping(std::size_t a, std::size_t b, std::size_t n) {
  if (a == b) return false;
  return a < b ? b - a < n : a - b < n;
}

// An input and the output a call writes from it, ranges of equal length: through one handle
// (`one_handle`) they must be the same range (in place) or apart; through two handles they must share no
// memory, which OpenCL leaves undefined. message(one_handle) builds the text of a failure, only then.
template <typename Message>
void check_in_out(bool one_handle, const memory_view& in, byte_range in_range, const memory_view& out,
                  byte_range out_range, Message&& message) {
  if (one_handle ? partially_overlapping(in_range.offset, out_range.offset, in_range.bytes)
                 : views_overlap(in, in_range, out, out_range))
    throw invalid_argument(message(one_handle));
}

} // namespace clscan::detail
