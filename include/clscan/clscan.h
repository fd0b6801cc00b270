/* clscan's C API: the scans, stream compaction, segmented scans and sorts of <clscan/clscan.hpp> for C
 * programs and for every language that calls C.
 *
 *   clscan_options opts = CLSCAN_OPTIONS_INIT;       (or clscan_options_init(&opts))
 *   cl_event done;
 *   if (clscan_inclusive(queue, in, out, n, CLSCAN_TYPE_INT32, &opts, &done) != CLSCAN_SUCCESS)
 *     fprintf(stderr, "%s\n", clscan_last_error_message());
 *
 * C99, and usable from C++ without OpenCL-CLHPP. Every call behaves as its C++ counterpart (README.md
 * "Usage"): it only enqueues work on `queue`, never waits for the device, and on any failure has
 * enqueued nothing and left the buffers as they were (except a failure of the runtime's own enqueue
 * calls part way, which C++ reports as clscan::opencl_error). No C++ exception leaves these functions.
 *
 * Handles stay the caller's: clscan retains what it keeps (the context, a queue) and releases it itself.
 * An event a call returns is a new reference that the caller releases with clReleaseEvent.
 *
 * Each options struct, its _init and each call are written out in full, though the families repeat
 * one shape: a reader, a grep or a binding generator finds every field and signature as it is, where
 * a generating macro would hide them (only the C++ initialisers share one macro). */
#ifndef CLSCAN_CLSCAN_H
#define CLSCAN_CLSCAN_H
/* A C header, which C++ reads too: clang-tidy's C++ spellings (using, nullptr, <cstddef>, () for (void))
 * do not apply. */
/* NOLINTBEGIN(modernize-use-using, modernize-use-nullptr) */
/* NOLINTBEGIN(modernize-deprecated-headers, modernize-redundant-void-arg) */

#include <CL/cl.h>
#include <clscan/version.hpp>

#include <stddef.h>

/* The library is built with default symbol visibility; the attribute keeps these symbols exported from
 * a shared libclscan even if that changes. */
#if defined(__GNUC__)
#define CLSCAN_C_API __attribute__((visibility("default")))
#else
#define CLSCAN_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a call returns. clscan_last_error_message() says more about any status but CLSCAN_SUCCESS. */
typedef enum clscan_status {
  CLSCAN_SUCCESS = 0,
  /* Bad arguments (C++: clscan::invalid_argument): a null queue or buffer, n plus offset past a buffer's
   * end, an unknown enumerator, options without a valid struct_size, ... Nothing was enqueued. */
  CLSCAN_INVALID_ARGUMENT = 1,
  /* The device lacks what the request needs (C++: clscan::unsupported_error): fp64 for
   * CLSCAN_TYPE_FLOAT64, global atomics for CLSCAN_ALGORITHM_SINGLE_PASS. */
  CLSCAN_UNSUPPORTED = 2,
  /* The kernels did not build, e.g. a custom operator that does not compile (C++: clscan::build_error).
   * The message holds the device, the build options and the build log. */
  CLSCAN_BUILD_ERROR = 3,
  /* An OpenCL call failed (C++: clscan::opencl_error); clscan_last_opencl_status() returns its status
   * and the message names the call. */
  CLSCAN_OPENCL_ERROR = 4,
  /* Host memory ran out (C++: std::bad_alloc). */
  CLSCAN_OUT_OF_MEMORY = 5,
  /* clscan_select_device: no OpenCL platform, or none matching CLSCAN_PLATFORM / CLSCAN_DEVICE. */
  CLSCAN_DEVICE_NOT_FOUND = 6,
  /* Anything else: a fault in clscan itself. */
  CLSCAN_INTERNAL_ERROR = 7
} clscan_status;

/* The element type of the buffers: cl_int, cl_uint, cl_long, cl_ulong, cl_float, cl_double. */
typedef enum clscan_type {
  CLSCAN_TYPE_INT32 = 0,
  CLSCAN_TYPE_UINT32 = 1,
  CLSCAN_TYPE_INT64 = 2,
  CLSCAN_TYPE_UINT64 = 3,
  CLSCAN_TYPE_FLOAT32 = 4,
  CLSCAN_TYPE_FLOAT64 = 5
} clscan_type;

