// Single-pass scan: chained scan with decoupled look-back and decoupled fallback.
//
// Each work-group takes the next tile index from a global ticket counter (OpenCL does not launch
// work-groups in order, so get_group_id() says nothing about who runs first), scans its tile, and
// publishes its tile total (the "aggregate"). It then walks back over its predecessors: a published
// inclusive prefix ends the walk; an aggregate is combined in and the walk goes on. A predecessor that
// has published nothing after a bounded wait is not waited for any longer: the work-group reduces that
// tile's input itself (decoupled fallback), so no work-group ever depends on another one making
// progress. Finally the work-group publishes its own inclusive prefix and writes its output.
//
// Status words carry an epoch tag beside their payload, so a word from an earlier launch is never
// mistaken for a current one and the status array needs no clearing between launches. Aggregates and
// prefixes have separate slots, each written once per launch, so an element wider than one payload
// is split over several words without tearing: a reader takes a slot only when every word carries the
// current tag.

#include "scan_common.cl"

// 1: 64-bit status words (32-bit tag, 32-bit payload), needs cl_khr_int64_base_atomics.
// 0: 32-bit status words (16-bit tag, 16-bit payload), needs only 32-bit global atomics.
#ifndef CLSCAN_WIDE_STATUS
#define CLSCAN_WIDE_STATUS 0
#endif
// Bytes per element (set by the host with the element type).
#ifndef CLSCAN_ELEM_SIZE
#define CLSCAN_ELEM_SIZE 4
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
#define CLSCAN_WORDS (CLSCAN_ELEM_SIZE * 8 / CLSCAN_PAYLOAD_BITS)

#if CLSCAN_ELEM_SIZE == 8
typedef ulong bits_t;
#define CLSCAN_TO_BITS(x) as_ulong(x)
#define CLSCAN_FROM_BITS(x) CLSCAN_CAT(as_, CLSCAN_T)(x)
#else
typedef uint bits_t;
#define CLSCAN_TO_BITS(x) as_uint(x)
#define CLSCAN_FROM_BITS(x) CLSCAN_CAT(as_, CLSCAN_T)(x)
#endif

#if CLSCAN_LOOKBACK > CLSCAN_WG
#undef CLSCAN_LOOKBACK
#define CLSCAN_LOOKBACK CLSCAN_WG
#endif

// Slot layout: word 0 holds the ticket counter; tile t has its aggregate slot at
// 1 + t * 2 * CLSCAN_WORDS and its inclusive-prefix slot right after it.
inline global status_t* aggregate_slot(global status_t* status, ulong tile) {
  return status + 1 + tile * 2 * CLSCAN_WORDS;
}
inline global status_t* prefix_slot(global status_t* status, ulong tile) {
  return aggregate_slot(status, tile) + CLSCAN_WORDS;
}

inline void publish(global status_t* slot, uint tag, elem_t value) {
  const bits_t bits = CLSCAN_TO_BITS(value);
  for (int w = 0; w < CLSCAN_WORDS; ++w) {
    const status_t payload = (status_t)(bits >> (w * CLSCAN_PAYLOAD_BITS)) & CLSCAN_PAYLOAD_MASK;
    CLSCAN_STATUS_WRITE(slot + w, ((status_t)tag << CLSCAN_PAYLOAD_BITS) | payload);
  }
}

// 1 and the value when every word of the slot carries `tag`, else 0.
inline int decode(const status_t* words, uint tag, elem_t* value) {
  bits_t bits = 0;
  for (int w = 0; w < CLSCAN_WORDS; ++w) {
    if ((uint)(words[w] >> CLSCAN_PAYLOAD_BITS) != tag) return 0;
    bits |= (bits_t)(words[w] & CLSCAN_PAYLOAD_MASK) << (w * CLSCAN_PAYLOAD_BITS);
  }
  *value = CLSCAN_FROM_BITS(bits);
  return 1;
}

