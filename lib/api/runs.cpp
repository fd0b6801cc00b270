// reduce_by_key, unique_by_key and run_length_encode (runs.hpp): in one pass of the runs unit
// (algorithms/runs.cpp, kernels/runs.cl) where the look-back runs (a qualified device, algorithm other
// than three_stage) and what a tile carries fits it (values of 4 bytes for reduce_by_key, cl_uint
// lengths, fewer than 2^32 elements); otherwise composed of the other units' passes in one call: a scan
// by key (by_key.cpp) into a temporary, unique of the keys (select.cpp), and a selection of values by
// the keys' run heads or tails (select.cl CLSCAN_SELECT_RUN_HEADS / _TAILS).
// Every pass is planned and built before the first is enqueued, so a call that fails leaves the user's
// buffers as they were; the passes then follow each other on one launch sequence (one set of
// temporaries, each command behind the one before where the queue does not order them).
#include "algorithms/runs.hpp"
#include "algorithms/algorithm_unit.hpp"
#include "algorithms/single_pass.hpp"
#include "dispatch.hpp"
#include "element.hpp"
#include "error_check.hpp"
#include "launch_call.hpp"
#include "qualify.hpp"
#include "run_arguments.hpp"
#include "workspace.hpp"

#include <clscan/error.hpp>
#include <clscan/runs.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <optional>

