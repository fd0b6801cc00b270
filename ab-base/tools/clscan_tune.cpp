// clscan-tune: measures launch shapes of clscan's kernels on one device and stores the fastest beside
// the disk cache, where dispatch picks it up. Run with --help for the options.
#include "common/cli.hpp"
#include "common/opencl.hpp"
#include "common/reference.hpp"
#include "common/timing.hpp"

#include <clscan/clscan.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

const char* const help_text = R"(usage: clscan-tune [options]

Tries launch shapes (work-group size, elements per work-item, look-back window) of the single-pass
and three-stage scans on the device clscan::select_device() picks (CLSCAN_PLATFORM, CLSCAN_DEVICE),
times each with profiling events against clEnqueueCopyBuffer of the same bytes, checks every result,
and stores the fastest shape per algorithm in the device's tuning file beside the disk cache
(clscan::tuning_file). Later processes use it; CLSCAN_TUNING still overrides it.

options:
  --type T         int | uint | long | ulong | float | double (default int)
  --size N         elements per scan, 1 to 2^48: a number, 2^N, a K/M/G suffix or +K/-K (e.g. 2^24,
                   16M, 2^20+3). Default 2^24; halved until the buffers fit the device's memory;
                   floats at most 2^24
  --algorithm A    single_pass | three_stage | all (default all)
  --reps N         timed scans per shape and round, 1 to 100000 (default 20; the median counts; two
                   rounds, the better one counts)
  --dry-run        measure and print, but store nothing
  --help

A tuning is stored only from a run in which every candidate shape spans at least 4 tiles: elements
per scan >= 4 x work-group size x elements per work-item of the largest shape measured (on PoCL
2^24 int elements, on GPUs a few hundred thousand). At smaller sizes the timings measure launch
overhead and partly idle devices, not the shapes, so clscan-tune refuses before measuring (exit
status 2; --dry-run measures at any size).

A shape the device cannot run (not enough local memory or registers) is reported and skipped. Exit
status 1 when a shape gave a wrong result, when clscan refused a shape this program offered, or when
no shape of an algorithm ran; 2 on a bad command line or a size too small to store.
)";

constexpr std::uint64_t max_size = std::uint64_t{1} << 48;
constexpr std::size_t min_tiles_to_store = 4;
// The algorithms whose shapes can be tuned: "all".
const std::vector<clscan::algorithm> tunable{clscan::algorithm::single_pass, clscan::algorithm::three_stage};

struct options {
  clscan::element_type type = clscan::element_type::int32;
  std::size_t size = std::size_t{1} << 24;
  std::string size_text = "2^24"; // as written on the command line
  bool size_given = false;
  std::vector<clscan::algorithm> algorithms = tunable;
  int reps = 20;
  bool dry_run = false;
};

struct measurement {
  clscan::tuning shape;
  double scan_us = 0;
  double copy_us = 0;
  std::string status; // "ok", "wrong", or the error
};

std::string shape_text(const clscan::tuning& t) {
  return "wg=" + std::to_string(t.work_group_size) + ",items=" + std::to_string(t.items_per_thread) +
         ",vec=" + std::to_string(t.vector_width) + ",lookback=" + std::to_string(t.lookback) +
         ",lanes=" + std::to_string(t.run_lanes);
}

// Shapes worth trying on this kind of device.
std::vector<clscan::tuning> candidates(const clscan::device_capabilities& caps, std::size_t element_size,
                                       clscan::algorithm algo) {
  std::vector<clscan::tuning> shapes;
  const std::size_t vec = 16 / element_size;
  const auto add = [&](std::size_t wg, std::size_t items, std::size_t window, std::size_t lanes = 1) {
    if (wg > caps.max_work_group_size) return;
    clscan::tuning t;
    t.work_group_size = wg;
    t.items_per_thread = std::max(vec, items / vec * vec);
    t.vector_width = vec;
    t.lookback = std::min(wg, window);
    t.run_lanes = lanes;
    if (t.items_per_thread / vec % lanes == 0) shapes.push_back(t);
  };
  if (caps.is_gpu() && algo == clscan::algorithm::single_pass) {
    // Tiles live in local memory: sizes up to what a work-group may hold, with room for the
    // work-group scan, the look-back state and a vector of padding per work-item.
    for (std::size_t wg : {64, 128, 256, 512})
      for (std::size_t tile_kib : {8, 16, 24, 32, 40}) {
        const std::size_t items = (tile_kib << 10) / (wg * element_size);
        // Runs in one and in two independent chains (tuning::run_lanes).
        if (wg * (items + vec) * element_size + 4096 <= caps.local_mem_size)
          for (std::size_t lanes : {1, 2})
            add(wg, items, 16, lanes);
      }
  } else if (caps.is_gpu()) {
    for (std::size_t wg : {64, 128, 256, 512, 1024})
      for (std::size_t bytes : {16, 32, 64, 128})
        add(wg, bytes / element_size, 8);
  } else {
    // The CPU single-pass kernel streams its runs (so long ones are fine); the three-stage kernels
    // keep a run per work-item in private memory.
    const std::vector<std::size_t> run_bytes =
        algo == clscan::algorithm::single_pass ? std::vector<std::size_t>{4096, 16384, 65536, 262144, 1048576}
                                               : std::vector<std::size_t>{1024, 4096, 16384, 65536};
    for (std::size_t wg : {1, 4, 16})
      for (std::size_t bytes : run_bytes)
        add(wg, bytes / element_size, 8);
  }
  return shapes;
}

