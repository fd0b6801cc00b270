// clscan-bench's benchmark: every size of every algorithm of every primitive, each row printed as it
// comes, then the notes and the summary; the exit status.
#include "bench.hpp"

#include "common/json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace clscan_bench {
namespace {

constexpr double host_enqueue_target_us = 5.0;

// Sizes whose buffers (an input, the output and the copy's destination; by_key's keys beside its
// input) fit in one allocation each and in half the global memory together.
std::vector<std::size_t> default_sizes(const device_info& d, std::size_t element_size, std::size_t key_size) {
  std::vector<std::size_t> sizes;
  const cl_ulong max_alloc = d.caps.max_mem_alloc_size;
  const cl_ulong half_global = d.caps.global_mem_size / 2;
  for (int e = 10; e <= 26; e += 2) {
    const cl_ulong n = cl_ulong{1} << e, bytes = n * element_size;
    if (bytes <= max_alloc && 3 * bytes + n * key_size <= half_global) sizes.push_back(std::size_t{1} << e);
  }
  return sizes;
}

// One line above a primitive's rows in the table: what is measured.
std::string section_title(const settings& s, primitive p, std::size_t element_size) {
  const std::string mode = s.smoke ? "smoke test" : "benchmark";
  const std::string type = clscan::to_string(s.type);
  const std::string bytes = "GB/s counts read + write bytes (2 * n * " + std::to_string(element_size) + ")";
  // --transform: what scan and reduce apply to each element as they read it.
  const std::string of_f = s.transform == transform_kind::none
                               ? std::string()
                               : std::string(" of f(x) = ") + transform_text(s.transform);
  switch (p) {
  case primitive::scan:
    return std::string(clscan::to_string(s.kind)) + " " + op_flag_name(s.operation) + " scan" + of_f + ", " +
           mode + "; times are medians; " + bytes;
  case primitive::select:
  case primitive::partition:
    return std::string(p == primitive::select ? "select_if" : "partition_if") + "(\"" + select_predicate +
           "\") of " + type + ", ~" + std::to_string(selected_percent) + " % of the elements > 0, " + mode +
           "; times are medians; " + bytes + " as for the copy";
  case primitive::unique:
    return "unique of " + type + ", runs of 2 elements on average, " + mode + "; times are medians; " +
           bytes + " as for the copy";
  case primitive::reduce:
    return std::string("reduce ") + op_flag_name(s.operation) + of_f + " of " + type + ", " + mode +
           "; times are medians; read_GB/s counts the bytes read (n * " + std::to_string(element_size) +
           "); vs_read = read time / call time, a read being half a clEnqueueCopyBuffer of the same bytes";
  case primitive::by_key:
    return std::string(clscan::to_string(s.kind)) + " " + op_flag_name(s.operation) + " scan by key of " +
           type + " (int keys, segments of " + std::to_string(average_segment) + " on average), " + mode +
           "; times are medians; " + bytes + " of the values, as for the copy";
  case primitive::reduce_by_key:
    return std::string("reduce_by_key ") + op_flag_name(s.operation) + " of " + type +
           " values (int keys, runs of " + std::to_string(average_segment) + " on average), " + mode +
           "; times are medians; " + bytes + " of the values, as for the copy";
  case primitive::unique_by_key:
    return "unique_by_key of " + type + " values (int keys, runs of " + std::to_string(average_segment) +
           " on average), " + mode + "; times are medians; " + bytes + " of the values, as for the copy";
  case primitive::run_length_encode:
    return "run_length_encode of " + type + " keys (runs of " + std::to_string(average_segment) +
           " on average, " + (s.ulong_lengths ? "cl_ulong" : "cl_uint") + " lengths), " + mode +
           "; times are medians; " + bytes + " of the keys, as for the copy";
  case primitive::inclusive_segmented:
  case primitive::reduce_segmented:
    return std::string(p == primitive::reduce_segmented ? "reduce_segmented" : "inclusive_segmented") +
           " sum of " + type + " in CSR segments (cl_uint offsets) of length " +
           segment_lengths_name(s.segments) + ", " + mode + "; times are medians; " +
           (p == primitive::reduce_segmented
                ? "read_GB/s counts the bytes read (n * " + std::to_string(element_size) +
                      "); vs_read = read time / call time, a read being half a clEnqueueCopyBuffer of the "
                      "same bytes"
                : bytes + " of the values, as for the copy");
  case primitive::sort:
  case primitive::sort_by_key:
    return std::string(p == primitive::sort ? "sort" : "sort_by_key (uint values)") + " of " + type +
           " keys, " + (s.keys == key_distribution::distinct7 ? "7 distinct values" : "uniform random") +
           ", ascending, " + mode + "; times are medians; " + bytes +
           " of the keys, as for the copy; ratio = copy of the keys / call";
  }
  return {};
}

// partition_if cannot run single_pass: --algorithm all leaves it out there, a single_pass named on its
// own is run and reported as the error it is.
// reduce has one algorithm (it ignores options::algorithm): --algorithm all runs it once.
bool runs(const settings& s, primitive p, clscan::algorithm algo) {
  if (s.all_algorithms && p == primitive::reduce) return algo == clscan::algorithm::automatic;
  return !(s.all_algorithms && p == primitive::partition && algo == clscan::algorithm::single_pass);
}

std::vector<std::size_t> smoke_sizes() {
  return {0, 1, 2, 3, 31, 64, 255, 1000, 4096, 4097, 65536 + 17, (std::size_t{1} << 20) + 3};
}

} // namespace

