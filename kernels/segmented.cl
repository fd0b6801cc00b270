// The offsets' kernels of the segmented scans (include/clscan/segmented.hpp, lib/api/segmented.cpp):
// the head flags that the scan by key (by_key.cl) takes as its keys. One work-item per offset, striding
// where the launch has fewer work-items than offsets; nothing depends on the values' type, so a program
// serves every type (the host defines CLSCAN_OFFSET_T).
// (reduce_segmented runs kernels/segment_reduce.cl instead.)

#ifndef CLSCAN_OFFSET_T
#define CLSCAN_OFFSET_T uint
#endif
typedef CLSCAN_OFFSET_T offset_t;

// offsets: the user's buffer, from offsets_offset on; heads from heads_offset on (the scan by key reads
// its keys at the values' offset).

// heads[b] = value for the begin b = offsets[s] of every s < count that is below n.
// A call sets its heads with value 1 in flags that are all zero, and clears them with 0 once its scan
// has read them. Repeated begins are written by several work-items: atomically, since even stores of one
// value are a data race to OpenCL's memory model (and to Oclgrind).
kernel void segment_heads(const global offset_t* offsets, ulong offsets_offset, ulong count, ulong n,
                          global uint* heads, ulong heads_offset, uint value) {
  offsets += offsets_offset;
  heads += heads_offset;
  for (ulong s = get_global_id(0); s < count; s += get_global_size(0)) {
    const ulong begin = offsets[s];
    if (begin >= n) continue;
    atomic_xchg((volatile global uint*)heads + begin, value);
  }
}

// heads[i] = 0 for i < count: the flags' buffer once, when it is allocated (a kernel rather than
// clEnqueueFillBuffer, whose contents Oclgrind takes for uninitialised).
kernel void clear_heads(global uint* heads, ulong count) {
  for (ulong i = get_global_id(0); i < count; i += get_global_size(0))
    heads[i] = 0u;
}
