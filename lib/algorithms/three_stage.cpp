// The three-stage scan (kernels/three_stage.cl): scan tiles, scan the tile totals recursively, add
// them back. Runs on any device, and gives the same bits run to run.
#include "algorithms/three_stage.hpp"

namespace clscan::detail {
namespace {

constexpr std::size_t scan_tiles_kernel = 0, add_tile_prefixes_kernel = 1;

std::size_t tiles_for(std::size_t n, std::size_t tile) { return (n + tile - 1) / tile; }

struct tile_scan_args {
  cl_mem src;
  cl_ulong src_offset;
  cl_mem dst;
  cl_ulong dst_offset;
  cl_ulong n;
  cl_mem tile_totals; // may be null
  cl_int exclusive;
  const element_value* seed;
  cl_mem seed_source; // options::initial_on_device (the seed is read there), else null
  cl_ulong seed_offset;
};

void scan_tiles(launch_sequence& launch, const compiled_variant& kernels, std::size_t element_size,
                const tile_scan_args& a, bool last) {
  cl_kernel k = kernels.kernels[scan_tiles_kernel]();
  launch.buffer_arg(k, 0, a.src);
  set_arg(k, 1, a.src_offset);
  launch.buffer_arg(k, 2, a.dst);
  set_arg(k, 3, a.dst_offset);
  set_arg(k, 4, a.n);
  launch.buffer_arg(k, 5, a.tile_totals);
  set_arg(k, 6, a.exclusive);
  set_arg_bytes(k, 7, element_size, a.seed->bytes);
  launch.buffer_arg(k, 8, a.seed_source);
  set_arg(k, 9, a.seed_offset);
  launch.run(k, tiles_for(a.n, kernels.tile), kernels.work_group_size, last);
}

void add_tile_prefixes(launch_sequence& launch, const compiled_variant& kernels, std::size_t element_size,
                       cl_mem data, cl_ulong offset, cl_ulong n, cl_mem prefixes, cl_int has_seed,
                       const element_value& seed, cl_mem seed_source, cl_ulong seed_offset, bool last) {
  cl_kernel k = kernels.kernels[add_tile_prefixes_kernel]();
  launch.buffer_arg(k, 0, data);
  set_arg(k, 1, offset);
  set_arg(k, 2, n);
  launch.buffer_arg(k, 3, prefixes);
  set_arg(k, 4, has_seed);
  set_arg_bytes(k, 5, element_size, seed.bytes);
  launch.buffer_arg(k, 6, seed_source);
  set_arg(k, 7, seed_offset);
  launch.run(k, tiles_for(n, kernels.tile), kernels.work_group_size, last);
}

// The work-group scan's scratch; each work-item keeps its run in private memory.
std::size_t local_memory_bytes(const tuning& shape, const device_capabilities& /*caps*/, element_type type) {
  return group_scan_local_bytes(shape.work_group_size, size_of(type));
}

std::string no_additions(const variant_key& /*key*/, const device_capabilities& /*caps*/) { return {}; }

void enqueue(workspace& ws, temporaries& temps, const compiled_variant& kernels, const scan_operands& op,
             launch_sequence& launch) {
  const std::size_t element_size = size_of(op.request->type);
  const cl_int exclusive = op.request->kind == scan_kind::exclusive ? 1 : 0;
  const element_value& seed = op.request->has_initial ? op.request->initial : op.identity;
  const cl_mem seed_source = op.request->initial_buffer;
  const cl_ulong seed_offset = op.request->initial_buffer_offset;
  const cl_int has_seed = op.request->has_initial || seed_source ? 1 : 0;

  if (!three_stage_has_levels(kernels, op.n)) {
    scan_tiles(launch, kernels, element_size,
               {op.in, op.in_offset, op.out, op.out_offset, op.n, nullptr, exclusive, &seed, seed_source,
                seed_offset},
               true);
    return;
  }

  // Level l >= 1 holds the totals of the tiles of level l - 1; level 0 is the user's data. Levels
  // are scanned exclusively in place until one tile covers a level, by `levels_kernels`: the call's
  // own, or where the input has a type of its own, the program of the call's type (plain_kernels),
  // whose tile may differ.
  // A tile of at least 2 elements (enforced by dispatch) halves each level, so 64 levels suffice.
  const compiled_variant& levels_kernels = op.plain_kernels ? *op.plain_kernels : kernels;
  std::size_t level_sizes[65];
  cl_mem levels[65];
  std::size_t depth = 0;
  for (std::size_t size = op.n, tile = kernels.tile; size > tile; tile = levels_kernels.tile) {
    size = tiles_for(size, tile);
    ++depth;
    level_sizes[depth] = size;
    levels[depth] = temps.scratch(ws.context, depth, size * element_size)();
  }
  level_sizes[0] = op.n;

  scan_tiles(
      launch, kernels, element_size,
      {op.in, op.in_offset, op.out, op.out_offset, op.n, levels[1], exclusive, &op.identity, nullptr, 0},
      false);
  // The levels and the output hold transformed values.
  const bool transform = op.request->transform && !op.request->transform->empty();
  if (op.plain_kernels)
    launch.user_parameters(op.request->parameters, false); // a program without the transform's switch
  launch.transform_input(false);
  for (std::size_t l = 1; l < depth; ++l)
    scan_tiles(launch, levels_kernels, element_size,
               {levels[l], 0, levels[l], 0, level_sizes[l], levels[l + 1], 1, &op.identity, nullptr, 0},
               false);
  scan_tiles(launch, levels_kernels, element_size,
             {levels[depth], 0, levels[depth], 0, level_sizes[depth], nullptr, 1, &op.identity, nullptr, 0},
             false);
  for (std::size_t l = depth - 1; l >= 1; --l)
    add_tile_prefixes(launch, levels_kernels, element_size, levels[l], 0, level_sizes[l], levels[l + 1], 0,
                      op.identity, nullptr, 0, false);
  // The output's tiles are the call's program's (add_tile_prefixes reads them as scanned elements).
  if (op.plain_kernels) launch.user_parameters(op.request->parameters, transform);
  add_tile_prefixes(launch, kernels, element_size, op.out, op.out_offset, op.n, levels[1], has_seed, seed,
                    seed_source, seed_offset, true);
}

} // namespace

bool three_stage_has_levels(const compiled_variant& kernels, std::size_t n) { return n > kernels.tile; }

const algorithm_unit three_stage_unit = {algorithm::three_stage,
                                         "three_stage.cl",
                                         {"scan_tiles", "add_tile_prefixes"},
                                         local_memory_bytes,
                                         no_additions,
                                         no_additions,
                                         enqueue};

} // namespace clscan::detail
