// clscan-bench --first-call: first-call latency in fresh processes. The parent runs this program again
// (the hidden --first-call-child flag) in four cache scenarios per algorithm and reports each.
#include "bench.hpp"
#include "scan.hpp"

#include "common/json.hpp"
#include "common/opencl.hpp"
#include "common/process.hpp"
#include "common/timing.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace clscan_bench {
namespace {

using clscan_tools::check;

// In the child: one context and queue, then one scan of 2^16 elements timed from the call until its
// event completes. Prints "context_ms=<ms> enqueue_ms=<ms> first_call_ms=<ms>" and checks the result.
template <typename T> int first_call_child(const settings& s) {
  const clscan_tools::stopwatch context_watch;
  const clscan_tools::device_queue dq = clscan_tools::make_queue(clscan::select_device());
  const cl::Context& context = dq.context;
  const cl::CommandQueue& queue = dq.queue;
  const double context_ms = context_watch.milliseconds();

  const std::size_t n = first_call_n;
  std::vector<T> host(n);
  fill_random(host, 12345);
  cl::Buffer in = clscan_tools::make_buffer(context, n * sizeof(T));
  cl::Buffer out = clscan_tools::make_buffer(context, n * sizeof(T));
  check(queue.enqueueWriteBuffer(in, CL_TRUE, 0, n * sizeof(T), host.data()), "clEnqueueWriteBuffer");
  check(queue.enqueueFillBuffer(out, cl_uchar{0}, 0, n * sizeof(T)), "clEnqueueFillBuffer");
  check(queue.finish(), "clFinish");

  const clscan::op operation = s.operation;
  const auto opts = make_options<T>(s.algorithms.front(), operation);
  const clscan_tools::stopwatch call_watch;
  cl::Event e = run_scan<T>(queue, in, out, n, s.kind, opts);
  const double enqueue_ms = call_watch.milliseconds();
  check(e.wait(), "clWaitForEvents");
  const double first_call_ms = call_watch.milliseconds();

  std::vector<T> got(n);
  check(queue.enqueueReadBuffer(out, CL_TRUE, 0, n * sizeof(T), got.data()), "clEnqueueReadBuffer");
  const std::string mismatch = verify(host, got, operation, s.kind);
  if (!mismatch.empty()) {
    std::fprintf(stderr, "clscan-bench: first call gave a wrong result: %s\n", mismatch.c_str());
    return 1;
  }
  std::printf("context_ms=%.3f enqueue_ms=%.3f first_call_ms=%.3f\n", context_ms, enqueue_ms, first_call_ms);
  return 0;
}

struct child_result {
  bool ok = false;
  double context_ms = std::nan(""), enqueue_ms = std::nan(""), first_call_ms = std::nan("");
  std::string message;
};

// Runs this program with `args` and the environment changed by `set` (NAME=VALUE) and `unset`, and
// reads the child's times from its standard output; standard error passes through.
child_result run_child(const std::vector<std::string>& args, const std::vector<std::string>& set,
                       const std::vector<std::string>& unset) {
  child_result result;
  const clscan_tools::process_result child = clscan_tools::run_process({args, set, unset});
  const std::string& output = child.output;
  if (!child.started) {
    result.message = child.error;
    return result;
  }
  if (!child.succeeded()) {
    result.message = "child process failed (" + child.status_text() + ")" +
                     (output.empty() ? "" : ": " + one_line(output));
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

} // namespace

int first_call_child(const settings& s) {
  return clscan_tools::with_element_type(s.type,
                                         [&](auto zero) { return first_call_child<decltype(zero)>(s); });
}

int run_first_call(const device_info& dev, const settings& s) {
  const std::string self = clscan_tools::self_executable();
  const char* const type = clscan::to_string(s.type);
  const char* const op = op_flag_name(s.operation);
  const char* const kind = clscan::to_string(s.kind);
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
                kind, op, type);
    std::printf("context_ms: device, context and queue; enqueue_ms: until the call returned; first_call_ms: "
                "until its event completed\n\n");
    std::printf("%-12s %-14s %12s %12s %14s  %s\n", "algorithm", "cache", "context_ms", "enqueue_ms",
                "first_call_ms", "status");
  } else if (s.format == output_format::csv) {
    std::printf(
        "device,platform,driver,n,type,op,kind,algorithm,cache,context_ms,enqueue_ms,first_call_ms,status,"
        "error\n");
  }
  std::optional<clscan_tools::json_lines> json;
  if (s.format == output_format::json) json.emplace(stdout);

  bool any_failed = false;
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
      const char* const algorithm = clscan::to_string(algo);
      const std::vector<std::string> args{self,   child_flag, "--algorithm", algorithm, "--type", type,
                                          "--op", op,         "--kind",      kind};
      const child_result c = run_child(args, set, {"CLSCAN_NO_CACHE"});
      any_failed = any_failed || !c.ok;
      const std::string status = c.ok ? "ok" : "error";
      switch (s.format) {
      case output_format::table:
        if (c.ok)
          std::printf("%-12s %-14s %12.1f %12.1f %14.1f  ok\n", algorithm, sc.name, c.context_ms,
                      c.enqueue_ms, c.first_call_ms);
        else
          std::printf("%-12s %-14s  error: %s\n", algorithm, sc.name, c.message.c_str());
        break;
      case output_format::csv:
        std::printf("%s,%s,%s,%zu,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", csv_field(dev.caps.name).c_str(),
                    csv_field(dev.caps.platform_name).c_str(), csv_field(dev.caps.driver_version).c_str(),
                    first_call_n, type, op, kind, algorithm, sc.name, fmt(c.context_ms, 3).c_str(),
                    fmt(c.enqueue_ms, 3).c_str(), fmt(c.first_call_ms, 3).c_str(), status.c_str(),
                    csv_field(c.message).c_str());
        break;
      case output_format::json: {
        std::string out;
        clscan_tools::json_writer row(out, clscan_tools::json_writer::layout::one_line);
        row.begin_object();
        row.field("device", dev.caps.name);
        row.field("n", first_call_n);
        row.field("type", type);
        row.field("op", op);
        row.field("kind", kind);
        row.field("algorithm", algorithm);
        row.field("cache", sc.name);
        row.field("context_ms", c.context_ms, 3);
        row.field("enqueue_ms", c.enqueue_ms, 3);
        row.field("first_call_ms", c.first_call_ms, 3);
        row.field("status", status);
        row.text_or_null("error", c.message);
        row.end_object();
        json->add(out);
        break;
      }
      }
      std::fflush(stdout);
    }
  }
  if (json) json->finish();
  std::error_code ec;
  std::filesystem::remove_all(base, ec);
  return any_failed ? 1 : 0; // a row that failed measured nothing: the run did not do what was asked
}

} // namespace clscan_bench
