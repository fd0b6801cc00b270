// Segmented scans by key (inclusive_by_key, exclusive_by_key): a segment is a maximal run of equal
// consecutive keys, and each is scanned on its own. One pass, tiles chained by the look-back of
// tile_prefix.cl as in the single-pass scan; or, where the look-back is not used, on tile aggregates
// known beforehand (by_key_tile_aggregates, scan_tile_aggregates, by_key_tiles).
//
// What a range of elements carries to what follows is a pair: `value`, the elements since the last
// segment start in the range combined (all of them if none starts in it), and `flag`, whether a
// segment starts in it. Pairs combine associatively: (a, b) -> (b.flag ? b.value : a.value op
// b.value, a.flag | b.flag).
//
// The host defines CLSCAN_KEY_T, the key type.

#include "prelude.cl"

#ifndef CLSCAN_KEY_T
#define CLSCAN_KEY_T int
#endif
typedef CLSCAN_KEY_T key_t;

// Whether key b (the key after a) starts a new segment. The host defines CLSCAN_KEY_EQUAL(a, b) for a
// caller's key_equal expression; by default keys are compared with ==. CLSCAN_KEY_HEADS: the keys are
// segment-head flags (the segmented calls over offsets, whose key_equal is "b == 0u"), so b starts a
// segment where it is not zero: the same test, without the expression's function, and CPUs keep the
// vector path below.
#if defined(CLSCAN_KEY_HEADS)
#define CLSCAN_KEYS_DIFFER(a, b) ((b) != 0)
#elif defined(CLSCAN_KEY_EQUAL)
#define CLSCAN_KEYS_DIFFER(a, b) (!CLSCAN_KEY_EQUAL(a, b))
#else
#define CLSCAN_KEYS_DIFFER(a, b) ((a) != (b))
#endif

typedef struct {
  elem_t value;
  uint flag;
#if CLSCAN_ELEM_SIZE == 8
  // The padding after the flag, named and set, so that copies of a whole carry move no undefined
  // bytes (Oclgrind reports them, in the fallback with one work-item per group).
  uint unused;
#endif
} carry_t;
#define CLSCAN_CARRY_DEFINED
#define CLSCAN_CARRY_FLAGGED 1
// The carry's value is one element: group_scan.cl's conversions of an element to and from its bits.
#define CLSCAN_CARRY_SIZE CLSCAN_ELEM_SIZE
inline carry_t make_carry(elem_t value, uint flag) {
  carry_t c;
  c.value = value;
  c.flag = flag;
#if CLSCAN_ELEM_SIZE == 8
  c.unused = 0;
#endif
  return c;
}
#define CLSCAN_CARRY_IDENTITY make_carry(CLSCAN_IDENTITY, 0u)
inline carry_t carry_combine(carry_t a, carry_t b CLSCAN_USER_PARAMS) {
  return make_carry(b.flag ? b.value : combine(a.value, b.value CLSCAN_USER_ARGS), a.flag | b.flag);
}

// What the look-back's fallback reads to reduce a silent predecessor itself.
#define CLSCAN_INPUT_PARAMS const global key_t *keys, const global elem_t *src, ulong n
#define CLSCAN_INPUT_ARGS keys, src, n

#include "group_scan.cl"
#include "tile_io.cl"

// Key i - 1, the key element i is compared with (i > 0; any value for i == 0, which always starts a
// segment).
inline key_t key_before(const global key_t* keys, ulong i) { return i > 0 ? keys[i - 1] : (key_t)0; }

// Adds element x, which starts a segment when `head`, to the pair of the elements before it.
inline carry_t add_element(carry_t acc, elem_t x, uint head CLSCAN_USER_PARAMS) {
  return make_carry(head ? x : combine(acc.value, x CLSCAN_USER_ARGS), acc.flag | head);
}

