// Launch shapes (clscan::tuning): one owner for the defaults per device, the tuning file and
// CLSCAN_TUNING, and the limits a shape must keep.
#pragma once

#include <clscan/device.hpp>
#include <clscan/options.hpp>

#include <cstddef>
#include <string>

namespace clscan::detail {

// Launch shape dispatch starts from for this device, type and algorithm, for inputs larger than
// small_input_bytes() or (small_inputs) for the others; a tuned shape replaces the large-input one,
// CLSCAN_TUNING replaces both. Throws invalid_argument for a shape that does not fit the kernel's
// private or local memory.
tuning initial_tuning(const device_capabilities& caps, element_type type, algorithm algo,
                      bool small_inputs = false);

// Inputs of at most this many bytes use `algo`'s small-input shape (0: one shape for every size).
std::size_t small_input_bytes(const device_capabilities& caps, algorithm algo);
// The same for scans by key, counted in bytes of values.
std::size_t by_key_small_input_bytes(const device_capabilities& caps);
// The one-pass reduce_by_key and unique_by_key (kernels/runs.cl, reads_values) take the single-pass
// scan's tile in work-groups twice as large, each work-item walking half the run, where this is true.
bool runs_split_work_items(const device_capabilities& caps, bool reads_values, bool small_inputs);
// Single-pass calls whose tile count lies in [first, last] combine their tiles' totals along the fixed
// tree (CLSCAN_FIXED_ORDER) rather than nearest first (last 0: never).
struct tile_range {
  std::size_t first = 0, last = 0;
  bool contains(std::size_t tiles) const noexcept { return first <= tiles && tiles <= last; }
};
tile_range fixed_order_tiles(const device_capabilities& caps);

// Reads "wg=128,items=16,vec=4,lookback=16,lanes=2" into `shape` (tuning.cpp); `source` names where
// the text came from, for the error message.
void parse_shape(const std::string& text, const std::string& source, tuning& shape);

// clscan::reduce (lib/algorithms/reduce.cpp): its launch shape for this device and type (lookback and
// spin_limit unused), defaults by device type and then CLSCAN_TUNING; throws invalid_argument for a
// shape that does not fit the kernel's private or local memory.
tuning reduce_tuning(const device_capabilities& caps, element_type type);

// How reduce splits n elements (of element_size bytes) in tiles of `tile` among work-groups of
// `work_group_size`: `groups` work-groups of `range_tiles` consecutive tiles each (the last one fewer), whose
// totals one more work-group combines; one group needs no second launch. A function of the device and n only,
// so the order of combination is the same every run.
struct reduce_split {
  std::size_t groups = 1;
  std::size_t range_tiles = 0;
};
reduce_split split_reduce(const device_capabilities& caps, std::size_t n, std::size_t element_size,
                          std::size_t tile, std::size_t work_group_size);

// The radix sort (lib/algorithms/sort.cpp): work-group size and keys per work-item of its tiles, for the
// one-pass kernel or the three-stage passes, keys alone or with values, before lib/algorithms/sort.cpp
// fits them to the device's local memory.
tuning sort_tuning(const device_capabilities& caps, bool one_pass, bool values_move);

// Whether the one-pass sort ranks its tiles in warps (kernels/sort.cl CLSCAN_SORT_RANK_MATCH): on
// devices with NVIDIA's warp PTX, for work-groups of whole warps.
bool sort_ranks_in_warps(const device_capabilities& caps, std::size_t work_group_size);

// Keys per work-item of the sort's GPU tiles of 4096 keys.
std::size_t sort_base_items(std::size_t work_group_size);

} // namespace clscan::detail
