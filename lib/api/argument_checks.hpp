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

// True when ranges a and b of one buffer overlap without starting at the same byte (in place: an output
// that starts where its input does: as long as the input, or shorter for a selection's bounded output).
inline bool partially_overlapping(byte_range a, byte_range b) {
  if (a.offset == b.offset || a.bytes == 0 || b.bytes == 0) return false;
  return a.offset < b.offset ? b.offset - a.offset < a.bytes : a.offset - b.offset < b.bytes;
}

// An input and the output a call writes from it: through one handle (`one_handle`) they must start at
// the same element (in place) or be apart; through two handles they must share no memory, which OpenCL
// leaves undefined. message(one_handle) builds the text of a failure, only then.
template <typename Message>
void check_in_out(bool one_handle, const memory_view& in, byte_range in_range, const memory_view& out,
                  byte_range out_range, Message&& message) {
  if (one_handle ? partially_overlapping(in_range, out_range) : views_overlap(in, in_range, out, out_range))
    throw invalid_argument(message(one_handle));
}

} // namespace clscan::detail
