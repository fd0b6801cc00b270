// Differential fuzzing ("[fuzz]"): random scan calls, each compared with a CPU reference.
//
// Every case draws, from its own seeded generator: the element type (cl_int, cl_uint, cl_long,
// cl_ulong, cl_float, and cl_double where the device has fp64), an operator valid for the type (the
// built-in ones and two custom ones per type, one of them not commutative for the unsigned types), n
// (biased to small sizes and to 0..3 tiles +-2 of the plan_for tiles, else log-uniform up to 2^20),
// aligned or unaligned offsets, inclusive or exclusive, an initial value or none, in place, out of
// place, or out of place within one buffer, the algorithm (automatic, single_pass, three_stage), the
// `deterministic` flag, whether the scan waits on uploads made on another queue (wait_list), and the
// launch shape: one of three CLSCAN_TUNING values (the inherited environment, and two small shapes
// that make tiles of 32 and of 18 elements), each with its own cl::Context, since clscan reads the
// tuning once per (context, device).
//
// Integer results must match exactly (wrapping arithmetic); floating-point sums must lie within the
// error bound of tests/unit/types.cpp (1e-5 / 1e-13 of the sum of magnitudes, against a long double
// reference), floating-point min and max exactly. Every element of every buffer outside the scanned
// output range must be unchanged: the poisoned guards, and the input.
//
// Every kernel variant costs a program build the first time (about a second on PoCL with 2 cores), so
// a run draws its cases from a pool of "families" (type, operator, shape, offset alignment; each one
// program per algorithm): max(40, cases / 8) families picked by the seed out of all of them (252 with
// fp64), so that the CI run (300 cases) builds about 70 programs and a long run covers every family.
//
// Environment:
//   CLSCAN_FUZZ_SEED=<n>      the seed (decimal or 0x hex); default fixed, printed at the start
//   CLSCAN_FUZZ_CASES=<n>     number of cases; default 300 (CI), e.g. 20000 for a long local run
//   CLSCAN_FUZZ_REPLAY=<i>    run case i only; with the same seed and CLSCAN_FUZZ_CASES (which sizes the
//                             family pool) it is the same case as in the full run
//   CLSCAN_FUZZ_VERBOSE=1     print every case with its time
// A failing case prints the seed, the number of cases, its index, its full description and the
// command that replays it (tag [fuzz-scans]: this file's cases only; [fuzz] also runs
// fuzz_primitives.cpp's, the selections and scans by key).
#include "reliability/fuzz_common.hpp"
#include "support/guarded.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
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

using namespace clscan_test;
using namespace clscan_test::guarded;
using namespace clscan_test::fuzz;
using clscan::op;
using clscan::scan_kind;