/* The associative operator. Integer sums wrap around; floating-point MIN and MAX are fmin and fmax.
 * AND, OR and XOR are for integer types only. CUSTOM: clscan_options.custom_op. */
typedef enum clscan_op {
  CLSCAN_OP_SUM = 0,
  CLSCAN_OP_MIN = 1,
  CLSCAN_OP_MAX = 2,
  CLSCAN_OP_AND = 3,
  CLSCAN_OP_OR = 4,
  CLSCAN_OP_XOR = 5,
  CLSCAN_OP_CUSTOM = 6
} clscan_op;

/* AUTOMATIC lets clscan choose per device and size (README.md explains the two algorithms). */
typedef enum clscan_algorithm {
  CLSCAN_ALGORITHM_AUTOMATIC = 0,
  CLSCAN_ALGORITHM_SINGLE_PASS = 1,
  CLSCAN_ALGORITHM_THREE_STAGE = 2
} clscan_algorithm;

/* One element value; the member of the call's element type is the one read. */
typedef union clscan_value {
  cl_int i32;
  cl_uint u32;
  cl_long i64;
  cl_ulong u64;
  cl_float f32;
  cl_double f64;
} clscan_value;

/* A named scalar the call's expressions read (C++: clscan::parameter): `name`, NUL-terminated, is a name
 * in custom_op, the predicate and key_equal, of `type`, whose member of `value` is read. The values are
 * the kernels' arguments: a call that changes only them builds nothing. Names follow the C++ rules: an
 * identifier of at most 64 characters, not x, i, a or b, no keyword, type or macro of OpenCL C, not
 * starting with clscan or CLSCAN, given once; at most 8 per call (CLSCAN_INVALID_ARGUMENT otherwise);
 * CLSCAN_TYPE_FLOAT64 only on devices with fp64 (CLSCAN_UNSUPPORTED otherwise). */
typedef struct clscan_parameter {
  const char* name;
  clscan_type type;
  clscan_value value;
} clscan_parameter;

/* Every options struct T of this header comes with T_init(T*), which sets struct_size and makes every
 * other field its default (zero), and an initialiser macro (CLSCAN_OPTIONS_INIT, ...): in C a designated
 * initialiser, in C++ (which has those only from C++20) a call of T_defaults(), a T made by T_init.
 * CLSCAN_OPTIONS_DEFAULTS(T) defines T_defaults in C++ (clscan_options_defaults,
 * clscan_select_options_defaults, clscan_sort_options_defaults) and nothing in C. Each T_init names
 * every field of T, so that its defaults stand beside the struct that documents them. */
#if defined(__cplusplus)
#define CLSCAN_OPTIONS_INIT_OF(T) T##_defaults()
#define CLSCAN_OPTIONS_DEFAULTS(T)                                                                           \
  static inline T T##_defaults(void) {                                                                       \
    T options;                                                                                               \
    T##_init(&options);                                                                                      \
    return options;                                                                                          \
  }
#else
#define CLSCAN_OPTIONS_INIT_OF(T)                                                                            \
  { .struct_size = sizeof(T) }
#define CLSCAN_OPTIONS_DEFAULTS(T)
#endif

/* Options of a scan. Initialise with CLSCAN_OPTIONS_INIT or clscan_options_init(), which set
 * struct_size and make every other field its default (zero), then change what you need. struct_size
 * lets later versions append fields: the library reads only the fields that struct_size covers. */
