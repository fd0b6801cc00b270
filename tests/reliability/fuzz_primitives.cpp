// Differential fuzzing of the calls beside the scans ("[fuzz]", with fuzz.cpp; "[fuzz-primitives]"
// alone): random select_if, select_flagged, partition_if, unique, inclusive_by_key and
// exclusive_by_key calls, each compared exactly with a CPU reference; and the sorts ("[fuzz-sort]"
// alone; at the end of this file).
//
// Every case draws, from its own seeded generator: n (0, 1, small, 1 to 3 tiles +-2 of the launch
// shape the call runs in, log-uniform up to 2^14, and now and then up to 2^20), offsets (multiples of
// 16 or unaligned), the flags' and the count's offsets, whether input and output are two buffers, two
// ranges of one, or one range (in place), for the selections an output capacity below n now and then
// (select_options::out_capacity), an initial value or none (by key), whether the
// call waits on uploads made on another queue (wait_list), the algorithm that asks for the family's
// way of chaining tiles (below), and the data: for the selections, a selectivity of none, few, half,
// most or all, small integers, or special values (NaN of both signs, infinities, +-0, extremes) for
// floats, and flags of their own selectivity; for unique and for the keys, runs (segments) of mean
// length 1, 3, 30, 1000, about a tile, or all of n, of few values (neighbouring runs then merge) or of
// any; for the values of a scan by key, any bits (integer sums wrap), small integers (float sums: exact
// in any order), or special values (float min and max, never -0.0, whose order against +0.0 fmin
// leaves open).
//
// The result, the count (between two poisoned slots), the guards around the output and every input
// (values, flags, keys) must come back exactly as the reference says: selections bit for bit, scans by
// key with any NaN matching any NaN (fmin and fmax need not keep a NaN's payload).
//
// Building a program costs far more than running a case (a single-pass selection program takes 2 to
// 5 s to build and compile on PoCL with 2 cores, a counts-first one about 1 s), so a run draws its
// cases from a small pool of program families: everything that selects a program (the call, element
// and key type, the operator of a scan by key, the predicate, the launch shape of fuzz_common.hpp,
// the offsets' alignment, and whether tiles are chained by the look-back (algorithm automatic or
// single_pass) or by counts scanned first (three_stage; partition_if always)). max(5, cases / 30)
// families, the first five one per kind of program (select_if, select_flagged, partition_if, unique,
// and one for both scans by key, whose kind is an argument): the CI run (150 cases) builds about five
// programs and covers every call, and a long run covers many more families. Launch shapes: see
// primitive_shapes().
//
// Environment: CLSCAN_FUZZ_SEED, CLSCAN_FUZZ_REPLAY and CLSCAN_FUZZ_VERBOSE as in fuzz.cpp, and
//   CLSCAN_FUZZ_PRIMITIVE_CASES=<n>  the number of cases; default half of CLSCAN_FUZZ_CASES, else 150
// A failing case prints the seed, the number of cases, its index, its full description and the command
// that replays it.
#include "reliability/fuzz_common.hpp"
#include "support/guarded.hpp"

#include "common/sort_reference.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

using namespace clscan_test;
using namespace clscan_test::guarded;
using namespace clscan_test::fuzz;
using clscan::algorithm;
using clscan::op;
using clscan::scan_kind;

