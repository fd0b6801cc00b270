// The prelude of every clscan kernel: element type, operator, launch shape, vector types. The pieces
// after it: tile_io.cl (a work-item's elements and a work-group's tile, in and out), group_scan.cl (the
// work-group scan), tile_prefix.cl (the single-pass look-back); each algorithm's file includes what
// it uses.
//
// The host prepends a prelude that defines CLSCAN_T (and CLSCAN_IN_T where the input has a type of its
// own, below) and the operator, and passes the launch shape as -D options. The defaults below only make
// this file compile on its own (e.g. under an offline compiler); they are not a tuning.

#ifndef CLSCAN_PRELUDE_CL
#define CLSCAN_PRELUDE_CL

#ifndef CLSCAN_T
#define CLSCAN_T int
#endif
#ifndef CLSCAN_IDENTITY
#define CLSCAN_IDENTITY ((CLSCAN_T)0)
#endif
// Bytes per element (set by the host with the element type).
#ifndef CLSCAN_ELEM_SIZE
#define CLSCAN_ELEM_SIZE 4
#endif
// The caller's named parameters (options::parameters): the host defines CLSCAN_USER_PARAMS as
// ", const float clscan_param_0, ..." and CLSCAN_USER_ARGS as ", clscan_param_0, ...". They end the
// arguments of every kernel and of every function that reaches a caller's expression (the operator,
// the predicate, key_equal), so that the values are the kernels' arguments, never the program's text,
// and a call with new values builds nothing.
#ifndef CLSCAN_USER_PARAMS
#define CLSCAN_USER_PARAMS
#define CLSCAN_USER_ARGS
#endif
// The parameters alone, as the caller's expression functions take them (CLSCAN_USER_ARGS may start
// with clscan_transform_input, below).
#ifndef CLSCAN_EXPRESSION_ARGS
#define CLSCAN_EXPRESSION_ARGS
#endif

// The combining operator. A prelude may define CLSCAN_COMBINE(a, b) itself (custom operators);
// otherwise one of CLSCAN_OP_SUM, _MIN, _MAX, _AND, _OR, _XOR picks a built-in one.
#ifndef CLSCAN_COMBINE
#if defined(CLSCAN_OP_MIN) && defined(CLSCAN_FLOATING)
// fmin and fmax: a NaN never hides a number, which keeps them associative with NaNs in the data (a
// comparison would let a NaN that starts a run stand for the whole run). Their identity is NaN.
#define CLSCAN_COMBINE(a, b) fmin((a), (b))
#elif defined(CLSCAN_OP_MAX) && defined(CLSCAN_FLOATING)
#define CLSCAN_COMBINE(a, b) fmax((a), (b))
#elif defined(CLSCAN_OP_MIN)
#define CLSCAN_COMBINE(a, b) (((b) < (a)) ? (b) : (a))
#elif defined(CLSCAN_OP_MAX)
#define CLSCAN_COMBINE(a, b) (((a) < (b)) ? (b) : (a))
#elif defined(CLSCAN_OP_AND)
#define CLSCAN_COMBINE(a, b) ((a) & (b))
#elif defined(CLSCAN_OP_OR)
#define CLSCAN_COMBINE(a, b) ((a) | (b))
#elif defined(CLSCAN_OP_XOR)
#define CLSCAN_COMBINE(a, b) ((a) ^ (b))
#elif defined(CLSCAN_WRAP_T)
// Signed sums wrap around in two's complement, as documented. Signed overflow is undefined in
// OpenCL C (compilers may assume it never happens), so the host names the unsigned type of the same
// size and the sum is taken in it; the bits are the same.
#define CLSCAN_COMBINE(a, b)                                                                                 \
  CLSCAN_CAT(as_, CLSCAN_T)(CLSCAN_CAT(as_, CLSCAN_WRAP_T)(a) + CLSCAN_CAT(as_, CLSCAN_WRAP_T)(b))
#else
#define CLSCAN_COMBINE(a, b) ((a) + (b))
#endif
#endif