namespace {

constexpr std::uint64_t default_cases = 300;
constexpr std::size_t max_random_n = std::size_t{1} << 20;

// --- element types and operators ------------------------------------------------------------------

enum class data_kind { random_bits, small, unit, wide, mostly_ones, mostly_zeros, mostly_odd, signs };

const char* data_name(data_kind kind) {
  switch (kind) {
  case data_kind::random_bits: return "random bits";
  case data_kind::small: return "small integers in [-3, 3]";
  case data_kind::unit: return "uniform in [-1, 1)";
  case data_kind::wide: return "+-10^[-6, 6]";
  case data_kind::mostly_ones: return "all ones, now and then one bit clear";
  case data_kind::mostly_zeros: return "all zeros, now and then one bit set";
  case data_kind::mostly_odd: return "random odd, now and then even";
  case data_kind::signs: return "+1 and -1";
  }
  return "?";
}

template <typename T> T draw_value(data_kind kind, splitmix64& r) {
  switch (kind) {
  case data_kind::random_bits:
    if constexpr (!is_float<T>) return random_bits<T>(r);
    break;
  case data_kind::small: return static_cast<T>(static_cast<int>(r.next() % 7) - 3);
  case data_kind::unit: return static_cast<T>(r.unit() * 2.0 - 1.0);
  case data_kind::wide: return static_cast<T>((r.unit() * 2.0 - 1.0) * std::pow(10.0, r.unit() * 12.0 - 6.0));
  case data_kind::mostly_ones:
    if constexpr (!is_float<T>) {
      using U = std::make_unsigned_t<T>;
      const std::uint64_t roll = r.next();
      U bits = static_cast<U>(~U{0});
      if (roll % 512 == 0) bits = static_cast<U>(bits & ~(U{1} << ((roll >> 16) % (8 * sizeof(U)))));
      return static_cast<T>(bits);
    }
    break;
  case data_kind::mostly_zeros:
    if constexpr (!is_float<T>) {
      using U = std::make_unsigned_t<T>;
      const std::uint64_t roll = r.next();
      U bits = 0;
      if (roll % 512 == 0) bits = static_cast<U>(U{1} << ((roll >> 16) % (8 * sizeof(U))));
      return static_cast<T>(bits);
    }
    break;
  case data_kind::mostly_odd:
    if constexpr (!is_float<T>) {
      T x = random_bits<T>(r);
      if (r.next() % 4096 != 0) x = static_cast<T>(x | T{1});
      return x;
    }
    break;
  case data_kind::signs: return (r.next() % 3 == 0) ? T(-1) : T(1);
  }
  return T{};
}

// One operator as the library gets it and as the CPU reference computes it.
template <typename T> struct op_case {
  std::string label;
  op operation = op::sum;
  std::string custom_op;
  T custom_identity{};
  T identity{};
  std::function<T(T, T)> combine;
  std::vector<data_kind> data; // data distributions that suit the operator
  bool rounded = false;        // floating-point sum: checked against an error bound
};

template <typename T> std::vector<op_case<T>> make_ops() {
  std::vector<op_case<T>> ops;
  auto add = [&](std::string label, op operation, T identity, std::function<T(T, T)> combine,
                 std::vector<data_kind> data, bool rounded = false, std::string custom = {}) {
    op_case<T> c;
    c.label = std::move(label);
    c.operation = operation;
    c.identity = identity;
    c.custom_op = std::move(custom);
    c.custom_identity = operation == op::custom ? identity : T{};
    c.combine = std::move(combine);
    c.data = std::move(data);
    c.rounded = rounded;
    ops.push_back(std::move(c));
  };
  const auto min_op = [](T a, T b) { return b < a ? b : a; };
  const auto max_op = [](T a, T b) { return a < b ? b : a; };
  if constexpr (is_float<T>) {
    const T inf = std::numeric_limits<T>::infinity();
    // fmin and fmax, whose identity (an exclusive scan's first element) is NaN; the sum's is -0.0.
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const auto fmin_op = [](T a, T b) { return std::fmin(a, b); };
    const auto fmax_op = [](T a, T b) { return std::fmax(a, b); };
    add(
        "sum", op::sum, T(-0.0), [](T a, T b) { return a + b; }, {data_kind::unit, data_kind::small}, true);
    add("min", op::min, nan, fmin_op, {data_kind::wide});
    add("max", op::max, nan, fmax_op, {data_kind::wide});
    add(
        "custom \"a + b\"", op::custom, T(0), [](T a, T b) { return a + b; }, {data_kind::unit}, true,
        "a + b");
    add("custom \"min(a, b)\"", op::custom, inf, min_op, {data_kind::wide}, false, "min(a, b)");
  } else {
    const T lowest = std::numeric_limits<T>::lowest(), highest = std::numeric_limits<T>::max();
    add("sum", op::sum, T(0), wrapping_sum<T>, {data_kind::random_bits, data_kind::small});
    add("min", op::min, highest, min_op, {data_kind::random_bits, data_kind::small});
    add("max", op::max, lowest, max_op, {data_kind::random_bits, data_kind::small});
    add("bit_and", op::bit_and, static_cast<T>(~T(0)), [](T a, T b) { return static_cast<T>(a & b); },
        {data_kind::mostly_ones});
    add("bit_or", op::bit_or, T(0), [](T a, T b) { return static_cast<T>(a | b); },
        {data_kind::mostly_zeros});
    add("bit_xor", op::bit_xor, T(0), [](T a, T b) { return static_cast<T>(a ^ b); },
        {data_kind::random_bits});
    if constexpr (std::is_unsigned<T>::value) {
      add("custom \"a * b\"", op::custom, T(1), wrapping_product<T>, {data_kind::mostly_odd}, false, "a * b");
      add("custom affine composition (not commutative)", op::custom, static_cast<T>(T{1} << affine<T>::half),
          affine<T>::compose, {data_kind::random_bits}, false, affine<T>::expression());
    } else {
      // Products of +1 and -1: no signed overflow (undefined in OpenCL C as in C).
      add("custom \"a * b\"", op::custom, T(1), wrapping_product<T>, {data_kind::signs}, false, "a * b");
      add("custom \"max(a, b)\"", op::custom, lowest, max_op, {data_kind::random_bits}, false, "max(a, b)");
    }
  }
  return ops;
}

template <typename T> const std::vector<op_case<T>>& ops_of() {
  static const std::vector<op_case<T>> ops = make_ops<T>();
  return ops;
}

std::size_t op_count(int type) {
  switch (type) {
  case t_int: return ops_of<cl_int>().size();
  case t_uint: return ops_of<cl_uint>().size();
  case t_long: return ops_of<cl_long>().size();
  case t_ulong: return ops_of<cl_ulong>().size();
  case t_float: return ops_of<cl_float>().size();
  default: return ops_of<cl_double>().size();
  }
}

// --- cases ------------------------------------------------------------------------------------------

enum class placement { out_of_place, in_place, one_buffer };

const char* placement_name(placement p) {
  switch (p) {
  case placement::out_of_place: return "out of place (two buffers)";
  case placement::in_place: return "in place";
  case placement::one_buffer: return "out of place within one buffer";
  }
  return "?";
}

struct fuzz_case {
  std::uint64_t seed = 0;
  std::uint64_t cases = 0; // of the run (sizes the family pool)
  std::uint64_t index = 0;
  int type = t_int;
  std::size_t op_index = 0;
  std::size_t shape = 0;
  clscan::algorithm algo = clscan::algorithm::automatic;
  scan_kind kind = scan_kind::inclusive;
  placement place = placement::out_of_place;
  std::size_t n = 0;
  std::string size_origin;
  bool aligned_offsets = true;
  std::size_t in_offset = 0, out_offset = 0, back_guard = 0;
  std::size_t buffer_elements = 0; // one_buffer: the size of the one buffer
  bool has_initial = false;
  bool deterministic = false;
  bool wait_on_upload_queue = false;
  std::size_t data_choice = 0;
  std::uint64_t data_seed = 0;
};

std::string op_label(int type, std::size_t index) {
  switch (type) {
  case t_int: return ops_of<cl_int>()[index].label;
  case t_uint: return ops_of<cl_uint>()[index].label;
  case t_long: return ops_of<cl_long>()[index].label;
  case t_ulong: return ops_of<cl_ulong>()[index].label;
  case t_float: return ops_of<cl_float>()[index].label;
  default: return ops_of<cl_double>()[index].label;
  }
}

std::string replay_command(const fuzz_case& c) {
  return "CLSCAN_FUZZ_SEED=" + hex(c.seed) + " CLSCAN_FUZZ_CASES=" + std::to_string(c.cases) +
         " CLSCAN_FUZZ_REPLAY=" + std::to_string(c.index) + " clscan-tests \"[fuzz-scans]\"";
}

std::string describe(const fuzz_case& c) {
  std::ostringstream out;
  out << "case " << c.index << " of seed " << hex(c.seed) << " (" << c.cases
      << " cases): " << type_names[c.type] << ", " << op_label(c.type, c.op_index) << ", "
      << clscan::to_string(c.kind) << ", " << clscan::to_string(c.algo)
      << (c.deterministic ? " (deterministic)" : "") << ", n = " << c.n << " (" << c.size_origin << "), "
      << placement_name(c.place) << ", in_offset " << c.in_offset << ", out_offset " << c.out_offset << " ("
      << (c.aligned_offsets ? "multiples of 16" : "unaligned") << "), " << c.back_guard
      << " guard elements after the buffer's last range";
  if (c.place == placement::one_buffer) out << ", one buffer of " << c.buffer_elements << " elements";
  out << ", initial value: " << (c.has_initial ? "drawn from the data" : "none")
      << ", uploads: " << (c.wait_on_upload_queue ? "on another queue, in wait_list" : "blocking, same queue")
      << ", shape: " << shapes()[c.shape].label << ", data seed " << hex(c.data_seed)
      << "; replay: " << replay_command(c);
  return out.str();
}

// A kernel family: everything that selects a program except the algorithm.
struct family {
  int type;
  std::size_t op_index;
  std::size_t shape;
  bool aligned_offsets;
};

// max(40, cases / 8) families (all of them when that is more), picked and ordered by the seed.
std::vector<family> family_pool(std::uint64_t seed, std::uint64_t cases, bool fp64) {
  std::vector<family> all;
  for (int type = 0; type < (fp64 ? type_count : type_count - 1); ++type)
    for (std::size_t op_index = 0; op_index < op_count(type); ++op_index)
      for (std::size_t shape = 0; shape < shapes().size(); ++shape)
        for (bool aligned : {true, false})
          all.push_back({type, op_index, shape, aligned});
  splitmix64 r{seed ^ 0xFA111E5ull};
  for (std::size_t i = all.size() - 1; i > 0; --i)
    std::swap(all[i], all[r.next() % (i + 1)]);
  const std::uint64_t wanted = std::max<std::uint64_t>(40, cases / 8);
  if (wanted < all.size()) all.resize(static_cast<std::size_t>(wanted));
  return all;
}

fuzz_case draw_case(fuzz_state& state, const std::vector<family>& pool, std::uint64_t seed,
                    std::uint64_t cases, std::uint64_t index) {
  splitmix64 r{seed ^ (index * 0xD1B54A32D192ED03ull) ^ 0x5DEECE66Dull};
  r.next();
  fuzz_case c;
  c.seed = seed;
  c.cases = cases;
  c.index = index;
  const family& f = pool[r.next() % pool.size()];
  c.type = f.type;
  c.op_index = f.op_index;
  c.shape = f.shape;
  c.aligned_offsets = f.aligned_offsets;
  const clscan::algorithm algos[] = {clscan::algorithm::automatic, clscan::algorithm::single_pass,
                                     clscan::algorithm::three_stage};
  c.algo = algos[r.next() % 3];
  c.kind = r.next() % 2 ? scan_kind::inclusive : scan_kind::exclusive;
  const std::uint64_t place = r.next() % 10;
  c.place = place < 4 ? placement::out_of_place : place < 8 ? placement::in_place : placement::one_buffer;
  c.has_initial = r.next() % 5 < 2;
  c.deterministic = r.next() % 5 == 0;
  c.wait_on_upload_queue = r.next() % 4 == 0;
  c.data_choice = static_cast<std::size_t>(r.next());
  c.data_seed = r.next();

  // n: small, around 0..3 tiles of a tile size the plan uses, or log-uniform up to 2^20.
  const clscan::dispatch_plan& plan = plan_of(state, c.shape, c.type);
  const std::size_t t3 = tile_of(plan.three_stage), t1 = tile_of(plan.single_pass);
  const std::size_t t1_small = tile_of(plan.single_pass_small);
  const std::size_t small_limit = plan.small_input_bytes / clscan::size_of(element_type_of(c.type));
  const std::uint64_t size_roll = r.next() % 100;
  if (size_roll < 3 && small_limit > 0) {
    // Just above the largest input that runs on the small-input shape (GPUs: 1 MiB), so that the
    // large-input shape is fuzzed too.
    c.n = small_limit + (r.next() % 3) * t1 + r.next() % 5;
    c.size_origin =
        "small-input limit " + std::to_string(small_limit) + " + " + std::to_string(c.n - small_limit);
  } else if (size_roll < 20) {
    c.n = r.next() % 34;
    c.size_origin = "small";
  } else if (size_roll < 65) {
    std::vector<std::pair<std::size_t, std::string>> tiles = {{t3, "three-stage tile " + std::to_string(t3)},
                                                              {t1, "single-pass tile " + std::to_string(t1)}};
    if (t1_small != t1)
      tiles.push_back({t1_small, "small-input single-pass tile " + std::to_string(t1_small)});
    if (t3 * t3 <= max_random_n) tiles.push_back({t3 * t3, "three-stage tile^2 " + std::to_string(t3 * t3)});
    const auto& [tile, name] = tiles[r.next() % tiles.size()];
    const std::size_t k = r.next() % 4;
    const long delta = static_cast<long>(r.next() % 5) - 2;
    const long n = static_cast<long>(k * tile) + delta;
    c.n = n < 0 ? 0 : static_cast<std::size_t>(n);
    c.size_origin =
        std::to_string(k) + " x " + name + (delta < 0 ? " - " : " + ") + std::to_string(std::labs(delta));
  } else {
    const double exponent = r.unit() * 20.0;
    c.n = std::min<std::size_t>(static_cast<std::size_t>(std::pow(2.0, exponent)) + r.next() % 17,
                                max_random_n + 16);
    c.size_origin = "random";
  }

  draw_offsets(r, c.aligned_offsets, c.in_offset, c.out_offset);
  c.back_guard = r.next() % 8;
  if (c.place == placement::in_place) c.in_offset = c.out_offset;
  if (c.place == placement::one_buffer) {
    // Two disjoint ranges in one buffer, the output before or after the input, with a gap of 0..4
    // elements (aligned: the second range starts at the next multiple of 16, or 16 further).
    const std::size_t gap = r.next() % (c.aligned_offsets ? 2 : 5);
    const auto second_start = [&](std::size_t first_end) {
      return c.aligned_offsets ? (first_end + 15) / 16 * 16 + 16 * gap : first_end + gap;
    };
    if (r.next() % 2) {
      c.out_offset = second_start(c.in_offset + c.n);
      c.buffer_elements = c.out_offset + c.n + c.back_guard;
    } else {
      c.in_offset = second_start(c.out_offset + c.n);
      c.buffer_elements = c.in_offset + c.n + c.back_guard;
    }
  }
  return c;
}

// --- running and checking one case ----------------------------------------------------------------

// Waits for `event`; a scan still running after scan_timeout is taken for a hang (fuzz_common.hpp).
cl_int await(const cl::Event& event, const cl::CommandQueue& queue, const fuzz_case& c) {
  return await_event(event, queue, [&c] { return describe(c); });
}

template <typename T> outcome run_typed(fuzz_state& state, const fuzz_case& c) {
  outcome result;
  const op_case<T>& oc = ops_of<T>()[c.op_index];
  shape_context& sc = context_for(state, c.shape);
  const clscan::dispatch_plan& plan = plan_of(state, c.shape, c.type);

  splitmix64 r{c.data_seed};
  const data_kind kind = oc.data[c.data_choice % oc.data.size()];
  std::vector<T> input(c.n);
  for (auto& x : input)
    x = draw_value<T>(kind, r);
  const T initial = draw_value<T>(kind, r);

  // The CPU reference.
  const std::vector<T> reference =
      clscan_reference::scan(input, c.kind, c.has_initial ? initial : oc.identity, oc.combine);

  // Host images of the buffers before the call, and what they must hold after it.
  const T poison = poison_value<T>();
  std::vector<T> in_image, out_image;
  if (c.place == placement::one_buffer) {
    in_image.assign(c.buffer_elements, poison);
  } else {
    in_image.assign(c.in_offset + c.n + c.back_guard, poison);
    if (c.place == placement::out_of_place) out_image.assign(c.out_offset + c.n + c.back_guard, poison);
  }
  std::copy(input.begin(), input.end(), in_image.begin() + static_cast<std::ptrdiff_t>(c.in_offset));
  const bool separate_output = c.place == placement::out_of_place;
  std::vector<T> out_expected = separate_output ? out_image : in_image;
  std::copy(reference.begin(), reference.end(),
            out_expected.begin() + static_cast<std::ptrdiff_t>(c.out_offset));

  const auto make = [&](const std::vector<T>& image) {
    return cl::Buffer(sc.context, CL_MEM_READ_WRITE, std::max<std::size_t>(image.size(), 1) * sizeof(T));
  };
  const cl::Buffer in = make(in_image);
  const cl::Buffer out = separate_output ? make(out_image) : in;

  clscan::options<T> opts;
  opts.algorithm = c.algo;
  opts.operation = oc.operation;
  opts.custom_op = oc.custom_op;
  opts.custom_identity = oc.custom_identity;
  if (c.has_initial) opts.initial = initial;
  opts.deterministic = c.deterministic;
  opts.in_offset = c.in_offset;
  opts.out_offset = c.out_offset;

  const auto upload = [&](const cl::Buffer& buffer, const std::vector<T>& image) {
    if (image.empty()) return;
    if (c.wait_on_upload_queue) {
      cl::Event uploaded;
      REQUIRE(sc.upload_queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, image.size() * sizeof(T), image.data(),
                                                 nullptr, &uploaded) == CL_SUCCESS);
      opts.wait_list.push_back(uploaded);
    } else {
      REQUIRE(sc.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, image.size() * sizeof(T), image.data()) ==
              CL_SUCCESS);
    }
  };
  upload(in, in_image);
  if (separate_output) upload(out, out_image);
  if (c.wait_on_upload_queue) sc.upload_queue.flush();

  const bool expect_unsupported = c.algo == clscan::algorithm::single_pass && !plan.single_pass_available;
  cl::Event done;
  try {
    scoped_env tuning("CLSCAN_TUNING", shapes()[c.shape].tuning);
    const bool in_place_call = c.place == placement::in_place;
    if (c.kind == scan_kind::inclusive)
      done = in_place_call ? clscan::inclusive<T>(sc.queue, in, c.n, opts)
                           : clscan::inclusive<T>(sc.queue, in, out, c.n, opts);
    else
      done = in_place_call ? clscan::exclusive<T>(sc.queue, in, c.n, opts)
                           : clscan::exclusive<T>(sc.queue, in, out, c.n, opts);
  } catch (const clscan::unsupported_error& e) {
    sc.upload_queue.finish();
    if (expect_unsupported) return result;
    result.ok = false;
    result.problem = std::string("unexpected clscan::unsupported_error: ") + e.what();
    return result;
  } catch (const std::exception& e) {
    sc.upload_queue.finish(); // the host images must outlive the uploads
    sc.queue.finish();
    result.ok = false;
    result.problem = std::string("the call threw: ") + e.what();
    return result;
  }
  if (expect_unsupported) {
    result.ok = false;
    result.problem =
        "single_pass is not available on this device, yet the call did not throw unsupported_error; ";
  }
  const cl_int waited = await(done, sc.queue, c);
  sc.upload_queue.finish();
  if (waited != CL_SUCCESS || done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE) {
    result.ok = false;
    result.problem += "the returned event did not complete (status " + std::to_string(waited) + "); ";
    return result;
  }

  const auto read = [&](const cl::Buffer& buffer, std::size_t count) {
    std::vector<T> contents(count);
    if (count)
      REQUIRE(sc.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, count * sizeof(T), contents.data()) ==
              CL_SUCCESS);
    return contents;
  };
  std::string problems;
  const std::vector<T> got_out = read(out, out_expected.size());
  const bool rounded = oc.rounded;
  const std::size_t skip_begin = rounded ? c.out_offset : 0, skip_end = rounded ? c.out_offset + c.n : 0;
  problems += compare_image(separate_output ? "output buffer" : "buffer", got_out, out_expected, skip_begin,
                            skip_end, c.out_offset, c.out_offset + c.n);
  if (rounded)
    problems += check_rounded(got_out, c.out_offset, input, c.kind, c.has_initial ? initial : T(0));
  if (separate_output)
    problems += compare_image("input buffer (must be unchanged)", read(in, in_image.size()), in_image, 0, 0,
                              c.in_offset, c.in_offset + c.n);
  if (!problems.empty()) {
    result.ok = false;
    result.problem += problems + "data: " + data_name(kind) +
                      (c.has_initial ? ", initial value " + show(initial) : std::string());
  }
  return result;
}