namespace {

constexpr std::uint64_t default_cases = 150;
constexpr std::size_t max_n = std::size_t{1} << 20;

// --- calls, predicates and operators ------------------------------------------------------------

enum class call_id { select_if, select_flagged, partition_if, unique, inclusive_by_key, exclusive_by_key };
// Kinds of program: one per selection, one for both scans by key (the kind is an argument).
constexpr int program_kinds = 5;

const char* call_name(call_id call) {
  switch (call) {
  case call_id::select_if: return "select_if";
  case call_id::select_flagged: return "select_flagged";
  case call_id::partition_if: return "partition_if";
  case call_id::unique: return "unique";
  case call_id::inclusive_by_key: return "inclusive_by_key";
  case call_id::exclusive_by_key: return "exclusive_by_key";
  }
  return "?";
}

bool by_key(call_id call) { return call == call_id::inclusive_by_key || call == call_id::exclusive_by_key; }
bool has_predicate(call_id call) { return call == call_id::select_if || call == call_id::partition_if; }

// The predicates, as the device gets them and as the host computes them (i: the index in the input).
const char* const predicates[] = {"x > 0", "(i & 1) == 0", "x != x", "x < 3 && i > 5",
                                  "x == 0 || i % 7 == 3"};
constexpr std::size_t predicate_count = sizeof predicates / sizeof predicates[0];

template <typename T> bool predicate_holds(std::size_t predicate, T x, std::uint64_t i) {
  switch (predicate) {
  case 0: return x > T(0);
  case 1: return (i & 1) == 0;
  case 2:
    if constexpr (is_float<T>) return std::isnan(x);
    return false; // an integer always equals itself
  case 3: return x < T(3) && i > 5;
  default: return x == T(0) || i % 7 == 3;
  }
}

// The operators of the scans by key: the ones that are exact in any order for the data drawn for
// them (bit_xor for integer types only).
const op by_key_ops[] = {op::sum, op::min, op::max, op::bit_xor};

// --- launch shapes -------------------------------------------------------------------------------

// Programs of work-groups of one work-item compile several times faster on PoCL than those of
// larger work-groups (1.3 s against 3 to 7 s for a single-pass selection, with 2 busy cores), and
// compiling is most of what this fuzzer costs; so most of its small tiles come from one-work-item
// shapes, and fuzz_common.hpp's 4 x 8 shape, where the work-group scan combines work-items, is drawn
// one time in ten (the scans' fuzzing runs the work-group scan in larger groups far more often).
const std::vector<shape_def>& primitive_shapes() {
  static const std::vector<shape_def> made = {
      shapes()[0], // the device's defaults (or the inherited CLSCAN_TUNING)
      {std::string("wg=1,items=8,vec=4,lookback=2"), "CLSCAN_TUNING=wg=1,items=8,vec=4,lookback=2"},
      {std::string("wg=1,items=6,vec=2,lookback=3"), "CLSCAN_TUNING=wg=1,items=6,vec=2,lookback=3"},
      shapes()[1]};
  return made;
}
const unsigned shape_weights[] = {5, 8, 5, 2}; // of 20, in primitive_shapes()'s order

std::size_t draw_shape(splitmix64& r) {
  unsigned roll = static_cast<unsigned>(r.next() % 20);
  for (std::size_t s = 0; s < primitive_shapes().size(); ++s) {
    if (roll < shape_weights[s]) return s;
    roll -= shape_weights[s];
  }
  return 0;
}

// --- families and cases --------------------------------------------------------------------------

// Everything that selects a program.
struct family {
  call_id call = call_id::select_if;
  int type = t_int;
  int key_type = t_int;      // by key
  op operation = op::sum;    // by key
  std::size_t predicate = 0; // select_if, partition_if
  std::size_t shape = 0;
  bool aligned = true;
  bool look_back = true; // tiles chained by the look-back, else by counts scanned first
};

family draw_family(splitmix64& r, call_id call, bool fp64) {
  const int types = fp64 ? type_count : type_count - 1;
  family f;
  f.call = call;
  f.type = static_cast<int>(r.next() % types);
  f.key_type = static_cast<int>(r.next() % types);
  const bool floating = f.type == t_float || f.type == t_double;
  f.operation = by_key_ops[r.next() % (floating ? 3 : 4)];
  f.predicate = static_cast<std::size_t>(r.next() % predicate_count);
  f.shape = draw_shape(r);
  f.aligned = r.next() % 2 == 0;
  f.look_back = call != call_id::partition_if && r.next() % 2 == 0;
  return f;
}

// max(5, cases / 30) families, picked by the seed; the first five are one per kind of program (a
// by-key family serves both scans by key).
std::vector<family> family_pool(std::uint64_t seed, std::uint64_t cases, bool fp64) {
  splitmix64 r{seed ^ 0xFA111E5'B1CEull};
  const std::uint64_t wanted = std::max<std::uint64_t>(program_kinds, cases / 30);
  std::vector<family> pool;
  // Among the first five, the look-back chains two of the four that can have it, the seed says which.
  const std::uint64_t look_back_parity = r.next() % 2;
  for (std::uint64_t k = 0; k < wanted; ++k) {
    const auto kind = static_cast<call_id>(k < program_kinds ? k : r.next() % program_kinds);
    family f = draw_family(r, kind, fp64);
    if (k < program_kinds && kind != call_id::partition_if) f.look_back = (k + look_back_parity) % 2 == 0;
    pool.push_back(f);
  }
  return pool;
}

enum class placement { two_buffers, one_buffer, in_place };

const char* placement_name(placement p) {
  switch (p) {
  case placement::two_buffers: return "two buffers";
  case placement::one_buffer: return "two ranges of one buffer";
  case placement::in_place: return "in place";
  }
  return "?";
}

struct primitive_case {
  std::uint64_t seed = 0;
  std::uint64_t cases = 0;
  std::uint64_t index = 0;
  family f;
  call_id call = call_id::select_if; // the family's, or for a by-key family inclusive or exclusive
  algorithm algo = algorithm::automatic;
  bool deterministic = false; // by key
  std::size_t n = 0;
  std::string size_origin;
  placement place = placement::two_buffers;
  std::size_t in_offset = 0, out_offset = 0, back_guard = 0;
  std::size_t buffer_elements = 0; // one_buffer: the size of the one buffer
  std::size_t flags_offset = 0, count_offset = 0;
  // Selections: the output's capacity (select_options::out_capacity); none: n.
  std::optional<std::size_t> capacity;
  bool has_initial = false;
  bool wait_on_upload_queue = false;
  // Data: selectivity (selections, flags), run length (unique, keys), value kind.
  double keep = 0.5, flag_keep = 0.5;
  std::size_t mean_run = 1;
  bool few_values = true;
  int value_kind = 0;
  std::uint64_t data_seed = 0;
};

const double selectivities[] = {0.0, 0.02, 0.5, 0.98, 1.0};

// Value kinds: 0 any bits (integers) or special values (floats), 1 small integers, 2 selections: a
// sign drawn with the selectivity.
std::string value_kind_name(const primitive_case& c) {
  const bool floating = c.f.type == t_float || c.f.type == t_double;
  switch (c.value_kind) {
  case 0: return floating ? "special values (NaN, inf, +-0, extremes, ...)" : "any bits";
  case 1: return "small integers";
  default: {
    std::ostringstream out;
    out << "positive with probability " << c.keep << ", else not";
    return out.str();
  }
  }
}

std::string replay_command(const primitive_case& c) {
  return "CLSCAN_FUZZ_SEED=" + hex(c.seed) + " CLSCAN_FUZZ_PRIMITIVE_CASES=" + std::to_string(c.cases) +
         " CLSCAN_FUZZ_REPLAY=" + std::to_string(c.index) + " clscan-tests \"[fuzz-primitives]\"";
}

std::string describe(const primitive_case& c) {
  std::ostringstream out;
  out << "primitive case " << c.index << " of seed " << hex(c.seed) << " (" << c.cases
      << " cases): " << call_name(c.call) << ", " << type_names[c.f.type];
  if (by_key(c.call))
    out << " values, " << type_names[c.f.key_type] << " keys, " << clscan::to_string(c.f.operation)
        << ", initial value: " << (c.has_initial ? "drawn from the data" : "none");
  if (has_predicate(c.call)) out << ", predicate \"" << predicates[c.f.predicate] << "\"";
  out << ", " << clscan::to_string(c.algo) << (c.deterministic ? " (deterministic)" : "")
      << (c.f.look_back ? " (look-back family)" : " (counts-first family)") << ", n = " << c.n << " ("
      << c.size_origin << "), " << placement_name(c.place) << ", in_offset " << c.in_offset << ", out_offset "
      << c.out_offset << " (" << (c.f.aligned ? "multiples of 16" : "unaligned") << "), " << c.back_guard
      << " guard elements after the last range";
  if (c.place == placement::one_buffer) out << ", one buffer of " << c.buffer_elements << " elements";
  if (c.call == call_id::select_flagged)
    out << ", flags_offset " << c.flags_offset << ", flags set with probability " << c.flag_keep;
  if (!by_key(c.call)) out << ", count_offset " << c.count_offset;
  if (c.capacity) out << ", out_capacity " << *c.capacity;
  if (c.call == call_id::unique || by_key(c.call))
    out << ", runs of mean length " << c.mean_run << (c.few_values ? " of three values" : " of any value");
  if (c.call != call_id::select_flagged && c.call != call_id::unique) out << ", data: " << value_kind_name(c);
  out << ", uploads: " << (c.wait_on_upload_queue ? "on another queue, in wait_list" : "blocking, same queue")
      << ", shape: " << primitive_shapes()[c.f.shape].label << ", data seed " << hex(c.data_seed)
      << "; replay: " << replay_command(c);
  return out.str();
}

// Elements per tile of the shape these calls take for `type`: the single-pass scan's, with at most
// 64 elements a work-item on GPUs (dispatch may halve that again to fit local memory: then these
// sizes lie around two tiles, still on tile boundaries).
std::size_t primitive_tile(fuzz_state& state, std::size_t shape, int type) {
  const clscan::dispatch_plan& plan = plan_of(state, shape, type);
  clscan::tuning t = plan.small_input_bytes ? plan.single_pass_small : plan.single_pass;
  if (clscan::capabilities(env().device).is_gpu())
    t.items_per_thread = std::max(t.vector_width, std::min<std::size_t>(t.items_per_thread, 64));
  return std::max<std::size_t>(tile_of(t), 1);
}

primitive_case draw_case(fuzz_state& state, const std::vector<family>& pool, std::uint64_t seed,
                         std::uint64_t cases, std::uint64_t index) {
  splitmix64 r{seed ^ (index * 0x9E3779B97F4A7C15ull) ^ 0x5E1EC7'ED'0B1Eull};
  r.next();
  primitive_case c;
  c.seed = seed;
  c.cases = cases;
  c.index = index;
  c.f = pool[r.next() % pool.size()];
  c.call = c.f.call;
  if (by_key(c.call) && r.next() % 2) c.call = call_id::exclusive_by_key;
  const bool floating = c.f.type == t_float || c.f.type == t_double;

  // The algorithm that asks for the family's chaining.
  const std::uint64_t algo_roll = r.next();
  if (c.f.look_back) {
    c.algo = algo_roll % 2 ? algorithm::automatic : algorithm::single_pass;
  } else if (c.call == call_id::partition_if) {
    c.algo = algo_roll % 2 ? algorithm::automatic : algorithm::three_stage;
  } else if (by_key(c.call) && floating && algo_roll % 2) {
    // Deterministic floats on counts scanned first (automatic would take the look-back's fixed
    // order, another program: faults_lookback.cpp tests that one).
    c.algo = algorithm::three_stage;
    c.deterministic = true;
  } else {
    c.algo = algorithm::three_stage;
    c.deterministic = by_key(c.call) && algo_roll % 4 == 2; // changes nothing with three_stage
  }

  // n: 0, 1, small, around 1 to 3 tiles, log-uniform up to 2^14, now and then up to 2^20.
  const std::size_t tile = primitive_tile(state, c.f.shape, c.f.type);
  const std::uint64_t size_roll = r.next() % 100;
  const std::size_t k = 1 + r.next() % 3;
  const long delta = static_cast<long>(r.next() % 5) - 2;
  const double exponent = r.unit();
  if (size_roll < 6) {
    c.n = 0;
    c.size_origin = "zero";
  } else if (size_roll < 12) {
    c.n = 1;
    c.size_origin = "one";
  } else if (size_roll < 37) {
    c.n = 2 + r.next() % 39;
    c.size_origin = "small";
  } else if (size_roll < 67 && k * tile + 2 <= max_n) {
    c.n = static_cast<std::size_t>(std::max(1L, static_cast<long>(k * tile) + delta));
    c.size_origin = std::to_string(k) + " x tile " + std::to_string(tile) + (delta < 0 ? " - " : " + ") +
                    std::to_string(std::labs(delta));
  } else if (size_roll < 95) {
    c.n = static_cast<std::size_t>(std::pow(2.0, exponent * 14.0)) + r.next() % 7;
    c.size_origin = "random up to 2^14";
  } else {
    c.n = std::min<std::size_t>(static_cast<std::size_t>(std::pow(2.0, 14.0 + exponent * 6.0)), max_n);
    c.size_origin = "random up to 2^20";
  }

  draw_offsets(r, c.f.aligned, c.in_offset, c.out_offset);
  c.back_guard = r.next() % 8;
  c.flags_offset = r.next() % 24;
  c.count_offset = r.next() % 4;
  const std::uint64_t place = r.next() % 10;
  if (by_key(c.call))
    c.place = place < 4 ? placement::two_buffers : place < 8 ? placement::in_place : placement::one_buffer;
  else
    c.place = place < 5 ? placement::two_buffers : place < 7 ? placement::in_place : placement::one_buffer;
  if (c.place == placement::in_place) c.in_offset = c.out_offset;
  if (c.place == placement::one_buffer) {
    // Two disjoint ranges, the output before or after the input, 0..4 elements apart (aligned: the
    // second starts at the next multiple of 16, or 16 further).
    const std::size_t gap = r.next() % (c.f.aligned ? 2 : 5);
    const auto second_start = [&](std::size_t first_end) {
      return c.f.aligned ? (first_end + 15) / 16 * 16 + 16 * gap : first_end + gap;
    };
    // Unaligned: the second range starts on an odd element when the first does not.
    const auto odd_unless = [&](std::size_t start, std::size_t other) {
      return !c.f.aligned && start % 2 == 0 && other % 2 == 0 ? start + 1 : start;
    };
    if (r.next() % 2) {
      c.out_offset = odd_unless(second_start(c.in_offset + c.n), c.in_offset);
      c.buffer_elements = c.out_offset + c.n + c.back_guard;
    } else {
      c.in_offset = odd_unless(second_start(c.out_offset + c.n), c.out_offset);
      c.buffer_elements = c.in_offset + c.n + c.back_guard;
    }
  }
  c.has_initial = r.next() % 5 < 2;
  c.wait_on_upload_queue = r.next() % 4 == 0;

  c.keep = selectivities[r.next() % 5];
  c.flag_keep = selectivities[r.next() % 5];
  const std::size_t run_lengths[] = {
      1, 3, 30, 1000, std::max<std::size_t>(tile, 1), std::max<std::size_t>(c.n, 1)};
  c.mean_run = run_lengths[r.next() % 6];
  c.few_values = r.next() % 3 != 0;
  c.value_kind = static_cast<int>(r.next() % 3);
  if (by_key(c.call)) {
    // Sums need exact data: any bits wrap exactly for integers; floats take small integers.
    if (c.f.operation == op::sum && floating) c.value_kind = 1;
    // min and max of floats: special values (no -0.0) or small integers.
    if (c.value_kind == 2) c.value_kind = 1;
  }
  c.data_seed = r.next();
  // Drawn last, so that the draws above are what they were before selections had capacities.
  if (!by_key(c.call) && r.next() % 4 == 0) c.capacity = r.next() % (c.n + 1);
  return c;
}

// --- data -----------------------------------------------------------------------------------------

// Special floating-point values; -0.0 only where `negative_zero` (fmin and fmax may order +-0 either way).
template <typename T> T special_value(splitmix64& r, bool negative_zero) {
  using limits = std::numeric_limits<T>;
  const T values[] = {limits::quiet_NaN(),
                      std::copysign(limits::quiet_NaN(), T(-1)),
                      limits::infinity(),
                      -limits::infinity(),
                      T(0),
                      negative_zero ? T(-0.0) : T(0),
                      T(1),
                      T(-1),
                      T(2.5),
                      T(3),
                      limits::max(),
                      limits::lowest(),
                      limits::min(),
                      -limits::min(),
                      T(1e-3),
                      T(-7.25e5)};
  return values[r.next() % (sizeof values / sizeof values[0])];
}

// A value of kind 0 (any bits / special) or 1 (small integers in [-3, 3]; unsigned: [0, 6]).
template <typename T> T draw_value(int kind, splitmix64& r, bool negative_zero) {
  if (kind == 1) {
    if constexpr (std::is_unsigned_v<T>)
      return static_cast<T>(r.next() % 7);
    else
      return static_cast<T>(static_cast<int>(r.next() % 7) - 3);
  }
  if constexpr (is_float<T>)
    return special_value<T>(r, negative_zero);
  else
    return random_bits<T>(r);
}

// Runs of equal values, of random lengths with the given mean (1 + geometric-ish), each run's value
// one of three or any (then from draw_value, specials included for floats).
template <typename T>
std::vector<T> make_runs(std::size_t n, std::size_t mean, bool few_values, splitmix64& r) {
  std::vector<T> data(n);
  const T three[] = {T(0), T(1), T(2)};
  for (std::size_t i = 0; i < n;) {
    const std::size_t run =
        1 + static_cast<std::size_t>(r.unit() * 2.0 * static_cast<double>(mean - 1) + 0.5);
    const T value = few_values ? three[r.next() % 3] : draw_value<T>(0, r, true);
    for (std::size_t j = 0; j < run && i < n; ++j)
      data[i++] = value;
  }
  return data;
}

// --- running and checking one case --------------------------------------------------------------

// Buffers and uploads of one case, on its shape's context.
struct case_io {
  shape_context& sc;
  const primitive_case& c;
  std::vector<cl::Event> uploads;

  template <typename T> cl::Buffer make(const std::vector<T>& image) {
    return cl::Buffer(sc.context, CL_MEM_READ_WRITE, std::max<std::size_t>(image.size(), 1) * sizeof(T));
  }
  template <typename T> void upload(const cl::Buffer& buffer, const std::vector<T>& image) {
    if (image.empty()) return;
    if (c.wait_on_upload_queue) {
      cl::Event uploaded;
      REQUIRE(sc.upload_queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, image.size() * sizeof(T), image.data(),
                                                 nullptr, &uploaded) == CL_SUCCESS);
      uploads.push_back(uploaded);
    } else {
      REQUIRE(sc.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, image.size() * sizeof(T), image.data()) ==
              CL_SUCCESS);
    }
  }
  template <typename T> std::vector<T> read(const cl::Buffer& buffer, std::size_t count) {
    std::vector<T> contents(count);
    if (count)
      REQUIRE(sc.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, count * sizeof(T), contents.data()) ==
              CL_SUCCESS);
    return contents;
  }
  // Runs the call and waits for it; nothing when it completed, else what went wrong. `unavailable`:
  // single_pass is forced where the device has none (or it was disqualified), so the call must throw
  // unsupported_error; with n == 0 it may also do nothing, as every call of n == 0 does (it returns
  // before choosing an algorithm), and is then checked like any other.
  template <typename Call> std::optional<outcome> call(Call&& enqueue, bool unavailable, cl::Event& done) {
    const bool expect_unsupported = unavailable && c.n > 0;
    if (c.wait_on_upload_queue) sc.upload_queue.flush();
    try {
      scoped_env tuning("CLSCAN_TUNING", primitive_shapes()[c.f.shape].tuning);
      done = enqueue();
    } catch (const clscan::unsupported_error& e) {
      sc.upload_queue.finish(); // the host images must outlive the uploads
      if (unavailable) return outcome{};
      return outcome{false, std::string("unexpected clscan::unsupported_error: ") + e.what()};
    } catch (const std::exception& e) {
      sc.upload_queue.finish();
      sc.queue.finish();
      return outcome{false, std::string("the call threw: ") + e.what()};
    }
    if (expect_unsupported) {
      sc.upload_queue.finish();
      sc.queue.finish();
      return outcome{false, "single_pass is not available on this device, yet the call did not throw "
                            "unsupported_error"};
    }
    const cl_int waited = await_event(done, sc.queue, [this] { return describe(c); });
    sc.upload_queue.finish();
    if (waited != CL_SUCCESS || done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE)
      return outcome{false, "the returned event did not complete (status " + std::to_string(waited) + ")"};
    return std::nullopt;
  }
};

