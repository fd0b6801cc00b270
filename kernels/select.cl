// Stream compaction: select_if, select_flagged and unique keep the selected elements in order, in one
// pass (tiles chained by the look-back of tile_prefix.cl, as the single-pass scan); partition_if also
// writes the others, in order, after them, and so runs on tile counts known beforehand
// (select_tile_counts, then scan_tile_aggregates, then select_tiles with the scanned counts).
//
// What a tile carries to its successors is the number of elements selected in it: a uint where the
// input has fewer than 2^32 elements (the host defines CLSCAN_COUNT_BITS 32), else a ulong, so that
// counts past 2^32 are exact.
//
// The host picks the selection with CLSCAN_SELECT_FLAGGED (flags[i] != 0), CLSCAN_SELECT_UNIQUE (the
// first element of every run of equal elements) or CLSCAN_PREDICATE, an OpenCL C expression of x
// (the element) and i (its index in the input, a ulong). CLSCAN_SELECT_RUN_HEADS and _TAILS select by
// the keys of another buffer, passed where the flags go (of type CLSCAN_KEY_T; the flags offset is
// then in bytes): the elements whose key starts (heads) or ends (tails) a run of equal keys, for
// unique_by_key, reduce_by_key and run_length_encode.
//
// `capacity` bounds the output: the kernels write no position at or past it (dst + capacity), whatever
// the count, which still counts every selected element (select_options::out_capacity).

#include "prelude.cl"

#define CLSCAN_CARRY_DEFINED
// Bits of a tile's count: 64, or (inputs of fewer than 2^32 elements) 32.
#ifndef CLSCAN_COUNT_BITS
#define CLSCAN_COUNT_BITS 64
#endif
#if CLSCAN_COUNT_BITS == 32
typedef uint carry_t;
#define CLSCAN_CARRY_IDENTITY 0u
#define CLSCAN_CARRY_SIZE 4
#else
typedef ulong carry_t;
#define CLSCAN_CARRY_IDENTITY 0ul
#define CLSCAN_CARRY_SIZE 8
#endif
#define CLSCAN_CARRY_TO_BITS(x) (x)
#define CLSCAN_CARRY_FROM_BITS(x) (x)
inline carry_t carry_combine(carry_t a, carry_t b CLSCAN_USER_PARAMS) { return a + b; }

// What the look-back's fallback reads to count a silent predecessor's selections itself.
#define CLSCAN_INPUT_PARAMS const global elem_t *src, const global uchar *flags, ulong n
#define CLSCAN_INPUT_ARGS src, flags, n

#include "group_scan.cl"
#include "tile_io.cl"

#if defined(CLSCAN_SELECT_RUN_HEADS) || defined(CLSCAN_SELECT_RUN_TAILS)
#define CLSCAN_SELECT_BY_KEYS 1
typedef CLSCAN_KEY_T key_t;
#endif

#if !defined(CLSCAN_SELECT_FLAGGED) && !defined(CLSCAN_SELECT_UNIQUE) && !defined(CLSCAN_SELECT_BY_KEYS) &&  \
    !defined(CLSCAN_PREDICATE)
#define CLSCAN_PREDICATE (x != 0)
#endif

// Whether element i (value x; prev is element i - 1, for i > 0) is selected. i < n.
inline uint is_selected(CLSCAN_INPUT_PARAMS, ulong i, elem_t x, elem_t prev CLSCAN_USER_PARAMS) {
  (void)src;
  (void)flags;
  (void)n;
  (void)prev;
#if defined(CLSCAN_SELECT_FLAGGED)
  (void)x;
  return flags[i] != 0;
#elif defined(CLSCAN_SELECT_UNIQUE)
#ifdef CLSCAN_KEY_EQUAL
  return i == 0 || !CLSCAN_KEY_EQUAL(prev, x);
#else
  return i == 0 || x != prev;
#endif
#elif defined(CLSCAN_SELECT_RUN_HEADS)
  (void)x;
  const global key_t* keys = (const global key_t*)flags;
  return i == 0 || keys[i] != keys[i - 1];
#elif defined(CLSCAN_SELECT_RUN_TAILS)
  (void)x;
  const global key_t* keys = (const global key_t*)flags;
  return i + 1 == n || keys[i] != keys[i + 1];
#else
  return (CLSCAN_PREDICATE) ? 1u : 0u;
#endif
}

