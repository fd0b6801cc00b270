// The public entry point: checks the arguments (arguments.cpp), then asks dispatch for a plan and
// hands it to the algorithm unit that runs it. Nothing is enqueued until every check has passed and
// every kernel and temporary buffer is ready, so a call that fails leaves the user's buffers as they
// were. Only the runtime's enqueue calls themselves can still fail after that (e.g.
// CL_OUT_OF_RESOURCES): commands enqueued before such a failure still run, which in place can leave
// the buffer partly scanned.
#include "api.hpp"
#include "algorithms/algorithm_unit.hpp"
#include "algorithms/reduce.hpp"
#include "algorithms/three_stage.hpp"
#include "arguments.hpp"
#include "dispatch.hpp"
#include "element.hpp"
#include "error_check.hpp"
#include "launch_call.hpp"
#include "qualify.hpp"
#include "workspace.hpp"

#include <clscan/error.hpp>
#include <clscan/reduce.hpp>
#include <clscan/scan.hpp>

#include <algorithm>
#include <memory>
#include <optional>

namespace clscan::detail {

bool waits_pending(const cl_event* events, cl_uint count) {
  for (cl_uint i = 0; i < count; ++i)
    if (execution_status(events[i]) != CL_COMPLETE) return true;
  return false;
}

namespace {

// Scratch slot (temporaries::scratch) of the copy of a selection's input made to select in place: the
// scans use the low slots, the sort 16 to 23, the calls on runs 24 and 25.
constexpr std::size_t input_copy_slot = 26;

// Whether the unit of `key` runs launches over its own temporaries for this call: the three-stage
// scan's levels, reduce's partial totals.
bool reads_temporaries(const workspace& ws, const variant_key& key, const compiled_variant& kernels,
                       const scan_operands& operands) {
  if (key.call == primitive::reduce)
    return reduce_has_partials(ws.caps, kernels, operands.n, *operands.request);
  return !key.call && key.algo == algorithm::three_stage && three_stage_has_levels(kernels, operands.n);
}

// The program of a call whose input has a type of its own, for the elements the call computes: its
// element type, operator, parameters and shape, without the transform.
variant_key plain_variant(variant_key key) {
  key.transform = nullptr;
  key.input_type.reset();
  return key;
}

// The part every call shares once its arguments are checked: the plan (qualifying the device first
// where the plan needs a verdict it does not have yet), the program, a set of temporaries and the
// launch. `plan` is called with the workspace locked; `operands` lacks only what the plan decides.
// Without a verdict_type (reduce) no verdict is looked up, and the planner must always plan.
// `prepare_only`: the plan and the program, nothing enqueued (an empty event returned).
// `copy_input`: the input is copied into a temporary first, and the unit reads it from there (a
// selection in place, select.hpp).
template <typename Planner>
cl::Event enqueue_planned(const cl::CommandQueue& queue, const checked_call& call, workspace& ws,
                          std::optional<element_type> verdict_type, scan_operands operands,
                          const Planner& plan_with, bool prepare_only = false, bool copy_input = false) {
  std::unique_lock<std::mutex> lock(ws.mutex);
  std::optional<scan_plan> plan =
      plan_with(verdict_type ? known_single_pass_verdict(ws.caps, *verdict_type) : nullptr);
  if (!plan && !verdict_type) throw error("clscan internal error: a plan without a verdict was not made");
  if (!plan) {
    // The first single-pass call on this device: the check runs scans of its own, on GPUs in this
    // context (taking this workspace's lock), so the lock is given up meanwhile.
    lock.unlock();
    const single_pass_qualification& verdict =
        ensure_single_pass_qualified(ws.caps, *verdict_type, &ws.context);
    lock.lock();
    plan = plan_with(&verdict);
  }
  const compiled_variant* kernels = &ws.variant(plan->key);
  // An input of its own type: the launches over clscan's temporaries need the program of the call's
  // type, built before anything is enqueued. Its build may release the call's own program from the
  // cache, so that one is held by a copy first (handles only, nothing allocated).
  std::optional<compiled_variant> own, plain;
  if (plan->key.input_type && reads_temporaries(ws, plan->key, *kernels, operands)) {
    own = *kernels;
    plain = ws.variant(plain_variant(plan->key));
    kernels = &*own;
    operands.plain_kernels = &*plain;
  }
  if (prepare_only) return {};
  operands.small_inputs = plan->small_inputs;
  operands.small_class_tiles = plan->small_class_tiles;
  operands.algo = plan->algo;

  // A set of temporaries that another call's pending command may still use is never taken, so the
  // call waits for exactly the user's wait list (and, on an in-order queue, what the queue orders).
  temporaries& temps = ws.temporaries_for(call.queue, call.out_of_order);
  const std::size_t input_bytes = operands.n * size_of(operands.request->type);
  // Taken before anything is enqueued: an allocation that fails leaves the user's buffers untouched.
  const cl_mem input_copy = copy_input ? temps.scratch(ws.context, input_copy_slot, input_bytes)() : nullptr;
  return launch_call(queue, call, ws, temps, [&](launch_sequence& launch, bool pending) {
    if (input_copy) {
      launch.copy(operands.in, input_copy, operands.in_offset * size_of(operands.request->type), 0,
                  input_bytes);
      operands.in = input_copy;
      operands.in_offset = 0;
    }
    const std::string* transform = operands.request->transform;
    launch.user_parameters(operands.request->parameters, transform && !transform->empty());
    operands.waits_pending = plan->algo == algorithm::single_pass && pending;
    unit_of(plan->key).enqueue(ws, temps, *kernels, operands, launch);
  });
}

cl::Event enqueue_marker(const checked_call& call) {
  cl_event marker = nullptr;
  check(clEnqueueMarkerWithWaitList(call.queue, call.wait_count, call.waits, &marker),
        "clEnqueueMarkerWithWaitList");
  return cl::Event(marker);
}

// The input's address alignment, in bytes of the call's element type: an input of a type of its own
// (options::transform_input) is read in vectors of as many of its own elements (kernels/tile_io.cl
// CLSCAN_INPUT_VLOAD), which the same power-of-two ratio of alignment to element size allows.
std::size_t input_alignment(const checked_call& call, const scan_request& request, const workspace& ws) {
  const std::size_t input_size = input_element_size(request);
  return address_alignment(call.in, request.in_offset * input_size, ws.base_alignment) / input_size *
         size_of(request.type);
}

// Vector accesses only where both buffers' element addresses allow them: the offset alone does not
// tell (host memory and sub-buffers start at element-aligned addresses only).
std::size_t vector_alignment(const checked_call& call, const scan_request& request, const workspace& ws) {
  const std::size_t element_size = size_of(request.type);
  return std::min(input_alignment(call, request, ws),
                  address_alignment(call.out, request.out_offset * element_size, ws.base_alignment));
}

scan_operands operands_of(const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                          const scan_request& request) {
  scan_operands operands;
  operands.in = in();
  operands.out = out();
  operands.n = n;
  operands.in_offset = request.in_offset;
  operands.out_offset = request.out_offset;
  operands.request = &request;
  operands.identity = identity_of(request.type, request.operation, request.custom_identity);
  return operands;
}

} // namespace

namespace {

cl::Event scan_call(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                    const scan_request& request, bool prepare_only) {
  const checked_call call = check_arguments(queue, in, out, n, request);
  if (n == 0) return prepare_only ? cl::Event() : enqueue_marker(call);

  // Held through the call: the cache may give the workspace up meanwhile, never under a running call.
  const std::shared_ptr<workspace> held = workspace_for(call.context, call.device);
  workspace& ws = *held;
  const std::size_t alignment = vector_alignment(call, request, ws);
  return enqueue_planned(
      queue, call, ws, request.type, operands_of(in, out, n, request),
      [&](const single_pass_qualification* verdict) { return plan_scan(ws, request, n, alignment, verdict); },
      prepare_only);
}

} // namespace

cl::Event enqueue_primitive(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer* aux,
                            const cl::Buffer& out, const cl::Buffer* count, std::size_t n,
                            const primitive_request& request) {
  const checked_call call = check_primitive_arguments(queue, in, aux, out, count, n, request);
  if (n == 0) {
    if (!count) return enqueue_marker(call);
    const cl_ulong zero = 0;
    cl_event filled = nullptr;
    check(clEnqueueFillBuffer(call.queue, (*count)(), &zero, sizeof zero, request.count_offset * sizeof zero,
                              sizeof zero, call.wait_count, call.waits, &filled),
          "clEnqueueFillBuffer");
    return cl::Event(filled);
  }

  const std::shared_ptr<workspace> held = workspace_for(call.context, call.device);
  workspace& ws = *held;
  const std::size_t alignment = vector_alignment(call, request.scan, ws);
  scan_operands operands = operands_of(in, out, n, request.scan);
  operands.call = &request;
  operands.aux = aux ? (*aux)() : nullptr;
  operands.count = count ? (*count)() : nullptr;
  // A selection in place (select.hpp says why through a copy), unless it may write nothing (capacity 0);
  // the scans by key run in place as the scans do, each tile writing over its own input only once it has
  // its prefix.
  const bool by_key =
      request.kind == primitive::inclusive_by_key || request.kind == primitive::exclusive_by_key;
  const bool copy_input = !by_key && in() == out() && request.scan.in_offset == request.scan.out_offset &&
                          request.out_capacity.value_or(n) > 0;
  return enqueue_planned(
      queue, call, ws, single_pass_verdict_type(request), operands,
      [&](const single_pass_qualification* verdict) {
        return plan_primitive(ws, request, n, alignment, verdict);
      },
      false, copy_input);
}

namespace {

cl::Event reduce_call(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                      std::size_t n, const scan_request& request, bool prepare_only) {
  const checked_call call = check_reduce_arguments(queue, in, out, n, request);
  const std::size_t element_size = size_of(request.type);
  if (n == 0 && prepare_only) return {};
  if (n == 0) {
    // The total of nothing is the initial value, or the identity: written, as any total is.
    cl_event written = nullptr;
    if (request.initial_buffer) {
      if (request.initial_buffer == out() && request.initial_buffer_offset == request.out_offset)
        return enqueue_marker(call);
      check(clEnqueueCopyBuffer(
                call.queue, request.initial_buffer, out(), request.initial_buffer_offset * element_size,
                request.out_offset * element_size, element_size, call.wait_count, call.waits, &written),
            "clEnqueueCopyBuffer");
    } else {
      const element_value value = request.has_initial
                                      ? request.initial
                                      : identity_of(request.type, request.operation, request.custom_identity);
      check(clEnqueueFillBuffer(call.queue, out(), value.bytes, element_size,
                                request.out_offset * element_size, element_size, call.wait_count, call.waits,
                                &written),
            "clEnqueueFillBuffer");
    }
    return cl::Event(written);
  }

  const std::shared_ptr<workspace> held = workspace_for(call.context, call.device);
  workspace& ws = *held;
  // Only the input is read in vectors.
  const std::size_t alignment = input_alignment(call, request, ws);
  return enqueue_planned(
      queue, call, ws, std::nullopt, operands_of(in, out, n, request),
      [&](const single_pass_qualification* /*verdict*/) {
        return std::optional<scan_plan>(plan_reduce(ws, request, alignment));
      },
      prepare_only);
}

} // namespace

cl::Event enqueue_scan(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                       std::size_t n, const scan_request& request) {
  return scan_call(queue, in, out, n, request, false);
}

cl::Event enqueue_reduce(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                         std::size_t n, const scan_request& request) {
  return reduce_call(queue, in, out, n, request, false);
}

void prepare_scan(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                  const scan_request& request) {
  static_cast<void>(scan_call(queue, in, out, n, request, true));
}

void prepare_reduce(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                    const scan_request& request) {
  static_cast<void>(reduce_call(queue, in, out, n, request, true));
}

} // namespace clscan::detail
