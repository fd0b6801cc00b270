// Robustness of the calls beyond a single scan, each kind against the others:
//
//   - "[first-call]": whatever kind of call comes first in a process (so before any single-pass
//     verdict is known), every later call of every kind is exact. Each first kind runs in a child
//     process of its own (this executable again, on the hidden "[.first-call-child]" case) that
//     qualifies afresh (CLSCAN_QUALIFY=1), once as the device is and once with a look-back that is
//     wrong in work-groups of one work-item (-DCLSCAN_TEST_WRONG_LOOKBACK_WG=1), so that on CPU
//     devices the qualification rejects its preferred shape and takes the other, as on llvmpipe.
//   - "[references]": once a call's commands have ended, clscan holds no reference to any buffer the
//     caller passed (input, output, count, flags, keys, initial_on_device, parts): their
//     CL_MEM_REFERENCE_COUNT is what the test itself holds.
#include "support/environment.hpp"
#include "support/guarded.hpp"
#include "support/process.hpp"

#include <clscan/clscan.hpp>

#include <common/reference.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace clscan_test;
using clscan::algorithm;
using clscan::scan_kind;

namespace {

// Every kind of call, as the children name it (CLSCAN_FIRST_CALL).
const char* const call_kinds[] = {"inclusive", "exclusive",    "select_if",           "select_flagged",
                                  "unique",    "partition_if", "inclusive_by_key",    "exclusive_by_key",
                                  "reduce",    "parts",        "inclusive_segmented", "reduce_segmented"};

// The data of one run: small values (sums stay far from overflow), runs of equal values for unique,
// keys in segments of 1 to 3000 elements.
struct call_data {
  std::vector<cl_int> values;
  std::vector<cl_int> keys;
  std::vector<cl_uchar> flags;
};

call_data make_data(std::size_t n, std::uint64_t seed) {
  guarded::splitmix64 r{seed};
  call_data d;
  d.values.resize(n);
  d.keys.resize(n);
  d.flags.resize(n);
  cl_int key = 0;
  std::size_t left_in_segment = 0;
  for (std::size_t i = 0; i < n; ++i) {
    d.values[i] = r.next() % 3 == 0 && i > 0 ? d.values[i - 1] : static_cast<cl_int>(r.next() % 2001) - 1000;
    if (left_in_segment == 0) {
      ++key;
      left_in_segment = 1 + r.next() % 3000;
    }
    --left_in_segment;
    d.keys[i] = key;
    d.flags[i] = static_cast<cl_uchar>(r.next() % 2);
  }
  return d;
}

template <typename T>
cl::Buffer upload(const cl::Context& context, const cl::CommandQueue& queue, const std::vector<T>& data) {
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, std::max<std::size_t>(data.size(), 1) * sizeof(T));
  if (!data.empty())
    REQUIRE(queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, data.size() * sizeof(T), data.data()) == CL_SUCCESS);
  return buffer;
}

template <typename T>
std::vector<T> download(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t n) {
  std::vector<T> data(n);
  if (n) REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(T), data.data()) == CL_SUCCESS);
  return data;
}

cl_uint reference_count(const cl::Buffer& buffer) {
  cl_uint count = 0;
  REQUIRE(clGetMemObjectInfo(buffer(), CL_MEM_REFERENCE_COUNT, sizeof count, &count, nullptr) == CL_SUCCESS);
  return count;
}

// The reference count once the implementation has retired the call's commands: rusticl drops a
// completed command's references on a thread of its own shortly after its event completes (and after
// clFinish returns), so a count above 1 is read again for up to two seconds. A reference a kernel or
// anything else of clscan's keeps stays.
cl_uint settled_reference_count(const cl::Buffer& buffer) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  cl_uint count = reference_count(buffer);
  while (count > 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    count = reference_count(buffer);
  }
  return count;
}

// "" when `got` equals `expected`, else where they first differ and how many differ.
template <typename T> std::string compare(const std::vector<T>& expected, const std::vector<T>& got) {
  if (expected.size() != got.size())
    return std::to_string(got.size()) + " elements instead of " + std::to_string(expected.size());
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!(expected[i] == got[i]) && wrong++ == 0) first = i;
  if (!wrong) return {};
  return std::to_string(wrong) + " elements wrong, first at index " + std::to_string(first) + " (expected " +
         std::to_string(expected[first]) + ", got " + std::to_string(got[first]) + ")";
}