// Element i - 1 of src, for the selection of element i (unique compares neighbours).
inline elem_t element_before(const global elem_t* src, ulong i) {
#if defined(CLSCAN_SELECT_UNIQUE)
  return i > 0 ? src[i - 1] : CLSCAN_IDENTITY;
#else
  (void)src;
  (void)i;
  return CLSCAN_IDENTITY;
#endif
}

// Selected elements in the run of CLSCAN_ITEMS elements at `first` (none at or past n), read from
// global memory in unrolled chunks (see CLSCAN_RUN_CHUNK in tile_io.cl).
inline uint count_run(CLSCAN_INPUT_PARAMS, ulong first CLSCAN_USER_PARAMS) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  uint count = 0;
  elem_t prev = first < n ? element_before(src, first) : CLSCAN_IDENTITY;
  CLSCAN_FOR_RUN(i, first, end, {
    const elem_t x = src[i];
    count += is_selected(src, flags, n, i, x, prev CLSCAN_USER_ARGS);
    prev = x;
  })
  return count;
}

inline carry_t tile_aggregate(ulong tile, local carry_t* scratch, CLSCAN_INPUT_PARAMS CLSCAN_USER_PARAMS) {
  const carry_t run_count =
      count_run(src, flags, n, tile * CLSCAN_TILE + get_local_id(0) * CLSCAN_ITEMS CLSCAN_USER_ARGS);
  carry_t total;
  group_exclusive_scan(run_count, scratch, &total CLSCAN_USER_ARGS);
  return total;
}

#include "tile_prefix.cl"

#if !CLSCAN_REREAD && CLSCAN_ITEMS > 64
#error "a work-item keeps one bit per element of its run in a ulong: CLSCAN_ITEMS must be at most 64"
#endif

// GPUs (tile in local memory): 1 (the default) lets select_if, select_flagged and unique move their
// selections without a private copy of each run. A work-item compacts its run's selected elements to the
// front of the run itself in the local tile (compact_local_run), and the tile then leaves from there, each
// output position finding the run that holds it (store_compacted_runs). 0: each work-item copies its
// run into private memory (CLSCAN_ITEMS elements), since gathering the selections of all runs in order
// in the same local tile overwrites runs not yet read. That copy is what limits how many work-groups a
// GPU keeps resident: on an H200, 114 to 126 registers per work-item (4 work-groups of 128 per
// multiprocessor) against the scan's 78 (6), with the same tile; compacting, 80, and select_if "x > 0"
// at 2^28 ints went from 0.56 to 0.68 of a copy (docs/PERFORMANCE.md). Only the one-pass kernel
// compacts: select_tiles, which serves partition_if (whose unselected elements, compacted in place as
// well, would overwrite elements not yet read) and the selections on counts known beforehand, keeps the
// copy.
#ifndef CLSCAN_SELECT_COMPACT_RUNS
#define CLSCAN_SELECT_COMPACT_RUNS 1
#endif

// Where an element of the input goes: selected ones at `selected_before` (the selected elements before
// it), the others (partition only) at `total` + the unselected elements before it.
inline ulong destination(uint selected, ulong i, ulong selected_before, ulong total) {
  return selected ? selected_before : total + (i - selected_before);
}

// Writes the run of CLSCAN_ITEMS elements at `first` (CPUs: straight to global memory, in order), to
// dst[0, capacity) only.
// selected_before: the selected elements before `first`.
// selected_end: selected_before plus the run's own selections. A selection writes every element up to
// the run's last selected one at the next free place, selected or not: an unselected one is
// overwritten by the next selected one, and the store needs no branch on the selection, whose
// mispredictions (random data) cost a CPU more than the extra stores.
inline void scatter_run(CLSCAN_INPUT_PARAMS, global elem_t* dst, ulong capacity, ulong first,
                        ulong selected_before, ulong selected_end, int partition,
                        ulong total CLSCAN_USER_PARAMS) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  // Past the capacity nothing is written: the stores stop there (the count goes on).
  selected_end = min(selected_end, capacity);
  elem_t prev = first < n ? element_before(src, first) : CLSCAN_IDENTITY;
  CLSCAN_FOR_RUN(i, first, end, {
    const elem_t x = src[i];
    const uint selected = is_selected(src, flags, n, i, x, prev CLSCAN_USER_ARGS);
    if (partition) {
      const ulong to = destination(selected, i, selected_before, total);
      if (to < capacity) dst[to] = x;
    } else if (selected_before < selected_end)
      dst[selected_before] = x;
    selected_before += selected;
    prev = x;
  })
}

