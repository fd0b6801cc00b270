#include "qualify.hpp"

#include "algorithms/single_pass.hpp"
#include "device_info.hpp"
#include "log.hpp"
#include "program/disk_cache.hpp"
#include "settings.hpp"
#include "tuning.hpp"

#include <clscan/cache.hpp>
#include <clscan/error.hpp>
#include <clscan/scan.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <list>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <sstream>
#include <vector>

namespace clscan::detail {
namespace {

// The environment settings that change the shapes or kernels under test: a verdict is kept per
// setting (a CLSCAN_TUNING shape is checked on its own), and one reached under any of them says
// nothing about the default build, so it is neither stored nor read.
using settings = std::array<std::string, experimental_setting_count>;

settings current_settings() {
  settings values;
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = environment(experimental_setting_names[i]);
  }
  return values;
}

// Compares without allocating: this runs on every single-pass call.
bool are_current(const settings& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] != environment(experimental_setting_names[i])) return false;
  }
  return true;
}

bool experimental_settings() {
  return std::any_of(std::begin(experimental_setting_names), std::end(experimental_setting_names),
                     [](const char* name) { return !environment(name).empty(); });
}

struct entry {
  settings under;
  single_pass_candidate trying = single_pass_candidate::preferred; // while checking
  bool done = false;
  single_pass_qualification verdict;
};

// Guards the entries; held only briefly (lookups run under workspace locks), never while a check runs.
std::mutex& entries_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Held by the thread that runs a check, whose scans take workspace locks: it is never taken by a
// thread that holds one (enqueue_scan qualifies with its workspace unlocked).
std::mutex& check_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Per device and element size (4 or 8 bytes: the status-word layout and the kernels' loads differ only
// by size, so one check covers every type of a size), one entry per settings met. A list: callers keep
// references to verdicts while other entries are added.
std::map<std::pair<cl_device_id, std::size_t>, std::list<entry>>& entries() {
  static std::map<std::pair<cl_device_id, std::size_t>, std::list<entry>> known;
  return known;
}

entry* find_entry(const device_capabilities& caps, element_type type) {
  const auto it = entries().find({caps.id, size_of(type)});
  if (it == entries().end()) return nullptr;
  for (entry& candidate : it->second)
    if (are_current(candidate.under)) return &candidate;
  return nullptr;
}

// Set while this thread runs a qualification's own scans, which must not qualify again.
thread_local bool inside_qualification = false;

std::string verdict_path(const device_capabilities& caps) {
  const std::string dir = disk_cache_directory();
  return dir.empty() ? std::string() : dir + "/qualified-" + device_stem(caps) + ".txt";
}

// A stored line: "size=<bytes> shape=<preferred shape> candidate=<k> passed|failed <detail>". The
// preferred shape (which a tuning file can change) is part of the key.
std::string verdict_key(std::size_t element_size, const std::string& preferred_shape) {
  return "size=" + std::to_string(element_size) + " shape=" + preferred_shape + " ";
}

bool load_verdict(const device_capabilities& caps, const std::string& key, single_pass_qualification& out) {
  const std::string path = verdict_path(caps);
  if (path.empty()) return false;
  std::string text;
  if (const std::string why = read_small_file(path, max_small_file_bytes, text); !why.empty()) {
    if (why != "missing") log(log_level::warning, "ignoring qualification file " + path + ": " + why);
    return false;
  }
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::istringstream fields(line.substr(key.size()));
    std::string candidate, outcome;
    fields >> candidate >> outcome;
    if ((candidate != "candidate=0" && candidate != "candidate=1") ||
        (outcome != "passed" && outcome != "failed")) {
      std::string message = "ignoring qualification line '";
      message.append(line).append("' in ").append(path);
      log(log_level::warning, message);
      continue;
    }
    std::string detail;
    std::getline(fields >> std::ws, detail);
    out.checked = true;
    out.passed = outcome == "passed";
    out.candidate = candidate == "candidate=1" ? 1 : 0;
    out.from_disk = true;
    out.detail = detail;
    return true;
  }
  return false;
}

void store_verdict(const device_capabilities& caps, const std::string& key,
                   const single_pass_qualification& verdict) {
  const std::string path = verdict_path(caps);
  if (path.empty() || !make_cache_directory()) return;
  std::string old_text, text;
  // Something else under the file's name (a FIFO, a damaged file) is replaced, as a damaged cache
  // entry is, and the other element sizes' verdicts with it.
  if (const std::string why = read_small_file(path, max_small_file_bytes, old_text);
      !why.empty() && why != "missing")
    log(log_level::warning, "replacing qualification file " + path + ": " + why);
  std::istringstream in(old_text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.compare(0, key.size(), key) != 0) text += line + '\n';
  std::string detail = verdict.detail;
  for (char& c : detail)
    if (c == '\n' || c == '\r') c = ' ';
  text += key + "candidate=" + std::to_string(verdict.candidate) + " " +
          (verdict.passed ? "passed " : "failed ") + detail + '\n';
  if (const std::string failure = replace_file(path, text); !failure.empty())
    log(log_level::warning, "not storing the single-pass qualification: " + failure);
}

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

