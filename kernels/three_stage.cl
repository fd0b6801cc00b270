// The portable three-stage scan: scan each tile and record its total; scan the totals (recursively,
// with these same kernels, until one work-group covers them); add each tile's scanned prefix back.
// Works on any OpenCL 1.2 device: no atomics, no assumption about the order work-groups run in.

#include "group_scan.cl"
#include "tile_io.cl"

// Scans tile get_group_id(0) of src[0, n) (the call's input, read through the transform, or a level of
// tile totals, prelude.cl) into dst (inclusive, or exclusive when `exclusive`), seeded with `seed`
// (used by the launch that covers everything in one tile; pass the identity otherwise). When
// tile_totals is not null, the tile's total is written to tile_totals[tile]. seed_source, when not
// null, holds the seed at seed_offset instead (a value computed on the device).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
scan_tiles(const global in_t* src, ulong src_offset, global elem_t* dst, ulong dst_offset, ulong n,
           global elem_t* tile_totals, int exclusive, elem_t seed, const global elem_t* seed_source,
           ulong seed_offset CLSCAN_USER_PARAMS) {
  local elem_t scratch[CLSCAN_SCRATCH_SIZE];
  if (seed_source) seed = seed_source[seed_offset];
  const ulong tile = get_group_id(0);
  const ulong first = tile * CLSCAN_TILE + get_local_id(0) * CLSCAN_ITEMS;

  elem_t v[CLSCAN_ITEMS];
  load_items(src + src_offset, first, n, v CLSCAN_USER_ARGS);
  elem_t tile_total;
  const elem_t prefix =
      group_exclusive_scan(reduce_items(v CLSCAN_USER_ARGS), scratch, &tile_total CLSCAN_USER_ARGS);
  scan_items(v, combine(seed, prefix CLSCAN_USER_ARGS), exclusive CLSCAN_USER_ARGS);
  store_items(dst + dst_offset, first, n, v);

  if (tile_totals && get_local_id(0) == 0) tile_totals[tile] = tile_total;
}

// Combines each element of tile t of data[0, n) with the prefix of the tiles before it: seed op
// tile_prefixes[t]. Tile 0 has nothing before it, so without a seed it is left alone. seed_source as
// for scan_tiles (has_seed is then set).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
add_tile_prefixes(global elem_t* data, ulong data_offset, ulong n, const global elem_t* tile_prefixes,
                  int has_seed, elem_t seed, const global elem_t* seed_source,
                  ulong seed_offset CLSCAN_USER_PARAMS) {
  const ulong tile = get_group_id(0);
  if (tile == 0 && !has_seed) return;
  if (seed_source) seed = seed_source[seed_offset];
  const elem_t prefix = has_seed ? combine(seed, tile_prefixes[tile] CLSCAN_USER_ARGS) : tile_prefixes[tile];
  const ulong first = tile * CLSCAN_TILE + get_local_id(0) * CLSCAN_ITEMS;

  elem_t v[CLSCAN_ITEMS];
  load_elements(data + data_offset, first, n, v);
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_ITEMS; ++k)
    v[k] = combine(prefix, v[k] CLSCAN_USER_ARGS);
  store_items(data + data_offset, first, n, v);
}
