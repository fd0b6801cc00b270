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
#if defined(CLSCAN_OP_MIN)
#define CLSCAN_COMBINE(a, b) (((b) < (a)) ? (b) : (a))
#elif defined(CLSCAN_OP_MAX)
#define CLSCAN_COMBINE(a, b) (((a) < (b)) ? (b) : (a))
#elif defined(CLSCAN_OP_AND)
#define CLSCAN_COMBINE(a, b) ((a) & (b))
#elif defined(CLSCAN_OP_OR)
#define CLSCAN_COMBINE(a, b) ((a) | (b))
#elif defined(CLSCAN_OP_XOR)
#define CLSCAN_COMBINE(a, b) ((a) ^ (b))
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

#if CLSCAN_VEC > 1
// Staged tile transfer: work-items move whole vectors between global memory and a local staging area
// in an interleaved order (consecutive work-items, consecutive vectors: fully coalesced), and each
// work-item then takes its own consecutive run of elements from the staging area. Runs are padded
// by one vector so that work-items reading their runs side by side hit different local banks.
#define CLSCAN_RUN_VECTORS (CLSCAN_ITEMS / CLSCAN_VEC)
#define CLSCAN_STAGE_VECTORS (CLSCAN_WG * (CLSCAN_RUN_VECTORS + 1))

inline uint staged_index(uint vector_in_tile) { return vector_in_tile + vector_in_tile / CLSCAN_RUN_VECTORS; }

// Loads the full tile that starts at element `tile_first`; every work-item must call.
inline void load_tile_staged(const global elem_t* src, ulong tile_first, elem_t* v, local vec_t* stage) {
  const uint lid = (uint)get_local_id(0);
  const global elem_t* base = src + tile_first;
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    const uint j = (uint)k * CLSCAN_WG + lid;
#if CLSCAN_ALIGNED
    stage[staged_index(j)] = ((const global vec_t*)base)[j];
#else
    stage[staged_index(j)] = CLSCAN_VLOAD(j, base);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k)
    CLSCAN_VSTORE(stage[staged_index(lid * CLSCAN_RUN_VECTORS + k)], k, v);
}

// Stores v of every work-item to the full tile that starts at `tile_first`; every work-item must
// call, after its last use of `stage` from load_tile_staged.
inline void store_tile_staged(global elem_t* dst, ulong tile_first, const elem_t* v, local vec_t* stage) {
  const uint lid = (uint)get_local_id(0);
  global elem_t* base = dst + tile_first;
  barrier(CLK_LOCAL_MEM_FENCE);
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k)
    stage[staged_index(lid * CLSCAN_RUN_VECTORS + k)] = CLSCAN_VLOAD(k, v);
  barrier(CLK_LOCAL_MEM_FENCE);
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    const uint j = (uint)k * CLSCAN_WG + lid;
#if CLSCAN_ALIGNED
    ((global vec_t*)base)[j] = stage[staged_index(j)];
#else
    CLSCAN_VSTORE(stage[staged_index(j)], j, base);
#endif
  }
}
#endif

// Run-at-a-time variants for CPUs: a work-item reduces its run straight from global memory, and
// later reads the run again (from cache) to scan it, so no element array is kept per work-item.
inline elem_t reduce_run(const global elem_t* src, ulong first, ulong n) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  elem_t total = CLSCAN_IDENTITY;
  for (ulong i = first; i < end; ++i)
    total = combine(total, src[i]);
  return total;
}

inline void scan_run(const global elem_t* src, global elem_t* dst, ulong first, ulong n, elem_t prefix,
                     int exclusive) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  elem_t running = prefix;
  if (exclusive) {
    for (ulong i = first; i < end; ++i) {
      const elem_t x = src[i];
      dst[i] = running;
      running = combine(running, x);
    }
  } else {
    for (ulong i = first; i < end; ++i) {
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

// Exclusive scan of one value per work-item across the work-group, in local memory (Hillis-Steele;
// needs no particular work-group size and no sub-groups). Returns the work-item's exclusive prefix and
// writes the group's total to *total. scratch holds CLSCAN_WG elements; every work-item must call.
inline elem_t group_exclusive_scan(elem_t value, local elem_t* scratch, elem_t* total) {
  const uint lid = (uint)get_local_id(0);
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint offset = 1; offset < CLSCAN_WG; offset <<= 1) {
    elem_t left = (lid >= offset) ? scratch[lid - offset] : CLSCAN_IDENTITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid >= offset) scratch[lid] = combine(left, scratch[lid]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const elem_t prefix = (lid > 0) ? scratch[lid - 1] : CLSCAN_IDENTITY;
  *total = scratch[CLSCAN_WG - 1];
  // scratch may be reused by the caller right after this returns.
  barrier(CLK_LOCAL_MEM_FENCE);
  return prefix;
}

#endif // CLSCAN_COMMON_CL