// Work-items per work-group. The host always sets it from the device's limits.
#ifndef CLSCAN_WG
#define CLSCAN_WG 64
#endif
// Consecutive elements each work-item scans; a multiple of CLSCAN_VEC.
#ifndef CLSCAN_ITEMS
#define CLSCAN_ITEMS 4
#endif
// Elements per vector load and store: 1, 2, 4, 8 or 16.
#ifndef CLSCAN_VEC
#define CLSCAN_VEC 4
#endif
// 1 when the input and output offsets are multiples of CLSCAN_VEC, so that whole vectors can be
// loaded through aligned pointers; otherwise vloadn/vstoren, which need only element alignment.
#ifndef CLSCAN_ALIGNED
#define CLSCAN_ALIGNED 0
#endif

#define CLSCAN_TILE (CLSCAN_WG * CLSCAN_ITEMS)

// A work-group barrier. A work-group of one work-item needs none (its own accesses are ordered by
// program order; the fence keeps the memory-ordering half). Besides saving the barrier, this keeps
// loops that contain one free of barriers: Mesa's llvmpipe runs such a loop, in a work-group smaller
// than its SIMD width, until its loop limit runs out, after which every later loop of the kernel
// stops after one iteration (docs/RELIABILITY.md, "rusticl").
#if CLSCAN_WG == 1
#define group_barrier(flags) mem_fence(flags)
#else
#define group_barrier(flags) barrier(flags)
#endif

// Loops over a work-item's elements carry "#pragma unroll" so that the elements stay in registers: an
// element array indexed at run time is placed in (slow) private memory by GPU compilers. Long runs
// (CPUs) are not unrolled: compilers unroll even functions that are never called, and 16384
// iterations took PoCL 36 s to compile.
#ifndef CLSCAN_MAX_UNROLL
#define CLSCAN_MAX_UNROLL 64
#endif
// "#pragma unroll n" with n a macro (a #pragma line takes its text as written).
#define CLSCAN_PRAGMA(text) _Pragma(#text)
#define CLSCAN_UNROLL_BY(n) CLSCAN_PRAGMA(unroll n)

#if CLSCAN_ITEMS % CLSCAN_VEC != 0
#error "CLSCAN_ITEMS must be a multiple of CLSCAN_VEC"
#endif

typedef CLSCAN_T elem_t;

#define CLSCAN_CAT_(a, b) a##b
#define CLSCAN_CAT(a, b) CLSCAN_CAT_(a, b)
#if CLSCAN_VEC > 1
typedef CLSCAN_CAT(CLSCAN_T, CLSCAN_VEC) vec_t;
#define CLSCAN_VLOAD CLSCAN_CAT(vload, CLSCAN_VEC)
#define CLSCAN_VSTORE CLSCAN_CAT(vstore, CLSCAN_VEC)
#else
// One-element "vectors", so that tile code is written once for every vector width.
typedef elem_t vec_t;
#define CLSCAN_VLOAD(i, p) ((p)[i])
#define CLSCAN_VSTORE(x, i, p) ((p)[i] = (x))
#endif

// The look-back's steps and the work-group scan (tile_prefix.cl, group_scan.cl, single_pass.cl's
// tile_aggregate), which take pointers to a kernel's local variables, are always inlined into the
// kernel: PoCL 5.0's kernel compiler (an asserting build) aborts the process, in isAutomaticLocal, on
// a local variable that the kernel reaches only through a function the compiler left out of line;
// the CPU single-pass kernel of float and double sums did that. The GPU tile functions of
// tile_io.cl, never that large, stay plain inline.
#define CLSCAN_LOCAL_FN inline __attribute__((always_inline))

inline elem_t combine(elem_t a, elem_t b CLSCAN_USER_PARAMS) { return CLSCAN_COMBINE(a, b); }

#if defined(CLSCAN_REDUCE_COMMUTATIVE)
// The built-in operators lane by lane on whole vectors (combine, for vec_t): reductions of a
// commutative operator (CLSCAN_REDUCE_COMMUTATIVE, reduce.cl and segment_reduce.cl).
inline vec_t combine_lanes(vec_t a, vec_t b CLSCAN_USER_PARAMS) {
#if CLSCAN_VEC == 1
  return combine(a, b CLSCAN_USER_ARGS);
#elif defined(CLSCAN_OP_MIN) && defined(CLSCAN_FLOATING)
  return fmin(a, b);
#elif defined(CLSCAN_OP_MAX) && defined(CLSCAN_FLOATING)
  return fmax(a, b);
#elif defined(CLSCAN_OP_MIN)
  return min(a, b);
#elif defined(CLSCAN_OP_MAX)
  return max(a, b);
#elif defined(CLSCAN_OP_AND)
  return a & b;
#elif defined(CLSCAN_OP_OR)
  return a | b;
#elif defined(CLSCAN_OP_XOR)
  return a ^ b;
#elif defined(CLSCAN_WRAP_T)
  // Signed sums wrap: added as the unsigned type of the same size, as combine does.
#define CLSCAN_WRAP_VEC CLSCAN_CAT(CLSCAN_WRAP_T, CLSCAN_VEC)
  return CLSCAN_CAT(as_, CLSCAN_CAT(CLSCAN_T, CLSCAN_VEC))(CLSCAN_CAT(as_, CLSCAN_WRAP_VEC)(a) +
                                                           CLSCAN_CAT(as_, CLSCAN_WRAP_VEC)(b));
#else
  return a + b;
#endif
}
#endif

