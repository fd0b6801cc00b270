// clscan-parts-bench: the scan of one array split into parts over the devices of one platform
// (clscan/parts.hpp) against the same scan on one device. Run with --help for the options.
#include "common/cli.hpp"
#include "common/json.hpp"
#include "common/opencl.hpp"
#include "common/timing.hpp"

#include <clscan/clscan.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char* const help_text = R"(usage: clscan-parts-bench [options]

Scans int elements split into P equal parts, part k on device k mod D of the platform of
clscan::select_device() (CLSCAN_PLATFORM, CLSCAN_DEVICE pick it; D = its device count), each device
in a context of its own (--one-context: one context of all D devices), with one
clscan::inclusive(parts) call. Times, on the host, from the call
to the end of every part's event (the median of --reps calls after one untimed call):
  parts      the call over P parts of N / P elements
  one        clscan::inclusive of N elements on device 0
  one_part   clscan::inclusive of N / P elements on device 0
  copy       clEnqueueCopyBuffer of N elements on device 0 (profiling time)
and checks the parts' result against a host scan once per size.

options:
  --sizes LIST   total elements N, comma-separated: numbers, 2^N, K/M/G suffixes (default 2^24)
  --parts P      1 to 64 (default: the platform's device count)
  --reps N       1 to 10000 (default 10)
  --one-context  the D devices share one context (the totals then move device to device)
  --json         one JSON object per line instead of the table
  --help
)";

struct settings {
  bool help = false; // --help: print the help, measure nothing
  std::vector<std::uint64_t> sizes{std::uint64_t{1} << 24};
  std::size_t parts = 0; // 0: the device count
  int reps = 10;
  bool one_context = false;
  bool json = false;
};

settings parse(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help") {
      s.help = true;
    } else if (flag == "--sizes") {
      s.sizes = clscan_tools::parse_count_list(flag, clscan_tools::flag_value(argc, argv, i), 1,
                                               std::uint64_t{1} << 40);
    } else if (flag == "--parts") {
      s.parts = clscan_tools::parse_integer(flag, clscan_tools::flag_value(argc, argv, i), 1, 64);
    } else if (flag == "--reps") {
      s.reps = static_cast<int>(
          clscan_tools::parse_integer(flag, clscan_tools::flag_value(argc, argv, i), 1, 10000));
    } else if (flag == "--one-context") {
      s.one_context = true;
    } else if (flag == "--json") {
      s.json = true;
    } else {
      throw clscan_tools::usage_error("unknown option '" + flag + "' (--help lists the options)");
    }
  }
  return s;
}

// Host microseconds of `call` (which returns the events to wait for): the median of `reps` runs after
// one untimed run.
template <typename Call> double host_us(int reps, const Call& call) {
  for (const cl::Event& event : call())
    clscan_tools::check(event.wait(), "clWaitForEvents");
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    clscan_tools::stopwatch watch;
    for (const cl::Event& event : call())
      clscan_tools::check(event.wait(), "clWaitForEvents");
    samples.push_back(watch.microseconds());
  }
  return clscan_tools::median(samples);
}

// Equal parts of n over `count` parts, the first ones one element longer.
std::size_t part_size(std::size_t n, std::size_t count, std::size_t k) {
  return n / count + (k < n % count ? 1 : 0);
}

