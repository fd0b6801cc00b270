// How the tiles of a selection or a by-key scan learn what comes before them: through the look-back
// (one pass), or through tile aggregates scanned first (three kernels). Both units (select.cpp,
// by_key.cpp) lay out their kernels and arguments alike, so that this enqueues either family.
#pragma once

#include "algorithms/algorithm_unit.hpp"
#include "algorithms/single_pass.hpp"

namespace clscan::detail {

// Kernel slots (algorithm_unit::kernel_names) of a unit whose tiles are chained either way.
constexpr std::size_t chained_one_pass = 0, chained_clear_status = 1, chained_tile_aggregates = 2,
                      chained_scan_aggregates = 3, chained_tiles = 4;

struct chain_layout {
  std::size_t words_per_slot; // status words of one carry (status_words_per_slot)
  std::size_t carry_bytes;    // bytes of one carry in the aggregates buffer
  cl_uint call_args;          // the one-pass and the last kernel take the call's arguments first
};

// set_call_args(kernel, tiles_known) sets arguments [0, layout.call_args) of the one-pass kernel
// (tiles_known false) or of the last kernel (true; it may set arguments after the aggregates too);
// set_aggregate_args(kernel, aggregates) sets every argument of the tile-aggregates kernel. Templates,
// not std::function: a repeat call allocates nothing.
template <typename SetCallArgs, typename SetAggregateArgs>
void enqueue_chained(workspace& ws, temporaries& temps, const compiled_variant& kernels,
                     const scan_operands& op, launch_sequence& launch, const chain_layout& layout,
                     const SetCallArgs& set_call_args, const SetAggregateArgs& set_aggregate_args) {
  const std::size_t tiles = (op.n + kernels.tile - 1) / kernels.tile;
  if (op.algo == algorithm::single_pass) {
    const lookback_launch started =
        begin_lookback(ws, temps, kernels.kernels[chained_clear_status](), layout.words_per_slot,
                       std::max(tiles, op.small_class_tiles), launch);
    cl_kernel k = kernels.kernels[chained_one_pass]();
    set_call_args(k, false);
    launch.buffer_arg(k, layout.call_args, started.status);
    set_arg(k, layout.call_args + 1, started.ticket_base);
    set_arg(k, layout.call_args + 2, started.tag);
    launch.run(k, tiles, kernels.work_group_size, true);
    end_lookback(temps, started, tiles, op.waits_pending, launch);
    return;
  }
  // Aggregates per tile, their exclusive scan (and the total after them), then the tiles.
  const cl_mem aggregates = temps.scratch(ws.context, 1, (tiles + 1) * layout.carry_bytes)();
  cl_kernel reduce = kernels.kernels[chained_tile_aggregates]();
  set_aggregate_args(reduce, aggregates);
  launch.run(reduce, tiles, kernels.work_group_size, false);
  cl_kernel scan = kernels.kernels[chained_scan_aggregates]();
  launch.buffer_arg(scan, 0, aggregates);
  set_arg(scan, 1, cl_ulong{tiles});
  launch.run(scan, 1, kernels.work_group_size, false);
  cl_kernel last = kernels.kernels[chained_tiles]();
  set_call_args(last, true);
  launch.buffer_arg(last, layout.call_args, aggregates);
  launch.run(last, tiles, kernels.work_group_size, true);
}

} // namespace clscan::detail