// One call of `kind` on fresh buffers of `context`, poisoned outputs, the result compared exactly with
// the host's. The buffers the call was given are returned in `given` (with the event released and the
// queue finished) for the reference-count test. Returns "" when right.
std::string run_call(const std::string& kind, algorithm algo, const cl::Context& context,
                     const cl::CommandQueue& queue, const call_data& d, std::vector<cl::Buffer>* given) {
  const std::size_t n = d.values.size();
  const cl_int poison = poison_value<cl_int>();
  const cl::Buffer in = upload(context, queue, d.values);
  const cl::Buffer out = upload(context, queue, std::vector<cl_int>(n, poison));
  const cl::Buffer count = upload(context, queue, std::vector<cl_ulong>(1, poison_value<cl_ulong>()));
  std::vector<cl::Buffer> buffers{in, out};
  std::vector<cl_int> expected, got;
  std::optional<cl_ulong> expected_count;
  {
    cl::Event done;
    clscan::select_options<cl_int> select;
    select.algorithm = algo;
    clscan::options<cl_int> scan;
    scan.algorithm = algo;
    if (kind == "inclusive" || kind == "exclusive") {
      const scan_kind sk = kind == "inclusive" ? scan_kind::inclusive : scan_kind::exclusive;
      // The initial value from the device, so that its buffer is one the call is given too.
      const cl_int initial = 7;
      const cl::Buffer initial_buffer = upload(context, queue, std::vector<cl_int>{initial});
      scan.initial_on_device = clscan::device_value{initial_buffer, 0};
      buffers.push_back(initial_buffer);
      done = sk == scan_kind::inclusive ? clscan::inclusive(queue, in, out, n, scan)
                                        : clscan::exclusive(queue, in, out, n, scan);
      expected = clscan_reference::scan(d.values, sk, clscan::op::sum, std::optional<cl_int>(initial));
    } else if (kind == "select_if" || kind == "partition_if") {
      select.predicate = "x > 0";
      buffers.push_back(count);
      done = kind == "select_if" ? clscan::select_if(queue, in, out, count, n, select)
                                 : clscan::partition_if(queue, in, out, count, n, select);
      std::copy_if(d.values.begin(), d.values.end(), std::back_inserter(expected),
                   [](cl_int x) { return x > 0; });
      expected_count = expected.size();
      if (kind == "partition_if")
        std::copy_if(d.values.begin(), d.values.end(), std::back_inserter(expected),
                     [](cl_int x) { return !(x > 0); });
    } else if (kind == "select_flagged") {
      const cl::Buffer flags = upload(context, queue, d.flags);
      buffers.push_back(count);
      buffers.push_back(flags);
      done = clscan::select_flagged(queue, in, flags, out, count, n, select);
      for (std::size_t i = 0; i < n; ++i)
        if (d.flags[i]) expected.push_back(d.values[i]);
      expected_count = expected.size();
    } else if (kind == "unique") {
      buffers.push_back(count);
      done = clscan::unique(queue, in, out, count, n, select);
      for (std::size_t i = 0; i < n; ++i)
        if (i == 0 || d.values[i] != d.values[i - 1]) expected.push_back(d.values[i]);
      expected_count = expected.size();
    } else if (kind == "inclusive_by_key" || kind == "exclusive_by_key") {
      const scan_kind sk = kind == "inclusive_by_key" ? scan_kind::inclusive : scan_kind::exclusive;
      const cl::Buffer keys = upload(context, queue, d.keys);
      buffers.push_back(keys);
      done = sk == scan_kind::inclusive
                 ? clscan::inclusive_by_key<cl_int, cl_int>(queue, keys, in, out, n, scan)
                 : clscan::exclusive_by_key<cl_int, cl_int>(queue, keys, in, out, n, scan);
      expected = clscan_reference::scan_by_key(d.keys, d.values, sk, clscan::op::sum);
    } else if (kind == "inclusive_segmented" || kind == "reduce_segmented") {
      // The keys' segments, given as CSR offsets.
      std::vector<cl_uint> offsets;
      for (std::size_t i = 0; i < n; ++i)
        if (i == 0 || d.keys[i] != d.keys[i - 1]) offsets.push_back(static_cast<cl_uint>(i));
      offsets.push_back(static_cast<cl_uint>(n));
      const std::size_t segments = offsets.size() - 1;
      const cl::Buffer offsets_buffer = upload(context, queue, offsets);
      buffers.push_back(offsets_buffer);
      clscan::segmented_options<cl_int> segmented;
      segmented.algorithm = algo;
      const bool reduce = kind == "reduce_segmented";
      done = reduce ? clscan::reduce_segmented<cl_int>(queue, in, out, n, offsets_buffer, segments, segmented)
                    : clscan::inclusive_segmented<cl_int>(queue, in, out, n, offsets_buffer, segments,
                                                          segmented);
      expected = clscan_reference::scan_by_key(d.keys, d.values, scan_kind::inclusive, clscan::op::sum);
      if (reduce) {
        std::vector<cl_int> totals(segments);
        for (std::size_t s = 0; s < segments; ++s)
          totals[s] = expected[offsets[s + 1] - 1];
        expected = totals;
      }
    } else if (kind == "reduce") {
      const cl_int initial = -3;
      const cl::Buffer initial_buffer = upload(context, queue, std::vector<cl_int>{initial});
      scan.initial_on_device = clscan::device_value{initial_buffer, 0};
      buffers.push_back(initial_buffer);
      done = clscan::reduce(queue, in, out, n, scan);
      cl_int total = initial;
      for (const cl_int x : d.values)
        total = clscan_reference::wrapping_sum(total, x);
      expected = {total};
    } else if (kind == "parts") {
      // Two parts on this queue, the second a buffer of its own: the first part is `in`, scanned in place.
      const std::size_t first = n / 3;
      const std::vector<cl_int> second_values(d.values.begin() + static_cast<std::ptrdiff_t>(first),
                                              d.values.end());
      const cl::Buffer second = upload(context, queue, second_values);
      buffers = {in, second};
      std::vector<clscan::part> parts{{queue, in, first, 0}, {queue, second, n - first, 0}};
      clscan::options<cl_int> part_options;
      for (const cl::Event& e : clscan::inclusive(parts, part_options))
        REQUIRE(e.wait() == CL_SUCCESS);
      expected = clscan_reference::scan(d.values, scan_kind::inclusive, clscan::op::sum);
      got = download<cl_int>(queue, in, first);
      const std::vector<cl_int> tail = download<cl_int>(queue, second, n - first);
      got.insert(got.end(), tail.begin(), tail.end());
    } else {
      FAIL("unknown call kind " << kind);
    }
    if (done()) REQUIRE(done.wait() == CL_SUCCESS);
  } // the event is released here
  REQUIRE(queue.finish() == CL_SUCCESS);
  if (kind != "parts") got = download<cl_int>(queue, out, expected.size());
  if (given) *given = buffers;
  std::string problem = compare(expected, got);
  if (expected_count) {
    const cl_ulong k = download<cl_ulong>(queue, count, 1)[0];
    if (k != *expected_count)
      problem += (problem.empty() ? "" : "; ") + std::string("count ") + std::to_string(k) + " instead of " +
                 std::to_string(*expected_count);
  }
  return problem;
}

