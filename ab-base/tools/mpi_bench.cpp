// clscan-mpi-bench: the time of one clscan::mpi scan across the ranks mpirun starts, beside the time of
// its MPI exchange and of copying the same bytes on one device. For docs/SCALING.md.
//
//   mpirun -np 2 clscan-mpi-bench --n 2^24 --reps 20 [--type int] [--kind inclusive] [--device-per-rank]
//
// Every rank scans n elements of its own, on clscan::select_device() (CLSCAN_PLATFORM / CLSCAN_DEVICE)
// or, with --device-per-rank, on a device of its own (tools/common/rank_device.hpp). A sample is
// the slowest rank's time, after a barrier, for:
//   call      from the call until it returns (the local reduce, the exchange, the enqueue of the scan)
//   complete  from the call until its event completes (the whole scan)
//   exchange  an MPI_Allgather of the 32 bytes per rank the call exchanges
// and on rank 0 alone, while the others wait: a clEnqueueCopyBuffer of n elements to another buffer, and
// the one-device clscan scan of its n elements, each until it completes. Reported: the median of each over
// --reps samples, after one call that is not counted (it builds the kernels), and complete / copy. The first
// call's results are checked.
#include "common/cli.hpp"
#include "common/json.hpp"
#include "common/opencl.hpp"
#include "common/rank_device.hpp"
#include "common/timing.hpp"

#include <clscan/clscan.hpp>
#include <clscan/mpi.hpp>

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using clscan_tools::usage_error;

struct bench_options {
  std::uint64_t n = std::uint64_t{1} << 24;
  std::string n_text = "2^24";
  std::uint64_t reps = 20;
  clscan::element_type type = clscan::element_type::int32;
  clscan::scan_kind kind = clscan::scan_kind::inclusive;
  bool json = false;
  bool device_per_rank = false;
};

const char* usage_text =
    "usage: mpirun -np K clscan-mpi-bench [--n COUNT] [--reps K] [--type T] [--kind K] [--device-per-rank]\n"
    "                                     [--json]\n"
    "  --n COUNT    elements per rank (default 2^24; 1000, 64K, 2^20+3, ...)\n"
    "  --reps K     timed calls (default 20, 1 to 10000)\n"
    "  --type T     int, uint, long, ulong, float or double (default int)\n"
    "  --kind K     inclusive or exclusive (default inclusive)\n"
    "  --device-per-rank  each rank of a machine takes its own device of the selected platform and type\n"
    "               (one rank per GPU); otherwise every rank uses clscan::select_device()'s\n"
    "  --json       one JSON object on rank 0's stdout instead of the table\n";

// Every rank reads the same command line, so every rank reaches the same verdict.
std::optional<bench_options> parse(int argc, char** argv) {
  bench_options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return std::nullopt;
    if (arg == "--n") {
      opt.n_text = clscan_tools::flag_value(argc, argv, i);
      opt.n = clscan_tools::parse_count(arg, opt.n_text, 1, std::uint64_t{1} << 40);
    } else if (arg == "--reps") {
      opt.reps = clscan_tools::parse_integer(arg, clscan_tools::flag_value(argc, argv, i), 1, 10000);
    } else if (arg == "--type") {
      opt.type = clscan_tools::parse_type(arg, clscan_tools::flag_value(argc, argv, i));
    } else if (arg == "--kind") {
      const std::string text = clscan_tools::flag_value(argc, argv, i);
      const std::optional<clscan::scan_kind> kind = clscan::parse_scan_kind(text);
      if (!kind) throw usage_error("--kind: unknown '" + text + "' (inclusive, exclusive)");
      opt.kind = *kind;
    } else if (arg == "--device-per-rank") {
      opt.device_per_rank = true;
    } else if (arg == "--json") {
      opt.json = true;
    } else {
      throw usage_error("unknown argument '" + arg + "' (--help lists the flags)");
    }
  }
  return opt;
}