typedef struct clscan_options {
  size_t struct_size; /* sizeof(clscan_options) */
  clscan_op operation;
  clscan_algorithm algorithm;
  /* With CLSCAN_OP_CUSTOM: an OpenCL C expression of `a` and `b` (both of the element type) that
   * combines them associatively, e.g. "a * b", NUL-terminated, and its identity element. One
   * expression, as a predicate is (CLSCAN_INVALID_ARGUMENT otherwise). */
  const char* custom_op;
  clscan_value custom_identity;
  /* Nonzero: an exclusive scan starts from `initial` (out[0] == initial); an inclusive scan combines it
   * in front of the first element. Zero: the operator's identity. */
  int has_initial;
  clscan_value initial;
  /* Nonzero: floating-point results have the same bits every run on a device, with every algorithm
   * (the single-pass scan then combines its tiles' totals in a fixed order). */
  int deterministic;
  /* Element offsets into the input and output buffers. */
  size_t in_offset;
  size_t out_offset;
  /* Events (of the queue's context) the scan waits for before it reads its input, as in OpenCL's
   * enqueue calls; wait_list may be NULL when wait_list_size is 0. */
  cl_uint wait_list_size;
  const cl_event* wait_list;
  /* parameter_count named scalars (clscan_parameter) that custom_op and key_equal read; parameters may
   * be NULL when parameter_count is 0. */
  const clscan_parameter* parameters;
  size_t parameter_count;
  /* clscan_inclusive_by_key and clscan_exclusive_by_key only (CLSCAN_INVALID_ARGUMENT elsewhere): an
   * OpenCL C expression of `a` and `b`, neighbouring keys (a the one before), true where b continues
   * a's segment, e.g. "a / 16 == b / 16". NULL or empty: ==. */
  const char* key_equal;
  /* The scans and clscan_reduce only (CLSCAN_INVALID_ARGUMENT elsewhere): an OpenCL C expression of `x`
   * (an input element) and `i` (its index, a ulong) applied to each element as it is read, e.g.
   * "x * x"; never to `initial`. NULL or empty: none. Its result is converted to the call's type. */
  const char* transform;
  /* clscan_reduce_by_key only (CLSCAN_INVALID_ARGUMENT elsewhere): nonzero has_out_capacity: each output
   * holds out_capacity elements from out_offset on (outputs sized for the result): nothing is written
   * past them, and the count still reports every run. Zero: they hold n. */
  int has_out_capacity;
  size_t out_capacity;
  /* With a transform only (CLSCAN_INVALID_ARGUMENT otherwise): nonzero has_transform_input: the input
   * holds elements of transform_input, not of the call's type, e.g. CLSCAN_TYPE_FLOAT32 for a
   * CLSCAN_TYPE_UINT32 count of "x > 0 ? 1 : 0". `x` has that type; the result, initial, custom_op and
   * the output stay of the call's type, and in_offset and the input's size count the input's elements.
   * A scan may not write over an input of another type (the same buffer holds both only in ranges
   * apart); clscan_reduce may write its total into the input's buffer. Zero: the input has the call's
   * type. */
  int has_transform_input;
  clscan_type transform_input;
} clscan_options;

#define CLSCAN_OPTIONS_INIT CLSCAN_OPTIONS_INIT_OF(clscan_options)

static inline void clscan_options_init(clscan_options* options) {
  options->struct_size = sizeof(clscan_options);
  options->operation = CLSCAN_OP_SUM;
  options->algorithm = CLSCAN_ALGORITHM_AUTOMATIC;
  options->custom_op = NULL;
  options->custom_identity.u64 = 0;
  options->has_initial = 0;
  options->initial.u64 = 0;
  options->deterministic = 0;
  options->in_offset = 0;
  options->out_offset = 0;
  options->wait_list_size = 0;
  options->wait_list = NULL;
  options->parameters = NULL;
  options->parameter_count = 0;
  options->key_equal = NULL;
  options->transform = NULL;
  options->has_out_capacity = 0;
  options->out_capacity = 0;
  options->has_transform_input = 0;
  options->transform_input = CLSCAN_TYPE_INT32;
}

CLSCAN_OPTIONS_DEFAULTS(clscan_options)

