#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// The offsets' kernels of the segmented scans (kernels/segmented.cl): a program per offset type
// (variant_key::key_type), whatever the values' type. Its
// kernels are enqueued by lib/api/segmented.cpp through the functions below, not through
// algorithm_unit::enqueue.
extern const algorithm_unit segments_unit;

// kernels[] slots of segments_unit.
constexpr std::size_t segment_heads_kernel = 0, clear_heads_kernel = 1;

// The variant of the offsets' kernels for offsets of `offset_type`.
variant_key segments_variant(element_type offset_type);

// Sets byte heads[heads_offset + b] to value (0 or 1) for each begin b < n among
// offsets[offsets_offset + s], s < count.
void enqueue_segment_heads(const compiled_variant& kernels, launch_sequence& launch, cl_mem offsets,
                           std::size_t offsets_offset, std::size_t count, std::size_t n, cl_mem heads,
                           std::size_t heads_offset, cl_uint value);

// Zeroes the first `words` 32-bit words of heads.
void enqueue_clear_heads(const compiled_variant& kernels, launch_sequence& launch, cl_mem heads,
                         std::size_t words);

// reduce_segmented's program (kernels/segment_reduce.cl): per offset type (variant_key::key_type), values'
// type and operator (with the caller's parameters). Enqueued through enqueue_segment_reduce.
extern const algorithm_unit segment_reduce_unit;

// Elements per chunk of segment_reduce.cl (CLSCAN_SEGMENT_CHUNK) on a device: the chunk totals hold n /
// chunk values and as many flags. GPUs 4096: a segment of all n costs its work-item n / 4096 dependent
// combinations. Other devices 1024: a segment's head and tail, read by its own work-item, stay short
// (segments of 10^4 elements ran 1.5 times faster on PoCL than with 4096), and a CPU's core combines
// n / 1024 totals quickly.
std::size_t segment_chunk(const device_capabilities& caps);

// Entries of the totals and of the covered flags of reduce_segmented over n elements: a chunk total per
// whole chunk and the levels of totals above them (at least one).
std::size_t segment_total_entries(std::size_t n, std::size_t chunk);

// The variant of reduce_segmented for offsets of `offset_type` and the request's values and operator.
variant_key segment_reduce_variant(workspace& ws, element_type offset_type, const scan_request& request);

// reduce_segmented's kernels: the chunk totals and the levels above them (skipped where n < op.chunk),
// then out[out_offset + s], s < segments. totals and covered hold segment_total_entries entries each.
struct segment_reduce_operands {
  cl_mem in = nullptr;
  std::size_t in_offset = 0;
  std::size_t n = 0;
  cl_mem offsets = nullptr;
  std::size_t offsets_offset = 0;
  std::size_t segments = 0;
  cl_mem totals = nullptr;
  cl_mem covered = nullptr;
  cl_mem out = nullptr;
  std::size_t out_offset = 0;
  bool has_initial = false;
  element_value initial;
  std::size_t value_size = 0;
  std::size_t chunk = 0; // segment_chunk of the device
};
void enqueue_segment_reduce(const compiled_variant& kernels, launch_sequence& launch,
                            const segment_reduce_operands& op);

} // namespace clscan::detail
