#include <clscan/clscan.hpp>

#include <cstdio>
#include <numeric>
#include <vector>

int main() {
  const cl::Device device = clscan::select_device(); // honours CLSCAN_PLATFORM / CLSCAN_DEVICE
  cl::Context context(device);
  cl::CommandQueue queue(context, device);

  const std::size_t n = 100000;
  std::vector<cl_int> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<cl_int>(i % 17) - 8;

  cl::Buffer in(context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
  cl::Buffer out(context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
  queue.enqueueWriteBuffer(in, CL_TRUE, 0, n * sizeof(cl_int), data.data());

  clscan::exclusive(queue, in, out, n).wait(); // out of place: `in` is not modified
  clscan::inclusive(queue, in, n).wait();      // in place

  std::vector<cl_int> excl(n), incl(n), expected_excl(n), expected_incl(n);
  queue.enqueueReadBuffer(out, CL_TRUE, 0, n * sizeof(cl_int), excl.data());
  queue.enqueueReadBuffer(in, CL_TRUE, 0, n * sizeof(cl_int), incl.data());
  std::exclusive_scan(data.begin(), data.end(), expected_excl.begin(), 0);
  std::inclusive_scan(data.begin(), data.end(), expected_incl.begin());

  const bool ok = excl == expected_excl && incl == expected_incl;
  std::printf("scanned %zu ints on %s: last inclusive sum %d, %s\n", n,
              device.getInfo<CL_DEVICE_NAME>().c_str(), incl[n - 1],
              ok ? "both scans match std::exclusive_scan / std::inclusive_scan" : "WRONG RESULT");
  return ok ? 0 : 1;
}
