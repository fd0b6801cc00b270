// reduce_by_key, unique_by_key and run_length_encode in one pass (lib/api/runs.cpp takes it where the
// look-back qualifies and the carry fits): tiles in ticket order, chained by the look-back of
// tile_prefix.cl. A tile reads its keys and values and writes each run it holds at the run's index,
// the number of run heads before it; nothing goes through a temporary, and the keys are read in this
// one pass instead of in three.
//
// A run head is element 0 and every element whose key differs (!=, so every NaN key is a run of its
// own and -0.0 and 0.0 are one) from the key before; a run tail is the last element and every element
// before a head. keys_out[j] is run j's first key, written at its head; values_out[j] its values
// combined in order (reduce_by_key, run_length_encode: written at its tail) or its first value
// (unique_by_key: at its head).
//
// What a range of elements carries to what follows: the number of run heads in it, and the value of
// the run open at its end, its elements from the range's last head on combined (all of them where no
// head is in the range). (c1, v1) then (c2, v2) is (c1 + c2, c2 ? v2 : v1 op v2), which is
// associative. unique_by_key (CLSCAN_RUNS_UNIQUE) carries the count alone.
//
// The host defines CLSCAN_KEY_T, and CLSCAN_RUNS_ONES where every value is 1 and none is read
// (run_length_encode, whose lengths are the sums of ones).

#include "prelude.cl"

#ifndef CLSCAN_KEY_T
#define CLSCAN_KEY_T int
#endif
typedef CLSCAN_KEY_T key_t;

#define CLSCAN_KEYS_DIFFER(a, b) ((a) != (b))

// run_value_t: what a run's value is carried and combined as. run_length_encode's lengths are below
// 2^32, as n is (the host takes this kernel only then), so they travel as uints whatever the lengths'
// type, and only the writes widen them: cl_ulong lengths carry no more than cl_uint ones.
#ifdef CLSCAN_RUNS_ONES
typedef uint run_value_t;
#define CLSCAN_RUN_VALUE(src, i) ((void)(src), (void)(i), 1u)
#define CLSCAN_RUN_IDENTITY 0u
#define CLSCAN_RUN_VALUE_FROM_BITS(b) (b)
inline run_value_t run_combine(run_value_t a, run_value_t b CLSCAN_USER_PARAMS) { return a + b; }
#else
typedef elem_t run_value_t;
#define CLSCAN_RUN_VALUE(src, i) ((src)[i])
#define CLSCAN_RUN_IDENTITY CLSCAN_IDENTITY
#define CLSCAN_RUN_VALUE_FROM_BITS(b) CLSCAN_CAT(as_, CLSCAN_T)(b)
inline run_value_t run_combine(run_value_t a, run_value_t b CLSCAN_USER_PARAMS) {
  return combine(a, b CLSCAN_USER_ARGS);
}
#endif

#define CLSCAN_CARRY_DEFINED
#ifdef CLSCAN_RUNS_UNIQUE
typedef uint carry_t;
#define CLSCAN_CARRY_IDENTITY 0u
#define CLSCAN_CARRY_SIZE 4
#define CLSCAN_CARRY_TO_BITS(c) (c)
#define CLSCAN_CARRY_FROM_BITS(b) (b)
#define CLSCAN_CARRY_COUNT(c) (c)
inline carry_t carry_combine(carry_t a, carry_t b CLSCAN_USER_PARAMS) { return a + b; }
#else
#if CLSCAN_ELEM_SIZE != 4 && !defined(CLSCAN_RUNS_ONES)
#error "the count of heads and a run's value travel in 64 bits: values of 4 bytes only"
#endif
// The value first: a carry moved as one 64-bit word then has its halves where CLSCAN_CARRY_TO_BITS puts
// them (the other order compiled to a rotate, a funnel shift that Oclgrind cannot run).
typedef struct {
  run_value_t value;
  uint count;
} carry_t;
inline carry_t make_carry(uint count, run_value_t value) {
  carry_t c;
  c.count = count;
  c.value = value;
  return c;
}
#define CLSCAN_CARRY_IDENTITY make_carry(0u, CLSCAN_RUN_IDENTITY)
#define CLSCAN_CARRY_SIZE 8
// The count in the high half, the value's bits in the low one.
#define CLSCAN_CARRY_TO_BITS(c) (((ulong)(c).count << 32) | (ulong)as_uint((c).value))
#define CLSCAN_CARRY_FROM_BITS(b) make_carry((uint)((b) >> 32), CLSCAN_RUN_VALUE_FROM_BITS((uint)(b)))
#define CLSCAN_CARRY_COUNT(c) ((c).count)
inline carry_t carry_combine(carry_t a, carry_t b CLSCAN_USER_PARAMS) {
  return make_carry(a.count + b.count, b.count ? b.value : run_combine(a.value, b.value CLSCAN_USER_ARGS));
}
#endif