/* The scans. `in` and `out` hold n elements of `type` from their offsets on; pass the same buffer as
 * both to scan in place (its two ranges must then be the same or not overlap). `options` may be NULL
 * (all defaults). `event`, unless NULL, receives an event that completes when the result is in `out`
 * (the caller releases it); it is set to NULL when the call fails. n == 0 enqueues a marker only.
 *
 *   inclusive: out[i] = in[0] op ... op in[i]
 *   exclusive: out[0] = initial (the identity by default), out[i] = initial op in[0] op ... op in[i-1] */
CLSCAN_C_API clscan_status clscan_inclusive(cl_command_queue queue, cl_mem in, cl_mem out, size_t n,
                                            clscan_type type, const clscan_options* options, cl_event* event);
CLSCAN_C_API clscan_status clscan_exclusive(cl_command_queue queue, cl_mem in, cl_mem out, size_t n,
                                            clscan_type type, const clscan_options* options, cl_event* event);

/* Options of the selections (clscan_select_if, _select_flagged, _partition_if, _unique). Initialise with
 * CLSCAN_SELECT_OPTIONS_INIT or clscan_select_options_init(), which set struct_size and make every
 * other field its default (zero), then change what you need; struct_size works as in clscan_options. */
typedef struct clscan_select_options {
  size_t struct_size; /* sizeof(clscan_select_options) */
  /* Element offsets into the input and output buffers. */
  size_t in_offset;
  size_t out_offset;
  /* Where the count goes, in cl_ulong elements of the count buffer. */
  size_t count_offset;
  /* clscan_select_flagged: where the flags start, in cl_uchar elements of the flags buffer. */
  size_t flags_offset;
  /* AUTOMATIC: one pass (decoupled look-back) where the device qualifies for it; THREE_STAGE: count
   * the tiles, scan the counts, then write (no atomics). clscan_partition_if always runs the latter, as
   * it must know the total before it writes the unselected elements (SINGLE_PASS: INVALID_ARGUMENT). */
  clscan_algorithm algorithm;
  /* As in clscan_options: events the call waits for before it reads its input. */
  cl_uint wait_list_size;
  const cl_event* wait_list;
  /* As in clscan_options: named scalars the predicate and key_equal read. */
  const clscan_parameter* parameters;
  size_t parameter_count;
  /* clscan_unique only: an OpenCL C expression of `a` and `b`, neighbouring elements (a the one before),
   * true where b repeats a and is left out. NULL or empty: ==. */
  const char* key_equal;
  /* Nonzero has_out_capacity: the output (each output of clscan_unique_by_key and
   * clscan_run_length_encode) holds out_capacity elements from out_offset on, fewer than n where it is
   * sized for the result. Nothing at or past out_offset + out_capacity is written, and the count still
   * reports every selected element (or run); clscan_partition_if writes its first out_capacity elements.
   * A buffer that does not hold them: CLSCAN_INVALID_ARGUMENT. Zero: the output holds n. */
  int has_out_capacity;
  size_t out_capacity;
} clscan_select_options;

#define CLSCAN_SELECT_OPTIONS_INIT CLSCAN_OPTIONS_INIT_OF(clscan_select_options)

static inline void clscan_select_options_init(clscan_select_options* options) {
  options->struct_size = sizeof(clscan_select_options);
  options->in_offset = 0;
  options->out_offset = 0;
  options->count_offset = 0;
  options->flags_offset = 0;
  options->algorithm = CLSCAN_ALGORITHM_AUTOMATIC;
  options->wait_list_size = 0;
  options->wait_list = NULL;
  options->parameters = NULL;
  options->parameter_count = 0;
  options->key_equal = NULL;
  options->has_out_capacity = 0;
  options->out_capacity = 0;
}

CLSCAN_OPTIONS_DEFAULTS(clscan_select_options)

