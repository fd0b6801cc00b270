#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// One pass over the data: decoupled look-back with fallback (kernels/single_pass.cl).
extern const algorithm_unit single_pass_unit;

// True when the device has what the single-pass kernel needs for this element type.
bool single_pass_supported(const device_capabilities& caps, element_type type);

// True when the single-pass status words are 64 bits wide (cl_khr_int64_base_atomics, unless
// CLSCAN_NARROW_STATUS=1 asks for the 32-bit layout); kernels/tile_prefix.cl CLSCAN_WIDE_STATUS.
bool wide_status_words(const device_capabilities& caps);

// True when single-pass status words use release/acquire atomics on this device
// (kernels/tile_prefix.cl CLSCAN_ACQ_REL): the device has them at device scope, 64-bit words also
// have cl_khr_int64_extended_atomics, and CLSCAN_MEMORY_MODEL is not "fences".
bool acq_rel_status(const device_capabilities& caps);

// What every program with the look-back (kernels/tile_prefix.cl) adds to its prelude and options.
std::string lookback_prelude(const variant_key& key, const device_capabilities& caps);
std::string lookback_build_options(const variant_key& key, const device_capabilities& caps);

// Local memory of the look-back's state (kernels/tile_prefix.cl lookback_locals) for carries of
// `carry_bytes`, with the nearest-first window or the fixed tree.
std::size_t lookback_local_bytes(const tuning& shape, std::size_t carry_bytes);

// Status words a carry of `value_bytes` takes in one slot, plus `flag_words` (CLSCAN_CARRY_FLAGGED).
std::size_t status_words_per_slot(const device_capabilities& caps, std::size_t value_bytes,
                                  std::size_t flag_words = 0);

// One launch of a kernel with the look-back on a set of temporaries: its status words, epoch tag and
// first ticket. begin_lookback() enqueues what the words need first (a clear or a ticket reset, with
// the kernel clear_status); once the launch itself is enqueued, end_lookback() records what the
// device will see.
struct lookback_launch {
  cl_mem status = nullptr;
  cl_uint tag = 0;
  cl_uint ticket_base = 0;
  bool cleared = false;
};
lookback_launch begin_lookback(workspace& ws, temporaries& temps, cl_kernel clear_status,
                               std::size_t words_per_slot, std::size_t capacity_tiles,
                               launch_sequence& launch);
void end_lookback(temporaries& temps, const lookback_launch& started, std::size_t tiles, bool waits_pending,
                  launch_sequence& launch);

} // namespace clscan::detail
