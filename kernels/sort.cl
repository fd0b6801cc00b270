// The portable radix sort (lib/algorithms/sort.cpp): per 8-bit digit pass, count each tile's digits,
// scan the tile-by-digit counts, and scatter each tile's keys, ranked stably in local memory. Works
// on any OpenCL 1.2 device: local atomics only, no assumption about the order work-groups run in.
//
// Keys travel as their own bits (CLSCAN_T: uint or ulong, so double keys need no fp64) and are
// turned into an order-preserving unsigned image only where a digit is taken, so the output holds
// the input's bits. Values travel as bits too (CLSCAN_SORT_VALUE_SIZE 4 or 8; 0: none).
//
// Defines from the library: CLSCAN_T, CLSCAN_ELEM_SIZE, CLSCAN_WG, CLSCAN_ITEMS, CLSCAN_SORT_KEY_KIND
// (0 unsigned, 1 signed, 2 floating point), CLSCAN_SORT_VALUE_SIZE, CLSCAN_SORT_WIDE (offsets as
// ulong: n may reach 2^32).

#ifndef CLSCAN_WG
#define CLSCAN_WG 64
#endif
#ifndef CLSCAN_ITEMS
#define CLSCAN_ITEMS 16
#endif
#ifndef CLSCAN_SORT_KEY_KIND
#define CLSCAN_SORT_KEY_KIND 0
#endif
#ifndef CLSCAN_SORT_VALUE_SIZE
#define CLSCAN_SORT_VALUE_SIZE 0
#endif
#ifndef CLSCAN_SORT_WIDE
#define CLSCAN_SORT_WIDE 0
#endif
#ifndef CLSCAN_SORT_RANK_MATCH
#define CLSCAN_SORT_RANK_MATCH 0
#endif
// 1: the one-pass kernel, where it ranks in warps, reads its keys straight into the registers it ranks
// them from (load_counted_warp_keys); 0: through local memory in input order (load_counted_tile). 0
// by default: 1 has run under the emulated warps (sort-warp-ranking-emulated), not yet on NVIDIA.
#ifndef CLSCAN_SORT_WARP_LOAD
#define CLSCAN_SORT_WARP_LOAD 0
#endif
#define SORT_LOAD_IN_WARPS (CLSCAN_SORT_RANK_MATCH && CLSCAN_SORT_WARP_LOAD)

#define SORT_TILE (CLSCAN_WG * CLSCAN_ITEMS)
#define SORT_RADIX 256
// Rank rounds of 4 bits: 16 counters per work-item, of 16 bits, two to a word (bins b and b + 8).
#define SORT_ROUND_BINS 16
#define SORT_ROUND_WORDS (SORT_ROUND_BINS / 2)
// The rank counters' words (8 per work-item, one spare every 32; COUNTER_PAD).
#define SORT_COUNTERS (SORT_ROUND_WORDS * CLSCAN_WG + SORT_ROUND_WORDS * CLSCAN_WG / 32)
#if SORT_TILE > 65535
#error "a tile's positions and rank counters are 16-bit: at most 65535 keys a tile"
#endif
// sort_scatter's local indexing (see there).
#define KEY_PAD(j) ((j) + ((j) >> 4))
#define COUNTER_PAD(j) ((j) + ((j) >> 5))
#define NO_PAD(j) (j)

#if CLSCAN_ELEM_SIZE == 8
typedef ulong key_bits;
#define SORT_SIGN 0x8000000000000000UL
#define SORT_EXPONENT 0x7FF0000000000000UL
#define SORT_ONES 0xFFFFFFFFFFFFFFFFUL
#else
typedef uint key_bits;
#define SORT_SIGN 0x80000000U
#define SORT_EXPONENT 0x7F800000U
#define SORT_ONES 0xFFFFFFFFU
#endif

#if CLSCAN_SORT_VALUE_SIZE == 8
typedef ulong value_bits;
#else
typedef uint value_bits;
#endif

#if CLSCAN_SORT_WIDE
typedef ulong offset_t;
#else
typedef uint offset_t;
#endif

// The order-preserving unsigned image of a key (sort.hpp): NaN all ones in both directions.
inline key_bits key_image(key_bits b, uint descending) {
#if CLSCAN_SORT_KEY_KIND == 2
  if ((b & ~SORT_SIGN) > SORT_EXPONENT) return SORT_ONES;
  if (b == SORT_SIGN) b = 0; // -0.0 == +0.0
  b = (b & SORT_SIGN) ? ~b : (b | SORT_SIGN);
#elif CLSCAN_SORT_KEY_KIND == 1
  b ^= SORT_SIGN;
#endif
  return descending ? ~b : b;
}

inline uint digit_of(key_bits b, uint descending, uint shift, uint mask) {
  return (uint)(key_image(b, descending) >> shift) & mask;
}

// Keys a work-item of sort_histogram loads before it counts them (their loads in flight together). On
// the H100 (2026-11-27, bench/profile/sort_kernels.cpp --define, 2^24 uint keys) 1 took 80 µs, 2 59,
// 4 49, 8 42. One where a work-group is one work-item (CPUs), whose cache streams the keys in.
#ifndef CLSCAN_SORT_HISTOGRAM_LOADS
#if CLSCAN_WG == 1
#define CLSCAN_SORT_HISTOGRAM_LOADS 1
#else
#define CLSCAN_SORT_HISTOGRAM_LOADS 8
#endif
#endif

// Counts the digits of every pass of one key's image in counts[pass][digit].
inline void count_digits(local uint* counts, key_bits image, uint begin_bit, uint passes, uint end_bit) {
  // A constant trip count: Mesa's llvmpipe (rusticl, LLVM 15) miscompiled this loop bounded by
  // `passes`, and sort_histogram's copy-out loop then wrote only its first counter.
  for (uint p = 0; p < 8; ++p) {
    if (p >= passes) break;
    const uint shift = begin_bit + 8 * p;
    const uint bits = min(8U, end_bit - shift);
#if CLSCAN_WG == 1
    ++counts[p * SORT_RADIX + ((uint)(image >> shift) & ((1U << bits) - 1))];
#else
    atomic_inc(&counts[p * SORT_RADIX + ((uint)(image >> shift) & ((1U << bits) - 1))]);
#endif
  }
}

