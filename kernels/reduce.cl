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

// Loads the CLSCAN_VEC input elements that start at element `first` of `src`, as stored; those at or
// past n read as CLSCAN_INPUT_PAD (the identity where the input has the call's type).
inline in_vec_t load_vector(const global in_t* src, ulong first, ulong n) {
  if (first + CLSCAN_VEC <= n) {
#if CLSCAN_ALIGNED
    return *(const global in_vec_t*)(src + first);
#else
    return CLSCAN_VLOAD(0, src + first);
#endif
  }
  in_t part[CLSCAN_VEC];
  for (int c = 0; c < CLSCAN_VEC; ++c)
    part[c] = first + c < n ? src[first + c] : CLSCAN_INPUT_PAD;
  return CLSCAN_VLOAD(0, part);
}

// load_vector through the transform (CLSCAN_READ_VECTOR): `src` starts at element `base` of the input.
inline vec_t load_read_vector(const global in_t* src, ulong base, ulong first, ulong n CLSCAN_USER_PARAMS) {
  (void)base;
  return CLSCAN_READ_VECTOR(load_vector(src, first, n), base + first, base + n);
}

#if defined(CLSCAN_REDUCE_COMMUTATIVE)
// The lanes of the accumulators, combined in a fixed order.
inline elem_t combine_accumulators(const vec_t* acc CLSCAN_USER_PARAMS) {
  elem_t total = CLSCAN_IDENTITY;
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k) {
    elem_t part[CLSCAN_VEC];
    CLSCAN_VSTORE(acc[k], 0, part);
#pragma unroll
    for (int c = 0; c < CLSCAN_VEC; ++c)
      total = combine(total, part[c] CLSCAN_USER_ARGS);
  }
  return total;
}
#endif

// The total of the work-item's share of tiles [first_tile, end_tile) of src[0, n), combined with the
// other work-items' shares in work-item order by the caller (group_exclusive_scan); with the
// local-tile layout, the whole range's total, in every work-item.
#if CLSCAN_REDUCE_LAYOUT == CLSCAN_REDUCE_LOCAL_TILE
inline elem_t reduce_share(const global in_t* src, ulong n, ulong first_tile, ulong end_tile,
                           local vec_t* tile, local elem_t* scratch CLSCAN_USER_PARAMS) {
  elem_t running = CLSCAN_IDENTITY;
  for (ulong t = first_tile; t < end_tile; ++t) {
    load_local_tile(src, t * CLSCAN_TILE, n, tile CLSCAN_USER_ARGS);
    elem_t tile_total;
    group_exclusive_scan(reduce_local_run(tile CLSCAN_USER_ARGS), scratch, &tile_total CLSCAN_USER_ARGS);
    running = combine(running, tile_total CLSCAN_USER_ARGS);
  }
  return running;
}
#elif CLSCAN_REDUCE_LAYOUT == CLSCAN_REDUCE_STRIDED
inline elem_t reduce_share(const global in_t* src, ulong n, ulong first_tile,
                           ulong end_tile CLSCAN_USER_PARAMS) {
  const uint lid = (uint)get_local_id(0);
  vec_t acc[CLSCAN_ITEMS / CLSCAN_VEC];
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k)
    acc[k] = (vec_t)(CLSCAN_IDENTITY);
  // Step t: vectors k * CLSCAN_WG + lid of tile t, k < CLSCAN_ITEMS / CLSCAN_VEC.
  ulong t = first_tile;
  if (end_tile * CLSCAN_TILE <= n) {
    // Whole tiles (every range but the last): no bound check per vector, and a pointer stepped a tile
    // at a time instead of 64-bit index arithmetic per load, so that a step's loads issue together.
    const global in_t* at = src + t * CLSCAN_TILE + (ulong)lid * CLSCAN_VEC;
    for (; t < end_tile; ++t, at += CLSCAN_TILE) {
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
      for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k) {
#if CLSCAN_ALIGNED
        const in_vec_t stored = *(const global in_vec_t*)(at + k * CLSCAN_WG * CLSCAN_VEC);
#else
        const in_vec_t stored = CLSCAN_VLOAD(0, at + k * CLSCAN_WG * CLSCAN_VEC);
#endif
        const vec_t x =
            CLSCAN_READ_VECTOR(stored, t * CLSCAN_TILE + ((ulong)k * CLSCAN_WG + lid) * CLSCAN_VEC, n);
        acc[k] = combine_lanes(acc[k], x CLSCAN_USER_ARGS);
      }
    }
  }
  for (; t < end_tile; ++t) {
    const global in_t* tile = src + t * CLSCAN_TILE;
    const ulong available = n - t * CLSCAN_TILE;
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k)
      acc[k] = combine_lanes(acc[k], load_read_vector(tile, t * CLSCAN_TILE,
                                                      ((ulong)k * CLSCAN_WG + lid) * CLSCAN_VEC,
                                                      available CLSCAN_USER_ARGS) CLSCAN_USER_ARGS);
  }
  return combine_accumulators(acc CLSCAN_USER_ARGS);
}
#else
inline elem_t reduce_share(const global in_t* src, ulong n, ulong first_tile,
                           ulong end_tile CLSCAN_USER_PARAMS) {
  // The work-item's part: a tile's CLSCAN_ITEMS elements for each tile of the range, contiguous, the
  // parts in work-item order.
  const ulong part = (end_tile - first_tile) * CLSCAN_ITEMS;
  const ulong first = first_tile * CLSCAN_TILE + (ulong)get_local_id(0) * part;
  const ulong end = min(first + part, n);
  ulong i = first;
  // One step per CLSCAN_ITEMS elements: at most range_tiles steps, which the host bounds for
  // llvmpipe's loop limit (docs/RELIABILITY.md, "rusticl").
#if defined(CLSCAN_REDUCE_COMMUTATIVE)
  // The strided layout's accumulators, started the same way: each layout's loop is its own.
  vec_t acc[CLSCAN_ITEMS / CLSCAN_VEC];
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k)
    acc[k] = (vec_t)(CLSCAN_IDENTITY);
  for (; i + CLSCAN_ITEMS <= end; i += CLSCAN_ITEMS) {
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k)
      acc[k] = combine_lanes(acc[k], load_read_vector(src, 0, i + (ulong)k * CLSCAN_VEC, end CLSCAN_USER_ARGS)
                                         CLSCAN_USER_ARGS);
  }
  elem_t total = combine_accumulators(acc CLSCAN_USER_ARGS);
