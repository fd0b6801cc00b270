// clscan-info --self-test: exact inclusive and exclusive cl_int sum scans, in place and out of place,
// on every device, checked against the host reference (tools/common/reference.hpp); then the
// selections and scans by key of every element type (self_test_primitives.hpp) and the sorts of every
// key type (self_test_sort.hpp).
#include "info.hpp"
#include "self_test_primitives.hpp"
#include "self_test_sort.hpp"

#include "common/opencl.hpp"
#include "common/reference.hpp"
#include "common/timing.hpp"

#include <clscan/names.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace clscan_info {
namespace {

using clscan_tools::check;
using clscan_tools::json_writer;

struct check_failure {
  std::size_t n = 0;
  std::string what;
};

struct self_test_result {
  std::size_t platform = 0;
  std::size_t device = 0;
  std::string name;
  clscan::algorithm algo = clscan::algorithm::automatic;
  std::size_t checks = 0;
  std::size_t passed = 0;
  std::vector<check_failure> failures;
  std::vector<std::size_t> sizes;
  std::vector<std::pair<std::string, std::vector<std::size_t>>> primitive_sizes; // per element type
  std::vector<std::string> skipped;
  std::string error;   // an exception ended the run on this device
  std::string running; // the check that was under way when it did, where known
  double milliseconds = 0;
  bool ok() const { return error.empty() && failures.empty() && passed == checks && checks > 0; }
};

// The first difference between `got` and `expected`, or an empty string.
std::string first_difference(const std::vector<cl_int>& got, const std::vector<cl_int>& expected) {
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (got[i] != expected[i] && wrong++ == 0) first = i;
  if (!wrong) return {};
  return std::to_string(wrong) + " elements wrong, first at index " + std::to_string(first) + ": expected " +
         std::to_string(expected[first]) + ", got " + std::to_string(got[first]);
}

std::vector<std::size_t> self_test_sizes(std::size_t tile) {
  std::vector<std::size_t> sizes = {1, 1000, tile + 1, std::size_t{1} << 20, (std::size_t{1} << 22) + 3};
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

self_test_result self_test(const platform_entry& platform, const device_entry& entry, clscan::algorithm algo,
                           const self_test_calls& calls) {
  self_test_result result;
  result.platform = platform.index;
  result.device = entry.index;
  result.name = entry.name;
  result.algo = algo;
  const clscan_tools::stopwatch watch;
  progress_begin(entry.name + ", " + clscan::to_string(algo));
  try {
    const cl::Device device(entry.id, true);
    const clscan::device_capabilities caps = clscan::capabilities(device);
    const clscan::dispatch_plan plan = clscan::plan_for(device, clscan::element_type::int32);
    const clscan::tuning& shape =
        algo == clscan::algorithm::single_pass ? plan.single_pass : plan.three_stage;
    if (calls.scans) result.sizes = self_test_sizes(shape.work_group_size * shape.items_per_thread);

    const clscan_tools::device_queue dq = clscan_tools::make_queue(device);
    const cl::Context& context = dq.context;
    const cl::CommandQueue& queue = dq.queue;

    clscan::options<cl_int> opts;
    opts.algorithm = algo;
    for (const std::size_t n : result.sizes) {
      result.running.clear();
      const std::size_t bytes = n * sizeof(cl_int);
      if (bytes > caps.max_mem_alloc_size || 2 * bytes > caps.global_mem_size) {
        result.skipped.push_back("n = " + std::to_string(n) + ": larger than the device can allocate");
        continue;
      }
      std::mt19937 random(static_cast<std::mt19937::result_type>(n * 2654435761u + 17));
      std::uniform_int_distribution<cl_int> values(std::numeric_limits<cl_int>::min(),
                                                   std::numeric_limits<cl_int>::max());
      std::vector<cl_int> data(n);
      for (cl_int& value : data)
        value = values(random);
      const std::vector<cl_int> inclusive =
          clscan_reference::scan(data, clscan::scan_kind::inclusive, clscan::op::sum);
      const std::vector<cl_int> exclusive =
          clscan_reference::scan(data, clscan::scan_kind::exclusive, clscan::op::sum);

      const cl::Buffer in = clscan_tools::make_buffer(context, bytes);
      const cl::Buffer out = clscan_tools::make_buffer(context, bytes);
      std::vector<cl_int> got(n);

      struct variant {
        clscan::scan_kind kind;
        bool in_place;
      };
      for (const variant v :
           {variant{clscan::scan_kind::inclusive, true}, variant{clscan::scan_kind::exclusive, true},
            variant{clscan::scan_kind::inclusive, false}, variant{clscan::scan_kind::exclusive, false}}) {
        const bool inclusive_kind = v.kind == clscan::scan_kind::inclusive;
        const std::string what = std::string(inclusive_kind ? "inclusive" : "exclusive") +
                                 (v.in_place ? " in place" : " out of place") + ", n = " + std::to_string(n);
        result.running = what;
        progress_note(what);
        check(queue.enqueueWriteBuffer(in, CL_TRUE, 0, bytes, data.data()), "clEnqueueWriteBuffer");
        cl::Event done;
        if (v.in_place)
          done =
              inclusive_kind ? clscan::inclusive(queue, in, n, opts) : clscan::exclusive(queue, in, n, opts);
        else
          done = inclusive_kind ? clscan::inclusive(queue, in, out, n, opts)
                                : clscan::exclusive(queue, in, out, n, opts);
        check(done.wait(), "clWaitForEvents");
        check(queue.enqueueReadBuffer(v.in_place ? in : out, CL_TRUE, 0, bytes, got.data()),
              "clEnqueueReadBuffer");
        ++result.checks;
        std::string difference = first_difference(got, inclusive_kind ? inclusive : exclusive);
        if (difference.empty() && !v.in_place) {
          check(queue.enqueueReadBuffer(in, CL_TRUE, 0, bytes, got.data()), "clEnqueueReadBuffer");
          if (got != data) difference = "the input buffer was modified";
        }
        if (difference.empty()) {
          ++result.passed;
        } else {
          std::string failure = what;
          failure.append(": ").append(difference);
          result.failures.push_back({n, failure});
        }
      }
    }
    result.running.clear();

    if (calls.selections || calls.by_key) {
      primitive_self_test::report primitives;
      // What the selections and scans by key found, also when one of them threw.
      const auto take_primitives = [&] {
        result.checks += primitives.checks;
        result.passed += primitives.passed;
        for (std::string& failure : primitives.failures)
          result.failures.push_back({0, std::move(failure)});
        result.skipped.insert(result.skipped.end(), primitives.skipped.begin(), primitives.skipped.end());
        result.primitive_sizes = std::move(primitives.sizes);
        result.running = primitives.running;
      };
      try {
        primitive_self_test::run(device, caps, context, queue, algo, calls.selections, calls.by_key,
                                 primitives);
      } catch (...) {
        take_primitives();
        throw;
      }
      take_primitives();
    }

    if (calls.sort) {
      primitive_self_test::report sorts;
      const auto take_sorts = [&] {
        result.checks += sorts.checks;
        result.passed += sorts.passed;
        for (std::string& failure : sorts.failures)
          result.failures.push_back({0, std::move(failure)});
        result.skipped.insert(result.skipped.end(), sorts.skipped.begin(), sorts.skipped.end());
        result.running = sorts.running;
      };
      try {
        sort_self_test::run(caps, context, queue, algo, sorts);
      } catch (...) {
        take_sorts();
        throw;
      }
      take_sorts();
    }
  } catch (const std::exception& e) {
    result.error = describe(e);
  }
  result.milliseconds = watch.milliseconds();
  progress_end(result.ok());
  return result;
}

// What --calls chose, in words: "cl_int sum scans; selections and scans by key of every type".
std::string calls_text(const self_test_calls& calls) {
  std::string text = calls.scans ? "cl_int sum scans" : "";
  const char* others = calls.selections && calls.by_key ? "selections and scans by key of every type"
                       : calls.selections               ? "selections of every type"
                       : calls.by_key                   ? "scans by key of every type"
                                                        : nullptr;
  if (others) text += (text.empty() ? "" : "; ") + std::string(others);
  if (calls.sort) text += (text.empty() ? "" : "; ") + std::string("sorts of every key type");
  return text;
}

void print_self_test_header(const machine& m, const self_test_calls& calls) {
  const std::string cache = m.cache.state == cache_state::off
                                ? cache_state_text(m.cache)
                                : m.cache.directory + ", " + cache_state_text(m.cache);
  std::printf("clscan %s self-test (%s; disk cache: %s)\n", CLSCAN_VERSION_STRING, calls_text(calls).c_str(),
              cache.c_str());
  if (!m.error.empty()) std::printf("error: %s\n", m.error.c_str());
  if (m.selected_only && !m.selection_error.empty())
    std::printf("error: select_device(): %s\n", m.selection_error.c_str());
  for (const platform_entry& platform : m.platforms)
    if (!platform.error.empty())
      std::printf("platform %zu (%s): error: %s\n", platform.index, platform.name.c_str(),
                  platform.error.c_str());
  std::fflush(stdout);
}

void print_self_test_result(const self_test_result& r) {
  std::printf("platform %zu device %zu (%s), algorithm %s: ", r.platform, r.device, r.name.c_str(),
              clscan::to_string(r.algo));
  const std::string where = r.running.empty() ? std::string() : "in " + r.running + " ";
  if (!r.error.empty())
    std::printf("ERROR %safter %zu of %zu checks passed, %.1f ms\n    %s\n", where.c_str(), r.passed,
                r.checks, r.milliseconds, indent_lines(r.error, "    ").c_str());
  else if (!r.failures.empty())
    std::printf("FAIL: %zu of %zu checks wrong, %.1f ms\n", r.failures.size(), r.checks, r.milliseconds);
  else
    std::printf("PASS: %zu checks, %.1f ms\n", r.checks, r.milliseconds);
  if (!r.sizes.empty()) {
    std::printf("    sizes:");
    for (std::size_t n : r.sizes)
      std::printf(" %zu", n);
    std::printf("\n");
  }
  // One line per set of sizes, naming the types that ran at it (types of one width share their tiles).
  std::vector<std::pair<std::string, std::vector<std::size_t>>> lines;
  for (const auto& entry : r.primitive_sizes) {
    auto line =
        std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.second == entry.second; });
    if (line == lines.end())
      lines.push_back(entry);
    else
      line->first += " " + entry.first;
  }
  for (const auto& [types, sizes] : lines) {
    std::printf("    selection and by-key sizes (%s):", types.c_str());
    for (std::size_t n : sizes)
      std::printf(" %zu", n);
    std::printf("\n");
  }
  for (const check_failure& f : r.failures)
    std::printf("    wrong: %s\n", f.what.c_str());
  for (const std::string& s : r.skipped)
    std::printf("    skipped: %s\n", s.c_str());
  std::fflush(stdout);
}

