// clscan-bench's pieces: the settings read from the command line (options.cpp), one measured row
// (measure.cpp), the benchmark's loop and summary (run.cpp), its output formats (report.cpp) and the
// first-call latency in fresh processes (first_call.cpp). tools/bench/main.cpp ties them together.
#pragma once

#include <clscan/clscan.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace clscan_bench {

constexpr const char* child_flag = "--first-call-child"; // hidden: one first call in this process
constexpr std::size_t first_call_n = std::size_t{1} << 16;
constexpr std::size_t mib = std::size_t{1} << 20;

// --- The command line (options.cpp) -------------------------------------------------------------

enum class output_format { table, csv, json };

struct settings {
  std::vector<std::size_t> sizes;
  bool sizes_given = false;
  std::vector<clscan::algorithm> algorithms{clscan::algorithm::automatic};
  clscan::element_type type = clscan::element_type::int32;
  clscan::op operation = clscan::op::sum;
  clscan::scan_kind kind = clscan::scan_kind::inclusive;
  std::size_t reps = 50;
  bool reps_given = false;
  output_format format = output_format::table;
  bool smoke = false;
  bool first_call = false;
  bool first_call_child = false;
  bool progress = false;
};

// The settings of the command line; --help prints the help and exits; clscan_tools::usage_error.
settings parse_arguments(int argc, char** argv);

// --op's spelling of an operator: "sum", "min", "max", "and", "or", "xor" (the rows print it).
const char* op_flag_name(clscan::op operation);

// --- One row (measure.cpp) ----------------------------------------------------------------------

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

// Measures and verifies n elements of s.type with `algo`. first_call_ms is this algorithm's first call
// in the process: NaN until a row of it sets it (that row reports it too).
row measure(bench_env& env, const settings& s, std::size_t n, clscan::algorithm algo, double& first_call_ms);

// `text` on one line, cut at 300 characters.
std::string one_line(std::string text);

// --- The benchmark (run.cpp) and its output (report.cpp) ----------------------------------------

// Every size and algorithm of `s`, printed as they come; the exit status.
int run_benchmark(bench_env& env, const settings& s);

void print_device_header(const device_info& d, std::FILE* out);
void print_table_header();
void print_table_row(const row& r);
extern const char* const csv_header;
void print_csv_row(const device_info& d, const row& r);
std::string json_row(const device_info& d, const row& r);
// A CSV field: quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& text);
// Fixed-point with `decimals` digits; empty for NaN.
std::string fmt(double v, int decimals);

// --- First-call latency (first_call.cpp) --------------------------------------------------------

// In the child process: one first call, its times printed on stdout; the exit status.
int first_call_child(const settings& s);
// The parent: the child in four cache scenarios per algorithm, reported; the exit status.
int run_first_call(const device_info& dev, const settings& s);

} // namespace clscan_bench
