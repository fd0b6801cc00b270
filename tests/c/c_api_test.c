/* The C API (include/clscan/clscan.h), from C: compiled as C99 with -pedantic, no test framework.
 *
 *   c_api_test            every call: exact results against a host loop for every type and operator, in
 *                         place and out of place, offsets, initial values, options left NULL, wait lists,
 *                         returned events, n == 0; the selections (count, output bit for bit, nothing
 *                         written past the count) and the scans by key (key patterns and types); every
 *                         status the default device can be made to return, with buffers untouched and no
 *                         event after a failure; names, version, cache calls; the last error message per
 *                         thread
 *   c_api_test sort           the sorts: every key type and call against a stable merge sort in numpy's
 *                             order, bit for bit (NaN, -0.0, infinities, denormals), value and index
 *                             types, offsets, in place, descending, bit ranges; their failures
 *   c_api_test unsupported    under CLSCAN_DEVICE_LIMITS=no_fp64: CLSCAN_TYPE_FLOAT64 elements or keys
 *                             -> CLSCAN_UNSUPPORTED
 *   c_api_test opencl-error   temporaries past the allocation limit -> CLSCAN_OPENCL_ERROR
 *                             (tests/CMakeLists.txt sets the environment that forces it)
 *   c_api_test no-device      under a CLSCAN_PLATFORM that matches nothing -> CLSCAN_DEVICE_NOT_FOUND
 *
 * Prints "c-api: skipped: <why>" where a mode cannot provoke its failure on the device; exits nonzero
 * on any failed check.
 *
 * Each call family keeps its own case struct, run_* and make_*, with its buffers made, checked and
 * freed in place: C has no templates, and one driver of callbacks would hide which C signature each
 * call is checked through. Each refusal is one EXPECT_FAILURE of its own, so that a failure names the
 * call and arguments that were not refused; their lists look alike on purpose. */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120

#include <clscan/clscan.h>

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(condition)                                                                                     \
  do {                                                                                                       \
    if (!(condition)) {                                                                                      \
      ++failures;                                                                                            \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition);                          \
    }                                                                                                        \
  } while (0)

/* An OpenCL call of the test itself (not of clscan) that must succeed for the test to go on. */
#define REQUIRE_CL(call)                                                                                     \
  do {                                                                                                       \
    cl_int required_status_ = (call);                                                                        \
    if (required_status_ != CL_SUCCESS) {                                                                    \
      fprintf(stderr, "%s:%d: %s returned %s\n", __FILE__, __LINE__, #call,                                  \
              clscan_opencl_status_name(required_status_));                                                  \
      exit(1);                                                                                               \
    }                                                                                                        \
  } while (0)

static cl_device_id device;
static cl_context context;
static cl_command_queue queue;

static const unsigned char poison_byte = 0xA5;

static const clscan_type all_types[] = {CLSCAN_TYPE_INT32,  CLSCAN_TYPE_UINT32,  CLSCAN_TYPE_INT64,
                                        CLSCAN_TYPE_UINT64, CLSCAN_TYPE_FLOAT32, CLSCAN_TYPE_FLOAT64};
static const char* const type_names[] = {"int32", "uint32", "int64", "uint64", "float32", "float64"};
static const char* const op_names[] = {"sum", "min", "max", "and", "or", "xor", "custom"};

static size_t element_size(clscan_type type) {
  return type == CLSCAN_TYPE_INT32 || type == CLSCAN_TYPE_UINT32 || type == CLSCAN_TYPE_FLOAT32 ? 4 : 8;
}

static int is_floating(clscan_type type) {
  return type == CLSCAN_TYPE_FLOAT32 || type == CLSCAN_TYPE_FLOAT64;
}

/* Element i of a byte array: the union's members all start at its first byte. */
static clscan_value load(const unsigned char* bytes, size_t i, clscan_type type) {
  clscan_value value;
  value.u64 = 0;
  memcpy(&value, bytes + i * element_size(type), element_size(type));
  return value;
}

static void store(unsigned char* bytes, size_t i, clscan_type type, clscan_value value) {
  memcpy(bytes + i * element_size(type), &value, element_size(type));
}

/* ==, as unique and the by-key calls compare (a NaN equals nothing). */
static int equal_elements(clscan_type type, clscan_value a, clscan_value b) {
  switch (type) {
  case CLSCAN_TYPE_INT32: return a.i32 == b.i32;
  case CLSCAN_TYPE_UINT32: return a.u32 == b.u32;
  case CLSCAN_TYPE_INT64: return a.i64 == b.i64;
  case CLSCAN_TYPE_UINT64: return a.u64 == b.u64;
  case CLSCAN_TYPE_FLOAT32: return a.f32 == b.f32;
  case CLSCAN_TYPE_FLOAT64: return a.f64 == b.f64;
  }
  return 0;
}

/* Integers compare exactly; floating-point values by value, with every NaN equal to every NaN (fmin and
 * fmax need not keep a payload). */
static int same_value(clscan_type type, clscan_value a, clscan_value b) {
  if (type == CLSCAN_TYPE_FLOAT32 && isnan(a.f32) && isnan(b.f32)) return 1;
  if (type == CLSCAN_TYPE_FLOAT64 && isnan(a.f64) && isnan(b.f64)) return 1;
  return equal_elements(type, a, b);
}

static void describe(char* text, size_t size, clscan_type type, clscan_value value) {
  switch (type) {
  case CLSCAN_TYPE_INT32: snprintf(text, size, "%ld", (long)value.i32); break;
  case CLSCAN_TYPE_UINT32: snprintf(text, size, "%lu", (unsigned long)value.u32); break;
  case CLSCAN_TYPE_INT64: snprintf(text, size, "%lld", (long long)value.i64); break;
  case CLSCAN_TYPE_UINT64: snprintf(text, size, "%llu", (unsigned long long)value.u64); break;
  case CLSCAN_TYPE_FLOAT32: snprintf(text, size, "%.9g", (double)value.f32); break;
  case CLSCAN_TYPE_FLOAT64: snprintf(text, size, "%.17g", value.f64); break;
  }
}

/* The custom operator the tests use: a product, which wraps around in unsigned arithmetic in C and in
 * OpenCL C alike. */
static const char* const custom_product = "a * b";

#define INTEGER_COMBINE(field, T, UT)                                                                        \
  switch (op) {                                                                                              \
  case CLSCAN_OP_SUM: r.field = (T)((UT)a.field + (UT)b.field); break;                                       \
  case CLSCAN_OP_MIN: r.field = a.field < b.field ? a.field : b.field; break;                                \
  case CLSCAN_OP_MAX: r.field = a.field > b.field ? a.field : b.field; break;                                \
  case CLSCAN_OP_AND: r.field = a.field & b.field; break;                                                    \
  case CLSCAN_OP_OR: r.field = a.field | b.field; break;                                                     \
  case CLSCAN_OP_XOR: r.field = a.field ^ b.field; break;                                                    \
  case CLSCAN_OP_CUSTOM: r.field = (T)((UT)a.field * (UT)b.field); break;                                    \
  }

/* fmin and fmax: a NaN never hides a number. */
#define FLOATING_COMBINE(field)                                                                              \
  switch (op) {                                                                                              \
  case CLSCAN_OP_SUM: r.field = a.field + b.field; break;                                                    \
  case CLSCAN_OP_MIN:                                                                                        \
    r.field = isnan(a.field) ? b.field : isnan(b.field) ? a.field : a.field < b.field ? a.field : b.field;   \
    break;                                                                                                   \
  case CLSCAN_OP_MAX:                                                                                        \
    r.field = isnan(a.field) ? b.field : isnan(b.field) ? a.field : a.field > b.field ? a.field : b.field;   \
    break;                                                                                                   \
  default: r.field = a.field * b.field; break;                                                               \
  }

static clscan_value combine(clscan_type type, clscan_op op, clscan_value a, clscan_value b) {
  clscan_value r;
  r.u64 = 0;
  switch (type) {
  case CLSCAN_TYPE_INT32: INTEGER_COMBINE(i32, cl_int, cl_uint) break;
  case CLSCAN_TYPE_UINT32: INTEGER_COMBINE(u32, cl_uint, cl_uint) break;
  case CLSCAN_TYPE_INT64: INTEGER_COMBINE(i64, cl_long, cl_ulong) break;
  case CLSCAN_TYPE_UINT64: INTEGER_COMBINE(u64, cl_ulong, cl_ulong) break;
  case CLSCAN_TYPE_FLOAT32: FLOATING_COMBINE(f32) break;
  case CLSCAN_TYPE_FLOAT64: FLOATING_COMBINE(f64) break;
  }
  return r;
}

/* The identities README.md documents: a floating-point sum's is -0.0, fmin's and fmax's NaN. */
static clscan_value identity(clscan_type type, const clscan_options* options) {
  clscan_value r;
  const int floating = is_floating(type);
  r.u64 = 0;
  switch (options->operation) {
  case CLSCAN_OP_SUM:
    if (type == CLSCAN_TYPE_FLOAT32) r.f32 = -0.0f;
    if (type == CLSCAN_TYPE_FLOAT64) r.f64 = -0.0;
    break;
  case CLSCAN_OP_MIN:
  case CLSCAN_OP_MAX: {
    const int is_min = options->operation == CLSCAN_OP_MIN;
    if (floating) {
      if (type == CLSCAN_TYPE_FLOAT32)
        r.f32 = NAN;
      else
        r.f64 = NAN;
    } else if (type == CLSCAN_TYPE_INT32) {
      r.i32 = is_min ? INT32_MAX : INT32_MIN;
    } else if (type == CLSCAN_TYPE_UINT32) {
      r.u32 = is_min ? UINT32_MAX : 0;
    } else if (type == CLSCAN_TYPE_INT64) {
      r.i64 = is_min ? INT64_MAX : INT64_MIN;
    } else {
      r.u64 = is_min ? UINT64_MAX : 0;
    }
    break;
  }
  case CLSCAN_OP_AND: r.u64 = UINT64_MAX; break;
  case CLSCAN_OP_OR:
  case CLSCAN_OP_XOR: break;
  case CLSCAN_OP_CUSTOM: r = options->custom_identity; break;
  }
  return r;
}

/* The scan as a host loop. An inclusive scan's first element is the input's (or initial op it). */
static void reference_scan(clscan_type type, int exclusive, const clscan_options* options,
                           const unsigned char* in, unsigned char* out, size_t n) {
  clscan_value acc = options->has_initial ? options->initial : identity(type, options);
  size_t i;
  for (i = 0; i < n; ++i) {
    const clscan_value x = load(in, i, type);
    if (exclusive) {
      store(out, i, type, acc);
      acc = combine(type, options->operation, acc, x);
    } else {
      acc = i == 0 && !options->has_initial ? x : combine(type, options->operation, acc, x);
      store(out, i, type, acc);
    }
  }
}

/* The low bits of x as an integer of `type`. */
static clscan_value integer_value(clscan_type type, uint64_t x) {
  clscan_value v;
  v.u64 = 0;
  switch (type) {
  case CLSCAN_TYPE_INT32: v.i32 = (cl_int)(int32_t)(uint32_t)x; break;
  case CLSCAN_TYPE_UINT32: v.u32 = (cl_uint)x; break;
  case CLSCAN_TYPE_INT64: v.i64 = (cl_long)(int64_t)x; break;
  case CLSCAN_TYPE_UINT64: v.u64 = x; break;
  case CLSCAN_TYPE_FLOAT32: v.f32 = (cl_float)x; break;
  case CLSCAN_TYPE_FLOAT64: v.f64 = (cl_double)x; break;
  }
  return v;
}

/* Input data that makes each operator's scan change along the way; floating-point sums stay exact
 * (small integers), so any order of combination gives the host loop's result. */
static clscan_value input_value(clscan_type type, clscan_op op, size_t i) {
  clscan_value v;
  const uint32_t hash = (uint32_t)(i * 2654435761u);
  const uint64_t hash64 = (uint64_t)hash * 0x9E3779B97F4A7C15ull;
  const unsigned bits = (unsigned)(element_size(type) * 8);
  const long small = (long)((i * 7 + 3) % 17) - 8;
  v.u64 = 0;
  switch (op) {
  case CLSCAN_OP_SUM:
    switch (type) {
    case CLSCAN_TYPE_INT32: v.i32 = (cl_int)small; break;
    case CLSCAN_TYPE_UINT32: v.u32 = (cl_uint)(small + 8); break;
    /* Past 32 bits, so that a 32-bit scan of 64-bit data cannot pass. */
    case CLSCAN_TYPE_INT64: v.i64 = (cl_long)small * 0x100000001ll; break;
    case CLSCAN_TYPE_UINT64: v.u64 = (cl_ulong)(small + 8) * 0x100000001ull; break;
    case CLSCAN_TYPE_FLOAT32: v.f32 = (cl_float)small; break;
    case CLSCAN_TYPE_FLOAT64: v.f64 = (cl_double)small; break;
    }
    break;
  case CLSCAN_OP_MIN:
  case CLSCAN_OP_MAX:
  case CLSCAN_OP_XOR:
    switch (type) {
    case CLSCAN_TYPE_INT32: v.i32 = (cl_int)(int32_t)hash; break;
    case CLSCAN_TYPE_UINT32: v.u32 = hash; break;
    case CLSCAN_TYPE_INT64: v.i64 = (cl_long)(int64_t)hash64; break;
    case CLSCAN_TYPE_UINT64: v.u64 = hash64; break;
    case CLSCAN_TYPE_FLOAT32: v.f32 = (cl_float)((long)(hash % 2001) - 1000); break;
    case CLSCAN_TYPE_FLOAT64: v.f64 = (cl_double)((long)(hash % 2001) - 1000); break;
    }
    break;
  case CLSCAN_OP_AND: v = integer_value(type, ~((uint64_t)1 << (i % bits))); break;
  case CLSCAN_OP_OR: v = integer_value(type, (uint64_t)1 << (i % bits)); break;
  case CLSCAN_OP_CUSTOM: v = integer_value(type, 2 * (uint64_t)i + 1); break;
  }
  return v;
}

static void* checked_malloc(size_t bytes) {
  void* memory = malloc(bytes ? bytes : 1);
  if (!memory) {
    fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return memory;
}

static cl_mem create_buffer(size_t bytes) {
  cl_int status = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &status);
  REQUIRE_CL(status);
  return buffer;
}

static void write_buffer(cl_mem buffer, const void* bytes, size_t size) {
  REQUIRE_CL(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, size, bytes, 0, NULL, NULL));
}

static void read_buffer(cl_mem buffer, void* bytes, size_t size) {
  REQUIRE_CL(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, size, bytes, 0, NULL, NULL));
}

/* What every call that must succeed is checked for first: reports its failure under `label`, or checks
 * that it left no error behind and waits for its work, on `done` or, where the call was not asked for
 * an event (`asked_event` 0), with clFinish. Returns whether it succeeded. */
static int succeeded(const char* label, clscan_status status, cl_event done, int asked_event) {
  if (status != CLSCAN_SUCCESS) {
    fprintf(stderr, "%s: %s: %s\n", label, clscan_status_name(status), clscan_last_error_message());
    ++failures;
    return 0;
  }
  if (strcmp(clscan_last_error_message(), "") != 0 || clscan_last_opencl_status() != CL_SUCCESS) {
    fprintf(stderr, "%s: succeeded, but the last error is \"%s\", status %s\n", label,
            clscan_last_error_message(), clscan_opencl_status_name(clscan_last_opencl_status()));
    ++failures;
  }
  if (!asked_event) {
    REQUIRE_CL(clFinish(queue));
  } else if (!done) {
    fprintf(stderr, "%s: succeeded without an event\n", label);
    ++failures;
    REQUIRE_CL(clFinish(queue));
  } else {
    REQUIRE_CL(clWaitForEvents(1, &done));
  }
  return 1;
}

/* Compares the `count` elements of `actual` read back from a call's output with `expected`: those in
 * [first, end) by value where `by_value` (same_value: a NaN result where NaN is expected), all others bit
 * for bit (the poison around a result, or copies). Reports the first difference under `label`, naming
 * the buffer (`which`). */