// Reads every key once and counts the digits of every pass (at most 8), per work-group over
// `tiles_per_group` tiles. The host keeps each group's share below 2^32. Where every count fits 32 bits
// (n < 2^32), the work-groups add their counts into partials[pass][digit] (sort_clear_histograms), so
// that sort_histogram_total reads one histogram per pass instead of summing one per work-group (that
// sum took 19.8 µs for 2^24 keys in 528 work-groups on an H100, 2026-11-27); else
// partials[group][pass][digit].
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
sort_histogram(const global key_bits* keys, ulong keys_offset, ulong n, ulong tiles_per_group,
               global uint* partials, uint descending, uint begin_bit, uint passes, uint end_bit) {
  local uint counts[8 * SORT_RADIX];
  const uint lid = get_local_id(0);
  for (uint i = lid; i < passes * SORT_RADIX; i += CLSCAN_WG)
    counts[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

  const ulong first = get_group_id(0) * tiles_per_group * SORT_TILE;
  const ulong last = min(n, first + tiles_per_group * SORT_TILE);
  keys += keys_offset;
  const ulong stride = CLSCAN_SORT_HISTOGRAM_LOADS * CLSCAN_WG;
  ulong i = first + lid;
  for (; i + (stride - CLSCAN_WG) < last; i += stride) {
    key_bits images[CLSCAN_SORT_HISTOGRAM_LOADS];
    for (uint u = 0; u < CLSCAN_SORT_HISTOGRAM_LOADS; ++u)
      images[u] = key_image(keys[i + u * CLSCAN_WG], descending);
    for (uint u = 0; u < CLSCAN_SORT_HISTOGRAM_LOADS; ++u)
      count_digits(counts, images[u], begin_bit, passes, end_bit);
  }
  for (; i < last; i += CLSCAN_WG)
    count_digits(counts, key_image(keys[i], descending), begin_bit, passes, end_bit);
  barrier(CLK_LOCAL_MEM_FENCE);
#if CLSCAN_SORT_WIDE
  global uint* mine = partials + get_group_id(0) * passes * SORT_RADIX;
  for (uint i = lid; i < passes * SORT_RADIX; i += CLSCAN_WG)
    mine[i] = counts[i];
#else
  for (uint i = lid; i < passes * SORT_RADIX; i += CLSCAN_WG)
    if (counts[i]) atomic_add(&partials[i], counts[i]);
#endif
}

// Zeroes the first `count` words of histograms (one work-group), which sort_histogram then adds into.
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
sort_clear_histograms(global uint* histograms, uint count) {
  for (uint i = get_local_id(0); i < count; i += CLSCAN_WG)
    histograms[i] = 0;
}

// Work-group p, one per pass: sums pass p's partial histograms of `groups` work-groups (1 where
// sort_histogram added them up itself), marks the pass if one digit holds all n keys (trivial[p] = 1:
// the pass only copies), and writes its exclusive digit offsets (digit_offsets[p][digit], may be null).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
sort_histogram_total(const global uint* partials, uint groups, uint passes, ulong n, global uint* trivial,
                     global offset_t* digit_offsets) {
  local uint any;
  local offset_t totals[SORT_RADIX];
  const uint lid = get_local_id(0), p = get_group_id(0);
  if (lid == 0) any = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG) {
    ulong total = 0;
    for (uint g = 0; g < groups; ++g)
      total += partials[((ulong)g * passes + p) * SORT_RADIX + d];
    if (total == n) any = 1; // one digit at most: a single writer
    totals[d] = (offset_t)total;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    if (digit_offsets) {
      offset_t sum = 0;
      for (uint d = 0; d < SORT_RADIX; ++d) {
        digit_offsets[p * SORT_RADIX + d] = sum;
        sum += totals[d];
      }
    }
    trivial[p] = any;
  }
}

// Counts the digits of one tile: counts[digit * tiles + tile]. Nothing in a trivial pass.
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
sort_count(const global key_bits* keys, ulong keys_offset, ulong n, ulong tiles, global uint* counts,
           const global uint* trivial, uint pass, uint descending, uint shift, uint mask) {
  if (trivial[pass]) return;
  local uint hist[SORT_RADIX];
  const uint lid = get_local_id(0);
  for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG)
    hist[d] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong tile = get_group_id(0);
  const ulong first = tile * SORT_TILE;
  const uint count = (uint)min((ulong)SORT_TILE, n - first);
  keys += keys_offset + first;
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint j = k * CLSCAN_WG + lid;
    if (j >= count) break;
#if CLSCAN_WG == 1
    ++hist[digit_of(keys[j], descending, shift, mask)];
#else
    atomic_inc(&hist[digit_of(keys[j], descending, shift, mask)]);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG)
    counts[d * tiles + tile] = hist[d];
}

// Defines `name`: the exclusive scan, in place, of the work-group's `per` * CLSCAN_WG values of `type`
// at `values`, in order (work-item t owns values [t * per, (t + 1) * per)), value j stored at
// values[pad(j)], starting from `base`.
// Returns the sum of them all; `values` is visible to every work-item and `sums` free again on return.
#define DEFINE_GROUP_EXCLUSIVE_SCAN(name, type, per, pad)                                                    \
  inline type name(local type* values, local type* sums, type base) {                                        \
    const uint lid = get_local_id(0);                                                                        \
    const uint mine = lid * (per);                                                                           \
    type sum = 0;                                                                                            \
    for (uint k = 0; k < (per); ++k)                                                                         \
      sum += values[pad(mine + k)];                                                                          \
    sums[lid] = sum;                                                                                         \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                            \
    for (uint step = 1; step < CLSCAN_WG; step <<= 1) {                                                      \
      const type below = lid >= step ? sums[lid - step] : 0;                                                 \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                          \
      sums[lid] += below;                                                                                    \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                          \
    }                                                                                                        \
    type running = base + sums[lid] - sum;                                                                   \
    for (uint k = 0; k < (per); ++k) {                                                                       \
      const type c = values[pad(mine + k)];                                                                  \
      values[pad(mine + k)] = running;                                                                       \
      running += c;                                                                                          \
    }                                                                                                        \
    const type total = sums[CLSCAN_WG - 1];                                                                  \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                            \
    return total;                                                                                            \
  }

// sort_scan_counts' chunks of a tile's size, and sort_scatter's rank counters (8 words per work-item).
DEFINE_GROUP_EXCLUSIVE_SCAN(scan_chunk, offset_t, CLSCAN_ITEMS, NO_PAD)
DEFINE_GROUP_EXCLUSIVE_SCAN(scan_round_counters, uint, SORT_ROUND_WORDS, COUNTER_PAD)

