// clscan-bench's command line: the help text and the settings it reads.
#include "bench.hpp"

#include "common/cli.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>

namespace clscan_bench {
namespace {

using clscan_tools::usage_error;

const char* const help_text = R"(usage: clscan-bench [options]

Measures clscan's scans against clEnqueueCopyBuffer of the same bytes on the same device, in the same
process, and checks every result against a CPU reference.

options:
  --sizes LIST       comma-separated element counts, 1 to 2^48 (0 with --smoke only): plain numbers,
                     2^N, 2^N+K / 2^N-K, and K/M/G suffixes (binary). Default 2^10,2^12,...,2^26,
                     leaving out sizes whose three buffers do not fit in CL_DEVICE_MAX_MEM_ALLOC_SIZE
                     and half the global memory. A size whose buffer exceeds
                     CL_DEVICE_MAX_MEM_ALLOC_SIZE is an error row.
  --algorithm A      automatic | single_pass | three_stage | all (each of the three). Default automatic.
  --type T           int | uint | long | ulong | float | double. Default int.
  --op OP            sum | min | max | and | or | xor. Default sum.
  --kind K           inclusive | exclusive. Default inclusive.
  --reps N           timed repetitions per size, 1 to 100000. Default 50, reduced so that one size of one
                     algorithm takes at most about 2 s; an explicit --reps is used as given.
  --csv              print CSV (header + one row per size and algorithm) instead of the table.
  --json             print a JSON array of objects instead of the table.
  --smoke            correctness only: small and odd sizes, 2 repetitions; prints
                     "smoke: N passed, M failed" and exits non-zero on any failure or error.
  --first-call       first-call latency in fresh processes instead: this program runs itself again
                     to make one scan of 2^16 elements (context and queue made first, then the scan
                     timed on the host from the call until its event completes), four times:
                       cold           empty CLSCAN_CACHE_DIR (driver caches as they are)
                       warm           the same CLSCAN_CACHE_DIR again (clscan's disk cache filled)
                       warm/drv-cold  the same CLSCAN_CACHE_DIR, with empty driver compiler caches
                                      (POCL_CACHE_DIR for PoCL, CUDA_CACHE_PATH for NVIDIA)
                       cold/drv-cold  empty CLSCAN_CACHE_DIR and empty driver compiler caches:
                                      what a first run on a new machine costs
                     The directories are made with mkdtemp under $CLSCAN_CACHE_DIR when it is set,
                     else under /tmp, and removed afterwards. CLSCAN_NO_CACHE is unset for these runs.
  --progress         report each phase of each size (host data, upload, first call, warm-up, timed
                     repetitions, host reference, verification) on stderr with the seconds since the
                     size started: shows where a slow or stuck size spends its time.
  --help             this text.

Device: clscan::select_device() (CLSCAN_PLATFORM / CLSCAN_DEVICE pick platform and device by name or
index). One context, one in-order queue with CL_QUEUE_PROFILING_ENABLE.

Method, per size and algorithm:
  * Buffers: k input buffers, one output, one copy destination, with
    k = min(8, max(1, 256 MiB / bytes)) (fewer if device memory is short). Successive scans and copies
    read the next input in turn, so with k > 1 an operation never reads the buffer that the operation
    just before it read; inputs of 32 MiB and more are therefore read from memory, not from a cache of
    a GPU's size (tens of MiB). Smaller inputs can be cache-resident: their rows measure that case.
  * Inputs hold random data: all bit patterns for integers, uniform in [-1, 1) for floating point.
  * Warm-up: 3 scans and 3 copies (the first call also builds or loads the kernels; its time is
    reported as "first call").
  * Timed: scans and copies alternate. A scan is timed from the end of a marker enqueued just before it
    (clEnqueueMarkerWithWaitList) to the end of the event clscan returns, which is its last command, so
    every kernel of a multi-kernel scan and the gaps between them count. A 32 MiB copy enqueued before
    the marker keeps the device busy while the host enqueues the scan, so that host time is not
    counted as device time. (If the device does not report marker timestamps, a 4-byte copy stands in
    for the marker.) A copy is timed from start to end of its event. Both report the median.
  * host_enqueue_us: median host time of the clscan call itself (it only enqueues). Target: <= 5 us.
  * Bandwidth counts 2 * n * sizeof(T) bytes (read + write) for both; ratio = copy time / scan time
    (1.0 means the scan moves data as fast as a copy).
  * Verified: the output of the last timed scan is read back and compared with std::inclusive_scan /
    std::exclusive_scan on the host: exactly for integers (sums wrap around) and for min / max, and for
    floating-point sums within 16 * epsilon * (sum of |x| up to that element).

Exit status: 0 when every row was measured and verified; 1 when any result was wrong or any row
ended in an error (e.g. an algorithm the device does not support, a size that does not fit): such a
row is printed with the reason and the other rows still run; 2 on a bad command line.
)";

constexpr std::uint64_t max_size = std::uint64_t{1} << 48;

// --op's names: the bit operators are spelled without "bit_".
struct op_name {
  const char* name;
  clscan::op operation;
};
constexpr op_name op_names[] = {{"sum", clscan::op::sum},   {"min", clscan::op::min},
                                {"max", clscan::op::max},   {"and", clscan::op::bit_and},
                                {"or", clscan::op::bit_or}, {"xor", clscan::op::bit_xor}};

clscan::op parse_op_flag(const std::string& name) {
  for (const op_name& entry : op_names)
    if (name == entry.name) return entry.operation;
  throw usage_error("--op: unknown operator '" + name + "' (sum, min, max, and, or, xor)");
}

} // namespace

const char* op_flag_name(clscan::op operation) {
  for (const op_name& entry : op_names)
    if (operation == entry.operation) return entry.name;
  return clscan::to_string(operation);
}

settings parse_arguments(int argc, char** argv) {
  settings s;
  std::string sizes_text;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&] { return clscan_tools::flag_value(argc, argv, i); };
    if (arg == "--help" || arg == "-h") {
      std::fputs(help_text, stdout);
      std::exit(0);
    } else if (arg == "--sizes") {
      sizes_text = value();
      s.sizes.clear();
      for (std::uint64_t n : clscan_tools::parse_count_list(arg, sizes_text, 0, max_size))
        s.sizes.push_back(static_cast<std::size_t>(n));
      s.sizes_given = true;
    } else if (arg == "--algorithm") {
      const std::string a = value();
      const std::vector<clscan::algorithm> offered = {
          clscan::algorithm::automatic, clscan::algorithm::single_pass, clscan::algorithm::three_stage};
      const auto chosen = clscan_tools::algorithm_choice(a, offered);
      if (!chosen)
        throw usage_error("--algorithm: unknown '" + a + "' (" + clscan_tools::names_text(offered) +
                          ", all)");
      s.algorithms = *chosen;
    } else if (arg == "--type") {
      s.type = clscan_tools::parse_type(arg, value());
    } else if (arg == "--op") {
      s.operation = parse_op_flag(value());
    } else if (arg == "--kind") {
      const std::string k = value();
      const std::optional<clscan::scan_kind> kind = clscan::parse_scan_kind(k);
      if (!kind) throw usage_error("--kind: unknown '" + k + "' (inclusive, exclusive)");
      s.kind = *kind;
    } else if (arg == "--reps") {
      s.reps = static_cast<std::size_t>(clscan_tools::parse_integer(arg, value(), 1, 100000));
      s.reps_given = true;
    } else if (arg == "--csv") {
      s.format = output_format::csv;
    } else if (arg == "--json") {
      s.format = output_format::json;
    } else if (arg == "--smoke") {
      s.smoke = true;
    } else if (arg == "--first-call") {
      s.first_call = true;
    } else if (arg == "--progress") {
      s.progress = true;
    } else if (arg == child_flag) {
      s.first_call_child = true;
    } else {
      throw usage_error("unknown option '" + arg + "' (see --help)");
    }
  }
  // A benchmark row of no elements has nothing to time (its fields would be empty); --smoke checks
  // n = 0 as the correctness case it is.
  if (!s.smoke && std::find(s.sizes.begin(), s.sizes.end(), 0) != s.sizes.end())
    throw usage_error("--sizes: '" + sizes_text +
                      "': a size of 0 elements has nothing to time (only --smoke takes 0)");
  return s;
}

} // namespace clscan_bench
