// Definitions shared by clscan's scan kernels: element type, operator, launch shape, and the tile
// building blocks (load, per-item scan, work-group scan, store).
//
// The host prepends a prelude that defines CLSCAN_T and the operator, and passes the launch shape as
// -D options. The defaults below only make this file compile on its own (e.g. under an offline
// compiler); they are not a tuning.

#ifndef CLSCAN_COMMON_CL
#define CLSCAN_COMMON_CL

#ifndef CLSCAN_T
#define CLSCAN_T int
#endif
#ifndef CLSCAN_IDENTITY
#define CLSCAN_IDENTITY ((CLSCAN_T)0)
#endif
// The combining operator. A prelude may define CLSCAN_COMBINE(a, b) itself (custom operators);
// otherwise one of CLSCAN_OP_SUM, _MIN, _MAX, _AND, _OR, _XOR picks a built-in one.
#ifndef CLSCAN_COMBINE
#if defined(CLSCAN_OP_MIN) && defined(CLSCAN_FLOATING)
// fmin and fmax: a NaN never hides a number, which keeps them associative with NaNs in the data (a
// comparison would let a NaN that starts a run stand for the whole run). Their identity is NaN.
#define CLSCAN_COMBINE(a, b) fmin((a), (b))
#elif defined(CLSCAN_OP_MAX) && defined(CLSCAN_FLOATING)
#define CLSCAN_COMBINE(a, b) fmax((a), (b))
#elif defined(CLSCAN_OP_MIN)
#define CLSCAN_COMBINE(a, b) (((b) < (a)) ? (b) : (a))
#elif defined(CLSCAN_OP_MAX)
#define CLSCAN_COMBINE(a, b) (((a) < (b)) ? (b) : (a))
#elif defined(CLSCAN_OP_AND)
#define CLSCAN_COMBINE(a, b) ((a) & (b))
#elif defined(CLSCAN_OP_OR)
#define CLSCAN_COMBINE(a, b) ((a) | (b))
#elif defined(CLSCAN_OP_XOR)
#define CLSCAN_COMBINE(a, b) ((a) ^ (b))
#elif defined(CLSCAN_WRAP_T)
// Signed sums wrap around in two's complement, as documented. Signed overflow is undefined in
// OpenCL C (compilers may assume it never happens), so the host names the unsigned type of the same
// size and the sum is taken in it; the bits are the same.
#define CLSCAN_COMBINE(a, b)                                                                                 \
  CLSCAN_CAT(as_, CLSCAN_T)(CLSCAN_CAT(as_, CLSCAN_WRAP_T)(a) + CLSCAN_CAT(as_, CLSCAN_WRAP_T)(b))
#else
#define CLSCAN_COMBINE(a, b) ((a) + (b))
#endif
#endif

// Work-items per work-group. The host always sets it from the device's limits.
#ifndef CLSCAN_WG
#define CLSCAN_WG 64
#endif
// Consecutive elements each work-item scans; a multiple of CLSCAN_VEC.
#ifndef CLSCAN_ITEMS
#define CLSCAN_ITEMS 4
#endif
// Elements per vector load and store: 1, 2, 4, 8 or 16.
#ifndef CLSCAN_VEC
#define CLSCAN_VEC 4
#endif
// 1 when the input and output offsets are multiples of CLSCAN_VEC, so that whole vectors can be
// loaded through aligned pointers; otherwise vloadn/vstoren, which need only element alignment.
#ifndef CLSCAN_ALIGNED
#define CLSCAN_ALIGNED 0
#endif

#define CLSCAN_TILE (CLSCAN_WG * CLSCAN_ITEMS)

// A work-group barrier. A work-group of one work-item needs none (its own accesses are ordered by
// program order; the fence keeps the memory-ordering half). Besides saving the barrier, this keeps
// loops that contain one free of barriers: Mesa's llvmpipe runs such a loop, in a work-group smaller
// than its SIMD width, until its loop limit runs out, after which every later loop of the kernel
// stops after one iteration (docs/RELIABILITY.md, "rusticl").
#if CLSCAN_WG == 1
#define group_barrier(flags) mem_fence(flags)
#else
#define group_barrier(flags) barrier(flags)
#endif

