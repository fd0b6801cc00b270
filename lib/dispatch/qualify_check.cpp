// The single-pass qualification's check scans: a few scans of several tiles per launch-shape
// candidate, in each shape's size class, compared exactly with a host scan.
#include "qualify_check.hpp"

#include "tuning.hpp"

#include <clscan/cache.hpp>
#include <clscan/scan.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <type_traits>
#include <vector>

namespace clscan::detail {
namespace {

// Set while this thread runs check scans, which must not qualify again.
thread_local bool inside_qualification = false;

// One check run: n elements in one size class. Each single-pass shape of the device runs several tiles
// with a partial last one: the large-input shape, and on GPUs the small-input shape too. The size class
// is forced (size_class_under_test), so the large shape is checked without inputs of its class's size
// (16 MiB and more on GPUs).
struct check_run {
  std::size_t n;
  bool small_inputs;
};

std::vector<check_run> check_runs(const device_capabilities& caps, element_type type) {
  std::vector<check_run> runs;
  const tuning large = initial_tuning(caps, type, algorithm::single_pass);
  const std::size_t large_tile = large.work_group_size * large.items_per_thread;
  runs.push_back({2 * large_tile + large_tile / 2 + 3, false});
  if (small_input_bytes(caps, algorithm::single_pass)) {
    const tuning small = initial_tuning(caps, type, algorithm::single_pass, true);
    const std::size_t small_tile = small.work_group_size * small.items_per_thread;
    runs.push_back({3 * small_tile + small_tile / 3 + 1, true});
  }
  return runs;
}

// The size class a qualification's own scan runs in, on the thread that runs it.
thread_local std::optional<bool> class_under_test;

template <typename T> std::vector<T> check_input(std::size_t n) {
  std::vector<T> data(n);
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  for (auto& value : data) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    value = static_cast<T>(static_cast<std::int64_t>(state % 2001) - 1000);
  }
  return data;
}

// Describes the first difference, or returns empty when `got` equals `expected`.
template <typename T>
std::string compare(const std::vector<T>& expected, const std::vector<T>& got, const char* what,
                    std::size_t n) {
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != got[i]) {
      std::size_t wrong = 0;
      for (std::size_t j = i; j < expected.size(); ++j)
        wrong += expected[j] != got[j];
      return std::string(what) + ", n = " + std::to_string(n) + ": " + std::to_string(wrong) +
             " elements wrong, first at index " + std::to_string(i);
    }
  return {};
}

// Runs the check scans of one candidate on a context of its own; returns the first failure, or empty.
// What clscan cached for the check's own context (its programs stay in the disk cache) is dropped
// when the check ends, however it ends: the context is not kept alive by clscan's cache.
struct release_on_exit {
  const cl::Context& context;
  ~release_on_exit() {
    try {
      release_cached_resources(context);
    } catch (...) { // NOLINT(bugprone-empty-catch): nothing is left to release then
    }
  }
};

// On GPUs, given the caller's context, the check runs there: its programs are the ones the caller's
// scans load next, and a context of its own costs more than the check (100 ms on NVIDIA). CPU
// candidates change the launch shape, which a workspace keeps once chosen, so they get their own.
template <typename T>
std::string check_candidate(const device_capabilities& caps, element_type type, const cl::Context* shared,
                            double& context_ms) {
  const cl::Device device(caps.id, true);
  const auto start = std::chrono::steady_clock::now();
  const bool own_context = !shared || !caps.is_gpu();
  const cl::Context context = own_context ? cl::Context(device) : *shared;
  const cl::CommandQueue queue(context, device);
  context_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const std::optional<release_on_exit> release =
      own_context ? std::optional<release_on_exit>(std::in_place, release_on_exit{context}) : std::nullopt;
  options<T> opts;
  opts.algorithm = algorithm::single_pass;
  for (const check_run& run : check_runs(caps, type)) {
    const std::size_t n = run.n;
    class_under_test = run.small_inputs;
    const std::vector<T> input = check_input<T>(n);
    // The sums wrap like the kernels' (as unsigned), so that the comparison is exact.
    using U = std::make_unsigned_t<T>;
    std::vector<T> inclusive_expected(n), exclusive_expected(n);
    U running = 0;
    for (std::size_t i = 0; i < n; ++i) {
      exclusive_expected[i] = static_cast<T>(running);
      running = static_cast<U>(running + static_cast<U>(input[i]));
      inclusive_expected[i] = static_cast<T>(running);
    }
    const std::size_t bytes = n * sizeof(T);
    cl::Buffer in(context, CL_MEM_READ_WRITE, bytes);
    cl::Buffer out(context, CL_MEM_READ_WRITE, bytes);
    const std::vector<T> poison(n, static_cast<T>(0x5a5a5a5a));
    queue.enqueueWriteBuffer(in, CL_TRUE, 0, bytes, input.data());
    queue.enqueueWriteBuffer(out, CL_TRUE, 0, bytes, poison.data());
    std::vector<T> got(n);
    inclusive<T>(queue, in, out, n, opts);
    queue.enqueueReadBuffer(out, CL_TRUE, 0, bytes, got.data());
    if (std::string wrong = compare(inclusive_expected, got, "inclusive out of place", n); !wrong.empty())
      return wrong;
    exclusive<T>(queue, in, n, opts);
    queue.enqueueReadBuffer(in, CL_TRUE, 0, bytes, got.data());
    if (std::string wrong = compare(exclusive_expected, got, "exclusive in place", n); !wrong.empty())
      return wrong;
  }
  return {};
}

} // namespace

std::string describe(const tuning& shape) {
  return "wg=" + std::to_string(shape.work_group_size) + ",items=" + std::to_string(shape.items_per_thread) +
         ",vec=" + std::to_string(shape.vector_width) + ",lookback=" + std::to_string(shape.lookback);
}

bool inside_check_scans() { return inside_qualification; }

std::optional<bool> size_class_under_test(algorithm algo) {
  return algo == algorithm::single_pass && inside_qualification ? class_under_test : std::nullopt;
}

single_pass_qualification run_check_scans(const device_capabilities& caps, element_type type,
                                          const cl::Context* context,
                                          const std::function<void(single_pass_candidate)>& trying) {
  const element_type check_type = size_of(type) == 8 ? element_type::int64 : element_type::int32;
  single_pass_qualification verdict;
  verdict.checked = true;
  const auto start = std::chrono::steady_clock::now();
  std::string failures;
  double context_ms = 0;
  const std::size_t candidates = caps.is_gpu() ? 1 : 2;
  for (std::size_t k = 0; k < candidates; ++k) {
    trying(static_cast<single_pass_candidate>(k));
    std::string wrong;
    inside_qualification = true;
    try {
      wrong = check_type == element_type::int64
                  ? check_candidate<cl_long>(caps, check_type, context, context_ms)
                  : check_candidate<cl_int>(caps, check_type, context, context_ms);
    } catch (const std::exception& e) {
      wrong = std::string("error: ") + e.what();
    }
    inside_qualification = false;
    class_under_test.reset();
    const std::string shape = describe(initial_tuning(caps, check_type, algorithm::single_pass));
    if (wrong.empty()) {
      verdict.passed = true;
      verdict.candidate = k;
      verdict.detail = shape;
      if (!failures.empty()) verdict.detail.append("; ").append(failures);
      break;
    }
    failures.append(failures.empty() ? "" : "; ").append(shape).append(": ").append(wrong);
  }
  if (!verdict.passed) verdict.detail = failures;
  verdict.context_milliseconds = context_ms;
  verdict.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return verdict;
}

} // namespace clscan::detail
