// Moving elements between global memory and a work-item or a work-group: a work-item's run in
// registers (load_items, store_items, reduce_items, scan_items), a work-group's tile in local memory
// (GPUs), and a run streamed from global memory and read again (CPUs).
#ifndef CLSCAN_TILE_IO_CL
#define CLSCAN_TILE_IO_CL

#include "prelude.cl"

// Whole vectors of a run in global memory: plain vector accesses where the buffers' bases and offsets
// keep them aligned (CLSCAN_ALIGNED), vloadN/vstoreN otherwise; one form for every load and store below.
// CLSCAN_INPUT_VLOAD: the same of the call's input (in_t, prelude.cl).
#if CLSCAN_ALIGNED
#define CLSCAN_GLOBAL_VLOAD(i, p) (((const global vec_t*)(p))[i])
#define CLSCAN_GLOBAL_VSTORE(x, i, p) (((global vec_t*)(p))[i] = (x))
#define CLSCAN_INPUT_VLOAD(i, p) (((const global in_vec_t*)(p))[i])
#else
#define CLSCAN_GLOBAL_VLOAD(i, p) CLSCAN_VLOAD(i, p)
#define CLSCAN_GLOBAL_VSTORE(x, i, p) CLSCAN_VSTORE(x, i, p)
#define CLSCAN_INPUT_VLOAD(i, p) CLSCAN_VLOAD(i, p)
#endif

// Loads the CLSCAN_ITEMS elements of the call's input that start at `first` into v (through the
// transform, CLSCAN_READ); elements at or past n read as the identity, so a partial tile scans like a
// full one.
inline void load_items(const global in_t* src, ulong first, ulong n, elem_t* v CLSCAN_USER_PARAMS) {
  if (first + CLSCAN_ITEMS <= n) {
#if CLSCAN_VEC > 1
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k) {
      vec_t x = CLSCAN_READ_VECTOR(CLSCAN_INPUT_VLOAD(k, src + first), first + (ulong)k * CLSCAN_VEC, n);
      CLSCAN_VSTORE(x, k, v);
    }
#else
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k)
      v[k] = CLSCAN_READ(src[first + k], first + k);
#endif
  } else {
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k)
      v[k] = (first + k < n) ? CLSCAN_READ(src[first + k], first + k) : CLSCAN_IDENTITY;
  }
}

