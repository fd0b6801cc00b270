// The middle pass of the algorithms that run on tile totals known beforehand (partition_if, and the
// select and by-key calls where the look-back is not used): one work-group turns the tiles' aggregates
// into their exclusive prefixes, in place, and writes the total after them. The including file
// defines carry_t and carry_combine (group_scan.cl).
#ifndef CLSCAN_TILE_AGGREGATES_CL
#define CLSCAN_TILE_AGGREGATES_CL

#include "group_scan.cl"
#include "tile_io.cl"

// aggregates[0, tiles) in, their exclusive scan out, and the total at aggregates[tiles]. Each
// work-item combines a contiguous chunk, so the result does not depend on timing.
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
scan_tile_aggregates(global carry_t* aggregates, ulong tiles CLSCAN_USER_PARAMS) {
  local carry_t scratch[CLSCAN_SCRATCH_SIZE];
  const ulong chunk = (tiles + CLSCAN_WG - 1) / CLSCAN_WG;
  const ulong first = min((ulong)get_local_id(0) * chunk, tiles);
  const ulong end = min(first + chunk, tiles);
  // Walked in unrolled chunks on CPUs (CLSCAN_FOR_RUN): llvmpipe ends every loop of a kernel once
  // they have iterated 65535 times together, which two passes over 32768 tiles reached.
  carry_t sum = CLSCAN_CARRY_IDENTITY;
  CLSCAN_FOR_RUN(t, first, end, { sum = carry_combine(sum, aggregates[t] CLSCAN_USER_ARGS); })
  carry_t total;
  carry_t running = group_exclusive_scan(sum, scratch, &total CLSCAN_USER_ARGS);
  CLSCAN_FOR_RUN(t, first, end, {
    const carry_t a = aggregates[t];
    aggregates[t] = running;
    running = carry_combine(running, a CLSCAN_USER_ARGS);
  })
  if (get_local_id(0) == 0) aggregates[tiles] = total;
}

#endif // CLSCAN_TILE_AGGREGATES_CL