std::string algorithm_name(algorithm algo) {
  return algo == algorithm::automatic     ? "automatic"
         : algo == algorithm::three_stage ? "three_stage"
                                          : "single_pass";
}

} // namespace

// Run with CLSCAN_FIRST_CALL=<kind>: that kind first, on three_stage where it can be chosen (reduce and
// partition_if have no choice), then every kind on automatic. Prints "result: ok" when all are exact.
TEST_CASE("first call child: one kind first then every kind", "[.first-call-child]") {
  const char* first = std::getenv("CLSCAN_FIRST_CALL");
  REQUIRE(first);
  const std::size_t n = 600'000; // beyond the tiles of every shape on PoCL and llvmpipe
  const call_data d = make_data(n, 0xf1257ca11ull);
  const cl::Device device = clscan::select_device();
  const cl::Context context(device);
  const cl::CommandQueue queue(context, device);
  std::vector<std::string> problems;
  const std::string first_kind = first;
  const algorithm first_algo = first_kind == "reduce" || first_kind == "partition_if" || first_kind == "parts"
                                   ? algorithm::automatic
                                   : algorithm::three_stage;
  if (std::string p = run_call(first_kind, first_algo, context, queue, d, nullptr); !p.empty())
    problems.push_back("first " + first_kind + " (" + algorithm_name(first_algo) + "): " + p);
  for (const char* kind : call_kinds)
    if (std::string p = run_call(kind, algorithm::automatic, context, queue, d, nullptr); !p.empty())
      problems.push_back(std::string("then ") + kind + " (automatic): " + p);
  const clscan::dispatch_plan plan = clscan::plan_for(device, clscan::element_type::int32);
  std::cout << "first-call: " << first_kind << " first; single-pass " << plan.single_pass_qualification
            << std::endl;
  for (const std::string& p : problems)
    std::cout << "problem: " << p << std::endl;
  std::cout << "result: " << (problems.empty() ? "ok" : "wrong") << std::endl;
  CHECK(problems.empty());
}