// Loops over a work-item's elements carry "#pragma unroll" so that the elements stay in registers: an
// element array indexed at run time is placed in (slow) private memory by GPU compilers. Long runs
// (CPUs) are not unrolled: compilers unroll even functions that are never called, and 16384
// iterations took PoCL 36 s to compile.
#ifndef CLSCAN_MAX_UNROLL
#define CLSCAN_MAX_UNROLL 64
#endif

#if CLSCAN_ITEMS % CLSCAN_VEC != 0
#error "CLSCAN_ITEMS must be a multiple of CLSCAN_VEC"
#endif

typedef CLSCAN_T elem_t;

#define CLSCAN_CAT_(a, b) a##b
#define CLSCAN_CAT(a, b) CLSCAN_CAT_(a, b)
#if CLSCAN_VEC > 1
typedef CLSCAN_CAT(CLSCAN_T, CLSCAN_VEC) vec_t;
#define CLSCAN_VLOAD CLSCAN_CAT(vload, CLSCAN_VEC)
#define CLSCAN_VSTORE CLSCAN_CAT(vstore, CLSCAN_VEC)
#else
// One-element "vectors", so that tile code is written once for every vector width.
typedef elem_t vec_t;
#define CLSCAN_VLOAD(i, p) ((p)[i])
#define CLSCAN_VSTORE(x, i, p) ((p)[i] = (x))
#endif

inline elem_t combine(elem_t a, elem_t b) { return CLSCAN_COMBINE(a, b); }

// Loads the CLSCAN_ITEMS elements that start at `first` into v; elements at or past n read as the
// identity, so a partial tile scans like a full one.
inline void load_items(const global elem_t* src, ulong first, ulong n, elem_t* v) {
  if (first + CLSCAN_ITEMS <= n) {
#if CLSCAN_VEC > 1
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k) {
#if CLSCAN_ALIGNED
      vec_t x = ((const global vec_t*)(src + first))[k];
#else
      vec_t x = CLSCAN_VLOAD(k, src + first);
#endif
      CLSCAN_VSTORE(x, k, v);
    }
#else
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k)
      v[k] = src[first + k];
#endif
  } else {
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k)
      v[k] = (first + k < n) ? src[first + k] : CLSCAN_IDENTITY;
  }
}

// Stores v to the CLSCAN_ITEMS elements that start at `first`, none at or past n.
inline void store_items(global elem_t* dst, ulong first, ulong n, const elem_t* v) {
  if (first + CLSCAN_ITEMS <= n) {
#if CLSCAN_VEC > 1
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k) {
      vec_t x = CLSCAN_VLOAD(k, v);
#if CLSCAN_ALIGNED
      ((global vec_t*)(dst + first))[k] = x;
#else
      CLSCAN_VSTORE(x, k, dst + first);
#endif
    }
#else
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k)
      dst[first + k] = v[k];
#endif
  } else {
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k)
      if (first + k < n) dst[first + k] = v[k];
  }
}

// Local tiles (GPUs): the whole tile lives in local memory rather than in each work-item's
// registers, which leaves more work-groups resident per compute unit, and with them more loads in
// flight while some work-groups wait on their predecessors. Work-items move whole vectors between
// global and local memory in an interleaved order (consecutive work-items, consecutive vectors: fully
// coalesced), and each work-item then reduces and scans its own consecutive run in local memory. Runs
// are padded by one vector so that work-items reading their runs side by side hit different banks.
#define CLSCAN_RUN_VECTORS (CLSCAN_ITEMS / CLSCAN_VEC)
#define CLSCAN_TILE_VECTORS (CLSCAN_WG * (CLSCAN_RUN_VECTORS + 1))

inline uint tile_vector_index(uint vector_in_tile) {
  return vector_in_tile + vector_in_tile / CLSCAN_RUN_VECTORS;
}

// Loads the tile that starts at element `tile_first` into local memory; elements at or past n read as
// the identity. Every work-item must call.
inline void load_local_tile(const global elem_t* src, ulong tile_first, ulong n, local vec_t* tile) {
  const uint lid = (uint)get_local_id(0);
  const global elem_t* base = src + tile_first;
  const ulong available = n - tile_first;
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    const uint j = (uint)k * CLSCAN_WG + lid;
    const ulong first = (ulong)j * CLSCAN_VEC;
    vec_t x;
    if (first + CLSCAN_VEC <= available) {
#if CLSCAN_ALIGNED
      x = ((const global vec_t*)base)[j];
#else
      x = CLSCAN_VLOAD(j, base);
#endif
    } else {
      elem_t part[CLSCAN_VEC];
      for (int c = 0; c < CLSCAN_VEC; ++c)
        part[c] = first + c < available ? base[first + c] : CLSCAN_IDENTITY;
      x = CLSCAN_VLOAD(0, part);
    }
    tile[tile_vector_index(j)] = x;
  }
  group_barrier(CLK_LOCAL_MEM_FENCE);
}

