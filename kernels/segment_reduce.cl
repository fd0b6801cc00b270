// The segmented reduction over offsets (clscan::reduce_segmented, include/clscan/segmented.hpp): out[s]
// = the reduction of in[b, e), b = offsets[s], e = min(n, offsets[s + 1]), for any offsets. Two kernels,
// neither writing anything of n elements:
//   segment_chunks  one work-item per whole chunk of CLSCAN_SEGMENT_CHUNK elements (the grid comes from
//                   n alone): where a segment covers the chunk whole, its total, for the segments'
//                   kernel to take instead of reading the chunk; and whether it did (covered[c]).
//   segment_level   (one launch per level above the chunks) one work-item per entry of the level: the
//                   total of CLSCAN_SEGMENT_GROUP whole entries of the level below, where all of them
//                   have one.
//   segment_totals  one work-item per segment: the segment's head (up to its first chunk boundary), the
//                   totals of the whole chunks inside it, through the highest levels whose entries lie
//                   inside it whole, its tail, in element order.
// So each element is read once where the offsets are non-decreasing (CSR), whatever the segments'
// lengths: a short segment is read by its own work-item, a long one mostly through the chunk totals,
// computed in parallel. A huge segment costs its work-item fewer than 2 * CLSCAN_SEGMENT_GROUP
// combinations per level and the entries of the highest level inside it.
//
// Where the offsets are not sorted, the binary search of segment_chunks may miss a segment covering a
// chunk; it never claims one that does not (its answer is checked against the segment found). The
// segments' kernel then reads the chunk itself: every result stays the reduction of its range, only
// slower. A chunk covered by several overlapping segments is reduced once, and each takes its total.
//
// The order of combination is fixed by n, the offsets and CLSCAN_SEGMENT_CHUNK (and for the commutative
// built-in operators CLSCAN_VEC): the same call gives the same bits every run.

#include "prelude.cl"

#ifndef CLSCAN_OFFSET_T
#define CLSCAN_OFFSET_T uint
#endif
typedef CLSCAN_OFFSET_T offset_t;

// Elements per chunk. The host sizes the chunk totals from it, so it sets it (lib/algorithms/segments.cpp
// segment_chunk: 4096 on GPUs, 1024 on other devices; the default only makes this file compile on its
// own).
#ifndef CLSCAN_SEGMENT_CHUNK
#define CLSCAN_SEGMENT_CHUNK 4096
#endif
// The levels of totals above the chunks: level k + 1 has an entry per CLSCAN_SEGMENT_GROUP whole
// entries of level k (level 0: the n / CLSCAN_SEGMENT_CHUNK whole chunks), up to CLSCAN_SEGMENT_LEVELS
// levels above the chunks while a level has an entry. totals and covered hold the levels one after the
// other (the host sizes them: lib/algorithms/segments.cpp).
#ifndef CLSCAN_SEGMENT_GROUP
#define CLSCAN_SEGMENT_GROUP 64
#endif
#ifndef CLSCAN_SEGMENT_LEVELS
#define CLSCAN_SEGMENT_LEVELS 3
#endif
#if CLSCAN_SEGMENT_LEVELS < 1
#error "CLSCAN_SEGMENT_LEVELS must be at least 1 (combine_chunks keeps an array per level)"
#endif
// 1: every whole chunk gets its total, covered by a segment or not, so that no work-item of
// segment_totals ever reads a whole chunk or level entry itself: on devices whose loops share one
// budget of iterations (the host sets it for llvmpipe), where a long walk would stop short. It costs a
// read of the chunks no segment covers whole.
#ifndef CLSCAN_SEGMENT_EVERY_CHUNK
#define CLSCAN_SEGMENT_EVERY_CHUNK 0
#endif
// A commutative operator (CLSCAN_REDUCE_COMMUTATIVE, the built-in ones) is applied lane by lane to
// vectors of CLSCAN_VEC elements (the host sets CLSCAN_VEC): a run of dependent combinations is
// latency-bound, a vector of them is not, and whole vectors are what CPUs' SIMD units load (prelude.cl's
// combine_lanes).

