// clscan-bench: the speed of scans (and, with --primitive, of select, partition, unique and scans by
// key) as a ratio to clEnqueueCopyBuffer of the same input bytes on the same device, in the same
// process. Run with --help for what is measured and how.
//
// The pieces (tools/bench/): options.cpp reads the command line, measure.cpp times and verifies one
// row, run.cpp runs every row, report.cpp prints them, first_call.cpp measures first calls in fresh
// processes; scan.hpp holds the per-type scan, inputs and check, workloads.hpp each primitive's data,
// call, host equivalent and check.
#include "bench.hpp"

#include "common/cli.hpp"
#include "common/opencl.hpp"

#include <clscan/clscan.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>

namespace {

using namespace clscan_bench;

int run(const settings& s) {
  if (s.first_call_child) return first_call_child(s);
  device_info dev;
  dev.device = clscan::select_device();
  dev.caps = clscan::capabilities(dev.device);
  if (s.first_call) return run_first_call(dev, s);

  bench_env env;
  env.dev = dev;
  clscan_tools::device_queue dq = clscan_tools::make_queue(dev.device, CL_QUEUE_PROFILING_ENABLE);
  env.context = dq.context;
  env.queue = dq.queue;
  env.spacer_bytes =
      std::min<std::size_t>(32 * mib, static_cast<std::size_t>(dev.caps.max_mem_alloc_size / 8));
  env.spacer_src = clscan_tools::make_buffer(env.context, env.spacer_bytes);
  env.spacer_dst = clscan_tools::make_buffer(env.context, env.spacer_bytes);
  return run_benchmark(env, s);
}

} // namespace

int main(int argc, char** argv) {
  return clscan_tools::run_main("clscan-bench", [&] { return run(parse_arguments(argc, argv)); });
}