int run(const settings& s) {
  if (s.help) {
    std::fputs(help_text, stdout);
    return 0;
  }
  const cl::Device first = clscan::select_device();
  const cl::Platform platform(first.getInfo<CL_DEVICE_PLATFORM>());
  std::vector<cl::Device> devices;
  clscan_tools::check(platform.getDevices(CL_DEVICE_TYPE_ALL, &devices), "clGetDeviceIDs");
  // select_device()'s device first, then the platform's others in their order.
  devices.erase(std::remove(devices.begin(), devices.end(), first), devices.end());
  devices.insert(devices.begin(), first);
  const std::size_t part_count = s.parts ? s.parts : devices.size();
  std::vector<clscan_tools::device_queue> queues;
  queues.reserve(devices.size());
  if (s.one_context) {
    cl_int status = CL_SUCCESS;
    const cl::Context shared(devices, nullptr, nullptr, nullptr, &status);
    clscan_tools::check(status, "clCreateContext");
    for (const cl::Device& device : devices) {
      queues.push_back({shared, cl::CommandQueue(shared, device, CL_QUEUE_PROFILING_ENABLE, &status)});
      clscan_tools::check(status, "clCreateCommandQueue");
    }
  } else {
    for (const cl::Device& device : devices)
      queues.push_back(clscan_tools::make_queue(device, CL_QUEUE_PROFILING_ENABLE));
  }

  if (!s.json)
    std::printf("%zu parts over %zu device(s) of '%s'%s\n%12s %12s %12s %12s %12s %14s %12s\n", part_count,
                devices.size(), platform.getInfo<CL_PLATFORM_NAME>().c_str(),
                s.one_context ? ", one context" : ", a context each", "N", "parts_us", "one_us",
                "one_part_us", "copy_us", "parts/one_part", "parts/one");
  bool all_correct = true;
  for (const std::uint64_t total : s.sizes) {
    const std::size_t n = static_cast<std::size_t>(total);
    std::vector<clscan::part> parts;
    parts.reserve(part_count);
    for (std::size_t k = 0; k < part_count; ++k) {
      const clscan_tools::device_queue& dq = queues[k % queues.size()];
      const std::size_t size = part_size(n, part_count, k);
      parts.push_back(
          {dq.queue, clscan_tools::make_buffer(dq.context, std::max<std::size_t>(size, 1) * 4), size, 0});
    }
    // Ones: the scan of the concatenation is 1, 2, 3, ... whatever the order of combination.
    std::size_t before = 0;
    for (const clscan::part& p : parts) {
      const cl_int one = 1;
      if (p.n)
        clscan_tools::check(p.queue.enqueueFillBuffer(p.buffer, one, 0, p.n * 4), "clEnqueueFillBuffer");
      clscan_tools::check(p.queue.finish(), "clFinish");
    }
    for (const cl::Event& event : clscan::inclusive(parts))
      clscan_tools::check(event.wait(), "clWaitForEvents");
    for (const clscan::part& p : parts) {
      std::vector<cl_int> got(p.n);
      if (p.n)
        clscan_tools::check(p.queue.enqueueReadBuffer(p.buffer, CL_TRUE, 0, p.n * 4, got.data()),
                            "clEnqueueReadBuffer");
      for (std::size_t i = 0; i < p.n; ++i)
        if (got[i] != static_cast<cl_int>(before + i + 1)) {
          std::fprintf(stderr, "clscan-parts-bench: wrong result at N = %zu, element %zu\n", n, before + i);
          all_correct = false;
          break;
        }
      before += p.n;
    }
    // The timed calls scan the previous result again: the time does not depend on the values.
    const double parts_us = host_us(s.reps, [&] { return clscan::inclusive(parts); });

    const clscan_tools::device_queue& dq = queues.front();
    const cl::Buffer whole = clscan_tools::make_buffer(dq.context, n * 4);
    const cl::Buffer copy_target = clscan_tools::make_buffer(dq.context, n * 4);
    const double one_us =
        host_us(s.reps, [&] { return std::vector<cl::Event>{clscan::inclusive(dq.queue, whole, n)}; });
    const std::size_t largest_part = part_size(n, part_count, 0);
    const double one_part_us = host_us(
        s.reps, [&] { return std::vector<cl::Event>{clscan::inclusive(dq.queue, whole, largest_part)}; });
    std::vector<double> copies;
    for (int r = 0; r <= s.reps; ++r) {
      cl::Event copied;
      clscan_tools::check(dq.queue.enqueueCopyBuffer(whole, copy_target, 0, 0, n * 4, nullptr, &copied),
                          "clEnqueueCopyBuffer");
      clscan_tools::check(copied.wait(), "clWaitForEvents");
      if (r) copies.push_back(clscan_tools::command_us(copied));
    }
    const double copy_us = clscan_tools::median(copies);

    if (s.json) {
      std::string line;
      clscan_tools::json_writer out(line, clscan_tools::json_writer::layout::one_line);
      out.begin_object();
      out.field("n", static_cast<unsigned long long>(n));
      out.field("parts", static_cast<unsigned long long>(part_count));
      out.field("devices", static_cast<unsigned long long>(devices.size()));
      out.field("one_context", s.one_context);
      out.field("parts_us", parts_us, 1);
      out.field("one_us", one_us, 1);
      out.field("one_part_us", one_part_us, 1);
      out.field("copy_us", copy_us, 1);
      out.end_object();
      std::printf("%s\n", line.c_str());
    } else {
      std::printf("%12s %12.1f %12.1f %12.1f %12.1f %14.2f %12.2f\n", clscan_tools::count_text(n).c_str(),
                  parts_us, one_us, one_part_us, copy_us, parts_us / one_part_us, parts_us / one_us);
    }
  }
  return all_correct ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  return clscan_tools::run_main("clscan-parts-bench", [&] { return run(parse(argc, argv)); });
}
