// The decoupled look-back of the single-pass scan: status words, publishing a tile's aggregate or
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

#include "group_scan.cl"
#include "tile_io.cl"

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

// The three steps of one look-back round, between the work-group barriers of the kernel's loop
// (kernels/single_pass.cl), which keeps the loop and the local variables the steps share.
//
// 1. Work-items below CLSCAN_LOOKBACK each read what predecessor next - lid has published.
inline void peek_predecessors(global status_t* status, uint tag, long next, local int* peek_kind,
                              local elem_t* peek_value) {
  const uint lid = (uint)get_local_id(0);
  if (lid >= CLSCAN_LOOKBACK) return;
  const long p = next - (long)lid;
  int kind = CLSCAN_NOTHING;
  elem_t value = CLSCAN_IDENTITY;
  if (p >= 0) kind = read_status(status, (ulong)p, tag, &value);
  peek_kind[lid] = kind;
  peek_value[lid] = value;
}

#define CLSCAN_LOOK_ON 0   // go on looking back
#define CLSCAN_LOOK_DONE 1 // an inclusive prefix was reached
#define CLSCAN_FALL_BACK 2 // reduce predecessor *next_out here

// 2. Work-item 0 combines, nearest first, what was peeked in front of `behind` (the tiles
// [next + 1, tile)) up to the first inclusive prefix: the new `behind` and nearest predecessor not yet
// combined. Falls back after CLSCAN_SPIN_LIMIT rounds without news.
inline int take_news(long next, elem_t behind, int* rounds_without_news, local const int* peek_kind,
                     local const elem_t* peek_value, long* next_out, elem_t* behind_out) {
  int state = CLSCAN_LOOK_ON;
  int taken = 0;
  elem_t acc = behind;
  while (taken < CLSCAN_LOOKBACK && next - taken >= 0 && peek_kind[taken] != CLSCAN_NOTHING) {
    acc = combine(peek_value[taken], acc);
    if (peek_kind[taken++] == CLSCAN_PREFIX) {
      state = CLSCAN_LOOK_DONE;
      break;
    }
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
inline int take_fallback(global status_t* status, uint tag, long next, elem_t behind, elem_t reduced,
                         elem_t seed, int take_published, elem_t* behind_out) {
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  elem_t published;
  if (take_published && try_read(prefix_slot(status, (ulong)next), tag, &published)) {
    *behind_out = combine(published, behind);
    return CLSCAN_LOOK_DONE;
  }
  *behind_out = combine(reduced, behind);
  if (next != 0) return CLSCAN_LOOK_ON;
  *behind_out = combine(seed, *behind_out);
  return CLSCAN_LOOK_DONE;
}

#endif // CLSCAN_TILE_PREFIX_CL