// load_items of elements the call has computed (a scanned output, tile totals), never transformed: its
// branches mirrored, kept apart for the reasons store_items gives below.
inline void load_elements(const global elem_t* src, ulong first, ulong n, elem_t* v) {
  if (first + CLSCAN_ITEMS <= n) {
#if CLSCAN_VEC > 1
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k) {
      vec_t x = CLSCAN_GLOBAL_VLOAD(k, src + first);
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

// Stores v to the CLSCAN_ITEMS elements that start at `first`, none at or past n. load_items' branches
// mirrored, kept apart rather than shared through a macro: each loop stays plain for the compiler to
// unroll and vectorize, and reads as the access it is.
inline void store_items(global elem_t* dst, ulong first, ulong n, const elem_t* v) {
  if (first + CLSCAN_ITEMS <= n) {
#if CLSCAN_VEC > 1
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS / CLSCAN_VEC; ++k) {
      vec_t x = CLSCAN_VLOAD(k, v);
      CLSCAN_GLOBAL_VSTORE(x, k, dst + first);
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

// Vector j of the input's tile at `base`, of which `available` elements lie before n, as stored (not
// transformed); elements at or past n read as CLSCAN_INPUT_PAD (the identity where the input has the
// call's type).
inline in_vec_t load_tile_vector(const global in_t* base, ulong available, uint j) {
  const ulong first = (ulong)j * CLSCAN_VEC;
  if (first + CLSCAN_VEC <= available) {
    return CLSCAN_INPUT_VLOAD(j, base);
  }
  in_t part[CLSCAN_VEC];
  for (int c = 0; c < CLSCAN_VEC; ++c)
    part[c] = first + c < available ? base[first + c] : CLSCAN_INPUT_PAD;
  return CLSCAN_VLOAD(0, part);
}

// Loads the input's tile that starts at element `tile_first` into local memory, through the transform
// (CLSCAN_READ_VECTOR); elements at or past n read as the identity. Every work-item must call.
inline void load_local_tile(const global in_t* src, ulong tile_first, ulong n,
                            local vec_t* tile CLSCAN_USER_PARAMS) {
  const uint lid = (uint)get_local_id(0);
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    const uint j = (uint)k * CLSCAN_WG + lid;
    const ulong available = n - tile_first, first = (ulong)j * CLSCAN_VEC;
    // (The end as an index, not as a count of elements left: `available - first` where it is
    // positive became llvm.usub.sat, which Oclgrind 21.10 cannot run.)
    tile[tile_vector_index(j)] =
        CLSCAN_READ_VECTOR(load_tile_vector(src + tile_first, available, j), tile_first + first, n);
  }
  group_barrier(CLK_LOCAL_MEM_FENCE);
}

// A work-item's run is combined as CLSCAN_RUN_LANES contiguous lanes side by side: each lane is a
// chain of dependent combines, and lanes are independent of each other, so the compiler can overlap
// them. Integer sums are reassociated by the compiler anyway; floating-point sums are not (their
// rounding depends on the order), and one chain of CLSCAN_ITEMS dependent adds per work-item is then
// the tile's critical path. Every lane combines its elements in order and lanes are combined in order,
// so non-commutative operators stay correct.
// A run of fewer vectors than lanes, or not a multiple of them (three-stage runs of one vector, the
// same build options), runs as one lane.
#ifndef CLSCAN_RUN_LANES
#define CLSCAN_RUN_LANES 1
#elif CLSCAN_RUN_VECTORS % CLSCAN_RUN_LANES != 0
#undef CLSCAN_RUN_LANES
#define CLSCAN_RUN_LANES 1
#endif
#define CLSCAN_LANE_VECTORS (CLSCAN_RUN_VECTORS / CLSCAN_RUN_LANES)

// The totals of the work-item's lanes of the local tile, each combined in order.
inline void reduce_local_lanes(local const vec_t* tile, elem_t* lane_totals CLSCAN_USER_PARAMS) {
  local const vec_t* run = tile + get_local_id(0) * (CLSCAN_RUN_VECTORS + 1);
#pragma unroll
  for (int l = 0; l < CLSCAN_RUN_LANES; ++l)
    lane_totals[l] = CLSCAN_IDENTITY;
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_LANE_VECTORS; ++k) {
#pragma unroll
    for (int l = 0; l < CLSCAN_RUN_LANES; ++l) {
      elem_t part[CLSCAN_VEC];
      CLSCAN_VSTORE(run[l * CLSCAN_LANE_VECTORS + k], 0, part);
#pragma unroll
      for (int c = 0; c < CLSCAN_VEC; ++c)
        lane_totals[l] = combine(lane_totals[l], part[c] CLSCAN_USER_ARGS);
    }
  }
}

// The lanes' totals combined in order: the work-item's total.
inline elem_t combine_lane_totals(const elem_t* lane_totals CLSCAN_USER_PARAMS) {
  elem_t total = lane_totals[0];
#pragma unroll
  for (int l = 1; l < CLSCAN_RUN_LANES; ++l)
    total = combine(total, lane_totals[l] CLSCAN_USER_ARGS);
  return total;
}

// Combines the work-item's run of the local tile: the work-item's total.
inline elem_t reduce_local_run(local const vec_t* tile CLSCAN_USER_PARAMS) {
  elem_t lane_totals[CLSCAN_RUN_LANES];
  reduce_local_lanes(tile, lane_totals CLSCAN_USER_ARGS);
  return combine_lane_totals(lane_totals CLSCAN_USER_ARGS);
}

// Scans the work-item's run of the local tile in place, seeded with `prefix`; lane_totals are
// reduce_local_lanes' totals of the same run. Every work-item must call (the tile is complete for
// store_local_tile when this returns). It walks the run as reduce_local_lanes does, storing as it goes:
// a second loop rather than one walker with a callback, which OpenCL C lacks and a macro body would hide
// from the reader of either loop.
inline void scan_local_run(local vec_t* tile, const elem_t* lane_totals, elem_t prefix,
                           int exclusive CLSCAN_USER_PARAMS) {
  local vec_t* run = tile + get_local_id(0) * (CLSCAN_RUN_VECTORS + 1);
  elem_t running[CLSCAN_RUN_LANES];
  running[0] = prefix;
#pragma unroll
  for (int l = 1; l < CLSCAN_RUN_LANES; ++l)
    running[l] = combine(running[l - 1], lane_totals[l - 1] CLSCAN_USER_ARGS);
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_LANE_VECTORS; ++k) {
#pragma unroll
    for (int l = 0; l < CLSCAN_RUN_LANES; ++l) {
      elem_t part[CLSCAN_VEC];
      CLSCAN_VSTORE(run[l * CLSCAN_LANE_VECTORS + k], 0, part);
#pragma unroll
      for (int c = 0; c < CLSCAN_VEC; ++c) {
        const elem_t next = combine(running[l], part[c] CLSCAN_USER_ARGS);
        part[c] = exclusive ? running[l] : next;
        running[l] = next;
      }
      run[l * CLSCAN_LANE_VECTORS + k] = CLSCAN_VLOAD(0, part);
    }
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
      CLSCAN_GLOBAL_VSTORE(x, j, base);
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

// for (ulong i = first; i < end; ++i) { ... }, with the body given after `end`, walked in unrolled
// chunks of CLSCAN_RUN_CHUNK as above; the body may use `i` and the caller's variables.
#if CLSCAN_RUN_CHUNK > 1
#define CLSCAN_FOR_RUN(i, first, end, ...)                                                                   \
  {                                                                                                          \
    ulong i##_chunk = (first);                                                                               \
    for (; i##_chunk + CLSCAN_RUN_CHUNK <= (end); i##_chunk += CLSCAN_RUN_CHUNK) {                           \
      _Pragma("unroll") for (int i##_in_chunk = 0; i##_in_chunk < CLSCAN_RUN_CHUNK; ++i##_in_chunk) {        \
        const ulong i = i##_chunk + (ulong)i##_in_chunk;                                                     \
        __VA_ARGS__                                                                                          \
      }                                                                                                      \
    }                                                                                                        \
    for (; i##_chunk < (end); ++i##_chunk) {                                                                 \
      const ulong i = i##_chunk;                                                                             \
      __VA_ARGS__                                                                                            \
    }                                                                                                        \
  }
#else
#define CLSCAN_FOR_RUN(i, first, end, ...)                                                                   \
  for (ulong i = (first); i < (end); ++i) {                                                                  \
    __VA_ARGS__                                                                                              \
  }
#endif

// Floating-point runs of one work-item per work-group (PoCL) with a built-in operator are walked 16
// elements at a time in vectors (CLSCAN_VECTOR_RUNS). A floating-point combine may not be reordered by
// the compiler, so element at a time each run was one chain of dependent additions (~4 cycles each):
// on PoCL 3.1 (2-core AMD EPYC, AVX-512) float sums of 2^22 took 3.6 ms in two such passes, as long as
// a serial std::inclusive_scan, where 16 lane totals in the reduce and a scan of each vector in four
// shift-and-combine steps took 1.35 ms (docs/PERFORMANCE.md, "Defaults"). Integer runs keep the
// element loops: the compiler vectorizes their reduce itself, their scan already runs at memory
// speed, and the vector scan measured no faster there; scans by key of 4-byte integers, whose element
// loop is a chain of selects, take the vectors too (CLSCAN_VECTOR_INTEGER_RUNS, from
// lib/algorithms/by_key.cpp). The shifted-in lanes take the identity, which
// leaves every element exact (-0.0 for sums, NaN for fmin / fmax). Custom operators are written for
// single elements, and llvmpipe's work-groups of 64 vectorize across work-items already: both keep
// the element loops.
#if defined(CLSCAN_REREAD) && CLSCAN_REREAD && CLSCAN_WG == 1 &&                                             \
    (defined(CLSCAN_FLOATING) || defined(CLSCAN_VECTOR_INTEGER_RUNS)) && !defined(CLSCAN_OP_CUSTOM) &&       \
    !defined(CLSCAN_TRANSFORM)
#define CLSCAN_VECTOR_RUNS 1
typedef CLSCAN_CAT(CLSCAN_T, 16) wide_t;
// CLSCAN_COMBINE of two wide_t: the wrapping signed sum reinterprets whole vectors.
#if defined(CLSCAN_WRAP_T) && !defined(CLSCAN_FLOATING)
#define CLSCAN_COMBINE_WIDE(a, b)                                                                            \
  CLSCAN_CAT(as_, CLSCAN_CAT(CLSCAN_T, 16))                                                                  \
  (CLSCAN_CAT(as_, CLSCAN_CAT(CLSCAN_WRAP_T, 16))(a) + CLSCAN_CAT(as_, CLSCAN_CAT(CLSCAN_WRAP_T, 16))(b))
#else
#define CLSCAN_COMBINE_WIDE(a, b) CLSCAN_COMBINE(a, b)
#endif

// shuffle2's masks: lanes 0..15 pick from its first vector, 16..31 from its second.
#if CLSCAN_ELEM_SIZE == 8
typedef ulong16 wide_mask_t;
#else
typedef uint16 wide_mask_t;
#endif
#define CLSCAN_SHIFTED_BY_1 ((wide_mask_t)(16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14))

// The inclusive scan of x's 16 elements: lane k combines lanes 0..k in order. (shuffle2 rather than
// clang's __builtin_shufflevector: Oclgrind took lanes of the latter's result for uninitialized.)
inline wide_t scan_wide(wide_t x CLSCAN_USER_PARAMS) {
  const wide_t e = (wide_t)(CLSCAN_IDENTITY);
  x = CLSCAN_COMBINE_WIDE(shuffle2(x, e, CLSCAN_SHIFTED_BY_1), x);
  x = CLSCAN_COMBINE_WIDE(shuffle2(x, e, (wide_mask_t)(16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)),
                          x);
  x = CLSCAN_COMBINE_WIDE(shuffle2(x, e, (wide_mask_t)(16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)),
                          x);
  return CLSCAN_COMBINE_WIDE(
      shuffle2(x, e, (wide_mask_t)(16, 16, 16, 16, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7)), x);
}
#else
#define CLSCAN_VECTOR_RUNS 0
#endif

inline elem_t reduce_run(const global in_t* src, ulong first, ulong n CLSCAN_USER_PARAMS) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  elem_t total = CLSCAN_IDENTITY;
  ulong i = first;
#if !(defined(CLSCAN_REREAD) && CLSCAN_REREAD) && CLSCAN_RUN_LANES > 1
  // In lanes, as reduce_local_lanes and combine_lane_totals combine a run of the local tile: the
  // look-back's fallback then gives a tile the total the tile itself publishes, bit for bit
  // (CLSCAN_FIXED_ORDER). Elements past n are left out where the tile reads the identity.
  for (int l = 0; l < CLSCAN_RUN_LANES; ++l) {
    elem_t lane_total = CLSCAN_IDENTITY;
    const ulong lane_end = min(first + (ulong)(l + 1) * (CLSCAN_ITEMS / CLSCAN_RUN_LANES), end);
    for (; i < lane_end; ++i)
      lane_total = combine(lane_total, CLSCAN_READ(src[i], i) CLSCAN_USER_ARGS);
    total = l == 0 ? lane_total : combine(total, lane_total CLSCAN_USER_ARGS);
  }
#elif CLSCAN_VECTOR_RUNS
  // 16 lane totals, combined at the end: the order of the sum changes, as it does with the tile size.
  wide_t lane_totals = (wide_t)(CLSCAN_IDENTITY);
  for (; i + 16 <= end; i += 16)
    lane_totals = CLSCAN_COMBINE_WIDE(lane_totals, vload16(0, src + i));
  elem_t lane_total[16];
  vstore16(lane_totals, 0, lane_total);
  for (int k = 0; k < 16; ++k)
    total = combine(total, lane_total[k] CLSCAN_USER_ARGS);
#elif CLSCAN_RUN_CHUNK > 1
  for (; i + CLSCAN_RUN_CHUNK <= end; i += CLSCAN_RUN_CHUNK) {
#pragma unroll
    for (int c = 0; c < CLSCAN_RUN_CHUNK; ++c)
      total = combine(total, CLSCAN_READ(src[i + c], i + c) CLSCAN_USER_ARGS);
  }
#endif
  for (; i < end; ++i)
    total = combine(total, CLSCAN_READ(src[i], i) CLSCAN_USER_ARGS);
  return total;
}

inline void scan_run(const global in_t* src, global elem_t* dst, ulong first, ulong n, elem_t prefix,
                     int exclusive CLSCAN_USER_PARAMS) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  elem_t running = prefix;
  ulong i = first;
#if CLSCAN_VECTOR_RUNS
  wide_t running_wide = (wide_t)(running);
  for (; i + 16 <= end; i += 16) {
    const wide_t inclusive =
        CLSCAN_COMBINE_WIDE(running_wide, scan_wide(vload16(0, src + i) CLSCAN_USER_ARGS));
    vstore16(exclusive ? shuffle2(inclusive, running_wide, CLSCAN_SHIFTED_BY_1) : inclusive, 0, dst + i);
    running_wide = (wide_t)(inclusive.sf);
  }
  running = running_wide.s0;
#endif
  if (exclusive) {
#if CLSCAN_RUN_CHUNK > 1 && !CLSCAN_VECTOR_RUNS
    for (; i + CLSCAN_RUN_CHUNK <= end; i += CLSCAN_RUN_CHUNK) {
#pragma unroll
      for (int c = 0; c < CLSCAN_RUN_CHUNK; ++c) {
        const elem_t x = CLSCAN_READ(src[i + c], i + c);
        dst[i + c] = running;
        running = combine(running, x CLSCAN_USER_ARGS);
      }
    }
#endif
    for (; i < end; ++i) {
      const elem_t x = CLSCAN_READ(src[i], i);
      dst[i] = running;
      running = combine(running, x CLSCAN_USER_ARGS);
    }
  } else {
#if CLSCAN_RUN_CHUNK > 1 && !CLSCAN_VECTOR_RUNS
    for (; i + CLSCAN_RUN_CHUNK <= end; i += CLSCAN_RUN_CHUNK) {
#pragma unroll
      for (int c = 0; c < CLSCAN_RUN_CHUNK; ++c) {
        running = combine(running, CLSCAN_READ(src[i + c], i + c) CLSCAN_USER_ARGS);
        dst[i + c] = running;
      }
    }
#endif
    for (; i < end; ++i) {
      running = combine(running, CLSCAN_READ(src[i], i) CLSCAN_USER_ARGS);
      dst[i] = running;
    }
  }
}

// Combines a work-item's elements in order: the work-item's total.
inline elem_t reduce_items(const elem_t* v CLSCAN_USER_PARAMS) {
  elem_t total = v[0];
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 1; k < CLSCAN_ITEMS; ++k)
    total = combine(total, v[k] CLSCAN_USER_ARGS);
  return total;
}

// Scans v in place, seeded with `prefix` (everything before the work-item's first element).
inline void scan_items(elem_t* v, elem_t prefix, int exclusive CLSCAN_USER_PARAMS) {
  elem_t running = prefix;
  if (exclusive) {
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k) {
      elem_t x = v[k];
      v[k] = running;
      running = combine(running, x CLSCAN_USER_ARGS);
    }
  } else {
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k) {
      running = combine(running, v[k] CLSCAN_USER_ARGS);
      v[k] = running;
    }
  }
}

#endif // CLSCAN_TILE_IO_CL
