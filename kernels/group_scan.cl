// The work-group scan: one carry per work-item, combined across the work-group in local memory.
#ifndef CLSCAN_GROUP_SCAN_CL
#define CLSCAN_GROUP_SCAN_CL

#include "prelude.cl"

// The value the work-group scan and the look-back (tile_prefix.cl) combine: for scans, the element.
// An algorithm that combines something else (a count of selected elements, a segment-aware pair)
// defines CLSCAN_CARRY_DEFINED before including this file, with carry_t, CLSCAN_CARRY_IDENTITY,
// carry_combine(), CLSCAN_CARRY_SIZE (bytes of its value), CLSCAN_CARRY_TO_BITS / _FROM_BITS
// (between the value and an unsigned integer of that size) unless the value is one element, whose
// conversions this file defines, and CLSCAN_CARRY_FLAGGED 1 for a
// struct {value; uint flag} whose flag the look-back moves in a status word of its own.
#ifndef CLSCAN_CARRY_DEFINED
typedef elem_t carry_t;
#define CLSCAN_CARRY_IDENTITY CLSCAN_IDENTITY
#define CLSCAN_CARRY_SIZE CLSCAN_ELEM_SIZE
inline carry_t carry_combine(carry_t a, carry_t b CLSCAN_USER_PARAMS) {
  return combine(a, b CLSCAN_USER_ARGS);
}
#endif
#ifndef CLSCAN_CARRY_TO_BITS
#if CLSCAN_ELEM_SIZE == 8
#define CLSCAN_CARRY_TO_BITS(x) as_ulong(x)
#else
#define CLSCAN_CARRY_TO_BITS(x) as_uint(x)
#endif
#define CLSCAN_CARRY_FROM_BITS(x) CLSCAN_CAT(as_, CLSCAN_T)(x)
#endif
#ifndef CLSCAN_CARRY_FLAGGED
#define CLSCAN_CARRY_FLAGGED 0
#endif

// Work-items per segment of the work-group scan below.
#ifndef CLSCAN_RAKE_SEGMENT
#define CLSCAN_RAKE_SEGMENT 16
#endif
#define CLSCAN_RAKERS ((CLSCAN_WG + CLSCAN_RAKE_SEGMENT - 1) / CLSCAN_RAKE_SEGMENT)
// Elements of local scratch that group_exclusive_scan needs: one per work-item, one of padding per
// segment, and one per segment for the segment totals.
#define CLSCAN_SCRATCH_SIZE (CLSCAN_WG + CLSCAN_WG / CLSCAN_RAKE_SEGMENT + CLSCAN_RAKERS)

// Segments are padded by one element so that rakers walking their segments side by side hit
// different local banks.
inline uint scratch_index(uint lid) { return lid + lid / CLSCAN_RAKE_SEGMENT; }

// Exclusive scan of one value per work-item across the work-group, in local memory, by raking: one
// work-item per segment of CLSCAN_RAKE_SEGMENT values scans its segment, then every work-item
// combines the totals of the segments before its own. Three barriers whatever the work-group size
// (a tree scan needs two per doubling), no particular work-group size, no sub-groups. Returns the
// work-item's exclusive prefix and writes the group's total to *total. Every work-item must call.
//
// (A form in which one work-item scanned the segment totals in place, behind one more barrier, gave
// wrong totals on PoCL 3.1 when called inside the single-pass look-back loop; Oclgrind ran it right.
// tests/reliability/faults_lookback.cpp's CLSCAN_SPIN_LIMIT=0 case exercises that loop on every run.)
CLSCAN_LOCAL_FN carry_t group_exclusive_scan(carry_t value, local carry_t* scratch,
                                             carry_t* total CLSCAN_USER_PARAMS) {
#if CLSCAN_WG == 1
  // One work-item per group (CPUs): nothing to combine. The raking loops below, though never
  // iterating more than once here, made PoCL's single-pass kernel 30% slower at 2^24.
  (void)scratch;
  *total = value;
  return CLSCAN_CARRY_IDENTITY;
#else
  const uint lid = (uint)get_local_id(0);
  local carry_t* segment_totals = scratch + CLSCAN_WG + CLSCAN_WG / CLSCAN_RAKE_SEGMENT;
  scratch[scratch_index(lid)] = value;
  group_barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < CLSCAN_RAKERS) {
    const uint end = min((lid + 1) * CLSCAN_RAKE_SEGMENT, (uint)CLSCAN_WG);
    carry_t running = CLSCAN_CARRY_IDENTITY;
    for (uint i = lid * CLSCAN_RAKE_SEGMENT; i < end; ++i) {
      const carry_t x = scratch[scratch_index(i)];
      scratch[scratch_index(i)] = running;
      running = carry_combine(running, x CLSCAN_USER_ARGS);
    }
    segment_totals[lid] = running;
  }
  group_barrier(CLK_LOCAL_MEM_FENCE);
  // Every work-item combines the segment totals itself (a handful of broadcast reads) rather than
  // waiting for one work-item to scan them.
  const uint segment = lid / CLSCAN_RAKE_SEGMENT;
  carry_t before = CLSCAN_CARRY_IDENTITY;
  for (uint s = 0; s < segment; ++s)
    before = carry_combine(before, segment_totals[s] CLSCAN_USER_ARGS);
  carry_t all = before;
  for (uint s = segment; s < CLSCAN_RAKERS; ++s)
    all = carry_combine(all, segment_totals[s] CLSCAN_USER_ARGS);
  const carry_t prefix = carry_combine(before, scratch[scratch_index(lid)] CLSCAN_USER_ARGS);
  *total = all;
  // scratch may be reused by the caller right after this returns.
  group_barrier(CLK_LOCAL_MEM_FENCE);
  return prefix;
#endif
}

#endif // CLSCAN_GROUP_SCAN_CL