/* Stream compaction. Each call writes the kept elements of in[0, n), in order, to out[0, k) and k, as a
 * cl_ulong, to count[count_offset]; elements of `out` past k are not written (clscan_partition_if
 * writes all n), nor any past options->out_capacity when has_out_capacity is set. n == 0 writes a zero
 * count. `in` and `out` may be the same buffer at the same offset (in place: the input is first copied
 * into a temporary of clscan's, n elements of device memory more); any other overlap is
 * CLSCAN_INVALID_ARGUMENT, and the count overlaps neither. `options` and `event` work as for the scans;
 * `event` completes when `out` and the count are written.
 *
 * `predicate` is an OpenCL C boolean expression of x (the element, of `type`) and i (its index in the
 * input, a ulong), NUL-terminated, e.g. "x > 0" or "(i & 1) == 0 && x != 0": one expression, with
 * brackets balanced and no ';', braces, '#', comment, string literal or name of clscan's own
 * (CLSCAN_INVALID_ARGUMENT otherwise, naming the problem), compiled in a function of its own that sees
 * only x, i and OpenCL C's built-ins. One that does not compile returns CLSCAN_BUILD_ERROR with the
 * build log.
 *
 *   select_if:      keeps in[i] where the predicate holds
 *   select_flagged: keeps in[i] where flags[flags_offset + i] != 0; `flags` is a buffer of cl_uchar
 *   partition_if:   out[0, k) the elements where the predicate holds, out[k, n) the others, both in
 *                   order; count = k
 *   unique:         keeps the first element of every run of equal consecutive elements (compared with
 *                   ==, so every NaN is kept) */
CLSCAN_C_API clscan_status clscan_select_if(cl_command_queue queue, cl_mem in, cl_mem out, cl_mem count,
                                            size_t n, clscan_type type, const char* predicate,
                                            const clscan_select_options* options, cl_event* event);
CLSCAN_C_API clscan_status clscan_select_flagged(cl_command_queue queue, cl_mem in, cl_mem flags, cl_mem out,
                                                 cl_mem count, size_t n, clscan_type type,
                                                 const clscan_select_options* options, cl_event* event);
CLSCAN_C_API clscan_status clscan_partition_if(cl_command_queue queue, cl_mem in, cl_mem out, cl_mem count,
                                               size_t n, clscan_type type, const char* predicate,
                                               const clscan_select_options* options, cl_event* event);
CLSCAN_C_API clscan_status clscan_unique(cl_command_queue queue, cl_mem in, cl_mem out, cl_mem count,
                                         size_t n, clscan_type type, const clscan_select_options* options,
                                         cl_event* event);

/* Segmented scans: a segment is a maximal run of equal consecutive keys (compared with ==; `keys` holds
 * elements of `key_type`), and each segment is scanned on its own, with the operator of `options`.
 *
 *   inclusive: out[i] = in[s] op ... op in[i], where s starts i's segment
 *   exclusive: out[s] = the identity, then out[i] = in[s] op ... op in[i-1]
 *
 * With has_initial, every segment starts from `initial`: inclusive out[i] = initial op in[s] op ... op
 * in[i], exclusive out[s] = initial. in_offset applies to the keys and the input alike, out_offset to the
 * output; in == out with equal offsets scans in place. Otherwise as the scans. */
CLSCAN_C_API clscan_status clscan_inclusive_by_key(cl_command_queue queue, cl_mem keys, clscan_type key_type,
                                                   cl_mem in, cl_mem out, size_t n, clscan_type type,
                                                   const clscan_options* options, cl_event* event);
CLSCAN_C_API clscan_status clscan_exclusive_by_key(cl_command_queue queue, cl_mem keys, clscan_type key_type,
                                                   cl_mem in, cl_mem out, size_t n, clscan_type type,
                                                   const clscan_options* options, cl_event* event);

/* Reduce: out[out_offset] = initial op in[in_offset] op ... op in[in_offset + n - 1], with `initial` in
 * front only when has_initial is set; n == 0 writes `initial`, or the operator's identity. One element
 * of `out` is written and nothing else; `out` may be `in`. Every operator, custom ones included (not
 * necessarily commutative); the result is the same bits every run on a device, so `deterministic`
 * changes nothing, and `algorithm` is ignored (reduce has one algorithm). Otherwise as the scans. */