// Combines the work-item's run of the local tile in order: the work-item's total.
inline elem_t reduce_local_run(local const vec_t* tile) {
  local const vec_t* run = tile + get_local_id(0) * (CLSCAN_RUN_VECTORS + 1);
  elem_t total = CLSCAN_IDENTITY;
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    elem_t part[CLSCAN_VEC];
    CLSCAN_VSTORE(run[k], 0, part);
#pragma unroll
    for (int c = 0; c < CLSCAN_VEC; ++c)
      total = combine(total, part[c]);
  }
  return total;
}

// Scans the work-item's run of the local tile in place, seeded with `prefix`. Every work-item must
// call (the tile is complete for store_local_tile when this returns).
inline void scan_local_run(local vec_t* tile, elem_t prefix, int exclusive) {
  local vec_t* run = tile + get_local_id(0) * (CLSCAN_RUN_VECTORS + 1);
  elem_t running = prefix;
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    elem_t part[CLSCAN_VEC];
    CLSCAN_VSTORE(run[k], 0, part);
#pragma unroll
    for (int c = 0; c < CLSCAN_VEC; ++c) {
      const elem_t next = combine(running, part[c]);
      part[c] = exclusive ? running : next;
      running = next;
    }
    run[k] = CLSCAN_VLOAD(0, part);
  }
  group_barrier(CLK_LOCAL_MEM_FENCE);
}

// Stores the local tile to the tile that starts at `tile_first`, nothing at or past n.
inline void store_local_tile(global elem_t* dst, ulong tile_first, ulong n, local const vec_t* tile) {
  const uint lid = (uint)get_local_id(0);
  global elem_t* base = dst + tile_first;
  const ulong available = n - tile_first;
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    const uint j = (uint)k * CLSCAN_WG + lid;
    const ulong first = (ulong)j * CLSCAN_VEC;
    const vec_t x = tile[tile_vector_index(j)];
    if (first + CLSCAN_VEC <= available) {
#if CLSCAN_ALIGNED
      ((global vec_t*)base)[j] = x;
#else
      CLSCAN_VSTORE(x, j, base);
#endif
    } else {
      elem_t part[CLSCAN_VEC];
      CLSCAN_VSTORE(x, 0, part);
      for (int c = 0; c < CLSCAN_VEC; ++c)
        if (first + c < available) base[first + c] = part[c];
    }
  }
}

// Run-at-a-time variants for CPUs: a work-item reduces its run straight from global memory, and
// later reads the run again (from cache) to scan it, so no element array is kept per work-item.
//
// CPU runs (CLSCAN_REREAD) are walked in unrolled chunks of CLSCAN_RUN_CHUNK elements, so that a loop
// iterates about CLSCAN_ITEMS / CLSCAN_RUN_CHUNK times. Mesa's llvmpipe (rusticl, Mesa 22.3) ends
// every loop of a kernel once all of them together have iterated 65535 times, without any error: a
// 1 MiB run walked one element per iteration was cut short there (docs/RELIABILITY.md, "rusticl").
// GPU kernels use reduce_run only in the rare look-back fallback, over short runs: one element per
// iteration there keeps the kernel as small as it was (the unrolled chunk cost 2.5% at 2^28 on an
// H100, through the code it added to the look-back loop).
#ifndef CLSCAN_RUN_CHUNK
#if defined(CLSCAN_REREAD) && CLSCAN_REREAD
#define CLSCAN_RUN_CHUNK 16
#else
#define CLSCAN_RUN_CHUNK 1
#endif
#endif

inline elem_t reduce_run(const global elem_t* src, ulong first, ulong n) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  elem_t total = CLSCAN_IDENTITY;
  ulong i = first;