// The pair of the run of CLSCAN_ITEMS elements at `first` (none at or past n): the elements from the
// run's last segment start on, or all of them when no segment starts in it. The start is searched from
// the end backwards, a chunk of keys at a time (see CLSCAN_RUN_CHUNK in tile_io.cl), so that a run reads
// the values of its last segment only: on CPUs, where this pass reads the run before the scan reads it
// again, it then costs little beside the scan.
inline carry_t reduce_keyed_run(CLSCAN_INPUT_PARAMS, ulong first CLSCAN_USER_PARAMS) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  ulong start = first;
  uint flag = 0;
  for (ulong chunk_end = end; !flag && chunk_end > first;) {
    const ulong chunk_first = chunk_end - min((ulong)CLSCAN_RUN_CHUNK, chunk_end - first);
    // The last segment start in [chunk_first, chunk_end), if any.
    if (chunk_end - chunk_first == CLSCAN_RUN_CHUNK && chunk_first > 0) {
      _Pragma("unroll") for (int c = 0; c < CLSCAN_RUN_CHUNK; ++c) {
        const ulong i = chunk_first + (ulong)c;
        if (CLSCAN_KEYS_DIFFER(keys[i - 1], keys[i])) start = i, flag = 1;
      }
    } else {
      for (ulong i = chunk_first; i < chunk_end; ++i)
        if (i == 0 || CLSCAN_KEYS_DIFFER(keys[i - 1], keys[i])) start = i, flag = 1;
    }
    chunk_end = chunk_first;
  }
  // From a segment start, the value is its elements combined from the first one on (as add_element
  // takes it), not the identity combined with them.
  elem_t acc = flag ? src[start] : CLSCAN_IDENTITY;
  CLSCAN_FOR_RUN(i, flag ? start + 1 : start, end, { acc = combine(acc, src[i] CLSCAN_USER_ARGS); })
  return make_carry(acc, flag);
}

// tile_prefix.cl's hook, as select.cl's: the same few lines over each file's own run reduction.
inline carry_t tile_aggregate(ulong tile, local carry_t* scratch, CLSCAN_INPUT_PARAMS CLSCAN_USER_PARAMS) {
  const carry_t run =
      reduce_keyed_run(keys, src, n, tile * CLSCAN_TILE + get_local_id(0) * CLSCAN_ITEMS CLSCAN_USER_ARGS);
  carry_t total;
  group_exclusive_scan(run, scratch, &total CLSCAN_USER_ARGS);
  return total;
}

#include "tile_prefix.cl"

#if !CLSCAN_REREAD && CLSCAN_ITEMS > 64
#error "a work-item keeps one bit per element of its run in a ulong: CLSCAN_ITEMS must be at most 64"
#endif

// The output for element x, given the value of its segment before it (`running`, ignored at a
// segment start): inclusive or exclusive, with the caller's initial value in front of every segment
// when it gave one. Updates `running`.
inline elem_t keyed_output(elem_t x, uint head, elem_t* running, int exclusive, int has_initial,
                           elem_t initial CLSCAN_USER_PARAMS) {
  const elem_t before = head ? CLSCAN_IDENTITY : *running;
  *running = head ? x : combine(before, x CLSCAN_USER_ARGS);
  const elem_t result = exclusive ? before : *running;
  return has_initial ? combine(initial, result CLSCAN_USER_ARGS) : result;
}

// Float runs of CPUs (see CLSCAN_VECTOR_RUNS in tile_io.cl) are scanned 16 elements at a time, as
// segments: one chain of dependent additions per run took float scans by key on PoCL 3.1 (2 cores) as
// long as a serial loop. Doubles keep the element loop: in vectors of 16 they ran twice as slow there
// (2026-11-23; docs/PERFORMANCE.md, "Defaults"). A key_equal expression keeps the element loop, as it
// compares one pair of keys, not 16 lanes at once.
#if CLSCAN_VECTOR_RUNS && CLSCAN_ELEM_SIZE == 4 && (!defined(CLSCAN_KEY_EQUAL) || defined(CLSCAN_KEY_HEADS))
#define CLSCAN_VECTOR_KEYED_RUNS 1
typedef int16 wide_heads_t;
#else
#define CLSCAN_VECTOR_KEYED_RUNS 0
#endif

