// The decoupled look-back of the single-pass algorithms: status words, publishing a tile's aggregate or
// inclusive prefix, reading a predecessor's, and the steps of the walk over the predecessors with its
// fallback.
//
// Status words carry an epoch tag beside their payload, so a word from an earlier launch is never
// mistaken for a current one and the status array needs no clearing between launches. Aggregates and
// prefixes have separate slots, each written once per launch, so an element wider than one payload
// is split over several words without tearing: a reader takes a slot only when every word carries the
// current tag.
#ifndef CLSCAN_TILE_PREFIX_CL
#define CLSCAN_TILE_PREFIX_CL

// Tests only (the walk below): CLSCAN_TEST_WRONG_LOOKBACK breaks the look-back, in every work-group
// size or, with CLSCAN_TEST_WRONG_LOOKBACK_WG, in that one.
#if defined(CLSCAN_TEST_WRONG_LOOKBACK) &&                                                                   \
    (!defined(CLSCAN_TEST_WRONG_LOOKBACK_WG) || CLSCAN_TEST_WRONG_LOOKBACK_WG == CLSCAN_WG)
#define CLSCAN_FORGET_PREDECESSORS 1
#else
#define CLSCAN_FORGET_PREDECESSORS 0
#endif

#include "group_scan.cl"
#include "tile_io.cl"

// 1: 64-bit status words (32-bit tag, 32-bit payload), needs cl_khr_int64_base_atomics.
// 0: 32-bit status words (16-bit tag, 16-bit payload), needs only 32-bit global atomics.
#ifndef CLSCAN_WIDE_STATUS
#define CLSCAN_WIDE_STATUS 0
#endif
// Predecessors examined at once during look-back, one per work-item.
#ifndef CLSCAN_LOOKBACK
#define CLSCAN_LOOKBACK 32
#endif
// 1: look-back reads status words with plain volatile loads, which every GPU and CPU performs as one
// access for an aligned word of this size; cheaper than read-modify-write atomics, which serialize
// when many work-groups look at the same word. 0: reads are atomic_add(p, 0).
#ifndef CLSCAN_PLAIN_STATUS_READS
#define CLSCAN_PLAIN_STATUS_READS 1
#endif
// 1: each work-item reduces its run from global memory and reads it again to scan it (CPUs, where a
// run is one cache-friendly stream); 0: the tile lives in local memory (GPUs, see load_local_tile).
#ifndef CLSCAN_REREAD
#define CLSCAN_REREAD 0
#endif
// Look-back rounds without news from the nearest unresolved predecessor before falling back to
// reducing its tile directly. 0 (only for testing the fallback path: CLSCAN_SPIN_LIMIT=0 in the
// environment) falls back at once on every predecessor without reading what it published, and out
// of place also ignores a prefix published while the reduction ran, so that every work-group
// reduces all of its predecessors' tiles whatever the timing.
#ifndef CLSCAN_SPIN_LIMIT
#define CLSCAN_SPIN_LIMIT 1024
#endif
// take_published (see take_fallback) for a call that may run in place, from its src and dst: with the
// spin limit 0, a published prefix wins over the reduction only in place, where a predecessor's input
// may already hold its output once its prefix is published.
#if CLSCAN_SPIN_LIMIT == 0
#define CLSCAN_TAKE_PUBLISHED(src, dst) ((const global void*)(src) == (const global void*)(dst))
#else
#define CLSCAN_TAKE_PUBLISHED(src, dst) 1
#endif

// 1: a tile's exclusive prefix is the same combination of the tiles' totals whatever the timing
// (options::deterministic for floating-point scans), and no tile waits for another tile's prefix.
// Tiles are grouped in a fixed tree of radix 16: a group of level k + 1 is 16 consecutive groups of
// level k, and a group of level 0 is one tile. The total of a group (its 16 parts combined in order)
// is published by the group's last tile as soon as the parts are published; the parts do not depend
// on anything before the group, so the longest chain of waits is one per level, not one per tile.
// A tile's prefix is the seed, then for each level from the top the totals of the groups of that
// level that lie before the tile inside its parent group, combined in order: at most 15 per level,
// fewer than 16 * 8 reads for any tile index. A group that stays silent is computed here from the
// published totals of its parts, or from the input (the fallback, which gives a tile the same bits as
// the tile itself; see reduce_run). 0: the look-back above, which combines what it finds nearest first.
#ifndef CLSCAN_FIXED_ORDER
#define CLSCAN_FIXED_ORDER 0
#endif