// What the look-back's fallback reads to reduce a silent predecessor itself.
#define CLSCAN_INPUT_PARAMS const global key_t *keys, const global elem_t *src, ulong n
#define CLSCAN_INPUT_ARGS keys, src, n

#include "group_scan.cl"
#include "tile_io.cl"

// The carry of the CLSCAN_ITEMS elements at `first` (none at or past n). The heads are counted over
// the keys alone (pairs of neighbours, which compilers vectorize); the values are read from the last
// head on only, found walking back from the end.
inline carry_t reduce_runs_range(CLSCAN_INPUT_PARAMS, ulong first CLSCAN_USER_PARAMS) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  if (first >= end) return CLSCAN_CARRY_IDENTITY;
  uint heads = first == 0 ? 1u : 0u;
  const ulong pairs_first = first == 0 ? 1 : first; // element 0 has no key before it
  CLSCAN_FOR_RUN(i, pairs_first, end, { heads += CLSCAN_KEYS_DIFFER(keys[i - 1], keys[i]) ? 1u : 0u; })
#ifdef CLSCAN_RUNS_UNIQUE
  (void)src;
  return heads;
#else
  ulong start = end;
  if (heads) {
    start = end - 1;
    while (start > 0 && start > first && !CLSCAN_KEYS_DIFFER(keys[start - 1], keys[start]))
      --start;
  } else {
    start = first;
  }
  // From a head, the value is its elements combined from the first one on, not the identity combined
  // with them (as the scans by key take it).
  run_value_t acc = heads ? CLSCAN_RUN_VALUE(src, start) : CLSCAN_RUN_IDENTITY;
  CLSCAN_FOR_RUN(i, heads ? start + 1 : start, end,
                 { acc = run_combine(acc, CLSCAN_RUN_VALUE(src, i) CLSCAN_USER_ARGS); })
  return make_carry(heads, acc);
#endif
}

// tile_prefix.cl's hook, as by_key.cl's and select.cl's.
inline carry_t tile_aggregate(ulong tile, local carry_t* scratch, CLSCAN_INPUT_PARAMS CLSCAN_USER_PARAMS) {
  const carry_t run =
      reduce_runs_range(keys, src, n, tile * CLSCAN_TILE + get_local_id(0) * CLSCAN_ITEMS CLSCAN_USER_ARGS);
  carry_t total;
  group_exclusive_scan(run, scratch, &total CLSCAN_USER_ARGS);
  return total;
}

#include "tile_prefix.cl"

#ifndef CLSCAN_RUNS_UNIQUE
// A run's value as written, in the values' type: with the caller's initial value in front where it
// gave one.
inline elem_t run_result(run_value_t value, int has_initial, elem_t initial CLSCAN_USER_PARAMS) {
  return has_initial ? combine(initial, (elem_t)value CLSCAN_USER_ARGS) : (elem_t)value;
}
#endif

// Writes the runs of the CLSCAN_ITEMS elements at `first` (none at or past n) to outputs of `capacity`
// elements: the key of each head, and the value of each tail (unique_by_key: of each head). before:
// the carry of every element before `first`.
inline void write_runs_range(CLSCAN_INPUT_PARAMS, global key_t* keys_out, global elem_t* values_out,
                             ulong capacity, ulong first, carry_t before, int has_initial,
                             elem_t initial CLSCAN_USER_PARAMS) {
  const ulong end = min(first + (ulong)CLSCAN_ITEMS, n);
  if (first >= end) return;
  ulong count = CLSCAN_CARRY_COUNT(before); // the heads before element i
  key_t prev = keys[first > 0 ? first - 1 : 0];
#ifdef CLSCAN_RUNS_UNIQUE
  (void)has_initial;
  (void)initial;
  CLSCAN_FOR_RUN(i, first, end, {
    const key_t k = keys[i];
    if (i == 0 || CLSCAN_KEYS_DIFFER(prev, k)) {
      if (count < capacity) {
        keys_out[count] = k;
        values_out[count] = src[i];
      }
      ++count;
    }
    prev = k;
  })
#else
  run_value_t value = before.value;
  CLSCAN_FOR_RUN(i, first, end, {
    const key_t k = keys[i];
    const run_value_t x = CLSCAN_RUN_VALUE(src, i);
    if (i == 0 || CLSCAN_KEYS_DIFFER(prev, k)) {
      // The run before ends at i - 1: written here where that element is this range's (element 0 has
      // a head, so count >= 1 past it).
      if (i > first && count - 1 < capacity)
        values_out[count - 1] = run_result(value, has_initial, initial CLSCAN_USER_ARGS);
      if (count < capacity) keys_out[count] = k;
      ++count;
      value = x;
    } else {
      value = run_combine(value, x CLSCAN_USER_ARGS);
    }
    prev = k;
  })
  // The range's last element ends its run where no element follows or the next one starts a run.
  if ((end == n || CLSCAN_KEYS_DIFFER(prev, keys[end])) && count - 1 < capacity)
    values_out[count - 1] = run_result(value, has_initial, initial CLSCAN_USER_ARGS);
#endif
}