#if !CLSCAN_REREAD
// Moves the selected elements of the work-item's run of the local tile, in order, to the front of the
// run itself, and returns how many there are. Element j goes to position count <= j, which the walk
// has read already, and no other work-item touches the run between the tile's load and the group scan
// that follows: no copy and no barrier. run_n: the run's elements below n (the constant CLSCAN_ITEMS
// for whole runs, which then check no bound per element). prev: the element before the run (unique
// compares neighbours); it is carried in a register, since the compaction overwrites the run.
inline uint compact_local_run(CLSCAN_INPUT_PARAMS, local vec_t* run, ulong run_first, uint run_n,
                              elem_t prev CLSCAN_USER_PARAMS) {
  local elem_t* kept = (local elem_t*)run;
  uint count = 0;
  // Vector k + 1 is read before vector k is compacted (writes reach no further than vector k), so
  // that the read overlaps the work rather than waiting behind the writes.
  vec_t next = run[0];
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    elem_t part[CLSCAN_VEC];
    CLSCAN_VSTORE(next, 0, part);
    if (k + 1 < CLSCAN_RUN_VECTORS) next = run[k + 1];
#pragma unroll
    for (int c = 0; c < CLSCAN_VEC; ++c) {
      const uint j = (uint)(k * CLSCAN_VEC + c);
      const uint selected =
          j < run_n ? is_selected(src, flags, n, run_first + j, part[c], prev CLSCAN_USER_ARGS) : 0u;
      if (selected) kept[count] = part[c];
      count += selected;
      prev = part[c];
    }
  }
  return count;
}

// Output positions of a tile are looked up in blocks of CLSCAN_OWNER_BLOCK: the run that holds a
// block's first position is noted (note_block_owners), and a position's run is found from its block's
// by walking forward over the run starts, one step per run that starts inside the block before it
// (rarely more than one for the benchmark's selections, 27 a run). A binary search over every run's
// start, 7 steps with 128 runs, took 127 of select_if's 744 us at 2^28 ints on an H200; blocks of 16
// took select_if from 0.68 to 0.72 of a copy, 32 to 0.70-0.71, 64 to 0.67-0.68 (docs/PERFORMANCE.md).
#ifndef CLSCAN_OWNER_BLOCK
#define CLSCAN_OWNER_BLOCK 16
#endif
#define CLSCAN_OWNER_BLOCKS (CLSCAN_TILE / CLSCAN_OWNER_BLOCK + 1)

// Notes the work-item's run as the owner of every block whose first position it holds: output
// positions [run_start, run_start + run_count). Each block of a tile's output has one owner.
inline void note_block_owners(uint lid, uint run_start, uint run_count, local ushort* block_owners) {
  for (uint b = (run_start + CLSCAN_OWNER_BLOCK - 1) / CLSCAN_OWNER_BLOCK;
       b * CLSCAN_OWNER_BLOCK < run_start + run_count; ++b)
    block_owners[b] = (ushort)lid;
}

// Output positions per store of store_compacted_runs: 16 bytes where the output's address allows it
// (1: one element a store). A position's lookup (its block's owner, the walk over run starts) is then
// made once per vector, and the walk's next run start stays in a register.
#ifndef CLSCAN_OUT_VEC
#if CLSCAN_ELEM_SIZE == 8
#define CLSCAN_OUT_VEC 2
#else
#define CLSCAN_OUT_VEC 4
#endif
#endif
#if CLSCAN_OUT_VEC > 1
typedef CLSCAN_CAT(CLSCAN_T, CLSCAN_OUT_VEC) out_vec_t;
#define CLSCAN_OUT_VLOAD CLSCAN_CAT(vload, CLSCAN_OUT_VEC)
#endif

// Where a walk over the compacted runs stands: the run `owner`, its first output position `start` and
// the next run's, `next`.
typedef struct {
  uint owner, start, next;
} run_cursor;

// The cursor of the run that holds output position o (see store_compacted_runs).
inline run_cursor find_run(uint o, local const uint* run_starts, local const ushort* block_owners) {
  run_cursor at;
  at.owner = block_owners[o / CLSCAN_OWNER_BLOCK];
  at.start = run_starts[at.owner];
  at.next = run_starts[at.owner + 1];
  return at;
}