// 1: status words are published with release stores and read with acquire loads at device scope
// (OpenCL C 2.0, or 3.0 with __opencl_c_atomic_order_acq_rel and __opencl_c_atomic_scope_device; the
// host passes the matching -cl-std). 0: the OpenCL 1.2 protocol, atomic writes and volatile (or
// atomic) reads ordered by fences, which every OpenCL 1.2 GPU and CPU honours but the 1.2 memory
// model does not promise between work-groups.
#ifndef CLSCAN_ACQ_REL
#define CLSCAN_ACQ_REL 0
#endif

#if CLSCAN_WIDE_STATUS
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
typedef ulong status_t;
#define CLSCAN_PAYLOAD_BITS 32
#else
typedef uint status_t;
#define CLSCAN_PAYLOAD_BITS 16
#endif

#if CLSCAN_ACQ_REL
#if CLSCAN_WIDE_STATUS
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
typedef atomic_ulong atomic_status_t;
#else
typedef atomic_uint atomic_status_t;
#endif
#define CLSCAN_STATUS_WRITE(p, v)                                                                            \
  atomic_store_explicit((volatile global atomic_status_t*)(p), (v), memory_order_release, memory_scope_device)
#define CLSCAN_STATUS_READ(p)                                                                                \
  atomic_load_explicit((volatile global atomic_status_t*)(p), memory_order_acquire, memory_scope_device)
#else
#if CLSCAN_WIDE_STATUS
#define CLSCAN_ATOMIC_READ(p) atom_add((volatile global status_t*)(p), (status_t)0)
#define CLSCAN_STATUS_WRITE(p, v) atom_xchg((volatile global status_t*)(p), (v))
#else
#define CLSCAN_ATOMIC_READ(p) atomic_add((volatile global status_t*)(p), (status_t)0)
#define CLSCAN_STATUS_WRITE(p, v) atomic_xchg((volatile global status_t*)(p), (v))
#endif
#if CLSCAN_PLAIN_STATUS_READS
#define CLSCAN_STATUS_READ(p) (*(volatile global status_t*)(p))
#else
#define CLSCAN_STATUS_READ(p) CLSCAN_ATOMIC_READ(p)
#endif
#endif
#define CLSCAN_PAYLOAD_MASK ((((status_t)1) << CLSCAN_PAYLOAD_BITS) - 1)

#if CLSCAN_CARRY_SIZE == 8
typedef ulong carry_bits_t;
#else
typedef uint carry_bits_t;
#endif
// Words of one slot: the carry's value, split into payloads, and with CLSCAN_CARRY_FLAGGED one more
// word for its flag.
#define CLSCAN_VALUE_WORDS (CLSCAN_CARRY_SIZE * 8 / CLSCAN_PAYLOAD_BITS)
#if CLSCAN_CARRY_FLAGGED
#define CLSCAN_WORDS (CLSCAN_VALUE_WORDS + 1)
#define CLSCAN_CARRY_VALUE(c) ((c).value)
#else
#define CLSCAN_WORDS CLSCAN_VALUE_WORDS
#define CLSCAN_CARRY_VALUE(c) (c)
#endif

#if CLSCAN_LOOKBACK > CLSCAN_WG
#undef CLSCAN_LOOKBACK
#define CLSCAN_LOOKBACK CLSCAN_WG
#endif
// Predecessors whose peeked status work-item 0 loads together when it combines them (take_news); 1
// where the window is not a multiple of it. 4 where the tile lives in local memory (GPUs, measured on
// an H200); 1 where each work-item streams its run (CPUs: on PoCL 3.1, 4 took the 2^20 int scan from
// a median 1.14 of a same-process copy to 0.94; docs/PERFORMANCE.md, "Defaults").
#ifndef CLSCAN_TAKE_CHUNK
#if CLSCAN_REREAD
#define CLSCAN_TAKE_CHUNK 1
#else
#define CLSCAN_TAKE_CHUNK 4
#endif
#endif
#if CLSCAN_LOOKBACK % CLSCAN_TAKE_CHUNK != 0
#undef CLSCAN_TAKE_CHUNK
#define CLSCAN_TAKE_CHUNK 1
#endif

// Slot layout: word 0 holds the ticket counter; tile t has its aggregate slot at
// 1 + t * 2 * CLSCAN_WORDS and its inclusive-prefix slot right after it.
inline global status_t* aggregate_slot(global status_t* status, ulong tile) {
  return status + 1 + tile * 2 * CLSCAN_WORDS;
}
inline global status_t* prefix_slot(global status_t* status, ulong tile) {
  return aggregate_slot(status, tile) + CLSCAN_WORDS;
}