#if CLSCAN_WG > 1
// The sum of `value` over the work-group, in every work-item (any work-group size). `sums` is free again
// when it returns.
inline offset_t group_sum(local offset_t* sums, offset_t value) {
  const uint lid = get_local_id(0);
  sums[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint step = 1; step < CLSCAN_WG; step <<= 1) {
    if (lid % (2 * step) == 0 && lid + step < CLSCAN_WG) sums[lid] += sums[lid + step];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const offset_t total = sums[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return total;
}
#endif

// The tile-by-digit counts (digit-major: tiles * SORT_RADIX of them) are scanned in two launches over
// segments of `segment` counts, one per work-group, so that the work is spread over the device
// whatever n is: each segment's total, then each segment's scan from the totals of the segments
// before it. offsets[digit * tiles + tile] is then where that tile's keys of that digit go.

// Work-group g: segment_totals[g] = the sum of counts [g * segment, (g + 1) * segment). Nothing in a
// trivial pass.
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
sort_count_totals(const global uint* counts, ulong total, ulong segment, global offset_t* segment_totals,
                  const global uint* trivial, uint pass) {
  if (trivial[pass]) return;
  const ulong first = get_group_id(0) * segment;
  const ulong last = min(total, first + segment);
  offset_t sum = 0;
  for (ulong i = first + get_local_id(0); i < last; i += CLSCAN_WG)
    sum += counts[i];
#if CLSCAN_WG > 1
  local offset_t sums[CLSCAN_WG];
  sum = group_sum(sums, sum);
#endif
  if (get_local_id(0) == 0) segment_totals[get_group_id(0)] = sum;
}

// Work-group g: offsets[i] = counts[0] + ... + counts[i - 1] for i in its segment, from the totals of
// the segments before it and its own counts, in chunks of a tile's size read and written in coalesced
// order. Nothing in a trivial pass.
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
sort_scan_counts(const global uint* counts, global offset_t* offsets, ulong total, ulong segment,
                 const global offset_t* segment_totals, const global uint* trivial, uint pass) {
  if (trivial[pass]) return;
  const uint group = get_group_id(0);
  const ulong first = group * segment;
  const ulong last = min(total, first + segment);
#if CLSCAN_WG == 1
  offset_t carry = 0;
  for (uint g = 0; g < group; ++g)
    carry += segment_totals[g];
  for (ulong i = first; i < last; ++i) {
    const offset_t c = counts[i];
    offsets[i] = carry;
    carry += c;
  }
#else
  local offset_t chunk[SORT_TILE];
  local offset_t sums[CLSCAN_WG];
  const uint lid = get_local_id(0);
  offset_t before = 0;
  for (uint g = lid; g < group; g += CLSCAN_WG)
    before += segment_totals[g];
  offset_t carry = group_sum(sums, before);
  for (ulong start = first; start < last; start += SORT_TILE) {
    const uint count = (uint)min((ulong)SORT_TILE, last - start);
    for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
      const uint j = k * CLSCAN_WG + lid;
      chunk[j] = j < count ? (offset_t)counts[start + j] : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    carry += scan_chunk(chunk, sums, carry);
    for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
      const uint j = k * CLSCAN_WG + lid;
      if (j < count) offsets[start + j] = chunk[j];
    }
    // The next chunk overwrites chunk and sums only once every work-item has read them.
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
}

// Copies tile `first` (count keys from src, which points at the tile) in its order: keys only where
// write_keys is set, as for a copy that puts an in-place input aside. Values as in sort_scatter.
inline void copy_tile(const global key_bits* src, global key_bits* dst, const global value_bits* values_src,
                      global value_bits* values_dst, ulong first, uint count, uint write_keys,
                      uint values_mode) {
  const uint lid = get_local_id(0);
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint j = k * CLSCAN_WG + lid;
    if (j >= count) break;
    if (write_keys) dst[first + j] = src[j];
#if CLSCAN_SORT_VALUE_SIZE
    if (values_mode == 1) values_dst[first + j] = values_src[j];
    if (values_mode == 2) values_dst[first + j] = (value_bits)(first + j);
#else
    (void)values_src;
    (void)values_dst;
    (void)values_mode;
#endif
  }
}

#if CLSCAN_WG > 1
#if CLSCAN_SORT_VALUE_SIZE
#define SORT_POSITIONS_PARAM , local ushort* positions
#define SORT_POSITIONS_ARG , positions
#else
#define SORT_POSITIONS_PARAM
#define SORT_POSITIONS_ARG
#endif

// Ranks the tile's count keys (src points at the tile) stably by digit in local memory: on return
// exchange[KEY_PAD(j)] holds the tile's j-th key in digit order and, where values move,
// positions[KEY_PAD(j)] its position in the tile; visible to every work-item.
//
// Two stable rounds of 4-bit splits (low nibble, then high): in each round a work-item takes the
// CLSCAN_ITEMS consecutive keys of the tile's current order that it owns, counts their nibbles, and
// writes each key to its slot in the round's output order. Keys (and, where values move, their tile
// positions) travel through local memory, so the tile is read from global memory once and written in
// digit runs. Local arrays are indexed through PAD: one spare word every 16 (keys) or 32 (counters), so
// that a work-item's consecutive entries and the work-group's strided ones fall in different banks.
//
// load_tile is its first half (the tile read into exchange in input order, visible to every work-item
// on return), rank_loaded the rest.
inline void load_tile(const global key_bits* src, uint count, local key_bits* exchange) {
  const uint lid = get_local_id(0);
  // Positions past the input hold zeros: they are ranked (last) but never written out. An if, not a
  // conditional expression: PoCL 3.1 loaded src[j] of `j < count ? src[j] : 0` past the tile's end
  // too (a crash at n = 2 under CLSCAN_DEVICE_LIMITS=gpu).
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint j = k * CLSCAN_WG + lid;
    key_bits key = 0;
    if (j < count) key = src[j];
    exchange[KEY_PAD(j)] = key;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// load_tile that also counts the tile's keys of each digit in counts (zeroed, and a barrier passed
// since): from the loaded registers, with no second read of the tile. On an H100 (2026-11-27, 2^24
// uint keys, 384 x 20) a separate counting loop over the loaded tile took 11 % of the one-pass kernel's
// warp-stall samples.
inline void load_counted_tile(const global key_bits* src, uint count, local key_bits* exchange,
                              local uint* counts, uint descending, uint shift, uint mask) {
  const uint lid = get_local_id(0);
  key_bits keys[CLSCAN_ITEMS];
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint j = k * CLSCAN_WG + lid;
    keys[k] = 0;
    if (j < count) keys[k] = src[j];
  }
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint j = k * CLSCAN_WG + lid;
    exchange[KEY_PAD(j)] = keys[k];
    if (j < count) atomic_inc(&counts[digit_of(keys[k], descending, shift, mask)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

#if CLSCAN_SORT_RANK_MATCH
// Ranking in warps (NVIDIA, inline PTX; the host defines CLSCAN_SORT_RANK_MATCH only where the device
// builds it): all 8 bits in one round. Warp w ranks the tile's keys [w * 32 * ITEMS, (w + 1) * 32 *
// ITEMS), 32 at a time in tile order: the lanes holding a digit find each other (match.any, or 8
// ballots with CLSCAN_SORT_RANK_MATCH=2), each reads the warp's counter of that digit and adds the
// lanes below it with its digit, and the lowest of them adds their number to the counter. Then the
// warps' counters are scanned per digit, and the digits' totals across the digits. (The highest peer
// reading and bumping the counter alone, the others taking its old value by a shuffle, made the
// one-pass kernel 2 % slower on an H100: docs/data/runs/h200-2026-11-27-sort-shapes.)
#define SORT_WARP 32
#if CLSCAN_WG % SORT_WARP
#error "CLSCAN_SORT_RANK_MATCH ranks in warps of 32 work-items: the work-group must be a multiple of 32"
#endif
#if SORT_COUNTERS < SORT_RADIX * (CLSCAN_WG / SORT_WARP)
#error "CLSCAN_SORT_RANK_MATCH keeps 256 counters per warp in the rank counters"
#endif

#if CLSCAN_SORT_RANK_MATCH == 3
// CLSCAN_SORT_RANK_MATCH=3 (tests: sort-warp-ranking-emulated, tests/CMakeLists.txt): the same ranking
// on any device, each warp instruction emulated with work-group barriers and local memory (lanes: a
// word per work-item, free while the ranking loop runs). Every work-item calls these at the same
// points, as the ranking's warps do.
inline uint warp_peers(uint digit, local uint* lanes) {
  const uint lid = get_local_id(0), first_lane = lid - lid % SORT_WARP;
  lanes[lid] = digit;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint peers = 0;
  for (uint lane = 0; lane < SORT_WARP; ++lane)
    peers |= (lanes[first_lane + lane] == digit ? 1U : 0U) << lane;
  // lanes is written again only once every work-item has read it.
  barrier(CLK_LOCAL_MEM_FENCE);
  return peers;
}

inline uint warp_lanes_below(void) { return (1U << (get_local_id(0) % SORT_WARP)) - 1U; }

inline void warp_sync(void) { barrier(CLK_LOCAL_MEM_FENCE); }
#else
inline uint warp_peers(uint digit, local uint* lanes) {
  (void)lanes;
  uint peers;
#if CLSCAN_SORT_RANK_MATCH == 1
  asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(peers) : "r"(digit));
#else
  peers = 0xFFFFFFFFU;
  for (uint bit = 0; bit < 8; ++bit) {
    uint set;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, 0xffffffff;\n\t}"
                 : "=r"(set)
                 : "r"(digit & (1U << bit)));
    peers &= (digit & (1U << bit)) ? set : ~set;
  }
#endif
  return peers;
}

inline uint warp_lanes_below(void) {
  uint lanes;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lanes));
  return lanes;
}