void print_self_test_summary(const std::vector<self_test_result>& results) {
  std::size_t passed = 0;
  for (const self_test_result& r : results)
    passed += r.ok() ? 1 : 0;
  std::printf("self-test: %zu passed, %zu failed\n", passed, results.size() - passed);
}

void print_self_test_json(const std::vector<self_test_result>& results, const machine& m,
                          const self_test_calls& calls) {
  std::string out;
  json_writer json(out);
  json.begin_object();
  write_json_header(json, m);
  json.key("calls");
  json.begin_array();
  if (calls.scans) json.value("scans");
  if (calls.selections) json.value("select");
  if (calls.by_key) json.value("by_key");
  if (calls.sort) json.value("sort");
  json.end_array();
  json.key("platform_errors");
  json.begin_array();
  for (const platform_entry& platform : m.platforms)
    if (!platform.error.empty()) {
      json.begin_object();
      json.field("platform", static_cast<unsigned long long>(platform.index));
      json.field("name", platform.name);
      json.field("error", platform.error);
      json.end_object();
    }
  json.end_array();
  bool all_ok = m.error.empty() && !results.empty();
  json.key("results");
  json.begin_array();
  for (const self_test_result& r : results) {
    all_ok = all_ok && r.ok();
    json.begin_object();
    json.field("platform", static_cast<unsigned long long>(r.platform));
    json.field("device", static_cast<unsigned long long>(r.device));
    json.field("name", r.name);
    json.field("algorithm", clscan::to_string(r.algo));
    json.field("status", !r.error.empty() ? "error" : r.ok() ? "pass" : "fail");
    json.field("checks", static_cast<unsigned long long>(r.checks));
    json.field("passed", static_cast<unsigned long long>(r.passed));
    json.field("milliseconds", r.milliseconds);
    json.key("sizes");
    json.begin_array();
    for (std::size_t n : r.sizes)
      json.value(static_cast<unsigned long long>(n));
    json.end_array();
    // The selections' and scans by key's sizes, per element type.
    json.key("primitive_sizes");
    json.begin_object();
    for (const auto& [type, sizes] : r.primitive_sizes) {
      json.key(type);
      json.begin_array();
      for (std::size_t n : sizes)
        json.value(static_cast<unsigned long long>(n));
      json.end_array();
    }
    json.end_object();
    json.key("failures");
    json.begin_array();
    for (const check_failure& f : r.failures)
      json.value(f.what);
    json.end_array();
    json.key("skipped");
    json.begin_array();
    for (const std::string& s : r.skipped)
      json.value(s);
    json.end_array();
    if (!r.error.empty()) json.field("error", r.error);
    if (!r.error.empty() && !r.running.empty()) json.field("error_in", r.running);
    json.end_object();
  }
  json.end_array();
  json.field("ok", all_ok);
  json.end_object();
  std::fputs(out.c_str(), stdout);
}

} // namespace

int run_self_tests(const machine& m, const std::vector<clscan::algorithm>& algorithms,
                   const self_test_calls& calls, bool json) {
  std::vector<self_test_result> results;
  if (!json) print_self_test_header(m, calls);
  for (const platform_entry& platform : m.platforms)
    for (const device_entry& device : platform.devices)
      for (const clscan::algorithm algo : algorithms) {
        results.push_back(self_test(platform, device, algo, calls));
        if (!json) print_self_test_result(results.back()); // as it comes: a slow device is no hang
      }
  if (json)
    print_self_test_json(results, m, calls);
  else
    print_self_test_summary(results);
  bool ok = m.error.empty() && !results.empty();
  for (const platform_entry& platform : m.platforms)
    ok = ok && platform.error.empty();
  for (const self_test_result& r : results)
    ok = ok && r.ok();
  return ok ? 0 : 1;
}

} // namespace clscan_info