#if CLSCAN_VECTOR_KEYED_RUNS
// The segmented scan of x's 16 elements: `heads` has all bits set in the lanes that start a segment, and
// lane k of the result combines the lanes from the last start at or before k up to k, in order (lanes
// before any start: from lane 0). started: lane k is set where a segment starts in lanes 0..k.
inline wide_t segmented_scan_wide(wide_t x, wide_heads_t heads, wide_heads_t* started CLSCAN_USER_PARAMS) {
  const wide_t e = (wide_t)(CLSCAN_IDENTITY);
  const wide_heads_t none = (wide_heads_t)(0);
  wide_heads_t seen = heads; // lane k: a segment starts in the lanes that lane k has combined so far
#define CLSCAN_SEGMENTED_STEP(mask)                                                                          \
  x = select(CLSCAN_COMBINE_WIDE(shuffle2(x, e, mask), x), x, seen);                                         \
  seen |= shuffle2(seen, none, mask);
  CLSCAN_SEGMENTED_STEP(CLSCAN_SHIFTED_BY_1)
  CLSCAN_SEGMENTED_STEP(((wide_mask_t)(16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)))
  CLSCAN_SEGMENTED_STEP(((wide_mask_t)(16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)))
  CLSCAN_SEGMENTED_STEP(((wide_mask_t)(16, 16, 16, 16, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7)))
#undef CLSCAN_SEGMENTED_STEP
  *started = seen;
  return x;
}
#endif

// Scans the run at `first` into dst (CPUs: straight from and to global memory, in order). `running`:
// the value of the segment open before `first`.
inline void scan_keyed_run(CLSCAN_INPUT_PARAMS, global elem_t* dst, ulong first, elem_t running,
                           int exclusive, int has_initial, elem_t initial CLSCAN_USER_PARAMS) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  key_t prev = first < n ? key_before(keys, first) : (key_t)0;
#if CLSCAN_VECTOR_KEYED_RUNS
  ulong i = first;
  if (i == 0 && i < end) { // element 0 has no key before it
    prev = keys[0];
    dst[0] = keyed_output(src[0], 1u, &running, exclusive, has_initial, initial CLSCAN_USER_ARGS);
    i = 1;
  }
  for (; i + 16 <= end; i += 16) {
#ifdef CLSCAN_KEY_HEADS
    const wide_heads_t heads = convert_int16(vload16(0, keys + i) != (key_t)0);
#else
    const wide_heads_t heads = convert_int16(vload16(0, keys + i) != vload16(0, keys + i - 1));
#endif
    wide_heads_t started;
    wide_t inclusive = segmented_scan_wide(vload16(0, src + i), heads, &started CLSCAN_USER_ARGS);
    // The lanes before the vector's first segment start continue the segment open before it.
    inclusive = select(CLSCAN_COMBINE_WIDE((wide_t)(running), inclusive), inclusive, started);
    // Exclusive: lane k takes lane k - 1's value (lane 0 the running one), the identity at a start.
    wide_t result = exclusive ? select(shuffle2(inclusive, (wide_t)(running), CLSCAN_SHIFTED_BY_1),
                                       (wide_t)(CLSCAN_IDENTITY), heads)
                              : inclusive;
    if (has_initial) result = CLSCAN_COMBINE_WIDE((wide_t)(initial), result);
    vstore16(result, 0, dst + i);
    running = inclusive.sF;
  }
  if (i > first) prev = keys[i - 1];
  CLSCAN_FOR_RUN(j, i, end, { // the last elements, fewer than 16
    const key_t k = keys[j];
    dst[j] = keyed_output(src[j], j == 0 || CLSCAN_KEYS_DIFFER(prev, k), &running, exclusive, has_initial,
                          initial CLSCAN_USER_ARGS);
    prev = k;
  })
