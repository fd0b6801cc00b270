// Enqueueing a checked call's commands on a set of temporaries: what every call of lib/api/api.cpp and
// the sort (lib/algorithms/sort.cpp) do once their kernels and temporaries are ready.
#pragma once

#include "arguments.hpp"
#include "launch.hpp"
#include "workspace.hpp"

#include <utility>
#include <vector>

namespace clscan::detail {

// True when some event of the wait list has not completed yet (so it may still fail).
bool waits_pending(const cl_event* events, cl_uint count);

// Enqueues the commands of a checked call on the set of temporaries `temps`: `enqueue(launch,
// pending)` on a launch_sequence that starts with the call's wait list, where `pending` says that a
// wait event may still fail (then each command waits for the one before, runtime/launch.hpp). The
// commands' events are kept until they end (temporaries::keep_enqueued); returns the last one's. When
// `enqueue` throws, commands it enqueued may still run on the set: it is given up, so that no later
// call shares it, and the exception passes on.
template <typename Enqueue>
cl::Event launch_call(const cl::CommandQueue& queue, const checked_call& call, const workspace& ws,
                      temporaries& temps, Enqueue&& enqueue) {
  const bool pending = waits_pending(call.waits, call.wait_count);
  launch_sequence launch(call.queue, call.out_of_order, call.waits, call.wait_count, temps.enqueued, pending,
                         ws.caps.event_per_command);
  try {
    enqueue(launch, pending);
  } catch (...) {
    std::vector<cl::Event> enqueued = std::move(temps.enqueued);
    temps = temporaries{};
    temps.enqueued = std::move(enqueued);
    temps.keep_enqueued();
    throw;
  }
  cl::Event done = launch.finish();
  temps.keep_enqueued();
  temps.last_event = done;
  if (temps.last_queue() != call.queue) temps.last_queue = queue;
  return done;
}

} // namespace clscan::detail