// The element at output position o, at or after the cursor's run; moves the cursor to o's run. A run
// without selections starts where its successor does, and is passed over; run_starts[CLSCAN_WG], the
// tile's count, is past every o: the walk ends there at the latest.
inline elem_t compacted_element(uint o, run_cursor* at, local const uint* run_starts,
                                local const elem_t* elements) {
  while (at->next <= o) {
    ++at->owner;
    at->start = at->next;
    at->next = run_starts[at->owner + 1];
  }
  return elements[at->owner * ((CLSCAN_RUN_VECTORS + 1) * CLSCAN_VEC) + (o - at->start)];
}

// Stores the tile's selections, compacted at the front of their runs by compact_local_run, to
// out[0, tile_count): consecutive work-items store consecutive vectors (coalesced), and the positions
// before out's first 16-byte boundary and after its last whole vector one element each. Position o
// belongs to the last run that starts at or before it: run_starts[w] holds the selections of the runs
// before run w, and run_starts[CLSCAN_WG] the tile's count; block_owners is note_block_owners'. Every
// work-item must call, after a barrier behind the compaction, run_starts and block_owners. Only
// out[0, stored) is written (stored <= tile_count: the output's capacity ends inside the tile).
inline void store_compacted_runs(uint lid, local const vec_t* tile, local const uint* run_starts,
                                 local const ushort* block_owners, uint stored, global elem_t* out) {
  local const elem_t* elements = (local const elem_t*)tile;
#if CLSCAN_OUT_VEC > 1
  // Only the address tells whether a vector store may start at out: the offsets need not be multiples
  // of the vector, and a buffer made from a host pointer need not start at a 16-byte boundary.
  const uint misaligned = (uint)(((uintptr_t)out / CLSCAN_ELEM_SIZE) % CLSCAN_OUT_VEC);
  const uint head = min((CLSCAN_OUT_VEC - misaligned) % CLSCAN_OUT_VEC, stored);
  const uint vectors = (stored - head) / CLSCAN_OUT_VEC;
  for (uint v = lid; v < vectors; v += CLSCAN_WG) {
    const uint o = head + v * CLSCAN_OUT_VEC;
    run_cursor at = find_run(o, run_starts, block_owners);
    elem_t part[CLSCAN_OUT_VEC];
#pragma unroll
    for (int c = 0; c < CLSCAN_OUT_VEC; ++c)
      part[c] = compacted_element(o + c, &at, run_starts, elements);
    *(global out_vec_t*)(out + o) = CLSCAN_OUT_VLOAD(0, part);
  }
  // The head, then the tail after the last whole vector.
  const uint body_end = head + vectors * CLSCAN_OUT_VEC;
  for (uint e = lid; e < head + (stored - body_end); e += CLSCAN_WG) {
    const uint o = e < head ? e : body_end + (e - head);
    run_cursor at = find_run(o, run_starts, block_owners);
    out[o] = compacted_element(o, &at, run_starts, elements);
  }
#else
  for (uint o = lid; o < stored; o += CLSCAN_WG) {
    run_cursor at = find_run(o, run_starts, block_owners);
    out[o] = compacted_element(o, &at, run_starts, elements);
  }
#endif
}
#endif

// The local memory of one tile (kernels declare it; the tile's function uses it).
typedef struct {
  // The group scan's and the look-back's, then (compacted runs) the CLSCAN_WG + 1 runs' starts, as
  // uints: CLSCAN_SCRATCH_SIZE is at least CLSCAN_WG + 1, and a carry at least 4 bytes.
  carry_t scratch[CLSCAN_SCRATCH_SIZE];
  lookback_locals lb;
  uint tile;
#if !CLSCAN_REREAD
  vec_t tile_elements[CLSCAN_TILE_VECTORS];
  ushort block_owners[CLSCAN_OWNER_BLOCKS]; // compacted runs: see note_block_owners
#endif
} tile_locals;

