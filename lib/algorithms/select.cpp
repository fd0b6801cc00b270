// Stream compaction (kernels/select.cl). What a tile carries is its count of selected elements (32 bits
// below 2^32 elements, else 64), through the look-back (tile_prefix.cl) or through counts scanned beforehand
// (partition_if, which must know the total before it writes the unselected elements, and
// algorithm::three_stage).
#include "algorithms/select.hpp"

#include "algorithms/tile_chain.hpp"

#include <algorithm>

namespace clscan::detail {
namespace {

// Buffers and local memory are sized for 64-bit tile counts; the narrow counts of inputs below 2^32
// elements (variant_key::narrow_counts) use part of them.
constexpr std::size_t count_bytes = sizeof(cl_ulong);

std::size_t local_memory_bytes(const tuning& shape, const device_capabilities& caps, element_type type) {
  const std::size_t wg = shape.work_group_size;
  std::size_t bytes = group_scan_local_bytes(wg, count_bytes) + lookback_local_bytes(shape, count_bytes);
  // GPUs: the tile, and the owners of its output's blocks of 16 (select.cl, note_block_owners).
  if (caps.is_gpu())
    bytes += wg * (shape.items_per_thread + shape.vector_width) * size_of(type) +
             (wg * shape.items_per_thread / 16 + 1) * sizeof(cl_ushort);
  return bytes;
}

std::string prelude(const variant_key& key, const device_capabilities& caps) {
  std::string lines = lookback_prelude(key, caps);
  // Overridable with -D (CLSCAN_BUILD_OPTIONS), so that tests reach the 64-bit counts on small inputs.
  if (key.narrow_counts) lines += "#ifndef CLSCAN_COUNT_BITS\n#define CLSCAN_COUNT_BITS 32\n#endif\n";
  switch (key.call.value_or(primitive::select_if)) {
  case primitive::select_flagged: lines += "#define CLSCAN_SELECT_FLAGGED 1\n"; break;
  case primitive::unique: lines += "#define CLSCAN_SELECT_UNIQUE 1\n"; break;
  case primitive::select_run_heads:
  case primitive::select_run_tails:
    // By the keys of another buffer (runs.cpp), read through the flags' argument.
    if (key.key_type == element_type::float64 && key.type != element_type::float64)
      lines += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    lines += std::string("#define CLSCAN_KEY_T ") + opencl_name(key.key_type) + "\n";
    lines += *key.call == primitive::select_run_heads ? "#define CLSCAN_SELECT_RUN_HEADS 1\n"
                                                      : "#define CLSCAN_SELECT_RUN_TAILS 1\n";
    break;
  default:
    // The predicate's function opens the program (program_source); the default selects non-zero x.
    if (key.predicate)
      lines += "#define CLSCAN_PREDICATE clscan_user_predicate(x, i CLSCAN_EXPRESSION_ARGS)\n";
  }
  return lines;
}

void enqueue(workspace& ws, temporaries& temps, const compiled_variant& kernels, const scan_operands& op,
             launch_sequence& launch) {
  const primitive_request& call = *op.call;
  const cl_ulong in_offset = op.in_offset, out_offset = op.out_offset, n = op.n;
  const cl_ulong flags_offset = call.flags_offset, count_offset = call.count_offset;
  // Elements of the output past out_offset the kernels may write (primitive_request::out_capacity).
  const cl_ulong capacity = call.out_capacity.value_or(op.n);
  const auto set_inputs = [&](cl_kernel k) { // arguments 0 to 3
    launch.args(k, 0, op.in, in_offset, op.aux, flags_offset);
  };
  const auto set_outputs = [&](cl_kernel k) { // arguments 4 to 9
    launch.args(k, 4, op.out, out_offset, op.count, count_offset, n, capacity);
  };

  const cl_int partition = call.kind == primitive::partition_if ? 1 : 0;
  const auto set_call_args = [&](cl_kernel k, bool tiles_known) {
    set_inputs(k);
    set_outputs(k);
    if (tiles_known) set_arg(k, 11, partition); // after the aggregates (argument 10)
  };
  const auto set_aggregate_args = [&](cl_kernel k, cl_mem counts) {
    set_inputs(k);
    launch.args(k, 4, n, counts);
  };
  enqueue_chained(ws, temps, kernels, op, launch,
                  {status_words_per_slot(ws.caps, count_bytes), count_bytes, 10}, set_call_args,
                  set_aggregate_args);
}

} // namespace

// As every unit's descriptor (algorithm_unit.hpp): the units share its shape, not its entries.
const algorithm_unit select_unit = {
    algorithm::single_pass,
    "select.cl",
    {"select_single_pass", "clear_status", "select_tile_counts", "scan_tile_aggregates", "select_tiles"},
    local_memory_bytes,
    prelude,
    lookback_build_options,
    enqueue};

} // namespace clscan::detail
