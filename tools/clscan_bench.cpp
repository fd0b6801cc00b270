// clscan-bench: scan speed as a ratio to clEnqueueCopyBuffer of the same bytes on the same device, in
// the same process. Run with --help for what is measured and how.
#include "common/cli.hpp"

#include <clscan/clscan.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using host_clock = std::chrono::steady_clock;

constexpr const char* child_flag = "--first-call-child"; // hidden: one first call in this process
constexpr std::size_t first_call_n = std::size_t{1} << 16;
constexpr std::size_t mib = std::size_t{1} << 20;
constexpr std::size_t rotation_bytes = 256 * mib; // rotated inputs touch up to this much
constexpr std::size_t max_rotation = 8;
constexpr double default_budget_s = 2.0; // per size and algorithm, with the default --reps
constexpr double host_enqueue_target_us = 5.0;

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

// ------------------------------------------------------------------------------------------------
// Options

enum class output_format { table, csv, json };

struct settings {
  std::vector<std::size_t> sizes;
  bool sizes_given = false;
  std::vector<clscan::algorithm> algorithms{clscan::algorithm::automatic};
  std::string type = "int";
  std::string op = "sum";
  clscan::scan_kind kind = clscan::scan_kind::inclusive;
  std::size_t reps = 50;
  bool reps_given = false;
  output_format format = output_format::table;
  bool smoke = false;
  bool first_call = false;
  bool first_call_child = false;
  bool progress = false;
};

using clscan_tools::usage_error;

const char* algorithm_name(clscan::algorithm a) {
  switch (a) {
  case clscan::algorithm::automatic: return "automatic";
  case clscan::algorithm::single_pass: return "single_pass";
  case clscan::algorithm::three_stage: return "three_stage";
  }
  return "?";
}

const char* kind_name(clscan::scan_kind k) {
  return k == clscan::scan_kind::inclusive ? "inclusive" : "exclusive";
}

clscan::op op_from_name(const std::string& name) {
  if (name == "sum") return clscan::op::sum;
  if (name == "min") return clscan::op::min;
  if (name == "max") return clscan::op::max;
  if (name == "and") return clscan::op::bit_and;
  if (name == "or") return clscan::op::bit_or;
  if (name == "xor") return clscan::op::bit_xor;
  throw usage_error("--op: unknown operator '" + name + "' (sum, min, max, and, or, xor)");
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
      if (a == "automatic")
        s.algorithms = {clscan::algorithm::automatic};
      else if (a == "single_pass")
        s.algorithms = {clscan::algorithm::single_pass};
      else if (a == "three_stage")
        s.algorithms = {clscan::algorithm::three_stage};
      else if (a == "all")
        s.algorithms = {clscan::algorithm::automatic, clscan::algorithm::single_pass,
                        clscan::algorithm::three_stage};
      else
        throw usage_error("--algorithm: unknown '" + a + "' (automatic, single_pass, three_stage, all)");
    } else if (arg == "--type") {
      s.type = value();
      static const char* const types[] = {"int", "uint", "long", "ulong", "float", "double"};
      if (std::find(std::begin(types), std::end(types), s.type) == std::end(types))
        throw usage_error("--type: unknown '" + s.type + "' (int, uint, long, ulong, float, double)");
    } else if (arg == "--op") {
      s.op = value();
      op_from_name(s.op);
    } else if (arg == "--kind") {
      const std::string k = value();
      if (k == "inclusive")
        s.kind = clscan::scan_kind::inclusive;
      else if (k == "exclusive")
        s.kind = clscan::scan_kind::exclusive;
      else
        throw usage_error("--kind: unknown '" + k + "' (inclusive, exclusive)");
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

// ------------------------------------------------------------------------------------------------
// Small helpers

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double seconds_since(host_clock::time_point start) {
  return std::chrono::duration<double>(host_clock::now() - start).count();
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > 300) s = s.substr(0, 297) + "...";
  return s;
}

std::string size_label(std::size_t n) {
  if (n && (n & (n - 1)) == 0) {
    int e = 0;
    while ((std::size_t{1} << e) != n)
      ++e;
    return "2^" + std::to_string(e);
  }
  return std::to_string(n);
}

// The OpenCL C++ bindings are used without exceptions (clscan's configuration): every status is checked.
void ck(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw clscan::opencl_error(status, call);
}

cl::Buffer make_buffer(const cl::Context& context, std::size_t bytes) {
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  ck(status, "clCreateBuffer");
  return buffer;
}

cl_ulong profiling(const cl::Event& e, cl_profiling_info what) {
  cl_ulong value = 0;
  const cl_int status = clGetEventProfilingInfo(e(), what, sizeof value, &value, nullptr);
  if (status != CL_SUCCESS) throw clscan::opencl_error(status, "clGetEventProfilingInfo");
  return value;
}

// ------------------------------------------------------------------------------------------------
// Element types: random data and the host reference

template <typename T> struct unsigned_of { using type = T; };
template <> struct unsigned_of<cl_int> { using type = cl_uint; };
template <> struct unsigned_of<cl_long> { using type = cl_ulong; };