inline int try_read(global status_t* slot, uint tag, elem_t* value) {
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
inline int read_status(global status_t* status, ulong tile, uint tag, elem_t* value) {
  global status_t* slots = aggregate_slot(status, tile);
  status_t words[2 * CLSCAN_WORDS];
  for (int w = 0; w < 2 * CLSCAN_WORDS; ++w)
    words[w] = CLSCAN_STATUS_READ(slots + w);
  if (decode(words + CLSCAN_WORDS, tag, value)) return CLSCAN_PREFIX;
  if (decode(words, tag, value)) return CLSCAN_AGGREGATE;
  return CLSCAN_NOTHING;
}

// Reduces tile `tile` of src[0, n) with the whole work-group; every work-item must call.
// Reads each work-item's run straight from global memory: the fallback is rare, and an element array
// here would cost registers on the common path too.
inline elem_t reduce_tile(const global elem_t* src, ulong n, ulong tile, local elem_t* scratch) {
  const elem_t run_total = reduce_run(src, tile * CLSCAN_TILE + get_local_id(0) * CLSCAN_ITEMS, n);
  elem_t total;
  group_exclusive_scan(run_total, scratch, &total);
  return total;
}

// Sets every status word to 0 (untagged), the ticket counter included. A kernel rather than
// clEnqueueFillBuffer so that memory checkers such as Oclgrind see the words as initialized.
kernel void clear_status(global status_t* status, ulong words) {
  for (ulong i = get_global_id(0); i < words; i += get_global_size(0))
    status[i] = 0;
}

// src/dst point at the user's buffers plus their offsets in elements. status is the workspace's status
// array (word 0: ticket counter). Tiles get indices ticket - ticket_base in the order work-groups
// start. tag is this launch's epoch (never 0). seed is combined in front of everything (the identity
// unless the caller gave an initial value).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
scan_single_pass(const global elem_t* src, ulong src_offset, global elem_t* dst, ulong dst_offset, ulong n,
                 global status_t* status, uint ticket_base, uint tag, int exclusive, elem_t seed) {
  local elem_t scratch[CLSCAN_SCRATCH_SIZE];
  local int peek_kind[CLSCAN_LOOKBACK];
  local elem_t peek_value[CLSCAN_LOOKBACK];
  local uint shared_tile;
  local int shared_state; // 0: go on looking back, 1: done, 2: fall back on the nearest predecessor
  local long shared_next;
  local elem_t shared_prefix;
#if !CLSCAN_REREAD
  local vec_t tile_elements[CLSCAN_TILE_VECTORS];
#endif

  const uint lid = (uint)get_local_id(0);
  src += src_offset;
  dst += dst_offset;
#if CLSCAN_SPIN_LIMIT == 0
  // In place, a predecessor's input may already hold its output once its prefix is published, so a
  // published prefix must win over the reduction (see the fallback below).
  const int take_published = src == dst;
#else
  const int take_published = 1;
#endif

  if (lid == 0) shared_tile = atomic_inc((volatile global uint*)status) - ticket_base;
  group_barrier(CLK_LOCAL_MEM_FENCE);
  const ulong tile = shared_tile;

  const ulong tile_first = tile * CLSCAN_TILE;
  // The last tile has no successor to read what it publishes.
  const int has_successor = tile_first + CLSCAN_TILE < n;
#ifdef CLSCAN_TEST_SILENT_TILE
  // Tests only: this tile never publishes, as if its work-group were never scheduled, so that its
  // successor's bounded wait runs out and it reduces the tile itself (tests/test_faults.cpp; out of
  // place only, since in place the silent tile's output overwrites the input the successor reads).
  const int publishes = has_successor && tile != CLSCAN_TEST_SILENT_TILE;
#else
  const int publishes = has_successor;
#endif
#if CLSCAN_REREAD
  // With one work-item per tile, only a successor needs the tile's total: the last tile (the only one
  // of a small scan) skips that reading pass.
  const elem_t run_total = (CLSCAN_WG == 1 && !has_successor)
                               ? CLSCAN_IDENTITY
                               : reduce_run(src, tile_first + lid * CLSCAN_ITEMS, n);
#else
  load_local_tile(src, tile_first, n, tile_elements);
  const elem_t run_total = reduce_local_run(tile_elements);
#endif
  elem_t tile_total;
  const elem_t item_prefix = group_exclusive_scan(run_total, scratch, &tile_total);

  if (tile == 0) {
    if (lid == 0) {
      if (publishes) publish(prefix_slot(status, 0), tag, combine(seed, tile_total));
      shared_prefix = seed;
    }
  } else {
    if (lid == 0 && publishes) publish(aggregate_slot(status, tile), tag, tile_total);

    // Walk back. `behind` combines the tiles [next + 1, tile) in order; every work-item keeps the
    // same copy, updated from local memory.
    elem_t behind = CLSCAN_IDENTITY;
    long next = (long)tile - 1; // nearest predecessor not yet combined
    int rounds_without_news = 0;
    for (;;) {
      if (lid < CLSCAN_LOOKBACK) {
        const long p = next - (long)lid;
        int kind = CLSCAN_NOTHING;
        elem_t value = CLSCAN_IDENTITY;
        if (p >= 0) kind = read_status(status, (ulong)p, tag, &value);
        peek_kind[lid] = kind;
        peek_value[lid] = value;
      }
      group_barrier(CLK_LOCAL_MEM_FENCE);
      if (lid == 0) {
        int state = 0;
        int taken = 0;
        elem_t acc = behind;
        while (taken < CLSCAN_LOOKBACK && next - taken >= 0 && peek_kind[taken] != CLSCAN_NOTHING) {
          acc = combine(peek_value[taken], acc);
          if (peek_kind[taken++] == CLSCAN_PREFIX) {
            state = 1;
            break;
          }
        }
        rounds_without_news = taken ? 0 : rounds_without_news + 1;
        if (state == 0 && rounds_without_news > CLSCAN_SPIN_LIMIT) state = 2;
#if CLSCAN_SPIN_LIMIT == 0
        state = 2;
        taken = 0;
        acc = behind;
#endif
        shared_state = state;
        shared_next = next - taken;
        shared_prefix = acc;
      }
      group_barrier(CLK_LOCAL_MEM_FENCE);
      const int state = shared_state;
      next = shared_next;
      behind = shared_prefix;
      if (state == 1) break;
      if (state == 2) {
        // Nobody has published tile `next` for a long time: reduce it here. Its output may already
        // be written over its input (in place) only after its prefix was published, so a prefix seen
        // after the reduction wins over the reduction.
        const elem_t reduced = reduce_tile(src, n, (ulong)next, scratch);
        if (lid == 0) {
          mem_fence(CLK_GLOBAL_MEM_FENCE);
          elem_t published;
          if (take_published && try_read(prefix_slot(status, (ulong)next), tag, &published)) {
            shared_prefix = combine(published, behind);
            shared_state = 1;
          } else {
            shared_prefix = combine(reduced, behind);
            shared_state = next == 0 ? 1 : 0;
            if (next == 0) shared_prefix = combine(seed, shared_prefix);
          }
          rounds_without_news = 0;
        }
        group_barrier(CLK_LOCAL_MEM_FENCE);
        behind = shared_prefix;
        next -= 1;
        if (shared_state == 1) break;
        group_barrier(CLK_LOCAL_MEM_FENCE); // shared_state is rewritten by the next round
      }
    }
#ifdef CLSCAN_TEST_WRONG_LOOKBACK
    // Tests only: every tile but the first forgets its predecessors, as on a device whose look-back
    // read stale words, so that the qualification has a wrong kernel to catch on every device
    // (tests/qualify_check.cmake).
    if (lid == 0) shared_prefix = seed;
#endif
    // behind now holds everything before this tile, seed included.
    if (lid == 0 && publishes) {
      publish(prefix_slot(status, tile), tag, combine(behind, tile_total));
      mem_fence(CLK_GLOBAL_MEM_FENCE);
    }
  }
  group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

#if CLSCAN_REREAD
  scan_run(src, dst, tile_first + lid * CLSCAN_ITEMS, n, combine(shared_prefix, item_prefix), exclusive);
#else
  scan_local_run(tile_elements, combine(shared_prefix, item_prefix), exclusive);
  store_local_tile(dst, tile_first, n, tile_elements);
#endif
}
