// clscan-bench: one row, a size of one primitive and algorithm timed against clEnqueueCopyBuffer of
// one input's values and verified (the method is in the help text, tools/bench/options.cpp).
#include "bench.hpp"
#include "runs_workload.hpp"
#include "segmented_workload.hpp"
#include "workloads.hpp"

#include "common/cli.hpp"
#include "common/opencl.hpp"
#include "common/timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

namespace clscan_bench {
namespace {

using clscan_tools::check;
using clscan_tools::make_buffer;

constexpr std::size_t rotation_bytes = 256 * mib; // rotated inputs touch up to this much
constexpr std::size_t max_rotation = 8;
constexpr double default_budget_s = 2.0; // per size and algorithm, with the default --reps

// Number of inputs of `input_bytes` each to rotate among, beside two buffers of `bytes` (the output and
// the copy's destination), with `available` bytes of device memory.
std::size_t rotation_for(std::size_t input_bytes, std::size_t bytes, std::size_t available) {
  std::size_t k = std::min<std::size_t>(
      max_rotation, std::max<std::size_t>(1, rotation_bytes / std::max<std::size_t>(input_bytes, 1)));
  while (k > 1 && k * input_bytes + 2 * bytes > available)
    --k;
  return k;
}

// The row's op and kind fields: what the call does beyond its primitive's name.
void describe_call(row& r, const settings& s, primitive p) {
  switch (p) {
  case primitive::scan:
  case primitive::by_key:
    r.op = op_flag_name(s.operation);
    r.kind = clscan::to_string(s.kind);
    break;
  case primitive::reduce:
  case primitive::reduce_by_key: r.op = op_flag_name(s.operation); break;
  case primitive::unique_by_key: break;
  case primitive::run_length_encode: r.kind = s.ulong_lengths ? "ulong lengths" : "uint lengths"; break;
  case primitive::inclusive_segmented:
  case primitive::reduce_segmented:
    r.op = "sum";
    r.kind = segment_lengths_name(s.segments);
    break;
  case primitive::select:
  case primitive::partition: r.op = select_predicate; break;
  case primitive::unique: break;
  case primitive::sort:
  case primitive::sort_by_key:
    r.op = "ascending";
    r.kind = key_distribution_name(s.keys);
    break;
  }
}

template <typename Workload>
row bench_one(bench_env& env, const settings& s, primitive p, Workload& work, std::size_t n,
              clscan::algorithm algo, double& first_call_ms) {
  using T = typename Workload::value_type;
  row r;
  r.n = n;
  r.primitive = primitive_name(p);
  r.type = clscan::to_string(s.type);
  describe_call(r, s, p);
  if (p == primitive::scan || p == primitive::reduce) r.transform = transform_text(s.transform);
  r.algorithm = clscan::to_string(algo);
  if (s.deterministic && (p == primitive::scan || p == primitive::by_key)) r.algorithm += "/deterministic";
  const std::size_t bytes = n * sizeof(T);
  const std::size_t alloc = std::max<std::size_t>(bytes, sizeof(T));
  const std::size_t available = static_cast<std::size_t>(env.dev.caps.global_mem_size / 2);
  const std::size_t k = rotation_for(work.input_bytes(), alloc, available);
  r.buffers = k;
  const clscan_tools::stopwatch size_watch;
  const std::string what = (p == primitive::scan ? "" : r.primitive + " ") + r.type + " " + r.algorithm;
  const auto progress = [&](const char* phase) {
    if (s.progress)
      std::fprintf(stderr, "clscan-bench: n=%zu %s: %s after %.3f s\n", n, what.c_str(), phase,
                   size_watch.seconds());
  };

  try {
    if (alloc > env.dev.caps.max_mem_alloc_size)
      throw clscan::error(clscan_tools::count_text(n, 1) + " elements of " + r.type + " take " +
                          std::to_string(bytes) +
                          " bytes, more than the device allows in one buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE " +
                          std::to_string(env.dev.caps.max_mem_alloc_size) + ")");
    // Host data for each input, then the device buffers.
    work.make_host(k);
    progress("host data ready");
    work.make_device(env.context, env.queue);
    progress("input buffers written");
    // Touched once so that lazy allocation is not timed (the workload touches its outputs); a copy, as
    // value_workload::upload_values explains.
    cl::Buffer copy_dst = make_buffer(env.context, alloc);
    check(env.queue.enqueueCopyBuffer(work.values(0), copy_dst, 0, 0, alloc), "clEnqueueCopyBuffer");
    check(env.queue.finish(), "clFinish");
    progress("device buffers written");

    std::size_t next = 0; // rotation counter shared by the calls and copies
    const auto take_input = [&]() -> std::size_t { return next++ % k; };
    const auto copy_once = [&](std::size_t i) {
      cl::Event e;
      if (n)
        check(env.queue.enqueueCopyBuffer(work.values(i), copy_dst, 0, 0, bytes, nullptr, &e),
              "clEnqueueCopyBuffer");
      else
        check(env.queue.enqueueMarkerWithWaitList(nullptr, &e), "clEnqueueMarkerWithWaitList");
      return e;
    };

    // Warm-up; the first call of this primitive and algorithm also builds or loads its kernels.
    {
      const clscan_tools::stopwatch watch;
      check(work.call(env.queue, take_input()).wait(), "clWaitForEvents");
      const double ms = watch.milliseconds();
      if (n && std::isnan(first_call_ms)) {
        first_call_ms = ms;
        r.first_call_ms = ms;
      }
    }
    progress("first call done");
    const std::size_t warmups = s.smoke ? 1 : 3;
    for (std::size_t w = 1; w < warmups; ++w)
      work.call(env.queue, take_input());
    for (std::size_t w = 0; w < warmups; ++w)
      copy_once(take_input());
    check(env.queue.finish(), "clFinish");
    progress("warm-up done");

    // Repetitions: explicit --reps as given; the default stays within the time budget.
    std::size_t reps = s.smoke ? 2 : s.reps;
    if (!s.smoke && !s.reps_given) {
      const clscan_tools::stopwatch watch;
      work.call(env.queue, take_input());
      copy_once(take_input());
      check(env.queue.finish(), "clFinish");
      const double pair_s = watch.seconds();
      const double fit = default_budget_s / std::max(pair_s, 1e-9);
      reps = std::clamp<std::size_t>(static_cast<std::size_t>(fit), 5, s.reps);
    }
    r.reps = reps;

    std::vector<double> scan_us, copy_us, host_us;
    std::size_t last_scan_input = 0;
    for (std::size_t rep = 0; rep < reps; ++rep) {
      // Spacer -> marker -> scan. The spacer copy keeps the device busy for longer than the host takes
      // to enqueue the scan, so the scan's kernels are queued before the device reaches the marker and
      // the host's enqueue time stays out of the device time. (A user-event gate would do the same on
      // paper, but NVIDIA's driver releases work behind a user event about a millisecond late.)
      check(env.queue.enqueueCopyBuffer(env.spacer_src, env.spacer_dst, 0, 0, env.spacer_bytes),
            "clEnqueueCopyBuffer");
      cl::Event start;
      cl_int status = CL_SUCCESS;
      if (env.marker_timestamps)
        status = env.queue.enqueueMarkerWithWaitList(nullptr, &start);
      else
        status = env.queue.enqueueCopyBuffer(env.stand_in_src, env.stand_in_dst, 0, 0, 4, nullptr, &start);
      check(status, env.marker_timestamps ? "clEnqueueMarkerWithWaitList" : "clEnqueueCopyBuffer");
      last_scan_input = take_input();
      const clscan_tools::stopwatch enqueue_watch;
      cl::Event done = work.call(env.queue, last_scan_input);
      const double enqueue_us = enqueue_watch.microseconds();
      cl::Event copy_event = copy_once(take_input());
      check(copy_event.wait(), "clWaitForEvents");
      check(done.wait(), "clWaitForEvents");

      host_us.push_back(enqueue_us);
      const cl_ulong scan_end = clscan_tools::profiling_ns(done, CL_PROFILING_COMMAND_END);
      cl_ulong start_end = 0;
      try {
        start_end = clscan_tools::profiling_ns(start, CL_PROFILING_COMMAND_END);
      } catch (const clscan::opencl_error&) {
        start_end = 0;
      }
      if (start_end == 0 || start_end > scan_end) {
        if (env.marker_timestamps) {
          // The device reports no usable marker timestamps: use a 4-byte copy from now on.
          env.marker_timestamps = false;
          env.stand_in_src = make_buffer(env.context, 64);
          env.stand_in_dst = make_buffer(env.context, 64);
          --rep;
          continue;
        }
        throw clscan::error("the device's profiling timestamps are not usable for timing");
      }
      // The call's last command queued after the device had passed the marker: the device may have
      // waited for the host.
      cl_ulong queued = 0;
      if (clGetEventProfilingInfo(done(), CL_PROFILING_COMMAND_QUEUED, sizeof queued, &queued, nullptr) ==
              CL_SUCCESS &&
          queued > start_end)
        ++r.host_bound_reps;
      scan_us.push_back(static_cast<double>(scan_end - start_end) / 1e3);
      if (n) copy_us.push_back(clscan_tools::command_us(copy_event));
    }

    progress("timed repetitions done");
    r.scan_us = clscan_tools::median(scan_us);
    r.copy_us = n ? clscan_tools::median(copy_us) : std::nan("");
    r.host_enqueue_us = clscan_tools::median(host_us);
    const double moved = 2.0 * static_cast<double>(bytes);
    r.scan_gbps = moved / (r.scan_us * 1e3);
    r.copy_gbps = n ? moved / (r.copy_us * 1e3) : std::nan("");
    r.ratio = n ? r.copy_us / r.scan_us : std::nan("");
    if (is_sort(p) && n) r.keys_per_s = static_cast<double>(n) / (r.scan_us * 1e-6);
    if (p == primitive::reduce || p == primitive::reduce_segmented) {
      // A reduce reads n elements and writes one: against a read of the same bytes, taken as half the
      // copy (which reads and writes them).
      r.scan_gbps = static_cast<double>(bytes) / (r.scan_us * 1e3);
      r.ratio_basis = "read";
      r.read_us = r.copy_us / 2;
      r.ratio = n ? r.read_us / r.scan_us : std::nan("");
    }

    // The serial CPU equivalent of the same input on this host (std::inclusive_scan, std::copy_if, ...;
    // the median of 5 runs), for the "faster than the standard library" comparison.
    r.std_scan_us = s.std_timing ? work.std_us() : std::nan("");
    if (!std::isnan(r.std_scan_us)) progress("host std reference timed");

    // Verify the last timed call.
    r.message = work.verify(env.queue, last_scan_input);
    r.status = r.message.empty() ? "ok" : "FAIL";
    progress("verified");
  } catch (const clscan::build_error& e) {
    r.status = "error";
    r.message = one_line(std::string(e.what()) + " | build log: " + e.build_log());
  } catch (const std::bad_alloc&) {
    r.status = "error";
    r.message = "out of host memory for " + std::to_string(k) + " host copies of " + std::to_string(bytes) +
                " bytes and the verification (std::bad_alloc)";
  } catch (const std::exception& e) {
    r.status = "error";
    r.message = one_line(e.what());
  }
  env.queue.finish();
  return r;
}

constexpr double min_spacer_us = 200;

} // namespace

void size_spacer(bench_env& env) {
  const clscan::device_capabilities& caps = env.dev.caps;
  const std::size_t limit = std::max<std::size_t>(
      mib, static_cast<std::size_t>(std::min(caps.max_mem_alloc_size / 8, caps.global_mem_size / 32)));
  std::size_t bytes = std::min<std::size_t>(32 * mib, limit);
  for (;;) {
    env.spacer_bytes = bytes;
    env.spacer_src = make_buffer(env.context, bytes);
    env.spacer_dst = make_buffer(env.context, bytes);
    // The first copy also makes the buffers resident; the two after it are timed.
    std::vector<double> us;
    for (int k = 0; k < 3; ++k) {
      cl::Event e;
      check(env.queue.enqueueCopyBuffer(env.spacer_src, env.spacer_dst, 0, 0, bytes, nullptr, &e),
            "clEnqueueCopyBuffer");
      check(e.wait(), "clWaitForEvents");
      if (k) us.push_back(clscan_tools::command_us(e));
    }
    env.spacer_us = clscan_tools::median(us);
    if (env.spacer_us >= min_spacer_us || bytes >= limit) return;
    const double grow = std::ceil(min_spacer_us / std::max(env.spacer_us, 0.1));
    bytes = std::min(limit, bytes * static_cast<std::size_t>(grow));
  }
}

row measure(bench_env& env, const settings& s, primitive p, std::size_t n, clscan::algorithm algo,
            double& first_call_ms) {
  return clscan_tools::with_element_type(s.type, [&](auto zero) {
    using T = decltype(zero);
    const auto bench = [&](auto&& work) { return bench_one(env, s, p, work, n, algo, first_call_ms); };
    switch (p) {
    case primitive::scan: return bench(scan_workload<T>(s, algo, n));
    case primitive::by_key: return bench(by_key_workload<T>(s, algo, n));
    case primitive::reduce: return bench(reduce_workload<T>(s, algo, n));
    case primitive::reduce_by_key: return bench(reduce_by_key_workload<T>(s, algo, n));
    case primitive::unique_by_key: return bench(unique_by_key_workload<T>(s, algo, n));
    case primitive::run_length_encode:
      if (s.ulong_lengths) return bench(run_length_encode_workload<T, cl_ulong>(s, algo, n));
      return bench(run_length_encode_workload<T, cl_uint>(s, algo, n));
    case primitive::inclusive_segmented:
    case primitive::reduce_segmented: return bench(segmented_workload<T>(s, p, algo, n));
    case primitive::sort:
    case primitive::sort_by_key: return bench(sort_workload<T>(s, p, algo, n));
    default: return bench(select_workload<T>(p, algo, n));
    }
  });
}

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.size() > 300) text = text.substr(0, 297) + "...";
  return text;
}

} // namespace clscan_bench
