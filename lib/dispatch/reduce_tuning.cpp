// The reduce kernel's launch shape and how it splits an input among work-groups (tuning.hpp).
#include "tuning.hpp"

#include "algorithms/reduce.hpp"
#include "element.hpp"
#include "settings.hpp"

#include <clscan/error.hpp>
#include <clscan/names.hpp>

#include <algorithm>
#include <string>
#include <string_view>

namespace clscan::detail {

tuning reduce_tuning(const device_capabilities& caps, element_type type) {
  tuning shape;
  const std::size_t element_size = size_of(type);
  shape.vector_width = 16 / element_size;
  if (caps.is_gpu()) {
    // Consecutive work-items load consecutive 16-byte vectors, four each per step, so that a
    // work-item has four loads in flight. Not measured beyond PoCL posing as a GPU yet.
    shape.work_group_size = std::min<std::size_t>(caps.max_work_group_size, 256);
    shape.items_per_thread = 4 * shape.vector_width;
  } else {
    // Work-items walk contiguous parts, 128 bytes a step into as many vector accumulators: on PoCL
    // (2 cores) 2^20..2^24 int sums ran at 0.91..1.63 of a read, as with 256-byte steps (1.09..1.64),
    // which took PoCL half as long again to compile (1.0 s against 0.67 s a program). 16 work-items:
    // two SIMD widths of llvmpipe, which mishandles loops in narrower work-groups (docs/RELIABILITY.md,
    // "rusticl").
    shape.work_group_size = std::min<std::size_t>(caps.max_work_group_size, 16);
    shape.items_per_thread = 8 * shape.vector_width;
  }
  while (reduce_unit.local_memory_bytes(shape, caps, type) > caps.local_mem_size &&
         shape.items_per_thread > shape.vector_width)
    shape.items_per_thread /= 2;
  while (reduce_unit.local_memory_bytes(shape, caps, type) > caps.local_mem_size && shape.work_group_size > 1)
    shape.work_group_size /= 2;
  shape.origin = "default";
  if (const std::string_view text = tuning_override(); !text.empty()) {
    shape.lookback = 1; // parse_shape requires one; reduce has no look-back
    parse_shape(std::string(text), "CLSCAN_TUNING", shape);
    shape.origin = "CLSCAN_TUNING";
  }
  shape.lookback = 0;
  // Each work-item keeps its step's elements (its accumulators) in private memory: at most 1 MiB a
  // work-group, as for the three-stage kernels (check_private_memory).
  constexpr std::size_t max_private_bytes = std::size_t{1} << 20;
  const std::size_t private_bytes = shape.work_group_size * shape.items_per_thread * element_size;
  const std::size_t local_bytes = reduce_unit.local_memory_bytes(shape, caps, type);
  if (private_bytes > max_private_bytes || local_bytes > caps.local_mem_size)
    throw invalid_argument(
        shape.origin + ": wg=" + std::to_string(shape.work_group_size) +
        ",items=" + std::to_string(shape.items_per_thread) + ",vec=" + std::to_string(shape.vector_width) +
        " does not fit the reduce kernel of " + opencl_name(type) + " on '" + caps.name +
        "': " + std::to_string(private_bytes) + " bytes of private memory a work-group (at most " +
        std::to_string(max_private_bytes) + ") and " + std::to_string(local_bytes) +
        " of local memory (the device has " + std::to_string(caps.local_mem_size) + ")");
  return shape;
}

reduce_split split_reduce(const device_capabilities& caps, std::size_t n, std::size_t element_size,
                          std::size_t tile, std::size_t work_group_size) {
  reduce_split split;
  const std::size_t tiles = (n + tile - 1) / tile;
  split.range_tiles = std::max<std::size_t>(tiles, 1);
  // Inputs this small are read by one work-group sooner than a second launch would start.
  const std::size_t one_group_bytes = caps.is_gpu() ? std::size_t{64} << 10 : std::size_t{256} << 10;
  if (tiles <= 1 || n * element_size <= one_group_bytes) return split;
  // Enough work-groups to keep the device busy: on GPUs 2048 work-items per compute unit (what one
  // NVIDIA multiprocessor holds at once), on CPUs one work-group per core.
  const std::size_t units = std::max<std::size_t>(caps.compute_units, 1);
  std::size_t groups = caps.is_gpu() ? units * std::max<std::size_t>(1, 2048 / work_group_size) : units;
  // A work-item takes one loop step per tile of its range; llvmpipe ends every loop of a kernel after
  // 65535 steps in all (docs/RELIABILITY.md, "rusticl"), so ranges stay within 16384 tiles.
  constexpr std::size_t max_range_tiles = 16384;
  groups = std::max(groups, (tiles + max_range_tiles - 1) / max_range_tiles);
  groups = std::min(groups, tiles);
  split.range_tiles = (tiles + groups - 1) / groups;
  split.groups = (tiles + split.range_tiles - 1) / split.range_tiles;
  return split;
}

} // namespace clscan::detail