inline void publish(global status_t* slot, uint tag, carry_t value) {
  const carry_bits_t bits = CLSCAN_CARRY_TO_BITS(CLSCAN_CARRY_VALUE(value));
  for (int w = 0; w < CLSCAN_VALUE_WORDS; ++w) {
    const status_t payload = (status_t)(bits >> (w * CLSCAN_PAYLOAD_BITS)) & CLSCAN_PAYLOAD_MASK;
    CLSCAN_STATUS_WRITE(slot + w, ((status_t)tag << CLSCAN_PAYLOAD_BITS) | payload);
  }
#if CLSCAN_CARRY_FLAGGED
  CLSCAN_STATUS_WRITE(slot + CLSCAN_VALUE_WORDS,
                      ((status_t)tag << CLSCAN_PAYLOAD_BITS) | (status_t)(value.flag != 0));
#endif
}

// 1 and the value when every word of the slot carries `tag`, else 0.
inline int decode(const status_t* words, uint tag, carry_t* value) {
  carry_bits_t bits = 0;
  for (int w = 0; w < CLSCAN_WORDS; ++w)
    if ((uint)(words[w] >> CLSCAN_PAYLOAD_BITS) != tag) return 0;
  for (int w = 0; w < CLSCAN_VALUE_WORDS; ++w)
    bits |= (carry_bits_t)(words[w] & CLSCAN_PAYLOAD_MASK) << (w * CLSCAN_PAYLOAD_BITS);
  CLSCAN_CARRY_VALUE(*value) = CLSCAN_CARRY_FROM_BITS(bits);
#if CLSCAN_CARRY_FLAGGED
  value->flag = (uint)(words[CLSCAN_VALUE_WORDS] & CLSCAN_PAYLOAD_MASK);
#endif
  return 1;
}

inline int try_read(global status_t* slot, uint tag, carry_t* value) {
  status_t words[CLSCAN_WORDS];
  for (int w = 0; w < CLSCAN_WORDS; ++w)
    words[w] = CLSCAN_STATUS_READ(slot + w);
  return decode(words, tag, value);
}

#define CLSCAN_NOTHING 0
#define CLSCAN_AGGREGATE 1
#define CLSCAN_PREFIX 2

// What tile `tile` has published: CLSCAN_PREFIX, CLSCAN_AGGREGATE or CLSCAN_NOTHING. Both slots are
// read before either is examined, so the two reads overlap.
inline int read_status(global status_t* status, ulong tile, uint tag, carry_t* value) {
  global status_t* slots = aggregate_slot(status, tile);
  status_t words[2 * CLSCAN_WORDS];
  for (int w = 0; w < 2 * CLSCAN_WORDS; ++w)
    words[w] = CLSCAN_STATUS_READ(slots + w);
  if (decode(words + CLSCAN_WORDS, tag, value)) return CLSCAN_PREFIX;
  if (decode(words, tag, value)) return CLSCAN_AGGREGATE;
  return CLSCAN_NOTHING;
}

#if CLSCAN_FIXED_ORDER
// The fixed tree's radix is 16, and 8 levels hold every 32-bit tile index.
#define CLSCAN_RADIX_BITS 4
#define CLSCAN_RADIX (1 << CLSCAN_RADIX_BITS)
#define CLSCAN_TREE_LEVELS 8
#define CLSCAN_TREE_SLOTS (CLSCAN_TREE_LEVELS * CLSCAN_RADIX)
#endif

// The local memory of one work-group's walk (tile_exclusive_prefix): what the look-back work-items
// read, and what work-item 0 decided from it.
typedef struct {
#if CLSCAN_FIXED_ORDER
  carry_t slot_value[CLSCAN_TREE_SLOTS]; // what a round read: level k's j-th total at k * 16 + j
  uchar slot_present[CLSCAN_TREE_SLOTS];
  int present[CLSCAN_TREE_LEVELS];       // per level: how many of the totals the tile needs were published
  carry_t level_sum[CLSCAN_TREE_LEVELS]; // per level: those totals combined in order, once all were
  uint levels_done;                      // bit k: level_sum[k] is complete
  int seen;                              // totals seen published so far (news for the bounded wait)
  int rounds_without_news;
  carry_t own_total; // the total of the largest group that this tile ends and that is known so far
  int own_level;     // that group's level
  int found_level;   // fallback: the level of a published group found, or -1
  carry_t shared_value;
#else
  int peek_kind[CLSCAN_LOOKBACK];
  carry_t peek_value[CLSCAN_LOOKBACK];
  long next;
#endif
  int state;
  carry_t prefix;
} lookback_locals;