inline uint warp_read_up(uint value, uint delta) {
  uint read;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(read) : "r"(value), "r"(delta));
  return read;
}

inline void warp_sync(void) { asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); }
#endif // CLSCAN_SORT_RANK_MATCH == 3

// Positions past the input take the last digit: they are last in the tile already, so they rank last.
inline uint rank_digit(key_bits key, uint j, uint count, uint descending, uint shift, uint mask) {
  return j < count ? digit_of(key, descending, shift, mask) : SORT_RADIX - 1;
}

// The tile position of a work-item's k-th key in the warps' ranking: its warp's first key, its lane,
// then 32 keys on for each k.
inline uint warp_key_position(uint k) {
  const uint lid = get_local_id(0);
  return lid / SORT_WARP * SORT_WARP * CLSCAN_ITEMS + lid % SORT_WARP + k * SORT_WARP;
}

// load_counted_tile for the ranking in warps: each work-item reads the keys it ranks
// (warp_key_position; a warp's reads are 32 consecutive keys) into keys[] and counts their digits in
// counts, so that the tile does not pass through local memory in its input order first.
inline void load_counted_warp_keys(const global key_bits* src, uint count, key_bits* keys, local uint* counts,
                                   uint descending, uint shift, uint mask) {
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint j = warp_key_position(k);
    keys[k] = 0;
    if (j < count) keys[k] = src[j];
  }
  for (uint k = 0; k < CLSCAN_ITEMS; ++k)
    if (warp_key_position(k) < count) atomic_inc(&counts[digit_of(keys[k], descending, shift, mask)]);
  barrier(CLK_LOCAL_MEM_FENCE);
}

