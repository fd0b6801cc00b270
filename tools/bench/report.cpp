// clscan-bench's output: the device header, and a row as a table line, a CSV line or a JSON object.
#include "bench.hpp"

#include "common/cli.hpp"
#include "common/json.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace clscan_bench {

std::string fmt(double v, int decimals) {
  if (std::isnan(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

const char* std_reference_name(primitive p, clscan::scan_kind kind, bool transform) {
  const bool inclusive = kind == clscan::scan_kind::inclusive;
  if (transform) return p == primitive::reduce ? "loop of f(x) and sum" : "loop of f(x) and scan";
  switch (p) {
  case primitive::scan: return inclusive ? "std::inclusive_scan" : "std::exclusive_scan";
  case primitive::select: return "std::copy_if";
  case primitive::partition: return "std::stable_partition";
  case primitive::unique: return "std::unique_copy";
  case primitive::by_key: return "scan-by-key loop";
  case primitive::reduce: return "std::accumulate";
  case primitive::reduce_by_key: return "reduce-by-key loop";
  case primitive::unique_by_key: return "unique-by-key loop";
  case primitive::run_length_encode: return "run-length loop";
  case primitive::inclusive_segmented: return "std::inclusive_scan per segment";
  case primitive::reduce_segmented: return "std::reduce per segment";
  case primitive::sort:
  case primitive::sort_by_key: return "std::stable_sort";
  }
  return "?";
}

void print_table_header(primitive p, clscan::scan_kind kind, bool transform) {
  // The time of a call other than a scan goes in the scan columns too; its header says what it is.
  const char* const time = p == primitive::scan ? "scan_us" : "call_us";
  const char* const rate = p == primitive::scan                                         ? "scan_GB/s"
                           : p == primitive::reduce || p == primitive::reduce_segmented ? "read_GB/s"
                                                                                        : "call_GB/s";
  // reduce's ratio is to a read of its input: half the copy's time.
  std::printf("%-10s %-6s %-5s %-12s %5s %12s %12s %9s %9s %7s %9s  %s\n", "n", "type",
              p == primitive::select || p == primitive::partition ? "pred" : "op", "algorithm", "reps", time,
              "copy_us", rate, "copy_GB/s",
              p == primitive::reduce || p == primitive::reduce_segmented ? "vs_read" : "ratio", "host_us",
              "verified");
  std::printf("%-10s (std_us: serial %s of the same input on this host's CPU%s)\n", "",
              std_reference_name(p, kind, transform),
              p == primitive::scan || p == primitive::by_key || p == primitive::reduce ||
                      p == primitive::reduce_by_key || p == primitive::inclusive_segmented ||
                      p == primitive::reduce_segmented
                  ? ", sums only"
                  : "");
  std::fflush(stdout);
}

void print_table_row(const row& r) {
  if (r.status == "error") {
    std::printf("%-10s %-6s %-5s %-12s  error: %s\n", clscan_tools::count_text(r.n, 1).c_str(),
                r.type.c_str(), r.op.c_str(), r.algorithm.c_str(), r.message.c_str());
  } else {
    std::printf("%-10s %-6s %-5s %-12s %5zu %12s %12s %9s %9s %7s %9s  %s  std_us %s\n",
                clscan_tools::count_text(r.n, 1).c_str(), r.type.c_str(), r.op.c_str(), r.algorithm.c_str(),
                r.reps, fmt(r.scan_us, 1).c_str(), fmt(r.copy_us, 1).c_str(), fmt(r.scan_gbps, 2).c_str(),
                fmt(r.copy_gbps, 2).c_str(), fmt(r.ratio, 3).c_str(), fmt(r.host_enqueue_us, 1).c_str(),
                r.status.c_str(), fmt(r.std_scan_us, 1).c_str());
    if (!std::isnan(r.keys_per_s)) std::printf("%-10s (%.3f G keys/s)\n", "", r.keys_per_s / 1e9);
    if (r.status == "FAIL") std::printf("    FAIL: %s\n", r.message.c_str());
  }
  std::fflush(stdout);
}

const char* const csv_header =
    "device,platform,driver,n,type,op,kind,algorithm,reps,buffers,scan_us,copy_us,scan_gbps,copy_gbps,"
    "ratio,host_enqueue_us,verified,error,std_scan_us,primitive,keys_per_s,transform";

void print_csv_row(const device_info& d, const row& r) {
  std::printf("%s,%s,%s,%zu,%s,%s,%s,%s,%zu,%zu,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
              csv_field(d.caps.name).c_str(), csv_field(d.caps.platform_name).c_str(),
              csv_field(d.caps.driver_version).c_str(), r.n, r.type.c_str(), csv_field(r.op).c_str(),
              r.kind.c_str(), r.algorithm.c_str(), r.reps, r.buffers, fmt(r.scan_us, 3).c_str(),
              fmt(r.copy_us, 3).c_str(), fmt(r.scan_gbps, 4).c_str(), fmt(r.copy_gbps, 4).c_str(),
              fmt(r.ratio, 4).c_str(), fmt(r.host_enqueue_us, 3).c_str(), r.status.c_str(),
              csv_field(r.message).c_str(), fmt(r.std_scan_us, 3).c_str(), r.primitive.c_str(),
              fmt(r.keys_per_s, 0).c_str(), csv_field(r.transform).c_str());
  std::fflush(stdout);
}

std::string json_row(const device_info& d, const row& r) {
  std::string out;
  clscan_tools::json_writer json(out, clscan_tools::json_writer::layout::one_line);
  json.begin_object();
  json.field("device", d.caps.name);
  json.field("platform", d.caps.platform_name);
  json.field("driver", d.caps.driver_version);
  json.field("primitive", r.primitive);
  json.field("n", r.n);
  json.field("type", r.type);
  json.text_or_null("op", r.op);
  json.text_or_null("kind", r.kind);
  json.text_or_null("transform", r.transform);
  json.field("algorithm", r.algorithm);
  json.field("reps", r.reps);
  json.field("buffers", r.buffers);
  json.field("scan_us", r.scan_us, 3);
  json.field("copy_us", r.copy_us, 3);
  json.field("scan_gbps", r.scan_gbps, 4);
  json.field("copy_gbps", r.copy_gbps, 4);
  json.field("ratio", r.ratio, 4);
  json.field("ratio_basis", r.ratio_basis);
  if (r.ratio_basis == "read") json.field("read_us", r.read_us, 3);
  json.field("host_enqueue_us", r.host_enqueue_us, 3);
  json.field("host_bound_reps", static_cast<std::uint64_t>(r.host_bound_reps));
  json.field("first_call_ms", r.first_call_ms, 3);
  json.field("std_scan_us", r.std_scan_us, 3);
  if (!std::isnan(r.keys_per_s)) json.field("keys_per_s", r.keys_per_s, 0);
  json.field("verified", r.status);
  json.text_or_null("error", r.message);
  json.end_object();
  return out;
}

void print_device_header(const device_info& d, std::FILE* out) {
  std::fprintf(out, "device:   %s\n", d.caps.name.c_str());
  std::fprintf(out, "platform: %s (%s)\n", d.caps.platform_name.c_str(), d.caps.platform_version.c_str());
  std::fprintf(out, "driver:   %s\n", d.caps.driver_version.c_str());
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

} // namespace clscan_bench