// What a round of the walk decided.
#define CLSCAN_LOOK_ON 0   // go on looking back
#define CLSCAN_LOOK_DONE 1 // everything before the tile is known
#define CLSCAN_FALL_BACK 2 // compute what stays silent here

#if !CLSCAN_FIXED_ORDER
// The steps of one look-back round, between the work-group barriers of tile_exclusive_prefix.
//
// 1. Work-items below CLSCAN_LOOKBACK each read what predecessor next - lid has published.
CLSCAN_LOCAL_FN void peek_predecessors(global status_t* status, uint tag, long next,
                                       local lookback_locals* lb) {
  const uint lid = (uint)get_local_id(0);
  if (lid >= CLSCAN_LOOKBACK) return;
  const long p = next - (long)lid;
  int kind = CLSCAN_NOTHING;
  carry_t value = CLSCAN_CARRY_IDENTITY;
  if (p >= 0) kind = read_status(status, (ulong)p, tag, &value);
  lb->peek_kind[lid] = kind;
  lb->peek_value[lid] = value;
}

// 2. Work-item 0 combines, nearest first, what was peeked in front of `behind` (the tiles
// [next + 1, tile)) up to the first inclusive prefix: the new `behind` and nearest predecessor not yet
// combined. Falls back after CLSCAN_SPIN_LIMIT rounds without news.
CLSCAN_LOCAL_FN int take_news(long next, carry_t behind, int* rounds_without_news,
                              local const lookback_locals* lb, long* next_out,
                              carry_t* behind_out CLSCAN_USER_PARAMS) {
  int state = CLSCAN_LOOK_ON;
  int taken = 0;
  carry_t acc = behind;
  // A chunk's kinds and values are loaded before any is examined, so that their local-memory
  // latencies overlap. One predecessor at a time, this loop of work-item 0 was the longest step of a
  // round, with the whole work-group waiting at the barrier behind it and every successor waiting for
  // the prefix it publishes (docs/PERFORMANCE.md, "Defaults": 4 per chunk took int from 0.82 to 0.86
  // of a copy at 2^28 on an H200).
  for (int first = 0; first < CLSCAN_LOOKBACK; first += CLSCAN_TAKE_CHUNK) {
    int kinds[CLSCAN_TAKE_CHUNK];
    carry_t values[CLSCAN_TAKE_CHUNK];
#pragma unroll
    for (int j = 0; j < CLSCAN_TAKE_CHUNK; ++j) {
      kinds[j] = lb->peek_kind[first + j];
      values[j] = lb->peek_value[first + j];
    }
    int ended = 0;
#pragma unroll
    for (int j = 0; j < CLSCAN_TAKE_CHUNK; ++j) {
      if (!ended) {
        if (next - (first + j) < 0 || kinds[j] == CLSCAN_NOTHING) {
          ended = 1;
        } else {
          acc = carry_combine(values[j], acc CLSCAN_USER_ARGS);
          ++taken;
          if (kinds[j] == CLSCAN_PREFIX) {
            state = CLSCAN_LOOK_DONE;
            ended = 1;
          }
        }
      }
    }
    if (ended) break;
  }
  *rounds_without_news = taken ? 0 : *rounds_without_news + 1;
  if (state == CLSCAN_LOOK_ON && *rounds_without_news > CLSCAN_SPIN_LIMIT) state = CLSCAN_FALL_BACK;
#if CLSCAN_SPIN_LIMIT == 0
  state = CLSCAN_FALL_BACK;
  taken = 0;
  acc = behind;
#endif
  *next_out = next - taken;
  *behind_out = acc;
  return state;
}

// 3. After the work-group reduced silent predecessor `next` itself (`reduced`), work-item 0 combines
// it in, unless a prefix that predecessor published meanwhile is to win (take_published: in place, its
// input may already hold its output once it has published). Returns CLSCAN_LOOK_DONE or _ON.
CLSCAN_LOCAL_FN int take_fallback(global status_t* status, uint tag, long next, carry_t behind,
                                  carry_t reduced, carry_t seed, int take_published,
                                  carry_t* behind_out CLSCAN_USER_PARAMS) {
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  carry_t published;
  if (take_published && try_read(prefix_slot(status, (ulong)next), tag, &published)) {
    *behind_out = carry_combine(published, behind CLSCAN_USER_ARGS);
    return CLSCAN_LOOK_DONE;
  }
  *behind_out = carry_combine(reduced, behind CLSCAN_USER_ARGS);
  if (next != 0) return CLSCAN_LOOK_ON;
  *behind_out = carry_combine(seed, *behind_out CLSCAN_USER_ARGS);
  return CLSCAN_LOOK_DONE;
}

