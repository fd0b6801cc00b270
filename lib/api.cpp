// The public entry point: checks the arguments (arguments.cpp), then asks dispatch for a plan and
// hands it to the algorithm unit that runs it. Nothing is enqueued until every check has passed and
// every kernel and temporary buffer is ready, so a call that fails leaves the user's buffers as they
// were. Only the runtime's enqueue calls themselves can still fail after that (e.g.
// CL_OUT_OF_RESOURCES): commands enqueued before such a failure still run, which in place can leave
// the buffer partly scanned.
#include "algorithms/algorithm_unit.hpp"
#include "arguments.hpp"
#include "dispatch.hpp"
#include "element.hpp"
#include "error_check.hpp"
#include "qualify.hpp"
#include "workspace.hpp"

#include <clscan/error.hpp>
#include <clscan/scan.hpp>

#include <algorithm>
#include <memory>
#include <optional>

namespace clscan::detail {
namespace {

// True when some event of the wait list has not completed yet (so it may still fail).
bool waits_pending(const cl_event* events, cl_uint count) {
  for (cl_uint i = 0; i < count; ++i)
    if (execution_status(events[i]) != CL_COMPLETE) return true;
  return false;
}

} // namespace

cl::Event enqueue_scan(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                       std::size_t n, const scan_request& request) {
  const checked_call call = check_arguments(queue, in, out, n, request);
  const std::size_t element_size = size_of(request.type);
  if (n == 0) {
    cl_event marker = nullptr;
    check(clEnqueueMarkerWithWaitList(call.queue, call.wait_count, call.waits, &marker),
          "clEnqueueMarkerWithWaitList");
    return cl::Event(marker);
  }

  // Held through the call: the cache may give the workspace up meanwhile, never under a running call.
  const std::shared_ptr<workspace> held = workspace_for(call.context, call.device);
  workspace& ws = *held;
  // Vector accesses only where both buffers' element addresses allow them: the offset alone does not
  // tell (host memory and sub-buffers start at element-aligned addresses only).
  const std::size_t vector_alignment =
      std::min(address_alignment(call.in, request.in_offset * element_size, ws.base_alignment),
               address_alignment(call.out, request.out_offset * element_size, ws.base_alignment));
  std::unique_lock<std::mutex> lock(ws.mutex);

  std::optional<scan_plan> plan =
      plan_scan(ws, request, n, vector_alignment, known_single_pass_verdict(ws.caps, request.type));
  if (!plan) {
    // The first single-pass scan on this device: the check runs scans of its own, on GPUs in this
    // context (taking this workspace's lock), so the lock is given up meanwhile.
    lock.unlock();
    const single_pass_qualification& verdict =
        ensure_single_pass_qualified(ws.caps, request.type, &ws.context);
    lock.lock();
    plan = plan_scan(ws, request, n, vector_alignment, &verdict);
  }
  const compiled_variant& kernels = ws.variant(plan->key);

  scan_operands operands;
  operands.in = in();
  operands.out = out();
  operands.n = n;
  operands.in_offset = request.in_offset;
  operands.out_offset = request.out_offset;
  operands.request = &request;
  operands.identity = identity_of(request.type, request.operation, request.custom_identity);
  operands.small_inputs = plan->small_inputs;

  // A set of temporaries that another scan's pending command may still use is never taken, so the
  // scan waits for exactly the user's wait list (and, on an in-order queue, what the queue orders).
  temporaries& temps = ws.temporaries_for(call.queue, call.out_of_order);
  operands.waits_pending = plan->algo == algorithm::single_pass && waits_pending(call.waits, call.wait_count);

  launch_sequence launch(call.queue, call.out_of_order, call.waits, call.wait_count);
  try {
    unit_of(plan->algo).enqueue(ws, temps, kernels, operands, launch);
  } catch (...) {
    // Commands enqueued before the failure may still run on these temporaries, and no event tells
    // when they end: give the set up (OpenCL keeps its buffers alive for those commands), so that no
    // later scan shares it.
    temps = temporaries{};
    throw;
  }

  cl::Event done = launch.finish();
  temps.last_event = done;
  if (temps.last_queue() != call.queue) temps.last_queue = queue;
  return done;
}

} // namespace clscan::detail
