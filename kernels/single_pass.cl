// Single-pass scan: chained scan with decoupled look-back and decoupled fallback.
//
// Each work-group takes the next tile index from a global ticket counter, scans its tile, and
// publishes its tile total (the "aggregate"). It then walks back over its predecessors: a published
// inclusive prefix ends the walk; an aggregate is combined in and the walk goes on. A predecessor that
// has published nothing after a bounded wait is not waited for any longer: the work-group reduces that
// tile's input itself (decoupled fallback), so no work-group ever depends on another one making
// progress. Finally the work-group publishes its own inclusive prefix and writes its output.
//
// The look-back's status words and steps are kernels/tile_prefix.cl.

// The look-back reads a silent predecessor's input itself: the scan's inputs, and the tile's total.
#define CLSCAN_INPUT_PARAMS const global in_t *src, ulong n
#define CLSCAN_INPUT_ARGS src, n
#include "group_scan.cl"
#include "tile_io.cl"
CLSCAN_LOCAL_FN elem_t tile_aggregate(ulong tile, local elem_t* scratch,
                                      CLSCAN_INPUT_PARAMS CLSCAN_USER_PARAMS);
#include "tile_prefix.cl"

// Reduces tile `tile` of src[0, n) with the whole work-group; every work-item must call.
// Reads each work-item's run straight from global memory: the fallback is rare, and an element array
// here would cost registers on the common path too.
CLSCAN_LOCAL_FN elem_t tile_aggregate(ulong tile, local elem_t* scratch,
                                      CLSCAN_INPUT_PARAMS CLSCAN_USER_PARAMS) {
  const elem_t run_total =
      reduce_run(src, tile * CLSCAN_TILE + get_local_id(0) * CLSCAN_ITEMS, n CLSCAN_USER_ARGS);
  elem_t total;
  group_exclusive_scan(run_total, scratch, &total CLSCAN_USER_ARGS);
  return total;
}

// src/dst point at the user's buffers plus their offsets in elements (src's of in_t, prelude.cl). status
// is the workspace's status array (word 0: ticket counter). Tiles get indices ticket - ticket_base in the
// order work-groups start. tag is this launch's epoch (never 0). seed is combined in front of everything
// (the identity unless the caller gave an initial value); seed_source, when not null, holds it at
// seed_offset instead (a value computed on the device).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
scan_single_pass(const global in_t* src, ulong src_offset, global elem_t* dst, ulong dst_offset, ulong n,
                 global status_t* status, uint ticket_base, uint tag, int exclusive, elem_t seed,
                 const global elem_t* seed_source, ulong seed_offset CLSCAN_USER_PARAMS) {
  local elem_t scratch[CLSCAN_SCRATCH_SIZE];
  local lookback_locals lb;
  local uint shared_tile;
#if !CLSCAN_REREAD
  local vec_t tile_elements[CLSCAN_TILE_VECTORS];
#endif

  const uint lid = (uint)get_local_id(0);
  src += src_offset;
  dst += dst_offset;
  if (seed_source) seed = seed_source[seed_offset];
  const int take_published = CLSCAN_TAKE_PUBLISHED(src, dst);

  const ulong tile = claim_tile(status, ticket_base, &shared_tile);
  const ulong tile_first = tile * CLSCAN_TILE;
  // The last tile has no successor to read what it publishes.
  const int has_successor = tile_first + CLSCAN_TILE < n;
#if CLSCAN_REREAD
  // With one work-item per tile, only a successor needs the tile's total: the last tile (the only one
  // of a small scan) skips that reading pass.
  const elem_t run_total = (CLSCAN_WG == 1 && !has_successor)
                               ? CLSCAN_IDENTITY
                               : reduce_run(src, tile_first + lid * CLSCAN_ITEMS, n CLSCAN_USER_ARGS);
#else
  load_local_tile(src, tile_first, n, tile_elements CLSCAN_USER_ARGS);
  elem_t lane_totals[CLSCAN_RUN_LANES];
  reduce_local_lanes(tile_elements, lane_totals CLSCAN_USER_ARGS);
  const elem_t run_total = combine_lane_totals(lane_totals CLSCAN_USER_ARGS);
#endif
  elem_t tile_total;
  const elem_t item_prefix = group_exclusive_scan(run_total, scratch, &tile_total CLSCAN_USER_ARGS);
  tile_exclusive_prefix(status, tag, tile, tile_total, seed, has_successor, take_published, &lb, scratch,
                        CLSCAN_INPUT_ARGS CLSCAN_USER_ARGS);

#if CLSCAN_REREAD
  scan_run(src, dst, tile_first + lid * CLSCAN_ITEMS, n, combine(lb.prefix, item_prefix CLSCAN_USER_ARGS),
           exclusive CLSCAN_USER_ARGS);
#else
  scan_local_run(tile_elements, lane_totals, combine(lb.prefix, item_prefix CLSCAN_USER_ARGS),
                 exclusive CLSCAN_USER_ARGS);
  store_local_tile(dst, tile_first, n, tile_elements);
#endif
}