std::string describe(const tuning& shape) {
  return "wg=" + std::to_string(shape.work_group_size) + ",items=" + std::to_string(shape.items_per_thread) +
         ",vec=" + std::to_string(shape.vector_width) + ",lookback=" + std::to_string(shape.lookback);
}

single_pass_qualification run_qualification(entry& slot, const device_capabilities& caps, element_type type,
                                            const cl::Context* context) {
  const element_type check_type = size_of(type) == 8 ? element_type::int64 : element_type::int32;
  single_pass_qualification verdict;
  verdict.checked = true;
  const auto start = std::chrono::steady_clock::now();
  std::string failures;
  double context_ms = 0;
  const std::size_t candidates = caps.is_gpu() ? 1 : 2;
  for (std::size_t k = 0; k < candidates; ++k) {
    {
      const std::lock_guard<std::mutex> lock(entries_mutex());
      slot.trying = static_cast<single_pass_candidate>(k);
    }
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

} // namespace

single_pass_candidate qualified_candidate(const device_capabilities& caps, element_type type) {
  const std::lock_guard<std::mutex> lock(entries_mutex());
  const entry* found = find_entry(caps, type);
  if (!found) return single_pass_candidate::preferred;
  if (!found->done) return found->trying;
  return static_cast<single_pass_candidate>(found->verdict.candidate);
}

namespace {

const single_pass_qualification& trusted_verdict() {
  static const single_pass_qualification trusted = [] {
    single_pass_qualification v;
    v.passed = true;
    v.detail = "not checked";
    return v;
  }();
  return trusted;
}

} // namespace

std::optional<bool> size_class_under_test(algorithm algo) {
  return algo == algorithm::single_pass && inside_qualification ? class_under_test : std::nullopt;
}

const single_pass_qualification* known_single_pass_verdict(const device_capabilities& caps,
                                                           element_type type) {
  if (inside_qualification) return &trusted_verdict();
  qualify_override(); // a bad CLSCAN_QUALIFY is an error on every call that would use it
  const std::lock_guard<std::mutex> lock(entries_mutex());
  const entry* found = find_entry(caps, type);
  return found && found->done ? &found->verdict : nullptr;
}

const single_pass_qualification& ensure_single_pass_qualified(const device_capabilities& caps,
                                                              element_type type, const cl::Context* context) {
  if (const single_pass_qualification* known = known_single_pass_verdict(caps, type)) return *known;
  const std::optional<bool> setting = qualify_override();
  // One check at a time; a thread that waited here finds the verdict another one reached.
  const std::lock_guard<std::mutex> checking(check_mutex());
  entry* found = nullptr;
  {
    const std::lock_guard<std::mutex> lock(entries_mutex());
    found = find_entry(caps, type);
    if (!found) {
      std::list<entry>& known = entries()[{caps.id, size_of(type)}];
      known.emplace_back();
      known.back().under = current_settings();
      found = &known.back();
    }
    if (found->done) return found->verdict;
    found->trying = single_pass_candidate::preferred;
  }
  entry& slot = *found;
  single_pass_qualification verdict;
  if (setting.has_value() && !*setting) {
    verdict = trusted_verdict();
    verdict.detail = "not checked (CLSCAN_QUALIFY=0)";
  } else {
    const std::string key =
        verdict_key(size_of(type), describe(initial_tuning(caps, type, algorithm::single_pass)));
    const bool use_disk = !setting.value_or(false) && !experimental_settings();
    if (!(use_disk && load_verdict(caps, key, verdict))) {
      verdict = run_qualification(slot, caps, type, context);
      if (!experimental_settings()) store_verdict(caps, key, verdict);
      log(verdict.passed ? log_level::info : log_level::warning,
          "single-pass qualification on '" + caps.name + "' (" + std::to_string(size_of(type)) +
              "-byte elements): " +
              (verdict.passed ? "qualified, " : "disqualified, three-stage will be used: ") + verdict.detail +
              " (" + std::to_string(verdict.milliseconds) + " ms, of which " +
              std::to_string(verdict.context_milliseconds) + " ms making a context and queue)");
    }
  }
  const std::lock_guard<std::mutex> lock(entries_mutex());
  slot.verdict = std::move(verdict);
  slot.done = true;
  return slot.verdict;
}

} // namespace clscan::detail

namespace clscan {

single_pass_qualification qualify_single_pass(const cl::Device& device, element_type type) {
  const device_capabilities& caps = detail::cached_capabilities(device());
  if (!detail::single_pass_supported(caps, type)) {
    single_pass_qualification none;
    none.detail = "no single-pass scan on this device (no global 32-bit atomics)";
    return none;
  }
  return detail::ensure_single_pass_qualified(caps, type);
}

} // namespace clscan
