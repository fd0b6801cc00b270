// The offsets' kernels of the segmented scans (include/clscan/segmented.hpp, lib/api/segmented.cpp):
// the head flags that the scan by key (by_key.cl) takes as its keys. One work-item per offset, striding
// where the launch has fewer work-items than offsets; nothing depends on the values' type, so a program
// serves every type (the host defines CLSCAN_OFFSET_T).
// (reduce_segmented runs kernels/segment_reduce.cl instead.)

#ifndef CLSCAN_OFFSET_T
#define CLSCAN_OFFSET_T uint
#endif
typedef CLSCAN_OFFSET_T offset_t;

// offsets: the user's buffer, from offsets_offset on; heads: one byte per element from heads_offset on
// (the scan by key reads its keys at the values' offset), in a buffer of whole 32-bit words.

// Sets (value 1) or clears (value 0) heads[b] for the begin b = offsets[s] of every s < count that is
// below n. A call sets its heads in flags that are all zero, and clears them once its scan has read
// them. Plain byte stores: on PoCL (2 cores; clscan-bench --primitive inclusive_segmented --type int
// --sizes 2^24 --segment-length 10, 2026-11-28, old and new builds in alternation) the call's ratio to
// a same-process clEnqueueCopyBuffer of the input was 0.39-0.40 with 4-byte flags set by atomic
// exchange, about as slow with byte flags set by atomics on their words (29.6-31.7 ms against
// 29.9-34.9), and 0.63-0.64 with plain byte stores, where the serial loop's was 0.60-0.69.
// A begin repeated in a row (empty segments of sorted offsets) is written by the first of its work-items
// only, so that sorted offsets have one writer per flag. A begin repeated apart (unsorted offsets) has
// several, all storing the same value in the same kernel: OpenCL 1.2 (which these kernels are built
// as) leaves the byte holding one of them, the same on every device; Oclgrind reports it under
// --uniform-writes, and its suite runs sorted offsets here.
kernel void segment_heads(const global offset_t* offsets, ulong offsets_offset, ulong count, ulong n,
                          global uchar* heads, ulong heads_offset, uint value) {
  offsets += offsets_offset;
  heads += heads_offset;
  for (ulong s = get_global_id(0); s < count; s += get_global_size(0)) {
    const ulong begin = offsets[s];
    if (begin >= n || (s > 0 && offsets[s - 1] == begin)) continue;
    heads[begin] = (uchar)value;
  }
}

// heads' first `words` words = 0: the flags' buffer once, when it is allocated (a kernel rather than
// clEnqueueFillBuffer, whose contents Oclgrind takes for uninitialised).
kernel void clear_heads(global uint* heads, ulong words) {
  for (ulong i = get_global_id(0); i < words; i += get_global_size(0))
    heads[i] = 0u;
}
