/* Build: cc scan.c -o scan $(pkg-config --cflags --libs clscan) */
#define CL_TARGET_OPENCL_VERSION 120 /* the OpenCL API version this program uses */
#include <clscan/clscan.h>

#include <stdio.h>

#define N 100000

static int failed(const char* what, clscan_status status) {
  fprintf(stderr, "%s: %s: %s\n", what, clscan_status_name(status), clscan_last_error_message());
  return 1;
}

int main(void) {
  static cl_int data[N], excl[N], incl[N];
  cl_int err = CL_SUCCESS, sum = 0;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  cl_mem in, out;
  cl_event done;
  clscan_options opts = CLSCAN_OPTIONS_INIT; /* sum, automatic algorithm, no offsets or initial value */
  clscan_status status;
  int i, ok = 1;

  for (i = 0; i < N; ++i)
    data[i] = i % 17 - 8;
  status = clscan_select_device(&device); /* honours CLSCAN_PLATFORM / CLSCAN_DEVICE */
  if (status != CLSCAN_SUCCESS) return failed("clscan_select_device", status);
  context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS) return 1;
  queue = clCreateCommandQueue(context, device, 0, &err);
  if (err != CL_SUCCESS) return 1;
  in = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  if (err != CL_SUCCESS) return 1;
  out = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof data, NULL, &err);
  if (err != CL_SUCCESS) return 1;

  /* Out of place (`in` is not modified), waiting on the returned event. */
  status = clscan_exclusive(queue, in, out, N, CLSCAN_TYPE_INT32, &opts, &done);
  if (status != CLSCAN_SUCCESS) return failed("clscan_exclusive", status);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  /* In place (the same buffer twice), default options, no event: the blocking read below waits. */
  status = clscan_inclusive(queue, in, in, N, CLSCAN_TYPE_INT32, NULL, NULL);
  if (status != CLSCAN_SUCCESS) return failed("clscan_inclusive", status);

  clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof excl, excl, 0, NULL, NULL);
  clEnqueueReadBuffer(queue, in, CL_TRUE, 0, sizeof incl, incl, 0, NULL, NULL);
  for (i = 0; i < N; ++i) {
    ok = ok && excl[i] == sum;
    sum += data[i];
    ok = ok && incl[i] == sum;
  }
  printf("scanned %d ints with clscan %s: last inclusive sum %d, %s\n", N, clscan_version(), (int)incl[N - 1],
         ok ? "both scans match a host loop" : "WRONG RESULT");

  clReleaseMemObject(out);
  clReleaseMemObject(in);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return ok ? 0 : 1;
}
