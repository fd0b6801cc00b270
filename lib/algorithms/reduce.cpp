// Reduce (kernels/reduce.cl). The split among work-groups comes from tuning.cpp (split_reduce), a
// function of the device and n, and each work-group combines in a fixed order, so a result is the same
// bits every run. No atomics and no look-back: nothing here depends on the single-pass qualification.
#include "algorithms/reduce.hpp"

#include "tuning.hpp"

namespace clscan::detail {
namespace {

constexpr std::size_t reduce_ranges_kernel = 0;
// temporaries::scratch slot of the partial totals; a set of temporaries serves one call at a time, so
// sharing the slot with the three-stage levels only shares their memory.
constexpr std::size_t partials_slot = 1;

// kernels/reduce.cl CLSCAN_REDUCE_LAYOUT.
constexpr int contiguous_layout = 0, strided_layout = 1, local_tile_layout = 2;

int layout_of(const variant_key& key, const device_capabilities& caps) {
  if (!caps.is_gpu()) return contiguous_layout;
  // Only the built-in operators are known to be commutative, which the strided layout needs.
  return key.operation == op::custom ? local_tile_layout : strided_layout;
}

// The work-group scan's scratch, and on GPUs the local tile of the custom operators' layout (counted
// for every operator: the shape is one per type).
std::size_t local_memory_bytes(const tuning& shape, const device_capabilities& caps, element_type type) {
  const std::size_t wg = shape.work_group_size;
  std::size_t bytes = group_scan_local_bytes(wg, size_of(type));
  if (caps.is_gpu()) bytes += wg * (shape.items_per_thread + shape.vector_width) * size_of(type);
  return bytes;
}

std::string prelude(const variant_key& key, const device_capabilities& caps) {
  std::string lines = "#ifndef CLSCAN_REDUCE_LAYOUT\n#define CLSCAN_REDUCE_LAYOUT " +
                      std::to_string(layout_of(key, caps)) + "\n#endif\n";
  if (key.operation != op::custom) lines += "#define CLSCAN_REDUCE_COMMUTATIVE 1\n";
  return lines;
}

std::string no_options(const variant_key& /*key*/, const device_capabilities& /*caps*/) { return {}; }

struct range_launch {
  cl_mem src;
  cl_ulong src_offset;
  cl_ulong n;
  cl_ulong range_tiles;
  cl_mem dst;
  cl_ulong dst_offset;
  cl_int apply_initial;
};

void enqueue(workspace& ws, temporaries& temps, const compiled_variant& kernels, const scan_operands& op,
             launch_sequence& launch) {
  const scan_request& request = *op.request;
  const std::size_t element_size = size_of(request.type);
  const cl_int has_initial = request.has_initial || request.initial_buffer ? 1 : 0;
  const element_value& initial = request.has_initial ? request.initial : op.identity;
  const cl_ulong initial_offset = request.initial_buffer_offset;
  const auto run = [&](const compiled_variant& program, const range_launch& a, std::size_t groups,
                       bool last) {
    cl_kernel k = program.kernels[reduce_ranges_kernel]();
    launch.buffer_arg(k, 0, a.src);
    set_arg(k, 1, a.src_offset);
    set_arg(k, 2, a.n);
    set_arg(k, 3, a.range_tiles);
    launch.buffer_arg(k, 4, a.dst);
    set_arg(k, 5, a.dst_offset);
    set_arg(k, 6, a.apply_initial);
    set_arg_bytes(k, 7, element_size, initial.bytes);
    launch.buffer_arg(k, 8, a.apply_initial ? request.initial_buffer : cl_mem{nullptr});
    set_arg(k, 9, initial_offset);
    launch.run(k, groups, program.work_group_size, last);
  };

  const reduce_split split = split_reduce(ws.caps, op.n, element_size, kernels.tile, kernels.work_group_size);
  if (split.groups == 1) {
    run(kernels, {op.in, op.in_offset, op.n, split.range_tiles, op.out, op.out_offset, has_initial}, 1, true);
    return;
  }
  const cl_mem partials = temps.scratch(ws.context, partials_slot, split.groups * element_size)();
  run(kernels, {op.in, op.in_offset, op.n, split.range_tiles, partials, 0, 0}, split.groups, false);
  // The partial totals are of transformed values; where the input has a type of its own, the program of
  // the call's type reads them (plain_kernels, without the transform's switch).
  const compiled_variant& partials_kernels = op.plain_kernels ? *op.plain_kernels : kernels;
  if (op.plain_kernels) launch.user_parameters(request.parameters, false);
  launch.transform_input(false);
  const cl_ulong partial_tiles = (split.groups + partials_kernels.tile - 1) / partials_kernels.tile;
  run(partials_kernels, {partials, 0, split.groups, partial_tiles, op.out, op.out_offset, has_initial}, 1,
      true);
}

} // namespace

bool reduce_has_partials(const device_capabilities& caps, const compiled_variant& kernels, std::size_t n,
                         const scan_request& request) {
  return split_reduce(caps, n, size_of(request.type), kernels.tile, kernels.work_group_size).groups > 1;
}

const algorithm_unit reduce_unit = {
    algorithm::three_stage, "reduce.cl", {"reduce_ranges"}, local_memory_bytes, prelude, no_options, enqueue};

} // namespace clscan::detail