// The slowest rank's value of each sample.
std::vector<double> slowest(const std::vector<double>& mine) {
  std::vector<double> all(mine.size());
  MPI_Allreduce(mine.data(), all.data(), int(mine.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

struct results {
  double call_us = 0, complete_us = 0, exchange_us = 0, copy_us = 0, single_us = 0;
  std::string check; // empty when the first call's results were right
};

// Elements are all 1, so element i of rank r holds r * n + i + 1 (inclusive) or r * n + i (exclusive);
// checked at both ends of each slice where the type holds the count exactly.
template <typename T>
std::string check_ends(const cl::CommandQueue& queue, const cl::Buffer& data, const bench_options& opt,
                       int rank) {
  const double limit = std::is_same_v<T, cl_float> ? 16777216.0 : 9007199254740992.0;
  const std::uint64_t base = std::uint64_t(rank) * opt.n + (opt.kind == clscan::scan_kind::inclusive ? 1 : 0);
  if (std::is_floating_point_v<T> && double(base + opt.n) > limit) return {};
  if (std::is_same_v<T, cl_int> || std::is_same_v<T, cl_uint>)
    if (base + opt.n > std::uint64_t(INT32_MAX)) return {};
  for (const std::uint64_t i : {std::uint64_t{0}, opt.n - 1}) {
    T got{};
    clscan_tools::check(queue.enqueueReadBuffer(data, CL_TRUE, i * sizeof(T), sizeof(T), &got),
                        "clEnqueueReadBuffer");
    if (got != T(base + i))
      return "rank " + std::to_string(rank) + " element " + std::to_string(i) + " is wrong";
  }
  return {};
}

template <typename T>
results measure(const bench_options& opt, const clscan_tools::device_queue& dq, int rank, int size) {
  const std::size_t bytes = std::size_t(opt.n) * sizeof(T);
  const cl::Buffer data = clscan_tools::make_buffer(dq.context, bytes);
  const cl::Buffer copy = clscan_tools::make_buffer(dq.context, bytes);
  const T one = T(1);
  const auto reset = [&] {
    clscan_tools::check(dq.queue.enqueueFillBuffer(data, one, 0, bytes), "clEnqueueFillBuffer");
    clscan_tools::check(dq.queue.finish(), "clFinish");
  };
  const auto scan = [&] {
    return opt.kind == clscan::scan_kind::inclusive
               ? clscan::mpi::inclusive<T>(MPI_COMM_WORLD, dq.queue, data, std::size_t(opt.n))
               : clscan::mpi::exclusive<T>(MPI_COMM_WORLD, dq.queue, data, std::size_t(opt.n));
  };

  results r;
  reset();
  scan().wait();
  r.check = check_ends<T>(dq.queue, data, opt, rank);

  std::vector<double> call, complete, exchange, copied, single;
  unsigned char record[32] = {};
  std::vector<unsigned char> records(32 * std::size_t(size));
  for (std::uint64_t rep = 0; rep < opt.reps; ++rep) {
    reset();
    MPI_Barrier(MPI_COMM_WORLD);
    const clscan_tools::stopwatch watch;
    const cl::Event done = scan();
    call.push_back(watch.microseconds());
    clscan_tools::check(done.wait(), "clWaitForEvents");
    complete.push_back(watch.microseconds());

    MPI_Barrier(MPI_COMM_WORLD);
    const clscan_tools::stopwatch exchange_watch;
    MPI_Allgather(record, 32, MPI_BYTE, records.data(), 32, MPI_BYTE, MPI_COMM_WORLD);
    exchange.push_back(exchange_watch.microseconds());

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      const clscan_tools::stopwatch copy_watch;
      cl::Event copy_done;
      clscan_tools::check(dq.queue.enqueueCopyBuffer(data, copy, 0, 0, bytes, nullptr, &copy_done),
                          "clEnqueueCopyBuffer");
      clscan_tools::check(copy_done.wait(), "clWaitForEvents");
      copied.push_back(copy_watch.microseconds());
      reset();
      const clscan_tools::stopwatch single_watch;
      const cl::Event single_done = opt.kind == clscan::scan_kind::inclusive
                                        ? clscan::inclusive<T>(dq.queue, data, std::size_t(opt.n))
                                        : clscan::exclusive<T>(dq.queue, data, std::size_t(opt.n));
      clscan_tools::check(single_done.wait(), "clWaitForEvents");
      single.push_back(single_watch.microseconds());
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  r.call_us = clscan_tools::median(slowest(call));
  r.complete_us = clscan_tools::median(slowest(complete));
  r.exchange_us = clscan_tools::median(slowest(exchange));
  // NaN except on rank 0, which reports them.
  r.copy_us = clscan_tools::median(copied);
  r.single_us = clscan_tools::median(single);
  return r;
}

int bench(int argc, char** argv, int rank, int size) {
  const std::optional<bench_options> parsed = parse(argc, argv);
  if (!parsed) {
    if (rank == 0) std::fputs(usage_text, stdout);
    return 0;
  }
  const bench_options& opt = *parsed;
  const cl::Device device =
      opt.device_per_rank ? clscan_tools::device_for_rank(MPI_COMM_WORLD) : clscan::select_device();
  const clscan_tools::device_queue dq = clscan_tools::make_queue(device);
  const results r = clscan_tools::with_element_type(
      opt.type, [&](auto zero) { return measure<decltype(zero)>(opt, dq, rank, size); });

  int wrong = r.check.empty() ? 0 : 1, any_wrong = 0;
  MPI_Allreduce(&wrong, &any_wrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (wrong) std::fprintf(stderr, "clscan-mpi-bench: WRONG RESULT: %s\n", r.check.c_str());
  if (rank != 0) return any_wrong;

  const double ratio = r.complete_us / r.copy_us;
  const std::string device_name = device.getInfo<CL_DEVICE_NAME>();
  if (opt.json) {
    std::string out;
    clscan_tools::json_writer json(out);
    json.begin_object();
    json.field("ranks", size);
    json.field("device", device_name);
    json.field("device_per_rank", opt.device_per_rank);
    json.field("n_per_rank", static_cast<unsigned long long>(opt.n));
    json.field("type", clscan::to_string(opt.type));
    json.field("kind", clscan::to_string(opt.kind));
    json.field("reps", static_cast<unsigned long long>(opt.reps));
    json.field("call_us", r.call_us, 1);
    json.field("complete_us", r.complete_us, 1);
    json.field("exchange_us", r.exchange_us, 1);
    json.field("copy_us", r.copy_us, 1);
    json.field("single_device_scan_us", r.single_us, 1);
    json.field("complete_over_copy", ratio, 3);
    json.field("verified", !any_wrong);
    json.end_object();
    std::printf("%s\n", out.c_str());
  } else {
    std::printf("clscan-mpi-bench: %d rank%s, %s %s elements of %s per rank, %s%s; median of %llu\n", size,
                size == 1 ? "" : "s", clscan_tools::count_text(opt.n).c_str(), clscan::to_string(opt.kind),
                clscan::to_string(opt.type), device_name.c_str(),
                opt.device_per_rank ? " (rank 0's; a device per rank)" : "",
                static_cast<unsigned long long>(opt.reps));
    std::printf("  call returns        %12.1f us\n", r.call_us);
    std::printf("  scan complete       %12.1f us\n", r.complete_us);
    std::printf("  MPI_Allgather       %12.1f us\n", r.exchange_us);
    std::printf("  copy, rank 0 alone  %12.1f us\n", r.copy_us);
    std::printf("  clscan scan, rank 0 %12.1f us\n", r.single_us);
    std::printf("  complete / copy     %12.2f\n", ratio);
    std::printf("  results             %s\n", any_wrong ? "WRONG" : "checked");
  }
  return any_wrong;
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = 0;
  try {
    status = bench(argc, argv, rank, size);
  } catch (const usage_error& e) {
    // The same command line on every rank: each stops before any collective; rank 0 says why.
    if (rank == 0) std::fprintf(stderr, "clscan-mpi-bench: %s\n", e.what());
    status = 2;
  } catch (const std::exception& e) {
    // The other ranks may be waiting in a collective this rank will never reach.
    std::fprintf(stderr, "clscan-mpi-bench: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