namespace clscan::detail {
namespace {

// Scratch slots of a temporaries set (temporaries::scratch): the scans use the low ones, the sort 16
// to 23.
constexpr std::size_t scanned_values_slot = 24, ones_slot = 25;

// One pass: its request, its operands, and, once planned, its plan and kernels (a copy, holding its
// own references: building a later pass's program may release an earlier one's over the program cache
// limit).
struct pass {
  primitive_request request;
  scan_operands operands;
  std::size_t alignment = 0; // of the addresses its kernels read and write in vectors
  std::optional<scan_plan> plan;
  compiled_variant kernels;
};

// A selection pass: the elements of `in` (type `type`, from element in_offset) chosen by `kind`,
// written to out at out_offset, the count at count_offset. Run heads and tails read the keys from
// `keys`, at byte keys_offset.
void describe_selection(pass& p, primitive kind, element_type type, const run_request& request, cl_mem in,
                        std::size_t in_offset, cl_mem keys, std::size_t keys_offset, cl_mem out, cl_mem count,
                        std::size_t n) {
  primitive_request& r = p.request;
  r.kind = kind;
  r.scan.type = type;
  r.scan.algo = request.scan.algo;
  r.scan.in_offset = in_offset;
  r.scan.out_offset = request.scan.out_offset;
  r.key_type = request.key_type;
  r.flags_offset = keys_offset;
  r.count_offset = request.count_offset;
  r.out_capacity = request.out_capacity;
  p.operands.in = in;
  p.operands.aux = kind == primitive::unique ? nullptr : keys;
  p.operands.out = out;
  p.operands.count = count;
  p.operands.n = n;
  p.operands.in_offset = in_offset;
  p.operands.out_offset = request.scan.out_offset;
}

// The scan by key of `values` (at the keys' offset) into `scanned` (from element 0).
void describe_scan(pass& p, const scan_request& scan, element_type key_type, cl_mem keys, cl_mem values,
                   cl_mem scanned, std::size_t n) {
  primitive_request& r = p.request;
  r.kind = primitive::inclusive_by_key;
  r.scan = scan;
  r.scan.kind = scan_kind::inclusive;
  r.scan.out_offset = 0;
  r.scan.wait_list = nullptr;
  r.key_type = key_type;
  p.operands.in = values;
  p.operands.aux = keys;
  p.operands.out = scanned;
  p.operands.n = n;
  p.operands.in_offset = scan.in_offset;
  p.operands.out_offset = 0;
  p.operands.identity = identity_of(scan.type, scan.operation, scan.custom_identity);
}

std::size_t alignment_of(const memory_view& view, std::size_t byte_offset, const workspace& ws) {
  return address_alignment(view, byte_offset, ws.base_alignment);
}

// The plan of one pass, qualifying the device for its type first where the plan needs a verdict it
// does not have yet, with the lock given up meanwhile (as enqueue_planned does).
scan_plan plan_with_verdict(workspace& ws, std::unique_lock<std::mutex>& lock,
                            const primitive_request& request, std::size_t n, std::size_t alignment) {
  const element_type verdict_type = single_pass_verdict_type(request);
  std::optional<scan_plan> plan =
      plan_primitive(ws, request, n, alignment, known_single_pass_verdict(ws.caps, verdict_type));
  if (!plan) {
    lock.unlock();
    const single_pass_qualification& verdict =
        ensure_single_pass_qualified(ws.caps, verdict_type, &ws.context);
    lock.lock();
    plan = plan_primitive(ws, request, n, alignment, &verdict);
  }
  if (!plan) throw error("clscan internal error: a pass of a call on runs was not planned");
  return *plan;
}

} // namespace

cl::Event enqueue_runs(const cl::CommandQueue& queue, const cl::Buffer& keys_in, const cl::Buffer* values_in,
                       const cl::Buffer& keys_out, const cl::Buffer& values_out, const cl::Buffer& count,
                       std::size_t n, const run_request& request) {
  const checked_call call =
      check_run_arguments(queue, keys_in, values_in, keys_out, values_out, count, n, request);
  if (n == 0) {
    const cl_ulong zero = 0;
    cl_event filled = nullptr;
    check(clEnqueueFillBuffer(call.queue, count(), &zero, sizeof zero, request.count_offset * sizeof zero,
                              sizeof zero, call.wait_count, call.waits, &filled),
          "clEnqueueFillBuffer");
    return cl::Event(filled);
  }

  const std::shared_ptr<workspace> held = workspace_for(call.context, call.device);
  workspace& ws = *held;
  const scan_request& scan = request.scan;
  const std::size_t key_size = size_of(request.key_type), value_size = size_of(scan.type);
  const std::size_t in_offset = scan.in_offset, out_offset = scan.out_offset;
  const bool scans = request.kind != run_call::unique_by_key;
  const bool encode = request.kind == run_call::run_length_encode;

  // Views for the alignment of vector accesses (the checks have accepted every buffer).
  const auto view_of = [&](const cl::Buffer& buffer) {
    return check_buffer(buffer(), "buffer", call.context, 0, 0, 1, 0);
  };
  const memory_view keys_view = view_of(keys_in), keys_out_view = view_of(keys_out),
                    values_out_view = view_of(values_out);
  const std::size_t keys_alignment = alignment_of(keys_view, in_offset * key_size, ws);
  const std::size_t values_out_alignment = alignment_of(values_out_view, out_offset * value_size, ws);

  std::unique_lock<std::mutex> lock(ws.mutex);

  // One pass where the look-back runs and the carry fits (runs_fit_in_one_pass; its count of run heads
  // is a uint): planned as the passes below are, and where the plan chains no look-back (a device
  // that failed the qualification) the composition runs instead.
  const primitive one_pass_kind = encode  ? primitive::runs_encode
                                  : scans ? primitive::runs_reduce
                                          : primitive::runs_unique;
  if (scan.algo != algorithm::three_stage && n <= std::numeric_limits<cl_uint>::max() &&
      runs_fit_in_one_pass(one_pass_kind, scan.type) && single_pass_supported(ws.caps, scan.type)) {
    primitive_request r;
    r.kind = one_pass_kind;
    r.scan = scan;
    r.scan.kind = scan_kind::inclusive;
    if (encode) { // the sum of ones, in the lengths' type
      r.scan.operation = op::sum;
      r.scan.has_initial = false;
    }
    r.key_type = request.key_type;
    r.count_offset = request.count_offset;
    r.out_capacity = request.out_capacity;
    // GPUs load reduce_by_key's values in vectors (the others' values are read element by element).
    const std::size_t values_alignment = one_pass_kind == primitive::runs_reduce
                                             ? alignment_of(view_of(*values_in), in_offset * value_size, ws)
                                             : 0;
    const scan_plan plan = plan_with_verdict(ws, lock, r, n, values_alignment);
    if (plan.algo == algorithm::single_pass) {
      const compiled_variant kernels = ws.variant(plan.key);
      scan_operands op;
      op.in = encode ? nullptr : (*values_in)();
      op.aux = keys_in();
      op.out = values_out();
      op.out_keys = keys_out();
      op.count = count();
      op.n = n;
      op.in_offset = in_offset;
      op.out_offset = out_offset;
      op.call = &r;
      op.request = &r.scan;
      op.identity = identity_of(r.scan.type, r.scan.operation, r.scan.custom_identity);
      op.algo = plan.algo;
      op.small_inputs = plan.small_inputs;
      op.small_class_tiles = plan.small_class_tiles;
      temporaries& temps = ws.temporaries_for(call.queue, call.out_of_order);
      return launch_call(queue, call, ws, temps, [&](launch_sequence& launch, bool pending) {
        op.waits_pending = pending;
        unit_of(plan.key).enqueue(ws, temps, kernels, op, launch);
      });
    }
  }

  // The temporaries (the scanned values, and run_length_encode's ones) are named once the set is taken,
  // after planning: these stand for them until then.
  const cl_mem ones = nullptr, scanned = nullptr;

  std::array<pass, 3> passes{};
  std::size_t pass_count = 0;
  if (scans) {
    scan_request encoded; // run_length_encode: the sum of ones
    encoded.type = scan.type;
    encoded.algo = scan.algo;
    encoded.in_offset = in_offset;
    pass& p = passes[pass_count++];
    describe_scan(p, encode ? encoded : scan, request.key_type, keys_in(), encode ? ones : (*values_in)(),
                  scanned, n);
    // The values (the ones: a temporary, from the implementation's aligned base) are read in vectors
    // and the temporary written from its start; the keys only element by element.
    p.alignment = encode ? alignment_of(memory_view{}, in_offset * value_size, ws)
                         : alignment_of(view_of(*values_in), in_offset * value_size, ws);
  }
  {
    pass& p = passes[pass_count++];
    describe_selection(p, primitive::unique, request.key_type, request, keys_in(), in_offset, nullptr, 0,
                       keys_out(), count(), n);
    p.alignment = std::min(keys_alignment, alignment_of(keys_out_view, out_offset * key_size, ws));
  }
  {
    pass& p = passes[pass_count++];
    if (scans) {
      describe_selection(p, primitive::select_run_tails, scan.type, request, scanned, 0, keys_in(),
                         in_offset * key_size, values_out(), count(), n);
      p.alignment = values_out_alignment;
    } else {
      describe_selection(p, primitive::select_run_heads, scan.type, request, (*values_in)(), in_offset,
                         keys_in(), in_offset * key_size, values_out(), count(), n);
      p.alignment =
          std::min(values_out_alignment, alignment_of(view_of(*values_in), in_offset * value_size, ws));
    }
  }

  // Every pass planned (plan_with_verdict), then built.
  for (std::size_t i = 0; i < pass_count; ++i) {
    pass& p = passes[i];
    p.operands.call = &p.request;
    p.operands.request = &p.request.scan;
    if (p.request.kind != primitive::inclusive_by_key)
      p.operands.identity = identity_of(p.request.scan.type, op::sum, p.request.scan.custom_identity);
    p.plan = plan_with_verdict(ws, lock, p.request, n, p.alignment);
    p.operands.algo = p.plan->algo;
    p.operands.small_inputs = p.plan->small_inputs;
    p.operands.small_class_tiles = p.plan->small_class_tiles;
  }
  for (std::size_t i = 0; i < pass_count; ++i)
    passes[i].kernels = ws.variant(passes[i].plan->key);

  temporaries& temps = ws.temporaries_for(call.queue, call.out_of_order);
  // run_length_encode scans ones at the keys' offset (the scan by key reads keys and values at one
  // offset): its temporary holds in_offset + n of them.
  const cl_mem ones_buffer =
      encode ? temps.scratch(ws.context, ones_slot, (in_offset + n) * value_size)() : nullptr;
  if (scans) {
    const cl_mem scanned_buffer = temps.scratch(ws.context, scanned_values_slot, n * value_size)();
    passes[0].operands.out = scanned_buffer;
    passes[pass_count - 1].operands.in = scanned_buffer;
    if (encode) passes[0].operands.in = ones_buffer;
  }

  return launch_call(queue, call, ws, temps, [&](launch_sequence& launch, bool pending) {
    if (encode) {
      const cl_uint one32 = 1;
      const cl_ulong one64 = 1;
      // All of it, the in_offset elements before the scanned ones too: nothing reads them, but a
      // buffer only partly written reads as partly uninitialized to Oclgrind.
      launch.fill(ones_buffer, value_size == 4 ? static_cast<const void*>(&one32) : &one64, value_size, 0,
                  (in_offset + n) * value_size);
    }
    for (std::size_t i = 0; i < pass_count; ++i) {
      pass& p = passes[i];
      p.operands.waits_pending = p.plan->algo == algorithm::single_pass && pending;
      unit_of(p.plan->key).enqueue(ws, temps, p.kernels, p.operands, launch);
      // The passes' kernels together hold more buffer arguments than one sequence tracks: each pass's
      // are set back to null once its commands are enqueued.
      launch.forget_buffers();
    }
  });
}

} // namespace clscan::detail
