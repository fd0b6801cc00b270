// clscan-bench's benchmark: every size of every algorithm, each row printed as it comes, then the
// notes and the summary; the exit status.
#include "bench.hpp"

#include "common/json.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace clscan_bench {
namespace {

constexpr double host_enqueue_target_us = 5.0;

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

} // namespace

int run_benchmark(bench_env& env, const settings& s) {
  const std::size_t element_size = clscan::size_of(s.type);
  const char* const type = clscan::to_string(s.type);
  std::vector<std::size_t> sizes = s.sizes_given ? s.sizes
                                   : s.smoke     ? smoke_sizes()
                                                 : default_sizes(env.dev, element_size);
  const clscan::dispatch_plan plan = clscan::plan_for(env.dev.device, s.type);

  if (s.format == output_format::table) {
    print_device_header(env.dev, stdout);
    std::printf("compute units %u, global memory %.0f MiB, max allocation %.0f MiB\n",
                env.dev.caps.compute_units, static_cast<double>(env.dev.caps.global_mem_size) / mib,
                static_cast<double>(env.dev.caps.max_mem_alloc_size) / mib);
    std::printf(
        "dispatch for %s: automatic -> %s for sizes above one tile; single_pass %s; three_stage wg=%zu "
        "items=%zu vec=%zu (%s)\n",
        type, clscan::to_string(plan.large), plan.single_pass_available ? "available" : "unavailable",
        plan.three_stage.work_group_size, plan.three_stage.items_per_thread, plan.three_stage.vector_width,
        plan.three_stage.origin.c_str());
    std::printf("%s %s scan, %s; times are medians; GB/s counts read + write bytes (2 * n * %zu)\n\n",
                clscan::to_string(s.kind), op_flag_name(s.operation), s.smoke ? "smoke test" : "benchmark",
                element_size);
    print_table_header();
  } else if (s.format == output_format::csv) {
    std::printf("%s\n", csv_header);
  }
  std::optional<clscan_tools::json_lines> json;
  if (s.format == output_format::json) json.emplace(stdout);

  std::vector<double> first_call(s.algorithms.size(), std::nan(""));
  std::size_t passed = 0, failed = 0, errors = 0, slow_host = 0;
  for (std::size_t n : sizes) {
    for (std::size_t a = 0; a < s.algorithms.size(); ++a) {
      const row r = measure(env, s, n, s.algorithms[a], first_call[a]);
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
      case output_format::json: json->add(json_row(env.dev, r)); break;
      }
      if (r.status == "FAIL" && s.format != output_format::table)
        std::fprintf(stderr, "clscan-bench: FAIL n=%zu %s: %s\n", r.n, r.algorithm.c_str(),
                     r.message.c_str());
      if (r.status == "error" && s.format != output_format::table)
        std::fprintf(stderr, "clscan-bench: error n=%zu %s: %s\n", r.n, r.algorithm.c_str(),
                     r.message.c_str());
    }
  }
  if (json) json->finish();

  FILE* notes = s.format == output_format::table ? stdout : stderr;
  if (s.format == output_format::table) {
    std::fprintf(notes, "\n");
    for (std::size_t a = 0; a < s.algorithms.size(); ++a)
      if (!std::isnan(first_call[a]))
        std::fprintf(notes, "first call of %s in this process (kernel build or cache load + scan): %.1f ms\n",
                     clscan::to_string(s.algorithms[a]), first_call[a]);
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

} // namespace clscan_bench