static void check_elements(const char* label, const char* which, clscan_type type,
                           const unsigned char* actual, const unsigned char* expected, size_t count,
                           size_t first, size_t end, int by_value) {
  const size_t size = element_size(type);
  size_t i;
  for (i = 0; i < count; ++i) {
    const int in_range = i >= first && i < end;
    const int same = in_range && by_value ? same_value(type, load(actual, i, type), load(expected, i, type))
                                          : memcmp(actual + i * size, expected + i * size, size) == 0;
    if (!same) {
      char got[64], want[64];
      describe(got, sizeof got, type, load(actual, i, type));
      describe(want, sizeof want, type, load(expected, i, type));
      fprintf(stderr, "%s: %s element %zu is %s, expected %s%s\n", label, which, i, got, want,
              in_range ? "" : " (outside the result: not to be written)");
      ++failures;
      return;
    }
  }
}

/* Reports under `label` if `buffer`, which the call only reads, no longer holds `image`. */
static void check_unchanged(const char* label, const char* which, cl_mem buffer, const void* image,
                            size_t bytes) {
  void* after = checked_malloc(bytes);
  read_buffer(buffer, after, bytes);
  if (memcmp(after, image, bytes) != 0) {
    fprintf(stderr, "%s: the %s changed\n", label, which);
    ++failures;
  }
  free(after);
}

/* One scan through the C API, checked against the host loop: every element in range exact, every
 * element outside it still poison, the input of an out-of-place scan unchanged. */
typedef struct scan_case {
  clscan_type type;
  int exclusive;
  int in_place;
  size_t n;
  clscan_options options;
  int pass_null_options; /* pass NULL instead of `options` (which must then hold the defaults) */
  int pass_null_event;   /* wait with clFinish instead of the returned event */
} scan_case;

static void run_case(const scan_case* c) {
  const size_t size = element_size(c->type);
  const size_t guard = 5;
  const size_t in_count = c->options.in_offset + c->n + guard;
  const size_t out_count = c->options.out_offset + c->n + guard;
  const size_t count = in_count > out_count ? in_count : out_count;
  unsigned char* initial_in = checked_malloc(count * size);
  unsigned char* expected = checked_malloc(count * size);
  unsigned char* actual = checked_malloc(count * size);
  cl_mem in = create_buffer(count * size);
  cl_mem out = c->in_place ? in : create_buffer(count * size);
  cl_event done = NULL;
  clscan_status status;
  size_t i;
  char label[160];

  snprintf(label, sizeof label, "%s %s %s, n %zu, op %s, offsets %zu/%zu%s%s",
           c->exclusive ? "exclusive" : "inclusive", type_names[c->type],
           c->in_place ? "in place" : "out of place", c->n, op_names[c->options.operation],
           c->options.in_offset, c->options.out_offset, c->options.has_initial ? ", initial" : "",
           c->options.algorithm == CLSCAN_ALGORITHM_SINGLE_PASS   ? ", single_pass"
           : c->options.algorithm == CLSCAN_ALGORITHM_THREE_STAGE ? ", three_stage"
                                                                  : "");
  memset(initial_in, poison_byte, count * size);
  for (i = 0; i < c->n; ++i)
    store(initial_in, c->options.in_offset + i, c->type, input_value(c->type, c->options.operation, i));
  write_buffer(in, initial_in, count * size);
  if (!c->in_place) {
    memset(actual, poison_byte, count * size);
    write_buffer(out, actual, count * size);
  }

  memset(expected, poison_byte, count * size);
  if (c->in_place) memcpy(expected, initial_in, count * size);
  reference_scan(c->type, c->exclusive, &c->options, initial_in + c->options.in_offset * size,
                 expected + c->options.out_offset * size, c->n);

  {
    const clscan_options* options = c->pass_null_options ? NULL : &c->options;
    cl_event* event = c->pass_null_event ? NULL : &done;
    status = c->exclusive ? clscan_exclusive(queue, in, out, c->n, c->type, options, event)
                          : clscan_inclusive(queue, in, out, c->n, c->type, options, event);
  }
  if (succeeded(label, status, done, !c->pass_null_event)) {
    read_buffer(out, actual, count * size);
    check_elements(label, "output", c->type, actual, expected, count, c->options.out_offset,
                   c->options.out_offset + c->n, 1);
    if (!c->in_place) check_unchanged(label, "input", in, initial_in, count * size);
  }
  if (done) clReleaseEvent(done);
  if (!c->in_place) clReleaseMemObject(out);
  clReleaseMemObject(in);
  free(initial_in);
  free(expected);
  free(actual);
}

static scan_case make_case(clscan_type type, int exclusive, int in_place, size_t n) {
  scan_case c = {.type = type, .exclusive = exclusive, .in_place = in_place, .n = n};
  clscan_options_init(&c.options);
  return c;
}

static int device_has_fp64(void) {
  cl_device_fp_config config = 0;
  REQUIRE_CL(clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof config, &config, NULL));
  return config != 0;
}

static void test_types(void) {
  size_t t;
  int exclusive, in_place;
  for (t = 0; t < sizeof all_types / sizeof all_types[0]; ++t) {
    if (all_types[t] == CLSCAN_TYPE_FLOAT64 && !device_has_fp64()) {
      printf("c-api: float64 scans not run: the device has no fp64\n");
      continue;
    }
    for (exclusive = 0; exclusive <= 1; ++exclusive)
      for (in_place = 0; in_place <= 1; ++in_place) {
        /* Several tiles on every device (PoCL's single-pass tiles hold 262144 elements). */
        scan_case c = make_case(all_types[t], exclusive, in_place, 300007);
        run_case(&c);
        /* One element (each further type would add a kernel build, and n is the C++ API's business). */
        if (all_types[t] == CLSCAN_TYPE_INT32) {
          c.n = 1;
          run_case(&c);
        }
      }
  }
}

static void test_operators(void) {
  /* Each operator once, on a type that shows it (a swapped mapping of two operators fails). */
  const struct {
    clscan_type type;
    clscan_op op;
  } cases[] = {{CLSCAN_TYPE_FLOAT32, CLSCAN_OP_MIN}, {CLSCAN_TYPE_INT64, CLSCAN_OP_MAX},
               {CLSCAN_TYPE_UINT32, CLSCAN_OP_AND},  {CLSCAN_TYPE_UINT64, CLSCAN_OP_OR},
               {CLSCAN_TYPE_INT32, CLSCAN_OP_XOR},   {CLSCAN_TYPE_UINT32, CLSCAN_OP_CUSTOM}};
  size_t i;
  int exclusive;
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    for (exclusive = 0; exclusive <= 1; ++exclusive) {
      scan_case c = make_case(cases[i].type, exclusive, 0, 3001);
      c.options.operation = cases[i].op;
      if (cases[i].op == CLSCAN_OP_CUSTOM) {
        c.options.custom_op = custom_product;
        c.options.custom_identity.u32 = 1;
      }
      run_case(&c);
    }
}

static void test_options(void) {
  scan_case c;
  int exclusive;
  for (exclusive = 0; exclusive <= 1; ++exclusive) {
    /* Initial values, of a signed and a floating-point type. */
    c = make_case(CLSCAN_TYPE_INT32, exclusive, 0, 1000);
    c.options.has_initial = 1;
    c.options.initial.i32 = -12345;
    run_case(&c);
    c = make_case(CLSCAN_TYPE_FLOAT32, exclusive, 1, 1000);
    c.options.has_initial = 1;
    c.options.initial.f32 = 2.5f;
    run_case(&c);
    /* Offsets: out of place different ones, in place the same one. */
    c = make_case(CLSCAN_TYPE_INT32, exclusive, 0, 1000);
    c.options.in_offset = 3;
    c.options.out_offset = 7;
    run_case(&c);
    c = make_case(CLSCAN_TYPE_INT64, exclusive, 1, 1000);
    c.options.in_offset = 11;
    c.options.out_offset = 11;
    c.options.has_initial = 1;
    c.options.initial.i64 = -0x123456789ll; /* past 32 bits */
    run_case(&c);
    if (device_has_fp64()) {
      c = make_case(CLSCAN_TYPE_FLOAT64, exclusive, 0, 1000);
      c.options.has_initial = 1;
      c.options.initial.f64 = 1e12;
      run_case(&c);
    }
    /* Options left NULL, and no event asked for. */
    c = make_case(CLSCAN_TYPE_INT32, exclusive, 0, 1000);
    c.pass_null_options = 1;
    c.pass_null_event = 1;
    run_case(&c);
  }
  /* Each algorithm forced; deterministic floating-point scans. */
  c = make_case(CLSCAN_TYPE_INT32, 0, 0, 300007);
  c.options.algorithm = CLSCAN_ALGORITHM_THREE_STAGE;
  run_case(&c);
  c.options.algorithm = CLSCAN_ALGORITHM_SINGLE_PASS;
  run_case(&c);
  c = make_case(CLSCAN_TYPE_FLOAT32, 1, 0, 300007);
  c.options.deterministic = 1;
  run_case(&c);
}

/* A scan gated on a user event (and a non-blocking upload) does not complete before the gate opens;
 * its returned event then completes with the result in place. */
static void test_wait_list_and_events(void) {
  const size_t n = 1000;
  cl_int data[1000], result[1000];
  cl_event waits[2] = {NULL, NULL};
  cl_event done = NULL;
  cl_int status = CL_SUCCESS, execution = CL_COMPLETE;
  cl_context event_context = NULL;
  clscan_options options = CLSCAN_OPTIONS_INIT;
  cl_mem buffer = create_buffer(n * sizeof(cl_int));
  cl_int sum = 0;
  size_t i;
  for (i = 0; i < n; ++i)
    data[i] = (cl_int)(i % 5) - 2;
  REQUIRE_CL(clEnqueueWriteBuffer(queue, buffer, CL_FALSE, 0, sizeof data, data, 0, NULL, &waits[0]));
  waits[1] = clCreateUserEvent(context, &status);
  REQUIRE_CL(status);
  options.wait_list = waits;
  options.wait_list_size = 2;

  CHECK(clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_INT32, &options, &done) == CLSCAN_SUCCESS);
  CHECK(done != NULL);
  if (done) {
    REQUIRE_CL(clGetEventInfo(done, CL_EVENT_CONTEXT, sizeof event_context, &event_context, NULL));
    CHECK(event_context == context);
    REQUIRE_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof execution, &execution, NULL));
    CHECK(execution != CL_COMPLETE);
  }
  REQUIRE_CL(clSetUserEventStatus(waits[1], CL_COMPLETE));
  if (done) {
    REQUIRE_CL(clWaitForEvents(1, &done));
    REQUIRE_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof execution, &execution, NULL));
    CHECK(execution == CL_COMPLETE);
    clReleaseEvent(done);
  }
  read_buffer(buffer, result, sizeof result);
  for (i = 0; i < n; ++i) {
    sum += data[i];
    if (result[i] != sum) {
      fprintf(stderr, "gated scan: element %zu is %ld, expected %ld\n", i, (long)result[i], (long)sum);
      ++failures;
      break;
    }
  }

  /* n == 0: a marker that waits for the wait list; its event completes. */
  done = NULL;
  CHECK(clscan_exclusive(queue, buffer, buffer, 0, CLSCAN_TYPE_INT32, &options, &done) == CLSCAN_SUCCESS);
  CHECK(done != NULL);
  if (done) {
    REQUIRE_CL(clWaitForEvents(1, &done));
    clReleaseEvent(done);
  }
  clReleaseEvent(waits[0]);
  clReleaseEvent(waits[1]);
  clReleaseMemObject(buffer);
}

/* Checks a call that must fail: its status, a message that names the problem, no event, and the
 * buffer's contents as they were. */
static void expect_failure(const char* what, clscan_status status, clscan_status expected, const char* needle,
                           cl_event event) {
  const char* message = clscan_last_error_message();
  if (status != expected) {
    fprintf(stderr, "%s: returned %s, expected %s (message: %s)\n", what, clscan_status_name(status),
            clscan_status_name(expected), message);
    ++failures;
    return;
  }
  if (message[0] == '\0' || (needle && !strstr(message, needle))) {
    fprintf(stderr, "%s: the message does not name the problem (\"%s\" expected in it): %s\n", what,
            needle ? needle : "", message);
    ++failures;
  }
  /* C callers see clscan.h's names, not the C++ API's (a build log is the compiler's own text). */
  if (expected != CLSCAN_BUILD_ERROR && strstr(message, "::")) {
    fprintf(stderr, "%s: the message names the C++ API: %s\n", what, message);
    ++failures;
  }
  if (event) {
    fprintf(stderr, "%s: an event was returned by a failed call\n", what);
    ++failures;
  }
  if (expected != CLSCAN_OPENCL_ERROR && expected != CLSCAN_BUILD_ERROR)
    CHECK(clscan_last_opencl_status() == CL_SUCCESS);
}

/* expect_failure of one call, in a function that declares `status`, `event` and `stale` (anything but
 * NULL, which a failed call must replace with NULL). */
#define EXPECT_FAILURE(what, call, expected, needle)                                                         \
  do {                                                                                                       \
    event = stale;                                                                                           \
    status = (call);                                                                                         \
    expect_failure(what, status, expected, needle, event);                                                   \
  } while (0)

