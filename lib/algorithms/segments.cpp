// The offsets' kernels of the segmented scans (kernels/segmented.cl: a head flag per segment start) and
// reduce_segmented's kernels (kernels/segment_reduce.cl). None has a launch shape of its own: the
// implementation chooses the work-groups, and a launch has at most max_work_items (the offsets' kernels)
// or max_reduce_items (reduce_segmented's) work-items, each striding over the offsets, chunks or
// segments.
#include "algorithms/segments.hpp"

#include "element.hpp"

#include <clscan/error.hpp>

#include <algorithm>

namespace clscan::detail {
namespace {

// Enough work-items to fill any device, few enough that a launch over 2^32 offsets stays a small grid.
constexpr std::size_t max_work_items = std::size_t{1} << 20;

std::size_t local_memory_bytes(const tuning& /*shape*/, const device_capabilities& /*caps*/,
                               element_type /*type*/) {
  return 0;
}

std::string prelude(const variant_key& key, const device_capabilities& /*caps*/) {
  return std::string("#define CLSCAN_OFFSET_T ") + opencl_name(key.key_type) + "\n";
}

std::string build_options(const variant_key& /*key*/, const device_capabilities& /*caps*/) { return {}; }

void enqueue(workspace& /*ws*/, temporaries& /*temps*/, const compiled_variant& /*kernels*/,
             const scan_operands& /*op*/, launch_sequence& /*launch*/) {
  throw error("clscan internal error: the segmented calls' offsets kernels are enqueued by their own calls");
}

} // namespace

const algorithm_unit segments_unit = {
    algorithm::three_stage, "segmented.cl", {"segment_heads", "clear_heads"}, local_memory_bytes, prelude,
    build_options,          enqueue};

variant_key segments_variant(element_type offset_type) {
  variant_key key;
  key.call = primitive::segment_offsets;
  key.key_type = offset_type;
  key.type = element_type::uint32; // the flags' type; the values are never read
  // No compiled work-group size (build_variant's rebuild never applies) and no tile.
  key.work_group_size = 0;
  key.items_per_thread = 1;
  key.vector_width = 1;
  return key;
}

void enqueue_segment_heads(const compiled_variant& kernels, launch_sequence& launch, cl_mem offsets,
                           std::size_t offsets_offset, std::size_t count, std::size_t n, cl_mem heads,
                           std::size_t heads_offset, cl_uint value) {
  cl_kernel k = kernels.kernels[segment_heads_kernel]();
  launch.args(k, 0, offsets, static_cast<cl_ulong>(offsets_offset), static_cast<cl_ulong>(count),
              static_cast<cl_ulong>(n), heads, static_cast<cl_ulong>(heads_offset), value);
  launch.run_any_shape(k, std::min(count, max_work_items));
}

void enqueue_clear_heads(const compiled_variant& kernels, launch_sequence& launch, cl_mem heads,
                         std::size_t words) {
  cl_kernel k = kernels.kernels[clear_heads_kernel]();
  launch.args(k, 0, heads, static_cast<cl_ulong>(words));
  launch.run_any_shape(k, std::min(words, max_work_items));
}

namespace {

constexpr std::size_t segment_chunks_kernel = 0, segment_totals_kernel = 1, segment_level_kernel = 2;

// Levels of totals above the chunks (kernels/segment_reduce.cl CLSCAN_SEGMENT_GROUP and _LEVELS): an
// entry of each per 64 entries below, at most three levels. A segment of all n then costs its work-item
// fewer than 2 * 64 combinations per level and the entries of the highest level (2^28 elements in
// chunks of 4096: 65536 chunks, 1024, 16 and no third level) where it took one per chunk.
constexpr std::size_t segment_group = 64, segment_levels = 3;

// Entries of level `level` (1 to segment_levels) above `chunks` chunks; 0 where it has none.
std::size_t level_entries(std::size_t chunks, std::size_t level) {
  std::size_t entries = chunks;
  for (std::size_t k = 0; k < level; ++k)
    entries /= segment_group;
  return level <= segment_levels ? entries : 0;
}

// reduce_segmented's launches: a work-item per chunk and per segment up to this many, striding past it.
// Far above max_work_items: on PoCL, 2^24 segments took 4.5 times as long with 2^20 work-items, each
// striding 2^20 segments at a time (every step of a work-item a cache line and a page of its own), as
// with one work-item per segment, which ran as fast as the serial loop.
constexpr std::size_t max_reduce_items = std::size_t{1} << 30;

// Vector lanes of a commutative operator's accumulator (CLSCAN_VEC of segment_reduce.cl).
constexpr std::size_t segment_lanes = 8;

std::string reduce_prelude(const variant_key& key, const device_capabilities& /*caps*/) {
  std::string lines = std::string("#define CLSCAN_OFFSET_T ") + opencl_name(key.key_type) + "\n";
  // Only the built-in operators are known to be commutative (the interleaved accumulators need it).
  if (key.operation != op::custom) lines += "#define CLSCAN_REDUCE_COMMUTATIVE 1\n";
  return lines;
}

std::string reduce_build_options(const variant_key& /*key*/, const device_capabilities& caps) {
  // Where loops are limited, every whole chunk gets its total, so that no segment's work-item reads
  // whole chunks or level entries itself (unsorted offsets), a walk as long as the segment.
  return " -DCLSCAN_SEGMENT_CHUNK=" + std::to_string(segment_chunk(caps)) +
         " -DCLSCAN_SEGMENT_GROUP=" + std::to_string(segment_group) +
         " -DCLSCAN_SEGMENT_LEVELS=" + std::to_string(segment_levels) +
         (caps.loops_limited ? " -DCLSCAN_SEGMENT_EVERY_CHUNK=1" : "");
}

} // namespace

const algorithm_unit segment_reduce_unit = {algorithm::three_stage,
                                            "segment_reduce.cl",
                                            {"segment_chunks", "segment_totals", "segment_level"},
                                            local_memory_bytes,
                                            reduce_prelude,
                                            reduce_build_options,
                                            enqueue};

std::size_t segment_chunk(const device_capabilities& caps) { return caps.is_gpu() ? 4096 : 1024; }

std::size_t segment_total_entries(std::size_t n, std::size_t chunk) {
  std::size_t entries = n / chunk;
  for (std::size_t level = 1; level_entries(n / chunk, level); ++level)
    entries += level_entries(n / chunk, level);
  return std::max<std::size_t>(entries, 1);
}

variant_key segment_reduce_variant(workspace& ws, element_type offset_type, const scan_request& request) {
  variant_key key;
  key.call = primitive::segment_reduce;
  key.key_type = offset_type;
  key.type = request.type;
  key.operation = request.operation;
  if (request.operation == op::custom) {
    key.custom_op = ws.intern(*request.custom_op);
    key.custom_identity = request.custom_identity;
  }
  key.parameter_count = request.parameters ? request.parameters->size() : 0;
  for (std::size_t p = 0; p < key.parameter_count; ++p) {
    const parameter& given = (*request.parameters)[p];
    key.parameters[p] = {ws.intern(given.name), static_cast<element_type>(given.value.index())};
  }
  // CLSCAN_VEC: the lanes of a commutative operator (segment_reduce.cl reduce_run); CLSCAN_ITEMS only
  // satisfies the prelude's check (a multiple of it).
  key.work_group_size = 0;
  key.items_per_thread = segment_lanes;
  key.vector_width = segment_lanes;
  return key;
}

void enqueue_segment_reduce(const compiled_variant& kernels, launch_sequence& launch,
                            const segment_reduce_operands& op) {
  const std::size_t chunks = op.n / op.chunk;
  if (chunks) {
    cl_kernel k = kernels.kernels[segment_chunks_kernel]();
    launch.args(k, 0, op.in, static_cast<cl_ulong>(op.in_offset), static_cast<cl_ulong>(op.n), op.offsets,
                static_cast<cl_ulong>(op.offsets_offset), static_cast<cl_ulong>(op.segments), op.totals,
                op.covered);
    launch.run_any_shape(k, std::min(chunks, max_reduce_items));
    for (std::size_t level = 1; level_entries(chunks, level); ++level) {
      cl_kernel lk = kernels.kernels[segment_level_kernel]();
      launch.args(lk, 0, op.totals, op.covered, static_cast<cl_ulong>(op.n), static_cast<cl_int>(level));
      launch.run_any_shape(lk, std::min(level_entries(chunks, level), max_reduce_items));
    }
  }
  cl_kernel k = kernels.kernels[segment_totals_kernel]();
  launch.args(k, 0, op.in, static_cast<cl_ulong>(op.in_offset), static_cast<cl_ulong>(op.n), op.offsets,
              static_cast<cl_ulong>(op.offsets_offset), static_cast<cl_ulong>(op.segments), op.totals,
              op.covered, op.out, static_cast<cl_ulong>(op.out_offset),
              static_cast<cl_int>(op.has_initial ? 1 : 0), bytes_arg{op.value_size, op.initial.bytes});
  launch.run_any_shape(k, std::min(op.segments, max_reduce_items));
}

} // namespace clscan::detail
