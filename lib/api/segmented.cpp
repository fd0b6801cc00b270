// The segmented calls over offsets (segmented.hpp), composed of passes inside one call: head flags from
// the offsets (segmented.cl), the scan by key (by_key.cpp) with those flags as its keys, and for a
// reduction its results picked from that scan (segmented.cl). Every check runs, and every pass is planned
// and built, before the first command is enqueued, so a call that fails leaves the user's buffers as they
// were; the passes then follow each other on one launch sequence (one set of temporaries), as the calls
// on runs do (runs.cpp).
#include "algorithms/algorithm_unit.hpp"
#include "algorithms/by_key.hpp"
#include "algorithms/segments.hpp"
#include "argument_checks.hpp"
#include "dispatch.hpp"
#include "element.hpp"
#include "error_check.hpp"
#include "launch_call.hpp"
#include "qualify.hpp"
#include "workspace.hpp"

#include <clscan/error.hpp>
#include <clscan/segmented.hpp>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace clscan::detail {
namespace {

// Scratch slots of a temporaries set (temporaries::scratch): the scans use the low ones, the sort 16 to
// 23, the calls on runs 24 and 25, a selection's input copy 26, the head flags 27 (head_flags_slot);
// reduce_segmented's chunk totals and their flags 28 and 29.
constexpr std::size_t chunk_totals_slot = 28, chunk_covered_slot = 29;

// The scan by key's key_equal over the head flags: element b continues the segment of the one before it
// unless a segment starts at b. An expression as a caller's key_equal is (variant_key::key_equal), which
// the by-key unit recognises (by_key.hpp head_flags_key_equal).
const std::string& continues_segment() {
  static const std::string text = head_flags_key_equal;
  return text;
}

const char* call_name(segmented_call kind) {
  switch (kind) {
  case segmented_call::inclusive: return "clscan::inclusive_segmented";
  case segmented_call::exclusive: return "clscan::exclusive_segmented";
  case segmented_call::reduce: return "clscan::reduce_segmented";
  }
  return "clscan";
}

struct checked_segmented {
  checked_call call;
  memory_view offsets;
};

// What the scans' checks do not cover: the options this call refuses, the offsets (num_segments + 1 of
// them past offsets_offset, readable, not sharing memory with the output), a reduction's output of
// num_segments elements; then the scans' own checks of the queue, input, output, wait list and request.
checked_segmented check_segmented_arguments(const cl::CommandQueue& queue, const cl::Buffer& in,
                                            const cl::Buffer& out, std::size_t n, const cl::Buffer& offsets,
                                            std::size_t num_segments, const segmented_request& request) {
  const char* who = call_name(request.kind);
  const auto name = [&] { return std::string(who); }; // built only for a message
  const scan_request& scan = request.scan;
  const bool reduce = request.kind == segmented_call::reduce;
  if (request.offset_type != element_type::uint32 && request.offset_type != element_type::uint64)
    throw invalid_argument(name() + ": the offsets are cl_uint or cl_ulong");
  if (scan.transform && !scan.transform->empty())
    throw invalid_argument(name() + ": options::transform is for the scans and reduce; this call does not "
                                    "take one");
  if (scan.transform_input)
    throw invalid_argument(name() + ": options::transform_input is for the scans and reduce, with a "
                                    "transform; this call does not take one");
  if (scan.key_equal && !scan.key_equal->empty())
    throw invalid_argument(name() + ": options::key_equal is for the calls by key; the offsets give this "
                                    "call's segments");
  if (scan.has_initial_buffer)
    throw invalid_argument(name() + ": options::initial_on_device is not supported by this call; use "
                                    "options::initial");
  if (num_segments == std::numeric_limits<std::size_t>::max())
    throw invalid_argument(name() + ": num_segments is " + std::to_string(num_segments) +
                           "; the offsets would hold one more");

  checked_segmented checked;
  checked.call = call_on(queue, who);
  const cl_context context = checked.call.context;
  const std::size_t value_size = size_of(scan.type), offset_size = size_of(request.offset_type);
  checked.offsets = check_buffer(offsets(), "offsets", context, request.offsets_offset, num_segments + 1,
                                 offset_size, CL_MEM_WRITE_ONLY, true, "num_segments + 1 =");
  const std::size_t out_n = reduce ? num_segments : n;
  // A reduction's output holds num_segments elements, checked and named so here; the scans' checks then
  // take it as an output of that many elements (a capacity, in their terms).
  if (reduce) {
    static_cast<void>(check_buffer(out(), "output", context, scan.out_offset, out_n, value_size,
                                   CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY, true, "num_segments"));
    checked.call = check_arguments(queue, in, out, n, scan, out_n);
  } else {
    checked.call = check_arguments(queue, in, out, n, scan);
  }
  const byte_range out_range{scan.out_offset * value_size, out_n * value_size};
  const byte_range offsets_range{request.offsets_offset * offset_size, (num_segments + 1) * offset_size};
  if (views_overlap(checked.offsets, offsets_range, checked.call.out, out_range))
    throw invalid_argument(name() + ": the offsets and the output overlap; the output is written while the "
                                    "offsets are read");
  return checked;
}

// reduce_segmented (kernels/segment_reduce.cl): chunk totals where a segment covers a chunk, levels of
// totals above them, then each segment's reduction from its head, those totals and its tail; n > 0 and
// num_segments > 0.
cl::Event enqueue_reduce(const cl::CommandQueue& queue, const checked_call& call, const cl::Buffer& in,
                         const cl::Buffer& out, std::size_t n, const cl::Buffer& offsets,
                         std::size_t num_segments, const segmented_request& request) {
  const scan_request& scan = request.scan;
  const std::shared_ptr<workspace> held = workspace_for(call.context, call.device);
  workspace& ws = *held;
  std::unique_lock<std::mutex> lock(ws.mutex);
  const compiled_variant kernels = ws.variant(segment_reduce_variant(ws, request.offset_type, scan));
  temporaries& temps = ws.temporaries_for(call.queue, call.out_of_order);
  // Taken before anything is enqueued: an allocation that fails leaves the user's buffers untouched.
  const std::size_t value_size = size_of(scan.type);
  const std::size_t chunk = segment_chunk(ws.caps);
  const std::size_t entries = segment_total_entries(n, chunk);
  segment_reduce_operands op;
  op.totals = temps.scratch(ws.context, chunk_totals_slot, entries * value_size)();
  op.covered = temps.scratch(ws.context, chunk_covered_slot, entries * sizeof(cl_uint))();
  op.in = in();
  op.in_offset = scan.in_offset;
  op.n = n;
  op.offsets = offsets();
  op.offsets_offset = request.offsets_offset;
  op.segments = num_segments;
  op.out = out();
  op.out_offset = scan.out_offset;
  op.has_initial = scan.has_initial;
  op.initial = scan.has_initial ? scan.initial : identity_of(scan.type, scan.operation, scan.custom_identity);
  op.value_size = value_size;
  op.chunk = chunk;
  return launch_call(queue, call, ws, temps, [&](launch_sequence& launch, bool /*pending*/) {
    launch.user_parameters(scan.parameters, false);
    enqueue_segment_reduce(kernels, launch, op);
  });
}

struct by_key_pass {
  primitive_request request;
  scan_operands operands;
  std::optional<scan_plan> plan;
  compiled_variant kernels;
};

} // namespace