// options::transform: the host defines CLSCAN_TRANSFORM(x, i), the caller's expression of an input
// element x and its index i, and starts CLSCAN_USER_PARAMS with `const int clscan_transform_input`.
// Kernels read the call's input through CLSCAN_READ (CLSCAN_READ_VECTOR: the elements of a vector at
// index `first` that lie before index `end`), which transforms only where that argument is set: a
// launch over clscan's own temporaries (tile totals, partial totals, a scanned output) reads values
// transformed already.
// Elements past n keep the identity.
//
// options::transform_input: the input holds elements of a type of its own, CLSCAN_IN_T, which the
// transform turns into elements of CLSCAN_T as they are read. Kernels read the call's input as in_t
// (in_vec_t: CLSCAN_VEC of them), which is elem_t otherwise. A pointer to in_t then only ever points
// at the call's input, which is always transformed: the host runs the launches over its temporaries
// with a program of its own, built without CLSCAN_IN_T. Elements past n are read as CLSCAN_INPUT_PAD
// and never transformed.
#ifdef CLSCAN_IN_T
#ifndef CLSCAN_TRANSFORM
#error "CLSCAN_IN_T needs CLSCAN_TRANSFORM"
#endif
typedef CLSCAN_IN_T in_t;
#if CLSCAN_VEC > 1
typedef CLSCAN_CAT(CLSCAN_IN_T, CLSCAN_VEC) in_vec_t;
#else
typedef in_t in_vec_t;
#endif
#define CLSCAN_INPUT_PAD ((in_t)0)
#define CLSCAN_READ(x, i) CLSCAN_TRANSFORM(x, i)
inline vec_t read_vector(in_vec_t v, ulong first, ulong end CLSCAN_USER_PARAMS) {
  in_t x[CLSCAN_VEC];
  elem_t e[CLSCAN_VEC];
  CLSCAN_VSTORE(v, 0, x);
  for (int c = 0; c < CLSCAN_VEC; ++c) {
    e[c] = CLSCAN_IDENTITY;
    if (first + (ulong)c < end) e[c] = CLSCAN_TRANSFORM(x[c], first + c);
  }
  return CLSCAN_VLOAD(0, e);
}
#define CLSCAN_READ_VECTOR(v, first, end) read_vector((v), (first), (end)CLSCAN_USER_ARGS)
#else
typedef elem_t in_t;
typedef vec_t in_vec_t;
#define CLSCAN_INPUT_PAD CLSCAN_IDENTITY
#ifdef CLSCAN_TRANSFORM
#define CLSCAN_READ(x, i) (clscan_transform_input ? CLSCAN_TRANSFORM(x, i) : (x))
inline vec_t read_vector(vec_t v, ulong first, ulong end CLSCAN_USER_PARAMS) {
  if (!clscan_transform_input) return v;
  elem_t e[CLSCAN_VEC];
  CLSCAN_VSTORE(v, 0, e);
  for (int c = 0; c < CLSCAN_VEC; ++c)
    if (first + (ulong)c < end) e[c] = CLSCAN_TRANSFORM(e[c], first + c);
  return CLSCAN_VLOAD(0, e);
}
#define CLSCAN_READ_VECTOR(v, first, end) read_vector((v), (first), (end)CLSCAN_USER_ARGS)
#else
#define CLSCAN_READ(x, i) (x)
#define CLSCAN_READ_VECTOR(v, first, end) (v)
#endif
#endif

#endif // CLSCAN_PRELUDE_CL