// The host images of the input and output: one buffer (one_buffer, in_place) or two.
template <typename T> struct images {
  std::vector<T> in, out;
  bool separate = false; // the output has a buffer of its own (`out`), else it is in `in`'s
  bool two() const { return separate; }
};

template <typename T> images<T> lay_out(const primitive_case& c, const std::vector<T>& input) {
  images<T> im;
  const T poison = poison_value<T>();
  if (c.place == placement::one_buffer) {
    im.in.assign(c.buffer_elements, poison);
  } else {
    im.in.assign(c.in_offset + c.n + c.back_guard, poison);
    im.separate = c.place == placement::two_buffers;
    if (im.separate) im.out.assign(c.out_offset + c.n + c.back_guard, poison);
  }
  std::copy(input.begin(), input.end(), im.in.begin() + static_cast<std::ptrdiff_t>(c.in_offset));
  return im;
}

template <typename T> outcome run_selection(fuzz_state& state, const primitive_case& c) {
  shape_context& sc = context_for(state, c.f.shape);
  splitmix64 r{c.data_seed};
  const std::size_t n = c.n;

  // The input, the flags, and what the reference keeps.
  std::vector<T> input;
  if (c.call == call_id::unique) {
    input = make_runs<T>(n, c.mean_run, c.few_values, r);
  } else {
    input.resize(n);
    for (T& x : input) {
      if (c.value_kind == 2) {
        const T magnitude = static_cast<T>(1 + r.next() % 1000);
        if constexpr (std::is_unsigned_v<T>)
          x = r.unit() < c.keep ? magnitude : T(0);
        else
          x = r.unit() < c.keep ? magnitude : static_cast<T>(T(1) - magnitude);
      } else {
        x = draw_value<T>(c.value_kind, r, true);
      }
    }
  }
  std::vector<cl_uchar> flags(n);
  for (cl_uchar& flag : flags)
    flag = r.unit() < c.flag_keep ? static_cast<cl_uchar>(1 + r.next() % 255) : 0;

  // The reference: std::unique_copy (== keeps every NaN, drops a 0 after a -0); for the others, the
  // selected elements in order (the predicates read the index, which std::copy_if does not give), and
  // for partition_if the others after them (std::stable_partition's order).
  std::vector<T> kept, rejected;
  if (c.call == call_id::unique) {
    std::unique_copy(input.begin(), input.end(), std::back_inserter(kept));
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const bool selected =
          c.call == call_id::select_flagged ? flags[i] != 0 : predicate_holds(c.f.predicate, input[i], i);
      (selected ? kept : rejected).push_back(input[i]);
    }
  }
  std::vector<T> result = kept;
  if (c.call == call_id::partition_if) result.insert(result.end(), rejected.begin(), rejected.end());

  // With a capacity, only its first elements of the result are written.
  if (c.capacity && result.size() > *c.capacity) result.resize(*c.capacity);

  images<T> im = lay_out(c, input);
  std::vector<T> out_expected = im.two() ? im.out : im.in;
  std::copy(result.begin(), result.end(), out_expected.begin() + static_cast<std::ptrdiff_t>(c.out_offset));
  std::vector<cl_uchar> flags_image(c.flags_offset + n + 3, 0xA5);
  std::copy(flags.begin(), flags.end(), flags_image.begin() + static_cast<std::ptrdiff_t>(c.flags_offset));
  std::vector<cl_ulong> count_image(c.count_offset + 3, poison_value<cl_ulong>());
  std::vector<cl_ulong> count_expected = count_image;
  count_expected[c.count_offset] = kept.size();

  case_io io{sc, c, {}};
  const cl::Buffer in = io.make(im.in);
  const cl::Buffer out = im.two() ? io.make(im.out) : in;
  const cl::Buffer flag_buffer = io.make(flags_image);
  const cl::Buffer count = io.make(count_image);
  io.upload(in, im.in);
  if (im.two()) io.upload(out, im.out);
  if (c.call == call_id::select_flagged) io.upload(flag_buffer, flags_image);
  io.upload(count, count_image);

  clscan::select_options<T> opts;
  opts.algorithm = c.algo;
  opts.in_offset = c.in_offset;
  opts.out_offset = c.out_offset;
  opts.count_offset = c.count_offset;
  opts.flags_offset = c.flags_offset;
  opts.out_capacity = c.capacity;
  if (has_predicate(c.call)) opts.predicate = predicates[c.f.predicate];
  opts.wait_list = io.uploads;
  const bool unavailable =
      c.algo == algorithm::single_pass && !plan_of(state, c.f.shape, t_ulong).single_pass_available;
  cl::Event done;
  const std::optional<outcome> called = io.call(
      [&] {
        switch (c.call) {
        case call_id::select_if: return clscan::select_if<T>(sc.queue, in, out, count, n, opts);
        case call_id::select_flagged:
          return clscan::select_flagged<T>(sc.queue, in, flag_buffer, out, count, n, opts);
        case call_id::partition_if: return clscan::partition_if<T>(sc.queue, in, out, count, n, opts);
        default: return clscan::unique<T>(sc.queue, in, out, count, n, opts);
        }
      },
      unavailable, done);
  if (called) return *called;

  std::string problems;
  const std::size_t out_end = c.out_offset + result.size();
  problems += compare_image(im.two() ? "output buffer" : "buffer", io.read<T>(out, out_expected.size()),
                            out_expected, 0, 0, c.out_offset, out_end, true);
  problems += compare_image("count buffer", io.read<cl_ulong>(count, count_image.size()), count_expected, 0,
                            0, c.count_offset, c.count_offset + 1, true);
  if (im.two())
    problems += compare_image("input buffer (must be unchanged)", io.read<T>(in, im.in.size()), im.in, 0, 0,
                              c.in_offset, c.in_offset + n, true);
  if (c.call == call_id::select_flagged)
    problems +=
        compare_image("flags buffer (must be unchanged)", io.read<cl_uchar>(flag_buffer, flags_image.size()),
                      flags_image, 0, 0, c.flags_offset, c.flags_offset + n, true);
  if (problems.empty()) return {};
  return outcome{false, problems + "kept " + std::to_string(kept.size()) + " of " + std::to_string(n)};
}

