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

Measures clscan's scans, or the calls built on them (--primitive), against clEnqueueCopyBuffer of the
same input bytes on the same device, in the same process, and checks every result against a CPU
reference.

options:
  --primitive P      what is measured, one name, a comma-separated list or all. Default scan.
                       scan       clscan::inclusive / exclusive (--kind) with --op on random inputs
                       select     clscan::select_if "x > 0" on inputs of which ~43 % are > 0
                       partition  clscan::partition_if "x > 0" on the same inputs
                       unique     clscan::unique on runs of equal elements, 2 long on average
                       by_key     clscan::inclusive_by_key / exclusive_by_key (--kind) with --op: int
                                  keys, segments of random length 1 to 1999 (1000 on average), values
                                  of --type as the scan's
                       reduce     clscan::reduce with --op on the scan's inputs (--algorithm is
                                  ignored by reduce; all runs it once)
                       sort       clscan::sort (ascending, all bits) of keys of --type (--keys),
                                  out of place
                       sort_by_key  clscan::sort_by_key: keys of --type (--keys), random uint
                                  values
                       reduce_by_key  clscan::reduce_by_key with --op: by_key's int keys and
                                  values of --type; outputs the runs' keys and reductions
                       unique_by_key  clscan::unique_by_key: by_key's int keys and values of
                                  --type; outputs each run's first key and the value beside it
                       run_length_encode  clscan::run_length_encode (--lengths) of keys of
                                  --type in by_key's runs (1 to 1999 long, 1000 on average), each
                                  run's key its number mod 2^20; outputs the keys and run lengths
                       inclusive_segmented  clscan::inclusive_segmented, sums of --type in CSR
                                  segments of cl_uint offsets (--segment-length)
                       reduce_segmented  clscan::reduce_segmented, the same segments' sums
  --segment-length L  the segmented calls' segments: N elements each (the last cut at n), random:N
                     (lengths uniform in 1 to 2N - 1), or one (a single segment of all n). Default 100.
  --lengths T        run_length_encode's lengths: uint (cl_uint, the default) or ulong (cl_ulong).
  --keys LIST        the sorts' keys, one name or a comma-separated list, each reported apart:
                       uniform    the scan's inputs (all bit patterns for integers, floats uniform
                                  in [-1, 1))
                       distinct7  7 such values, each element one of them at random
                     Default uniform.
  --sizes LIST       comma-separated element counts, 1 to 2^48 (0 with --smoke only): plain numbers,
                     2^N, 2^N+K / 2^N-K, and K/M/G suffixes (binary). Default 2^10,2^12,...,2^26,
                     leaving out sizes whose three buffers do not fit in CL_DEVICE_MAX_MEM_ALLOC_SIZE
                     and half the global memory. A size whose buffer exceeds
                     CL_DEVICE_MAX_MEM_ALLOC_SIZE is an error row.
  --algorithm A      automatic | single_pass | three_stage | all (each of the three; partition leaves
                     out single_pass, which it cannot run). Default automatic.
  --type T           int | uint | long | ulong | float | double (the values). Default int.
  --op OP            sum | min | max | and | or | xor, for scan, by_key, reduce and reduce_by_key.
                     Default sum.
  --kind K           inclusive | exclusive, for scan and by_key. Default inclusive.
  --transform F      options::transform for scan and reduce: the call scans or reduces f(x) as it
                     reads each element, timed as the plain call is (compare with a run without
                     it). F is one of these OpenCL C expressions of x and i (blanks ignored):
                       'x * 2'               integers wrap
                       'x > 0 ? 1 : 0'       counts the elements > 0
                       'i % 2 == 0 ? x : 0'  the elements at even indices, zero at odd ones
                     which the check applies on the host before its reference. The rows' transform
                     field names it.
  --deterministic    options::deterministic, for scan and by_key (floating-point results the same
                     every run: tiles combined along a fixed tree); the
                     rows' algorithm reads e.g. automatic/deterministic.
  --reps N           timed repetitions per size, 1 to 100000. Default 50, reduced so that one size of one
                     algorithm takes at most about 2 s; an explicit --reps is used as given.
  --no-std           skip timing the serial host equivalent (std_us; empty in CSV, null in JSON):
                     a 2^28 sort takes a minute of it on one core. The result is still verified.
  --csv              print CSV (header + one row per size and algorithm) instead of the table.
  --json             print a JSON array of objects instead of the table.
  --smoke            correctness only: small and odd sizes, 2 repetitions; prints
                     "smoke: N passed, M failed" and exits non-zero on any failure or error.
  --first-call       first-call latency of a scan (--primitive scan only) in fresh processes instead:
                     this program runs itself again
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

