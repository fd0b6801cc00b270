// What the differential fuzzers share (fuzz.cpp: the scans; fuzz_primitives.cpp: the selections, scans
// by key and sorts): the environment variables, the seed's spelling, the loop that draws, runs and
// reports the cases, the launch shapes with one context each, the element types by number, the
// comparison of whole buffer images, and the wait that takes a call running past a timeout for a hang.
#pragma once

#include "support/guarded.hpp"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace clscan_test::fuzz {

using clscan_test::guarded::same_value;
using clscan_test::guarded::splitmix64;

// CLSCAN_FUZZ_SEED's default: the CI runs see the same cases every time.
constexpr std::uint64_t default_seed = 0xC15CA9F022'2025ull;
constexpr std::chrono::seconds scan_timeout{120};

inline std::optional<std::uint64_t> env_number(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 0);
  if (*end != '\0') FAIL(name << "='" << text << "' is not a number");
  return static_cast<std::uint64_t>(value);
}

inline std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

// --- the run -----------------------------------------------------------------------------------------

// The cases one fuzzer runs: its own CLSCAN_FUZZ_*_CASES (`own_cases`), else a `share` of
// CLSCAN_FUZZ_CASES, else `fallback`; all of them, or the one CLSCAN_FUZZ_REPLAY names.
struct run_settings {
  std::uint64_t seed = default_seed;
  std::uint64_t cases = 0;
  std::optional<std::uint64_t> replay;
  bool verbose = false;
};

inline run_settings settings_of(const char* own_cases, std::uint64_t share, std::uint64_t fallback) {
  run_settings s;
  s.seed = env_number("CLSCAN_FUZZ_SEED").value_or(default_seed);
  const std::optional<std::uint64_t> all_cases = env_number("CLSCAN_FUZZ_CASES");
  s.cases = env_number(own_cases).value_or(all_cases ? *all_cases / share : fallback);
  s.replay = env_number("CLSCAN_FUZZ_REPLAY");
  s.verbose = env_number("CLSCAN_FUZZ_VERBOSE").value_or(0) != 0;
  return s;
}

// The first line of a run: the device, the seed and what runs (`cases_variable` sets the count).
inline void print_start(const char* name, const run_settings& s, const char* cases_variable, bool fp64) {
  std::cout << name << ": device '" << env().device_name << "', seed " << hex(s.seed)
            << " (CLSCAN_FUZZ_SEED), "
            << (s.replay ? "replaying case " + std::to_string(*s.replay) + " only (CLSCAN_FUZZ_REPLAY)"
                         : std::to_string(s.cases) + " cases (" + cases_variable + ")")
            << (fp64 ? "" : "; no fp64: cl_double is not drawn") << std::endl;
}

// What one case found: ok, or the problem. An ok case may carry a note (a call the device refused).
struct outcome {
  bool ok = true;
  std::string problem;
};

struct run_totals {
  std::size_t run = 0, failed = 0;
  std::vector<std::string> failures; // the first 20, for the test's report
  double seconds = 0;
};

// Draws case `index` with draw(index), runs it with run(case) (an exception fails it), hands both to
// tally(case, outcome), and prints a failure with its description (describe(case), found by
// argument-dependent lookup, holds the replay command) at once, and every case when replaying or
// verbose. `what` names the cases in those lines.
template <typename Draw, typename Run, typename Tally>
run_totals run_cases(const run_settings& s, const char* what, Draw&& draw, Run&& run, Tally&& tally) {
  run_totals totals;
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t first = s.replay ? *s.replay : 0, last = s.replay ? *s.replay + 1 : s.cases;
  for (std::uint64_t index = first; index < last; ++index) {
    const auto c = draw(index);
    if (s.replay || s.verbose) std::cout << "fuzz: " << describe(c) << std::endl;
    outcome result;
    const auto case_start = std::chrono::steady_clock::now();
    try {
      result = run(c);
    } catch (const std::exception& e) {
      result.ok = false;
      result.problem = std::string("exception: ") + e.what();
    }
    if (s.replay || s.verbose)
      std::cout
          << "fuzz: " << what << " " << index << (result.ok ? " passed" : " FAILED") << " in "
          << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - case_start).count()
          << " ms" << std::endl;
    ++totals.run;
    tally(c, result);
    if (!result.ok) {
      ++totals.failed;
      std::ostringstream message;
      message << "FUZZ FAILURE: " << describe(c) << "\n  problem: " << result.problem;
      std::cout << message.str() << std::endl;
      if (totals.failures.size() < 20) totals.failures.push_back(message.str());
    }
  }
  totals.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return totals;
}