CLSCAN_C_API clscan_status clscan_reduce(cl_command_queue queue, cl_mem in, cl_mem out, size_t n,
                                         clscan_type type, const clscan_options* options, cl_event* event);

/* Runs of equal consecutive keys (compared with ==: every NaN key is a run of its own, -0.0 and 0.0
 * are one), as Thrust's reduce_by_key and unique_by_key and CUB's run-length encoding (C++: runs.hpp).
 * Each writes one element per run to each output, in order, and the number of runs, as a cl_ulong, to
 * count[count_offset]; elements of the outputs past the count are not written. The outputs hold n
 * elements, or for clscan_unique_by_key and clscan_run_length_encode options->out_capacity where
 * has_out_capacity is set (nothing written past it; the count still reports every run), as do those of
 * clscan_reduce_by_key with clscan_options.has_out_capacity and out_capacity. keys_out[j] is
 * run j's first key. No output may overlap an input, the other output or the count. n == 0 writes a zero
 * count. `options` and `event` work as for the scans.
 *
 *   reduce_by_key:     values_out[j] = run j's values combined with the operator of `options` (any
 *                      operator of the scans; with has_initial, `initial` combined in front of each
 *                      run); count_offset is an argument, since clscan_options has none
 *   unique_by_key:     values_out[j] = the value beside run j's first key
 *   run_length_encode: lengths_out[j] = run j's length, of length_type CLSCAN_TYPE_UINT32 (n below 2^32)
 *                      or CLSCAN_TYPE_UINT64
 *
 * in_offset applies to the keys and the values alike, out_offset to both outputs. They run in several
 * passes of clscan's selection and scan-by-key kernels, inside the one call. */
CLSCAN_C_API clscan_status clscan_reduce_by_key(cl_command_queue queue, cl_mem keys_in, clscan_type key_type,
                                                cl_mem values_in, clscan_type value_type, cl_mem keys_out,
                                                cl_mem values_out, cl_mem count, size_t count_offset,
                                                size_t n, const clscan_options* options, cl_event* event);
CLSCAN_C_API clscan_status clscan_unique_by_key(cl_command_queue queue, cl_mem keys_in, clscan_type key_type,
                                                cl_mem values_in, clscan_type value_type, cl_mem keys_out,
                                                cl_mem values_out, cl_mem count, size_t n,
                                                const clscan_select_options* options, cl_event* event);
CLSCAN_C_API clscan_status clscan_run_length_encode(cl_command_queue queue, cl_mem in, clscan_type type,
                                                    cl_mem unique_out, cl_mem lengths_out,
                                                    clscan_type length_type, cl_mem count, size_t n,
                                                    const clscan_select_options* options, cl_event* event);

/* Segmented scans and reduction over offsets, CSR style (C++: segmented.hpp, which defines every case):
 * `offsets` holds num_segments + 1 entries of offset_type (CLSCAN_TYPE_UINT32 or CLSCAN_TYPE_UINT64)
 * from element offsets_offset on, and segment s is [offsets[s], offsets[s + 1]); empty segments are
 * allowed. The library never reads the offsets on the host, so any values are defined:
 *
 *   inclusive_segmented, exclusive_segmented: n outputs, each segment scanned on its own (from
 *     `initial` where has_initial is set). Element i starts a segment iff i == 0 or i == offsets[s] for
 *     some s <= num_segments: entries at or past n start nothing, and their order does not matter.
 *   reduce_segmented: out[out_offset + s] for s < num_segments, the reduction of in[b, e) with b =
 *     offsets[s], e = min(n, offsets[s + 1]) (`initial` in front where has_initial is set), or `initial`
 *     (else the identity) where b >= e: each range on its own, whatever the others (CUB's
 *     DeviceSegmentedReduce).
 *
 * `options` as for the scans by key (operators, custom operators, parameters, initial, deterministic,
 * algorithm, in_offset, out_offset, wait list); key_equal and transform are refused. in == out with equal
 * offsets scans in place. The output may not overlap the offsets. The scans run in passes inside the one
 * call (head flags from the offsets, the scan by key over them); the reduction reads the input once, in
 * chunk totals and one work-item per segment. */