outcome run_case(fuzz_state& state, const fuzz_case& c) {
  switch (c.type) {
  case t_int: return run_typed<cl_int>(state, c);
  case t_uint: return run_typed<cl_uint>(state, c);
  case t_long: return run_typed<cl_long>(state, c);
  case t_ulong: return run_typed<cl_ulong>(state, c);
  case t_float: return run_typed<cl_float>(state, c);
  default: return run_typed<cl_double>(state, c);
  }
}

} // namespace

TEST_CASE("fuzz: random scans match the CPU reference", "[fuzz][fuzz-scans]") {
  const run_settings settings = settings_of("CLSCAN_FUZZ_CASES", 1, default_cases);
  const bool fp64 = clscan::capabilities(env().device).fp64;
  print_start("fuzz", settings, "CLSCAN_FUZZ_CASES", fp64);
  for (std::size_t s = 0; s < shapes().size(); ++s)
    std::cout << "fuzz: shape " << s << ": " << shapes()[s].label << "\n";

  fuzz_state state(shapes());
  const std::vector<family> pool = family_pool(settings.seed, settings.cases, fp64);
  std::cout << "fuzz: cases drawn from " << pool.size()
            << " kernel families (type, operator, shape, alignment)" << std::endl;
  std::map<std::string, std::map<std::string, std::size_t>> counts; // algorithm -> type -> cases
  std::map<std::string, std::size_t> shape_counts;
  const run_totals totals = run_cases(
      settings, "case",
      [&](std::uint64_t index) { return draw_case(state, pool, settings.seed, settings.cases, index); },
      [&](const fuzz_case& c) { return run_case(state, c); },
      [&](const fuzz_case& c, const outcome&) {
        ++counts[clscan::to_string(c.algo)][type_names[c.type]];
        ++shape_counts[shapes()[c.shape].label];
      });

  std::ostringstream summary;
  summary << summary_head("fuzz", settings, totals) << ". Cases per algorithm and type:";
  for (const auto& [algo, per_type] : counts) {
    summary << "\n  " << std::setw(11) << algo << ":";
    std::size_t total = 0;
    for (const auto& [type, count] : per_type) {
      summary << " " << type << " " << count;
      total += count;
    }
    summary << " (total " << total << ")";
  }
  summary << "\n  per shape:";
  for (const auto& [label, count] : shape_counts)
    summary << " [" << label << "] " << count;
  std::cout << summary.str() << std::endl;
  report(settings, totals, "cases");
}
