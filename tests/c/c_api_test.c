/* The C API (include/clscan/clscan.h), from C: compiled as C99 with -pedantic, no test framework.
 *
 *   c_api_test            every call: exact results against a host loop for every type and operator, in
 *                         place and out of place, offsets, initial values, options left NULL, wait lists,
 *                         returned events, n == 0; every status the default device can be made to return,
 *                         with buffers untouched and no event after a failure; names, version, cache
 *                         calls; the last error message per thread
 *   c_api_test unsupported    under CLSCAN_DEVICE_LIMITS=no_fp64: CLSCAN_TYPE_FLOAT64 -> CLSCAN_UNSUPPORTED
 *   c_api_test opencl-error   temporaries past the allocation limit -> CLSCAN_OPENCL_ERROR
 *                             (tests/CMakeLists.txt sets the environment that forces it)
 *   c_api_test no-device      under a CLSCAN_PLATFORM that matches nothing -> CLSCAN_DEVICE_NOT_FOUND
 *
 * Prints "c-api: skipped: <why>" where a mode cannot provoke its failure on the device; exits nonzero
 * on any failed check. */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120

#include <clscan/clscan.h>

#include <math.h>
#include <pthread.h>
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

/* Integers compare exactly; floating-point values by value, with every NaN equal to every NaN (fmin and
 * fmax need not keep a payload). */
static int same_value(clscan_type type, clscan_value a, clscan_value b) {
  switch (type) {
  case CLSCAN_TYPE_INT32: return a.i32 == b.i32;
  case CLSCAN_TYPE_UINT32: return a.u32 == b.u32;
  case CLSCAN_TYPE_INT64: return a.i64 == b.i64;
  case CLSCAN_TYPE_UINT64: return a.u64 == b.u64;
  case CLSCAN_TYPE_FLOAT32: return (isnan(a.f32) && isnan(b.f32)) || a.f32 == b.f32;
  case CLSCAN_TYPE_FLOAT64: return (isnan(a.f64) && isnan(b.f64)) || a.f64 == b.f64;
  }
  return 0;
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
  if (status != CLSCAN_SUCCESS) {
    ++failures;
    fprintf(stderr, "%s: %s: %s\n", label, clscan_status_name(status), clscan_last_error_message());
  } else {
    CHECK(strcmp(clscan_last_error_message(), "") == 0);
    CHECK(clscan_last_opencl_status() == CL_SUCCESS);
    if (c->pass_null_event) {
      REQUIRE_CL(clFinish(queue));
    } else {
      CHECK(done != NULL);
      if (done) REQUIRE_CL(clWaitForEvents(1, &done));
    }
    read_buffer(out, actual, count * size);
    for (i = 0; i < count; ++i) {
      const int in_range = i >= c->options.out_offset && i < c->options.out_offset + c->n;
      const int same = in_range ? same_value(c->type, load(actual, i, c->type), load(expected, i, c->type))
                                : memcmp(actual + i * size, expected + i * size, size) == 0;
      if (!same) {
        char got[64], want[64];
        describe(got, sizeof got, c->type, load(actual, i, c->type));
        describe(want, sizeof want, c->type, load(expected, i, c->type));
        fprintf(stderr, "%s: element %zu is %s, expected %s%s\n", label, i, got, want,
                in_range ? "" : " (outside the scanned range)");
        ++failures;
        break;
      }
    }
    if (!c->in_place) {
      read_buffer(in, actual, count * size);
      if (memcmp(actual, initial_in, count * size) != 0) {
        fprintf(stderr, "%s: the input buffer changed\n", label);
        ++failures;
      }
    }
  }
  if (done) clReleaseEvent(done);
  if (!c->in_place) clReleaseMemObject(out);
  clReleaseMemObject(in);
  free(initial_in);
  free(expected);
  free(actual);
}

static scan_case make_case(clscan_type type, int exclusive, int in_place, size_t n) {
  scan_case c;
  c.type = type;
  c.exclusive = exclusive;
  c.in_place = in_place;
  c.n = n;
  clscan_options_init(&c.options);
  c.pass_null_options = 0;
  c.pass_null_event = 0;
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
  if (event) {
    fprintf(stderr, "%s: an event was returned by a failed call\n", what);
    ++failures;
  }
  if (expected != CLSCAN_OPENCL_ERROR && expected != CLSCAN_BUILD_ERROR)
    CHECK(clscan_last_opencl_status() == CL_SUCCESS);
}

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

#define EXPECT_FAILURE(what, call, expected, needle)                                                         \
  do {                                                                                                       \
    event = stale;                                                                                           \
    status = (call);                                                                                         \
    expect_failure(what, status, expected, needle, event);                                                   \
  } while (0)

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
  options.deterministic = 1;
  options.algorithm = CLSCAN_ALGORITHM_SINGLE_PASS;
  EXPECT_FAILURE("deterministic single pass on float",
                 clscan_inclusive(queue, buffer, buffer, n / 2, CLSCAN_TYPE_FLOAT32, &options, not_null),
                 CLSCAN_INVALID_ARGUMENT, "deterministic");
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
#undef EXPECT_FAILURE
  clReleaseMemObject(other);
  clReleaseMemObject(buffer);
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
    printf("c-api: skipped: the data would take %zu bytes (allocation limit %llu)\n", bytes,
           (unsigned long long)max_alloc);
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
      test_names_and_cache();
      test_thread_local_error();
    } else if (strcmp(mode, "unsupported") == 0) {
      test_unsupported();
    } else if (strcmp(mode, "opencl-error") == 0) {
      test_opencl_error();
    } else {
      fprintf(stderr, "unknown mode '%s' (all, unsupported, opencl-error, no-device)\n", mode);
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
