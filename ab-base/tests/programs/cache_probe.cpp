// A separate process for the disk-cache tests: runs one inclusive scan of a few thousand ints on
// clscan::select_device(), checks it against std::inclusive_scan and prints every clscan log event.
// CLSCAN_PROBE_N=<count> scans that many instead: inputs larger than one three-stage tile make the
// automatic choice read both algorithms' launch shapes (and so both lines of a tuning file).
//
// Output, one item a line:
//   euid: <id>                  the effective user the probe ran as
//   log: <level>: <message>     each event clscan reports (cache hits, misses, repairs, builds)
//   result: ok | result: wrong
//   error: <what>               when clscan throws
// Exit status: 0 only when the result is correct.
#include <clscan/clscan.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

int main() {
  std::mutex output_mutex;
  clscan::set_log_handler([&](clscan::log_level level, const std::string& message) {
    std::lock_guard<std::mutex> lock(output_mutex);
    std::cout << "log: " << clscan::to_string(level) << ": " << message << '\n';
  });

  std::cout << "euid: " << ::geteuid() << '\n';
  int status = 2;
  try {
    const cl::Device device = clscan::select_device();
    std::cout << "device: " << device.getInfo<CL_DEVICE_NAME>() << '\n';
    std::cout << "cache directory: " << clscan::cache_directory() << '\n';
    cl::Context context(device);
    cl::CommandQueue queue(context, device);

    // At most one three-stage tile on GPUs and CPUs alike (1024 and 4096 elements): the disk-cache
    // tests count program entries and log lines, and a larger scan on a GPU would run the single-pass
    // qualification first, with builds and a verdict file of its own (tests/cmake/qualify_check.cmake).
    std::size_t n = 1000;
    if (const char* text = std::getenv("CLSCAN_PROBE_N"); text && *text) n = std::stoul(text);
    std::vector<cl_int> data(n);
    std::mt19937 random(12345);
    std::uniform_int_distribution<cl_int> values(-1000, 1000);
    for (cl_int& value : data)
      value = values(random);
    std::vector<cl_int> expected(n);
    std::inclusive_scan(data.begin(), data.end(), expected.begin());

    cl::Buffer buffer(context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
    if (queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, n * sizeof(cl_int), data.data()) != CL_SUCCESS)
      throw std::runtime_error("clEnqueueWriteBuffer failed");
    clscan::inclusive(queue, buffer, n).wait();
    std::vector<cl_int> result(n);
    if (queue.enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(cl_int), result.data()) != CL_SUCCESS)
      throw std::runtime_error("clEnqueueReadBuffer failed");

    const bool ok = result == expected;
    {
      std::lock_guard<std::mutex> lock(output_mutex);
      std::cout << "entries for this device: " << clscan::disk_cache_entries(device) << '\n';
      std::cout << "result: " << (ok ? "ok" : "wrong") << '\n';
    }
    status = ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(output_mutex);
    std::cout << "error: " << e.what() << '\n';
    status = 2;
  }
  clscan::set_log_handler({});
  std::cout.flush();
  return status;
}
