// Segmented scans by key (kernels/by_key.cl). What a tile carries is a pair, the value of the segment
// open at its end and whether a segment starts in it, through the look-back (tile_prefix.cl) or
// through aggregates scanned beforehand (algorithm::three_stage, and deterministic floating-point
// results).
#include "algorithms/by_key.hpp"

#include "algorithms/tile_chain.hpp"

namespace clscan::detail {
namespace {

std::size_t local_memory_bytes(const tuning& shape, const device_capabilities& caps, element_type type) {
  const std::size_t wg = shape.work_group_size;
  const std::size_t carry = by_key_carry_bytes(type);
  std::size_t bytes = group_scan_local_bytes(wg, carry) + lookback_local_bytes(shape, carry);
  // GPUs: the tile of values, and its segment starts (a byte per vector, two past 8 elements), in the
  // vector that pads each run where they fit (by_key.cl's CLSCAN_HEADS_IN_PADDING), else in an array
  // with four of padding per run; never the keys.
  if (caps.is_gpu()) {
    const std::size_t run_vectors = shape.items_per_thread / shape.vector_width;
    const std::size_t head_bytes = shape.vector_width > 8 ? 2 : 1;
    const std::size_t vector_bytes = shape.vector_width * size_of(type);
    bytes += wg * (shape.items_per_thread + shape.vector_width) * size_of(type);
    if (run_vectors * head_bytes > vector_bytes) bytes += wg * (run_vectors + 4) * head_bytes;
  }
  return bytes;
}

std::string prelude(const variant_key& key, const device_capabilities& caps) {
  std::string lines = lookback_prelude(key, caps);
  if (key.key_type == element_type::float64 && key.type != element_type::float64)
    lines += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  // 4-byte integers walk a CPU work-item's run 16 elements at a time too (kernels/tile_io.cl
  // CLSCAN_VECTOR_RUNS): on PoCL 3.1 (2 cores, 2026-11-28) the 2^24 int inclusive_segmented of
  // segments of 10 went from 0.65-0.70 of a same-process copy of the input to 0.85-0.93, ahead of the
  // serial loop (clscan-bench --primitive inclusive_segmented --type int --segment-length 10).
  if (key.type == element_type::int32 || key.type == element_type::uint32)
    lines += "#define CLSCAN_VECTOR_INTEGER_RUNS 1\n";
  // Head flags are bytes (segmented.cl): a quarter of the traffic of the flags' writes and reads.
  if (key.key_equal && *key.key_equal == head_flags_key_equal)
    return lines + "#define CLSCAN_KEY_HEADS 1\n#define CLSCAN_KEY_T uchar\n";
  return lines + "#define CLSCAN_KEY_T " + opencl_name(key.key_type) + "\n";
}

void enqueue(workspace& ws, temporaries& temps, const compiled_variant& kernels, const scan_operands& op,
             launch_sequence& launch) {
  const scan_request& request = *op.request;
  const std::size_t element_size = size_of(request.type);
  const cl_ulong in_offset = op.in_offset, out_offset = op.out_offset, n = op.n;
  const cl_int exclusive = request.kind == scan_kind::exclusive ? 1 : 0;
  const cl_int has_initial = request.has_initial ? 1 : 0;
  const element_value& initial = request.has_initial ? request.initial : op.identity;
  const auto set_scan_args = [&](cl_kernel k) { // arguments 0 to 8
    launch.args(k, 0, op.aux, op.in, in_offset, op.out, out_offset, n, exclusive, has_initial,
                bytes_arg{element_size, initial.bytes});
  };
  const auto set_aggregate_args = [&](cl_kernel k, cl_mem aggregates) {
    launch.args(k, 0, op.aux, op.in, in_offset, n, aggregates);
  };
  enqueue_chained(
      ws, temps, kernels, op, launch,
      {status_words_per_slot(ws.caps, element_size, 1), by_key_carry_bytes(request.type), 9},
      [&](cl_kernel k, bool /*tiles_known*/) { set_scan_args(k); }, set_aggregate_args);
}

} // namespace

const algorithm_unit by_key_unit = {
    algorithm::single_pass,
    "by_key.cl",
    {"by_key_single_pass", "clear_status", "by_key_tile_aggregates", "scan_tile_aggregates", "by_key_tiles"},
    local_memory_bytes,
    prelude,
    lookback_build_options,
    enqueue};

} // namespace clscan::detail