// Tests only: the count written is off by this much, so that a test sees which calls this kernel runs
// (tests/unit/runs.cpp, runs-one-pass-taken in tests/CMakeLists.txt).
#ifndef CLSCAN_TEST_RUNS_COUNT_BIAS
#define CLSCAN_TEST_RUNS_COUNT_BIAS 0
#endif

#if !CLSCAN_REREAD
// GPUs: the tile comes in through local memory in coalesced loads, the keys as run-head bits (bit c of
// a vector's entry: element c of the vector starts a run), the values (reduce_by_key only: unique_by_key
// reads the value at each head, run_length_encode none) as the tile's vectors; each work-item then
// walks its run there. Keys are read again only at run heads, for keys_out.
#if CLSCAN_ITEMS > 64
#error "a work-item keeps one bit per element of its run in a ulong: CLSCAN_ITEMS must be at most 64"
#endif
#if !defined(CLSCAN_RUNS_UNIQUE) && !defined(CLSCAN_RUNS_ONES)
#define CLSCAN_RUNS_TILE_VALUES 1
#else
#define CLSCAN_RUNS_TILE_VALUES 0
#endif
#include "key_heads.cl"
// Runs of entries padded by four, so that work-items reading their runs side by side mostly hit
// different banks (as by_key.cl's).
#define CLSCAN_HEAD_RUN_STRIDE (CLSCAN_RUN_VECTORS + 4)
inline uint head_index(uint vector_in_tile) {
  return vector_in_tile + vector_in_tile / CLSCAN_RUN_VECTORS * 4;
}

#endif

// The local memory of one tile.
typedef struct {
  carry_t scratch[CLSCAN_SCRATCH_SIZE];
  lookback_locals lb;
  uint tile;
#if !CLSCAN_REREAD
#if CLSCAN_RUNS_TILE_VALUES
  vec_t tile_elements[CLSCAN_TILE_VECTORS];
#endif
  head_bits_t head_bits[CLSCAN_WG * CLSCAN_HEAD_RUN_STRIDE];
  uint head_after; // the element after the tile starts a run, or none follows it
#endif
} tile_locals;

#if !CLSCAN_REREAD
// How many of the run's vectors the loops over the local tile handle per unrolled step (by_key.cl's
// CLSCAN_BY_KEY_RUN_UNROLL).
#ifndef CLSCAN_RUNS_UNROLL
#define CLSCAN_RUNS_UNROLL 4
#endif

// Loads the tile at tile_first into `locals` (every work-item must call), and returns the work-item's
// run-head bits (bit k: element k of its run, at run_first, starts a run; none at or past n) and, in
// *head_next, whether the element after the run starts one (or none follows the tile).
inline ulong load_runs_tile(const global key_t* keys, const global elem_t* src, ulong n, ulong tile_first,
                            uint* head_next, local tile_locals* locals CLSCAN_USER_PARAMS) {
  const uint lid = (uint)get_local_id(0);
  const ulong available = n - tile_first;
  CLSCAN_UNROLL_BY(8)
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    const uint j = (uint)k * CLSCAN_WG + lid;
#if CLSCAN_RUNS_TILE_VALUES
    locals->tile_elements[tile_vector_index(j)] = load_tile_vector(src + tile_first, available, j);
#else
    (void)src;
#endif
    locals->head_bits[head_index(j)] =
        (ulong)j * CLSCAN_VEC < available
            ? vector_heads(keys, tile_first + (ulong)j * CLSCAN_VEC, n CLSCAN_USER_ARGS)
            : 0;
  }
  if (lid == 0)
    locals->head_after =
        tile_first + CLSCAN_TILE >= n ||
        CLSCAN_KEYS_DIFFER(keys[tile_first + CLSCAN_TILE - 1], keys[tile_first + CLSCAN_TILE]);
  group_barrier(CLK_LOCAL_MEM_FENCE);
  local const head_bits_t* run_heads = locals->head_bits + lid * CLSCAN_HEAD_RUN_STRIDE;
  ulong heads = 0;
  CLSCAN_UNROLL_BY(CLSCAN_RUNS_UNROLL)
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k)
    heads |= (ulong)run_heads[k] << (k * CLSCAN_VEC);
  *head_next = lid + 1 < CLSCAN_WG ? run_heads[CLSCAN_HEAD_RUN_STRIDE] & 1u : locals->head_after;
  return heads;
}