Method, per primitive, size and algorithm (below, "scan" stands for the call measured; a row of
another primitive has its figures in the scan_* columns):
  * Buffers: k inputs, one output (and the count of a select, partition or unique), one copy
    destination, with k = min(8, max(1, 256 MiB / input bytes)) (fewer if device memory is short); an
    input of by_key is its keys and its values. Successive scans and copies read the next input in
    turn, so with k > 1 an operation never reads the buffer that the operation just before it read;
    inputs of 32 MiB and more are therefore read from memory, not from a cache of a GPU's size (tens
    of MiB). Smaller inputs can be cache-resident: their rows measure that case.
  * Inputs hold random data. scan and by_key values: all bit patterns for integers, uniform in [-1, 1)
    for floating point. select and partition: each element is > 0 with probability 0.43 (1 to 2^20),
    else 0 or negative (0 for unsigned types). unique: each element repeats the one before with
    probability 1/2, else takes a new value below 2^20. by_key keys: int, numbering the segments.
    sort keys as --keys says; sort_by_key values: random uint. reduce_by_key and unique_by_key: by_key's
    keys and values; run_length_encode: by_key's runs (the same seeds), each run's key its number mod
    2^20, of --type.
  * The copy is of one input's values, n * sizeof(T) bytes (for by_key, reduce_by_key and
    unique_by_key the values, not the keys; for the sorts and run_length_encode the keys).
  * Warm-up: 3 scans and 3 copies (the first call also builds or loads the kernels; its time is
    reported as "first call").
  * Timed: scans and copies alternate. A scan is timed from the end of a marker enqueued just before it
    (clEnqueueMarkerWithWaitList) to the end of the event clscan returns, which is its last command, so
    every kernel of a multi-kernel scan and the gaps between them count. A copy enqueued before the
    marker keeps the device busy while the host enqueues the scan, so that host time is not counted
    as device time: 32 MiB, grown at the start until it takes at least 200 us on the device (within
    1/8 of CL_DEVICE_MAX_MEM_ALLOC_SIZE and 1/32 of the global memory). A call whose last command was
    queued (CL_PROFILING_COMMAND_QUEUED) after the marker's end counts as host-bound (host_bound_reps
    in JSON; a note when a row has more than a tenth). (If the device does not report marker
    timestamps, a 4-byte copy stands in for the marker.) A copy is timed from start to end of its
    event. Both report the median.
  * host_enqueue_us: median host time of the clscan call itself (it only enqueues). Target: <= 5 us.
  * Bandwidth counts 2 * n * sizeof(T) bytes (read + write) for both, whatever the primitive moves
    (a select writes less, a by_key reads the keys too), so GB/s compare as the times do;
    ratio = copy time / scan time (1.0 means the call takes as long as a copy of its input values).
    reduce, which reads its input and writes one element, is compared with a read of the same bytes
    instead, taken as half the copy's time: its GB/s count n * sizeof(T) bytes, its ratio ("vs_read"
    in the table; ratio with ratio_basis "read" and read_us in JSON; the ratio column in CSV) is
    (copy time / 2) / reduce time. The sorts' rows also give keys/s = n / call time (keys_per_s in
    CSV and JSON; G keys/s in the table).
  * std_us (std_scan_us in CSV and JSON): the serial host equivalent on this host's CPU in the same
    process, median of 5 runs: std::inclusive_scan / std::exclusive_scan (sums only; with
    --transform a serial loop that applies f and scans, std::transform_inclusive_scan's work with the
    index), std::copy_if,
    std::stable_partition (on a copy made outside the timing), std::unique_copy, for by_key a
    serial loop (sums only; the standard library has no scan by key), std::accumulate for reduce
    (sums only; with --transform a serial loop of f and the sum), a serial loop for reduce_by_key
    (sums only), serial loops for unique_by_key and run_length_encode, a loop of std::inclusive_scan or
    std::reduce per segment for the segmented calls, and std::stable_sort for the sorts (of a copy made outside the timing; of (key,
    value) pairs by key for sort_by_key).
  * Verified: the output of the last timed scan is read back and compared with the host reference:
    scan: std::inclusive_scan / std::exclusive_scan, exactly for integers (sums wrap around) and for
    min / max, and for floating-point sums within 16 * epsilon * (sum of |x| up to that element);
    select, partition, unique: the count and the elements exactly against std::copy_if,
    std::stable_partition, std::unique_copy (all n for partition, the kept ones otherwise); by_key:
    against a serial scan of each segment, exactly or, for floating-point sums, within the scan's
    bound per segment; reduce: against a serial reduce, exactly or, for floating-point sums, within
    16 * epsilon * (sum of |x|); reduce_by_key: the count and the keys exactly, each run's reduction
    exactly or, for floating-point sums, within 16 * epsilon * (sum of |x| over the run); unique_by_key and run_length_encode: the count, the
    keys and the values or lengths exactly against serial loops (run_checks.hpp); with --transform,
    scan and reduce against the reference of f(x) computed on the host; sort and
    sort_by_key: keys and values bit for bit against
    std::stable_sort in numpy's order (tools/common/sort_reference.hpp).
  * CSV and JSON rows name their primitive (the CSV's last column but keys_per_s); op is the predicate
    for select and partition, the direction ("ascending") for the sorts, whose kind is their --keys;
    op and kind are empty (null in JSON) where they do not apply; transform (the CSV's last column) is
    --transform's expression, empty (null) without it.

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

constexpr primitive all_primitives[] = {primitive::scan,
                                        primitive::select,
                                        primitive::partition,
                                        primitive::unique,
                                        primitive::by_key,
                                        primitive::reduce,
                                        primitive::sort,
                                        primitive::sort_by_key,
                                        primitive::reduce_by_key,
                                        primitive::unique_by_key,
                                        primitive::run_length_encode,
                                        primitive::inclusive_segmented,
                                        primitive::reduce_segmented};

std::string primitive_names_text() {
  std::string text;
  for (primitive p : all_primitives)
    text += std::string(primitive_name(p)) + ", ";
  return text + "all";
}

[[noreturn]] void unknown_primitive(const std::string& flag, const std::string& name) {
  throw usage_error(flag + ": unknown '" + name + "' (" + primitive_names_text() + ")");
}

// One name, a comma-separated list, or "all"; in the order given, without repeats.
std::vector<primitive> parse_primitives(const std::string& flag, const std::string& text) {
  if (text == "all") return {std::begin(all_primitives), std::end(all_primitives)};
  std::vector<primitive> chosen;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string name =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const primitive* found = std::find_if(std::begin(all_primitives), std::end(all_primitives),
                                          [&](primitive p) { return name == primitive_name(p); });
    if (found == std::end(all_primitives)) unknown_primitive(flag, name);
    if (std::find(chosen.begin(), chosen.end(), *found) == chosen.end()) chosen.push_back(*found);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return chosen;
}

std::vector<key_distribution> parse_key_distributions(const std::string& flag, const std::string& text) {
  std::vector<key_distribution> chosen;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string name =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    key_distribution d = key_distribution::uniform;
    if (name == "distinct7")
      d = key_distribution::distinct7;
    else if (name != "uniform")
      throw usage_error(
          std::string(flag).append(": unknown '").append(name).append("' (uniform, distinct7)"));
    if (std::find(chosen.begin(), chosen.end(), d) == chosen.end()) chosen.push_back(d);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return chosen;
}

clscan::op parse_op_flag(const std::string& name) {
  for (const op_name& entry : op_names)
    if (name == entry.name) return entry.operation;
  throw usage_error("--op: unknown operator '" + name + "' (sum, min, max, and, or, xor)");
}

} // namespace

const char* primitive_name(primitive p) {
  switch (p) {
  case primitive::scan: return "scan";
  case primitive::select: return "select";
  case primitive::partition: return "partition";
  case primitive::unique: return "unique";
  case primitive::by_key: return "by_key";
  case primitive::reduce: return "reduce";
  case primitive::sort: return "sort";
  case primitive::sort_by_key: return "sort_by_key";
  case primitive::reduce_by_key: return "reduce_by_key";
  case primitive::unique_by_key: return "unique_by_key";
  case primitive::run_length_encode: return "run_length_encode";
  case primitive::inclusive_segmented: return "inclusive_segmented";
  case primitive::reduce_segmented: return "reduce_segmented";
  }
  return "?";
}

std::string segment_lengths_name(const segment_lengths& s) {
  if (s.whole) return "one";
  return (s.random ? "random:" : "") + std::to_string(s.length);
}

const char* key_distribution_name(key_distribution d) {
  return d == key_distribution::distinct7 ? "distinct7" : "uniform";
}

const char* op_flag_name(clscan::op operation) {
  for (const op_name& entry : op_names)
    if (operation == entry.operation) return entry.name;
  return clscan::to_string(operation);
}

settings parse_arguments(int argc, char** argv) {
  settings s;
  std::string sizes_text;
  bool segments_given = false, op_given = false, kind_given = false, keys_given = false,
       lengths_given = false, csv = false, json = false;
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
    } else if (arg == "--primitive") {
      s.primitives = parse_primitives(arg, value());
    } else if (arg == "--segment-length") {
      const std::string text = value();
      s.segments = {};
      if (text == "one") {
        s.segments.whole = true;
      } else {
        const bool random = text.rfind("random:", 0) == 0;
        s.segments.random = random;
        s.segments.length = static_cast<std::size_t>(
            clscan_tools::parse_integer(arg, random ? text.substr(7) : text, 1, max_size));
      }
      segments_given = true;
    } else if (arg == "--lengths") {
      const std::string t = value();
      if (t != "uint" && t != "ulong") throw usage_error("--lengths: unknown '" + t + "' (uint, ulong)");
      s.ulong_lengths = t == "ulong";
      lengths_given = true;
    } else if (arg == "--keys") {
      s.key_distributions = parse_key_distributions(arg, value());
      keys_given = true;
    } else if (arg == "--algorithm") {
      const std::string a = value();
      const std::vector<clscan::algorithm> offered = {
          clscan::algorithm::automatic, clscan::algorithm::single_pass, clscan::algorithm::three_stage};
      const auto chosen = clscan_tools::algorithm_choice(a, offered);
      if (!chosen)
        throw usage_error("--algorithm: unknown '" + a + "' (" + clscan_tools::names_text(offered) +
                          ", all)");
      s.algorithms = *chosen;
      s.all_algorithms = a == "all";
    } else if (arg == "--type") {
      s.type = clscan_tools::parse_type(arg, value());
    } else if (arg == "--op") {
      s.operation = parse_op_flag(value());
      op_given = true;
    } else if (arg == "--kind") {
      const std::string k = value();
      const std::optional<clscan::scan_kind> kind = clscan::parse_scan_kind(k);
      if (!kind) throw usage_error("--kind: unknown '" + k + "' (inclusive, exclusive)");
      s.kind = *kind;
      kind_given = true;
    } else if (arg == "--reps") {
      s.reps = static_cast<std::size_t>(clscan_tools::parse_integer(arg, value(), 1, 100000));
      s.reps_given = true;
    } else if (arg == "--csv") {
      s.format = output_format::csv;
      csv = true;
    } else if (arg == "--json") {
      s.format = output_format::json;
      json = true;
    } else if (arg == "--no-std") {
      s.std_timing = false;
    } else if (arg == "--transform") {
      const std::string text = value();
      const std::optional<transform_kind> kind = parse_transform(text);
      if (!kind) throw usage_error("--transform: unknown '" + text + "' (" + transform_list() + ")");
      s.transform = *kind;
    } else if (arg == "--deterministic") {
      s.deterministic = true;
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
  const auto measures = [&](primitive p) {
    return std::find(s.primitives.begin(), s.primitives.end(), p) != s.primitives.end();
  };
  const bool scans = measures(primitive::scan) || measures(primitive::by_key);
  if (op_given && !scans && !measures(primitive::reduce) && !measures(primitive::reduce_by_key))
    throw usage_error("--op applies to --primitive scan, by_key, reduce and reduce_by_key only");
  if (kind_given && !scans) throw usage_error("--kind applies to --primitive scan and by_key only");
  if (segments_given && !measures(primitive::inclusive_segmented) && !measures(primitive::reduce_segmented))
    throw usage_error(
        "--segment-length applies to --primitive inclusive_segmented and reduce_segmented only");
  if (lengths_given && !measures(primitive::run_length_encode))
    throw usage_error("--lengths applies to --primitive run_length_encode only");
  if (keys_given && !measures(primitive::sort) && !measures(primitive::sort_by_key))
    throw usage_error("--keys applies to --primitive sort and sort_by_key only");
  if (s.transform != transform_kind::none &&
      std::any_of(s.primitives.begin(), s.primitives.end(),
                  [](primitive p) { return p != primitive::scan && p != primitive::reduce; }))
    throw usage_error("--transform applies to --primitive scan and reduce only");
  if (s.deterministic && !scans)
    throw usage_error("--deterministic applies to --primitive scan and by_key only");
  if (csv && json) throw usage_error("--csv and --json: one output format only");
  if (s.first_call && s.primitives != std::vector<primitive>{primitive::scan})
    throw usage_error("--first-call measures scans only (--primitive scan)");
  if (s.first_call && s.transform != transform_kind::none)
    throw usage_error("--first-call measures a plain scan: --transform does not apply");
  if (s.first_call && (s.sizes_given || s.reps_given || s.smoke || s.progress))
    throw usage_error("--first-call measures one scan of 2^16 elements: --sizes, --reps, --smoke and "
                      "--progress do not apply");
  return s;
}

} // namespace clscan_bench