// The first words of a run's summary: "<name> summary: seed ..., N cases in S s, F failed".
inline std::string summary_head(const char* name, const run_settings& s, const run_totals& totals) {
  std::ostringstream out;
  out << name << " summary: seed " << hex(s.seed) << ", " << totals.run << " cases in " << std::fixed
      << std::setprecision(1) << totals.seconds << " s, " << totals.failed << " failed";
  return out.str();
}

// The test's verdict: every case passed; otherwise the first failures, each with its replay command.
inline void report(const run_settings& s, const run_totals& totals, const char* what) {
  INFO("seed " << hex(s.seed) << ": " << totals.failed << " of " << totals.run << " " << what
               << " failed (first ones above; each line has its replay command)");
  for (const std::string& failure : totals.failures)
    UNSCOPED_INFO(failure);
  CHECK(totals.failed == 0);
}

// --- launch shapes -----------------------------------------------------------------------------------

// Shape 0 is whatever CLSCAN_TUNING the test process inherited (normally unset: the device's
// defaults). The others make small tiles, so that sizes up to 2^20 span many tiles, several levels of
// the three-stage recursion and many rounds of single-pass look-back: 4 x 8 = 32 elements with 4-wide
// vectors, and 3 x 6 = 18 elements (neither a power of two) with 2-wide vectors.
struct shape_def {
  std::optional<std::string> tuning;
  std::string label;
};

inline const std::vector<shape_def>& shapes() {
  static const std::vector<shape_def> defs = [] {
    std::vector<shape_def> made;
    const char* inherited = std::getenv("CLSCAN_TUNING");
    if (inherited && *inherited)
      made.push_back({std::string(inherited), std::string("inherited CLSCAN_TUNING=") + inherited});
    else
      made.push_back({std::nullopt, "device defaults (CLSCAN_TUNING unset)"});
    made.push_back(
        {std::string("wg=4,items=8,vec=4,lookback=2"), "CLSCAN_TUNING=wg=4,items=8,vec=4,lookback=2"});
    made.push_back(
        {std::string("wg=3,items=6,vec=2,lookback=3"), "CLSCAN_TUNING=wg=3,items=6,vec=2,lookback=3"});
    // More work-items than one raking segment (CLSCAN_RAKE_SEGMENT, 16): the work-group scan combines
    // three segment totals, as it does on GPUs.
    made.push_back(
        {std::string("wg=40,items=4,vec=2,lookback=8"), "CLSCAN_TUNING=wg=40,items=4,vec=2,lookback=8"});
    return made;
  }();
  return defs;
}

// One context per shape (clscan reads CLSCAN_TUNING once per context and device), with the queue the
// calls run on and a second queue for uploads that the calls wait for through wait_list.
struct shape_context {
  cl::Context context;
  cl::CommandQueue queue;
  cl::CommandQueue upload_queue;
};

// The contexts and dispatch plans of the shapes in `defs`, made on first use.
struct fuzz_state {
  explicit fuzz_state(const std::vector<shape_def>& shape_defs) : defs(shape_defs) {}
  const std::vector<shape_def>& defs;
  std::map<std::size_t, std::unique_ptr<shape_context>> contexts;
  std::map<std::pair<std::size_t, int>, clscan::dispatch_plan> plans;
};

inline shape_context& context_for(fuzz_state& state, std::size_t shape) {
  auto& slot = state.contexts[shape];
  if (!slot) {
    slot = std::make_unique<shape_context>();
    slot->context = cl::Context(env().device);
    slot->queue = cl::CommandQueue(slot->context, env().device);
    slot->upload_queue = cl::CommandQueue(slot->context, env().device);
  }
  return *slot;
}

inline std::size_t tile_of(const clscan::tuning& shape) {
  return shape.work_group_size * shape.items_per_thread;
}