cl::Event enqueue_segmented(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                            std::size_t n, const cl::Buffer& offsets, std::size_t num_segments,
                            const segmented_request& request) {
  const checked_segmented checked =
      check_segmented_arguments(queue, in, out, n, offsets, num_segments, request);
  const checked_call& call = checked.call;
  const scan_request& scan = request.scan;
  const bool reduce = request.kind == segmented_call::reduce;
  const std::size_t value_size = size_of(scan.type);
  // What an empty segment's reduction is.
  const element_value empty =
      scan.has_initial ? scan.initial : identity_of(scan.type, scan.operation, scan.custom_identity);

  if (reduce && num_segments == 0) {
    cl_event marker = nullptr;
    check(clEnqueueMarkerWithWaitList(call.queue, call.wait_count, call.waits, &marker),
          "clEnqueueMarkerWithWaitList");
    return cl::Event(marker);
  }
  if (n == 0) {
    cl_event done = nullptr;
    if (reduce)
      check(clEnqueueFillBuffer(call.queue, out(), empty.bytes, value_size, scan.out_offset * value_size,
                                num_segments * value_size, call.wait_count, call.waits, &done),
            "clEnqueueFillBuffer");
    else
      check(clEnqueueMarkerWithWaitList(call.queue, call.wait_count, call.waits, &done),
            "clEnqueueMarkerWithWaitList");
    return cl::Event(done);
  }

  if (reduce) return enqueue_reduce(queue, call, in, out, n, offsets, num_segments, request);

  const std::shared_ptr<workspace> held = workspace_for(call.context, call.device);
  workspace& ws = *held;
  const std::size_t in_offset = scan.in_offset;

  // The scan by key: of the input, by the head flags (a temporary, at the input's offset, as the by-key
  // kernels read keys and values at one offset), into the output. The flags are named once the set of
  // temporaries is taken.
  by_key_pass pass;
  pass.request.kind =
      request.kind == segmented_call::exclusive ? primitive::exclusive_by_key : primitive::inclusive_by_key;
  pass.request.scan = scan;
  pass.request.scan.key_equal = &continues_segment();
  pass.request.key_type = element_type::uint32;
  scan_operands& op = pass.operands;
  op.in = in();
  op.out = out();
  op.n = n;
  op.in_offset = in_offset;
  op.out_offset = pass.request.scan.out_offset;
  op.request = &pass.request.scan;
  op.call = &pass.request;
  op.identity = identity_of(scan.type, scan.operation, scan.custom_identity);
  // The values are read and the output written in vectors where their addresses allow it; the flags only
  // element by element.
  const std::size_t alignment =
      std::min(address_alignment(call.in, in_offset * value_size, ws.base_alignment),
               address_alignment(call.out, scan.out_offset * value_size, ws.base_alignment));

  std::unique_lock<std::mutex> lock(ws.mutex);
  // Planned (qualifying the device for the type first where the plan needs a verdict it does not have
  // yet, with the lock given up meanwhile, as enqueue_planned does), then both programs built.
  const element_type verdict_type = single_pass_verdict_type(pass.request);
  pass.plan =
      plan_primitive(ws, pass.request, n, alignment, known_single_pass_verdict(ws.caps, verdict_type));
  if (!pass.plan) {
    lock.unlock();
    const single_pass_qualification& verdict =
        ensure_single_pass_qualified(ws.caps, verdict_type, &ws.context);
    lock.lock();
    pass.plan = plan_primitive(ws, pass.request, n, alignment, &verdict);
  }
  if (!pass.plan) throw error("clscan internal error: the scan of a segmented call was not planned");
  op.algo = pass.plan->algo;
  op.small_inputs = pass.plan->small_inputs;
  op.small_class_tiles = pass.plan->small_class_tiles;
  // Copies, each holding its own references: building the second program may release the first over the
  // program cache limit.
  pass.kernels = ws.variant(pass.plan->key);
  const compiled_variant offsets_kernels = ws.variant(segments_variant(request.offset_type));

  temporaries& temps = ws.temporaries_for(call.queue, call.out_of_order);
  // Taken before anything is enqueued: an allocation that fails leaves the user's buffers untouched.
  // A byte per element (segmented.cl), in whole 32-bit words, which its kernels change atomically.
  const std::size_t heads_bytes = (in_offset + n + 3) / 4 * 4;
  const cl_mem heads = temps.scratch(ws.context, head_flags_slot, heads_bytes)();
  op.aux = heads;

  return launch_call(queue, call, ws, temps, [&](launch_sequence& launch, bool pending) {
    // The flags are all zero between calls: cleared whole once where the buffer is new (or was never
    // cleared this far), then each call clears the flags it set, O(num_segments) rather than O(n). A call
    // whose commands fail leaves them unknown, but then its set of temporaries is given up
    // (workspace::temporaries_for), and the next set's buffer is cleared afresh.
    if (temps.head_flags_zeroed < heads_bytes) {
      enqueue_clear_heads(offsets_kernels, launch, heads, heads_bytes / 4);
      temps.head_flags_zeroed = heads_bytes;
    }
    // Every entry, the last one too, starts a segment.
    const std::size_t entries = num_segments + 1;
    enqueue_segment_heads(offsets_kernels, launch, offsets(), request.offsets_offset, entries, n, heads,
                          in_offset, 1);
    launch.forget_buffers();
    launch.user_parameters(scan.parameters, false);
    op.waits_pending = pass.plan->algo == algorithm::single_pass && pending;
    unit_of(pass.plan->key).enqueue(ws, temps, pass.kernels, op, launch);
    launch.forget_buffers();
    launch.user_parameters(nullptr, false);
    enqueue_segment_heads(offsets_kernels, launch, offsets(), request.offsets_offset, entries, n, heads,
                          in_offset, 0);
  });
}

} // namespace clscan::detail
