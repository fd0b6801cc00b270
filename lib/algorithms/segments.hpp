#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// The offsets' kernels of the segmented calls (kernels/segmented.cl): a program per offset type
// (variant_key::key_type) and values' size (variant_key::type: uint32 or uint64, their bits). Its
// kernels are enqueued by lib/api/segmented.cpp through the functions below, not through
// algorithm_unit::enqueue.
extern const algorithm_unit segments_unit;

// kernels[] slots of segments_unit.
constexpr std::size_t segment_heads_kernel = 0, segment_results_kernel = 1, clear_heads_kernel = 2;

// The variant of the offsets' kernels for offsets of `offset_type` and values of `value_type`.
variant_key segments_variant(element_type offset_type, element_type value_type);

// Sets heads[heads_offset + b] = value for each begin b < n among offsets[offsets_offset + s], s < count
// (nonempty_only: s < count segments, and only where the segment is not empty).
void enqueue_segment_heads(const compiled_variant& kernels, launch_sequence& launch, cl_mem offsets,
                           std::size_t offsets_offset, std::size_t count, std::size_t n, bool nonempty_only,
                           cl_mem heads, std::size_t heads_offset, cl_uint value);

// Sets heads[i] = 0 for i < count.
void enqueue_clear_heads(const compiled_variant& kernels, launch_sequence& launch, cl_mem heads,
                         std::size_t count);

// out[out_offset + s], s < segments: the inclusive scan by key `scanned` at the segment's last element,
// or `empty` (value_size bytes) where the segment is empty.
void enqueue_segment_results(const compiled_variant& kernels, launch_sequence& launch, cl_mem offsets,
                             std::size_t offsets_offset, std::size_t segments, std::size_t n, cl_mem scanned,
                             cl_mem out, std::size_t out_offset, const element_value& empty,
                             std::size_t value_size);

} // namespace clscan::detail