// --- element types ---------------------------------------------------------------------------------

enum type_id { t_int, t_uint, t_long, t_ulong, t_float, t_double, type_count };
inline const char* const type_names[type_count] = {"int", "uint", "long", "ulong", "float", "double"};

inline clscan::element_type element_type_of(int type) {
  switch (type) {
  case t_int: return clscan::element_type::int32;
  case t_uint: return clscan::element_type::uint32;
  case t_long: return clscan::element_type::int64;
  case t_ulong: return clscan::element_type::uint64;
  case t_float: return clscan::element_type::float32;
  default: return clscan::element_type::float64;
  }
}

// plan_for() under the shape's CLSCAN_TUNING, once per shape and element type.
inline const clscan::dispatch_plan& plan_of(fuzz_state& state, std::size_t shape, int type) {
  const auto key = std::make_pair(shape, type);
  auto it = state.plans.find(key);
  if (it == state.plans.end()) {
    scoped_env tuning("CLSCAN_TUNING", state.defs[shape].tuning);
    it = state.plans.emplace(key, clscan::plan_for(env().device, element_type_of(type))).first;
  }
  return it->second;
}

// Offsets of a case: multiples of 16 elements (aligned for every vector width), or unaligned (one odd
// at least).
inline void draw_offsets(splitmix64& r, bool aligned, std::size_t& in_offset, std::size_t& out_offset) {
  if (aligned) {
    in_offset = 16 * (r.next() % 3);
    out_offset = 16 * (r.next() % 3);
  } else {
    in_offset = r.next() % 20;
    out_offset = r.next() % 20;
    if (in_offset % 2 == 0 && out_offset % 2 == 0) out_offset += 1;
  }
}

template <typename T> constexpr bool is_float = std::is_floating_point<T>::value;

template <typename T> T random_bits(splitmix64& r) {
  const std::uint64_t bits = r.next();
  T value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// --- checking ---------------------------------------------------------------------------------------

template <typename T> std::string show(const T& value) {
  std::ostringstream out;
  if constexpr (is_float<T>)
    out << std::setprecision(std::numeric_limits<T>::max_digits10) << value;
  else
    out << +value;
  return out.str();
}

// Compares a whole buffer with its expected image; `skip_begin`..`skip_end` (a rounded result range)
// is left to the error-bound check. Elements match when they have the same bits, or (unless `bitwise`)
// are both NaN. Describes the first difference and the number of differences.
template <typename T>
std::string compare_image(const char* what, const std::vector<T>& got, const std::vector<T>& expected,
                          std::size_t skip_begin, std::size_t skip_end, std::size_t range_begin,
                          std::size_t range_end, bool bitwise = false) {
  std::size_t differences = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (i >= skip_begin && i < skip_end) continue;
    const bool same =
        bitwise ? std::memcmp(&got[i], &expected[i], sizeof(T)) == 0 : same_value(got[i], expected[i]);
    if (!same && differences++ == 0) first = i;
  }
  if (!differences) return {};
  std::ostringstream out;
  const char* region = first < range_begin ? "a guard before the scanned range"
                       : first < range_end ? "the scanned range"
                                           : "a guard after the scanned range";
  out << what << ": " << differences << " elements differ; the first at buffer index " << first << " ("
      << region;
  if (first >= range_begin && first < range_end)
    out << ", element " << first - range_begin << " of the result";
  out << "): expected " << show(expected[first]) << ", got " << show(got[first]) << "; ";
  return out.str();
}

// Waits for `event`; a call still running after scan_timeout is taken for a hang: the process aborts
// with describe() (the case) rather than ctest killing a silent process much later.
template <typename Describe>
cl_int await_event(const cl::Event& event, const cl::CommandQueue& queue, Describe&& describe) {
  queue.flush();
  auto waiting = std::async(std::launch::async, [&event] { return event.wait(); });
  if (waiting.wait_for(scan_timeout) == std::future_status::timeout) {
    std::cerr << "clscan fuzz: a call did not complete within " << scan_timeout.count()
              << " s; taking it for a hang and aborting. " << describe() << std::endl;
    std::abort();
  }
  return waiting.get();
}

} // namespace clscan_test::fuzz