CLSCAN_C_API clscan_status clscan_inclusive_segmented(cl_command_queue queue, cl_mem in, cl_mem out, size_t n,
                                                      clscan_type type, cl_mem offsets,
                                                      clscan_type offset_type, size_t offsets_offset,
                                                      size_t num_segments, const clscan_options* options,
                                                      cl_event* event);
CLSCAN_C_API clscan_status clscan_exclusive_segmented(cl_command_queue queue, cl_mem in, cl_mem out, size_t n,
                                                      clscan_type type, cl_mem offsets,
                                                      clscan_type offset_type, size_t offsets_offset,
                                                      size_t num_segments, const clscan_options* options,
                                                      cl_event* event);
CLSCAN_C_API clscan_status clscan_reduce_segmented(cl_command_queue queue, cl_mem in, cl_mem out, size_t n,
                                                   clscan_type type, cl_mem offsets, clscan_type offset_type,
                                                   size_t offsets_offset, size_t num_segments,
                                                   const clscan_options* options, cl_event* event);

/* Options of the sorts (clscan_sort, clscan_sort_by_key, clscan_sorted_order). Initialise with
 * CLSCAN_SORT_OPTIONS_INIT or clscan_sort_options_init(), which set struct_size and make every other
 * field its default (zero), then change what you need; struct_size works as in clscan_options. */
typedef struct clscan_sort_options {
  size_t struct_size; /* sizeof(clscan_sort_options) */
  /* Nonzero: largest key first (NaNs still last, in input order). */
  int descending;
  /* Sort on bits [begin_bit, end_bit) of the key's order-preserving unsigned image (<clscan/sort.hpp>);
   * keys equal in those bits keep their input order. end_bit 0 stands for all the key's bits (32 or
   * 64); otherwise begin_bit <= end_bit <= the key's bits. */
  unsigned begin_bit;
  unsigned end_bit;
  /* Element offsets: of the keys, and of the values (clscan_sort_by_key) or indices
   * (clscan_sorted_order: values_out_offset). */
  size_t keys_in_offset;
  size_t keys_out_offset;
  size_t values_in_offset;
  size_t values_out_offset;
  /* AUTOMATIC: SINGLE_PASS (one kernel per 8-bit digit pass, tiles chained by decoupled look-back)
   * where the device qualifies for it, else THREE_STAGE (count, scan, scatter per pass). */
  clscan_algorithm algorithm;
  /* As in clscan_options: events the call waits for before it reads its input. */
  cl_uint wait_list_size;
  const cl_event* wait_list;
} clscan_sort_options;

#define CLSCAN_SORT_OPTIONS_INIT CLSCAN_OPTIONS_INIT_OF(clscan_sort_options)

static inline void clscan_sort_options_init(clscan_sort_options* options) {
  options->struct_size = sizeof(clscan_sort_options);
  options->descending = 0;
  options->begin_bit = 0;
  options->end_bit = 0;
  options->keys_in_offset = 0;
  options->keys_out_offset = 0;
  options->values_in_offset = 0;
  options->values_out_offset = 0;
  options->algorithm = CLSCAN_ALGORITHM_AUTOMATIC;
  options->wait_list_size = 0;
  options->wait_list = NULL;
}

CLSCAN_OPTIONS_DEFAULTS(clscan_sort_options)