// rank_loaded of the keys each work-item holds (keys[k] at tile position warp_key_position(k)).
inline void rank_keys(const key_bits* keys, uint count, local key_bits* exchange SORT_POSITIONS_PARAM,
                      local uint* counters, local uint* sums, uint descending, uint shift, uint mask) {
  const uint lid = get_local_id(0), lane = lid % SORT_WARP, warp = lid / SORT_WARP;
  local uint* const warp_counts = counters + warp * SORT_RADIX;
  for (uint d = lane; d < SORT_RADIX; d += SORT_WARP)
    warp_counts[d] = 0;
  const uint first = warp_key_position(0);
  // A key's digit is computed again where it is needed rather than kept: 32 more live registers per
  // work-item spilled and halved the work-groups an SM holds.
  uint ranks[CLSCAN_ITEMS];
  warp_sync();
  const uint lanes_below = warp_lanes_below();
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint digit = rank_digit(keys[k], first + k * SORT_WARP, count, descending, shift, mask);
    const uint peers = warp_peers(digit, sums);
    const uint before = warp_counts[digit];
    warp_sync();
    const uint below = popcount(peers & lanes_below);
    if (below == 0) warp_counts[digit] = before + popcount(peers);
    ranks[k] = before + below;
    warp_sync();
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG) {
    uint total = 0;
    for (uint w = 0; w < CLSCAN_WG / SORT_WARP; ++w) {
      const uint c = counters[w * SORT_RADIX + d];
      counters[w * SORT_RADIX + d] = total;
      total += c;
    }
    sums[d] = total;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#if CLSCAN_SORT_RANK_MATCH == 3
  // The digits' totals scanned by one work-item (warp 0's shuffles need no barrier, their emulation
  // would).
  if (lid == 0) {
    uint running = 0;
    for (uint d = 0; d < SORT_RADIX; ++d) {
      const uint total = sums[d];
      sums[d] = running;
      running += total;
    }
  }
#else
  if (warp == 0) {
    uint digit_totals[SORT_RADIX / SORT_WARP];
    uint sum = 0;
    for (uint q = 0; q < SORT_RADIX / SORT_WARP; ++q) {
      digit_totals[q] = sums[lane * (SORT_RADIX / SORT_WARP) + q];
      sum += digit_totals[q];
    }
    uint running = sum;
    for (uint delta = 1; delta < SORT_WARP; delta <<= 1) {
      const uint below = warp_read_up(running, delta);
      if (lane >= delta) running += below;
    }
    running -= sum;
    for (uint q = 0; q < SORT_RADIX / SORT_WARP; ++q) {
      sums[lane * (SORT_RADIX / SORT_WARP) + q] = running;
      running += digit_totals[q];
    }
  }
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint digit = rank_digit(keys[k], first + k * SORT_WARP, count, descending, shift, mask);
    const uint slot = sums[digit] + counters[warp * SORT_RADIX + digit] + ranks[k];
    exchange[KEY_PAD(slot)] = keys[k];
#if CLSCAN_SORT_VALUE_SIZE
    positions[KEY_PAD(slot)] = (ushort)(first + k * SORT_WARP);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

inline void rank_loaded(uint count, local key_bits* exchange SORT_POSITIONS_PARAM, local uint* counters,
                        local uint* sums, uint descending, uint shift, uint mask) {
  key_bits keys[CLSCAN_ITEMS];
  for (uint k = 0; k < CLSCAN_ITEMS; ++k)
    keys[k] = exchange[KEY_PAD(warp_key_position(k))];
  // rank_keys writes exchange only after barriers that every work-item reaches once it has read.
  rank_keys(keys, count, exchange SORT_POSITIONS_ARG, counters, sums, descending, shift, mask);
}
#else
inline void rank_loaded(uint count, local key_bits* exchange SORT_POSITIONS_PARAM, local uint* counters,
                        local uint* sums, uint descending, uint shift, uint mask) {
  const uint lid = get_local_id(0);
  const uint own = lid * CLSCAN_ITEMS;
  key_bits keys[CLSCAN_ITEMS];
#if CLSCAN_SORT_VALUE_SIZE
  ushort from[CLSCAN_ITEMS];
#endif
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    keys[k] = exchange[KEY_PAD(own + k)];
#if CLSCAN_SORT_VALUE_SIZE
    from[k] = (ushort)(own + k);
#endif
  }

  for (uint round = 0; round < 2; ++round) {
    const uint round_shift = 4 * round;
    // Positions past the input rank last in every round (nibble 15, after every real key), so they
    // stay the last SORT_TILE - count positions of each round's order.
    uint nibbles[CLSCAN_ITEMS];
    for (uint k = 0; k < CLSCAN_ITEMS; ++k)
      nibbles[k] = own + k < count ? (digit_of(keys[k], descending, shift, mask) >> round_shift) & 15 : 15;
    // Counter of bin b of work-item t in the word at counters[PAD((b % 8) * WG + t)], its low half for
    // bins 0-7 and its high half for bins 8-15. The words scanned in that order scan both halves at
    // once (a half never exceeds the tile's keys, below 2^16); a key's slot is then after every key of
    // a smaller bin and every key of its bin owned by an earlier work-item, counting for bins 8-15 the
    // keys of bins 0-7 (the low halves' total) first. Packed, the counters take half the local memory
    // and half the scan.
    for (uint b = 0; b < SORT_ROUND_WORDS; ++b)
      counters[COUNTER_PAD(b * CLSCAN_WG + lid)] = 0;
    for (uint k = 0; k < CLSCAN_ITEMS; ++k)
      counters[COUNTER_PAD((nibbles[k] & 7) * CLSCAN_WG + lid)] += 1U << ((nibbles[k] >> 3) * 16);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint low_total = scan_round_counters(counters, sums, 0) & 0xFFFF;
    for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
      const uint high = (nibbles[k] >> 3) * 16;
      local uint* const counter = &counters[COUNTER_PAD((nibbles[k] & 7) * CLSCAN_WG + lid)];
      const uint word = *counter;
      *counter = word + (1U << high);
      const uint slot = ((word >> high) & 0xFFFF) + (high ? low_total : 0);
      exchange[KEY_PAD(slot)] = keys[k];
#if CLSCAN_SORT_VALUE_SIZE
      positions[KEY_PAD(slot)] = from[k];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (round == 0) {
      for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
        keys[k] = exchange[KEY_PAD(own + k)];
#if CLSCAN_SORT_VALUE_SIZE
        from[k] = positions[KEY_PAD(own + k)];
#endif
      }
      // The next round's slots overwrite exchange only once every work-item has read its keys.
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
}

#endif // CLSCAN_SORT_RANK_MATCH

inline void rank_tile(const global key_bits* src, uint count, local key_bits* exchange SORT_POSITIONS_PARAM,
                      local uint* counters, local uint* sums, uint descending, uint shift, uint mask) {
  load_tile(src, count, exchange);
  rank_loaded(count, exchange SORT_POSITIONS_ARG, counters, sums, descending, shift, mask);
}

// 1: where a value is no wider than a key, the tile's values are read in their order (coalesced) into
// the ranked keys' local array once the keys are out of it, and each ranked slot takes its value from
// there; 0: each ranked slot reads its value from global memory at its tile position (a gather). On an
// H200 (2026-11-28, one-pass, ranked in warps; clscan-bench --primitive sort_by_key, ratio to a
// same-process copy of the keys) 1 was faster in work-groups of 384: uint pairs 0.041 against 0.038 at
// 2^24, 0.040 against 0.037 at 2^26; ulong keys 0.029 either way. In work-groups of 256 it was slower
// (126 registers against 78). lib/algorithms/sort.cpp defines 1 for work-groups of 384 in warps.
#ifndef CLSCAN_SORT_VALUES_LOCAL
#define CLSCAN_SORT_VALUES_LOCAL 0
#endif
#if CLSCAN_SORT_VALUE_SIZE && CLSCAN_SORT_VALUES_LOCAL && CLSCAN_SORT_VALUE_SIZE <= CLSCAN_ELEM_SIZE
#define SORT_STAGE_VALUES 1
#else
#define SORT_STAGE_VALUES 0
#endif

// Writes the ranked tile (rank_tile; keys[k] holds its position k * CLSCAN_WG + lid) to
// bases[digit] + its position: dst and values_dst point at the outputs' element 0, values_src at the
// tile's values, first is the tile's first input position. Nothing goes past the n outputs, whatever
// the bases: sort_onepass takes its digit offsets from the histogram of the sort's input, and a wrong
// pass before it (a device whose look-back fails, which the qualification keeps off it) would leave
// keys whose digits disagree with them. exchange (the ranked keys' local array) must be free: every
// work-item holds its keys in keys[].
inline void scatter_ranked(const key_bits* keys SORT_POSITIONS_PARAM, uint count, local const offset_t* bases,
                           local key_bits* exchange, global key_bits* dst,
                           const global value_bits* values_src, global value_bits* values_dst, ulong first,
                           ulong n, uint write_keys, uint values_mode, uint descending, uint shift,
                           uint mask) {
  const uint lid = get_local_id(0);
#if SORT_STAGE_VALUES
  local value_bits* const staged = (local value_bits*)exchange;
  if (values_mode == 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
      const uint j = k * CLSCAN_WG + lid;
      if (j < count) staged[KEY_PAD(j)] = values_src[j];
    }
  }
#else
  (void)exchange;
#endif
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint j = k * CLSCAN_WG + lid;
    if (j >= count) break;
    const ulong to = (ulong)(bases[digit_of(keys[k], descending, shift, mask)] + (offset_t)j);
    if (to >= n) continue;
    if (write_keys) dst[to] = keys[k];
#if CLSCAN_SORT_VALUE_SIZE
    const uint at = positions[KEY_PAD(j)];
#if !SORT_STAGE_VALUES
    if (values_mode == 1) values_dst[to] = values_src[at];
#endif
    if (values_mode == 2) values_dst[to] = (value_bits)(first + at);
#else
    (void)values_src;
    (void)values_dst;
    (void)first;
    (void)values_mode;
#endif
  }
#if SORT_STAGE_VALUES
  if (values_mode == 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
      const uint j = k * CLSCAN_WG + lid;
      if (j >= count) break;
      const ulong to = (ulong)(bases[digit_of(keys[k], descending, shift, mask)] + (offset_t)j);
      if (to < n) values_dst[to] = staged[KEY_PAD(positions[KEY_PAD(j)])];
    }
  }
#endif
}
#endif // CLSCAN_WG > 1

