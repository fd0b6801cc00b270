// The offsets' kernels of the segmented calls (include/clscan/segmented.hpp, lib/api/segmented.cpp):
// the head flags that the scan by key (by_key.cl) takes as its keys, and the results of a segmented
// reduction, picked from that scan. Both are one work-item per offset, striding where the launch has
// fewer work-items than offsets; neither depends on the values' type beyond its size, so a program
// serves every type of that size (the host defines CLSCAN_OFFSET_T and CLSCAN_BITS_T).

#ifndef CLSCAN_OFFSET_T
#define CLSCAN_OFFSET_T uint
#endif
#ifndef CLSCAN_BITS_T
#define CLSCAN_BITS_T uint
#endif
typedef CLSCAN_OFFSET_T offset_t;
// A value moved as its bits: a double needs no fp64 here.
typedef CLSCAN_BITS_T bits_t;

// offsets and out: the user's buffers, from offsets_offset and out_offset on; heads from heads_offset on
// (the scan by key reads its keys at the values' offset).

// heads[b] = value for the begin b = offsets[s] of every s < count that is below n; with nonempty_only
// (count is then the number of segments), only where the segment is not empty, b < min(n, offsets[s + 1]).
// A call sets its heads with value 1 in flags that are all zero, and clears them with 0 once its scan
// has read them. Repeated begins are written by several work-items: atomically, since even stores of one
// value are a data race to OpenCL's memory model (and to Oclgrind).
kernel void segment_heads(const global offset_t* offsets, ulong offsets_offset, ulong count, ulong n,
                          int nonempty_only, global uint* heads, ulong heads_offset, uint value) {
  offsets += offsets_offset;
  heads += heads_offset;
  for (ulong s = get_global_id(0); s < count; s += get_global_size(0)) {
    const ulong begin = offsets[s];
    if (begin >= n) continue;
    if (nonempty_only && (ulong)offsets[s + 1] <= begin) continue;
    atomic_xchg((volatile global uint*)heads + begin, value);
  }
}

// out[s] for each segment s < segments: scanned[e - 1], the inclusive scan by key at the segment's last
// element (e = min(n, offsets[s + 1])), where the segment is not empty; `empty` (the identity or the
// initial value) where it is.
kernel void segment_results(const global offset_t* offsets, ulong offsets_offset, ulong segments, ulong n,
                            const global bits_t* scanned, global bits_t* out, ulong out_offset,
                            bits_t empty) {
  offsets += offsets_offset;
  out += out_offset;
  for (ulong s = get_global_id(0); s < segments; s += get_global_size(0)) {
    const ulong begin = offsets[s];
    const ulong end = min((ulong)offsets[s + 1], n);
    out[s] = begin < end ? scanned[end - 1] : empty;
  }
}

// heads[i] = 0 for i < count: the flags' buffer once, when it is allocated (a kernel rather than
// clEnqueueFillBuffer, whose contents Oclgrind takes for uninitialised).
kernel void clear_heads(global uint* heads, ulong count) {
  for (ulong i = get_global_id(0); i < count; i += get_global_size(0))
    heads[i] = 0u;
}