#else
  CLSCAN_FOR_RUN(i, first, end, {
    const key_t k = keys[i];
    const elem_t x = src[i];
    dst[i] = keyed_output(x, i == 0 || CLSCAN_KEYS_DIFFER(prev, k), &running, exclusive, has_initial,
                          initial CLSCAN_USER_ARGS);
    prev = k;
  })
#endif
}

#if !CLSCAN_REREAD
// GPUs keep, beside the tile of values, one entry of segment-start bits per vector of the tile (bit c:
// element c of the vector starts a segment), found while the keys stream in; the keys themselves are
// never kept, so a tile of keys of any size costs no more local memory than a byte per vector (the
// keys' copy used to leave room for only 16 elements per work-item on 48 KiB devices).
#include "key_heads.cl"
#define CLSCAN_HEAD_BYTES (CLSCAN_VEC > 8 ? 2 : 1)
// Where a run's entries fit in the vector that pads the run in the tile of values (the default shapes:
// RUN_VECTORS bytes in a vector of as many or more), they live there and cost no local memory at all;
// that saves 2.5 KiB a tile on an H200, enough for a sixth work-group per SM (float 0.45 -> 0.48 of
// copy). The host's local_memory_bytes makes the same choice.
#if CLSCAN_RUN_VECTORS * CLSCAN_HEAD_BYTES <= CLSCAN_VEC * CLSCAN_ELEM_SIZE
#define CLSCAN_HEADS_IN_PADDING 1
#define CLSCAN_HEADS_PER_VECTOR (CLSCAN_VEC * CLSCAN_ELEM_SIZE / CLSCAN_HEAD_BYTES)
// The entry of tile vector j, in run j / RUN_VECTORS, sits at j % RUN_VECTORS in that run's padding
// vector; written with a division only (a division and a remainder of the same value become a
// `freeze` instruction that Oclgrind cannot simulate).
inline uint head_index(uint vector_in_tile) {
  return vector_in_tile +
         vector_in_tile / CLSCAN_RUN_VECTORS *
             ((CLSCAN_RUN_VECTORS + 1) * CLSCAN_HEADS_PER_VECTOR - CLSCAN_RUN_VECTORS) +
         CLSCAN_RUN_VECTORS * CLSCAN_HEADS_PER_VECTOR;
}
#else
#define CLSCAN_HEADS_IN_PADDING 0
// Otherwise in an array of their own, runs of entries padded by four, so that work-items reading
// their runs side by side mostly hit different banks.
#define CLSCAN_HEAD_RUN_STRIDE (CLSCAN_RUN_VECTORS + 4)
inline uint head_index(uint vector_in_tile) {
  return vector_in_tile + vector_in_tile / CLSCAN_RUN_VECTORS * 4;
}
#endif

#endif

// How many of the run's vectors the two loops over the local tile (the run's pair, then its output)
// handle per unrolled step. Fully unrolled, as the other loops over a run are, the output loop took
// int scans by key to 94 registers a work-item on an H200, 5 work-groups per SM. By 4 they take 80
// (6 work-groups), and int sums at 2^28 ran at 0.484 of copy instead of 0.440. Float was unchanged
// (2026-11-23; docs/PERFORMANCE.md, "Defaults"). A key_equal expression keeps the element loop, as it
// compares one pair of keys, not 16 lanes at once.
#ifndef CLSCAN_BY_KEY_RUN_UNROLL
#define CLSCAN_BY_KEY_RUN_UNROLL 4
#endif

// How many vectors of keys and values the tile's load loop has in flight per unrolled step. On an H200
// at 2^28 (2026-11-24, docs/PERFORMANCE.md), 8 was as fast as 4 and faster than 2 and 16 for int and
// float; 16 (the whole run of the default shape) ran long and double about 1 % faster than 8.
#ifndef CLSCAN_BY_KEY_LOAD_UNROLL
#if CLSCAN_ELEM_SIZE == 8
#define CLSCAN_BY_KEY_LOAD_UNROLL 16
#else
#define CLSCAN_BY_KEY_LOAD_UNROLL 8
#endif
#endif