TEST_CASE("first call: whatever kind comes first, every later call of every kind is exact", "[first-call]") {
  temp_dir work;
  // Programs are shared through one disk cache; every child qualifies afresh (CLSCAN_QUALIFY=1), so
  // each starts without a verdict, as a first process on a machine does.
  const std::string cache = (work.path() / "cache").string();
  for (const bool broken_single_item_groups : {false, true}) {
    for (const char* first : call_kinds) {
      child_spec spec;
      spec.command = {self_executable(), "first call child: one kind first then every kind"};
      spec.env["CLSCAN_FIRST_CALL"] = std::string(first);
      spec.env["CLSCAN_QUALIFY"] = std::string("1");
      spec.env["CLSCAN_CACHE_DIR"] = cache;
      spec.env["CLSCAN_BUILD_OPTIONS"] =
          broken_single_item_groups
              ? std::optional<std::string>("-DCLSCAN_TEST_WRONG_LOOKBACK -DCLSCAN_TEST_WRONG_LOOKBACK_WG=1")
              : std::nullopt;
      const child_result result = run_child(spec, work.path());
      INFO((broken_single_item_groups ? "look-back wrong in one-work-item groups, " : "as the device is, ")
           << first << " first:\n"
           << result.output);
      CHECK(result.ok());
    }
  }
}

TEST_CASE("buffers: no call keeps a caller's buffer referenced once its commands have ended",
          "[references]") {
  const environment& e = env();
  // Tiles of every shape: one tile, several, and beyond a CPU's 1 MiB single-pass tiles.
  for (const std::size_t n : {std::size_t{1000}, std::size_t{70'000}, std::size_t{600'000}}) {
    const call_data d = make_data(n, 0x5ef5ull + n);
    for (const char* kind : call_kinds) {
      std::vector<algorithm> algos{algorithm::automatic};
      const std::string k = kind;
      if (k != "reduce" && k != "parts") algos.push_back(algorithm::three_stage);
      if (k != "reduce" && k != "parts" && k != "partition_if" &&
          clscan::qualify_single_pass(e.device, clscan::element_type::int32).passed)
        algos.push_back(algorithm::single_pass);
      for (const algorithm algo : algos) {
        INFO(kind << ", " << algorithm_name(algo) << ", n = " << n << " on " << e.device_name);
        std::vector<cl::Buffer> given;
        CHECK(run_call(kind, algo, e.context, e.queue, d, &given) == "");
        for (std::size_t b = 0; b < given.size(); ++b) {
          INFO("buffer " << b << " of the call (0: input, 1: output, then count, flags, keys, initial)");
          CHECK(settled_reference_count(given[b]) == 1);
        }
      }
    }
  }
}

TEST_CASE("buffers: no sort keeps a caller's buffer referenced once its commands have ended",
          "[references]") {
  const environment& e = env();
  for (const std::size_t n : {std::size_t{1000}, std::size_t{70'000}}) {
    std::vector<cl_uint> keys(n), values(n);
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = static_cast<cl_uint>((i * 2654435761u) ^ (i >> 3));
      values[i] = static_cast<cl_uint>(i);
    }
    const std::size_t bytes = n * sizeof(cl_uint);
    for (const char* call : {"sort", "sort_by_key", "sorted_order"}) {
      INFO(call << ", n = " << n << " on " << e.device_name);
      cl::Buffer keys_in(e.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, keys.data());
      cl::Buffer values_in(e.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, values.data());
      cl::Buffer keys_out(e.context, CL_MEM_READ_WRITE, bytes);
      cl::Buffer values_out(e.context, CL_MEM_READ_WRITE, bytes);
      const std::string c = call;
      if (c == "sort")
        clscan::sort<cl_uint>(e.queue, keys_in, keys_out, n);
      else if (c == "sort_by_key")
        clscan::sort_by_key<cl_uint, cl_uint>(e.queue, keys_in, values_in, keys_out, values_out, n);
      else
        clscan::sorted_order<cl_uint, cl_uint>(e.queue, keys_in, values_out, n);
      e.queue.finish();
      std::vector<cl_uint> sorted(n);
      e.queue.enqueueReadBuffer(c == "sorted_order" ? keys_in : keys_out, CL_TRUE, 0, bytes, sorted.data());
      if (c != "sorted_order") CHECK(std::is_sorted(sorted.begin(), sorted.end()));
      for (const cl::Buffer* b : {&keys_in, &values_in, &keys_out, &values_out})
        CHECK(settled_reference_count(*b) == 1);
    }
  }
}