// The local memory of rank_tile and the scatter (kernel scope, where OpenCL C declares local arrays):
// the tile's keys and, where values move, their tile positions (one spare entry every 16), the rank
// counters, the counters' scan sums, and each digit's base.
// The counters' scan sums; with CLSCAN_SORT_RANK_MATCH, the digits' starts in the ranked tile.
#if CLSCAN_SORT_RANK_MATCH && CLSCAN_WG < SORT_RADIX
#define SORT_SUMS SORT_RADIX
#else
#define SORT_SUMS CLSCAN_WG
#endif
#if CLSCAN_SORT_VALUE_SIZE
#define SORT_RANK_POSITIONS local ushort positions[SORT_TILE + SORT_TILE / 16];
#else
#define SORT_RANK_POSITIONS
#endif
#define SORT_RANK_STORAGE                                                                                    \
  local key_bits exchange[SORT_TILE + SORT_TILE / 16];                                                       \
  SORT_RANK_POSITIONS                                                                                        \
  local uint counters[SORT_COUNTERS];                                                                        \
  local uint sums[SORT_SUMS];                                                                                \
  local offset_t bases[SORT_RADIX];

// One digit pass over tile get_group_id(0): its keys ranked stably by digit in local memory
// (rank_tile), then written to offsets[digit * tiles + tile] + their rank among the tile's keys of that
// digit. Values move with their keys (values_mode 1) or are the keys' input positions (values_mode 2:
// sorted_order's first pass). In a trivial pass, or with copy set, the tile is copied in its order
// instead (copy_tile).
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
sort_scatter(const global key_bits* src, ulong src_offset, global key_bits* dst, ulong dst_offset,
             const global value_bits* values_src, ulong values_src_offset, global value_bits* values_dst,
             ulong values_dst_offset, ulong n, ulong tiles, const global offset_t* offsets,
             const global uint* trivial, uint pass, uint copy, uint write_keys, uint values_mode,
             uint descending, uint shift, uint mask) {
  const ulong tile = get_group_id(0);
  const ulong first = tile * SORT_TILE;
  const uint count = (uint)min((ulong)SORT_TILE, n - first);
  src += src_offset + first;
  dst += dst_offset;
#if CLSCAN_SORT_VALUE_SIZE
  if (values_src) values_src += values_src_offset + first;
  values_dst += values_dst_offset;
#endif

  if (copy || trivial[pass]) {
    copy_tile(src, dst, values_src, values_dst, first, count, write_keys, values_mode);
    return;
  }

#if CLSCAN_WG == 1
  // One work-item per tile (CPUs): it scatters its keys in input order, which is stable by itself.
  local offset_t next[SORT_RADIX];
  for (uint d = 0; d < SORT_RADIX; ++d)
    next[d] = offsets[d * tiles + tile];
  for (uint j = 0; j < count; ++j) {
    const key_bits key = src[j];
    const ulong to = (ulong)(next[digit_of(key, descending, shift, mask)]++);
    if (write_keys) dst[to] = key;
#if CLSCAN_SORT_VALUE_SIZE
    if (values_mode == 1) values_dst[to] = values_src[j];
    if (values_mode == 2) values_dst[to] = (value_bits)(first + j);
#endif
  }
#else
  SORT_RANK_STORAGE
  rank_tile(src, count, exchange SORT_POSITIONS_ARG, counters, sums, descending, shift, mask);

  // The tile is in digit order now: a digit's run starts where the key before it has another digit.
  // Loops over a tile's positions test each position against count themselves: PoCL 3.1 ran the first
  // round of `for (j = lid; j < count; j += WG)` after the last barrier for every work-item.
  const uint lid = get_local_id(0);
  key_bits keys[CLSCAN_ITEMS];
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint j = k * CLSCAN_WG + lid;
    if (j >= count) break;
    keys[k] = exchange[KEY_PAD(j)];
    const uint d = digit_of(keys[k], descending, shift, mask);
    if (j == 0 || digit_of(exchange[KEY_PAD(j - 1)], descending, shift, mask) != d)
      bases[d] = offsets[d * tiles + tile] - (offset_t)j;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  scatter_ranked(keys SORT_POSITIONS_ARG, count, bases, exchange, dst, values_src, values_dst, first, n,
                 write_keys, values_mode, descending, shift, mask);
#endif
}

#if CLSCAN_SORT_ONE_PASS
// The one-pass digit pass (algorithm::single_pass; lib/algorithms/sort.cpp builds it for work-groups
// of more than one work-item): tiles taken by ticket, ranked as in sort_scatter, and placed through a
// decoupled look-back over (tile, digit) counts, so that no kernel counts the tiles' digits first and
// no tile-by-digit offsets are scanned. The look-back's status words, their tags, the memory-ordering
// recipe and the ticket are those of the single-pass scan (tile_prefix.cl): slot (tile, digit) is the
// scan's tile slot tile * 256 + digit, with an aggregate (the tile's count of that digit) and an
// inclusive prefix (the count of that digit in tiles 0 to tile) beside it.

#include "prelude.cl"
// What a tile carries: a count of keys below 2^32 (the host runs this kernel for n < 2^30 only).
#define CLSCAN_CARRY_DEFINED
typedef uint carry_t;
#define CLSCAN_CARRY_IDENTITY 0u
#define CLSCAN_CARRY_SIZE 4
#define CLSCAN_CARRY_TO_BITS(x) (x)
#define CLSCAN_CARRY_FROM_BITS(x) (x)
inline carry_t carry_combine(carry_t a, carry_t b CLSCAN_USER_PARAMS) { return a + b; }
#define CLSCAN_INPUT_PARAMS const global key_bits *src, ulong n
#define CLSCAN_INPUT_ARGS src, n
#include "group_scan.cl"
#include "tile_io.cl"
// tile_prefix.cl's walk for one carry per tile reduces a silent tile through this. The sort walks its
// 256 carries per tile itself (digits_before) and never calls that walk, which still has to link:
// here the carry of a tile is its count of keys.
CLSCAN_LOCAL_FN carry_t tile_aggregate(ulong tile, local carry_t* scratch,
                                       CLSCAN_INPUT_PARAMS CLSCAN_USER_PARAMS) {
  (void)scratch;
  (void)src;
  return (carry_t)min((ulong)SORT_TILE, n - tile * SORT_TILE);
}
#include "tile_prefix.cl"

// Predecessors a digit's look-back reads per round (their reads in flight together). A tile finds an
// inclusive prefix about (tiles started per second) x (a read's latency) tiles back, so the window
// pays once tiles come fast. On an H200 (2026-11-28, bench/profile/sort_kernels.cpp --single-pass
// --define CLSCAN_SORT_RANK_MATCH=2 --define CLSCAN_SORT_WINDOW=W, uint keys, one slot per digit), the
// whole sort as a ratio to a clEnqueueCopyBuffer of the keys in the same process, two runs each: keys
// (384 x 20) 2^24 W = 1 0.0655-0.0661, 2 0.0685-0.0688, 4 0.0697, 8 0.0687-0.0692; 2^28 0.0641-0.0643,
// 0.0671-0.0676, 0.0697-0.0708, 0.0678-0.0695; pairs (384 x 12, 2^24) 0.0447-0.0490, 0.0431-0.0454,
// 0.0415-0.0455, 0.0389-0.0397. Hence 4 for keys alone where the tile is ranked in warps (NVIDIA),
// else 1.
#ifndef CLSCAN_SORT_WINDOW
#if CLSCAN_SORT_RANK_MATCH && !CLSCAN_SORT_VALUE_SIZE
#define CLSCAN_SORT_WINDOW 4
#else
#define CLSCAN_SORT_WINDOW 1
#endif
#endif