#endif // !CLSCAN_FIXED_ORDER

// Sets every status word to 0 (untagged), the ticket counter included. A kernel rather than
// clEnqueueFillBuffer so that memory checkers such as Oclgrind see the words as initialized.
kernel void clear_status(global status_t* status, ulong words CLSCAN_USER_PARAMS) {
  for (ulong i = get_global_id(0); i < words; i += get_global_size(0))
    status[i] = 0;
}

// The tile's place in line: the next ticket, so that tiles are handed out in the order work-groups
// start (OpenCL does not launch work-groups in order, so get_group_id() says nothing about who runs
// first). Every work-item must call.
CLSCAN_LOCAL_FN ulong claim_tile(global status_t* status, uint ticket_base, local uint* shared_tile) {
  if (get_local_id(0) == 0) *shared_tile = atomic_inc((volatile global uint*)status) - ticket_base;
  group_barrier(CLK_LOCAL_MEM_FENCE);
  return *shared_tile;
}

#if !CLSCAN_FIXED_ORDER
// The walk: publishes tile `tile`'s total (when `publishes`: a successor will read it), walks back
// over its predecessors until an inclusive prefix, reducing any predecessor that stays silent itself
// with tile_aggregate() (which the algorithm defines before including this file, with its inputs as
// the parameters CLSCAN_INPUT_PARAMS), and publishes the tile's inclusive prefix. `seed` goes in
// front of tile 0. Every work-item must call; when it returns, lb->prefix holds everything before
// the tile, seed included. (Read from local memory after the last barrier: a private copy kept
// across it made the compiled single-pass kernel crash on PoCL 3.1 in the fallback path,
// CLSCAN_SPIN_LIMIT=0, tests/reliability/faults_lookback.cpp.)
CLSCAN_LOCAL_FN void tile_exclusive_prefix(global status_t* status, uint tag, ulong tile, carry_t tile_total,
                                           carry_t seed, int publishes, int take_published,
                                           local lookback_locals* lb, local carry_t* scratch,
                                           CLSCAN_INPUT_PARAMS CLSCAN_USER_PARAMS) {
  const uint lid = (uint)get_local_id(0);
#ifdef CLSCAN_TEST_SILENT_TILE
  // Tests only: this tile never publishes, as if its work-group were never scheduled, so that its
  // successor's bounded wait runs out and it reduces the tile itself (tests/reliability/faults_lookback.cpp;
  // out of place only, since in place the silent tile's output overwrites the input the successor reads).
  if (tile == CLSCAN_TEST_SILENT_TILE) publishes = 0;
#endif
  if (tile == 0) {
    if (lid == 0) {
      if (publishes) publish(prefix_slot(status, 0), tag, carry_combine(seed, tile_total CLSCAN_USER_ARGS));
      lb->prefix = seed;
    }
  } else {
    if (lid == 0 && publishes) publish(aggregate_slot(status, tile), tag, tile_total);
    // `behind` combines the tiles [next + 1, tile) in order; every work-item keeps the same copy,
    // updated from local memory.
    carry_t behind = CLSCAN_CARRY_IDENTITY;
    long next = (long)tile - 1; // nearest predecessor not yet combined
    int rounds_without_news = 0;
    for (;;) {
      peek_predecessors(status, tag, next, lb);
      group_barrier(CLK_LOCAL_MEM_FENCE);
      if (lid == 0) {
        long nearest;
        carry_t combined;
        lb->state = take_news(next, behind, &rounds_without_news, lb, &nearest, &combined CLSCAN_USER_ARGS);
        lb->next = nearest;
        lb->prefix = combined;
      }
      group_barrier(CLK_LOCAL_MEM_FENCE);
      const int state = lb->state;
      next = lb->next;
      behind = lb->prefix;
      if (state == CLSCAN_LOOK_DONE) break;
      if (state == CLSCAN_FALL_BACK) {
        // Nobody has published tile `next` for a long time: reduce it here.
        const carry_t reduced = tile_aggregate((ulong)next, scratch, CLSCAN_INPUT_ARGS CLSCAN_USER_ARGS);
        if (lid == 0) {
          carry_t combined;
          lb->state = take_fallback(status, tag, next, behind, reduced, seed, take_published,
                                    &combined CLSCAN_USER_ARGS);
          lb->prefix = combined;
          rounds_without_news = 0;
        }
        group_barrier(CLK_LOCAL_MEM_FENCE);
        behind = lb->prefix;
        next -= 1;
        if (lb->state == CLSCAN_LOOK_DONE) break;
        group_barrier(CLK_LOCAL_MEM_FENCE); // lb->state is rewritten by the next round
      }
    }
#if CLSCAN_FORGET_PREDECESSORS
    // Tests only: every tile but the first forgets its predecessors, as on a device whose look-back
    // read stale words, so that the qualification has a wrong kernel to catch on every device
    // (tests/cmake/qualify_check.cmake); with CLSCAN_TEST_WRONG_LOOKBACK_WG=w only in work-groups of
    // w work-items, so that one launch shape fails and another qualifies, as on llvmpipe
    // (tests/reliability/first_call.cpp).
    if (lid == 0) lb->prefix = seed;
#endif
    // lb->prefix now holds everything before this tile, seed included.
    if (lid == 0 && publishes) {
      publish(prefix_slot(status, tile), tag, carry_combine(lb->prefix, tile_total CLSCAN_USER_ARGS));
      mem_fence(CLK_GLOBAL_MEM_FENCE);
    }
  }
  group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

#else // CLSCAN_FIXED_ORDER

// Where the total of group `group` of level `level` lives: for level 0 (a tile) its aggregate slot; for
// level k > 0 the inclusive-prefix slot of tile group * 16^k + k - 1, which lies inside the group and
// differs for every level and group (this walk publishes no inclusive prefixes).
inline global status_t* group_total_slot(global status_t* status, int level, ulong group) {
  return level == 0 ? aggregate_slot(status, group)
                    : prefix_slot(status, (group << (CLSCAN_RADIX_BITS * level)) + (ulong)(level - 1));
}

// How many groups of `level` lie before the tile inside its group of level + 1.
inline uint tree_digit(ulong tile, int level) {
  return (uint)(tile >> (CLSCAN_RADIX_BITS * level)) & (CLSCAN_RADIX - 1);
}

// The levels that have groups before the tile: its digits up to the highest non-zero one.
inline int tree_levels(ulong tile) {
  int levels = 0;
  while (levels < CLSCAN_TREE_LEVELS && (tile >> (CLSCAN_RADIX_BITS * levels)) != 0)
    ++levels;
  return levels;
}

// The first of the groups of `level` before the tile inside its group of level + 1.
inline ulong first_before(ulong tile, int level) {
  return (tile >> (CLSCAN_RADIX_BITS * level)) - tree_digit(tile, level);
}

// One round of reads: every total the tile still waits for is read by a work-item of its own, so
// that the reads are in flight together and each work-item holds one slot's words (a work-item per
// level that loaded its 15 slots at once needed 128 registers on the H200, against 80 for the
// kernel otherwise: two work-groups fewer per compute unit). Then a work-item per level combines its
// level's totals in order once all were published. Every work-item must call.
CLSCAN_LOCAL_FN void read_levels(global status_t* status, uint tag, ulong tile, int levels,
                                 local lookback_locals* lb CLSCAN_USER_PARAMS) {
  const uint lid = (uint)get_local_id(0);
  const uint done = lb->levels_done;
  // Slots of 16 per level (the 16th unused): a shift and a mask rather than a division by 15, whose
  // compiled form Oclgrind does not run (LLVM's `freeze`).
  for (int s = (int)lid; s < levels * CLSCAN_RADIX; s += CLSCAN_WG) {
    const int level = s >> CLSCAN_RADIX_BITS;
    const uint j = (uint)s & (CLSCAN_RADIX - 1);
    if (!((done >> level) & 1) && j < tree_digit(tile, level)) {
      carry_t value = CLSCAN_CARRY_IDENTITY;
      lb->slot_present[s] =
          (uchar)try_read(group_total_slot(status, level, first_before(tile, level) + j), tag, &value);
      lb->slot_value[s] = value;
    }
  }
  group_barrier(CLK_LOCAL_MEM_FENCE);
  for (int level = (int)lid; level < levels; level += CLSCAN_WG) {
    if ((done >> level) & 1) continue;
    const uint digit = tree_digit(tile, level);
    local const carry_t* values = lb->slot_value + level * CLSCAN_RADIX;
    local const uchar* present = lb->slot_present + level * CLSCAN_RADIX;
    int count = 0;
    carry_t sum = CLSCAN_CARRY_IDENTITY;
    for (uint j = 0; j < digit; ++j) {
      count += present[j];
      sum = j == 0 ? values[0] : carry_combine(sum, values[j] CLSCAN_USER_ARGS);
    }
    lb->present[level] = count;
    if (count == (int)digit) lb->level_sum[level] = sum;
  }
}

// The total of tile `tile` reduced here from its input by the whole work-group (every work-item must
// call; all get the same value), unless `read_published` and the tile published its total meanwhile:
// in place, its input may already hold its output once it has published.
CLSCAN_LOCAL_FN carry_t reduce_silent_tile(global status_t* status, uint tag, ulong tile, int read_published,
                                           local lookback_locals* lb, local carry_t* scratch,
                                           CLSCAN_INPUT_PARAMS CLSCAN_USER_PARAMS) {
  const carry_t reduced = tile_aggregate(tile, scratch, CLSCAN_INPUT_ARGS CLSCAN_USER_ARGS);
  if (get_local_id(0) == 0) {
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    carry_t published;
    lb->shared_value =
        read_published && try_read(aggregate_slot(status, tile), tag, &published) ? published : reduced;
  }
  group_barrier(CLK_LOCAL_MEM_FENCE);
  const carry_t total = lb->shared_value;
  group_barrier(CLK_LOCAL_MEM_FENCE); // lb->shared_value is written again
  return total;
}

// The total of group `group` of `level` computed here by the whole work-group (every work-item must
// call; all get the same value), in the order in which the group's last tile combines it: its 16
// parts in order, each taken as published (when `read_published`) or computed from its own parts,
// down to tiles reduced from their input. Walks the group's tiles, taking at each the largest
// published group that starts there; acc[m] combines the parts of level m gathered so far.
CLSCAN_LOCAL_FN carry_t silent_group_total(global status_t* status, uint tag, int level, ulong group,
                                           int read_published, local lookback_locals* lb,
                                           local carry_t* scratch, CLSCAN_INPUT_PARAMS CLSCAN_USER_PARAMS) {
  carry_t acc[CLSCAN_TREE_LEVELS];
  uint parts[CLSCAN_TREE_LEVELS];
  for (int m = 0; m < level; ++m)
    parts[m] = 0;
  ulong tile = group << (CLSCAN_RADIX_BITS * level);
  carry_t total = CLSCAN_CARRY_IDENTITY;
  int complete = 0;
  while (!complete) {
    if (get_local_id(0) == 0) {
      int found_level = -1;
      carry_t value = CLSCAN_CARRY_IDENTITY;
      for (int m = level; read_published && m >= 0 && found_level < 0; --m)
        if ((tile & ((1ul << (CLSCAN_RADIX_BITS * m)) - 1)) == 0 &&
            try_read(group_total_slot(status, m, tile >> (CLSCAN_RADIX_BITS * m)), tag, &value))
          found_level = m;
      lb->found_level = found_level;
      lb->shared_value = value;
    }
    group_barrier(CLK_LOCAL_MEM_FENCE);
    int m = lb->found_level;
    carry_t value = lb->shared_value;
    group_barrier(CLK_LOCAL_MEM_FENCE); // both are written again
    if (m < 0) {
      value = reduce_silent_tile(status, tag, tile, read_published, lb, scratch,
                                 CLSCAN_INPUT_ARGS CLSCAN_USER_ARGS);
      m = 0;
    }
    tile += 1ul << (CLSCAN_RADIX_BITS * m);
    // A complete group of level m is one part of level m + 1.
    while (m < level) {
      acc[m] = parts[m] == 0 ? value : carry_combine(acc[m], value CLSCAN_USER_ARGS);
      if (++parts[m] < CLSCAN_RADIX) break;
      parts[m] = 0;
      value = acc[m];
      ++m;
    }
    if (m == level) {
      total = value;
      complete = 1;
    }
  }
  return total;
}

// Work-item 0, after a round of reads: takes the levels now complete, publishes the totals of the
// groups this tile ends once they are known, and decides whether the walk is done, goes on, or falls
// back (after CLSCAN_SPIN_LIMIT rounds without news).
CLSCAN_LOCAL_FN int take_levels(global status_t* status, uint tag, ulong tile, int levels, int publishes,
                                local lookback_locals* lb CLSCAN_USER_PARAMS) {
  uint done = lb->levels_done;
  int seen = 0;
  for (int k = 0; k < levels; ++k) {
    const int digit = (int)tree_digit(tile, k);
#if CLSCAN_SPIN_LIMIT > 0
    if (!((done >> k) & 1) && lb->present[k] == digit) done |= 1u << k;
#endif
    seen += (done >> k) & 1 ? digit : lb->present[k];
  }
  lb->levels_done = done;
  // The tile ends the group of level k + 1 when its digits 0..k are all 15: that group's total is
  // the level-k groups before the tile combined in order, then the tile's own group of level k.
  while (lb->own_level < levels && tree_digit(tile, lb->own_level) == CLSCAN_RADIX - 1 &&
         ((done >> lb->own_level) & 1)) {
    lb->own_total = carry_combine(lb->level_sum[lb->own_level], lb->own_total CLSCAN_USER_ARGS);
    const int level = ++lb->own_level;
    if (publishes)
      publish(group_total_slot(status, level, tile >> (CLSCAN_RADIX_BITS * level)), tag, lb->own_total);
  }
  if (done == (1u << levels) - 1) return CLSCAN_LOOK_DONE;
  lb->rounds_without_news = seen > lb->seen ? 0 : lb->rounds_without_news + 1;
  lb->seen = seen;
  return lb->rounds_without_news > CLSCAN_SPIN_LIMIT ? CLSCAN_FALL_BACK : CLSCAN_LOOK_ON;
}

// The same signature and start as the walk above, which it replaces under CLSCAN_FIXED_ORDER.
// The walk with a fixed order of combination (see CLSCAN_FIXED_ORDER): publishes tile `tile`'s total
// (when `publishes`), waits for the totals of the groups before it, publishing those of the groups it
// ends as they become known, computes those that stay silent itself (reading their published parts
// when `take_published`), and combines the seed and the levels' totals from the top. Every work-item
// must call; when it returns, lb->prefix holds everything before the tile, seed included.
CLSCAN_LOCAL_FN void tile_exclusive_prefix(global status_t* status, uint tag, ulong tile, carry_t tile_total,
                                           carry_t seed, int publishes, int take_published,
                                           local lookback_locals* lb, local carry_t* scratch,
                                           CLSCAN_INPUT_PARAMS CLSCAN_USER_PARAMS) {
  const uint lid = (uint)get_local_id(0);
#ifdef CLSCAN_TEST_SILENT_TILE
  if (tile == CLSCAN_TEST_SILENT_TILE) publishes = 0; // see the walk above
#endif
  const int levels = tree_levels(tile);
  if (lid == 0) {
    if (publishes) publish(aggregate_slot(status, tile), tag, tile_total);
    lb->levels_done = 0;
    lb->seen = 0;
    lb->rounds_without_news = 0;
    lb->own_total = tile_total;
    lb->own_level = 0;
  }
  group_barrier(CLK_LOCAL_MEM_FENCE);
  for (;;) {
#if CLSCAN_SPIN_LIMIT > 0
    read_levels(status, tag, tile, levels, lb CLSCAN_USER_ARGS);
#else
    for (int k = (int)lid; k < levels; k += CLSCAN_WG)
      lb->present[k] = 0; // CLSCAN_SPIN_LIMIT=0 (tests): compute every level below
#endif
    group_barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) lb->state = take_levels(status, tag, tile, levels, publishes, lb CLSCAN_USER_ARGS);
    group_barrier(CLK_LOCAL_MEM_FENCE);
    const int state = lb->state;
    if (state == CLSCAN_LOOK_DONE) break;
    if (state == CLSCAN_FALL_BACK) {
      // Nothing new for a long time: compute every missing level here.
      const uint done = lb->levels_done;
      group_barrier(CLK_LOCAL_MEM_FENCE); // lb->levels_done is written below
      for (int k = 0; k < levels; ++k) {
        if ((done >> k) & 1) continue;
        const uint digit = tree_digit(tile, k);
        const ulong first = first_before(tile, k);
        carry_t sum = CLSCAN_CARRY_IDENTITY;
        for (uint j = 0; j < digit; ++j) {
          const carry_t value = silent_group_total(status, tag, k, first + j, take_published, lb, scratch,
                                                   CLSCAN_INPUT_ARGS CLSCAN_USER_ARGS);
          sum = j == 0 ? value : carry_combine(sum, value CLSCAN_USER_ARGS);
        }
        if (lid == 0) {
          lb->level_sum[k] = sum;
          lb->levels_done |= 1u << k;
        }
      }
      if (lid == 0) lb->rounds_without_news = 0;
      group_barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  if (lid == 0) {
    // A loop over every level rather than down from `levels`: Mesa's llvmpipe (rusticl) ran the loop
    // from levels - 1 once only in work-groups narrower than its SIMD width, dropping level 0.
    carry_t prefix = seed;
    for (int k = CLSCAN_TREE_LEVELS - 1; k >= 0; --k)
      if (k < levels && tree_digit(tile, k) != 0)
        prefix = carry_combine(prefix, lb->level_sum[k] CLSCAN_USER_ARGS);
#if CLSCAN_FORGET_PREDECESSORS
    prefix = seed; // see the walk above
#endif
    lb->prefix = prefix;
  }
  group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

#endif // CLSCAN_FIXED_ORDER

#endif // CLSCAN_TILE_PREFIX_CL
