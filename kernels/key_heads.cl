// Run-head bits of a vector of keys, shared by the scans by key (by_key.cl) and the runs calls
// (runs.cl), each of which defines key_t, CLSCAN_KEYS_DIFFER(a, b) (whether key b, after a, starts a
// run) and CLSCAN_VEC before including it.
#if CLSCAN_VEC > 8
typedef ushort head_bits_t;
#else
typedef uchar head_bits_t;
#endif

// The run-head bits of the CLSCAN_VEC elements at `first` (first < n): an element starts a run when it
// is element 0 or its key differs from the one before. Elements at or past n start none. The key
// before `first` is read from global memory too: it lies in the same cache line as the keys of the
// neighbouring work-item, which loads them at the same time.
inline head_bits_t vector_heads(const global key_t* keys, ulong first, ulong n CLSCAN_USER_PARAMS) {
  key_t k[CLSCAN_VEC];
  if (first + CLSCAN_VEC <= n) {
#if CLSCAN_VEC > 1
    CLSCAN_CAT(vstore, CLSCAN_VEC)(CLSCAN_CAT(vload, CLSCAN_VEC)(0, keys + first), 0, k);
#else
    k[0] = keys[first];
#endif
  } else {
    for (int c = 0; c < CLSCAN_VEC; ++c)
      k[c] = first + c < n ? keys[first + c] : (key_t)0;
  }
  key_t prev = first > 0 ? keys[first - 1] : k[0];
  uint bits = first == 0 ? 1u : 0u;
#pragma unroll
  for (int c = 0; c < CLSCAN_VEC; ++c) {
    if (first + c < n && CLSCAN_KEYS_DIFFER(prev, k[c])) bits |= 1u << c;
    prev = k[c];
  }
  return (head_bits_t)bits;
}