inline ulong digit_slot(ulong tile, uint digit) { return tile * SORT_RADIX + digit; }

// One status slot per (tile, digit), where the tile's count of the digit is later overwritten by its
// inclusive prefix; the top bit of each payload says which of the two it holds (so counts stay below
// 2^30: 15 bits in each of two 16-bit payloads). Half the status words of an aggregate and a prefix
// slot each (tile_prefix.cl, which the scans use), and a digit's look-back reads one word, not two at
// a stride: on an H200 (2026-11-28, bench/profile/sort_kernels --single-pass --define
// CLSCAN_SORT_RANK_MATCH=2, uint keys, 384 x 20) the whole sort's ratio to a same-process copy of the
// keys went from 0.0622-0.0623 to 0.0635-0.0636 at 2^28 (2^24: 0.0624-0.0656 to 0.0640-0.0665, within
// the copy's jitter). lib/algorithms/sort.cpp sizes the words for one slot.
#define SORT_PREFIX_BIT ((status_t)1 << (CLSCAN_PAYLOAD_BITS - 1))
#define SORT_COUNT_BITS (CLSCAN_PAYLOAD_BITS - 1)

inline global status_t* count_slot(global status_t* status, ulong tile, uint digit) {
  return status + 1 + digit_slot(tile, digit) * CLSCAN_VALUE_WORDS;
}

inline void publish_count(global status_t* status, ulong tile, uint digit, uint tag, int prefix,
                          carry_t count) {
  global status_t* const slot = count_slot(status, tile, digit);
  for (int w = 0; w < CLSCAN_VALUE_WORDS; ++w) {
    const status_t payload =
        ((status_t)(count >> (w * SORT_COUNT_BITS)) & (SORT_PREFIX_BIT - 1)) | (prefix ? SORT_PREFIX_BIT : 0);
    CLSCAN_STATUS_WRITE(slot + w, ((status_t)tag << CLSCAN_PAYLOAD_BITS) | payload);
  }
}

// CLSCAN_PREFIX, CLSCAN_AGGREGATE or CLSCAN_NOTHING, as read_status. A slot read while its prefix
// overwrites its count may mix the words of both: their top bits then differ, and it reads as nothing
// yet.
inline int read_count(global status_t* status, ulong tile, uint digit, uint tag, carry_t* count) {
  global status_t* const slot = count_slot(status, tile, digit);
  status_t words[CLSCAN_VALUE_WORDS];
  for (int w = 0; w < CLSCAN_VALUE_WORDS; ++w)
    words[w] = CLSCAN_STATUS_READ(slot + w);
  carry_t value = 0;
  for (int w = 0; w < CLSCAN_VALUE_WORDS; ++w) {
    if ((uint)(words[w] >> CLSCAN_PAYLOAD_BITS) != tag || (words[w] ^ words[0]) & SORT_PREFIX_BIT)
      return CLSCAN_NOTHING;
    value |= (carry_t)(words[w] & (SORT_PREFIX_BIT - 1)) << (w * SORT_COUNT_BITS);
  }
  *count = value;
  return (words[0] & SORT_PREFIX_BIT) ? CLSCAN_PREFIX : CLSCAN_AGGREGATE;
}

// Reads what the CLSCAN_SORT_WINDOW predecessors from tile `nearest` down published for digit d (their
// reads in flight together) and adds to *sum, nearest first, up to the first that has its inclusive
// prefix (*done then) or the first that published nothing. Returns how many it added.
inline int read_window(global status_t* status, uint tag, uint d, int nearest, carry_t* sum, int* done) {
  int kinds[CLSCAN_SORT_WINDOW];
  carry_t values[CLSCAN_SORT_WINDOW];
  for (int w = 0; w < CLSCAN_SORT_WINDOW; ++w) {
    kinds[w] = CLSCAN_NOTHING;
    values[w] = 0;
    if (nearest - w >= 0) kinds[w] = read_count(status, (ulong)(nearest - w), d, tag, &values[w]);
  }
  int taken = 0;
  *done = 0;
  for (int w = 0; w < CLSCAN_SORT_WINDOW && !*done; ++w) {
    if (kinds[w] == CLSCAN_NOTHING) break;
    *sum += values[w];
    ++taken;
    *done = kinds[w] == CLSCAN_PREFIX;
  }
  return taken;
}