// The reduction of src[first, end), first < end: in element order, or for a commutative operator lane
// by lane over whole vectors, the lanes combined in order, then the elements left over.
inline elem_t reduce_run(const global elem_t* src, ulong first, ulong end CLSCAN_USER_PARAMS) {
#if defined(CLSCAN_REDUCE_COMMUTATIVE) && CLSCAN_VEC > 1
  if (end - first >= 2 * CLSCAN_VEC) {
    vec_t acc = CLSCAN_VLOAD(0, src + first);
    ulong i = first + CLSCAN_VEC;
    for (; i + CLSCAN_VEC <= end; i += CLSCAN_VEC)
      acc = combine_lanes(acc, CLSCAN_VLOAD(0, src + i) CLSCAN_USER_ARGS);
    elem_t lanes[CLSCAN_VEC];
    CLSCAN_VSTORE(acc, 0, lanes);
    elem_t total = lanes[0];
#pragma unroll
    for (int k = 1; k < CLSCAN_VEC; ++k)
      total = combine(total, lanes[k] CLSCAN_USER_ARGS);
    for (; i < end; ++i)
      total = combine(total, src[i] CLSCAN_USER_ARGS);
    return total;
  }
#endif
  elem_t total = src[first];
  for (ulong i = first + 1; i < end; ++i)
    total = combine(total, src[i] CLSCAN_USER_ARGS);
  return total;
}