template <typename T>
measurement measure(const cl::Device& device, clscan::algorithm algo, const clscan::tuning& shape,
                    std::size_t n, int reps) {
  measurement m;
  m.shape = shape;
  const std::string text = shape_text(shape);
  ::setenv("CLSCAN_TUNING", text.c_str(), 1); // read by the workspace of the next new context
  try {
    cl::Context context(device);
    cl::CommandQueue queue(context, device, CL_QUEUE_PROFILING_ENABLE);
    const std::size_t bytes = n * sizeof(T);
    std::vector<T> host(n);
    std::mt19937_64 rng(12345);
    for (auto& x : host)
      x = static_cast<T>(rng() & 1); // exact in every type for n <= 2^24
    cl::Buffer in(context, CL_MEM_READ_WRITE, bytes), out(context, CL_MEM_READ_WRITE, bytes),
        copy(context, CL_MEM_READ_WRITE, bytes), spacer_src(context, CL_MEM_READ_WRITE, 1 << 25),
        spacer_dst(context, CL_MEM_READ_WRITE, 1 << 25);
    queue.enqueueWriteBuffer(in, CL_TRUE, 0, bytes, host.data());
    clscan::options<T> opts;
    opts.algorithm = algo;
    for (int w = 0; w < 2; ++w)
      clscan::inclusive(queue, in, out, n, opts);
    queue.finish();
    std::vector<double> scans, copies;
    for (int r = 0; r < reps; ++r) {
      // The spacer keeps the device busy while the host enqueues, so only device time is measured.
      queue.enqueueCopyBuffer(spacer_src, spacer_dst, 0, 0, 1 << 25);
      cl::Event start, copied;
      queue.enqueueMarkerWithWaitList(nullptr, &start);
      cl::Event done = clscan::inclusive(queue, in, out, n, opts);
      queue.enqueueCopyBuffer(in, copy, 0, 0, bytes, nullptr, &copied);
      queue.finish();
      scans.push_back(clscan_tools::between_us(start, done));
      copies.push_back(clscan_tools::command_us(copied));
    }
    std::vector<T> got(n);
    queue.enqueueReadBuffer(out, CL_TRUE, 0, bytes, got.data());
    const std::vector<T> expected =
        clscan_reference::scan(host, clscan::scan_kind::inclusive, clscan::op::sum);
    const auto wrong = std::mismatch(got.begin(), got.end(), expected.begin());
    m.status = wrong.first == got.end() ? "ok" : "wrong at " + std::to_string(wrong.first - got.begin());
    m.scan_us = clscan_tools::median(scans);
    m.copy_us = clscan_tools::median(copies);
  } catch (const clscan::invalid_argument& e) {
    // clscan refused a shape this program offered: the candidate list is wrong, not the device.
    m.status = std::string("refused: ") + e.what();
  } catch (const std::exception& e) {
    // A shape the device cannot run (local memory, registers) is skipped.
    m.status = e.what();
    const std::size_t newline = m.status.find('\n');
    if (newline != std::string::npos) m.status.resize(newline);
  }
  ::unsetenv("CLSCAN_TUNING");
  clscan::release_cached_resources(); // frees this shape's temporaries and context
  return m;
}

// The largest tile (work-group size x elements per work-item) among the shapes of `algo` measured.
const clscan::tuning* largest_tile(const std::vector<clscan::tuning>& shapes) {
  const clscan::tuning* largest = nullptr;
  for (const clscan::tuning& t : shapes)
    if (!largest ||
        t.work_group_size * t.items_per_thread > largest->work_group_size * largest->items_per_thread)
      largest = &t;
  return largest;
}