template <typename K, typename T> outcome run_by_key(fuzz_state& state, const primitive_case& c) {
  shape_context& sc = context_for(state, c.f.shape);
  splitmix64 r{c.data_seed};
  const std::size_t n = c.n;
  // fmin and fmax may order +-0 either way: no -0.0 among their values.
  const bool negative_zero = c.f.operation == op::sum;
  std::vector<K> keys = make_runs<K>(n, c.mean_run, c.few_values, r);
  std::vector<T> input(n);
  for (T& x : input)
    x = draw_value<T>(c.value_kind, r, negative_zero);
  const T initial = draw_value<T>(c.value_kind, r, negative_zero);
  const scan_kind kind = c.call == call_id::inclusive_by_key ? scan_kind::inclusive : scan_kind::exclusive;
  const std::vector<T> reference = clscan_reference::scan_by_key(
      keys, input, kind, c.f.operation, c.has_initial ? std::optional<T>(initial) : std::nullopt);

  images<T> im = lay_out(c, input);
  std::vector<T> out_expected = im.two() ? im.out : im.in;
  std::copy(reference.begin(), reference.end(),
            out_expected.begin() + static_cast<std::ptrdiff_t>(c.out_offset));
  std::vector<K> key_image(c.in_offset + n + c.back_guard, poison_value<K>());
  std::copy(keys.begin(), keys.end(), key_image.begin() + static_cast<std::ptrdiff_t>(c.in_offset));

  case_io io{sc, c, {}};
  const cl::Buffer in = io.make(im.in);
  const cl::Buffer out = im.two() ? io.make(im.out) : in;
  const cl::Buffer key_buffer = io.make(key_image);
  io.upload(in, im.in);
  if (im.two()) io.upload(out, im.out);
  io.upload(key_buffer, key_image);

  clscan::options<T> opts;
  opts.algorithm = c.algo;
  opts.operation = c.f.operation;
  if (c.has_initial) opts.initial = initial;
  opts.deterministic = c.deterministic;
  opts.in_offset = c.in_offset;
  opts.out_offset = c.out_offset;
  opts.wait_list = io.uploads;
  const bool unavailable =
      c.algo == algorithm::single_pass && !plan_of(state, c.f.shape, c.f.type).single_pass_available;
  cl::Event done;
  const std::optional<outcome> called = io.call(
      [&] {
        return kind == scan_kind::inclusive
                   ? clscan::inclusive_by_key<K, T>(sc.queue, key_buffer, in, out, n, opts)
                   : clscan::exclusive_by_key<K, T>(sc.queue, key_buffer, in, out, n, opts);
      },
      unavailable, done);
  if (called) return *called;

  std::string problems;
  problems += compare_image(im.two() ? "output buffer" : "buffer", io.read<T>(out, out_expected.size()),
                            out_expected, 0, 0, c.out_offset, c.out_offset + n);
  if (im.two())
    problems += compare_image("input buffer (must be unchanged)", io.read<T>(in, im.in.size()), im.in, 0, 0,
                              c.in_offset, c.in_offset + n, true);
  problems += compare_image("keys buffer (must be unchanged)", io.read<K>(key_buffer, key_image.size()),
                            key_image, 0, 0, c.in_offset, c.in_offset + n, true);
  if (problems.empty()) return {};
  std::size_t segments = 0;
  for (std::size_t i = 0; i < n; ++i)
    segments += i == 0 || !(keys[i] == keys[i - 1]) ? 1 : 0;
  return outcome{false, problems + std::to_string(segments) + " segments" +
                            (c.has_initial ? ", initial value " + show(initial) : std::string())};
}