// The local memory of one tile (kernels declare it; the tile's function uses it).
typedef struct {
  carry_t scratch[CLSCAN_SCRATCH_SIZE];
  lookback_locals lb;
  uint tile;
#if !CLSCAN_REREAD
  vec_t tile_elements[CLSCAN_TILE_VECTORS];
#if !CLSCAN_HEADS_IN_PADDING
  head_bits_t head_bits[CLSCAN_WG * CLSCAN_HEAD_RUN_STRIDE];
#endif
#endif
} tile_locals;

// The tile of one work-group: its pair, the pair of everything before it (from the look-back when
// tile_prefixes is null, else tile_prefixes[tile]), then its output. keys/src/dst: the user's buffers
// plus the offset.
inline void by_key_tile(CLSCAN_INPUT_PARAMS, global elem_t* dst, const global carry_t* tile_prefixes,
                        int exclusive, int has_initial, elem_t initial, global status_t* status,
                        uint ticket_base, uint tag, local tile_locals* locals CLSCAN_USER_PARAMS) {
  const uint lid = (uint)get_local_id(0);
  const ulong tiles = (n + CLSCAN_TILE - 1) / CLSCAN_TILE;
  const ulong tile = tile_prefixes ? get_group_id(0) : claim_tile(status, ticket_base, &locals->tile);
  const ulong tile_first = tile * CLSCAN_TILE;
  const ulong run_first = tile_first + lid * CLSCAN_ITEMS;

#if CLSCAN_REREAD
  const carry_t run = reduce_keyed_run(keys, src, n, run_first CLSCAN_USER_ARGS);
#else
  // GPUs: values come in through local memory, coalesced, and keys become segment-start bits on the
  // way; each work-item then reads its run's values and segment starts from there.
  const ulong available = n - tile_first;
  // Each vector of values is loaded beside its keys, so that both streams' loads are in flight
  // together (keys first, then values, was 2 … 3 % slower at 2^28).
  CLSCAN_UNROLL_BY(CLSCAN_BY_KEY_LOAD_UNROLL)
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    const uint j = (uint)k * CLSCAN_WG + lid;
    const vec_t values = load_tile_vector(src + tile_first, available, j);
    const head_bits_t bits = (ulong)j * CLSCAN_VEC < available
                                 ? vector_heads(keys, tile_first + (ulong)j * CLSCAN_VEC, n CLSCAN_USER_ARGS)
                                 : 0;
#if CLSCAN_HEADS_IN_PADDING
    ((local head_bits_t*)locals->tile_elements)[head_index(j)] = bits;
#else
    locals->head_bits[head_index(j)] = bits;
#endif
    locals->tile_elements[tile_vector_index(j)] = values;
  }
  group_barrier(CLK_LOCAL_MEM_FENCE);
  local vec_t* run_vectors = locals->tile_elements + lid * (CLSCAN_RUN_VECTORS + 1);
#if CLSCAN_HEADS_IN_PADDING
  local const head_bits_t* run_heads = (local const head_bits_t*)(run_vectors + CLSCAN_RUN_VECTORS);
#else
  local const head_bits_t* run_heads = locals->head_bits + lid * CLSCAN_HEAD_RUN_STRIDE;
#endif
  // The run's values stay in local memory, read once here and once for the output: kept in registers
  // across the look-back they took 140 registers a work-item on an H200 (3 work-groups per SM).
  ulong heads = 0; // bit k: element k of the run starts a segment
  carry_t run = CLSCAN_CARRY_IDENTITY;
  CLSCAN_UNROLL_BY(CLSCAN_BY_KEY_RUN_UNROLL)
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    const uint bits = run_heads[k];
    heads |= (ulong)bits << (k * CLSCAN_VEC);
    elem_t v[CLSCAN_VEC];
    CLSCAN_VSTORE(run_vectors[k], 0, v);
    // Elements at or past n are the identity and start no segment: they change no pair, and only
    // outputs past n (never stored) depend on them.