// The look-back of tile `tile` (> 0) for every digit at once, a work-item per digit (several where the
// work-group is smaller than the radix). First every digit walks back on its own, with no barrier
// between its reads: CLSCAN_SORT_WINDOW predecessors a read (in flight together), adding, nearest
// first, what they published up to the first inclusive prefix, and publishing its own inclusive prefix
// (where `publishes`) as soon as it has one, so that successors waiting on that digit go on. A digit
// that has had no news for CLSCAN_SPIN_LIMIT reads stops; the rest then goes in rounds separated by
// barriers, in which the work-group counts the digits of the nearest silent predecessor's keys itself
// (src, the pass's input, which nobody writes during the pass) and every digit waiting on that tile
// takes its count, so that no work-group waits for another to be scheduled. On return behind[d] holds
// the keys of digit d in the tiles before this one; mine[d] is the tile's own count of digit d.
inline void digits_before(global status_t* status, uint tag, ulong tile, int publishes,
                          local const uint* mine, local uint* behind, local int* next, local uint* stalls,
                          local uint* counts, local int* fallback, local uint* pending,
                          const global key_bits* src, ulong n, uint descending, uint shift, uint mask) {
  const uint lid = get_local_id(0);
  for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG) {
    int nearest = (int)tile - 1;
    carry_t sum = 0;
#if CLSCAN_SPIN_LIMIT > 0
    uint idle = 0;
    while (nearest >= 0 && idle <= CLSCAN_SPIN_LIMIT) {
      int done;
      const int taken = read_window(status, tag, d, nearest, &sum, &done);
      // Tile 0 publishes its prefix, so a walk that reaches it is done.
      nearest = done ? -1 : nearest - taken;
      idle = taken ? 0 : idle + 1;
    }
#endif
    behind[d] = sum;
    next[d] = nearest;
    stalls[d] = 0;
    if (nearest < 0 && publishes) publish_count(status, tile, d, tag, 1, sum + mine[d]);
  }
  for (;;) {
    if (lid == 0) {
      *fallback = -1;
      *pending = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG) {
      int nearest = next[d];
      if (nearest < 0) continue;
#if CLSCAN_SPIN_LIMIT > 0
      carry_t sum = behind[d];
      int done;
      const int taken = read_window(status, tag, d, nearest, &sum, &done);
      behind[d] = sum;
      nearest = done ? -1 : nearest - taken;
      stalls[d] = taken ? 0 : stalls[d] + 1;
      if (nearest >= 0 && stalls[d] > CLSCAN_SPIN_LIMIT) atomic_max(fallback, nearest);
      if (nearest < 0 && publishes) publish_count(status, tile, d, tag, 1, sum + mine[d]);
#else
      // CLSCAN_SPIN_LIMIT=0 (tests): every predecessor is counted here, whatever was published.
      atomic_max(fallback, nearest);
#endif
      next[d] = nearest;
      if (nearest >= 0) atomic_or(pending, 1u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int silent = *fallback;
    if (!*pending) break;
    if (silent >= 0) {
      for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG)
        counts[d] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      const ulong first = (ulong)silent * SORT_TILE;
      const uint count = (uint)min((ulong)SORT_TILE, n - first);
      for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
        const uint j = k * CLSCAN_WG + lid;
        if (j >= count) break;
        atomic_inc(&counts[digit_of(src[first + j], descending, shift, mask)]);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG) {
        if (next[d] != silent) continue;
        behind[d] += counts[d];
        next[d] = silent - 1;
        stalls[d] = 0;
        if (silent == 0 && publishes) publish_count(status, tile, d, tag, 1, behind[d] + mine[d]);
      }
    }
    // fallback and pending are reset only once every work-item has read them.
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// One digit pass in one kernel. status is the look-back's status array (word 0: ticket counter);
// the tile is ticket - ticket_base; tag is the pass's epoch (never 0). digit_offsets[pass][digit] is
// where the pass's keys of that digit start (sort_histogram_total). Other arguments as sort_scatter's.
kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void
sort_onepass(const global key_bits* src, ulong src_offset, global key_bits* dst, ulong dst_offset,
             const global value_bits* values_src, ulong values_src_offset, global value_bits* values_dst,
             ulong values_dst_offset, ulong n, ulong tiles, const global offset_t* digit_offsets,
             const global uint* trivial, uint pass, uint write_keys, uint values_mode, uint descending,
             uint shift, uint mask, global status_t* status, uint ticket_base, uint tag) {
  local uint shared_tile;
  // Per digit: the tile's count of it, zeroed before the ticket's barrier, which orders the zeros
  // before the counts.
  local uint run_count[SORT_RADIX];
  const uint lid = get_local_id(0);
  for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG)
    run_count[d] = 0;
  // Every tile takes its ticket, trivial passes' too: the host counts the tickets of each pass.
  const ulong tile = claim_tile(status, ticket_base, &shared_tile);
  const ulong first = tile * SORT_TILE;
  const uint count = (uint)min((ulong)SORT_TILE, n - first);
  src += src_offset;
  dst += dst_offset;
#if CLSCAN_SORT_VALUE_SIZE
  if (values_src) values_src += values_src_offset + first;
  values_dst += values_dst_offset;
#endif
  if (trivial[pass]) {
    copy_tile(src + first, dst, values_src, values_dst, first, count, write_keys, values_mode);
    return;
  }

  SORT_RANK_STORAGE
  // The look-back's state, 4 words per digit: in the rank counters, free once the tile is ranked,
  // where they are large enough (work-groups of 64 and more), so that the one-pass kernel takes little
  // more local memory than sort_scatter (with values, 4096 keys a tile within 48 KiB).
#if SORT_COUNTERS >= 4 * SORT_RADIX
  local uint* const state = counters;
#else
  local uint state[4 * SORT_RADIX];
#endif
  local uint* const behind = state;
  local int* const next = (local int*)(state + SORT_RADIX);
  local uint* const stalls = state + 2 * SORT_RADIX;
  local uint* const fallback_counts = state + 3 * SORT_RADIX;
  local int fallback;
  local uint pending;

  // The tile's count of each digit, published before the ranking: a successor's look-back then finds
  // this tile's counts while this work-group is still ranking, instead of waiting for it.
#if SORT_LOAD_IN_WARPS
  key_bits loaded[CLSCAN_ITEMS];
  load_counted_warp_keys(src + first, count, loaded, run_count, descending, shift, mask);
#else
  load_counted_tile(src + first, count, exchange, run_count, descending, shift, mask);
#endif
  // The last tile has no successor to read what it publishes.
  const int publishes = first + SORT_TILE < n;
  if (publishes) {
    // Tile 0's count is its inclusive prefix.
    for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG)
      publish_count(status, tile, d, tag, tile == 0, run_count[d]);
  }
#if SORT_LOAD_IN_WARPS
  rank_keys(loaded, count, exchange SORT_POSITIONS_ARG, counters, sums, descending, shift, mask);
#else
  rank_loaded(count, exchange SORT_POSITIONS_ARG, counters, sums, descending, shift, mask);
#endif

#if CLSCAN_SORT_RANK_MATCH
  // The ranking in warps leaves each digit's first position in the ranked tile in sums.
  local const uint* const run_first = sums;
#else
  // As in sort_scatter: a digit's run in the ranked tile starts where the key before it has another
  // digit.
  local uint run_first[SORT_RADIX];
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint j = k * CLSCAN_WG + lid;
    if (j >= count) break;
    const uint d = digit_of(exchange[KEY_PAD(j)], descending, shift, mask);
    if (j == 0 || digit_of(exchange[KEY_PAD(j - 1)], descending, shift, mask) != d) run_first[d] = j;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#endif

  if (tile == 0) {
    for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG)
      behind[d] = 0;
  } else {
    digits_before(status, tag, tile, publishes, run_count, behind, next, stalls, fallback_counts, &fallback,
                  &pending, src, n, descending, shift, mask);
#if CLSCAN_FORGET_PREDECESSORS
    // Tests only (tile_prefix.cl): the look-back forgets what came before, as the scans' does under the
    // same hook, so that a sort that ran here on a device that failed the qualification would be wrong
    // (sort-gpu-shape-disqualified, tests/CMakeLists.txt).
    for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG)
      behind[d] = 0;
#endif
  }
  for (uint d = lid; d < SORT_RADIX; d += CLSCAN_WG) {
    const uint before = behind[d], mine = run_count[d];
    if (mine) bases[d] = digit_offsets[pass * SORT_RADIX + d] + (offset_t)before - (offset_t)run_first[d];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // The ranked keys are read only now, so that none is held in a register through the look-back.
  key_bits keys[CLSCAN_ITEMS];
  for (uint k = 0; k < CLSCAN_ITEMS; ++k) {
    const uint j = k * CLSCAN_WG + lid;
    if (j >= count) break;
    keys[k] = exchange[KEY_PAD(j)];
  }
  scatter_ranked(keys SORT_POSITIONS_ARG, count, bases, exchange, dst, values_src, values_dst, first, n,
                 write_keys, values_mode, descending, shift, mask);
}
#endif // CLSCAN_SORT_ONE_PASS