// f(T{}) with T the host type of `type`.
template <typename F> decltype(auto) with_type(int type, F&& f) {
  switch (type) {
  case t_int: return f(cl_int{});
  case t_uint: return f(cl_uint{});
  case t_long: return f(cl_long{});
  case t_ulong: return f(cl_ulong{});
  case t_float: return f(cl_float{});
  default: return f(cl_double{});
  }
}

outcome run_case(fuzz_state& state, const primitive_case& c) {
  if (by_key(c.call))
    return with_type(c.f.key_type, [&](auto key) {
      return with_type(c.f.type,
                       [&](auto value) { return run_by_key<decltype(key), decltype(value)>(state, c); });
    });
  return with_type(c.f.type, [&](auto value) { return run_selection<decltype(value)>(state, c); });
}

} // namespace

TEST_CASE("fuzz: random selections and scans by key match the CPU reference", "[fuzz][fuzz-primitives]") {
  const run_settings settings = settings_of("CLSCAN_FUZZ_PRIMITIVE_CASES", 2, default_cases);
  const bool fp64 = clscan::capabilities(env().device).fp64;
  print_start("fuzz primitives", settings, "CLSCAN_FUZZ_PRIMITIVE_CASES", fp64);

  fuzz_state state(primitive_shapes());
  const std::vector<family> pool = family_pool(settings.seed, settings.cases, fp64);
  std::cout << "fuzz primitives: cases drawn from " << pool.size()
            << " program families (call, types, operator, predicate, shape, alignment, chaining)"
            << std::endl;
  std::map<std::string, std::map<std::string, std::size_t>> counts; // call -> algorithm -> cases
  const run_totals totals = run_cases(
      settings, "primitive case",
      [&](std::uint64_t index) { return draw_case(state, pool, settings.seed, settings.cases, index); },
      [&](const primitive_case& c) { return run_case(state, c); },
      [&](const primitive_case& c, const outcome&) {
        ++counts[call_name(c.call)][clscan::to_string(c.algo)];
      });

  std::ostringstream summary;
  summary << summary_head("fuzz primitives", settings, totals) << ". Cases per call and algorithm:";
  for (const auto& [call, per_algorithm] : counts) {
    summary << "\n  " << std::setw(16) << call << ":";
    for (const auto& [algo, count] : per_algorithm)
      summary << " " << algo << " " << count;
  }
  std::cout << summary.str() << std::endl;
  report(settings, totals, "primitive cases");
}