// Whether some segment covers chunk c (elements [c, c + 1) * CLSCAN_SEGMENT_CHUNK) whole: the last
// segment whose begin is at or before the chunk's first element, as a binary search over non-decreasing
// offsets finds it, checked to begin there and to end at or past the chunk's end.
inline bool chunk_covered(const global offset_t* offsets, ulong segments, ulong n, ulong c) {
  const ulong first = c * CLSCAN_SEGMENT_CHUNK;
  ulong lo = 0, hi = segments; // the first s with offsets[s] > first, were they sorted
  while (lo < hi) {
    const ulong mid = lo + (hi - lo) / 2;
    if ((ulong)offsets[mid] <= first)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return false;
  const ulong s = lo - 1;
  return (ulong)offsets[s] <= first && min((ulong)offsets[s + 1], n) >= first + CLSCAN_SEGMENT_CHUNK;
}

// in from in_offset, offsets from offsets_offset (segments + 1 entries); totals and covered: n /
// CLSCAN_SEGMENT_CHUNK entries each (the whole chunks; a last partial chunk is always read by the
// segments).
kernel void segment_chunks(const global elem_t* in, ulong in_offset, ulong n, const global offset_t* offsets,
                           ulong offsets_offset, ulong segments, global elem_t* totals,
                           global uint* covered CLSCAN_USER_PARAMS) {
  in += in_offset;
  offsets += offsets_offset;
  const ulong chunks = n / CLSCAN_SEGMENT_CHUNK;
  for (ulong c = get_global_id(0); c < chunks; c += get_global_size(0)) {
    const bool whole = CLSCAN_SEGMENT_EVERY_CHUNK || chunk_covered(offsets, segments, n, c);
    covered[c] = whole ? 1u : 0u;
    if (whole) {
      const ulong first = c * CLSCAN_SEGMENT_CHUNK;
      totals[c] = reduce_run(in, first, first + CLSCAN_SEGMENT_CHUNK CLSCAN_USER_ARGS);
    }
  }
}

// Entries of level `level` (0: the whole chunks) and where that level starts in totals and covered.
inline ulong level_entries(ulong n, int level, ulong* base) {
  ulong entries = n / CLSCAN_SEGMENT_CHUNK;
  *base = 0;
  for (int k = 0; k < level; ++k) {
    *base += entries;
    entries /= CLSCAN_SEGMENT_GROUP;
  }
  return entries;
}

// Level `level` (1 to CLSCAN_SEGMENT_LEVELS) from the level below: an entry's total where each of its
// CLSCAN_SEGMENT_GROUP entries below has one, and whether they all did.
kernel void segment_level(global elem_t* totals, global uint* covered, ulong n,
                          int level CLSCAN_USER_PARAMS) {
  ulong below_base, base;
  level_entries(n, level - 1, &below_base);
  const ulong entries = level_entries(n, level, &base);
  for (ulong j = get_global_id(0); j < entries; j += get_global_size(0)) {
    const ulong first = below_base + j * CLSCAN_SEGMENT_GROUP;
    uint whole = covered[first];
    elem_t total = totals[first];
    for (uint c = 1; c < CLSCAN_SEGMENT_GROUP && whole; ++c) {
      whole = covered[first + c];
      if (whole) total = combine(total, totals[first + c] CLSCAN_USER_ARGS);
    }
    covered[base + j] = whole;
    if (whole) totals[base + j] = total;
  }
}

// Entry j of the level at `base` whose entries span `span` elements: its total, or where it has none
// (a chunk no segment was found to cover whole, which only unsorted offsets cause) its elements read.
inline elem_t level_entry(const global elem_t* in, const global elem_t* totals, const global uint* covered,
                          ulong base, ulong span, ulong j CLSCAN_USER_PARAMS) {
  return covered[base + j] ? totals[base + j] : reduce_run(in, j * span, (j + 1) * span CLSCAN_USER_ARGS);
}

// `total` (if `have`) combined with the whole chunks [lo, hi), lo < hi, in order: the chunks up to the
// first whole entry of the level above, that level's entries likewise, and so on up, then the
// remainders of each level on the way down.
inline elem_t combine_chunks(const global elem_t* in, ulong n, const global elem_t* totals,
                             const global uint* covered, ulong lo, ulong hi, elem_t total,
                             int have CLSCAN_USER_PARAMS) {
  ulong bases[CLSCAN_SEGMENT_LEVELS + 1], rest_first[CLSCAN_SEGMENT_LEVELS], rest_end[CLSCAN_SEGMENT_LEVELS];
  ulong entries = n / CLSCAN_SEGMENT_CHUNK, span = CLSCAN_SEGMENT_CHUNK;
  int level = 0;
  bases[0] = 0;
  for (; level < CLSCAN_SEGMENT_LEVELS; ++level) {
    const ulong up_lo = (lo + CLSCAN_SEGMENT_GROUP - 1) / CLSCAN_SEGMENT_GROUP,
                up_hi = hi / CLSCAN_SEGMENT_GROUP;
    if (up_lo >= up_hi) break; // no whole entry of the level above inside [lo, hi)
    for (ulong j = lo; j < up_lo * CLSCAN_SEGMENT_GROUP; ++j) {
      const elem_t x = level_entry(in, totals, covered, bases[level], span, j CLSCAN_USER_ARGS);
      total = have ? combine(total, x CLSCAN_USER_ARGS) : x;
      have = 1;
    }
    rest_first[level] = up_hi * CLSCAN_SEGMENT_GROUP;
    rest_end[level] = hi;
    bases[level + 1] = bases[level] + entries;
    entries /= CLSCAN_SEGMENT_GROUP;
    span *= CLSCAN_SEGMENT_GROUP;
    lo = up_lo;
    hi = up_hi;
  }
  for (ulong j = lo; j < hi; ++j) {
    const elem_t x = level_entry(in, totals, covered, bases[level], span, j CLSCAN_USER_ARGS);
    total = have ? combine(total, x CLSCAN_USER_ARGS) : x;
    have = 1;
  }
  while (level > 0) {
    --level;
    span /= CLSCAN_SEGMENT_GROUP;
    for (ulong j = rest_first[level]; j < rest_end[level]; ++j)
      total = combine(total, level_entry(in, totals, covered, bases[level], span, j CLSCAN_USER_ARGS)
                                 CLSCAN_USER_ARGS);
  }
  return total;
}

// out[out_offset + s] for s < segments: the identity (or `initial`, has_initial) for an empty range,
// otherwise (initial op) the range's reduction.
kernel void segment_totals(const global elem_t* in, ulong in_offset, ulong n, const global offset_t* offsets,
                           ulong offsets_offset, ulong segments, const global elem_t* totals,
                           const global uint* covered, global elem_t* out, ulong out_offset, int has_initial,
                           elem_t initial CLSCAN_USER_PARAMS) {
  in += in_offset;
  offsets += offsets_offset;
  out += out_offset;
  for (ulong s = get_global_id(0); s < segments; s += get_global_size(0)) {
    const ulong b = offsets[s];
    const ulong e = min((ulong)offsets[s + 1], n);
    if (b >= e) {
      out[s] = has_initial ? initial : CLSCAN_IDENTITY;
      continue;
    }
    // The whole chunks inside [b, e): [first_chunk, end_chunk).
    const ulong first_chunk = (b + CLSCAN_SEGMENT_CHUNK - 1) / CLSCAN_SEGMENT_CHUNK;
    const ulong end_chunk = e / CLSCAN_SEGMENT_CHUNK;
    elem_t total;
    if (first_chunk >= end_chunk) {
      total = reduce_run(in, b, e CLSCAN_USER_ARGS);
    } else {
      const ulong head_end = first_chunk * CLSCAN_SEGMENT_CHUNK;
      const int has_head = b < head_end;
      total = has_head ? reduce_run(in, b, head_end CLSCAN_USER_ARGS) : CLSCAN_IDENTITY;
      total =
          combine_chunks(in, n, totals, covered, first_chunk, end_chunk, total, has_head CLSCAN_USER_ARGS);
      const ulong tail = end_chunk * CLSCAN_SEGMENT_CHUNK;
      if (tail < e) total = combine(total, reduce_run(in, tail, e CLSCAN_USER_ARGS) CLSCAN_USER_ARGS);
    }
    out[s] = has_initial ? combine(initial, total CLSCAN_USER_ARGS) : total;
  }
}
