// clscan-host-cost: host time of one enqueue, clscan calls beside the bare driver calls they are made of.
#include "common/cli.hpp"
#include "common/timing.hpp"

#include <clscan/clscan.hpp>

#include <cstdio>
#include <vector>

// The median host time of `reps` calls of f, in microseconds.
template <typename F> double med_us(F f, int reps = 2000) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const clscan_tools::stopwatch watch;
    f();
    t.push_back(watch.microseconds());
  }
  return clscan_tools::median(t);
}
namespace {

const char* const help_text = R"(usage: clscan-host-cost [--help]

Prints the median host time of one enqueue on the default device (CLSCAN_PLATFORM, CLSCAN_DEVICE): bare
OpenCL calls (clSetKernelArg, clEnqueueNDRangeKernel with and without an event, object queries) beside
clscan calls (n = 0, and an out-of-place inclusive scan of 2^16 ints) and clEnqueueCopyBuffer.
Exit status: 0, 1 on an error (reported on stderr), 2 on a bad command line.
)";

int measure() {
  cl::Device dev = clscan::select_device();
  cl::Context ctx(dev);
  cl::CommandQueue q(ctx, dev);
  const char* src =
      "kernel void k(global int* a, ulong n) { size_t i = get_global_id(0); if (i < n) a[i] += 1; }";
  cl::Program p(ctx, src, true);
  cl::Kernel k(p, "k");
  size_t n = 1 << 16;
  cl::Buffer b(ctx, CL_MEM_READ_WRITE, n * 4), o(ctx, CL_MEM_READ_WRITE, n * 4);
  cl_ulong nn = n;
  clscan::inclusive(q, b, o, n);
  q.finish();
  std::printf("%s\n", dev.getInfo<CL_DEVICE_NAME>().c_str());
  std::printf("setArg x2 + enqueueNDRange + event: %.2f us\n", med_us([&] {
                cl_event e;
                clSetKernelArg(k(), 0, sizeof(cl_mem), &b());
                clSetKernelArg(k(), 1, 8, &nn);
                size_t g = n, l = 256;
                clEnqueueNDRangeKernel(q(), k(), 1, nullptr, &g, &l, 0, nullptr, &e);
                clReleaseEvent(e);
              }));
  q.finish();
  std::printf("enqueueNDRange, no event: %.2f us\n", med_us([&] {
                size_t g = n, l = 256;
                clEnqueueNDRangeKernel(q(), k(), 1, nullptr, &g, &l, 0, nullptr, nullptr);
              }));
  q.finish();
  std::printf("clGetMemObjectInfo x4 + clGetCommandQueueInfo x3: %.2f us\n", med_us([&] {
                size_t s;
                cl_context c;
                cl_device_id d;
                cl_command_queue_properties pr;
                for (int i = 0; i < 2; ++i) {
                  clGetMemObjectInfo(b(), CL_MEM_SIZE, sizeof s, &s, nullptr);
                  clGetMemObjectInfo(b(), CL_MEM_CONTEXT, sizeof c, &c, nullptr);
                }
                clGetCommandQueueInfo(q(), CL_QUEUE_CONTEXT, sizeof c, &c, nullptr);
                clGetCommandQueueInfo(q(), CL_QUEUE_DEVICE, sizeof d, &d, nullptr);
                clGetCommandQueueInfo(q(), CL_QUEUE_PROPERTIES, sizeof pr, &pr, nullptr);
              }));
  std::printf("clscan n=0 (validation + marker): %.2f us\n", med_us([&] { clscan::inclusive(q, b, o, 0); }));
  q.finish();
  std::printf("clscan n=2^16 out of place: %.2f us\n", med_us([&] { clscan::inclusive(q, b, o, n); }, 1000));
  q.finish();
  std::printf("copy + event: %.2f us\n", med_us(
                                             [&] {
                                               cl::Event e;
                                               q.enqueueCopyBuffer(b, o, 0, 0, n * 4, nullptr, &e);
                                             },
                                             1000));
  q.finish();
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  return clscan_tools::run_main_without_arguments("clscan-host-cost", help_text, argc, argv, measure);
}
