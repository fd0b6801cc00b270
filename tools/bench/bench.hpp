// clscan-bench's pieces: the settings read from the command line (options.cpp), one measured row
// (measure.cpp, with the primitives' data, calls and checks in workloads.hpp), the benchmark's loop and
// summary (run.cpp), its output formats (report.cpp) and the first-call latency in fresh processes
// (first_call.cpp). tools/bench/main.cpp ties them together.
#pragma once

#include "inputs.hpp"
#include "run_checks.hpp"

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

// What is measured (--primitive): the scans, or one of the calls built on them.
enum class primitive {
  scan,
  select,
  partition,
  unique,
  by_key,
  reduce,
  sort,
  sort_by_key,
  reduce_by_key,
  unique_by_key,
  run_length_encode,
  inclusive_segmented,
  reduce_segmented
};

// --primitive's spelling, also the rows' "primitive" field: "scan", "select", "partition", "unique",
// "by_key", "reduce", "sort", "sort_by_key", "reduce_by_key", "unique_by_key", "run_length_encode",
// "inclusive_segmented", "reduce_segmented".
const char* primitive_name(primitive p);
inline bool is_sort(primitive p) { return p == primitive::sort || p == primitive::sort_by_key; }

// The sorts' keys (--keys), each reported apart: uniform random (the scan's inputs), or 7 distinct
// values (which leave most digit passes with few digits, flattering every radix sort).
enum class key_distribution { uniform, distinct7 };
const char* key_distribution_name(key_distribution d); // "uniform", "distinct7"

// The predicate of select and partition (inputs.hpp: the share of the inputs that satisfies it).
constexpr const char* select_predicate = "x > 0";

// The segments of inclusive_segmented and reduce_segmented (--segment-length): `length` each (the last
// cut at n), lengths drawn uniformly in [1, 2 * length - 1] (random), or one segment of all n (whole).
struct segment_lengths {
  std::size_t length = 100;
  bool random = false;
  bool whole = false;
};

// --segment-length's spelling: "N", "random:N" or "one".
std::string segment_lengths_name(const segment_lengths& s);

struct settings {
  std::vector<std::size_t> sizes;
  bool sizes_given = false;
  std::vector<primitive> primitives{primitive::scan};
  std::vector<clscan::algorithm> algorithms{clscan::algorithm::automatic};
  bool all_algorithms = false; // --algorithm all: each primitive runs those it can
  clscan::element_type type = clscan::element_type::int32;
  clscan::op operation = clscan::op::sum;
  clscan::scan_kind kind = clscan::scan_kind::inclusive;
  bool deterministic = false; // options::deterministic, for scan and by_key
  // --transform: options::transform for scan and reduce (run_checks.hpp's list); none: the plain call.
  transform_kind transform = transform_kind::none;
  std::vector<key_distribution> key_distributions{key_distribution::uniform}; // --keys
  key_distribution keys = key_distribution::uniform;                          // the one a row measures
  segment_lengths segments;                                                   // --segment-length
  bool ulong_lengths = false; // --lengths ulong: run_length_encode's lengths are cl_ulong
  std::size_t reps = 50;
  bool reps_given = false;
  output_format format = output_format::table;
  bool smoke = false;
  bool first_call = false;
  bool first_call_child = false;
  bool progress = false;
  bool std_timing = true; // --no-std turns the serial host equivalent's timing off
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
  // Copied before each timed scan so that the device is still busy when the scan is enqueued
  // (size_spacer).
  std::size_t spacer_bytes = 0;
  double spacer_us = 0; // the spacer copy's device time, as measured when it was sized
  cl::Buffer spacer_src, spacer_dst;
};

// Makes env's spacer buffers: 32 MiB, grown until one copy of them keeps the device busy for at least
// min_spacer_us (on fast GPUs 32 MiB take ~15 us, less than the host needs to enqueue a call), within
// 1/8 of CL_DEVICE_MAX_MEM_ALLOC_SIZE and 1/32 of the global memory.
void size_spacer(bench_env& env);

// The figures of a primitive other than scan go in the scan_* fields (the call measured), and
// std_scan_us holds its serial host equivalent (std::copy_if, ...; see the help text).
struct row {
  std::size_t n = 0;
  std::string primitive, type, op, kind, algorithm;
  std::string transform; // the expression scan and reduce applied (--transform); empty: none
  std::size_t reps = 0, buffers = 0;
  double scan_us = std::nan(""), copy_us = std::nan(""), scan_gbps = std::nan(""), copy_gbps = std::nan(""),
         ratio = std::nan(""), host_enqueue_us = std::nan(""), first_call_ms = std::nan(""),
         std_scan_us = std::nan(""), keys_per_s = std::nan("");
  // Timed repetitions whose last command was still being enqueued when the device had already reached
  // the marker before the call: their time may include host time (see size_spacer).
  std::size_t host_bound_reps = 0;
  // What ratio compares the call with: "copy" (copy_us / scan_us), or for reduce, which reads its input
  // and writes one element, "read": read_us / scan_us, read_us being half the copy's time.
  std::string ratio_basis = "copy";
  double read_us = std::nan("");
  std::string status; // "ok", "FAIL", "error"
  std::string message;
};

// Measures and verifies `p` on n elements of s.type with `algo`. first_call_ms is this primitive's and
// algorithm's first call in the process: NaN until a row of it sets it (that row reports it too).
row measure(bench_env& env, const settings& s, primitive p, std::size_t n, clscan::algorithm algo,
            double& first_call_ms);

// `text` on one line, cut at 300 characters.
std::string one_line(std::string text);

// --- The benchmark (run.cpp) and its output (report.cpp) ----------------------------------------

// Every size and algorithm of `s`, printed as they come; the exit status.
int run_benchmark(bench_env& env, const settings& s);

void print_device_header(const device_info& d, std::FILE* out);
// The table's column names, and the line that names the serial host equivalent of `p`.
void print_table_header(primitive p, clscan::scan_kind kind, bool transform);
// The serial host equivalent of `p` that std_us times: "std::inclusive_scan", "std::copy_if", ...
const char* std_reference_name(primitive p, clscan::scan_kind kind, bool transform);
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
