#include "qualify.hpp"
#include "qualify_check.hpp"

#include "algorithms/single_pass.hpp"
#include "device_info.hpp"
#include "log.hpp"
#include "program/disk_cache.hpp"
#include "settings.hpp"
#include "tuning.hpp"

#include <clscan/cache.hpp>
#include <clscan/error.hpp>

#include <algorithm>
#include <array>
#include <iterator>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

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

const single_pass_qualification* known_single_pass_verdict(const device_capabilities& caps,
                                                           element_type type) {
  if (inside_check_scans()) return &trusted_verdict();
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
      verdict = run_check_scans(caps, type, context, [&slot](single_pass_candidate candidate) {
        const std::lock_guard<std::mutex> lock(entries_mutex());
        slot.trying = candidate;
      });
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