#if CLSCAN_RUN_CHUNK > 1
  for (; i + CLSCAN_RUN_CHUNK <= end; i += CLSCAN_RUN_CHUNK) {
#pragma unroll
    for (int c = 0; c < CLSCAN_RUN_CHUNK; ++c)
      total = combine(total, src[i + c]);
  }
#endif
  for (; i < end; ++i)
    total = combine(total, src[i]);
  return total;
}

inline void scan_run(const global elem_t* src, global elem_t* dst, ulong first, ulong n, elem_t prefix,
                     int exclusive) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  elem_t running = prefix;
  ulong i = first;
  if (exclusive) {
#if CLSCAN_RUN_CHUNK > 1
    for (; i + CLSCAN_RUN_CHUNK <= end; i += CLSCAN_RUN_CHUNK) {
#pragma unroll
      for (int c = 0; c < CLSCAN_RUN_CHUNK; ++c) {
        const elem_t x = src[i + c];
        dst[i + c] = running;
        running = combine(running, x);
      }
    }
#endif
    for (; i < end; ++i) {
      const elem_t x = src[i];
      dst[i] = running;
      running = combine(running, x);
    }
  } else {
#if CLSCAN_RUN_CHUNK > 1
    for (; i + CLSCAN_RUN_CHUNK <= end; i += CLSCAN_RUN_CHUNK) {
#pragma unroll
      for (int c = 0; c < CLSCAN_RUN_CHUNK; ++c) {
        running = combine(running, src[i + c]);
        dst[i + c] = running;
      }
    }
#endif
    for (; i < end; ++i) {
      running = combine(running, src[i]);
      dst[i] = running;
    }
  }
}

// Combines a work-item's elements in order: the work-item's total.
inline elem_t reduce_items(const elem_t* v) {
  elem_t total = v[0];
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 1; k < CLSCAN_ITEMS; ++k)
    total = combine(total, v[k]);
  return total;
}

// Scans v in place, seeded with `prefix` (everything before the work-item's first element).
inline void scan_items(elem_t* v, elem_t prefix, int exclusive) {
  elem_t running = prefix;
  if (exclusive) {
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k) {
      elem_t x = v[k];
      v[k] = running;
      running = combine(running, x);
    }
  } else {
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k) {
      running = combine(running, v[k]);
      v[k] = running;
    }
  }
}

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
// tests/test_faults.cpp's CLSCAN_SPIN_LIMIT=0 case exercises that loop on every run.)
inline elem_t group_exclusive_scan(elem_t value, local elem_t* scratch, elem_t* total) {
#if CLSCAN_WG == 1
  // One work-item per group (CPUs): nothing to combine. The raking loops below, though never
  // iterating more than once here, made PoCL's single-pass kernel 30% slower at 2^24.
  (void)scratch;
  *total = value;
  return CLSCAN_IDENTITY;
#else
  const uint lid = (uint)get_local_id(0);
  local elem_t* segment_totals = scratch + CLSCAN_WG + CLSCAN_WG / CLSCAN_RAKE_SEGMENT;
  scratch[scratch_index(lid)] = value;
  group_barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < CLSCAN_RAKERS) {
    const uint end = min((lid + 1) * CLSCAN_RAKE_SEGMENT, (uint)CLSCAN_WG);
    elem_t running = CLSCAN_IDENTITY;
    for (uint i = lid * CLSCAN_RAKE_SEGMENT; i < end; ++i) {
      const elem_t x = scratch[scratch_index(i)];
      scratch[scratch_index(i)] = running;
      running = combine(running, x);
    }
    segment_totals[lid] = running;
  }
  group_barrier(CLK_LOCAL_MEM_FENCE);
  // Every work-item combines the segment totals itself (a handful of broadcast reads) rather than
  // waiting for one work-item to scan them.
  const uint segment = lid / CLSCAN_RAKE_SEGMENT;
  elem_t before = CLSCAN_IDENTITY;
  for (uint s = 0; s < segment; ++s)
    before = combine(before, segment_totals[s]);
  elem_t all = before;
  for (uint s = segment; s < CLSCAN_RAKERS; ++s)
    all = combine(all, segment_totals[s]);
  const elem_t prefix = combine(before, scratch[scratch_index(lid)]);
  *total = all;
  // scratch may be reused by the caller right after this returns.
  group_barrier(CLK_LOCAL_MEM_FENCE);
  return prefix;
#endif
}

#endif // CLSCAN_COMMON_CL
