// reduce_by_key, unique_by_key and run_length_encode in one pass (kernels/runs.cl): a tile carries
// the count of run heads before it (and the value of the run open at its end) through the look-back
// of tile_prefix.cl, and writes its runs where that count puts them. No family on tile totals known
// beforehand: algorithm::three_stage and devices without a qualified look-back run lib/api/runs.cpp's
// composition of passes instead.
#include "algorithms/runs.hpp"

#include "algorithms/single_pass.hpp"
#include "element.hpp"

#include <algorithm>

namespace clscan::detail {
namespace {

constexpr std::size_t one_pass_kernel = 0, clear_status_kernel = 1;
// Local memory is sized for the wider carry and the tile of values, whichever call the program is of.
constexpr std::size_t widest_carry = 8;

std::size_t local_memory_bytes(const tuning& shape, const device_capabilities& caps, element_type type) {
  // The work-group scan's scratch, the look-back's state and the ticket.
  const std::size_t wg = shape.work_group_size;
  std::size_t bytes =
      group_scan_local_bytes(wg, widest_carry) + lookback_local_bytes(shape, widest_carry) + 16;
  // GPUs: the tile of values with a vector of padding per run (reduce_by_key's; the others' programs
  // declare less), and a run-head entry per vector (two bytes past 8 elements) with four of padding
  // per run (kernels/runs.cl).
  if (caps.is_gpu()) {
    const std::size_t head_bytes = shape.vector_width > 8 ? 2 : 1;
    bytes += wg * (shape.items_per_thread + shape.vector_width) * size_of(type) +
             wg * (shape.items_per_thread / shape.vector_width + 4) * head_bytes;
  }
  return bytes;
}

std::string prelude(const variant_key& key, const device_capabilities& caps) {
  std::string lines = lookback_prelude(key, caps);
  if (key.key_type == element_type::float64 && key.type != element_type::float64)
    lines += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  if (key.call == primitive::runs_unique) lines += "#define CLSCAN_RUNS_UNIQUE 1\n";
  if (key.call == primitive::runs_encode) lines += "#define CLSCAN_RUNS_ONES 1\n";
  return lines + "#define CLSCAN_KEY_T " + opencl_name(key.key_type) + "\n";
}

void enqueue(workspace& ws, temporaries& temps, const compiled_variant& kernels, const scan_operands& op,
             launch_sequence& launch) {
  const primitive_request& call = *op.call;
  const scan_request& request = call.scan;
  const std::size_t tiles = (op.n + kernels.tile - 1) / kernels.tile;
  // As the single-pass scan's: sized for the small shape's tiles too, so that no smaller n allocates.
  const lookback_launch started = begin_lookback(ws, temps, kernels.kernels[clear_status_kernel](),
                                                 status_words_per_slot(ws.caps, runs_carry_bytes(call.kind)),
                                                 std::max(tiles, op.small_class_tiles), launch);
  cl_kernel k = kernels.kernels[one_pass_kernel]();
  const cl_ulong in_offset = op.in_offset, out_offset = op.out_offset, n = op.n;
  const cl_ulong count_offset = call.count_offset, capacity = call.out_capacity.value_or(op.n);
  const cl_int has_initial = request.has_initial ? 1 : 0;
  const element_value& initial = request.has_initial ? request.initial : op.identity;
  launch.args(k, 0, op.aux, op.in, in_offset, op.out_keys, op.out, out_offset, op.count, count_offset, n,
              capacity, has_initial, bytes_arg{size_of(request.type), initial.bytes}, started.status,
              started.ticket_base, started.tag);
  launch.run(k, tiles, kernels.work_group_size, true);
  end_lookback(temps, started, tiles, op.waits_pending, launch);
}

} // namespace

const algorithm_unit runs_unit = {
    algorithm::single_pass, "runs.cl", {"runs_single_pass", "clear_status"}, local_memory_bytes, prelude,
    lookback_build_options, enqueue};

} // namespace clscan::detail