// The tile of one work-group: counts its selections, learns how many were selected before it (from
// the look-back when tile_prefixes is null, else tile_prefixes[tile]) and writes its elements.
// src/dst/flags: the user's buffers plus their offsets; dst holds `capacity` elements. count receives the
// number selected (at count[0], from the last tile). tile_prefixes (partition) holds the total at [tiles].
// compact (GPUs): the run is compacted in the local tile rather than copied (CLSCAN_SELECT_COMPACT_RUNS); a
// constant of the calling kernel, since which barriers run depends on it. (Taken from select_tiles'
// `partition` argument instead, it made PoCL 3.1 run the loops behind those barriers wrongly: the compacted
// runs' stores ran their first iteration past the tile's count, and partitions wrote past their output.)
inline void select_tile(CLSCAN_INPUT_PARAMS, global elem_t* dst, ulong capacity, global ulong* count,
                        const global carry_t* tile_prefixes, int partition, int compact,
                        global status_t* status, uint ticket_base, uint tag,
                        local tile_locals* locals CLSCAN_USER_PARAMS) {
  const uint lid = (uint)get_local_id(0);
  const ulong tiles = (n + CLSCAN_TILE - 1) / CLSCAN_TILE;
  const ulong tile = tile_prefixes ? get_group_id(0) : claim_tile(status, ticket_base, &locals->tile);
  const ulong tile_first = tile * CLSCAN_TILE;
  const int has_successor = tile + 1 < tiles;
  const ulong run_first = tile_first + lid * CLSCAN_ITEMS;

#if CLSCAN_REREAD
  (void)compact;
  const carry_t run_count = count_run(src, flags, n, run_first CLSCAN_USER_ARGS);
#else
  // GPUs: the tile comes in through local memory, coalesced.
  load_local_tile(src, tile_first, n, locals->tile_elements CLSCAN_USER_ARGS);
  local vec_t* run = locals->tile_elements + lid * (CLSCAN_RUN_VECTORS + 1);
  elem_t prev = run_first < n ? element_before(src, run_first) : CLSCAN_IDENTITY;
  // Whole runs (all but the last tile's) need no bound check per element.
  const uint run_n =
      run_first + CLSCAN_ITEMS <= n ? CLSCAN_ITEMS : (run_first < n ? (uint)(n - run_first) : 0u);
  elem_t v[CLSCAN_ITEMS]; // without `compact`: the run, kept by each work-item
  ulong selections = 0;   // without `compact`: bit k, element k of the run is selected
  uint run_count = 0;
  if (compact) {
    run_count = run_n == CLSCAN_ITEMS
                    ? compact_local_run(src, flags, n, run, run_first, CLSCAN_ITEMS, prev CLSCAN_USER_ARGS)
                    : compact_local_run(src, flags, n, run, run_first, run_n, prev CLSCAN_USER_ARGS);
  } else {
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k)
      CLSCAN_VSTORE(run[k], k, v);
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k) {
      const uint selected =
          (uint)k < run_n ? is_selected(src, flags, n, run_first + k, v[k], prev CLSCAN_USER_ARGS) : 0u;
      selections |= (ulong)selected << k;
      run_count += selected;
      prev = v[k];
    }
  }
#endif
  carry_t tile_count;
  const carry_t item_before =
      group_exclusive_scan((carry_t)run_count, locals->scratch, &tile_count CLSCAN_USER_ARGS);

  ulong total = 0;
  if (tile_prefixes) {
    if (lid == 0) locals->lb.prefix = tile_prefixes[tile];
    group_barrier(CLK_LOCAL_MEM_FENCE);
    total = tile_prefixes[tiles];
  } else {
#if CLSCAN_SPIN_LIMIT == 0
    const int take_published = 0; // never in place
#else
    const int take_published = 1;
#endif
    tile_exclusive_prefix(status, tag, tile, tile_count, 0ul, has_successor, take_published, &locals->lb,
                          locals->scratch, CLSCAN_INPUT_ARGS CLSCAN_USER_ARGS);
  }
  const ulong tile_before = locals->lb.prefix;
#if !CLSCAN_REREAD
  // The tile's selected elements that fit in the output: at most tile_count, none past the capacity.
  const uint stored = tile_before < capacity ? (uint)min((ulong)tile_count, capacity - tile_before) : 0u;
#endif

#if CLSCAN_REREAD
  scatter_run(src, flags, n, dst, capacity, run_first, tile_before + item_before,
              tile_before + item_before + run_count, partition, total CLSCAN_USER_ARGS);