static void test_errors(void) {
  enum { n = 64 };
  cl_int data[n], after[n];
  cl_mem buffer = create_buffer(n * sizeof(cl_int));
  cl_mem other = create_buffer(n * sizeof(cl_int));
  clscan_options options;
  clscan_status status;
  cl_event event;
  /* Anything but NULL: a failed call must set the event to NULL. */
  cl_event* const not_null = &event;
  const cl_event stale = (cl_event)&event;
  size_t i;
  for (i = 0; i < n; ++i)
    data[i] = (cl_int)i * 3 - 50;
  write_buffer(buffer, data, sizeof data);

  EXPECT_FAILURE("null queue", clscan_inclusive(NULL, buffer, buffer, n, CLSCAN_TYPE_INT32, NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "queue");
  EXPECT_FAILURE("null input", clscan_inclusive(queue, NULL, buffer, n, CLSCAN_TYPE_INT32, NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "input");
  EXPECT_FAILURE("null output", clscan_exclusive(queue, buffer, NULL, n, CLSCAN_TYPE_INT32, NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "output");
  EXPECT_FAILURE("n past the buffer",
                 clscan_inclusive(queue, buffer, buffer, n + 1, CLSCAN_TYPE_INT32, NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "fewer than");
  EXPECT_FAILURE("n past the buffer as int64",
                 clscan_inclusive(queue, buffer, other, n / 2 + 1, CLSCAN_TYPE_INT64, NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "fewer than");
  EXPECT_FAILURE("unknown type", clscan_inclusive(queue, buffer, buffer, n, (clscan_type)99, NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "clscan_type");

  options.struct_size = 0;
  EXPECT_FAILURE("struct_size 0",
                 clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_INT32, &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "struct_size");
  clscan_options_init(&options);
  options.struct_size = sizeof options + 8;
  EXPECT_FAILURE("struct_size too large",
                 clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_INT32, &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "struct_size");

  clscan_options_init(&options);
  options.operation = (clscan_op)42;
  EXPECT_FAILURE("unknown op",
                 clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_INT32, &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "clscan_op");
  clscan_options_init(&options);
  options.algorithm = (clscan_algorithm)42;
  EXPECT_FAILURE("unknown algorithm",
                 clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_INT32, &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "clscan_algorithm");
  clscan_options_init(&options);
  options.operation = CLSCAN_OP_CUSTOM;
  EXPECT_FAILURE("custom op NULL",
                 clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_INT32, &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "custom_op");
  options.custom_op = "";
  EXPECT_FAILURE("custom op empty",
                 clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_INT32, &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "custom_op");
  clscan_options_init(&options);
  options.wait_list_size = 1;
  EXPECT_FAILURE("wait list NULL with a size",
                 clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_INT32, &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "wait_list");
  {
    cl_event null_event = NULL;
    options.wait_list = &null_event;
    EXPECT_FAILURE("null event in the wait list",
                   clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_INT32, &options, not_null),
                   CLSCAN_INVALID_ARGUMENT, "wait_list[0]");
  }
  clscan_options_init(&options);
  options.operation = CLSCAN_OP_XOR;
  EXPECT_FAILURE("bitwise operator on float",
                 clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_FLOAT32, &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "integer");
  clscan_options_init(&options);
  options.in_offset = 0;
  options.out_offset = 1;
  EXPECT_FAILURE("overlapping ranges in place",
                 clscan_inclusive(queue, buffer, buffer, n / 2, CLSCAN_TYPE_INT32, &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "overlap");

  /* A custom operator that does not compile: the build log is in the message. */
  clscan_options_init(&options);
  options.operation = CLSCAN_OP_CUSTOM;
  options.custom_op = "a +* b";
  options.custom_identity.i32 = 0;
  EXPECT_FAILURE("custom op that does not compile",
                 clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_INT32, &options, not_null),
                 CLSCAN_BUILD_ERROR, "build log");
  CHECK(clscan_last_opencl_status() != CL_SUCCESS);
  if (status == CLSCAN_BUILD_ERROR) printf("c-api: build error message:\n%s\n", clscan_last_error_message());

  /* A success clears the message. */
  CHECK(clscan_inclusive(queue, other, other, 0, CLSCAN_TYPE_INT32, NULL, NULL) == CLSCAN_SUCCESS);
  CHECK(strcmp(clscan_last_error_message(), "") == 0);
  CHECK(clscan_last_opencl_status() == CL_SUCCESS);

  REQUIRE_CL(clFinish(queue));
  read_buffer(buffer, after, sizeof after);
  if (memcmp(after, data, sizeof data) != 0) {
    fprintf(stderr, "a failed call changed the buffer\n");
    ++failures;
  }
  if (!device_has_fp64())
    EXPECT_FAILURE("float64 without fp64",
                   clscan_inclusive(queue, buffer, buffer, n / 2, CLSCAN_TYPE_FLOAT64, NULL, not_null),
                   CLSCAN_UNSUPPORTED, "fp64");
  else
    printf("c-api: CLSCAN_UNSUPPORTED not provoked here: the device has fp64 (the c-api-unsupported test "
           "covers it)\n");
  clReleaseMemObject(other);
  clReleaseMemObject(buffer);
}

/* ---- Stream compaction and segmented scans ---- */

/* A well-mixed 64-bit function of x (the data of the tests below is a function of the index). */
static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* A small integer as an element of `type`; 64-bit integers move it past bit 32, so that a call that
 * handles them as 32-bit values (copies or compares only the low half) cannot pass. */
static clscan_value wide_value(clscan_type type, long long small) {
  clscan_value v;
  v.u64 = 0;
  switch (type) {
  case CLSCAN_TYPE_INT32: v.i32 = (cl_int)small; break;
  case CLSCAN_TYPE_UINT32: v.u32 = (cl_uint)small; break;
  case CLSCAN_TYPE_INT64: v.i64 = (cl_long)small * 0x100000000ll; break;
  case CLSCAN_TYPE_UINT64: v.u64 = (cl_ulong)small * 0x100000000ull; break;
  case CLSCAN_TYPE_FLOAT32: v.f32 = (cl_float)small; break;
  case CLSCAN_TYPE_FLOAT64: v.f64 = (cl_double)small; break;
  }
  return v;
}

/* "x > 0" on the host. */
static int positive(clscan_type type, clscan_value x) {
  switch (type) {
  case CLSCAN_TYPE_INT32: return x.i32 > 0;
  case CLSCAN_TYPE_UINT32: return x.u32 > 0;
  case CLSCAN_TYPE_INT64: return x.i64 > 0;
  case CLSCAN_TYPE_UINT64: return x.u64 > 0;
  case CLSCAN_TYPE_FLOAT32: return x.f32 > 0;
  case CLSCAN_TYPE_FLOAT64: return x.f64 > 0;
  }
  return 0;
}

/* Runs of equal values: run r holds one of three values (so neighbouring runs are sometimes equal and
 * merge) and is 1 .. 2 * max_run long; max_run 0: one run of everything. */
static void fill_runs(unsigned char* bytes, size_t n, clscan_type type, size_t max_run, uint64_t seed) {
  size_t i = 0, run = 0, j;
  while (i < n) {
    const size_t length = max_run == 0 ? n : 1 + (size_t)(mix(seed + 2 * run) % (2 * max_run));
    const clscan_value value = wide_value(type, (long long)(mix(seed + 2 * run + 1) % 3) + 1);
    for (j = 0; j < length && i < n; ++j)
      store(bytes, i++, type, value);
    ++run;
  }
}

typedef enum selection_call { SELECT_IF, SELECT_FLAGGED, PARTITION_IF, UNIQUE } selection_call;
static const char* const selection_names[] = {"select_if", "select_flagged", "partition_if", "unique"};

/* Which elements are chosen: "x > 0" for select_if and partition_if, the flags for select_flagged; for
 * unique the length of the runs (HALF: up to 8, NONE: 1 or 2, ALL: one run). */
typedef enum selection_pattern { HALF, NONE, ALL } selection_pattern;

typedef struct selection_case {
  selection_call call;
  clscan_type type;
  size_t n;
  selection_pattern pattern;
  clscan_select_options options;
  int pass_null_options; /* pass NULL instead of `options` (which must then hold the defaults) */
  int pass_null_event;   /* wait with clFinish instead of the returned event */
  int in_place;          /* `in` as the output too (options' out_offset must then be in_offset) */
} selection_case;

static int chosen(selection_pattern pattern, size_t i, uint64_t seed) {
  return pattern == ALL || (pattern == HALF && (mix(seed ^ i) >> 40) & 1);
}

/* One selection through the C API against a host loop: the count, the output bit for bit, every other
 * element of the output and of the count buffer still poison (in place: still the input), the input and
 * the flags unchanged. With has_out_capacity, the output buffer holds out_capacity elements and guard
 * poisoned ones past them, and only the first min(count, out_capacity) are written. */
static void run_selection(const selection_case* c) {
  const clscan_select_options* o = &c->options;
  const size_t size = element_size(c->type);
  const size_t guard = 5;
  const size_t capacity = o->has_out_capacity ? o->out_capacity : c->n;
  const size_t in_count = o->in_offset + c->n + guard;
  const size_t out_offset = o->out_offset;
  const size_t out_count = c->in_place ? in_count : out_offset + capacity + guard;
  const size_t flags_bytes = o->flags_offset + c->n + guard;
  const size_t counts = o->count_offset + 2;
  unsigned char* in_image = checked_malloc(in_count * size);
  unsigned char* flags_image = checked_malloc(flags_bytes);
  unsigned char* expected = checked_malloc(out_count * size);
  unsigned char* actual = checked_malloc(out_count * size);
  cl_ulong* count_image = checked_malloc(counts * sizeof(cl_ulong));
  cl_ulong* count_after = checked_malloc(counts * sizeof(cl_ulong));
  cl_mem in = create_buffer(in_count * size);
  cl_mem flags = create_buffer(flags_bytes);
  cl_mem out = c->in_place ? in : create_buffer(out_count * size);
  cl_mem count = create_buffer(counts * sizeof(cl_ulong));
  const uint64_t seed = mix(c->n * 8 + (uint64_t)c->type * 2 + (uint64_t)c->pattern);
  size_t i, kept = 0, expected_count;
  cl_event done = NULL;
  clscan_status status = CLSCAN_SUCCESS;
  char label[160];

  snprintf(label, sizeof label, "%s %s, n %zu, pattern %d, offsets %zu/%zu/%zu/%zu%s, capacity %zu%s",
           selection_names[c->call], type_names[c->type], c->n, (int)c->pattern, o->in_offset, out_offset,
           o->count_offset, o->flags_offset,
           o->algorithm == CLSCAN_ALGORITHM_THREE_STAGE ? ", three_stage" : "", capacity,
           c->in_place ? ", in place" : "");
  memset(in_image, poison_byte, in_count * size);
  memset(flags_image, poison_byte, flags_bytes);
  if (c->call == UNIQUE) {
    fill_runs(in_image + o->in_offset * size, c->n, c->type,
              c->pattern == HALF   ? 4
              : c->pattern == NONE ? 1
                                   : 0,
              seed);
  } else {
    for (i = 0; i < c->n; ++i) {
      /* Kept: 1 .. 1000; not: -999 .. 0 (0 where the type is unsigned). */
      const long long magnitude = 1 + (long long)(mix(seed + i) % 1000);
      const int keep = chosen(c->pattern, i, seed);
      const long long x = keep                                                             ? magnitude
                          : c->type == CLSCAN_TYPE_UINT32 || c->type == CLSCAN_TYPE_UINT64 ? 0
                                                                                           : 1 - magnitude;
      store(in_image, o->in_offset + i, c->type, wide_value(c->type, x));
      /* Flags of their own pattern, so that selecting by the predicate instead shows. */
      flags_image[o->flags_offset + i] =
          chosen(c->pattern, i, ~seed) ? (unsigned char)(1 + mix(seed - i) % 255) : 0;
    }
  }
  for (i = 0; i < counts; ++i)
    memset(&count_image[i], poison_byte, sizeof count_image[i]);
  write_buffer(in, in_image, in_count * size);
  write_buffer(flags, flags_image, flags_bytes);
  if (c->in_place) {
    memcpy(expected, in_image, out_count * size);
  } else {
    memset(expected, poison_byte, out_count * size);
    write_buffer(out, expected, out_count * size);
  }
  write_buffer(count, count_image, counts * sizeof(cl_ulong));

  /* The host loop. */
  for (i = 0; i < c->n; ++i) {
    const clscan_value x = load(in_image, o->in_offset + i, c->type);
    int keep = 0;
    switch (c->call) {
    case SELECT_IF:
    case PARTITION_IF: keep = positive(c->type, x); break;
    case SELECT_FLAGGED: keep = flags_image[o->flags_offset + i] != 0; break;
    case UNIQUE:
      keep = i == 0 || !equal_elements(c->type, x, load(in_image, o->in_offset + i - 1, c->type));
      break;
    }
    if (keep && kept < capacity) store(expected, out_offset + kept, c->type, x);
    kept += keep;
  }
  expected_count = kept;
  if (c->call == PARTITION_IF)
    for (i = 0; i < c->n; ++i) {
      const clscan_value x = load(in_image, o->in_offset + i, c->type);
      if (!positive(c->type, x) && kept < capacity) store(expected, out_offset + kept, c->type, x);
      kept += !positive(c->type, x);
    }
  if (kept > capacity) kept = capacity;
  count_image[o->count_offset] = expected_count;

  {
    const clscan_select_options* options = c->pass_null_options ? NULL : o;
    cl_event* event = c->pass_null_event ? NULL : &done;
    switch (c->call) {
    case SELECT_IF:
      status = clscan_select_if(queue, in, out, count, c->n, c->type, "x > 0", options, event);
      break;
    case SELECT_FLAGGED:
      status = clscan_select_flagged(queue, in, flags, out, count, c->n, c->type, options, event);
      break;
    case PARTITION_IF:
      status = clscan_partition_if(queue, in, out, count, c->n, c->type, "x > 0", options, event);
      break;
    case UNIQUE: status = clscan_unique(queue, in, out, count, c->n, c->type, options, event); break;
    }
  }
  if (succeeded(label, status, done, !c->pass_null_event)) {
    read_buffer(count, count_after, counts * sizeof(cl_ulong));
    if (memcmp(count_after, count_image, counts * sizeof(cl_ulong)) != 0) {
      fprintf(stderr, "%s: count %llu, expected %llu (or a poisoned slot beside it was written)\n", label,
              (unsigned long long)count_after[o->count_offset], (unsigned long long)expected_count);
      ++failures;
    }
    /* The elements are copies: bit for bit, and the poison past the count unwritten. */
    read_buffer(out, actual, out_count * size);
    check_elements(label, "output", c->type, actual, expected, out_count, out_offset, out_offset + kept, 0);
    if (!c->in_place) check_unchanged(label, "input", in, in_image, in_count * size);
    check_unchanged(label, "flags", flags, flags_image, flags_bytes);
  }
  if (done) clReleaseEvent(done);
  clReleaseMemObject(count);
  if (!c->in_place) clReleaseMemObject(out);
  clReleaseMemObject(flags);
  clReleaseMemObject(in);
  free(in_image);
  free(flags_image);
  free(expected);
  free(actual);
  free(count_image);
  free(count_after);
}

static selection_case make_selection(selection_call call, clscan_type type, size_t n,
                                     selection_pattern pattern) {
  selection_case c = {.call = call, .type = type, .n = n, .pattern = pattern};
  clscan_select_options_init(&c.options);
  return c;
}

/* Each program a kernel of its own, compiled when first run (seconds per program on PoCL): the cases share
 * programs where they can, and tests/unit/select.cpp compiles the same ones (same predicate, offsets
 * that leave the data unaligned for vectors), so that after it PoCL finds them in its cache. */
static selection_case make_offset_selection(selection_call call, clscan_type type, size_t n,
                                            selection_pattern pattern) {
  /* Every offset away from zero, the flags' by an odd number of bytes. */
  selection_case c = make_selection(call, type, n, pattern);
  c.options.in_offset = 1;
  c.options.out_offset = 3;
  c.options.count_offset = 2;
  c.options.flags_offset = 5;
  return c;
}

static void test_selections(void) {
  size_t t;
  int call;
  selection_case c;
  for (t = 0; t < sizeof all_types / sizeof all_types[0]; ++t) {
    if (all_types[t] == CLSCAN_TYPE_FLOAT64 && !device_has_fp64()) {
      printf("c-api: float64 selections not run: the device has no fp64\n");
      continue;
    }
    for (call = SELECT_IF; call <= UNIQUE; ++call) {
      c = make_offset_selection((selection_call)call, all_types[t], 10007, HALF);
      run_selection(&c);
    }
  }
  for (call = SELECT_IF; call <= UNIQUE; ++call) {
    /* Several tiles on every device; nothing chosen; everything chosen. */
    c = make_offset_selection((selection_call)call, CLSCAN_TYPE_INT32, 300007, HALF);
    run_selection(&c);
    c.n = 10007;
    c.pattern = NONE;
    run_selection(&c);
    c.pattern = ALL;
    run_selection(&c);
    /* Tiles chained by counts scanned beforehand (partition_if always is). */
    c.pattern = HALF;
    c.options.algorithm = CLSCAN_ALGORITHM_THREE_STAGE;
    run_selection(&c);
    /* n == 0 writes a zero count only. */
    c.n = 0;
    run_selection(&c);
  }
  for (call = SELECT_IF; call <= UNIQUE; ++call) {
    /* Outputs sized for the result: fewer elements than selected (the rest unwritten, the count whole),
     * none; in place, with and without a capacity. */
    c = make_offset_selection((selection_call)call, CLSCAN_TYPE_INT32, 10007, HALF);
    c.options.has_out_capacity = 1;
    c.options.out_capacity = 1234;
    run_selection(&c);
    c.options.out_capacity = 0;
    run_selection(&c);
    c.in_place = 1;
    c.options.out_offset = c.options.in_offset;
    c.options.out_capacity = 1234;
    run_selection(&c);
    c.options.has_out_capacity = 0;
    run_selection(&c);
  }
  /* Options left NULL, no event asked for. */
  c = make_selection(SELECT_IF, CLSCAN_TYPE_INT32, 10007, HALF);
  c.pass_null_options = 1;
  c.pass_null_event = 1;
  run_selection(&c);
}

/* A selection gated on a user event does not complete before the gate opens. */
static void test_selection_wait_list(void) {
  const size_t n = 1000;
  cl_int data[1000], result[1000];
  cl_ulong count_value = 0;
  cl_event gate;
  cl_event done = NULL;
  cl_int status = CL_SUCCESS, execution = CL_COMPLETE;
  clscan_select_options options = CLSCAN_SELECT_OPTIONS_INIT;
  cl_mem in = create_buffer(sizeof data);
  cl_mem out = create_buffer(sizeof result);
  cl_mem count = create_buffer(sizeof count_value);
  size_t i, k = 0;
  for (i = 0; i < n; ++i)
    data[i] = (cl_int)(i % 3) - 1;
  write_buffer(in, data, sizeof data);
  gate = clCreateUserEvent(context, &status);
  REQUIRE_CL(status);
  options.wait_list = &gate;
  options.wait_list_size = 1;
  CHECK(clscan_select_if(queue, in, out, count, n, CLSCAN_TYPE_INT32, "x > 0", &options, &done) ==
        CLSCAN_SUCCESS);
  CHECK(done != NULL);
  if (done) {
    REQUIRE_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof execution, &execution, NULL));
    CHECK(execution != CL_COMPLETE);
  }
  REQUIRE_CL(clSetUserEventStatus(gate, CL_COMPLETE));
  if (done) {
    REQUIRE_CL(clWaitForEvents(1, &done));
    clReleaseEvent(done);
  }
  read_buffer(count, &count_value, sizeof count_value);
  read_buffer(out, result, sizeof result);
  for (i = 0; i < n; ++i)
    if (data[i] > 0) {
      if (k < count_value && result[k] != data[i]) {
        fprintf(stderr, "gated selection: element %zu is %ld, expected %ld\n", k, (long)result[k],
                (long)data[i]);
        ++failures;
        break;
      }
      ++k;
    }
  CHECK(count_value == k);
  clReleaseEvent(gate);
  clReleaseMemObject(count);
  clReleaseMemObject(out);
  clReleaseMemObject(in);
}

/* The scans by key as a host loop: each segment scanned by reference_scan on its own. */
static void reference_by_key(clscan_type key_type, const unsigned char* keys, clscan_type type, int exclusive,
                             const clscan_options* options, const unsigned char* in, unsigned char* out,
                             size_t n) {
  const size_t size = element_size(type);
  size_t start = 0, end;
  while (start < n) {
    end = start + 1;
    while (end < n && equal_elements(key_type, load(keys, end, key_type), load(keys, end - 1, key_type)))
      ++end;
    reference_scan(type, exclusive, options, in + start * size, out + start * size, end - start);
    start = end;
  }
}

typedef struct by_key_case {
  clscan_type key_type;
  clscan_type type;
  int exclusive;
  int in_place;
  size_t n;
  size_t max_run; /* segments of 1 .. 2 * max_run keys; 0: one segment of everything */
  clscan_options options;
} by_key_case;

/* One scan by key against the host loop: in range equal, outside it still poison, the input and the
 * keys unchanged. */
static void run_by_key(const by_key_case* c) {
  const clscan_options* o = &c->options;
  const size_t size = element_size(c->type);
  const size_t key_size = element_size(c->key_type);
  const size_t guard = 5;
  const size_t in_count = o->in_offset + c->n + guard;
  const size_t out_count = o->out_offset + c->n + guard;
  const size_t count = in_count > out_count ? in_count : out_count;
  unsigned char* key_image = checked_malloc(in_count * key_size);
  unsigned char* in_image = checked_malloc(count * size);
  unsigned char* expected = checked_malloc(count * size);
  unsigned char* actual = checked_malloc(count * size);
  cl_mem keys = create_buffer(in_count * key_size);
  cl_mem in = create_buffer(count * size);
  cl_mem out = c->in_place ? in : create_buffer(count * size);
  cl_event done = NULL;
  clscan_status status;
  size_t i;
  char label[200];

  snprintf(
      label, sizeof label,
      "%s_by_key %s keys, %s values, %s, n %zu, segments of up to %zu (0: one), op %s, offsets %zu/%zu%s",
      c->exclusive ? "exclusive" : "inclusive", type_names[c->key_type], type_names[c->type],
      c->in_place ? "in place" : "out of place", c->n, 2 * c->max_run, op_names[o->operation], o->in_offset,
      o->out_offset, o->has_initial ? ", initial" : "");
  memset(key_image, poison_byte, in_count * key_size);
  fill_runs(key_image + o->in_offset * key_size, c->n, c->key_type, c->max_run, mix(c->n + c->max_run));
  memset(in_image, poison_byte, count * size);
  for (i = 0; i < c->n; ++i)
    store(in_image, o->in_offset + i, c->type, input_value(c->type, o->operation, i));
  write_buffer(keys, key_image, in_count * key_size);
  write_buffer(in, in_image, count * size);
  memset(expected, poison_byte, count * size);
  if (c->in_place)
    memcpy(expected, in_image, count * size);
  else
    write_buffer(out, expected, count * size);
  reference_by_key(c->key_type, key_image + o->in_offset * key_size, c->type, c->exclusive, o,
                   in_image + o->in_offset * size, expected + o->out_offset * size, c->n);

  status = c->exclusive ? clscan_exclusive_by_key(queue, keys, c->key_type, in, out, c->n, c->type, o, &done)
                        : clscan_inclusive_by_key(queue, keys, c->key_type, in, out, c->n, c->type, o, &done);
  if (succeeded(label, status, done, 1)) {
    read_buffer(out, actual, count * size);
    check_elements(label, "output", c->type, actual, expected, count, o->out_offset, o->out_offset + c->n, 1);
    check_unchanged(label, "keys", keys, key_image, in_count * key_size);
    if (!c->in_place) check_unchanged(label, "input", in, in_image, count * size);
  }
  if (done) clReleaseEvent(done);
  if (!c->in_place) clReleaseMemObject(out);
  clReleaseMemObject(in);
  clReleaseMemObject(keys);
  free(key_image);
  free(in_image);
  free(expected);
  free(actual);
}

static by_key_case make_by_key(clscan_type key_type, clscan_type type, int exclusive, size_t n,
                               size_t max_run) {
  by_key_case c = {.key_type = key_type, .type = type, .exclusive = exclusive, .n = n, .max_run = max_run};
  clscan_options_init(&c.options);
  return c;
}

static void test_by_key(void) {
  /* Every value type, and with the extra case below every key type. As for the selections, the cases
   * share their programs with tests/unit/select.cpp's: these pairs, output offsets that leave the data
   * unaligned for vectors. */
  const clscan_type pairs[][2] = {
      {CLSCAN_TYPE_INT32, CLSCAN_TYPE_INT32},     {CLSCAN_TYPE_INT64, CLSCAN_TYPE_UINT32},
      {CLSCAN_TYPE_UINT32, CLSCAN_TYPE_INT64},    {CLSCAN_TYPE_INT32, CLSCAN_TYPE_UINT64},
      {CLSCAN_TYPE_FLOAT32, CLSCAN_TYPE_FLOAT32}, {CLSCAN_TYPE_FLOAT64, CLSCAN_TYPE_FLOAT64}};
  /* Segments of 1 or 2 keys, short ones, ones longer than a work-group's share, one of everything. */
  const size_t runs[] = {1, 4, 700, 0};
  size_t p, r;
  int exclusive;
  by_key_case c;
  for (p = 0; p < sizeof pairs / sizeof pairs[0]; ++p) {
    if (pairs[p][1] == CLSCAN_TYPE_FLOAT64 && !device_has_fp64()) {
      printf("c-api: float64 scans by key not run: the device has no fp64\n");
      continue;
    }
    for (r = 0; r < sizeof runs / sizeof runs[0]; ++r)
      for (exclusive = 0; exclusive <= 1; ++exclusive) {
        c = make_by_key(pairs[p][0], pairs[p][1], exclusive, 10007, runs[r]);
        c.options.out_offset = 3;
        run_by_key(&c);
      }
  }
  for (exclusive = 0; exclusive <= 1; ++exclusive) {
    /* Several tiles. */
    c = make_by_key(CLSCAN_TYPE_INT32, CLSCAN_TYPE_INT32, exclusive, 300007, 700);
    c.options.out_offset = 3;
    run_by_key(&c);
  }
  /* Offsets (the keys' too), an initial value for every segment, max. */
  c = make_by_key(CLSCAN_TYPE_INT64, CLSCAN_TYPE_UINT32, 1, 10007, 4);
  c.options.in_offset = 3;
  c.options.out_offset = 7;
  c.options.has_initial = 1;
  c.options.initial.u32 = 5;
  c.options.operation = CLSCAN_OP_MAX;
  run_by_key(&c);
  /* In place at one offset, with an initial value past 32 bits, tiles chained by totals scanned
   * beforehand. */
  c = make_by_key(CLSCAN_TYPE_UINT32, CLSCAN_TYPE_INT64, 0, 10007, 4);
  c.in_place = 1;
  c.options.in_offset = 3;
  c.options.out_offset = 3;
  c.options.has_initial = 1;
  c.options.initial.i64 = -0x123456789ll;
  c.options.algorithm = CLSCAN_ALGORITHM_THREE_STAGE;
  run_by_key(&c);
  c = make_by_key(CLSCAN_TYPE_FLOAT32, CLSCAN_TYPE_FLOAT32, 1, 10007, 700);
  c.options.out_offset = 3;
  c.options.algorithm = CLSCAN_ALGORITHM_THREE_STAGE;
  run_by_key(&c);
  /* cl_ulong keys that differ only past bit 32. */
  c = make_by_key(CLSCAN_TYPE_UINT64, CLSCAN_TYPE_INT32, 0, 10007, 4);
  c.options.out_offset = 3;
  run_by_key(&c);
}

/* Every status the selections and the scans by key can be made to return on the default device, each with
 * a message naming the problem, no event, and the buffers unchanged. */
static void test_primitive_errors(void) {
  enum { n = 64 };
  cl_int data[n], after[n];
  cl_ulong counts[2], counts_after[2];
  cl_mem in = create_buffer(sizeof data);
  cl_mem out = create_buffer(sizeof data);
  cl_mem keys = create_buffer(sizeof data);
  cl_mem count = create_buffer(sizeof counts);
  clscan_select_options select_options;
  clscan_options options;
  clscan_status status;
  cl_event event;
  cl_event* const not_null = &event;
  const cl_event stale = (cl_event)&event;
  size_t i;
  for (i = 0; i < n; ++i)
    data[i] = (cl_int)i % 5 - 2;
  memset(counts, poison_byte, sizeof counts);
  write_buffer(in, data, sizeof data);
  write_buffer(out, data, sizeof data);
  write_buffer(keys, data, sizeof data);
  write_buffer(count, counts, sizeof counts);

  /* The selections. */
  EXPECT_FAILURE("select_if: NULL predicate",
                 clscan_select_if(queue, in, out, count, n, CLSCAN_TYPE_INT32, NULL, NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "predicate");
  EXPECT_FAILURE("select_if: empty predicate",
                 clscan_select_if(queue, in, out, count, n, CLSCAN_TYPE_INT32, "", NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "predicate");
  EXPECT_FAILURE("partition_if: empty predicate",
                 clscan_partition_if(queue, in, out, count, n, CLSCAN_TYPE_INT32, "", NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "predicate");
  EXPECT_FAILURE("select_if: null queue",
                 clscan_select_if(NULL, in, out, count, n, CLSCAN_TYPE_INT32, "x > 0", NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "queue");
  EXPECT_FAILURE("select_if: null input",
                 clscan_select_if(queue, NULL, out, count, n, CLSCAN_TYPE_INT32, "x > 0", NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "input");
  EXPECT_FAILURE("unique: null output",
                 clscan_unique(queue, in, NULL, count, n, CLSCAN_TYPE_INT32, NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "output");
  EXPECT_FAILURE("select_if: null count buffer",
                 clscan_select_if(queue, in, out, NULL, n, CLSCAN_TYPE_INT32, "x > 0", NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "count");
  EXPECT_FAILURE("select_flagged: null flags",
                 clscan_select_flagged(queue, in, NULL, out, count, n, CLSCAN_TYPE_INT32, NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "flags");
  EXPECT_FAILURE("select_if: unknown type",
                 clscan_select_if(queue, in, out, count, n, (clscan_type)99, "x > 0", NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "clscan_type");
  EXPECT_FAILURE("select_if: n past the buffer",
                 clscan_select_if(queue, in, out, count, n + 1, CLSCAN_TYPE_INT32, "x > 0", NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "fewer than");
  clscan_select_options_init(&select_options);
  select_options.out_offset = 1;
  EXPECT_FAILURE(
      "select_if: partly in place",
      clscan_select_if(queue, in, in, count, n - 1, CLSCAN_TYPE_INT32, "x > 0", &select_options, not_null),
      CLSCAN_INVALID_ARGUMENT, "same range");
  clscan_select_options_init(&select_options);
  select_options.has_out_capacity = 1;
  select_options.out_capacity = n + 1;
  EXPECT_FAILURE("unique: a capacity past the output",
                 clscan_unique(queue, in, out, count, n, CLSCAN_TYPE_INT32, &select_options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "clscan_select_options.out_capacity");
  clscan_select_options_init(&select_options);
  select_options.count_offset = 2;
  EXPECT_FAILURE("unique: count past its buffer",
                 clscan_unique(queue, in, out, count, n, CLSCAN_TYPE_INT32, &select_options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "count buffer holds");
  EXPECT_FAILURE("unique: count in the output",
                 clscan_unique(queue, in, out, out, n / 2, CLSCAN_TYPE_INT32, NULL, not_null),
                 CLSCAN_INVALID_ARGUMENT, "overlaps");
  clscan_select_options_init(&select_options);
  select_options.flags_offset = sizeof data - n + 1; /* the flags buffer holds sizeof data bytes */
  EXPECT_FAILURE(
      "select_flagged: flags past their buffer",
      clscan_select_flagged(queue, in, keys, out, count, n, CLSCAN_TYPE_UINT32, &select_options, not_null),
      CLSCAN_INVALID_ARGUMENT, "flags buffer holds");
  select_options.struct_size = 0;
  EXPECT_FAILURE("select options: struct_size 0",
                 clscan_unique(queue, in, out, count, n, CLSCAN_TYPE_INT32, &select_options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "struct_size");
  clscan_select_options_init(&select_options);
  select_options.struct_size = sizeof select_options + 8;
  EXPECT_FAILURE("select options: struct_size too large",
                 clscan_unique(queue, in, out, count, n, CLSCAN_TYPE_INT32, &select_options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "struct_size");
  clscan_select_options_init(&select_options);
  select_options.algorithm = (clscan_algorithm)42;
  EXPECT_FAILURE("select options: unknown algorithm",
                 clscan_unique(queue, in, out, count, n, CLSCAN_TYPE_INT32, &select_options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "clscan_algorithm");
  clscan_select_options_init(&select_options);
  select_options.wait_list_size = 1;
  EXPECT_FAILURE("select options: wait list NULL with a size",
                 clscan_unique(queue, in, out, count, n, CLSCAN_TYPE_INT32, &select_options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "wait_list");
  clscan_select_options_init(&select_options);
  select_options.algorithm = CLSCAN_ALGORITHM_SINGLE_PASS;
  EXPECT_FAILURE(
      "partition_if: single pass",
      clscan_partition_if(queue, in, out, count, n, CLSCAN_TYPE_INT32, "x > 0", &select_options, not_null),
      CLSCAN_INVALID_ARGUMENT, "clscan_partition_if: CLSCAN_ALGORITHM_SINGLE_PASS cannot");
  /* A predicate that does not compile: the build log is in the message. */
  EXPECT_FAILURE("select_if: predicate that does not compile",
                 clscan_select_if(queue, in, out, count, n, CLSCAN_TYPE_INT32, "x >* 0", NULL, not_null),
                 CLSCAN_BUILD_ERROR, "build log");
  CHECK(clscan_last_opencl_status() != CL_SUCCESS);

  /* The scans by key. */
  EXPECT_FAILURE(
      "by key: null keys",
      clscan_inclusive_by_key(queue, NULL, CLSCAN_TYPE_INT32, in, out, n, CLSCAN_TYPE_INT32, NULL, not_null),
      CLSCAN_INVALID_ARGUMENT, "keys");
  EXPECT_FAILURE(
      "by key: null queue",
      clscan_exclusive_by_key(NULL, keys, CLSCAN_TYPE_INT32, in, out, n, CLSCAN_TYPE_INT32, NULL, not_null),
      CLSCAN_INVALID_ARGUMENT, "queue");
  EXPECT_FAILURE(
      "by key: unknown key type",
      clscan_inclusive_by_key(queue, keys, (clscan_type)99, in, out, n, CLSCAN_TYPE_INT32, NULL, not_null),
      CLSCAN_INVALID_ARGUMENT, "clscan_type");
  EXPECT_FAILURE(
      "by key: unknown type",
      clscan_inclusive_by_key(queue, keys, CLSCAN_TYPE_INT32, in, out, n, (clscan_type)-1, NULL, not_null),
      CLSCAN_INVALID_ARGUMENT, "clscan_type");
  EXPECT_FAILURE(
      "by key: keys past their buffer",
      clscan_inclusive_by_key(queue, keys, CLSCAN_TYPE_INT64, in, out, n, CLSCAN_TYPE_INT32, NULL, not_null),
      CLSCAN_INVALID_ARGUMENT, "keys buffer holds");
  EXPECT_FAILURE(
      "by key: keys in the output",
      clscan_inclusive_by_key(queue, out, CLSCAN_TYPE_INT32, in, out, n, CLSCAN_TYPE_INT32, NULL, not_null),
      CLSCAN_INVALID_ARGUMENT, "overlap");
  clscan_options_init(&options);
  options.struct_size = 1;
  EXPECT_FAILURE("by key: struct_size 1",
                 clscan_inclusive_by_key(queue, keys, CLSCAN_TYPE_INT32, in, out, n, CLSCAN_TYPE_INT32,
                                         &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "struct_size");
  clscan_options_init(&options);
  options.operation = CLSCAN_OP_AND;
  EXPECT_FAILURE("by key: bitwise operator on float",
                 clscan_exclusive_by_key(queue, keys, CLSCAN_TYPE_INT32, in, out, n, CLSCAN_TYPE_FLOAT32,
                                         &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "integer");
  options.operation = CLSCAN_OP_CUSTOM;
  EXPECT_FAILURE("by key: custom op NULL",
                 clscan_inclusive_by_key(queue, keys, CLSCAN_TYPE_INT32, in, out, n, CLSCAN_TYPE_INT32,
                                         &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "custom_op");
  options.custom_op = "a +* b";
  EXPECT_FAILURE("by key: custom op that does not compile",
                 clscan_inclusive_by_key(queue, keys, CLSCAN_TYPE_INT32, in, out, n, CLSCAN_TYPE_INT32,
                                         &options, not_null),
                 CLSCAN_BUILD_ERROR, "build log");
  CHECK(clscan_last_opencl_status() != CL_SUCCESS);
  if (!device_has_fp64()) {
    EXPECT_FAILURE(
        "select_if: float64 without fp64",
        clscan_select_if(queue, in, out, count, n / 2, CLSCAN_TYPE_FLOAT64, "x > 0", NULL, not_null),
        CLSCAN_UNSUPPORTED, "fp64");
    EXPECT_FAILURE("by key: float64 keys without fp64",
                   clscan_inclusive_by_key(queue, keys, CLSCAN_TYPE_FLOAT64, in, out, n / 2,
                                           CLSCAN_TYPE_INT32, NULL, not_null),
                   CLSCAN_UNSUPPORTED, "fp64");
  }

  REQUIRE_CL(clFinish(queue));
  read_buffer(in, after, sizeof after);
  CHECK(memcmp(after, data, sizeof data) == 0);
  read_buffer(keys, after, sizeof after);
  CHECK(memcmp(after, data, sizeof data) == 0);
  read_buffer(out, after, sizeof after);
  if (memcmp(after, data, sizeof data) != 0) {
    fprintf(stderr, "a failed call changed the output buffer\n");
    ++failures;
  }
  read_buffer(count, counts_after, sizeof counts_after);
  if (memcmp(counts_after, counts, sizeof counts) != 0) {
    fprintf(stderr, "a failed call changed the count buffer\n");
    ++failures;
  }
  clReleaseMemObject(count);
  clReleaseMemObject(keys);
  clReleaseMemObject(out);
  clReleaseMemObject(in);
}

static void test_names_and_cache(void) {
  size_t limit = 0, changed = 0;
  cl_int data[4] = {1, 2, 3, 4};
  cl_mem buffer;
  CHECK(strcmp(clscan_status_name(CLSCAN_SUCCESS), "CLSCAN_SUCCESS") == 0);
  CHECK(strcmp(clscan_status_name(CLSCAN_INVALID_ARGUMENT), "CLSCAN_INVALID_ARGUMENT") == 0);
  CHECK(strcmp(clscan_status_name(CLSCAN_UNSUPPORTED), "CLSCAN_UNSUPPORTED") == 0);
  CHECK(strcmp(clscan_status_name(CLSCAN_BUILD_ERROR), "CLSCAN_BUILD_ERROR") == 0);
  CHECK(strcmp(clscan_status_name(CLSCAN_OPENCL_ERROR), "CLSCAN_OPENCL_ERROR") == 0);
  CHECK(strcmp(clscan_status_name(CLSCAN_OUT_OF_MEMORY), "CLSCAN_OUT_OF_MEMORY") == 0);
  CHECK(strcmp(clscan_status_name(CLSCAN_DEVICE_NOT_FOUND), "CLSCAN_DEVICE_NOT_FOUND") == 0);
  CHECK(strcmp(clscan_status_name(CLSCAN_INTERNAL_ERROR), "CLSCAN_INTERNAL_ERROR") == 0);
  CHECK(strcmp(clscan_status_name((clscan_status)77), "CLSCAN_UNKNOWN_STATUS") == 0);
  CHECK(strcmp(clscan_opencl_status_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES") == 0);
  CHECK(strcmp(clscan_opencl_status_name(-12345), "CL_UNKNOWN_ERROR") == 0);
  CHECK(strcmp(clscan_version(), CLSCAN_VERSION_STRING) == 0);

  CHECK(clscan_get_cache_limit(&limit) == CLSCAN_SUCCESS);
  CHECK(limit >= 1);
  CHECK(clscan_set_cache_limit(limit + 1) == CLSCAN_SUCCESS);
  CHECK(clscan_get_cache_limit(&changed) == CLSCAN_SUCCESS);
  CHECK(changed == limit + 1);
  CHECK(clscan_set_cache_limit(limit) == CLSCAN_SUCCESS);
  expect_failure("cache limit 0", clscan_set_cache_limit(0), CLSCAN_INVALID_ARGUMENT, "0", NULL);
  expect_failure("cache limit into NULL", clscan_get_cache_limit(NULL), CLSCAN_INVALID_ARGUMENT, "NULL",
                 NULL);
  expect_failure("release of a NULL context", clscan_release_context_resources(NULL), CLSCAN_INVALID_ARGUMENT,
                 "context", NULL);
  expect_failure("select device into NULL", clscan_select_device(NULL), CLSCAN_INVALID_ARGUMENT, "NULL",
                 NULL);

  /* Releasing the caches leaves later scans working (they rebuild or reload what they need). */
  CHECK(clscan_release_context_resources(context) == CLSCAN_SUCCESS);
  CHECK(clscan_release_cached_resources() == CLSCAN_SUCCESS);
  buffer = create_buffer(sizeof data);
  write_buffer(buffer, data, sizeof data);
  CHECK(clscan_inclusive(queue, buffer, buffer, 4, CLSCAN_TYPE_INT32, NULL, NULL) == CLSCAN_SUCCESS);
  read_buffer(buffer, data, sizeof data);
  CHECK(data[0] == 1 && data[1] == 3 && data[2] == 6 && data[3] == 10);
  clReleaseMemObject(buffer);
}

/* The last error is per thread: another thread starts clean, and its failure leaves this thread's
 * message as it was. */
static void* other_thread(void* unused) {
  int* ok = checked_malloc(sizeof *ok);
  (void)unused;
  *ok = strcmp(clscan_last_error_message(), "") == 0 && clscan_last_opencl_status() == CL_SUCCESS &&
        clscan_set_cache_limit(0) == CLSCAN_INVALID_ARGUMENT &&
        strstr(clscan_last_error_message(), "set_cache_limit") != NULL;
  return ok;
}

static void test_thread_local_error(void) {
  pthread_t thread;
  void* result = NULL;
  char before[512];
  CHECK(clscan_inclusive(NULL, NULL, NULL, 1, CLSCAN_TYPE_INT32, NULL, NULL) == CLSCAN_INVALID_ARGUMENT);
  snprintf(before, sizeof before, "%s", clscan_last_error_message());
  CHECK(strstr(before, "queue") != NULL);
  CHECK(pthread_create(&thread, NULL, other_thread, NULL) == 0);
  CHECK(pthread_join(thread, &result) == 0);
  CHECK(result != NULL && *(int*)result);
  free(result);
  CHECK(strcmp(clscan_last_error_message(), before) == 0);
}

/* ---- Reduce ---- */

/* One clscan_reduce into element 2 of a 4-element output, against a host loop: the total exact (the
 * data of input_value keeps floating-point sums exact in any order), the output's other elements and
 * the input unchanged, n == 0 writing the initial value or the identity. */
static void run_reduce(clscan_type type, clscan_op op, size_t in_offset, int has_initial, size_t n) {
  enum { out_count = 4, out_at = 2 };
  const size_t size = element_size(type);
  const size_t in_count = in_offset + n;
  unsigned char* in_bytes = checked_malloc(in_count * size);
  unsigned char out_bytes[out_count * 8], out_after[out_count * 8];
  cl_mem in = create_buffer(in_count ? in_count * size : size);
  cl_mem out = create_buffer(out_count * size);
  clscan_options options;
  clscan_value expected, got;
  cl_event done = NULL;
  clscan_status status;
  size_t i;
  char label[120];
  memset(in_bytes, poison_byte, in_count * size);
  for (i = 0; i < n; ++i)
    store(in_bytes, in_offset + i, type, input_value(type, op, i));
  memset(out_bytes, poison_byte, sizeof out_bytes);
  if (in_count) write_buffer(in, in_bytes, in_count * size);
  write_buffer(out, out_bytes, out_count * size);
  clscan_options_init(&options);
  options.operation = op;
  options.in_offset = in_offset;
  options.out_offset = out_at;
  options.has_initial = has_initial;
  if (has_initial) options.initial = input_value(type, op, n + 7);

  snprintf(label, sizeof label, "reduce %s %s n=%zu in_offset=%zu initial=%d", type_names[type], op_names[op],
           n, in_offset, has_initial);
  status = clscan_reduce(queue, in, out, n, type, &options, &done);
  if (succeeded(label, status, done, 1)) {
    expected = has_initial ? options.initial : identity(type, &options);
    for (i = 0; i < n; ++i)
      expected = combine(type, op, expected, load(in_bytes, in_offset + i, type));
    read_buffer(out, out_after, out_count * size);
    got = load(out_after, out_at, type);
    if (!same_value(type, got, expected)) {
      char want[64], have[64];
      describe(want, sizeof want, type, expected);
      describe(have, sizeof have, type, got);
      fprintf(stderr, "%s: expected %s, got %s\n", label, want, have);
      ++failures;
    }
    for (i = 0; i < out_count; ++i)
      if (i != out_at && memcmp(out_after + i * size, out_bytes + i * size, size) != 0) {
        fprintf(stderr, "%s: wrote output element %zu\n", label, i);
        ++failures;
      }
    if (in_count) check_unchanged(label, "input", in, in_bytes, in_count * size);
  }
  if (done) clReleaseEvent(done);
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  free(in_bytes);
}

/* Every type, four operators, sizes of one work-group's range and of several, offsets, initial values
 * and errors. The programs are those tests/unit/reduce.cpp builds (ctest runs c-api after [reduce], so
 * PoCL finds them compiled). */
static void test_reduce(void) {
  static const size_t sizes[] = {0, 1, 1000, 70001};
  size_t s;
  cl_mem buffer = create_buffer(4 * sizeof(cl_int));
  const cl_int poison[4] = {-1, -1, -1, -1};
  cl_int after[4];
  clscan_options options;
  clscan_status status;
  cl_event event = (cl_event)&event;
  for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    const size_t n = sizes[s];
    run_reduce(CLSCAN_TYPE_INT32, CLSCAN_OP_SUM, 1, 0, n);
    run_reduce(CLSCAN_TYPE_INT32, CLSCAN_OP_SUM, 0, 1, n);
    run_reduce(CLSCAN_TYPE_UINT32, CLSCAN_OP_MAX, 1, n == 1000, n);
    run_reduce(CLSCAN_TYPE_INT64, CLSCAN_OP_MIN, 1, 0, n);
    run_reduce(CLSCAN_TYPE_UINT64, CLSCAN_OP_XOR, 1, n == 70001, n);
    run_reduce(CLSCAN_TYPE_FLOAT32, CLSCAN_OP_SUM, 1, n == 1, n);
    if (device_has_fp64()) run_reduce(CLSCAN_TYPE_FLOAT64, CLSCAN_OP_SUM, 1, 1, n);
  }
  /* The output's one element must lie in its buffer; nothing is written, no event returned. */
  write_buffer(buffer, poison, sizeof poison);
  clscan_options_init(&options);
  options.out_offset = 4;
  status = clscan_reduce(queue, buffer, buffer, 2, CLSCAN_TYPE_INT32, &options, &event);
  expect_failure("reduce past the output", status, CLSCAN_INVALID_ARGUMENT, "output", event);
  event = (cl_event)&event;
  status = clscan_reduce(NULL, buffer, buffer, 2, CLSCAN_TYPE_INT32, NULL, &event);
  expect_failure("reduce without a queue", status, CLSCAN_INVALID_ARGUMENT, "queue", event);
  read_buffer(buffer, after, sizeof after);
  CHECK(memcmp(after, poison, sizeof poison) == 0);
  clReleaseMemObject(buffer);
}

/* ---- Sorts ---- */

/* The order-preserving unsigned image of a key (<clscan/sort.hpp>): signed integers with the sign bit
 * flipped, floating point with -0.0 as +0.0, negative values inverted, positive ones with the sign bit
 * set, every NaN all ones; 32-bit keys in the low half. */
static uint64_t sort_image(clscan_type type, clscan_value k) {
  switch (type) {
  case CLSCAN_TYPE_INT32: return k.u32 ^ 0x80000000u;
  case CLSCAN_TYPE_UINT32: return k.u32;
  case CLSCAN_TYPE_INT64: return k.u64 ^ 0x8000000000000000ull;
  case CLSCAN_TYPE_UINT64: return k.u64;
  case CLSCAN_TYPE_FLOAT32:
    if (isnan(k.f32)) return 0xFFFFFFFFu;
    if (k.f32 == 0) return 0x80000000u;
    return (k.u32 & 0x80000000u) ? (cl_uint)~k.u32 : (k.u32 | 0x80000000u);
  case CLSCAN_TYPE_FLOAT64:
    if (isnan(k.f64)) return ~0ull;
    if (k.f64 == 0) return 0x8000000000000000ull;
    return (k.u64 & 0x8000000000000000ull) ? ~k.u64 : (k.u64 | 0x8000000000000000ull);
  }
  return 0;
}

static int key_is_nan(clscan_type type, clscan_value k) {
  return (type == CLSCAN_TYPE_FLOAT32 && isnan(k.f32)) || (type == CLSCAN_TYPE_FLOAT64 && isnan(k.f64));
}

/* numpy's order written directly (not through the image): integers numerically; floats -inf < ... <
 * -0.0 == +0.0 < ... < +inf < NaN; descending reverses all but the NaNs, which stay last. */
static int numpy_less(clscan_type type, clscan_value a, clscan_value b, int descending) {
  const int na = key_is_nan(type, a), nb = key_is_nan(type, b);
  clscan_value t;
  if (na || nb) return !na && nb;
  if (descending) {
    t = a;
    a = b;
    b = t;
  }
  switch (type) {
  case CLSCAN_TYPE_INT32: return a.i32 < b.i32;
  case CLSCAN_TYPE_UINT32: return a.u32 < b.u32;
  case CLSCAN_TYPE_INT64: return a.i64 < b.i64;
  case CLSCAN_TYPE_UINT64: return a.u64 < b.u64;
  case CLSCAN_TYPE_FLOAT32: return a.f32 < b.f32;
  case CLSCAN_TYPE_FLOAT64: return a.f64 < b.f64;
  }
  return 0;
}

typedef struct sort_order_context {
  clscan_type type;
  const unsigned char* keys;
  int descending;
  unsigned begin_bit, end_bit; /* end_bit 0: the whole key, compared with numpy_less */
} sort_order_context;

static int order_less(const sort_order_context* s, size_t a, size_t b) {
  const clscan_value ka = load(s->keys, a, s->type), kb = load(s->keys, b, s->type);
  uint64_t ia, ib, mask;
  unsigned width;
  if (s->end_bit == 0) return numpy_less(s->type, ka, kb, s->descending);
  ia = sort_image(s->type, ka);
  ib = sort_image(s->type, kb);
  if (s->descending) {
    const uint64_t all = element_size(s->type) == 4 ? 0xFFFFFFFFull : ~0ull;
    if (!key_is_nan(s->type, ka)) ia = ~ia & all;
    if (!key_is_nan(s->type, kb)) ib = ~ib & all;
  }
  width = s->end_bit - s->begin_bit;
  if (width == 0) return 0;
  mask = width >= 64 ? ~0ull : (1ull << width) - 1;
  return ((ia >> s->begin_bit) & mask) < ((ib >> s->begin_bit) & mask);
}

/* A stable merge sort of the positions 0 .. n-1 by order_less: the expected permutation. */
static void stable_order(const sort_order_context* s, size_t* order, size_t n) {
  size_t* scratch = checked_malloc(n * sizeof *scratch);
  size_t width, i;
  for (i = 0; i < n; ++i)
    order[i] = i;
  for (width = 1; width < n; width *= 2) {
    for (i = 0; i < n; i += 2 * width) {
      const size_t mid = i + width < n ? i + width : n, end = i + 2 * width < n ? i + 2 * width : n;
      size_t a = i, b = mid, o = i;
      while (a < mid && b < end)
        scratch[o++] = order_less(s, order[b], order[a]) ? order[b++] : order[a++];
      while (a < mid)
        scratch[o++] = order[a++];
      while (b < end)
        scratch[o++] = order[b++];
    }
    memcpy(order, scratch, n * sizeof *order);
  }
  free(scratch);
}

/* Keys that exercise the order: few distinct values (stability), and for floating point -0.0 and +0.0,
 * infinities, NaNs of both signs and two payloads, denormals; every pattern mixed with random ones. */
static clscan_value sort_key(clscan_type type, size_t i, uint64_t seed) {
  const uint64_t r = mix(seed + i);
  clscan_value v;
  v.u64 = r;
  if (type == CLSCAN_TYPE_FLOAT32) {
    switch (r % 11) {
    case 0: v.u32 = 0x80000000u; break; /* -0.0 */
    case 1: v.u32 = 0; break;           /* +0.0 */
    case 2: v.f32 = (r >> 8) & 1 ? INFINITY : -INFINITY; break;
    case 3: v.u32 = (r >> 8) & 1 ? 0x7FC00001u : 0xFFC00000u; break; /* NaNs: payload, sign */
    case 4: v.u32 = (cl_uint)((r >> 8) & 0x807FFFFFu); break;        /* denormals of both signs */
    case 5: v.f32 = (cl_float)((long long)((r >> 8) % 5) - 2); break;
    default: v.u32 = (cl_uint)(r >> 16); break;
    }
  } else if (type == CLSCAN_TYPE_FLOAT64) {
    switch (r % 11) {
    case 0: v.u64 = 0x8000000000000000ull; break;
    case 1: v.u64 = 0; break;
    case 2: v.f64 = (r >> 8) & 1 ? INFINITY : -INFINITY; break;
    case 3: v.u64 = (r >> 8) & 1 ? 0x7FF8000000000001ull : 0xFFF8000000000000ull; break;
    case 4: v.u64 = (r >> 8) & 0x800FFFFFFFFFFFFFull; break;
    case 5: v.f64 = (cl_double)((long long)((r >> 8) % 5) - 2); break;
    default: v.u64 = mix(r); break;
    }
  } else if (r % 3 == 0) {
    /* Five small values, past bit 32 for 64-bit keys, negative ones for signed keys. */
    v = wide_value(type, (long long)((r >> 8) % 5) - 2);
  } else if (element_size(type) == 4) {
    v.u64 = (cl_uint)(r >> 16);
  }
  return v;
}

/* One sort through the C API. call: 0 clscan_sort, 1 clscan_sort_by_key, 2 clscan_sorted_order
 * (value_type is then the index type). Checked against stable_order bit for bit: every output element in
 * range, every element outside it still poison, inputs of an out-of-place sort unchanged. */
typedef struct sort_case {
  int call;
  clscan_type key_type, value_type;
  size_t n;
  int in_place;
  clscan_sort_options options;
  int pass_null_options;
} sort_case;

static const char* const sort_call_names[] = {"clscan_sort", "clscan_sort_by_key", "clscan_sorted_order"};

static void run_sort(const sort_case* c) {
  const size_t ks = element_size(c->key_type), vs = element_size(c->value_type), guard = 5, n = c->n;
  const clscan_sort_options* o = &c->options;
  const size_t keys_in_count = o->keys_in_offset + n + guard, keys_out_count = o->keys_out_offset + n + guard;
  const size_t values_in_count = o->values_in_offset + n + guard,
               values_out_count = o->values_out_offset + n + guard;
  const size_t key_count = keys_in_count > keys_out_count ? keys_in_count : keys_out_count;
  const size_t value_count = values_in_count > values_out_count ? values_in_count : values_out_count;
  unsigned char *keys_in = checked_malloc(key_count * ks), *values_in = checked_malloc(value_count * vs);
  unsigned char *keys_got = checked_malloc(key_count * ks), *values_got = checked_malloc(value_count * vs);
  unsigned char *keys_expected = checked_malloc(key_count * ks),
                *values_expected = checked_malloc(value_count * vs);
  size_t* order = checked_malloc((n ? n : 1) * sizeof *order);
  const uint64_t seed = (uint64_t)n * 31 + (uint64_t)c->key_type * 7 + (uint64_t)c->call;
  sort_order_context s;
  cl_mem kin, kout, vin, vout;
  cl_event event = NULL;
  clscan_status status;
  char what[200];
  size_t i;
  snprintf(what, sizeof what, "%s %s keys, %s %s, n=%zu%s%s, bits [%u, %u), offsets %zu %zu %zu %zu",
           sort_call_names[c->call], type_names[c->key_type], type_names[c->value_type],
           c->call == 2 ? "indices" : "values", n, c->in_place ? ", in place" : "",
           o->descending ? ", descending" : "", o->begin_bit, o->end_bit, o->keys_in_offset,
           o->keys_out_offset, o->values_in_offset, o->values_out_offset);

  memset(keys_in, poison_byte, key_count * ks);
  memset(values_in, poison_byte, value_count * vs);
  for (i = 0; i < n; ++i) {
    store(keys_in, o->keys_in_offset + i, c->key_type, sort_key(c->key_type, i, seed));
    store(values_in, o->values_in_offset + i, c->value_type, wide_value(c->value_type, (long long)i + 1));
  }
  s.type = c->key_type;
  s.keys = keys_in + o->keys_in_offset * ks;
  s.descending = o->descending;
  s.begin_bit = o->begin_bit;
  s.end_bit = o->end_bit == 0 || (o->begin_bit == 0 && o->end_bit == 8 * ks) ? 0 : o->end_bit;
  if (o->end_bit == 0 && o->begin_bit != 0) s.end_bit = 8 * (unsigned)ks;
  stable_order(&s, order, n);

  /* The expected buffers: the outputs' poison (or the inputs, in place) with the range written. */
  if (c->in_place) {
    memcpy(keys_expected, keys_in, key_count * ks);
    memcpy(values_expected, values_in, value_count * vs);
  } else {
    memset(keys_expected, poison_byte, key_count * ks);
    memset(values_expected, poison_byte, value_count * vs);
  }
  for (i = 0; i < n; ++i) {
    if (c->call != 2)
      memcpy(keys_expected + (o->keys_out_offset + i) * ks, keys_in + (o->keys_in_offset + order[i]) * ks,
             ks);
    if (c->call == 1)
      memcpy(values_expected + (o->values_out_offset + i) * vs,
             values_in + (o->values_in_offset + order[i]) * vs, vs);
    if (c->call == 2) {
      clscan_value index;
      index.u64 = order[i];
      store(values_expected, o->values_out_offset + i, c->value_type, index);
    }
  }

  kin = create_buffer(key_count * ks);
  vin = create_buffer(value_count * vs);
  write_buffer(kin, keys_in, key_count * ks);
  write_buffer(vin, values_in, value_count * vs);
  if (c->in_place) {
    kout = kin;
    vout = vin;
  } else {
    kout = create_buffer(key_count * ks);
    vout = create_buffer(value_count * vs);
    write_buffer(kout, keys_expected, key_count * ks); /* poison */
    write_buffer(vout, values_expected, value_count * vs);
    /* The expected outputs were poison so far; now the data. */
  }
  {
    const clscan_sort_options* opts = c->pass_null_options ? NULL : o;
    switch (c->call) {
    case 0: status = clscan_sort(queue, kin, kout, n, c->key_type, opts, &event); break;
    case 1:
      status = clscan_sort_by_key(queue, kin, vin, kout, vout, n, c->key_type, c->value_type, opts, &event);
      break;
    default:
      status = clscan_sorted_order(queue, kin, vout, n, c->key_type, c->value_type, opts, &event);
      break;
    }
  }
  if (succeeded(what, status, event, 1)) {
    read_buffer(c->call == 2 ? kin : kout, keys_got, key_count * ks);
    read_buffer(vout, values_got, value_count * vs);
    if (c->call == 2) memcpy(keys_expected, keys_in, key_count * ks); /* the keys are only read */
    /* Bit for bit everywhere: the outputs hold the inputs' own bits. */
    check_elements(what, "key", c->key_type, keys_got, keys_expected, key_count, 0, key_count, 0);
    if (c->call != 0)
      check_elements(what, "value", c->value_type, values_got, values_expected, value_count, 0, value_count,
                     0);
    if (!c->in_place) {
      check_unchanged(what, "input keys", kin, keys_in, key_count * ks);
      check_unchanged(what, "input values", vin, values_in, value_count * vs);
    }
  }
  if (event) clReleaseEvent(event);
  if (!c->in_place) {
    clReleaseMemObject(kout);
    clReleaseMemObject(vout);
  }
  clReleaseMemObject(kin);
  clReleaseMemObject(vin);
  free(order);
  free(keys_in);
  free(values_in);
  free(keys_got);
  free(values_got);
  free(keys_expected);
  free(values_expected);
}

static sort_case make_sort(int call, clscan_type key_type, clscan_type value_type, size_t n) {
  sort_case c = {.call = call, .key_type = key_type, .value_type = value_type, .n = n};
  clscan_sort_options_init(&c.options);
  return c;
}

static void test_sorts(void) {
  const size_t sizes[] = {0, 1, 1000, 10007};
  size_t t, z;
  int call;
  sort_case c;
  /* Every key type and every call, ascending and descending, out of place with offsets. Keys and values
   * move as their bits: float64 needs no fp64. */
  for (t = 0; t < sizeof all_types / sizeof all_types[0]; ++t) {
    for (z = 0; z < sizeof sizes / sizeof sizes[0]; ++z)
      for (call = 0; call <= 2; ++call) {
        c = make_sort(call, all_types[t], call == 2 ? CLSCAN_TYPE_UINT32 : CLSCAN_TYPE_UINT32, sizes[z]);
        c.options.descending = (int)(z % 2);
        c.options.keys_in_offset = 1;
        c.options.keys_out_offset = 3;
        c.options.values_in_offset = 2;
        c.options.values_out_offset = 5;
        run_sort(&c);
      }
  }
  /* Every value type (64-bit ones past bit 32), and 64-bit indices. */
  for (t = 0; t < sizeof all_types / sizeof all_types[0]; ++t) {
    c = make_sort(1, CLSCAN_TYPE_FLOAT32, all_types[t], 10007);
    run_sort(&c);
  }
  c = make_sort(2, CLSCAN_TYPE_INT64, CLSCAN_TYPE_UINT64, 10007);
  c.options.descending = 1;
  run_sort(&c);
  /* In place (both calls that write their input), options left NULL. */
  c = make_sort(0, CLSCAN_TYPE_INT32, CLSCAN_TYPE_UINT32, 10007);
  c.in_place = 1;
  c.pass_null_options = 1;
  run_sort(&c);
  c = make_sort(1, CLSCAN_TYPE_UINT64, CLSCAN_TYPE_INT32, 10007);
  c.in_place = 1;
  c.options.keys_in_offset = c.options.keys_out_offset = 2;
  c.options.values_in_offset = c.options.values_out_offset = 4;
  c.options.descending = 1;
  run_sort(&c);
  /* Bit ranges: the low 12 bits, a middle byte (end_bit 0 is every bit from begin_bit), none at all. */
  c = make_sort(1, CLSCAN_TYPE_UINT32, CLSCAN_TYPE_UINT32, 10007);
  c.options.end_bit = 12;
  run_sort(&c);
  c = make_sort(0, CLSCAN_TYPE_FLOAT32, CLSCAN_TYPE_UINT32, 10007);
  c.options.begin_bit = 20;
  run_sort(&c);
  c = make_sort(2, CLSCAN_TYPE_INT32, CLSCAN_TYPE_UINT32, 1000);
  c.options.begin_bit = 8;
  c.options.end_bit = 8;
  run_sort(&c);
  /* The portable algorithm named. */
  c = make_sort(1, CLSCAN_TYPE_INT32, CLSCAN_TYPE_FLOAT32, 10007);
  c.options.algorithm = CLSCAN_ALGORITHM_THREE_STAGE;
  run_sort(&c);
}

/* The sorts' failures: a message naming the problem, no event, buffers unchanged. */
/* clscan_sort of int32 keys from `keys` to `out` with `options`: refused, naming `needle`, with no event. */
static void expect_sort_refused(const char* label, cl_mem keys, cl_mem out, size_t n,
                                const clscan_sort_options* options, const char* needle) {
  cl_event event = (cl_event)&event;
  const clscan_status status = clscan_sort(queue, keys, out, n, CLSCAN_TYPE_INT32, options, &event);
  expect_failure(label, status, CLSCAN_INVALID_ARGUMENT, needle, event);
}

static void test_sort_errors(void) {
  enum { n = 64 };
  cl_int data[n], after[n];
  cl_mem keys = create_buffer(n * sizeof(cl_int)), other = create_buffer(n * sizeof(cl_int));
  cl_event event = (cl_event)&event;
  clscan_sort_options options = CLSCAN_SORT_OPTIONS_INIT;
  clscan_status status;
  size_t i;
  for (i = 0; i < n; ++i)
    data[i] = (cl_int)(n - i);
  write_buffer(keys, data, sizeof data);
  write_buffer(other, data, sizeof data);

  status = clscan_sorted_order(queue, keys, other, n, CLSCAN_TYPE_INT32, CLSCAN_TYPE_INT32, NULL, &event);
  expect_failure("sorted_order with int32 indices", status, CLSCAN_INVALID_ARGUMENT, "CLSCAN_TYPE_UINT32",
                 event);
  event = (cl_event)&event;
  status = clscan_sort(queue, keys, other, n, (clscan_type)99, NULL, &event);
  expect_failure("sort of an unknown key type", status, CLSCAN_INVALID_ARGUMENT, "clscan_type", event);
  options.struct_size = 3;
  expect_sort_refused("sort with a bad struct_size", keys, other, n, &options, "struct_size");
  clscan_sort_options_init(&options);
  options.begin_bit = 20;
  options.end_bit = 10;
  expect_sort_refused("sort of bits [20, 10)", keys, other, n, &options, "bit");
  clscan_sort_options_init(&options);
  options.end_bit = 33;
  expect_sort_refused("sort of 33 bits of int32 keys", keys, other, n, &options, "bit");
  clscan_sort_options_init(&options);
  options.keys_out_offset = 1;
  expect_sort_refused("sort past the output's end", keys, other, n, &options, NULL);
  clscan_sort_options_init(&options);
  options.algorithm = (clscan_algorithm)7;
  expect_sort_refused("sort with an unknown algorithm", keys, other, n, &options, "clscan_algorithm");
  clscan_sort_options_init(&options);
  options.wait_list_size = 1;
  expect_sort_refused("sort with a NULL wait list", keys, other, n, &options, "wait_list");
  event = (cl_event)&event;
  status = clscan_sort_by_key(queue, keys, NULL, other, other, n, CLSCAN_TYPE_INT32, CLSCAN_TYPE_INT32, NULL,
                              &event);
  expect_failure("sort_by_key without values", status, CLSCAN_INVALID_ARGUMENT, "values_in", event);
  event = (cl_event)&event;
  status = clscan_sorted_order(queue, keys, NULL, n, CLSCAN_TYPE_INT32, CLSCAN_TYPE_UINT32, NULL, &event);
  expect_failure("sorted_order without indices", status, CLSCAN_INVALID_ARGUMENT, "indices_out", event);
  event = (cl_event)&event;
  status = clscan_sort(NULL, keys, other, n, CLSCAN_TYPE_INT32, NULL, &event);
  expect_failure("sort without a queue", status, CLSCAN_INVALID_ARGUMENT, "queue", event);

  read_buffer(keys, after, sizeof after);
  CHECK(memcmp(after, data, sizeof data) == 0);
  read_buffer(other, after, sizeof after);
  CHECK(memcmp(after, data, sizeof data) == 0);
  clReleaseMemObject(other);
  clReleaseMemObject(keys);
}

static void set_up(void) {
  cl_int status = CL_SUCCESS;
  char name[256] = "";
  clscan_status selected = clscan_select_device(&device);
  if (selected != CLSCAN_SUCCESS) {
    fprintf(stderr, "clscan_select_device: %s: %s\n", clscan_status_name(selected),
            clscan_last_error_message());
    exit(1);
  }
  context = clCreateContext(NULL, 1, &device, NULL, NULL, &status);
  REQUIRE_CL(status);
  queue = clCreateCommandQueue(context, device, 0, &status);
  REQUIRE_CL(status);
  REQUIRE_CL(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL));
  printf("c-api: device %s, clscan %s\n", name, clscan_version());
}

static void tear_down(void) {
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

/* Under CLSCAN_DEVICE_LIMITS=no_fp64: the float64 scan is refused, float32 still runs. */
static void test_unsupported(void) {
  enum { n = 16 };
  cl_double data[n], after[n];
  cl_mem buffer = create_buffer(sizeof data);
  cl_event event = (cl_event)&event;
  size_t i;
  for (i = 0; i < n; ++i)
    data[i] = (cl_double)i;
  write_buffer(buffer, data, sizeof data);
  const clscan_status status = clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_FLOAT64, NULL, &event);
  expect_failure("float64 without fp64", status, CLSCAN_UNSUPPORTED, "fp64", event);
  {
    /* The selections and the scans by key refuse cl_double elements and cl_double keys alike. */
    cl_mem other = create_buffer(sizeof data);
    cl_mem count = create_buffer(sizeof(cl_ulong));
    clscan_status refused;
#define EXPECT_UNSUPPORTED(what, call)                                                                       \
  do {                                                                                                       \
    event = (cl_event)&event;                                                                                \
    refused = (call);                                                                                        \
    expect_failure(what, refused, CLSCAN_UNSUPPORTED, "fp64", event);                                        \
  } while (0)
    EXPECT_UNSUPPORTED("select_if of float64", clscan_select_if(queue, buffer, other, count, n,
                                                                CLSCAN_TYPE_FLOAT64, "x > 0", NULL, &event));
    EXPECT_UNSUPPORTED("unique of float64",
                       clscan_unique(queue, buffer, other, count, n, CLSCAN_TYPE_FLOAT64, NULL, &event));
    EXPECT_UNSUPPORTED("scan by key of float64",
                       clscan_inclusive_by_key(queue, other, CLSCAN_TYPE_INT32, buffer, buffer, n,
                                               CLSCAN_TYPE_FLOAT64, NULL, &event));
    EXPECT_UNSUPPORTED("scan by float64 keys",
                       clscan_exclusive_by_key(queue, buffer, CLSCAN_TYPE_FLOAT64, other, other, n,
                                               CLSCAN_TYPE_INT32, NULL, &event));
    {
      /* A float64 input read by a transform into float32 elements. */
      clscan_options options = CLSCAN_OPTIONS_INIT;
      options.transform = "(float)x";
      options.has_transform_input = 1;
      options.transform_input = CLSCAN_TYPE_FLOAT64;
      EXPECT_UNSUPPORTED("a float64 transform input",
                         clscan_inclusive(queue, buffer, other, n, CLSCAN_TYPE_FLOAT32, &options, &event));
      EXPECT_UNSUPPORTED("a float64 transform input of reduce",
                         clscan_reduce(queue, buffer, other, n, CLSCAN_TYPE_FLOAT32, &options, &event));
    }
#undef EXPECT_UNSUPPORTED
    clReleaseMemObject(count);
    clReleaseMemObject(other);
  }
  read_buffer(buffer, after, sizeof after);
  CHECK(memcmp(after, data, sizeof data) == 0);
  CHECK(clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_FLOAT32, NULL, NULL) == CLSCAN_SUCCESS);
  REQUIRE_CL(clFinish(queue));
  clReleaseMemObject(buffer);
}

/* Run with CLSCAN_TUNING=wg=1,items=2,vec=1 (two-element tiles) and, on PoCL, POCL_MEMORY_LIMIT=1
 * (256 MiB per buffer): a forced single-pass scan of n cl_int then needs status words of 8n bytes, past
 * the allocation limit, while its 4n bytes of data fit (as tests/reliability/faults_resources.cpp). */
static void test_opencl_error(void) {
  cl_ulong max_alloc = 0, global_memory = 0;
  size_t n, bytes, i;
  const size_t budget = (size_t)256 << 20;
  const cl_int pattern = 0x5ca9;
  cl_int* after;
  cl_mem buffer;
  cl_event event = (cl_event)&event;
  clscan_options options = CLSCAN_OPTIONS_INIT;
  clscan_status status;
  REQUIRE_CL(clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
  REQUIRE_CL(clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global_memory, &global_memory, NULL));
  n = (size_t)(max_alloc / 8 + 1);
  bytes = n * sizeof(cl_int);
  if (bytes > budget || 2 * (cl_ulong)bytes > global_memory) {
    /* Not raised for GPUs with more memory: on an 80 GB H100 (10 GB of data) NVIDIA's compiler did not
     * build the one-work-item single-pass program this needs (CL_UNKNOWN_ERROR), a failure of another
     * kind than the one under test. */
    printf("c-api: skipped: the temporaries pass the allocation limit (%llu bytes) only with %zu bytes "
           "of data, more than this test's budget (%zu bytes) or half the device's memory\n",
           (unsigned long long)max_alloc, bytes, budget);
    return;
  }
  buffer = create_buffer(bytes);
  REQUIRE_CL(clEnqueueFillBuffer(queue, buffer, &pattern, sizeof pattern, 0, bytes, 0, NULL, NULL));
  options.algorithm = CLSCAN_ALGORITHM_SINGLE_PASS;
  status = clscan_inclusive(queue, buffer, buffer, n, CLSCAN_TYPE_INT32, &options, &event);
  expect_failure("temporaries past the allocation limit", status, CLSCAN_OPENCL_ERROR, "clCreateBuffer",
                 event);
  if (status == CLSCAN_OPENCL_ERROR) {
    const cl_int cl_status = clscan_last_opencl_status();
    printf("c-api: %s\n", clscan_last_error_message());
    CHECK(cl_status == CL_INVALID_BUFFER_SIZE || cl_status == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
          cl_status == CL_OUT_OF_RESOURCES || cl_status == CL_OUT_OF_HOST_MEMORY);
    CHECK(strstr(clscan_last_error_message(), clscan_opencl_status_name(cl_status)) != NULL);
  }
  after = checked_malloc(bytes);
  read_buffer(buffer, after, bytes);
  for (i = 0; i < n; ++i)
    if (after[i] != pattern) {
      fprintf(stderr, "the failed scan changed element %zu\n", i);
      ++failures;
      break;
    }
  free(after);
  clReleaseMemObject(buffer);
}

/* reduce_by_key, unique_by_key and run_length_encode (int32 keys in runs of 1 to 8, float32 values
 * that are small integers, so that sums are exact), at offsets, with poisoned outputs, against loops
 * here; then a failure of each. */
static void test_runs(void) {
  enum { n = 10007, in_offset = 2, out_offset = 3, count_offset = 1, guard = 4 };
  const size_t out_size = out_offset + n + guard;
  cl_int* keys = checked_malloc((in_offset + n) * sizeof(cl_int));
  cl_float* values = checked_malloc((in_offset + n) * sizeof(cl_float));
  cl_int* expected_keys = checked_malloc(n * sizeof(cl_int));
  cl_float* expected_sums = checked_malloc(n * sizeof(cl_float));
  cl_float* expected_firsts = checked_malloc(n * sizeof(cl_float));
  cl_ulong* expected_lengths = checked_malloc(n * sizeof(cl_ulong));
  unsigned char* got = checked_malloc(out_size * sizeof(cl_ulong));
  cl_mem k = create_buffer((in_offset + n) * sizeof(cl_int));
  cl_mem v = create_buffer((in_offset + n) * sizeof(cl_float));
  cl_mem ko = create_buffer(out_size * sizeof(cl_int));
  cl_mem vo = create_buffer(out_size * sizeof(cl_ulong));
  cl_mem count = create_buffer(3 * sizeof(cl_ulong));
  size_t runs = 0, i, j, length;
  int call;
  cl_event done = NULL, event = NULL, stale = (cl_event)&stale;
  clscan_status status;
  clscan_options options = CLSCAN_OPTIONS_INIT;
  clscan_select_options select_options = CLSCAN_SELECT_OPTIONS_INIT;

  for (i = 0; i < in_offset; ++i) {
    keys[i] = -1;
    values[i] = -1.0f;
  }
  for (i = 0; i < n; ++i) {
    keys[in_offset + i] = (cl_int)(mix(i / 3 + mix(i % 3)) % 3); /* runs of 1 to about 8 */
    values[in_offset + i] = (cl_float)(mix(i) % 100);
    if (i == 0 || keys[in_offset + i] != keys[in_offset + i - 1]) {
      expected_keys[runs] = keys[in_offset + i];
      expected_sums[runs] = 0.0f;
      expected_firsts[runs] = values[in_offset + i];
      expected_lengths[runs] = 0;
      ++runs;
    }
    expected_sums[runs - 1] += values[in_offset + i];
    ++expected_lengths[runs - 1];
  }
  write_buffer(k, keys, (in_offset + n) * sizeof(cl_int));
  write_buffer(v, values, (in_offset + n) * sizeof(cl_float));
  options.in_offset = select_options.in_offset = in_offset;
  options.out_offset = select_options.out_offset = out_offset;
  select_options.count_offset = count_offset;

  for (call = 0; call < 4; ++call) {
    const char* const labels[] = {"reduce_by_key", "unique_by_key", "run_length_encode (uint32)",
                                  "run_length_encode (uint64)"};
    const size_t value_size = call == 3 ? sizeof(cl_ulong) : sizeof(cl_float);
    cl_ulong counts[3];
    memset(got, poison_byte, out_size * sizeof(cl_ulong));
    write_buffer(ko, got, out_size * sizeof(cl_int));
    write_buffer(vo, got, out_size * sizeof(cl_ulong));
    write_buffer(count, got, 3 * sizeof(cl_ulong));
    done = NULL;
    if (call == 0)
      status = clscan_reduce_by_key(queue, k, CLSCAN_TYPE_INT32, v, CLSCAN_TYPE_FLOAT32, ko, vo, count,
                                    count_offset, n, &options, &done);
    else if (call == 1)
      status = clscan_unique_by_key(queue, k, CLSCAN_TYPE_INT32, v, CLSCAN_TYPE_FLOAT32, ko, vo, count, n,
                                    &select_options, &done);
    else
      status = clscan_run_length_encode(queue, k, CLSCAN_TYPE_INT32, ko, vo,
                                        call == 2 ? CLSCAN_TYPE_UINT32 : CLSCAN_TYPE_UINT64, count, n,
                                        &select_options, &done);
    if (succeeded(labels[call], status, done, 1)) {
      read_buffer(count, counts, sizeof counts);
      CHECK(counts[count_offset] == runs);
      read_buffer(ko, got, out_size * sizeof(cl_int));
      CHECK(memcmp(got + out_offset * sizeof(cl_int), expected_keys, runs * sizeof(cl_int)) == 0);
      for (j = 0; j < out_size * sizeof(cl_int); ++j)
        if ((j < out_offset * sizeof(cl_int) || j >= (out_offset + runs) * sizeof(cl_int)) &&
            got[j] != poison_byte) {
          fprintf(stderr, "%s: keys_out byte %zu past the runs was written\n", labels[call], j);
          ++failures;
          break;
        }
      read_buffer(vo, got, out_size * value_size);
      for (j = 0; j < runs; ++j) {
        int same;
        if (call == 0 || call == 1) {
          cl_float x;
          memcpy(&x, got + (out_offset + j) * value_size, sizeof x);
          same = x == (call == 0 ? expected_sums[j] : expected_firsts[j]);
        } else if (call == 2) {
          cl_uint x;
          memcpy(&x, got + (out_offset + j) * value_size, sizeof x);
          same = x == expected_lengths[j];
        } else {
          cl_ulong x;
          memcpy(&x, got + (out_offset + j) * value_size, sizeof x);
          same = x == expected_lengths[j];
        }
        if (!same) {
          fprintf(stderr, "%s: run %zu differs\n", labels[call], j);
          ++failures;
          break;
        }
      }
      for (j = (out_offset + runs) * value_size, length = out_size * value_size; j < length; ++j)
        if (got[j] != poison_byte) {
          fprintf(stderr, "%s: values_out byte %zu past the runs was written\n", labels[call], j);
          ++failures;
          break;
        }
      check_unchanged(labels[call], "keys", k, keys, (in_offset + n) * sizeof(cl_int));
    }
    if (done) clReleaseEvent(done);
  }

  /* reduce_by_key into outputs sized for half the runs (clscan_options.out_capacity): the first half
   * exact, nothing written past it, the count still every run. */
  {
    const size_t capacity = runs / 2;
    clscan_options bounded = options;
    cl_ulong counts[3];
    bounded.has_out_capacity = 1;
    bounded.out_capacity = capacity;
    memset(got, poison_byte, out_size * sizeof(cl_ulong));
    write_buffer(ko, got, out_size * sizeof(cl_int));
    write_buffer(vo, got, out_size * sizeof(cl_ulong));
    write_buffer(count, got, 3 * sizeof(cl_ulong));
    done = NULL;
    status = clscan_reduce_by_key(queue, k, CLSCAN_TYPE_INT32, v, CLSCAN_TYPE_FLOAT32, ko, vo, count,
                                  count_offset, n, &bounded, &done);
    if (succeeded("reduce_by_key (out_capacity)", status, done, 1)) {
      read_buffer(count, counts, sizeof counts);
      CHECK(counts[count_offset] == runs);
      read_buffer(ko, got, out_size * sizeof(cl_int));
      CHECK(memcmp(got + out_offset * sizeof(cl_int), expected_keys, capacity * sizeof(cl_int)) == 0);
      for (j = (out_offset + capacity) * sizeof(cl_int); j < out_size * sizeof(cl_int); ++j)
        if (got[j] != poison_byte) break;
      CHECK(j == out_size * sizeof(cl_int)); /* nothing past the capacity written */
      read_buffer(vo, got, out_size * sizeof(cl_float));
      CHECK(memcmp(got + out_offset * sizeof(cl_float), expected_sums, capacity * sizeof(cl_float)) == 0);
      for (j = (out_offset + capacity) * sizeof(cl_float); j < out_size * sizeof(cl_float); ++j)
        if (got[j] != poison_byte) break;
      CHECK(j == out_size * sizeof(cl_float));
    }
    if (done) clReleaseEvent(done);
    EXPECT_FAILURE("inclusive: an output capacity",
                   clscan_inclusive(queue, k, ko, n, CLSCAN_TYPE_INT32, &bounded, &event),
                   CLSCAN_INVALID_ARGUMENT, "only clscan_reduce_by_key takes an output capacity");
  }

  EXPECT_FAILURE("reduce_by_key: outputs overlap",
                 clscan_reduce_by_key(queue, k, CLSCAN_TYPE_INT32, v, CLSCAN_TYPE_FLOAT32, ko, ko, count, 0,
                                      n, NULL, &event),
                 CLSCAN_INVALID_ARGUMENT, "clscan_reduce_by_key: the keys_out and the values_out overlap");
  EXPECT_FAILURE("unique_by_key: null values",
                 clscan_unique_by_key(queue, k, CLSCAN_TYPE_INT32, NULL, CLSCAN_TYPE_FLOAT32, ko, vo, count,
                                      n, NULL, &event),
                 CLSCAN_INVALID_ARGUMENT, "values buffer is NULL");
  EXPECT_FAILURE("run_length_encode: int32 lengths",
                 clscan_run_length_encode(queue, k, CLSCAN_TYPE_INT32, ko, vo, CLSCAN_TYPE_INT32, count, n,
                                          NULL, &event),
                 CLSCAN_INVALID_ARGUMENT, "CLSCAN_TYPE_UINT32 or CLSCAN_TYPE_UINT64");

  clReleaseMemObject(count);
  clReleaseMemObject(vo);
  clReleaseMemObject(ko);
  clReleaseMemObject(v);
  clReleaseMemObject(k);
  free(got);
  free(expected_lengths);
  free(expected_firsts);
  free(expected_sums);
  free(expected_keys);
  free(values);
  free(keys);
}

/* The segmented calls over offsets: int32 values that are small integers, CSR offsets of segments of 0 to
 * 40 elements (uint32, then uint64), at offsets, with poisoned outputs, against loops here, each call with
 * an initial value; then a failure of each. */
static void test_segmented(void) {
  enum { n = 5003, in_offset = 2, out_offset = 3, offsets_offset = 1, guard = 4, max_segments = n + 2 };
  const size_t out_size = out_offset + n + guard;
  cl_int* values = checked_malloc((in_offset + n) * sizeof(cl_int));
  cl_ulong* offsets = checked_malloc((offsets_offset + max_segments + 1) * sizeof(cl_ulong));
  cl_uint* narrow = checked_malloc((offsets_offset + max_segments + 1) * sizeof(cl_uint));
  cl_int* expected = checked_malloc(max_segments * sizeof(cl_int));
  cl_int* got = checked_malloc(out_size * sizeof(cl_int));
  cl_mem v = create_buffer((in_offset + n) * sizeof(cl_int));
  cl_mem o = create_buffer((offsets_offset + max_segments + 1) * sizeof(cl_ulong));
  cl_mem out = create_buffer(out_size * sizeof(cl_int));
  size_t segments = 0, i, s, at = 0;
  int call;
  cl_event done = NULL, event = NULL, stale = (cl_event)&stale;
  clscan_status status;
  clscan_options options = CLSCAN_OPTIONS_INIT;
  const cl_int initial = 7;

  for (i = 0; i < in_offset; ++i)
    values[i] = -1;
  for (i = 0; i < n; ++i)
    values[in_offset + i] = (cl_int)(mix(i) % 100) - 50;
  offsets[offsets_offset] = 0;
  while (at < n) {
    at += (size_t)(mix(segments + 17) % 41); /* empty segments too */
    if (at > n || segments + 2 == max_segments) at = n;
    offsets[offsets_offset + ++segments] = at;
  }
  for (i = 0; i <= segments; ++i)
    narrow[offsets_offset + i] = (cl_uint)offsets[offsets_offset + i];
  write_buffer(v, values, (in_offset + n) * sizeof(cl_int));
  options.in_offset = in_offset;
  options.out_offset = out_offset;
  options.has_initial = 1;
  options.initial.i32 = initial;

  for (call = 0; call < 4; ++call) {
    const char* const labels[] = {"inclusive_segmented (uint32)", "exclusive_segmented (uint64)",
                                  "reduce_segmented (uint32)", "reduce_segmented (uint64)"};
    const int wide = call == 1 || call == 3;
    const size_t outputs = call >= 2 ? segments : n;
    /* Expected: every segment from `initial`. */
    for (s = 0; s < segments; ++s) {
      const size_t b = (size_t)offsets[offsets_offset + s], e = (size_t)offsets[offsets_offset + s + 1];
      cl_int running = initial;
      for (i = b; i < e; ++i) {
        if (call == 1) expected[i] = running;
        running += values[in_offset + i];
        if (call == 0) expected[i] = running;
      }
      if (call >= 2) expected[s] = running;
    }
    if (wide)
      write_buffer(o, offsets, (offsets_offset + segments + 1) * sizeof(cl_ulong));
    else
      write_buffer(o, narrow, (offsets_offset + segments + 1) * sizeof(cl_uint));
    memset(got, poison_byte, out_size * sizeof(cl_int));
    write_buffer(out, got, out_size * sizeof(cl_int));
    done = NULL;
    if (call == 0)
      status = clscan_inclusive_segmented(queue, v, out, n, CLSCAN_TYPE_INT32, o, CLSCAN_TYPE_UINT32,
                                          offsets_offset, segments, &options, &done);
    else if (call == 1)
      status = clscan_exclusive_segmented(queue, v, out, n, CLSCAN_TYPE_INT32, o, CLSCAN_TYPE_UINT64,
                                          offsets_offset, segments, &options, &done);
    else
      status = clscan_reduce_segmented(queue, v, out, n, CLSCAN_TYPE_INT32, o,
                                       wide ? CLSCAN_TYPE_UINT64 : CLSCAN_TYPE_UINT32, offsets_offset,
                                       segments, &options, &done);
    if (succeeded(labels[call], status, done, 1)) {
      read_buffer(out, got, out_size * sizeof(cl_int));
      CHECK(memcmp(got + out_offset, expected, outputs * sizeof(cl_int)) == 0);
      for (i = 0; i < out_size; ++i)
        if ((i < out_offset || i >= out_offset + outputs) &&
            ((const unsigned char*)(got + i))[0] != poison_byte) {
          fprintf(stderr, "%s: output element %zu outside the results was written\n", labels[call], i);
          ++failures;
          break;
        }
      check_unchanged(labels[call], "values", v, values, (in_offset + n) * sizeof(cl_int));
    }
    if (done) clReleaseEvent(done);
  }

  EXPECT_FAILURE("inclusive_segmented: int32 offsets",
                 clscan_inclusive_segmented(queue, v, out, n, CLSCAN_TYPE_INT32, o, CLSCAN_TYPE_INT32, 0,
                                            segments, NULL, &event),
                 CLSCAN_INVALID_ARGUMENT, "CLSCAN_TYPE_UINT32 or CLSCAN_TYPE_UINT64");
  EXPECT_FAILURE("reduce_segmented: offsets past their buffer",
                 clscan_reduce_segmented(queue, v, out, n, CLSCAN_TYPE_INT32, o, CLSCAN_TYPE_UINT64, 0,
                                         max_segments + offsets_offset + 1, NULL, &event),
                 CLSCAN_INVALID_ARGUMENT, "num_segments + 1");
  EXPECT_FAILURE("exclusive_segmented: the offsets as the output",
                 clscan_exclusive_segmented(queue, v, o, 8, CLSCAN_TYPE_INT32, o, CLSCAN_TYPE_UINT32, 0, 2,
                                            NULL, &event),
                 CLSCAN_INVALID_ARGUMENT, "clscan_exclusive_segmented: the offsets and the output overlap");

  clReleaseMemObject(out);
  clReleaseMemObject(o);
  clReleaseMemObject(v);
  free(got);
  free(expected);
  free(narrow);
  free(offsets);
  free(values);
}

/* Named parameters (clscan_parameter), key_equal and transform: select_if with "x > threshold" for two
 * thresholds, inclusive_by_key and unique whose key_equal reads a parameter, each against a sequential
 * reference; and the refusals of a bad name, a NULL parameter array and key_equal where no keys are compared.
 */
static void test_parameters(void) {
  enum { n = 3000 };
  cl_int data[n], keys[n], out[n];
  cl_ulong count = 0;
  size_t i, k;
  clscan_status status;
  cl_event event = NULL, stale = (cl_event)&stale;
  cl_mem in_buffer, key_buffer, out_buffer, count_buffer;
  clscan_parameter parameters[1];
  clscan_select_options select = CLSCAN_SELECT_OPTIONS_INIT;
  clscan_options scan = CLSCAN_OPTIONS_INIT;
  for (i = 0; i < n; ++i) {
    data[i] = (cl_int)((i * 7919) % 1000);
    keys[i] = (cl_int)(i / 3);
  }
  in_buffer = create_buffer(sizeof data);
  key_buffer = create_buffer(sizeof keys);
  out_buffer = create_buffer(sizeof out);
  count_buffer = create_buffer(sizeof count);
  write_buffer(in_buffer, data, sizeof data);
  write_buffer(key_buffer, keys, sizeof keys);
  parameters[0].name = "threshold";
  parameters[0].type = CLSCAN_TYPE_INT32;
  select.parameters = parameters;
  select.parameter_count = 1;
  for (k = 0; k < 2; ++k) {
    const cl_int threshold = k == 0 ? 500 : 100;
    size_t expected = 0;
    parameters[0].value.i32 = threshold;
    status = clscan_select_if(queue, in_buffer, out_buffer, count_buffer, n, CLSCAN_TYPE_INT32,
                              "x > threshold", &select, NULL);
    CHECK(status == CLSCAN_SUCCESS);
    read_buffer(count_buffer, &count, sizeof count);
    read_buffer(out_buffer, out, sizeof out);
    for (i = 0; i < n; ++i)
      if (data[i] > threshold) {
        CHECK(expected < count && out[expected] == data[i]);
        ++expected;
      }
    CHECK(count == expected);
  }

  parameters[0].name = "width";
  parameters[0].value.i32 = 4;
  scan.parameters = parameters;
  scan.parameter_count = 1;
  scan.key_equal = "a / width == b / width";
  status = clscan_inclusive_by_key(queue, key_buffer, CLSCAN_TYPE_INT32, in_buffer, out_buffer, n,
                                   CLSCAN_TYPE_INT32, &scan, NULL);
  CHECK(status == CLSCAN_SUCCESS);
  read_buffer(out_buffer, out, sizeof out);
  {
    cl_int running = 0;
    for (i = 0; i < n; ++i) {
      running = (i == 0 || keys[i - 1] / 4 != keys[i] / 4) ? data[i] : running + data[i];
      CHECK(out[i] == running);
    }
  }
  select.key_equal = "a / width == b / width";
  status = clscan_unique(queue, key_buffer, out_buffer, count_buffer, n, CLSCAN_TYPE_INT32, &select, NULL);
  CHECK(status == CLSCAN_SUCCESS);
  read_buffer(count_buffer, &count, sizeof count);
  read_buffer(out_buffer, out, sizeof out);
  CHECK(count == (n / 3 + 3) / 4);
  for (i = 0; i < count && i < n; ++i)
    CHECK(out[i] == (cl_int)(i * 4));

  /* A transform reading the parameter: the running sum of x * width. */
  scan.key_equal = NULL;
  scan.transform = "x * width";
  status = clscan_inclusive(queue, in_buffer, out_buffer, n, CLSCAN_TYPE_INT32, &scan, NULL);
  CHECK(status == CLSCAN_SUCCESS);
  read_buffer(out_buffer, out, sizeof out);
  {
    cl_int running = 0;
    for (i = 0; i < n; ++i) {
      running += data[i] * 4;
      CHECK(out[i] == running);
    }
  }
  EXPECT_FAILURE("a transform by key",
                 clscan_inclusive_by_key(queue, key_buffer, CLSCAN_TYPE_INT32, in_buffer, out_buffer, n,
                                         CLSCAN_TYPE_INT32, &scan, &event),
                 CLSCAN_INVALID_ARGUMENT, "transform is for the scans and reduce");
  scan.transform = NULL;
  scan.key_equal = "a / width == b / width";

  parameters[0].name = "x";
  EXPECT_FAILURE("a parameter named x",
                 clscan_select_if(queue, in_buffer, out_buffer, count_buffer, n, CLSCAN_TYPE_INT32, "x > 0",
                                  &select, &event),
                 CLSCAN_INVALID_ARGUMENT, "parameters[0] is named 'x'");
  scan.parameters = NULL;
  EXPECT_FAILURE("parameters NULL",
                 clscan_inclusive(queue, in_buffer, out_buffer, n, CLSCAN_TYPE_INT32, &scan, &event),
                 CLSCAN_INVALID_ARGUMENT, "clscan_options.parameters is NULL");
  scan.parameter_count = 0;
  EXPECT_FAILURE("key_equal of a scan",
                 clscan_inclusive(queue, in_buffer, out_buffer, n, CLSCAN_TYPE_INT32, &scan, &event),
                 CLSCAN_INVALID_ARGUMENT, "key_equal is for");
  clReleaseMemObject(in_buffer);
  clReleaseMemObject(key_buffer);
  clReleaseMemObject(out_buffer);
  clReleaseMemObject(count_buffer);
}

/* A transform of an input of another type (has_transform_input): a cl_uint count of the positive
 * floats from in_offset 3, a cl_long sum of cl_ints that overflow a cl_int, each against a sequential
 * reference; the field ignored where struct_size ends before it; and the refusals of it without a
 * transform, of an unknown type and of a scan over its own input, each leaving the output untouched. */
static void test_transform_input(void) {
  enum { n = 5000 };
  cl_float floats[n];
  cl_int ints[n];
  cl_uint counts[n];
  cl_long sums[n], total = 0, poison[n];
  size_t i;
  clscan_status status;
  cl_event event = NULL, stale = (cl_event)&stale;
  cl_mem float_buffer, int_buffer, count_buffer, sum_buffer;
  clscan_options options = CLSCAN_OPTIONS_INIT;
  for (i = 0; i < n; ++i) {
    floats[i] = (i * 7919) % 3 == 0 ? -1.5f : 0.25f * (float)(i % 5);
    ints[i] = 2147483647 - (cl_int)(i % 1000);
    poison[i] = (cl_long)0x5A5A5A5A5A5A5A5Aull;
  }
  float_buffer = create_buffer(sizeof floats);
  int_buffer = create_buffer(sizeof ints);
  count_buffer = create_buffer(sizeof counts);
  sum_buffer = create_buffer(sizeof sums);
  write_buffer(float_buffer, floats, sizeof floats);
  write_buffer(int_buffer, ints, sizeof ints);

  options.transform = "x > 0 ? 1 : 0";
  options.has_transform_input = 1;
  options.transform_input = CLSCAN_TYPE_FLOAT32;
  options.in_offset = 3;
  status = clscan_inclusive(queue, float_buffer, count_buffer, n - 3, CLSCAN_TYPE_UINT32, &options, NULL);
  CHECK(status == CLSCAN_SUCCESS);
  read_buffer(count_buffer, counts, sizeof counts);
  {
    cl_uint running = 0;
    for (i = 3; i < n; ++i) {
      running += floats[i] > 0 ? 1u : 0u;
      CHECK(counts[i - 3] == running);
    }
  }

  options.transform = "x";
  options.transform_input = CLSCAN_TYPE_INT32;
  options.in_offset = 0;
  status = clscan_inclusive(queue, int_buffer, sum_buffer, n, CLSCAN_TYPE_INT64, &options, NULL);
  CHECK(status == CLSCAN_SUCCESS);
  read_buffer(sum_buffer, sums, sizeof sums);
  for (i = 0; i < n; ++i) {
    total += ints[i];
    CHECK(sums[i] == total);
  }
  status = clscan_reduce(queue, int_buffer, sum_buffer, n, CLSCAN_TYPE_INT64, &options, NULL);
  CHECK(status == CLSCAN_SUCCESS);
  read_buffer(sum_buffer, sums, sizeof(cl_long));
  CHECK(sums[0] == total);

  write_buffer(sum_buffer, poison, sizeof poison);
  /* A struct of a version before the field: the input is read as cl_long, n of which the buffer of n
   * cl_ints does not hold. */
  options.struct_size = offsetof(clscan_options, has_transform_input);
  EXPECT_FAILURE("transform_input past struct_size",
                 clscan_inclusive(queue, int_buffer, sum_buffer, n, CLSCAN_TYPE_INT64, &options, &event),
                 CLSCAN_INVALID_ARGUMENT, "the input buffer holds 2500 elements of 8 bytes");
  options.struct_size = sizeof options;
  options.transform = NULL;
  EXPECT_FAILURE("transform_input without a transform",
                 clscan_reduce(queue, int_buffer, sum_buffer, n, CLSCAN_TYPE_INT64, &options, &event),
                 CLSCAN_INVALID_ARGUMENT, "set without clscan_options.transform");
  options.transform = "x";
  options.transform_input = (clscan_type)9;
  EXPECT_FAILURE("transform_input of no type",
                 clscan_inclusive(queue, int_buffer, sum_buffer, n, CLSCAN_TYPE_INT64, &options, &event),
                 CLSCAN_INVALID_ARGUMENT, "unknown clscan_type 9");
  options.transform_input = CLSCAN_TYPE_INT32;
  EXPECT_FAILURE("a scan over its own input of another type",
                 clscan_exclusive(queue, sum_buffer, sum_buffer, n, CLSCAN_TYPE_INT64, &options, &event),
                 CLSCAN_INVALID_ARGUMENT, "cannot write its result over an input of another type");
  read_buffer(sum_buffer, sums, sizeof sums);
  CHECK(memcmp(sums, poison, sizeof sums) == 0);
  clReleaseMemObject(float_buffer);
  clReleaseMemObject(int_buffer);
  clReleaseMemObject(count_buffer);
  clReleaseMemObject(sum_buffer);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "all";
  if (strcmp(mode, "no-device") == 0) {
    cl_device_id none = (cl_device_id)&none;
    expect_failure("no matching device", clscan_select_device(&none), CLSCAN_DEVICE_NOT_FOUND,
                   "CLSCAN_PLATFORM", NULL);
    CHECK(none == NULL);
  } else {
    set_up();
    if (strcmp(mode, "all") == 0) {
      test_types();
      test_operators();
      test_options();
      test_wait_list_and_events();
      test_errors();
      test_selections();
      test_selection_wait_list();
      test_by_key();
      test_primitive_errors();
      test_reduce();
      test_runs();
      test_segmented();
      test_names_and_cache();
      test_thread_local_error();
      test_parameters();
      test_transform_input();
    } else if (strcmp(mode, "sort") == 0) {
      test_sorts();
      test_sort_errors();
    } else if (strcmp(mode, "unsupported") == 0) {
      test_unsupported();
    } else if (strcmp(mode, "opencl-error") == 0) {
      test_opencl_error();
    } else {
      fprintf(stderr, "unknown mode '%s' (all, sort, unsupported, opencl-error, no-device)\n", mode);
      return 2;
    }
    tear_down();
  }
  if (failures) {
    fprintf(stderr, "c-api: %d check(s) failed\n", failures);
    return 1;
  }
  printf("c-api: all checks passed\n");
  return 0;
}