#pragma unroll
    for (int c = 0; c < CLSCAN_VEC; ++c)
      run = add_element(run, v[c], (bits >> c) & 1u CLSCAN_USER_ARGS);
  }
#endif
  carry_t tile_total;
  const carry_t item_before = group_exclusive_scan(run, locals->scratch, &tile_total CLSCAN_USER_ARGS);

  if (tile_prefixes) {
    if (lid == 0) locals->lb.prefix = tile_prefixes[tile];
    group_barrier(CLK_LOCAL_MEM_FENCE);
  } else {
    const int take_published = CLSCAN_TAKE_PUBLISHED(src, dst);
    tile_exclusive_prefix(status, tag, tile, tile_total, CLSCAN_CARRY_IDENTITY, tile + 1 < tiles,
                          take_published, &locals->lb, locals->scratch, CLSCAN_INPUT_ARGS CLSCAN_USER_ARGS);
  }
  elem_t running = carry_combine(locals->lb.prefix, item_before CLSCAN_USER_ARGS).value;

#if CLSCAN_REREAD
  scan_keyed_run(keys, src, n, dst, run_first, running, exclusive, has_initial, initial CLSCAN_USER_ARGS);
#else
  CLSCAN_UNROLL_BY(CLSCAN_BY_KEY_RUN_UNROLL)
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    elem_t v[CLSCAN_VEC];
    CLSCAN_VSTORE(run_vectors[k], 0, v);
#pragma unroll
    for (int c = 0; c < CLSCAN_VEC; ++c)
      v[c] = keyed_output(v[c], (uint)(heads >> (k * CLSCAN_VEC + c)) & 1u, &running, exclusive, has_initial,
                          initial CLSCAN_USER_ARGS);
    run_vectors[k] = CLSCAN_VLOAD(0, v);
  }
  group_barrier(CLK_LOCAL_MEM_FENCE);
  store_local_tile(dst, tile_first, n, locals->tile_elements);
#endif
}

// The one-pass scan by key: tiles in ticket order, chained by the look-back. tag is this launch's
// epoch (never 0). keys and src share src_offset.
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
by_key_single_pass(const global key_t* keys, const global elem_t* src, ulong src_offset, global elem_t* dst,
                   ulong dst_offset, ulong n, int exclusive, int has_initial, elem_t initial,
                   global status_t* status, uint ticket_base, uint tag CLSCAN_USER_PARAMS) {
  local tile_locals locals;
  by_key_tile(keys + src_offset, src + src_offset, n, dst + dst_offset, 0, exclusive, has_initial, initial,
              status, ticket_base, tag, &locals CLSCAN_USER_ARGS);
}

// Tile t writes its pair to aggregates[t] (the first pass on aggregates known beforehand).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
by_key_tile_aggregates(const global key_t* keys, const global elem_t* src, ulong src_offset, ulong n,
                       global carry_t* aggregates CLSCAN_USER_PARAMS) {
  local carry_t scratch[CLSCAN_SCRATCH_SIZE];
  const carry_t total =
      tile_aggregate(get_group_id(0), scratch, keys + src_offset, src + src_offset, n CLSCAN_USER_ARGS);
  if (get_local_id(0) == 0) aggregates[get_group_id(0)] = total;
}

// The last pass on known aggregates: tile_prefixes[t] is the pair of the tiles before tile t.
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
by_key_tiles(const global key_t* keys, const global elem_t* src, ulong src_offset, global elem_t* dst,
             ulong dst_offset, ulong n, int exclusive, int has_initial, elem_t initial,
             const global carry_t* tile_prefixes CLSCAN_USER_PARAMS) {
  local tile_locals locals;
  by_key_tile(keys + src_offset, src + src_offset, n, dst + dst_offset, tile_prefixes, exclusive, has_initial,
              initial, 0, 0, 0, &locals CLSCAN_USER_ARGS);
}

#include "tile_aggregates.cl"
