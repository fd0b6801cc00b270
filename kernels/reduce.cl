// Reduce (clscan::reduce): the total of a range under the operator, in an order fixed by the launch
// shape and n, never by scheduling. One kernel serves both launches: G work-groups each reduce a
// contiguous range of whole tiles (CLSCAN_TILE elements) into partials[group], then one work-group
// reduces the partials and puts the initial value in front; an input of one range needs only the
// second kind of launch.
//
// How a work-group's range is split among its work-items, CLSCAN_REDUCE_LAYOUT (the host picks one
// from the device type and the operator, lib/algorithms/reduce.cpp; -D overrides it):
//   CLSCAN_REDUCE_CONTIGUOUS  CPUs: each work-item walks a contiguous part of the range (a core then
//                             streams through memory), with CLSCAN_ITEMS accumulators where the
//                             operator is commutative (CLSCAN_REDUCE_COMMUTATIVE), in order otherwise.
//   CLSCAN_REDUCE_STRIDED     GPUs, built-in operators (all commutative): consecutive work-items load
//                             consecutive vectors of each tile (coalesced), and a work-item keeps one
//                             accumulator per element it loads in a step, so that its CLSCAN_ITEMS
//                             loads are in flight together.
//   CLSCAN_REDUCE_LOCAL_TILE  GPUs, custom operators (perhaps not commutative): each tile is loaded
//                             coalesced into local memory, each work-item reduces its consecutive run
//                             of it, and the work-group combines the runs in order, tile after tile.
// Every combination follows the element order except between the accumulators of a commutative
// operator, whose order is fixed as well: the same (device, shape, n) gives the same bits every run.

#include "group_scan.cl"
#include "tile_io.cl"

#define CLSCAN_REDUCE_CONTIGUOUS 0
#define CLSCAN_REDUCE_STRIDED 1
#define CLSCAN_REDUCE_LOCAL_TILE 2
#ifndef CLSCAN_REDUCE_LAYOUT
#define CLSCAN_REDUCE_LAYOUT CLSCAN_REDUCE_CONTIGUOUS
#endif
#if CLSCAN_REDUCE_LAYOUT == CLSCAN_REDUCE_STRIDED && !defined(CLSCAN_REDUCE_COMMUTATIVE)
#error "CLSCAN_REDUCE_STRIDED reorders elements: it needs a commutative operator"
#endif

// Loads CLSCAN_VEC elements starting at element `first` of `src` into v; those at or past n read as the
// identity.
inline void load_vector(const global elem_t* src, ulong first, ulong n, elem_t* v) {
  if (first + CLSCAN_VEC <= n) {
#if CLSCAN_ALIGNED
    const vec_t x = *(const global vec_t*)(src + first);
#else
    const vec_t x = CLSCAN_VLOAD(0, src + first);
#endif
    CLSCAN_VSTORE(x, 0, v);
  } else {
    for (int c = 0; c < CLSCAN_VEC; ++c)
      v[c] = first + c < n ? src[first + c] : CLSCAN_IDENTITY;
  }
}