template <typename T> T identity_for(clscan::op operation) {
  // Floating-point min and max are fmin and fmax (identity NaN), a sum's identity is -0.0: as the
  // library's (lib/dispatch.cpp identity_of).
  if constexpr (std::is_floating_point_v<T>) {
    if (operation == clscan::op::min || operation == clscan::op::max)
      return std::numeric_limits<T>::quiet_NaN();
    if (operation == clscan::op::sum) return T(-0.0);
  }
  switch (operation) {
  case clscan::op::min:
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  case clscan::op::max:
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  case clscan::op::bit_and:
    if constexpr (std::is_integral_v<T>) return static_cast<T>(~typename unsigned_of<T>::type{0});
    return T{};
  default: return T{};
  }
}

template <typename T> T combine(clscan::op operation, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = typename unsigned_of<T>::type;
    switch (operation) {
    case clscan::op::sum: return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    case clscan::op::min: return std::min(a, b);
    case clscan::op::max: return std::max(a, b);
    case clscan::op::bit_and: return static_cast<T>(a & b);
    case clscan::op::bit_or: return static_cast<T>(a | b);
    case clscan::op::bit_xor: return static_cast<T>(a ^ b);
    default: return a;
    }
  } else {
    switch (operation) {
    case clscan::op::sum: return a + b;
    case clscan::op::min: return std::fmin(a, b);
    case clscan::op::max: return std::fmax(a, b);
    default: return a;
    }
  }
}

template <typename T> void fill_random(std::vector<T>& v, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  if constexpr (std::is_integral_v<T>) {
    for (auto& x : v)
      x = static_cast<T>(rng());
  } else {
    std::uniform_real_distribution<T> dist(T(-1), T(1));
    for (auto& x : v)
      x = dist(rng);
  }
}

// Compares `got` with the host scan of `in`. Returns an empty string when it matches, else a
// description of the first mismatch.
template <typename T>
std::string verify(const std::vector<T>& in, const std::vector<T>& got, clscan::op operation,
                   clscan::scan_kind kind) {
  const std::size_t n = in.size();
  const auto describe = [&](std::size_t i, auto expected, auto actual) {
    std::ostringstream s;
    s.precision(std::numeric_limits<T>::max_digits10);
    s << "mismatch at " << i << " of " << n << ": expected " << +expected << ", got " << +actual;
    return s.str();
  };
  if constexpr (std::is_floating_point_v<T>) {
    if (operation == clscan::op::sum) {
      // Reference in long double; tolerance relative to the sum of |x| (the bound on rounding error
      // of any order of summation is proportional to it).
      long double acc = 0, abs_acc = 0;
      const long double eps = std::numeric_limits<T>::epsilon();
      for (std::size_t i = 0; i < n; ++i) {
        if (kind == clscan::scan_kind::inclusive) acc += in[i], abs_acc += std::fabs(in[i]);
        const long double tol = 16 * eps * abs_acc + std::numeric_limits<T>::min();
        if (!(std::fabs(static_cast<long double>(got[i]) - acc) <= tol))
          return describe(i, static_cast<double>(acc), static_cast<double>(got[i])) + " (tolerance " +
                 std::to_string(static_cast<double>(tol)) + ")";
        if (kind == clscan::scan_kind::exclusive) acc += in[i], abs_acc += std::fabs(in[i]);
      }
      return {};
    }
  }
  T acc = identity_for<T>(operation);
  for (std::size_t i = 0; i < n; ++i) {
    if (kind == clscan::scan_kind::inclusive) acc = combine(operation, acc, in[i]);
    // Exact: integers, and floating-point min and max (any NaN for a NaN: fmin and fmax keep no payload).
    if (!(acc == got[i] || (std::isnan(static_cast<double>(acc)) && std::isnan(static_cast<double>(got[i])))))
      return describe(i, acc, got[i]);
    if (kind == clscan::scan_kind::exclusive) acc = combine(operation, acc, in[i]);
  }
  return {};
}

// ------------------------------------------------------------------------------------------------
// Device

struct device_info {
  cl::Device device;
  clscan::device_capabilities caps;
};

struct bench_env {
  device_info dev;
  cl::Context context;
  cl::CommandQueue queue;
  bool marker_timestamps = true; // false: a 4-byte copy stands in for the marker
  cl::Buffer stand_in_src, stand_in_dst;
  // Copied before each timed scan so that the device is still busy when the scan is enqueued.
  std::size_t spacer_bytes = 0;
  cl::Buffer spacer_src, spacer_dst;
};

// ------------------------------------------------------------------------------------------------
// Results

struct row {
  std::size_t n = 0;
  std::string type, op, kind, algorithm;
  std::size_t reps = 0, buffers = 0;
  double scan_us = std::nan(""), copy_us = std::nan(""), scan_gbps = std::nan(""), copy_gbps = std::nan(""),
         ratio = std::nan(""), host_enqueue_us = std::nan(""), first_call_ms = std::nan(""),
         std_scan_us = std::nan("");
  std::string status; // "ok", "FAIL", "error"
  std::string message;
};

template <typename T> clscan::options<T> make_options(clscan::algorithm algo, clscan::op operation) {
  clscan::options<T> o;
  o.algorithm = algo;
  o.operation = operation;
  return o;
}