int run_benchmark(bench_env& env, const settings& s) {
  const std::size_t element_size = clscan::size_of(s.type);
  const char* const type = clscan::to_string(s.type);
  const auto measures = [&](primitive p) {
    return std::find(s.primitives.begin(), s.primitives.end(), p) != s.primitives.end();
  };
  // Bytes per element beside the input, output and copy: by_key's keys; reduce_by_key's keys in and out
  // and the library's scanned values (unique_by_key's keys in and out and the library's flags alike);
  // run_length_encode's lengths and the library's ones and their scan; the segmented calls' offsets and
  // the library's temporaries; the sorts' second key buffer (the library's), and sort_by_key's values
  // in, out and the library's second value buffer.
  const std::size_t extra =
      measures(primitive::sort_by_key) ? element_size + 3 * sizeof(cl_uint)
      : measures(primitive::sort)      ? element_size
      : measures(primitive::reduce_by_key) || measures(primitive::unique_by_key)
          ? 2 * sizeof(cl_int) + element_size
      : measures(primitive::run_length_encode)
          ? (s.ulong_lengths ? 2 * sizeof(cl_ulong) : 2 * sizeof(cl_uint)) + sizeof(cl_uint)
      : measures(primitive::by_key) ? sizeof(cl_int)
      : measures(primitive::inclusive_segmented) || measures(primitive::reduce_segmented)
          ? 2 * sizeof(cl_uint) + element_size
          : 0;
  std::vector<std::size_t> sizes = s.sizes_given ? s.sizes
                                   : s.smoke     ? smoke_sizes()
                                                 : default_sizes(env.dev, element_size, extra);
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
  } else if (s.format == output_format::csv) {
    std::printf("%s\n", csv_header);
  }
  std::optional<clscan_tools::json_lines> json;
  if (s.format == output_format::json) json.emplace(stdout);

  // The first call of each primitive and algorithm, in that order.
  const std::size_t algorithms = s.algorithms.size();
  std::vector<double> first_call(s.primitives.size() * algorithms, std::nan(""));
  std::size_t passed = 0, failed = 0, errors = 0, slow_host = 0, host_bound = 0;
  // A section per primitive; the sorts have one per key distribution, reported apart.
  struct section {
    std::size_t p;
    key_distribution keys;
  };
  std::vector<section> sections;
  for (std::size_t p = 0; p < s.primitives.size(); ++p)
    if (is_sort(s.primitives[p]))
      for (key_distribution d : s.key_distributions)
        sections.push_back({p, d});
    else
      sections.push_back({p, key_distribution::uniform});
  for (const section& sec : sections) {
    const std::size_t p = sec.p;
    const primitive prim = s.primitives[p];
    settings row_settings = s;
    row_settings.keys = sec.keys;
    if (s.format == output_format::table) {
      std::printf("\n%s\n\n", section_title(row_settings, prim, element_size).c_str());
      print_table_header(prim, s.kind, s.transform != transform_kind::none);
    }
    for (std::size_t n : sizes) {
      for (std::size_t a = 0; a < algorithms; ++a) {
        if (!runs(s, prim, s.algorithms[a])) continue;
        const row r = measure(env, row_settings, prim, n, s.algorithms[a], first_call[p * algorithms + a]);
        if (r.status == "ok")
          ++passed;
        else if (r.status == "FAIL")
          ++failed;
        else
          ++errors;
        if (r.status != "error" && r.host_enqueue_us > host_enqueue_target_us) ++slow_host;
        if (r.host_bound_reps * 10 > r.reps) ++host_bound;
        switch (s.format) {
        case output_format::table: print_table_row(r); break;
        case output_format::csv: print_csv_row(env.dev, r); break;
        case output_format::json: json->add(json_row(env.dev, r)); break;
        }
        // Scan rows as before --primitive existed; the others name their primitive.
        const std::string what = (prim == primitive::scan ? "" : r.primitive + " ") + r.algorithm;
        if (r.status == "FAIL" && s.format != output_format::table)
          std::fprintf(stderr, "clscan-bench: FAIL n=%zu %s: %s\n", r.n, what.c_str(), r.message.c_str());
        if (r.status == "error" && s.format != output_format::table)
          std::fprintf(stderr, "clscan-bench: error n=%zu %s: %s\n", r.n, what.c_str(), r.message.c_str());
      }
    }
  }
  if (json) json->finish();

  FILE* notes = s.format == output_format::table ? stdout : stderr;
  if (s.format == output_format::table) {
    std::fprintf(notes, "\n");
    for (std::size_t p = 0; p < s.primitives.size(); ++p)
      for (std::size_t a = 0; a < algorithms; ++a)
        if (const double ms = first_call[p * algorithms + a]; !std::isnan(ms)) {
          const std::string what =
              s.primitives[p] == primitive::scan
                  ? std::string(clscan::to_string(s.algorithms[a]))
                  : std::string(primitive_name(s.primitives[p])) + " " + clscan::to_string(s.algorithms[a]);
          std::fprintf(notes,
                       "first call of %s in this process (kernel build or cache load + call): %.1f ms\n",
                       what.c_str(), ms);
        }
    if (!env.marker_timestamps)
      std::fprintf(notes,
                   "note: the device gave no marker timestamps; scans were timed from a 4-byte copy\n");
    if (slow_host)
      std::fprintf(notes, "note: %zu rows took more than %.0f us of host time per enqueue\n", slow_host,
                   host_enqueue_target_us);
    std::fprintf(notes, "spacer before each timed call: a copy of %zu MiB, %.1f us on the device\n",
                 env.spacer_bytes / mib, env.spacer_us);
    if (host_bound)
      std::fprintf(notes,
                   "note: in %zu rows more than a tenth of the timed calls were still being enqueued when "
                   "the device reached them: their times may include host time\n",
                   host_bound);
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