#else
  elem_t total = CLSCAN_IDENTITY;
  for (; i + CLSCAN_ITEMS <= end; i += CLSCAN_ITEMS) {
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k) {
      elem_t v[CLSCAN_VEC];
      CLSCAN_VSTORE(load_read_vector(src, 0, i + (ulong)k * CLSCAN_VEC, end CLSCAN_USER_ARGS), 0, v);
#pragma unroll
      for (int c = 0; c < CLSCAN_VEC; ++c)
        total = combine(total, v[c] CLSCAN_USER_ARGS);
    }
  }
#endif
  for (; i < end; ++i)
    total = combine(total, CLSCAN_READ(src[i], i) CLSCAN_USER_ARGS);
  return total;
}
#endif

// Work-group g reduces tiles [g * range_tiles, (g + 1) * range_tiles) of src[src_offset, src_offset + n)
// (the call's input, read through the transform, or partial totals, prelude.cl) and writes the total to
// dst[dst_offset + g]; with apply_initial (the launch of one work-group that writes the result),
// combined on the left with initial_buffer[initial_offset] when initial_buffer is not null, else with
// `initial`. Every element is read before the one write, so dst may be src (whatever src's type).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
reduce_ranges(const global in_t* src, ulong src_offset, ulong n, ulong range_tiles, global elem_t* dst,
              ulong dst_offset, int apply_initial, elem_t initial, const global elem_t* initial_buffer,
              ulong initial_offset CLSCAN_USER_PARAMS) {
  local elem_t scratch[CLSCAN_SCRATCH_SIZE];
  const ulong group = get_group_id(0);
  const ulong tiles = (n + CLSCAN_TILE - 1) / CLSCAN_TILE;
  const ulong first_tile = min(group * range_tiles, tiles);
  const ulong end_tile = min(first_tile + range_tiles, tiles);
#if CLSCAN_REDUCE_LAYOUT == CLSCAN_REDUCE_LOCAL_TILE
  local vec_t tile[CLSCAN_TILE_VECTORS];
  elem_t total = reduce_share(src + src_offset, n, first_tile, end_tile, tile, scratch CLSCAN_USER_ARGS);
#else
  elem_t total = reduce_share(src + src_offset, n, first_tile, end_tile CLSCAN_USER_ARGS);
  elem_t group_total;
  group_exclusive_scan(total, scratch, &group_total CLSCAN_USER_ARGS);
  total = group_total;
#endif
  if (get_local_id(0) == 0) {
    if (apply_initial)
      total = combine(initial_buffer ? initial_buffer[initial_offset] : initial, total CLSCAN_USER_ARGS);
    dst[dst_offset + group] = total;
  }
}
