// The offsets' kernels of the segmented calls (kernels/segmented.cl): a head flag per segment start,
// and a reduction's results picked from the scan by key. Neither has a launch shape of its own: the
// implementation chooses the work-groups, and a launch has at most max_work_items work-items, each
// striding over the offsets.
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
  return std::string("#define CLSCAN_OFFSET_T ") + opencl_name(key.key_type) + "\n#define CLSCAN_BITS_T " +
         opencl_name(key.type) + "\n";
}

std::string build_options(const variant_key& /*key*/, const device_capabilities& /*caps*/) { return {}; }

void enqueue(workspace& /*ws*/, temporaries& /*temps*/, const compiled_variant& /*kernels*/,
             const scan_operands& /*op*/, launch_sequence& /*launch*/) {
  throw error("clscan internal error: the segmented calls' offsets kernels are enqueued by their own calls");
}

} // namespace

const algorithm_unit segments_unit = {algorithm::three_stage,
                                      "segmented.cl",
                                      {"segment_heads", "segment_results", "clear_heads"},
                                      local_memory_bytes,
                                      prelude,
                                      build_options,
                                      enqueue};

variant_key segments_variant(element_type offset_type, element_type value_type) {
  variant_key key;
  key.call = primitive::segment_offsets;
  key.key_type = offset_type;
  key.type = size_of(value_type) == 8 ? element_type::uint64 : element_type::uint32;
  // No compiled work-group size (build_variant's rebuild never applies) and no tile.
  key.work_group_size = 0;
  key.items_per_thread = 1;
  key.vector_width = 1;
  return key;
}

void enqueue_segment_heads(const compiled_variant& kernels, launch_sequence& launch, cl_mem offsets,
                           std::size_t offsets_offset, std::size_t count, std::size_t n, bool nonempty_only,
                           cl_mem heads, std::size_t heads_offset, cl_uint value) {
  cl_kernel k = kernels.kernels[segment_heads_kernel]();
  launch.args(k, 0, offsets, static_cast<cl_ulong>(offsets_offset), static_cast<cl_ulong>(count),
              static_cast<cl_ulong>(n), static_cast<cl_int>(nonempty_only ? 1 : 0), heads,
              static_cast<cl_ulong>(heads_offset), value);
  launch.run_any_shape(k, std::min(count, max_work_items));
}

void enqueue_clear_heads(const compiled_variant& kernels, launch_sequence& launch, cl_mem heads,
                         std::size_t count) {
  cl_kernel k = kernels.kernels[clear_heads_kernel]();
  launch.args(k, 0, heads, static_cast<cl_ulong>(count));
  launch.run_any_shape(k, std::min(count, max_work_items));
}

void enqueue_segment_results(const compiled_variant& kernels, launch_sequence& launch, cl_mem offsets,
                             std::size_t offsets_offset, std::size_t segments, std::size_t n, cl_mem scanned,
                             cl_mem out, std::size_t out_offset, const element_value& empty,
                             std::size_t value_size) {
  cl_kernel k = kernels.kernels[segment_results_kernel]();
  launch.args(k, 0, offsets, static_cast<cl_ulong>(offsets_offset), static_cast<cl_ulong>(segments),
              static_cast<cl_ulong>(n), scanned, out, static_cast<cl_ulong>(out_offset),
              bytes_arg{value_size, empty.bytes});
  launch.run_any_shape(k, std::min(segments, max_work_items));
}

} // namespace clscan::detail