// The carry of the work-item's run in the local tile (heads: load_runs_tile's).
inline carry_t reduce_local_runs(ulong heads, ulong run_first, ulong n,
                                 local const tile_locals* locals CLSCAN_USER_PARAMS) {
#ifdef CLSCAN_RUNS_UNIQUE
  (void)run_first;
  (void)n;
  (void)locals;
  return (uint)popcount(heads);
#elif defined(CLSCAN_RUNS_ONES)
  (void)locals;
  // The elements from the last head on, or all of the run's below n.
  const uint valid = run_first < n ? (uint)min((ulong)CLSCAN_ITEMS, n - run_first) : 0u;
  const uint after = heads ? valid - (63u - (uint)clz(heads)) : valid;
  return make_carry((uint)popcount(heads), (run_value_t)after);
#else
  (void)run_first;
  (void)n;
  local const vec_t* run_vectors = locals->tile_elements + get_local_id(0) * (CLSCAN_RUN_VECTORS + 1);
  // Elements at or past n are the identity and start no run: they change nothing.
  elem_t value = CLSCAN_IDENTITY;
  CLSCAN_UNROLL_BY(CLSCAN_RUNS_UNROLL)
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    elem_t v[CLSCAN_VEC];
    CLSCAN_VSTORE(run_vectors[k], 0, v);
#pragma unroll
    for (int c = 0; c < CLSCAN_VEC; ++c)
      value = (heads >> (k * CLSCAN_VEC + c)) & 1ul ? v[c] : combine(value, v[c] CLSCAN_USER_ARGS);
  }
  return make_carry((uint)popcount(heads), value);
#endif
}

// Writes the runs of the work-item's run in the local tile, as write_runs_range does: a run's value at
// the next head, or after the work-item's last element where head_next says the next element starts
// a run (tail bits shifted out of the head bits and head_next compiled to a funnel shift, which
// Oclgrind cannot run, and a test per element).
inline void write_local_runs(const global key_t* keys, const global elem_t* src, global key_t* keys_out,
                             global elem_t* values_out, ulong capacity, ulong n, ulong run_first, ulong heads,
                             uint head_next, carry_t before, int has_initial, elem_t initial,
                             local const tile_locals* locals CLSCAN_USER_PARAMS) {
  ulong count = CLSCAN_CARRY_COUNT(before);
#ifdef CLSCAN_RUNS_UNIQUE
  (void)n;
  (void)head_next;
  (void)has_initial;
  (void)initial;
  (void)locals;
  for (ulong rest = heads; rest; rest &= rest - 1) {
    const ulong i = run_first + (ulong)(63 - clz(rest & (~rest + 1)));
    if (count < capacity) {
      keys_out[count] = keys[i];
      values_out[count] = src[i];
    }
    ++count;
  }
#else
  (void)src;
  // Elements of the run below n; the last of them ends its run where the next element starts one or
  // it is element n - 1. A run that ends before the work-item's last element ends at the next head,
  // where it is written.
  const uint valid = run_first < n ? (uint)min((ulong)CLSCAN_ITEMS, n - run_first) : 0u;
  const uint last_is_tail = valid > 0 && (head_next || run_first + valid == n);
#if CLSCAN_RUNS_TILE_VALUES
  elem_t value = before.value;
  local const vec_t* run_vectors = locals->tile_elements + get_local_id(0) * (CLSCAN_RUN_VECTORS + 1);
  // Elements at or past n are the identity and start no run: they change nothing.
  CLSCAN_UNROLL_BY(CLSCAN_RUNS_UNROLL)
  for (int k = 0; k < CLSCAN_RUN_VECTORS; ++k) {
    elem_t v[CLSCAN_VEC];
    CLSCAN_VSTORE(run_vectors[k], 0, v);
#pragma unroll
    for (int c = 0; c < CLSCAN_VEC; ++c) {
      const int e = k * CLSCAN_VEC + c;
      if ((heads >> e) & 1ul) {
        if (e > 0 && count - 1 < capacity)
          values_out[count - 1] = run_result(value, has_initial, initial CLSCAN_USER_ARGS);
        if (count < capacity) keys_out[count] = keys[run_first + (ulong)e];
        ++count;
        value = v[c];
      } else {
        value = combine(value, v[c] CLSCAN_USER_ARGS);
      }
    }
  }
#else
  (void)locals;
  // Every value is 1: a run's length is the distance between its heads, so only the heads are visited.
  // value: the length of the open run up to element `open_end` of the work-item's run.
  run_value_t value = before.value;
  uint open_end = 0;
  for (ulong rest = heads; rest; rest &= rest - 1) {
    const uint e = (uint)(63 - clz(rest & (~rest + 1)));
    if (e > 0 && count - 1 < capacity)
      values_out[count - 1] = run_result(value + (e - open_end), has_initial, initial CLSCAN_USER_ARGS);
    if (count < capacity) keys_out[count] = keys[run_first + (ulong)e];
    ++count;
    value = 0;
    open_end = e;
  }
  value += valid - min(open_end, valid);
#endif
  if (last_is_tail && count - 1 < capacity)
    values_out[count - 1] = run_result(value, has_initial, initial CLSCAN_USER_ARGS);
#endif
}
#endif