template <typename T>
cl::Event run_scan(const cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                   clscan::scan_kind kind, const clscan::options<T>& o) {
  return kind == clscan::scan_kind::inclusive ? clscan::inclusive<T>(q, in, out, n, o)
                                              : clscan::exclusive<T>(q, in, out, n, o);
}

// Number of input buffers to rotate among for `bytes`, with `available` bytes of device memory.
std::size_t rotation_for(std::size_t bytes, std::size_t available) {
  std::size_t k = std::min<std::size_t>(
      max_rotation, std::max<std::size_t>(1, rotation_bytes / std::max<std::size_t>(bytes, 1)));
  while (k > 1 && (k + 2) * bytes > available)
    --k;
  return k;
}

template <typename T>
row bench_one(bench_env& env, const settings& s, std::size_t n, clscan::algorithm algo,
              std::vector<double>& first_call_ms_by_algo, std::size_t algo_index) {
  row r;
  r.n = n;
  r.type = s.type;
  r.op = s.op;
  r.kind = kind_name(s.kind);
  r.algorithm = algorithm_name(algo);
  const clscan::op operation = op_from_name(s.op);
  const clscan::options<T> opts = make_options<T>(algo, operation);
  const std::size_t bytes = n * sizeof(T);
  const std::size_t alloc = std::max<std::size_t>(bytes, sizeof(T));
  const std::size_t available = static_cast<std::size_t>(env.dev.caps.global_mem_size / 2);
  const std::size_t k = rotation_for(bytes, available);
  r.buffers = k;
  const auto size_start = host_clock::now();
  const auto progress = [&](const char* phase) {
    if (s.progress)
      std::fprintf(stderr, "clscan-bench: n=%zu %s %s: %s after %.3f s\n", n, s.type.c_str(),
                   r.algorithm.c_str(), phase, seconds_since(size_start));
  };

  try {
    if (alloc > env.dev.caps.max_mem_alloc_size)
      throw clscan::error(size_label(n) + " elements of " + s.type + " take " + std::to_string(bytes) +
                          " bytes, more than the device allows in one buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE " +
                          std::to_string(env.dev.caps.max_mem_alloc_size) + ")");
    // Host data for each input, then the device buffers.
    std::vector<std::vector<T>> host(k, std::vector<T>(n));
    for (std::size_t i = 0; i < k; ++i)
      fill_random(host[i], 0x5eed0000u + 977 * n + i);
    progress("host data ready");
    std::vector<cl::Buffer> inputs;
    for (std::size_t i = 0; i < k; ++i) {
      inputs.push_back(make_buffer(env.context, alloc));
      if (n)
        ck(env.queue.enqueueWriteBuffer(inputs.back(), CL_TRUE, 0, bytes, host[i].data()),
           "clEnqueueWriteBuffer");
      progress("input buffer written");
    }
    cl::Buffer output = make_buffer(env.context, alloc);
    cl::Buffer copy_dst = make_buffer(env.context, alloc);
    // Touch the output and copy destination once so that lazy allocation is not timed. A copy rather
    // than clEnqueueFillBuffer: NVIDIA's fill with a 1-byte pattern never finished on 2 GiB buffers,
    // and on PoCL a 4-byte-pattern fill left the host's std::inclusive_scan timing 60% slower.
    ck(env.queue.enqueueCopyBuffer(inputs[0], output, 0, 0, alloc), "clEnqueueCopyBuffer");
    ck(env.queue.enqueueCopyBuffer(inputs[0], copy_dst, 0, 0, alloc), "clEnqueueCopyBuffer");
    ck(env.queue.finish(), "clFinish");
    progress("device buffers written");

    std::size_t next = 0; // rotation counter shared by scans and copies
    const auto take_input = [&]() -> std::size_t { return next++ % k; };
    const auto copy_once = [&](std::size_t i) {
      cl::Event e;
      if (n)
        ck(env.queue.enqueueCopyBuffer(inputs[i], copy_dst, 0, 0, bytes, nullptr, &e), "clEnqueueCopyBuffer");
      else
        ck(env.queue.enqueueMarkerWithWaitList(nullptr, &e), "clEnqueueMarkerWithWaitList");
      return e;
    };

    // Warm-up; the first call of this algorithm also builds or loads its kernels.
    {
      const auto t0 = host_clock::now();
      ck(run_scan<T>(env.queue, inputs[take_input()], output, n, s.kind, opts).wait(), "clWaitForEvents");
      const double ms = seconds_since(t0) * 1e3;
      if (n && std::isnan(first_call_ms_by_algo[algo_index])) {
        first_call_ms_by_algo[algo_index] = ms;
        r.first_call_ms = ms;
      }
    }
    progress("first call done");
    const std::size_t warmups = s.smoke ? 1 : 3;
    for (std::size_t w = 1; w < warmups; ++w)
      run_scan<T>(env.queue, inputs[take_input()], output, n, s.kind, opts);
    for (std::size_t w = 0; w < warmups; ++w)
      copy_once(take_input());
    ck(env.queue.finish(), "clFinish");
    progress("warm-up done");

    // Repetitions: explicit --reps as given; the default stays within the time budget.
    std::size_t reps = s.smoke ? 2 : s.reps;
    if (!s.smoke && !s.reps_given) {
      const auto t0 = host_clock::now();
      run_scan<T>(env.queue, inputs[take_input()], output, n, s.kind, opts);
      copy_once(take_input());
      ck(env.queue.finish(), "clFinish");
      const double pair_s = seconds_since(t0);
      const double fit = default_budget_s / std::max(pair_s, 1e-9);
      reps = std::clamp<std::size_t>(static_cast<std::size_t>(fit), 5, s.reps);
    }
    r.reps = reps;

    std::vector<double> scan_ns, copy_ns, host_us;
    std::size_t last_scan_input = 0;
    for (std::size_t rep = 0; rep < reps; ++rep) {
      // Spacer -> marker -> scan. The spacer copy keeps the device busy for longer than the host takes
      // to enqueue the scan, so the scan's kernels are queued before the device reaches the marker and
      // the host's enqueue time stays out of the device time. (A user-event gate would do the same on
      // paper, but NVIDIA's driver releases work behind a user event about a millisecond late.)
      ck(env.queue.enqueueCopyBuffer(env.spacer_src, env.spacer_dst, 0, 0, env.spacer_bytes),
         "clEnqueueCopyBuffer");
      cl::Event start;
      cl_int status = CL_SUCCESS;
      if (env.marker_timestamps)
        status = env.queue.enqueueMarkerWithWaitList(nullptr, &start);
      else
        status = env.queue.enqueueCopyBuffer(env.stand_in_src, env.stand_in_dst, 0, 0, 4, nullptr, &start);
      ck(status, env.marker_timestamps ? "clEnqueueMarkerWithWaitList" : "clEnqueueCopyBuffer");
      last_scan_input = take_input();
      const auto h0 = host_clock::now();
      cl::Event done = run_scan<T>(env.queue, inputs[last_scan_input], output, n, s.kind, opts);
      const auto h1 = host_clock::now();
      cl::Event copy_event = copy_once(take_input());
      ck(copy_event.wait(), "clWaitForEvents");
      ck(done.wait(), "clWaitForEvents");

      host_us.push_back(std::chrono::duration<double, std::micro>(h1 - h0).count());
      const cl_ulong scan_end = profiling(done, CL_PROFILING_COMMAND_END);
      cl_ulong start_end = 0;
      try {
        start_end = profiling(start, CL_PROFILING_COMMAND_END);
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
      scan_ns.push_back(static_cast<double>(scan_end - start_end));
      if (n) {
        copy_ns.push_back(static_cast<double>(profiling(copy_event, CL_PROFILING_COMMAND_END) -
                                              profiling(copy_event, CL_PROFILING_COMMAND_START)));
      }
    }

    progress("timed repetitions done");
    r.scan_us = median(scan_ns) / 1e3;
    r.copy_us = n ? median(copy_ns) / 1e3 : std::nan("");
    r.host_enqueue_us = median(host_us);
    const double moved = 2.0 * static_cast<double>(bytes);
    r.scan_gbps = moved / (r.scan_us * 1e3);
    r.copy_gbps = n ? moved / (r.copy_us * 1e3) : std::nan("");
    r.ratio = n ? r.copy_us / r.scan_us : std::nan("");

    // The serial CPU scan of the same input on this host (sums only; the median of 5 runs), for the
    // "faster than std::inclusive_scan" comparison.
    if (n && operation == clscan::op::sum) {
      std::vector<T> scanned(n);
      std::vector<double> std_us;
      for (int run = 0; run < 5; ++run) {
        const auto t0 = host_clock::now();
        // Integer sums wrap (signed overflow in std::plus would be undefined behaviour).
        const auto plus = [](T a, T b) { return combine(clscan::op::sum, a, b); };
        if (s.kind == clscan::scan_kind::exclusive)
          std::exclusive_scan(host[0].begin(), host[0].end(), scanned.begin(), T{}, plus);
        else
          std::inclusive_scan(host[0].begin(), host[0].end(), scanned.begin(), plus);
        std_us.push_back(std::chrono::duration<double, std::micro>(host_clock::now() - t0).count());
        volatile T keep = scanned[n - 1]; // the result is used, so the scan is not optimized away
        (void)keep;
      }
      r.std_scan_us = median(std_us);
      progress("host std scan timed");
    }

    // Verify the last timed scan.
    std::vector<T> got(n);
    if (n) ck(env.queue.enqueueReadBuffer(output, CL_TRUE, 0, bytes, got.data()), "clEnqueueReadBuffer");
    const std::string mismatch = verify(host[last_scan_input], got, operation, s.kind);
    r.status = mismatch.empty() ? "ok" : "FAIL";
    r.message = mismatch;
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

// ------------------------------------------------------------------------------------------------
// Output

std::string fmt(double v, int decimals) {
  if (std::isnan(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

void print_table_header() {
  std::printf("%-10s %-6s %-4s %-12s %5s %12s %12s %9s %9s %7s %9s  %s\n", "n", "type", "op", "algorithm",
              "reps", "scan_us", "copy_us", "scan_GB/s", "copy_GB/s", "ratio", "host_us", "verified");
  std::printf("%-10s (std_us: serial std::inclusive_scan of the same input on this host's CPU)\n", "");
  std::fflush(stdout);
}

void print_table_row(const row& r) {
  if (r.status == "error") {
    std::printf("%-10s %-6s %-4s %-12s  error: %s\n", size_label(r.n).c_str(), r.type.c_str(), r.op.c_str(),
                r.algorithm.c_str(), r.message.c_str());
  } else {
    std::printf("%-10s %-6s %-4s %-12s %5zu %12s %12s %9s %9s %7s %9s  %s  std_us %s\n",
                size_label(r.n).c_str(), r.type.c_str(), r.op.c_str(), r.algorithm.c_str(), r.reps,
                fmt(r.scan_us, 1).c_str(), fmt(r.copy_us, 1).c_str(), fmt(r.scan_gbps, 2).c_str(),
                fmt(r.copy_gbps, 2).c_str(), fmt(r.ratio, 3).c_str(), fmt(r.host_enqueue_us, 1).c_str(),
                r.status.c_str(), fmt(r.std_scan_us, 1).c_str());
    if (r.status == "FAIL") std::printf("    FAIL: %s\n", r.message.c_str());
  }
  std::fflush(stdout);
}

const char* const csv_header =
    "device,platform,driver,n,type,op,kind,algorithm,reps,buffers,scan_us,copy_us,scan_gbps,copy_gbps,"
    "ratio,host_enqueue_us,verified,error,std_scan_us";

void print_csv_row(const device_info& d, const row& r) {
  std::printf("%s,%s,%s,%zu,%s,%s,%s,%s,%zu,%zu,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", csv_field(d.caps.name).c_str(),
              csv_field(d.caps.platform_name).c_str(), csv_field(d.caps.driver_version).c_str(), r.n,
              r.type.c_str(), r.op.c_str(), r.kind.c_str(), r.algorithm.c_str(), r.reps, r.buffers,
              fmt(r.scan_us, 3).c_str(), fmt(r.copy_us, 3).c_str(), fmt(r.scan_gbps, 4).c_str(),
              fmt(r.copy_gbps, 4).c_str(), fmt(r.ratio, 4).c_str(), fmt(r.host_enqueue_us, 3).c_str(),
              r.status.c_str(), csv_field(r.message).c_str(), fmt(r.std_scan_us, 3).c_str());
  std::fflush(stdout);
}

std::string json_number(double v, int decimals) { return std::isnan(v) ? "null" : fmt(v, decimals); }

std::string json_row(const device_info& d, const row& r) {
  std::ostringstream o;
  o << "{\"device\": \"" << json_escape(d.caps.name) << "\", \"platform\": \""
    << json_escape(d.caps.platform_name) << "\", \"driver\": \"" << json_escape(d.caps.driver_version)
    << "\", \"n\": " << r.n << ", \"type\": \"" << r.type << "\", \"op\": \"" << r.op << "\", \"kind\": \""
    << r.kind << "\", \"algorithm\": \"" << r.algorithm << "\", \"reps\": " << r.reps
    << ", \"buffers\": " << r.buffers << ", \"scan_us\": " << json_number(r.scan_us, 3)
    << ", \"copy_us\": " << json_number(r.copy_us, 3) << ", \"scan_gbps\": " << json_number(r.scan_gbps, 4)
    << ", \"copy_gbps\": " << json_number(r.copy_gbps, 4) << ", \"ratio\": " << json_number(r.ratio, 4)
    << ", \"host_enqueue_us\": " << json_number(r.host_enqueue_us, 3)
    << ", \"first_call_ms\": " << json_number(r.first_call_ms, 3)
    << ", \"std_scan_us\": " << json_number(r.std_scan_us, 3) << ", \"verified\": \"" << r.status
    << "\", \"error\": " << (r.message.empty() ? std::string("null") : "\"" + json_escape(r.message) + "\"")
    << "}";
  return o.str();
}

void print_device_header(const device_info& d, FILE* out) {
  std::fprintf(out, "device:   %s\n", d.caps.name.c_str());
  std::fprintf(out, "platform: %s (%s)\n", d.caps.platform_name.c_str(), d.caps.platform_version.c_str());
  std::fprintf(out, "driver:   %s\n", d.caps.driver_version.c_str());
}

// ------------------------------------------------------------------------------------------------
// The benchmark

std::vector<std::size_t> default_sizes(const device_info& d, std::size_t element_size) {
  std::vector<std::size_t> sizes;
  const cl_ulong max_alloc = d.caps.max_mem_alloc_size;
  const cl_ulong half_global = d.caps.global_mem_size / 2;
  for (int e = 10; e <= 26; e += 2) {
    const cl_ulong bytes = (cl_ulong{1} << e) * element_size;
    if (bytes <= max_alloc && 3 * bytes <= half_global) sizes.push_back(std::size_t{1} << e);
  }
  return sizes;
}

std::vector<std::size_t> smoke_sizes() {
  return {0, 1, 2, 3, 31, 64, 255, 1000, 4096, 4097, 65536 + 17, (std::size_t{1} << 20) + 3};
}

template <typename T> int run_benchmark(bench_env& env, const settings& s) {
  std::vector<std::size_t> sizes = s.sizes_given ? s.sizes
                                   : s.smoke     ? smoke_sizes()
                                                 : default_sizes(env.dev, sizeof(T));
  const clscan::dispatch_plan plan = clscan::plan_for(env.dev.device, clscan::element_traits<T>::type);

  if (s.format == output_format::table) {
    print_device_header(env.dev, stdout);
    std::printf("compute units %u, global memory %.0f MiB, max allocation %.0f MiB\n",
                env.dev.caps.compute_units, static_cast<double>(env.dev.caps.global_mem_size) / mib,
                static_cast<double>(env.dev.caps.max_mem_alloc_size) / mib);
    std::printf(
        "dispatch for %s: automatic -> %s for sizes above one tile; single_pass %s; three_stage wg=%zu "
        "items=%zu vec=%zu (%s)\n",
        s.type.c_str(), algorithm_name(plan.large), plan.single_pass_available ? "available" : "unavailable",
        plan.three_stage.work_group_size, plan.three_stage.items_per_thread, plan.three_stage.vector_width,
        plan.three_stage.origin.c_str());
    std::printf("%s %s scan, %s; times are medians; GB/s counts read + write bytes (2 * n * %zu)\n\n",
                kind_name(s.kind), s.op.c_str(), s.smoke ? "smoke test" : "benchmark", sizeof(T));
    print_table_header();
  } else if (s.format == output_format::csv) {
    std::printf("%s\n", csv_header);
  } else {
    std::printf("[\n");
  }

  std::vector<double> first_call(s.algorithms.size(), std::nan(""));
  std::size_t passed = 0, failed = 0, errors = 0, slow_host = 0;
  bool first_json = true;
  for (std::size_t n : sizes) {
    for (std::size_t a = 0; a < s.algorithms.size(); ++a) {
      const row r = bench_one<T>(env, s, n, s.algorithms[a], first_call, a);
      if (r.status == "ok")
        ++passed;
      else if (r.status == "FAIL")
        ++failed;
      else
        ++errors;
      if (r.status != "error" && r.host_enqueue_us > host_enqueue_target_us) ++slow_host;
      switch (s.format) {
      case output_format::table: print_table_row(r); break;
      case output_format::csv: print_csv_row(env.dev, r); break;
      case output_format::json:
        std::printf("%s  %s", first_json ? "" : ",\n", json_row(env.dev, r).c_str());
        std::fflush(stdout);
        first_json = false;
        break;
      }
      if (r.status == "FAIL" && s.format != output_format::table)
        std::fprintf(stderr, "clscan-bench: FAIL n=%zu %s: %s\n", r.n, r.algorithm.c_str(),
                     r.message.c_str());
      if (r.status == "error" && s.format != output_format::table)
        std::fprintf(stderr, "clscan-bench: error n=%zu %s: %s\n", r.n, r.algorithm.c_str(),
                     r.message.c_str());
    }
  }
  if (s.format == output_format::json) std::printf("%s]\n", first_json ? "" : "\n");

  FILE* notes = s.format == output_format::table ? stdout : stderr;
  if (s.format == output_format::table) {
    std::fprintf(notes, "\n");
    for (std::size_t a = 0; a < s.algorithms.size(); ++a)
      if (!std::isnan(first_call[a]))
        std::fprintf(notes, "first call of %s in this process (kernel build or cache load + scan): %.1f ms\n",
                     algorithm_name(s.algorithms[a]), first_call[a]);
    if (!env.marker_timestamps)
      std::fprintf(notes,
                   "note: the device gave no marker timestamps; scans were timed from a 4-byte copy\n");
    if (slow_host)
      std::fprintf(notes, "note: %zu rows took more than %.0f us of host time per enqueue\n", slow_host,
                   host_enqueue_target_us);
  }
  if (s.smoke)
    std::fprintf(notes, "smoke: %zu passed, %zu failed\n", passed, failed + errors);
  else if (failed || errors)
    std::fprintf(notes, "%zu verified, %zu FAILED, %zu errors\n", passed, failed, errors);
  std::fflush(notes);
  // Any wrong result or error row fails the run (an error row measured nothing); so does a smoke run
  // that verified nothing.
  if (failed || errors) return 1;
  if (s.smoke && passed == 0) return 1;
  return 0;
}

// ------------------------------------------------------------------------------------------------
// First-call latency

// In the child: one context and queue, then one scan of 2^16 elements timed from the call until its
// event completes. Prints "context_ms=<ms> enqueue_ms=<ms> first_call_ms=<ms>" and checks the result.
template <typename T> int first_call_child(const settings& s) {
  const auto t0 = host_clock::now();
  cl::Device device = clscan::select_device();
  cl_int status = CL_SUCCESS;
  cl::Context context(device, nullptr, nullptr, nullptr, &status);
  ck(status, "clCreateContext");
  cl::CommandQueue queue(context, device, 0, &status);
  ck(status, "clCreateCommandQueue");
  const double context_ms = seconds_since(t0) * 1e3;

  const std::size_t n = first_call_n;
  std::vector<T> host(n);
  fill_random(host, 12345);
  cl::Buffer in = make_buffer(context, n * sizeof(T));
  cl::Buffer out = make_buffer(context, n * sizeof(T));
  ck(queue.enqueueWriteBuffer(in, CL_TRUE, 0, n * sizeof(T), host.data()), "clEnqueueWriteBuffer");
  ck(queue.enqueueFillBuffer(out, cl_uchar{0}, 0, n * sizeof(T)), "clEnqueueFillBuffer");
  ck(queue.finish(), "clFinish");

  const clscan::op operation = op_from_name(s.op);
  const auto opts = make_options<T>(s.algorithms.front(), operation);
  const auto c0 = host_clock::now();
  cl::Event e = run_scan<T>(queue, in, out, n, s.kind, opts);
  const auto c1 = host_clock::now();
  ck(e.wait(), "clWaitForEvents");
  const auto c2 = host_clock::now();

  std::vector<T> got(n);
  ck(queue.enqueueReadBuffer(out, CL_TRUE, 0, n * sizeof(T), got.data()), "clEnqueueReadBuffer");
  const std::string mismatch = verify(host, got, operation, s.kind);
  if (!mismatch.empty()) {
    std::fprintf(stderr, "clscan-bench: first call gave a wrong result: %s\n", mismatch.c_str());
    return 1;
  }
  std::printf("context_ms=%.3f enqueue_ms=%.3f first_call_ms=%.3f\n", context_ms,
              std::chrono::duration<double, std::milli>(c1 - c0).count(),
              std::chrono::duration<double, std::milli>(c2 - c0).count());
  return 0;
}

struct child_result {
  bool ok = false;
  double context_ms = std::nan(""), enqueue_ms = std::nan(""), first_call_ms = std::nan("");
  std::string message;
};

std::string self_executable() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw clscan::error("cannot read /proc/self/exe: " + ec.message());
  return path.string();
}

// Runs this program with `args` and the environment changed by `set` (NAME=VALUE) and `unset`,
// returning its standard output; standard error passes through.
child_result run_child(const std::vector<std::string>& args, const std::vector<std::string>& set,
                       const std::vector<std::string>& unset) {
  child_result result;
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool drop = std::find(unset.begin(), unset.end(), name) != unset.end();
    for (const auto& s : set)
      drop = drop || s.substr(0, s.find('=')) == name;
    if (!drop) env_strings.push_back(entry);
  }
  env_strings.insert(env_strings.end(), set.begin(), set.end());
  std::vector<char*> envp, argv;
  for (auto& e : env_strings)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings = args;
  for (auto& a : arg_strings)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  int fds[2];
  if (pipe(fds) != 0) {
    result.message = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    result.message = std::string("posix_spawn: ") + std::strerror(spawned);
    return result;
  }
  std::string output;
  char buf[4096];
  for (ssize_t got; (got = read(fds[0], buf, sizeof buf)) != 0;) {
    if (got < 0) {
      if (errno == EINTR) continue;
      break;
    }
    output.append(buf, static_cast<std::size_t>(got));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    result.message = "child process failed (" +
                     (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                        : "signal " + std::to_string(WTERMSIG(status))) +
                     ")" + (output.empty() ? "" : ": " + one_line(output));
    return result;
  }
  const auto field = [&](const char* name, double& value) {
    const std::size_t at = output.find(name);
    if (at == std::string::npos) return false;
    const char* start = output.c_str() + at + std::strlen(name);
    char* end = nullptr;
    value = std::strtod(start, &end);
    return end != start;
  };
  if (!field("context_ms=", result.context_ms) || !field("enqueue_ms=", result.enqueue_ms) ||
      !field("first_call_ms=", result.first_call_ms)) {
    result.message = "unexpected child output: " + one_line(output);
    return result;
  }
  result.ok = true;
  return result;
}

std::string make_temp_dir() {
  std::string parent = "/tmp";
  if (const char* dir = std::getenv("CLSCAN_CACHE_DIR"); dir && *dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    parent = dir;
  }
  std::string templ = parent + "/clscan-bench-first-call-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw clscan::error("mkdtemp(" + templ + "): " + std::strerror(errno));
  return buf.data();
}

int run_first_call(const device_info& dev, const settings& s) {
  const std::string self = self_executable();
  const std::string base = make_temp_dir();
  struct scenario {
    const char* name;
    bool fresh_cache;  // a new empty CLSCAN_CACHE_DIR
    bool fresh_driver; // new empty driver compiler caches too
  };
  // In this order: the second and third reuse the first one's CLSCAN_CACHE_DIR.
  const scenario scenarios[] = {{"cold", true, false},
                                {"warm", false, false},
                                {"warm/drv-cold", false, true},
                                {"cold/drv-cold", true, true}};

  if (s.format == output_format::table) {
    print_device_header(dev, stdout);
    std::printf("first call: one %s %s scan of 2^16 %s in a fresh process, host time from the call until its "
                "event completes\n",
                kind_name(s.kind), s.op.c_str(), s.type.c_str());
    std::printf("context_ms: device, context and queue; enqueue_ms: until the call returned; first_call_ms: "
                "until its event completed\n\n");
    std::printf("%-12s %-14s %12s %12s %14s  %s\n", "algorithm", "cache", "context_ms", "enqueue_ms",
                "first_call_ms", "status");
  } else if (s.format == output_format::csv) {
    std::printf(
        "device,platform,driver,n,type,op,kind,algorithm,cache,context_ms,enqueue_ms,first_call_ms,status,"
        "error\n");
  } else {
    std::printf("[\n");
  }

  bool any_failed = false, first_json = true;
  int counter = 0;
  for (clscan::algorithm algo : s.algorithms) {
    std::string cache_dir;
    for (const scenario& sc : scenarios) {
      if (sc.fresh_cache || cache_dir.empty()) {
        cache_dir = base + "/cache-" + std::to_string(counter++);
        std::filesystem::create_directories(cache_dir);
      }
      std::vector<std::string> set{"CLSCAN_CACHE_DIR=" + cache_dir};
      if (sc.fresh_driver) {
        const std::string driver_dir = base + "/driver-" + std::to_string(counter++);
        std::filesystem::create_directories(driver_dir + "/pocl");
        std::filesystem::create_directories(driver_dir + "/cuda");
        set.push_back("POCL_CACHE_DIR=" + driver_dir + "/pocl");
        set.push_back("CUDA_CACHE_PATH=" + driver_dir + "/cuda");
      }
      const std::vector<std::string> args{self,     child_flag,       "--algorithm", algorithm_name(algo),
                                          "--type", s.type,           "--op",        s.op,
                                          "--kind", kind_name(s.kind)};
      const child_result c = run_child(args, set, {"CLSCAN_NO_CACHE"});
      any_failed = any_failed || !c.ok;
      const std::string status = c.ok ? "ok" : "error";
      switch (s.format) {
      case output_format::table:
        if (c.ok)
          std::printf("%-12s %-14s %12.1f %12.1f %14.1f  ok\n", algorithm_name(algo), sc.name, c.context_ms,
                      c.enqueue_ms, c.first_call_ms);
        else
          std::printf("%-12s %-14s  error: %s\n", algorithm_name(algo), sc.name, c.message.c_str());
        break;
      case output_format::csv:
        std::printf("%s,%s,%s,%zu,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", csv_field(dev.caps.name).c_str(),
                    csv_field(dev.caps.platform_name).c_str(), csv_field(dev.caps.driver_version).c_str(),
                    first_call_n, s.type.c_str(), s.op.c_str(), kind_name(s.kind), algorithm_name(algo),
                    sc.name, fmt(c.context_ms, 3).c_str(), fmt(c.enqueue_ms, 3).c_str(),
                    fmt(c.first_call_ms, 3).c_str(), status.c_str(), csv_field(c.message).c_str());
        break;
      case output_format::json:
        std::printf(
            "%s  {\"device\": \"%s\", \"n\": %zu, \"type\": \"%s\", \"op\": \"%s\", \"kind\": \"%s\", "
            "\"algorithm\": \"%s\", \"cache\": \"%s\", \"context_ms\": %s, \"enqueue_ms\": %s, "
            "\"first_call_ms\": %s, \"status\": \"%s\", \"error\": %s}",
            first_json ? "" : ",\n", json_escape(dev.caps.name).c_str(), first_call_n, s.type.c_str(),
            s.op.c_str(), kind_name(s.kind), algorithm_name(algo), sc.name,
            json_number(c.context_ms, 3).c_str(), json_number(c.enqueue_ms, 3).c_str(),
            json_number(c.first_call_ms, 3).c_str(), status.c_str(),
            c.message.empty() ? "null" : ("\"" + json_escape(c.message) + "\"").c_str());
        first_json = false;
        break;
      }
      std::fflush(stdout);
    }
  }
  if (s.format == output_format::json) std::printf("%s]\n", first_json ? "" : "\n");
  std::error_code ec;
  std::filesystem::remove_all(base, ec);
  return any_failed ? 1 : 0; // a row that failed measured nothing: the run did not do what was asked
}

// ------------------------------------------------------------------------------------------------

template <typename T> int run_for_type(const settings& s) {
  if (s.first_call_child) return first_call_child<T>(s);
  device_info dev;
  dev.device = clscan::select_device();
  dev.caps = clscan::capabilities(dev.device);
  if (s.first_call) return run_first_call(dev, s);

  bench_env env;
  env.dev = dev;
  cl_int status = CL_SUCCESS;
  env.context = cl::Context(dev.device, nullptr, nullptr, nullptr, &status);
  ck(status, "clCreateContext");
  env.queue = cl::CommandQueue(env.context, dev.device, CL_QUEUE_PROFILING_ENABLE, &status);
  env.spacer_bytes =
      std::min<std::size_t>(32 * mib, static_cast<std::size_t>(dev.caps.max_mem_alloc_size / 8));
  env.spacer_src = make_buffer(env.context, env.spacer_bytes);
  env.spacer_dst = make_buffer(env.context, env.spacer_bytes);
  ck(status, "clCreateCommandQueue");
  return run_benchmark<T>(env, s);
}

} // namespace

int main(int argc, char** argv) {
  try {
    const settings s = parse_arguments(argc, argv);
    if (s.type == "int") return run_for_type<cl_int>(s);
    if (s.type == "uint") return run_for_type<cl_uint>(s);
    if (s.type == "long") return run_for_type<cl_long>(s);
    if (s.type == "ulong") return run_for_type<cl_ulong>(s);
    if (s.type == "float") return run_for_type<cl_float>(s);
    return run_for_type<cl_double>(s);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "clscan-bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clscan-bench: %s\n", e.what());
    return 1;
  }
}