// The total of the work-item's share of tiles [first_tile, end_tile) of src[0, n), combined with the
// other work-items' shares in work-item order by the caller (group_exclusive_scan); with
// the local-tile layout, the whole range's total, in every work-item.
#if CLSCAN_REDUCE_LAYOUT == CLSCAN_REDUCE_LOCAL_TILE
inline elem_t reduce_share(const global elem_t* src, ulong n, ulong first_tile, ulong end_tile,
                           local vec_t* tile, local elem_t* scratch) {
  elem_t running = CLSCAN_IDENTITY;
  for (ulong t = first_tile; t < end_tile; ++t) {
    load_local_tile(src, t * CLSCAN_TILE, n, tile);
    elem_t tile_total;
    group_exclusive_scan(reduce_local_run(tile), scratch, &tile_total);
    running = combine(running, tile_total);
  }
  return running;
}
#elif CLSCAN_REDUCE_LAYOUT == CLSCAN_REDUCE_STRIDED
inline elem_t reduce_share(const global elem_t* src, ulong n, ulong first_tile, ulong end_tile) {
  const uint lid = (uint)get_local_id(0);
  elem_t acc[CLSCAN_ITEMS];
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_ITEMS; ++k)
    acc[k] = CLSCAN_IDENTITY;
  // Step t: vector k * CLSCAN_WG + lid of tile t, for each of the work-item's CLSCAN_ITEMS / CLSCAN_VEC
  // vectors.
  for (ulong t = first_tile; t < end_tile; ++t) {
    const ulong tile_first = t * CLSCAN_TILE;
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k) {
      elem_t v[CLSCAN_VEC];
      load_vector(src, tile_first + ((ulong)k * CLSCAN_WG + lid) * CLSCAN_VEC, n, v);
#pragma unroll
      for (int c = 0; c < CLSCAN_VEC; ++c)
        acc[k * CLSCAN_VEC + c] = combine(acc[k * CLSCAN_VEC + c], v[c]);
    }
  }
  elem_t total = acc[0];
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 1; k < CLSCAN_ITEMS; ++k)
    total = combine(total, acc[k]);
  return total;
}
#else
inline elem_t reduce_share(const global elem_t* src, ulong n, ulong first_tile, ulong end_tile) {
  // The work-item's part: a tile's CLSCAN_ITEMS elements for each tile of the range, contiguous, the
  // parts in work-item order.
  const ulong part = (end_tile - first_tile) * CLSCAN_ITEMS;
  const ulong first = first_tile * CLSCAN_TILE + (ulong)get_local_id(0) * part;
  const ulong end = min(first + part, n);
#if defined(CLSCAN_REDUCE_COMMUTATIVE)
  elem_t acc[CLSCAN_ITEMS];
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_ITEMS; ++k)
    acc[k] = CLSCAN_IDENTITY;
#else
  elem_t running = CLSCAN_IDENTITY;
#endif
  ulong i = first;
  // One step per CLSCAN_ITEMS elements: at most range_tiles steps, which the host bounds for
  // llvmpipe's loop limit (docs/RELIABILITY.md, "rusticl").
  for (; i + CLSCAN_ITEMS <= end; i += CLSCAN_ITEMS) {
    elem_t v[CLSCAN_ITEMS];
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k)
      load_vector(src, i + (ulong)k * CLSCAN_VEC, end, v + k * CLSCAN_VEC);
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k) {
#if defined(CLSCAN_REDUCE_COMMUTATIVE)
      acc[k] = combine(acc[k], v[k]);
#else
      running = combine(running, v[k]);
#endif
    }
  }
#if defined(CLSCAN_REDUCE_COMMUTATIVE)
  for (; i < end; ++i)
    acc[0] = combine(acc[0], src[i]);
  elem_t total = acc[0];
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 1; k < CLSCAN_ITEMS; ++k)
    total = combine(total, acc[k]);
  return total;
#else
  for (; i < end; ++i)
    running = combine(running, src[i]);
  return running;
#endif
}
#endif

// Work-group g reduces tiles [g * range_tiles, (g + 1) * range_tiles) of src[src_offset, src_offset + n)
// and writes the total to dst[dst_offset + g]; with apply_initial (the launch of one work-group that
// writes the result), combined on the left with initial_buffer[initial_offset] when initial_buffer is
// not null, else with `initial`. Every element is read before the one write, so dst may be src.
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
reduce_ranges(const global elem_t* src, ulong src_offset, ulong n, ulong range_tiles, global elem_t* dst,
              ulong dst_offset, int apply_initial, elem_t initial, const global elem_t* initial_buffer,
              ulong initial_offset) {
  local elem_t scratch[CLSCAN_SCRATCH_SIZE];
  const ulong group = get_group_id(0);
  const ulong tiles = (n + CLSCAN_TILE - 1) / CLSCAN_TILE;
  const ulong first_tile = min(group * range_tiles, tiles);
  const ulong end_tile = min(first_tile + range_tiles, tiles);
#if CLSCAN_REDUCE_LAYOUT == CLSCAN_REDUCE_LOCAL_TILE
  local vec_t tile[CLSCAN_TILE_VECTORS];
  elem_t total = reduce_share(src + src_offset, n, first_tile, end_tile, tile, scratch);
#else
  elem_t total = reduce_share(src + src_offset, n, first_tile, end_tile);
  elem_t group_total;
  group_exclusive_scan(total, scratch, &group_total);
  total = group_total;
#endif
  if (get_local_id(0) == 0) {
    if (apply_initial) total = combine(initial_buffer ? initial_buffer[initial_offset] : initial, total);
    dst[dst_offset + group] = total;
  }
}
