// Single-pass scan: chained scan with decoupled look-back and decoupled fallback.
//
// Each work-group takes the next tile index from a global ticket counter (OpenCL does not launch
// work-groups in order, so get_group_id() says nothing about who runs first), scans its tile, and
// publishes its tile total (the "aggregate"). It then walks back over its predecessors: a published
// inclusive prefix ends the walk; an aggregate is combined in and the walk goes on. A predecessor that
// has published nothing after a bounded wait is not waited for any longer: the work-group reduces that
// tile's input itself (decoupled fallback), so no work-group ever depends on another one making
// progress. Finally the work-group publishes its own inclusive prefix and writes its output.
//
// The look-back's status words and steps are kernels/tile_prefix.cl.

#include "tile_prefix.cl"

// Sets every status word to 0 (untagged), the ticket counter included. A kernel rather than
// clEnqueueFillBuffer so that memory checkers such as Oclgrind see the words as initialized.
kernel void clear_status(global status_t* status, ulong words) {
  for (ulong i = get_global_id(0); i < words; i += get_global_size(0))
    status[i] = 0;
}

// src/dst point at the user's buffers plus their offsets in elements. status is the workspace's status
// array (word 0: ticket counter). Tiles get indices ticket - ticket_base in the order work-groups
// start. tag is this launch's epoch (never 0). seed is combined in front of everything (the identity
// unless the caller gave an initial value).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
scan_single_pass(const global elem_t* src, ulong src_offset, global elem_t* dst, ulong dst_offset, ulong n,
                 global status_t* status, uint ticket_base, uint tag, int exclusive, elem_t seed) {
  local elem_t scratch[CLSCAN_SCRATCH_SIZE];
  local int peek_kind[CLSCAN_LOOKBACK];
  local elem_t peek_value[CLSCAN_LOOKBACK];
  local uint shared_tile;
  local int shared_state;
  local long shared_next;
  local elem_t shared_prefix;
#if !CLSCAN_REREAD
  local vec_t tile_elements[CLSCAN_TILE_VECTORS];
#endif

  const uint lid = (uint)get_local_id(0);
  src += src_offset;
  dst += dst_offset;
#if CLSCAN_SPIN_LIMIT == 0
  // In place, a predecessor's input may already hold its output once its prefix is published, so a
  // published prefix must win over the reduction (see the fallback below).
  const int take_published = src == dst;
#else
  const int take_published = 1;
#endif

  if (lid == 0) shared_tile = atomic_inc((volatile global uint*)status) - ticket_base;
  group_barrier(CLK_LOCAL_MEM_FENCE);
  const ulong tile = shared_tile;

  const ulong tile_first = tile * CLSCAN_TILE;
  // The last tile has no successor to read what it publishes.
  const int has_successor = tile_first + CLSCAN_TILE < n;
#ifdef CLSCAN_TEST_SILENT_TILE
  // Tests only: this tile never publishes, as if its work-group were never scheduled, so that its
  // successor's bounded wait runs out and it reduces the tile itself (tests/reliability/faults_lookback.cpp;
  // out of place only, since in place the silent tile's output overwrites the input the successor reads).
  const int publishes = has_successor && tile != CLSCAN_TEST_SILENT_TILE;
#else
  const int publishes = has_successor;
#endif
#if CLSCAN_REREAD
  // With one work-item per tile, only a successor needs the tile's total: the last tile (the only one
  // of a small scan) skips that reading pass.
  const elem_t run_total = (CLSCAN_WG == 1 && !has_successor)
                               ? CLSCAN_IDENTITY
                               : reduce_run(src, tile_first + lid * CLSCAN_ITEMS, n);
#else
  load_local_tile(src, tile_first, n, tile_elements);
  const elem_t run_total = reduce_local_run(tile_elements);
#endif
  elem_t tile_total;
  const elem_t item_prefix = group_exclusive_scan(run_total, scratch, &tile_total);

  // The tile's prefix reaches every work-item through shared_prefix, after the last barrier: kept in a
  // private variable instead, the compiled kernel crashed on PoCL 3.1 in the fallback path
  // (CLSCAN_SPIN_LIMIT=0, tests/reliability/faults_lookback.cpp).
  if (tile == 0) {
    if (lid == 0) {
      if (publishes) publish(prefix_slot(status, 0), tag, combine(seed, tile_total));
      shared_prefix = seed;
    }
  } else {
    if (lid == 0 && publishes) publish(aggregate_slot(status, tile), tag, tile_total);
    // The tile prefix: walk back over the predecessors. `behind` combines the tiles [next + 1, tile) in
    // order; every work-item keeps the same copy, updated from local memory.
    elem_t behind = CLSCAN_IDENTITY;
    long next = (long)tile - 1; // nearest predecessor not yet combined
    int rounds_without_news = 0;
    for (;;) {
      peek_predecessors(status, tag, next, peek_kind, peek_value);
      group_barrier(CLK_LOCAL_MEM_FENCE);
      if (lid == 0) {
        long nearest;
        elem_t combined;
        shared_state =
            take_news(next, behind, &rounds_without_news, peek_kind, peek_value, &nearest, &combined);
        shared_next = nearest;
        shared_prefix = combined;
      }
      group_barrier(CLK_LOCAL_MEM_FENCE);
      const int state = shared_state;
      next = shared_next;
      behind = shared_prefix;
      if (state == CLSCAN_LOOK_DONE) break;
      if (state == CLSCAN_FALL_BACK) {
        // Nobody has published tile `next` for a long time: reduce it here.
        const elem_t reduced = reduce_tile(src, n, (ulong)next, scratch);
        if (lid == 0) {
          elem_t combined;
          shared_state = take_fallback(status, tag, next, behind, reduced, seed, take_published, &combined);
          shared_prefix = combined;
          rounds_without_news = 0;
        }
        group_barrier(CLK_LOCAL_MEM_FENCE);
        behind = shared_prefix;
        next -= 1;
        if (shared_state == CLSCAN_LOOK_DONE) break;
        group_barrier(CLK_LOCAL_MEM_FENCE); // shared_state is rewritten by the next round
      }
    }
#ifdef CLSCAN_TEST_WRONG_LOOKBACK
    // Tests only: every tile but the first forgets its predecessors, as on a device whose look-back
    // read stale words, so that the qualification has a wrong kernel to catch on every device
    // (tests/cmake/qualify_check.cmake).
    if (lid == 0) shared_prefix = seed;
#endif
    // behind now holds everything before this tile, seed included.
    if (lid == 0 && publishes) {
      publish(prefix_slot(status, tile), tag, combine(behind, tile_total));
      mem_fence(CLK_GLOBAL_MEM_FENCE);
    }
  }
  group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

#if CLSCAN_REREAD
  scan_run(src, dst, tile_first + lid * CLSCAN_ITEMS, n, combine(shared_prefix, item_prefix), exclusive);
#else
  scan_local_run(tile_elements, combine(shared_prefix, item_prefix), exclusive);
  store_local_tile(dst, tile_first, n, tile_elements);
#endif
}