// --- sorts ----------------------------------------------------------------------------------------
//
// Random sort, sort_by_key and sorted_order calls against std::stable_sort in numpy's order
// (tools/common/sort_reference.hpp), bit for bit: keys and values of every type, cl_uint and cl_ulong
// indices, every algorithm, ascending and descending, bit ranges (the whole key most often, else any
// [begin_bit, end_bit), empty ones included, which leave every pass trivial), keys random with NaNs,
// -0.0, infinities and denormals, of 7 values, all equal, sorted or reverse sorted, n from 0 to 2^20
// (mostly below 2^16), offsets, in place (keys_out = keys_in; for sort_by_key the values too) and out
// of place, and uploads on another queue that the call waits for. Every buffer has poisoned guards;
// inputs of an out-of-place call and sorted_order's keys must come back unchanged.
//
// As for the other primitives, cases come from a small pool of program families (call, key type,
// value or index type, algorithm): max(4, cases / 10) of them.
//
// Environment: CLSCAN_FUZZ_SEED and CLSCAN_FUZZ_REPLAY as above, CLSCAN_FUZZ_SORT_CASES (default 60,
// or a third of CLSCAN_FUZZ_CASES).
namespace {

enum class sort_call { sort, sort_by_key, sorted_order };

const char* sort_call_name(sort_call call) {
  switch (call) {
  case sort_call::sort: return "sort";
  case sort_call::sort_by_key: return "sort_by_key";
  case sort_call::sorted_order: return "sorted_order";
  }
  return "?";
}

struct sort_family {
  sort_call call = sort_call::sort;
  int key_type = t_int;
  int value_type = t_uint; // sort_by_key: the values; sorted_order: t_uint or t_ulong (the indices)
  algorithm algo = algorithm::automatic;
};

struct sort_case {
  std::uint64_t seed = 0, index = 0, cases = 0, data_seed = 0;
  sort_family f;
  std::size_t n = 0;
  clscan_reference::key_pattern pattern = clscan_reference::key_pattern::mixed;
  bool descending = false, in_place = false, wait_list = false;
  unsigned begin_bit = 0, end_bit = 0;
  std::size_t keys_in_offset = 0, keys_out_offset = 0, values_in_offset = 0, values_out_offset = 0;
};

constexpr std::size_t sort_back_guard = 3;

std::size_t key_bits(int type) { return type == t_int || type == t_uint || type == t_float ? 32 : 64; }

std::string describe(const sort_case& c) {
  std::ostringstream out;
  out << "sort case " << c.index << " of " << c.cases << " (seed " << hex(c.seed)
      << "): " << sort_call_name(c.f.call) << "<" << type_names[c.f.key_type];
  if (c.f.call != sort_call::sort) out << ", " << type_names[c.f.value_type];
  out << "> " << clscan::to_string(c.f.algo) << ", n = " << c.n << ", keys "
      << clscan_reference::key_pattern_name(c.pattern) << (c.descending ? ", descending" : ", ascending")
      << ", bits [" << c.begin_bit << ", " << c.end_bit << ")" << (c.in_place ? ", in place" : "")
      << ", offsets keys " << c.keys_in_offset << " -> " << c.keys_out_offset << ", values "
      << c.values_in_offset << " -> " << c.values_out_offset << (c.wait_list ? ", waits for uploads" : "")
      << "; replay: CLSCAN_FUZZ_SEED=" << hex(c.seed) << " CLSCAN_FUZZ_SORT_CASES=" << c.cases
      << " CLSCAN_FUZZ_REPLAY=" << c.index << " clscan-tests \"[fuzz-sort]\"";
  return out.str();
}

std::vector<sort_family> sort_family_pool(std::uint64_t seed, std::uint64_t cases) {
  splitmix64 r{seed ^ 0x50e7'f4b1'1e5ull};
  const algorithm algorithms[] = {algorithm::automatic, algorithm::single_pass, algorithm::three_stage};
  const std::size_t count = std::max<std::size_t>(4, static_cast<std::size_t>(cases / 10));
  std::vector<sort_family> pool;
  // cl_double too without fp64: the sorts move keys and values as their bits.
  const auto any_type = [&] { return static_cast<int>(r.next() % type_count); };
  for (std::size_t i = 0; i < count; ++i) {
    sort_family f;
    // The first three: one per call.
    f.call = static_cast<sort_call>(i < 3 ? i : r.next() % 3);
    f.key_type = any_type();
    f.value_type = f.call == sort_call::sorted_order ? (r.next() % 3 == 0 ? t_ulong : t_uint) : any_type();
    f.algo = algorithms[i == 3 ? 2 : r.next() % 3];
    pool.push_back(f);
  }
  return pool;
}

sort_case draw_sort_case(const std::vector<sort_family>& pool, std::uint64_t seed, std::uint64_t cases,
                         std::uint64_t index) {
  splitmix64 r{seed ^ (0xD1B54A32D192ED03ull * (index + 1))};
  sort_case c;
  c.seed = seed;
  c.index = index;
  c.cases = cases;
  c.data_seed = r.next();
  c.f = pool[index < pool.size() ? index : r.next() % pool.size()];
  const std::uint64_t size_roll = r.next() % 20;
  c.n = size_roll == 0   ? 0
        : size_roll == 1 ? 1
        : size_roll == 2 ? 2 + r.next() % 100
        : size_roll == 3
            ? (std::size_t{1} << 16) + r.next() % ((std::size_t{1} << 20) - (std::size_t{1} << 16))
            : static_cast<std::size_t>(std::exp2(r.unit() * 16.0)) + r.next() % 3;
  const clscan_reference::key_pattern patterns[] = {
      clscan_reference::key_pattern::mixed,  clscan_reference::key_pattern::mixed,
      clscan_reference::key_pattern::few,    clscan_reference::key_pattern::equal,
      clscan_reference::key_pattern::sorted, clscan_reference::key_pattern::reversed};
  c.pattern = patterns[r.next() % 6];
  c.descending = r.next() % 2 == 0;
  const auto bits = static_cast<unsigned>(key_bits(c.f.key_type));
  c.end_bit = bits;
  if (r.next() % 3 == 0) {
    c.begin_bit = static_cast<unsigned>(r.next() % (bits + 1));
    c.end_bit = c.begin_bit + static_cast<unsigned>(r.next() % (bits - c.begin_bit + 1));
  }
  c.in_place = c.f.call != sort_call::sorted_order && r.next() % 3 == 0;
  const auto offset = [&] { return r.next() % 2 ? std::size_t{0} : static_cast<std::size_t>(r.next() % 40); };
  c.keys_in_offset = offset();
  c.keys_out_offset = c.in_place ? c.keys_in_offset : offset();
  c.values_in_offset = offset();
  c.values_out_offset = c.in_place ? c.values_in_offset : offset();
  c.wait_list = r.next() % 4 == 0;
  return c;
}

template <typename T> std::vector<T> guarded_image(std::size_t front, const std::vector<T>& data) {
  std::vector<T> image(front, poison_value<T>());
  image.insert(image.end(), data.begin(), data.end());
  image.resize(image.size() + sort_back_guard, poison_value<T>());
  return image;
}

// The expected image of an output: `before` (poison, or the input for in place) with data at `front`.
template <typename T>
std::vector<T> expected_image(std::vector<T> before, std::size_t front, const std::vector<T>& data) {
  if (before.size() < front + data.size() + sort_back_guard)
    before.resize(front + data.size() + sort_back_guard, poison_value<T>());
  std::copy(data.begin(), data.end(), before.begin() + static_cast<std::ptrdiff_t>(front));
  return before;
}

// K keys; V the values (sort_by_key) or the indices (sorted_order); unused for sort.
template <typename K, typename V> outcome run_sort_case(const sort_case& c) {
  auto& e = env();
  splitmix64 r{c.data_seed};
  const std::size_t n = c.n;
  const std::vector<K> keys = clscan_reference::make_sort_keys<K>(n, c.pattern, r);
  std::vector<V> values(n);
  for (V& v : values)
    v = random_bits<V>(r);
  const std::vector<std::size_t> order =
      clscan_reference::stable_order(keys, c.descending, c.begin_bit, c.end_bit);
  std::vector<K> sorted_keys(n);
  std::vector<V> sorted_values(n);
  for (std::size_t j = 0; j < n; ++j) {
    sorted_keys[j] = keys[order[j]];
    sorted_values[j] = c.f.call == sort_call::sorted_order ? static_cast<V>(order[j]) : values[order[j]];
  }

  const std::vector<K> keys_in_image = guarded_image(c.keys_in_offset, keys);
  const std::vector<V> values_in_image = guarded_image(c.values_in_offset, values);
  const std::vector<K> keys_out_before(c.keys_out_offset + n + sort_back_guard, poison_value<K>());
  const std::vector<V> values_out_before(c.values_out_offset + n + sort_back_guard, poison_value<V>());
  const bool keys_written = c.f.call != sort_call::sorted_order;
  const bool values_written = c.f.call != sort_call::sort;
  const std::vector<K> keys_expected =
      keys_written
          ? expected_image(c.in_place ? keys_in_image : keys_out_before, c.keys_out_offset, sorted_keys)
          : keys_in_image;
  const std::vector<V> values_expected =
      c.in_place && c.f.call == sort_call::sort_by_key
          ? expected_image(values_in_image, c.values_out_offset, sorted_values)
          : expected_image(values_out_before, c.values_out_offset, sorted_values);

  std::vector<cl::Event> uploads;
  // The uploads read the host images above until they complete: a case that ends before its call has
  // waited for them (a refusal, a failed check) waits here, before the images go.
  struct upload_wait {
    const std::vector<cl::Event>& events;
    ~upload_wait() {
      if (!events.empty()) cl::Event::waitForEvents(events);
    }
  } const wait_at_exit{uploads};
  const auto make = [&](const auto& image) {
    using T = typename std::decay_t<decltype(image)>::value_type;
    cl::Buffer buffer(e.context, CL_MEM_READ_WRITE, image.size() * sizeof(T));
    cl::Event written;
    if (c.wait_list) {
      static thread_local cl::CommandQueue upload_queue(e.context, e.device);
      REQUIRE(upload_queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, image.size() * sizeof(T), image.data(),
                                              nullptr, &written) == CL_SUCCESS);
      upload_queue.flush();
      uploads.push_back(written);
    } else {
      REQUIRE(e.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, image.size() * sizeof(T), image.data()) ==
              CL_SUCCESS);
    }
    return buffer;
  };
  const cl::Buffer keys_in = make(keys_in_image);
  const cl::Buffer values_in = make(values_in_image);
  const cl::Buffer keys_out = c.in_place ? keys_in : make(keys_out_before);
  const cl::Buffer values_out =
      c.in_place && c.f.call == sort_call::sort_by_key ? values_in : make(values_out_before);

  // The drawn case is one type for every key type, so it holds the fields, not a sort_options<K>.
  clscan::sort_options<K> opts;
  opts.algorithm = c.f.algo;
  opts.descending = c.descending;
  opts.begin_bit = c.begin_bit;
  opts.end_bit = c.end_bit;
  opts.keys_in_offset = c.keys_in_offset;
  opts.keys_out_offset = c.keys_out_offset;
  opts.values_in_offset = c.values_in_offset;
  opts.values_out_offset = c.values_out_offset;
  opts.wait_list = uploads;
  cl::Event done;
  try {
    switch (c.f.call) {
    case sort_call::sort: done = clscan::sort<K>(e.queue, keys_in, keys_out, n, opts); break;
    case sort_call::sort_by_key:
      done = clscan::sort_by_key<K, V>(e.queue, keys_in, values_in, keys_out, values_out, n, opts);
      break;
    case sort_call::sorted_order:
      if constexpr (std::is_same_v<V, cl_uint> || std::is_same_v<V, cl_ulong>)
        done = clscan::sorted_order<K, V>(e.queue, keys_in, values_out, n, opts);
      break;
    }
  } catch (const clscan::unsupported_error& error) {
    // A device that does not qualify for the single-pass sort refuses a call that names it.
    if (c.f.algo == algorithm::single_pass) return outcome{true, std::string("refused: ") + error.what()};
    throw;
  }
  REQUIRE(await_event(done, e.queue, [&] { return describe(c); }) == CL_SUCCESS);
  const auto read = [&](const cl::Buffer& buffer, auto zero, std::size_t count) {
    std::vector<decltype(zero)> got(count);
    REQUIRE(e.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, count * sizeof(decltype(zero)), got.data()) ==
            CL_SUCCESS);
    return got;
  };
  std::string problems;
  problems += compare_image(keys_written ? "keys output" : "keys (must be unchanged)",
                            read(keys_written ? keys_out : keys_in, K{}, keys_expected.size()), keys_expected,
                            0, 0, c.keys_out_offset, c.keys_out_offset + n, true);
  if (values_written)
    problems += compare_image(c.f.call == sort_call::sorted_order ? "indices output" : "values output",
                              read(values_out, V{}, values_expected.size()), values_expected, 0, 0,
                              c.values_out_offset, c.values_out_offset + n, true);
  if (!c.in_place && keys_written)
    problems += compare_image("keys input (must be unchanged)", read(keys_in, K{}, keys_in_image.size()),
                              keys_in_image, 0, 0, c.keys_in_offset, c.keys_in_offset + n, true);
  if (!c.in_place && c.f.call == sort_call::sort_by_key)
    problems +=
        compare_image("values input (must be unchanged)", read(values_in, V{}, values_in_image.size()),
                      values_in_image, 0, 0, c.values_in_offset, c.values_in_offset + n, true);
  return problems.empty() ? outcome{} : outcome{false, problems};
}