template <typename T> int tune(const cl::Device& device, const options& opt) {
  const auto caps = clscan::capabilities(device);
  std::size_t n = opt.size;
  const std::size_t budget =
      static_cast<std::size_t>(std::min<cl_ulong>(caps.max_mem_alloc_size, caps.global_mem_size / 4));
  while (n > 1 && n * sizeof(T) > budget)
    n /= 2;
  if (std::is_floating_point<T>::value) n = std::min(n, std::size_t{1} << 24);
  std::printf("device: %s (%s, driver %s)\nelements per scan: %zu of %s%s\n", caps.name.c_str(),
              caps.platform_name.c_str(), caps.driver_version.c_str(), n,
              clscan::opencl_name(clscan::element_traits<T>::type),
              n < opt.size ? (std::is_floating_point<T>::value && n == (std::size_t{1} << 24)
                                  ? " (floats at most 2^24)"
                                  : " (less than asked: the buffers must fit the device's memory)")
                           : "");
  std::fflush(stdout);
  // A tuning is only stored from a size at which every candidate spans several tiles: below that the
  // timings say little about the shapes (at one element, any shape "wins"), and a later process
  // would use the stored shape for every size. Refused before measuring, so no time is lost.
  if (!opt.dry_run)
    for (clscan::algorithm algo : opt.algorithms) {
      const std::vector<clscan::tuning> shapes = candidates(caps, sizeof(T), algo);
      const clscan::tuning* largest = largest_tile(shapes);
      if (!largest) continue; // "no shape ran" below
      const std::size_t tile = largest->work_group_size * largest->items_per_thread;
      if (n / min_tiles_to_store < tile) {
        std::fprintf(stderr,
                     "clscan-tune: not storing a tuning measured at %zu elements (%s%s): the largest %s "
                     "shape measured (%s) takes %zu elements a tile, and a stored tuning needs at least "
                     "%zu tiles of every shape (%zu elements); use a larger --size, or --dry-run to "
                     "measure without storing\n",
                     n, opt.size_given ? "--size " : "default size ", opt.size_text.c_str(),
                     clscan::to_string(algo), shape_text(*largest).c_str(), tile, min_tiles_to_store,
                     min_tiles_to_store * tile);
        return 2;
      }
    }
  int failures = 0;
  for (clscan::algorithm algo : opt.algorithms) {
    const char* name = clscan::to_string(algo);
    std::printf("\n%-12s %-40s %10s %10s %7s  %s\n", "algorithm", "shape", "scan_us", "copy_us", "ratio",
                "status");
    const measurement* best = nullptr;
    // Two rounds over all candidates, keeping each one's better ratio: a moment of noise on a busy
    // machine then costs a candidate only one of its two chances.
    std::vector<measurement> results;
    for (const auto& shape : candidates(caps, sizeof(T), algo))
      results.push_back(measure<T>(device, algo, shape, n, opt.reps));
    for (measurement& first : results) {
      if (first.status != "ok") continue;
      measurement second = measure<T>(device, algo, first.shape, n, opt.reps);
      if (second.status != "ok" || second.copy_us / second.scan_us > first.copy_us / first.scan_us)
        first = std::move(second);
    }
    for (const auto& m : results) {
      const bool ok = m.status == "ok";
      std::printf("%-12s %-40s %10.1f %10.1f %7.3f  %s\n", name, shape_text(m.shape).c_str(), m.scan_us,
                  m.copy_us, ok && m.scan_us > 0 ? m.copy_us / m.scan_us : 0.0, m.status.c_str());
      if (m.status.rfind("wrong", 0) == 0 || m.status.rfind("refused", 0) == 0) ++failures;
      // Ranked by the ratio to the copy timed beside it, which cancels much of a busy machine's noise.
      if (ok && (!best || m.copy_us / m.scan_us > best->copy_us / best->scan_us)) best = &m;
    }
    if (!best) {
      std::printf("%s: no shape ran\n", name);
      ++failures;
      continue;
    }
    std::printf("%s: fastest %s, %.3f of copy\n", name, shape_text(best->shape).c_str(),
                best->copy_us / best->scan_us);
    if (!opt.dry_run) {
      clscan::store_tuning(device, algo, clscan::element_traits<T>::type, best->shape);
      std::printf("stored in %s\n", clscan::tuning_file(device).c_str());
    }
  }
  return failures ? 1 : 0;
}

// Reads the command line into `opt`; false when --help printed the help instead.
bool parse_arguments(int argc, char** argv, options& opt) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(help_text, stdout);
      return false;
    }
    if (arg == "--type") {
      opt.type = clscan_tools::parse_type(arg, clscan_tools::flag_value(argc, argv, i));
    } else if (arg == "--size") {
      opt.size_text = clscan_tools::flag_value(argc, argv, i);
      opt.size = static_cast<std::size_t>(clscan_tools::parse_count(arg, opt.size_text, 1, max_size));
      opt.size_given = true;
    } else if (arg == "--algorithm") {
      const std::string a = clscan_tools::flag_value(argc, argv, i);
      const auto chosen = clscan_tools::algorithm_choice(a, tunable);
      if (!chosen)
        throw clscan_tools::usage_error("--algorithm: unknown '" + a + "' (" +
                                        clscan_tools::names_text(tunable) + ", all)");
      opt.algorithms = *chosen;
    } else if (arg == "--reps") {
      opt.reps = static_cast<int>(
          clscan_tools::parse_integer(arg, clscan_tools::flag_value(argc, argv, i), 1, 100000));
    } else if (arg == "--dry-run") {
      opt.dry_run = true;
    } else {
      throw clscan_tools::usage_error("unknown option '" + arg + "' (see --help)");
    }
  }
  return true;
}

} // namespace

int main(int argc, char** argv) {
  return clscan_tools::run_main("clscan-tune", [&] {
    options opt;
    if (!parse_arguments(argc, argv, opt)) return 0;
    const cl::Device device = clscan::select_device();
    return clscan_tools::with_element_type(opt.type,
                                           [&](auto zero) { return tune<decltype(zero)>(device, opt); });
  });
}