// The one-pass calls on runs: tiles in ticket order, chained by the look-back. keys and src (null for
// CLSCAN_RUNS_ONES) share in_offset, both outputs out_offset; each output holds `capacity` elements
// from there. The tile holding element n - 1 writes the number of runs to count[count_offset]. tag is
// this launch's epoch (never 0).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
runs_single_pass(const global key_t* keys, const global elem_t* src, ulong in_offset, global key_t* keys_out,
                 global elem_t* values_out, ulong out_offset, global ulong* count, ulong count_offset,
                 ulong n, ulong capacity, int has_initial, elem_t initial, global status_t* status,
                 uint ticket_base, uint tag CLSCAN_USER_PARAMS) {
  local tile_locals locals;
  keys += in_offset;
  src = src ? src + in_offset : src;
  keys_out += out_offset;
  values_out += out_offset;
  const uint lid = (uint)get_local_id(0);
  const ulong tiles = (n + CLSCAN_TILE - 1) / CLSCAN_TILE;
  const ulong tile = claim_tile(status, ticket_base, &locals.tile);
  const ulong run_first = tile * CLSCAN_TILE + lid * CLSCAN_ITEMS;

#if CLSCAN_REREAD
  const carry_t run = reduce_runs_range(keys, src, n, run_first CLSCAN_USER_ARGS);
#else
  uint head_next;
  const ulong heads = load_runs_tile(keys, src, n, tile * CLSCAN_TILE, &head_next, &locals CLSCAN_USER_ARGS);
  const carry_t run = reduce_local_runs(heads, run_first, n, &locals CLSCAN_USER_ARGS);
#endif
  carry_t tile_total;
  const carry_t item_before = group_exclusive_scan(run, locals.scratch, &tile_total CLSCAN_USER_ARGS);
#if CLSCAN_SPIN_LIMIT == 0
  const int take_published = 0; // never in place: every predecessor is reduced here
#else
  const int take_published = 1;
#endif
  tile_exclusive_prefix(status, tag, tile, tile_total, CLSCAN_CARRY_IDENTITY, tile + 1 < tiles,
                        take_published, &locals.lb, locals.scratch, CLSCAN_INPUT_ARGS CLSCAN_USER_ARGS);
  const carry_t tile_before = locals.lb.prefix;
  const carry_t before = carry_combine(tile_before, item_before CLSCAN_USER_ARGS);
#if CLSCAN_REREAD
  write_runs_range(keys, src, n, keys_out, values_out, capacity, run_first, before, has_initial,
                   initial CLSCAN_USER_ARGS);
#else
  write_local_runs(keys, src, keys_out, values_out, capacity, n, run_first, heads, head_next, before,
                   has_initial, initial, &locals CLSCAN_USER_ARGS);
#endif
  if (tile + 1 == tiles && lid == 0)
    count[count_offset] = (ulong)CLSCAN_CARRY_COUNT(tile_before) + (ulong)CLSCAN_CARRY_COUNT(tile_total) +
                          CLSCAN_TEST_RUNS_COUNT_BIAS;
}