outcome run_sort(const sort_case& c) {
  return with_type(c.f.key_type, [&](auto key) {
    if (c.f.call == sort_call::sorted_order)
      return c.f.value_type == t_ulong ? run_sort_case<decltype(key), cl_ulong>(c)
                                       : run_sort_case<decltype(key), cl_uint>(c);
    return with_type(c.f.value_type,
                     [&](auto value) { return run_sort_case<decltype(key), decltype(value)>(c); });
  });
}

} // namespace

TEST_CASE("fuzz: random sorts match std::stable_sort in numpy's order", "[fuzz][fuzz-sort]") {
  const run_settings settings = settings_of("CLSCAN_FUZZ_SORT_CASES", 3, 60);
  const std::vector<sort_family> pool = sort_family_pool(settings.seed, settings.cases);
  std::cout << "fuzz sorts: device '" << env().device_name << "', seed " << hex(settings.seed) << ", "
            << (settings.replay ? "replaying case " + std::to_string(*settings.replay)
                                : std::to_string(settings.cases) + " cases")
            << " (CLSCAN_FUZZ_SORT_CASES) from " << pool.size() << " program families" << std::endl;
  std::map<std::string, std::size_t> counts; // "call algorithm" -> cases
  std::size_t refused = 0;
  const run_totals totals = run_cases(
      settings, "sort case",
      [&](std::uint64_t index) { return draw_sort_case(pool, settings.seed, settings.cases, index); },
      [&](const sort_case& c) { return run_sort(c); },
      [&](const sort_case& c, const outcome& result) {
        if (result.ok && !result.problem.empty()) ++refused;
        ++counts[std::string(sort_call_name(c.f.call)) + " " + clscan::to_string(c.f.algo)];
      });
  std::ostringstream summary;
  summary << summary_head("fuzz sorts", settings, totals) << ", " << refused
          << " single_pass calls refused by a device that does not qualify. Cases per call and algorithm:";
  for (const auto& [what, count] : counts)
    summary << "\n  " << what << ": " << count;
  std::cout << summary.str() << std::endl;
  report(settings, totals, "sort cases");
}