/* Stable LSD radix sorts (C++: clscan::sort, sort_by_key, sorted_order). Keys of `key_type` in the
 * order of numpy's sort: integers numerically; floating point -inf < ... < -0.0 == +0.0 < ... < +inf <
 * every NaN, -0.0 and +0.0 equal (they keep their input order) and NaNs last in input order, descending
 * too. The outputs hold the inputs' own bits. Equal keys keep their input order.
 *
 *   clscan_sort:         keys_out = the n keys of keys_in, sorted; keys_in == keys_out with equal
 *                        offsets sorts in place
 *   clscan_sort_by_key:  the same, with values_in (n elements of `value_type`) moved with their keys into
 *                        values_out; in place when both outputs are their inputs
 *   clscan_sorted_order: indices_out[j] = the position (from keys_in_offset) of the j-th key in sorted
 *                        order (argsort), as `index_type` CLSCAN_TYPE_UINT32 (n <= 2^32) or
 *                        CLSCAN_TYPE_UINT64; the keys are only read
 *
 * Beside the user's buffers a sort holds about n * (key size + value size) + n bytes of device memory,
 * kept per (context, device) for later sorts (<clscan/sort.hpp> itemises it). Otherwise as the scans:
 * `options` may be NULL, `event` receives the last command's event, n == 0 enqueues a marker only. */
CLSCAN_C_API clscan_status clscan_sort(cl_command_queue queue, cl_mem keys_in, cl_mem keys_out, size_t n,
                                       clscan_type key_type, const clscan_sort_options* options,
                                       cl_event* event);
CLSCAN_C_API clscan_status clscan_sort_by_key(cl_command_queue queue, cl_mem keys_in, cl_mem values_in,
                                              cl_mem keys_out, cl_mem values_out, size_t n,
                                              clscan_type key_type, clscan_type value_type,
                                              const clscan_sort_options* options, cl_event* event);
CLSCAN_C_API clscan_status clscan_sorted_order(cl_command_queue queue, cl_mem keys, cl_mem indices_out,
                                               size_t n, clscan_type key_type, clscan_type index_type,
                                               const clscan_sort_options* options, cl_event* event);

/* What went wrong in this thread's most recent call that returns a clscan_status: a message naming the
 * problem (with the build log for CLSCAN_BUILD_ERROR), or "" after a success. Valid until this thread's
 * next such call. */
CLSCAN_C_API const char* clscan_last_error_message(void);
/* The OpenCL status of that call's failure for CLSCAN_OPENCL_ERROR and CLSCAN_BUILD_ERROR, else
 * CL_SUCCESS. */
CLSCAN_C_API cl_int clscan_last_opencl_status(void);

/* "CLSCAN_SUCCESS", "CLSCAN_INVALID_ARGUMENT", ...; "CLSCAN_UNKNOWN_STATUS" for other values. */
CLSCAN_C_API const char* clscan_status_name(clscan_status status);
/* The name of an OpenCL status code, e.g. "CL_OUT_OF_RESOURCES"; "CL_UNKNOWN_ERROR" for others. */
CLSCAN_C_API const char* clscan_opencl_status_name(cl_int status);
/* The version of the library linked, e.g. "0.1.0" (CLSCAN_VERSION_STRING is the header's). */
CLSCAN_C_API const char* clscan_version(void);

/* The device clscan's tools and tests use: the one CLSCAN_PLATFORM and CLSCAN_DEVICE name when set,
 * else the first GPU of any platform, else the first device. A root device: nothing to release. */
CLSCAN_C_API clscan_status clscan_select_device(cl_device_id* device);

/* clscan keeps compiled programs and temporary buffers per (context, device) and retains the context
 * (README.md "Usage"). These release all of them, or those of one context; commands already enqueued
 * finish normally. Neither is needed before exit. */
CLSCAN_C_API clscan_status clscan_release_cached_resources(void);
CLSCAN_C_API clscan_status clscan_release_context_resources(cl_context context);
/* At most `contexts` (at least 1) (context, device) entries are kept; the default is 4 or
 * CLSCAN_MAX_CONTEXTS. */
CLSCAN_C_API clscan_status clscan_set_cache_limit(size_t contexts);
CLSCAN_C_API clscan_status clscan_get_cache_limit(size_t* contexts);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* NOLINTEND(modernize-deprecated-headers, modernize-redundant-void-arg) */
/* NOLINTEND(modernize-use-using, modernize-use-nullptr) */
#endif /* CLSCAN_CLSCAN_H */