#else
  if (compact) {
    // The group scan and the look-back are done with their scratch: the runs' starts go there.
    local uint* run_starts = (local uint*)locals->scratch;
    run_starts[lid] = (uint)item_before;
    if (lid == 0) run_starts[CLSCAN_WG] = (uint)tile_count;
    note_block_owners(lid, (uint)item_before, run_count, locals->block_owners);
    group_barrier(CLK_LOCAL_MEM_FENCE);
    store_compacted_runs(lid, locals->tile_elements, run_starts, locals->block_owners, stored,
                         dst + tile_before);
  } else {
    // Selected elements (then, for a partition, the others) gather in local memory in their order,
    // and leave it in coalesced stores.
    local elem_t* gathered = (local elem_t*)locals->tile_elements;
    group_barrier(CLK_LOCAL_MEM_FENCE); // every work-item has its run in v[]
    uint selected_before = (uint)item_before;
#if CLSCAN_ITEMS <= CLSCAN_MAX_UNROLL
#pragma unroll
#endif
    for (int k = 0; k < CLSCAN_ITEMS; ++k) {
      const uint selected = (uint)(selections >> k) & 1u;
      if (selected)
        gathered[selected_before] = v[k];
      else if (partition && run_first + k < n)
        gathered[(uint)tile_count + (lid * CLSCAN_ITEMS + k - selected_before)] = v[k];
      selected_before += selected;
    }
    group_barrier(CLK_LOCAL_MEM_FENCE);
    global elem_t* selected_out = dst + tile_before;
    for (uint k = lid; k < stored; k += CLSCAN_WG)
      selected_out[k] = gathered[k];
    if (partition) {
      // The tile's unselected elements follow all the selected ones, after those of earlier tiles.
      const uint tile_n = (uint)min((ulong)CLSCAN_TILE, n - tile_first);
      const ulong unselected_first = total + (tile_first - tile_before) - (ulong)tile_count;
      global elem_t* unselected_out = dst + unselected_first;
      for (uint k = (uint)tile_count + lid; k < tile_n && unselected_first + k < capacity; k += CLSCAN_WG)
        unselected_out[k] = gathered[k];
    }
  }
#endif
  if (!has_successor && lid == 0) count[0] = tile_before + tile_count;
}

// The one-pass selection (select_if, select_flagged, unique): tiles in ticket order, chained by the
// look-back. tag is this launch's epoch (never 0).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
select_single_pass(const global elem_t* src, ulong src_offset, const global uchar* flags, ulong flags_offset,
                   global elem_t* dst, ulong dst_offset, global ulong* count, ulong count_offset, ulong n,
                   ulong capacity, global status_t* status, uint ticket_base, uint tag CLSCAN_USER_PARAMS) {
  local tile_locals locals;
  select_tile(src + src_offset, flags ? flags + flags_offset : flags, n, dst + dst_offset, capacity,
              count + count_offset, 0, 0, CLSCAN_SELECT_COMPACT_RUNS, status, ticket_base, tag,
              &locals CLSCAN_USER_ARGS);
}

// Tile t of the input writes its selection count to counts[t] (the first pass of a selection on
// counts known beforehand).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
select_tile_counts(const global elem_t* src, ulong src_offset, const global uchar* flags, ulong flags_offset,
                   ulong n, global carry_t* counts CLSCAN_USER_PARAMS) {
  local carry_t scratch[CLSCAN_SCRATCH_SIZE];
  const carry_t total = tile_aggregate(get_group_id(0), scratch, src + src_offset,
                                       flags ? flags + flags_offset : flags, n CLSCAN_USER_ARGS);
  if (get_local_id(0) == 0) counts[get_group_id(0)] = total;
}

// The last pass on known counts: tile_prefixes[t] is the number selected before tile t, and
// tile_prefixes[tiles] the total. partition: the unselected elements follow the selected ones.
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
select_tiles(const global elem_t* src, ulong src_offset, const global uchar* flags, ulong flags_offset,
             global elem_t* dst, ulong dst_offset, global ulong* count, ulong count_offset, ulong n,
             ulong capacity, const global carry_t* tile_prefixes, int partition CLSCAN_USER_PARAMS) {
  local tile_locals locals;
  select_tile(src + src_offset, flags ? flags + flags_offset : flags, n, dst + dst_offset, capacity,
              count + count_offset, tile_prefixes, partition, 0, 0, 0, 0, &locals CLSCAN_USER_ARGS);
}

#include "tile_aggregates.cl"
