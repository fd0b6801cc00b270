// Every element type with every operator: cl_int, cl_uint, cl_long, cl_ulong, cl_float, cl_double
// (when the device has fp64) x sum, min, max, bit_and, bit_or, bit_xor (integers) and custom
// operators (commutative and not) x inclusive / exclusive x in place / out of place, around the tile of
// each type. Integer results are exact; floating-point sums are checked against a long double reference
// with an error bound, floating-point min and max exactly.
#include "support/guarded.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

using namespace clscan_test;
using namespace clscan_test::guarded;
using clscan::op;
using clscan::scan_kind;

namespace {

constexpr std::uint64_t data_seed = 0x7e57'0000'7195ull;

// A hash of an operator's label that is the same everywhere, to vary the data between operators.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text)
    hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

template <typename T> constexpr bool is_float = std::is_floating_point<T>::value;

template <typename T> const char* type_name() { return clscan::opencl_name(clscan::element_traits<T>::type); }

template <typename T> std::size_t tile_for() {
  const clscan::tuning shape = clscan::plan_for(env().device, clscan::element_traits<T>::type).three_stage;
  return shape.work_group_size * shape.items_per_thread;
}

// What every failure of a type's cases names first.
template <typename T> std::string type_context() {
  std::ostringstream text;
  text << "device: " << env().device_name << ", type: " << type_name<T>() << ", tile: " << tile_for<T>()
       << ", data_seed: " << data_seed;
  return text.str();
}

// {0..9 without 6, tile-1, tile, tile+1, 2*tile+3, tile*tile+1 (up to 4M elements), 100003}.
template <typename T> std::vector<std::size_t> sizes_for() {
  const std::size_t tile = tile_for<T>();
  std::vector<std::size_t> sizes = {0, 1, 2, 3, 4, 5, 7, 8, 9, tile - 1, tile, tile + 1, 2 * tile + 3};
  if (tile * tile + 1 <= (std::size_t{4} << 20)) sizes.push_back(tile * tile + 1);
  sizes.push_back(100003);
  return sizes;
}

// cl_double runs only on devices with fp64; elsewhere every cl_double call must throw
// clscan::unsupported_error (checked) and the test says so.
template <typename T> bool type_runs() {
  if (!std::is_same<T, cl_double>::value || clscan::capabilities(env().device).fp64) return true;
  cl::Buffer buffer = make_buffer(std::vector<T>(8, T(1)));
  CHECK_THROWS_AS(clscan::inclusive<T>(env().queue, buffer, 8), clscan::unsupported_error);
  CHECK_THROWS_AS(clscan::exclusive<T>(env().queue, buffer, 8), clscan::unsupported_error);
  WARN("device '" << env().device_name << "' has no fp64: checked that cl_double scans throw "
                  << "clscan::unsupported_error; cl_double results not tested");
  return false;
}

// One operator as the library gets it and as the CPU reference computes it.
template <typename T> struct op_case {
  std::string label;
  op operation = op::sum;
  std::string custom_op;                                        // op::custom
  T custom_identity{};                                          // op::custom
  T identity{};                                                 // of the reference
  std::function<T(T, T)> combine;                               // a op b, a first
  std::function<std::vector<T>(std::size_t, splitmix64&)> data; // input of n elements
  bool rounded = false; // floating-point sum: compared with an error bound, else exactly
  clscan::algorithm algo = clscan::algorithm::three_stage;
  // Offsets that are multiples of 4 elements (aligned vector loads) or not. Each operator runs with one
  // kind only: every kernel variant costs a program build (seconds on a CPU device), so the two kinds
  // alternate between the operators of a type.
  bool aligned = true;
};

// --- input data ---

template <typename T> T random_bits(splitmix64& r) {
  const std::uint64_t bits = r.next();
  T value;
  std::memcpy(&value, &bits, sizeof value); // little-endian: the low bytes
  return value;
}

template <typename T> std::function<std::vector<T>(std::size_t, splitmix64&)> random_data() {
  return [](std::size_t n, splitmix64& r) {
    std::vector<T> v(n);
    for (auto& x : v) {
      if constexpr (is_float<T>)
        x = static_cast<T>(r.unit() * 2.0 - 1.0);
      else
        x = random_bits<T>(r);
    }
    return v;
  };
}

// Floating-point values over a wide range, for min and max.
template <typename T> std::function<std::vector<T>(std::size_t, splitmix64&)> wide_data() {
  return [](std::size_t n, splitmix64& r) {
    std::vector<T> v(n);
    for (auto& x : v)
      x = static_cast<T>((r.unit() * 2.0 - 1.0) * std::pow(10.0, r.unit() * 12.0 - 6.0));
    return v;
  };
}

// Every bit set (`ones`) or clear, except now and then one flipped: prefix ANDs (of ones) or ORs (of
// zeros) change slowly over many tiles.
template <typename T> std::function<std::vector<T>(std::size_t, splitmix64&)> mostly(bool ones) {
  return [ones](std::size_t n, splitmix64& r) {
    using U = std::make_unsigned_t<T>;
    std::vector<T> v(n);
    for (auto& x : v) {
      const std::uint64_t roll = r.next();
      U bits = ones ? static_cast<U>(~U{0}) : U{0};
      if (roll % 2048 == 0) bits = static_cast<U>(bits ^ (U{1} << ((roll >> 16) % (8 * sizeof(U)))));
      std::memcpy(&x, &bits, sizeof x);
    }
    return v;
  };
}

template <typename T> std::function<std::vector<T>(std::size_t, splitmix64&)> mostly_ones() {
  return mostly<T>(true);
}

template <typename T> std::function<std::vector<T>(std::size_t, splitmix64&)> mostly_zeros() {
  return mostly<T>(false);
}

// Odd values (and a rare even one), so that wrapping products stay non-zero for a long time.
template <typename T> std::function<std::vector<T>(std::size_t, splitmix64&)> mostly_odd() {
  return [](std::size_t n, splitmix64& r) {
    std::vector<T> v(n);
    for (auto& x : v) {
      x = random_bits<T>(r);
      if (r.next() % 4096 != 0) x = static_cast<T>(x | T{1});
    }
    return v;
  };
}

// +1 and -1: products of signed values that never overflow.
template <typename T> std::function<std::vector<T>(std::size_t, splitmix64&)> signs() {
  return [](std::size_t n, splitmix64& r) {
    std::vector<T> v(n);
    for (auto& x : v)
      x = (r.next() % 3 == 0) ? T(-1) : T(1);
    return v;
  };
}

// --- the operators ---

// A case of `operation` with its identity, the host's combine and the data; the other fields as
// op_case has them.
template <typename T>
op_case<T> make_op_case(std::string label, op operation, T identity, std::function<T(T, T)> combine,
                        std::function<std::vector<T>(std::size_t, splitmix64&)> data, bool rounded,
                        bool aligned) {
  op_case<T> c;
  c.label = std::move(label);
  c.operation = operation;
  c.identity = identity;
  c.combine = std::move(combine);
  c.data = std::move(data);
  c.rounded = rounded;
  c.aligned = aligned;
  return c;
}

template <typename T> std::vector<op_case<T>> builtin_cases() {
  const T lowest = std::numeric_limits<T>::lowest(), highest = std::numeric_limits<T>::max();
  std::vector<op_case<T>> cases;
  auto add = [&](std::string label, op operation, T identity, std::function<T(T, T)> combine,
                 std::function<std::vector<T>(std::size_t, splitmix64&)> data, bool rounded = false) {
    cases.push_back(make_op_case(std::move(label), operation, identity, std::move(combine), std::move(data),
                                 rounded, cases.size() % 2 == 0));
  };
  if constexpr (is_float<T>) {
    // fmin and fmax, whose identity (an exclusive scan's first element) is NaN; the sum's is -0.0.
    const T nan = std::numeric_limits<T>::quiet_NaN();
    add(
        "sum", op::sum, T(-0.0), [](T a, T b) { return a + b; }, random_data<T>(), true);
    add(
        "min", op::min, nan, [](T a, T b) { return std::fmin(a, b); }, wide_data<T>());
    add(
        "max", op::max, nan, [](T a, T b) { return std::fmax(a, b); }, wide_data<T>());
  } else {
    add("sum", op::sum, T(0), wrapping_sum<T>, random_data<T>());
    add(
        "min", op::min, highest, [](T a, T b) { return b < a ? b : a; }, random_data<T>());
    add(
        "max", op::max, lowest, [](T a, T b) { return a < b ? b : a; }, random_data<T>());
    add(
        "bit_and", op::bit_and, static_cast<T>(~T(0)), [](T a, T b) { return static_cast<T>(a & b); },
        mostly_ones<T>());
    add(
        "bit_or", op::bit_or, T(0), [](T a, T b) { return static_cast<T>(a | b); }, mostly_zeros<T>());
    add(
        "bit_xor", op::bit_xor, T(0), [](T a, T b) { return static_cast<T>(a ^ b); }, random_data<T>());
  }
  return cases;
}

template <typename T> std::vector<op_case<T>> custom_cases() {
  std::vector<op_case<T>> cases;
  auto add = [&](std::string expression, T identity, std::function<T(T, T)> combine,
                 std::function<std::vector<T>(std::size_t, splitmix64&)> data, bool rounded = false,
                 clscan::algorithm algo = clscan::algorithm::three_stage) {
    op_case<T> c = make_op_case("custom \"" + expression + "\"", op::custom, identity, std::move(combine),
                                std::move(data), rounded, cases.size() % 2 == 1);
    c.custom_op = std::move(expression);
    c.custom_identity = identity;
    c.algo = algo;
    cases.push_back(std::move(c));
  };
  // Every variant is a program build of a few seconds on a CPU device, so the commutative custom
  // operators are spread over the types: "min(a, b)" on cl_int, cl_ulong and the floating-point types,
  // "(a) ^ (b)" on cl_uint and cl_long, each at both widths and both signednesses.
  const T min_identity = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                              : std::numeric_limits<T>::max();
  const auto min_op = [](T a, T b) { return b < a ? b : a; };
  if constexpr (is_float<T>) {
    add(
        "a + b", T(0), [](T a, T b) { return a + b; }, random_data<T>(), true);
    add("min(a, b)", min_identity, min_op, wide_data<T>());
  } else {
    if constexpr (std::is_same<T, cl_int>::value || std::is_same<T, cl_ulong>::value)
      add("min(a, b)", min_identity, min_op, random_data<T>());
    else
      add(
          "(a) ^ (b)", T(0), [](T a, T b) { return static_cast<T>(a ^ b); }, random_data<T>());
    if constexpr (std::is_unsigned<T>::value) {
      // Wraps modulo 2^32 (2^64).
      add("a * b", T(1), wrapping_product<T>, mostly_odd<T>());
      // Not commutative: the order of combination is checked too, with the automatic algorithm (the
      // single-pass look-back above one tile where the device has it) as well as three-stage.
      add(affine<T>::expression(), static_cast<T>(T{1} << affine<T>::half), affine<T>::compose,
          random_data<T>(), false, clscan::algorithm::automatic);
    } else {
      // Products of +1 and -1: no signed overflow (undefined in OpenCL C as in C).
      add("a * b", T(1), wrapping_product<T>, signs<T>());
    }
  }
  return cases;
}

// --- references and checks ---

template <typename T> std::vector<T> cpu_scan(const std::vector<T>& in, scan_kind kind, const op_case<T>& c) {
  return clscan_reference::scan(in, kind, c.identity, c.combine);
}

// Floating-point sums within guarded::check_rounded's bound (no initial value).
template <typename T>
void check_rounded_sum(const std::vector<T>& got, std::size_t offset, const std::vector<T>& in,
                       scan_kind kind) {
  const std::string problem = check_rounded(got, offset, in, kind, T(0));
  INFO("scanned range: " << problem);
  CHECK(problem.empty());
}

template <typename T> clscan::options<T> options_for(const op_case<T>& c) {
  clscan::options<T> opts;
  opts.algorithm = c.algo;
  opts.operation = c.operation;
  opts.custom_op = c.custom_op;
  opts.custom_identity = c.custom_identity;
  return opts;
}

template <typename T>
cl::Event call_scan(scan_kind kind, bool in_place, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                    const clscan::options<T>& opts) {
  const cl::CommandQueue& q = env().queue;
  if (in_place)
    return kind == scan_kind::inclusive ? clscan::inclusive<T>(q, in, n, opts)
                                        : clscan::exclusive<T>(q, in, n, opts);
  return kind == scan_kind::inclusive ? clscan::inclusive<T>(q, in, out, n, opts)
                                      : clscan::exclusive<T>(q, in, out, n, opts);
}

// One scan on guarded buffers: the result (exact, or within the error bound), the guards, and (out of
// place) the unchanged input. `reference` is the exact expected result where there is one.
template <typename T>
void run_scan(const op_case<T>& c, const clscan::options<T>& base, const std::vector<T>& input,
              scan_kind kind, bool in_place, const std::vector<T>& reference) {
  const std::size_t n = input.size();
  // Front guards of 4 or 8 elements (multiples of every vector width up to 4) or of 3 or 5.
  const std::size_t out_front = c.aligned ? 8 : 5, in_front = in_place ? out_front : (c.aligned ? 4 : 3),
                    back = 5;
  const char* kind_name = clscan::to_string(kind);
  const char* algorithm = clscan::to_string(base.algorithm);
  CAPTURE(n, kind_name, in_place, algorithm, in_front, out_front);

  clscan::options<T> opts = base;
  opts.in_offset = in_front;
  opts.out_offset = out_front;
  const cl::Buffer in = make_buffer(guarded_image(&input, n, in_front, back));
  const cl::Buffer out = in_place ? in : make_buffer(guarded_image<T>(nullptr, n, out_front, back));
  cl::Event done = call_scan<T>(kind, in_place, in, out, n, opts);
  REQUIRE(done.wait() == CL_SUCCESS);
  CHECK(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE);

  const std::vector<T> got = read_buffer<T>(out, out_front + n + back);
  if (c.rounded && !base.initial)
    check_rounded_sum(got, out_front, input, kind);
  else
    check_exact("scanned range", got, out_front, reference);
  check_guards("guards", got, out_front, n);
  if (!in_place)
    check_exact("input buffer, guards included (must be unchanged)", read_buffer<T>(in, in_front + n + back),
                0, guarded_image(&input, n, in_front, back));
}

// Every case of `cases` x sizes_for<T>() x inclusive / exclusive x out of place / in place.
template <typename T> void run_cases(const std::vector<op_case<T>>& cases) {
  INFO(type_context<T>());
  for (const op_case<T>& c : cases) {
    const std::string& operation = c.label;
    CAPTURE(operation);
    for (std::size_t n : sizes_for<T>()) {
      splitmix64 r{data_seed ^ (n * 0x9e37ull) ^ fnv1a(c.label)};
      const std::vector<T> input = c.data(n, r);
      for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
        const std::vector<T> reference = c.rounded ? std::vector<T>{} : cpu_scan(input, kind, c);
        for (bool in_place : {false, true})
          run_scan(c, options_for(c), input, kind, in_place, reference);
      }
    }
  }
}

} // namespace

TEMPLATE_TEST_CASE("types: built-in operators match the CPU (three_stage)", "[types]", cl_int, cl_uint,
                   cl_long, cl_ulong, cl_float, cl_double) {
  if (type_runs<TestType>()) run_cases(builtin_cases<TestType>());
}

// The default algorithm: three-stage up to one tile, single-pass above it where the device can.
TEMPLATE_TEST_CASE("types: sum with the automatic algorithm", "[types]", cl_int, cl_uint, cl_long, cl_ulong,
                   cl_float, cl_double) {
  using T = TestType;
  if (!type_runs<T>()) return;
  std::vector<op_case<T>> cases;
  for (op_case<T> c : builtin_cases<T>())
    if (c.operation == op::sum) {
      c.algo = clscan::algorithm::automatic;
      cases.push_back(c);
    }
  REQUIRE(cases.size() == 1);
  run_cases(cases);
}

TEMPLATE_TEST_CASE("types: custom operators match the CPU", "[types]", cl_int, cl_uint, cl_long, cl_ulong,
                   cl_float, cl_double) {
  if (type_runs<TestType>()) run_cases(custom_cases<TestType>());
}

TEMPLATE_TEST_CASE("types: initial values with sum and max", "[types]", cl_int, cl_uint, cl_long, cl_ulong,
                   cl_float, cl_double) {
  using T = TestType;
  if (!type_runs<T>()) return;
  const std::size_t tile = tile_for<T>();
  INFO(type_context<T>());
  // Integer-valued floating-point data keeps these sums exact.
  const T initial = is_float<T> ? T(-37) : static_cast<T>(std::numeric_limits<T>::max() - 11);
  for (op_case<T> c : builtin_cases<T>()) {
    if (c.operation != op::sum && c.operation != op::max) continue;
    const std::string& operation = c.label;
    CAPTURE(operation);
    // Sum with the automatic algorithm (single-pass above one tile), max with three-stage: the program
    // variants of the other tests.
    if (c.operation == op::sum) c.algo = clscan::algorithm::automatic;
    clscan::options<T> opts = options_for(c);
    opts.initial = initial;
    op_case<T> seeded = c;
    seeded.identity = initial; // the reference starts from the initial value
    for (std::size_t n : {std::size_t{1}, std::size_t{9}, tile + 1, std::size_t{100003}}) {
      splitmix64 r{data_seed + n};
      std::vector<T> input = c.data(n, r);
      if constexpr (is_float<T>)
        for (auto& x : input)
          x = std::round(x * 64);
      for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive})
        for (bool in_place : {false, true})
          run_scan(c, opts, input, kind, in_place, cpu_scan(input, kind, seeded));
    }
  }
}

TEMPLATE_TEST_CASE("types: bitwise operators on floating-point types throw invalid_argument", "[types]",
                   cl_float, cl_double) {
  using T = TestType;
  if (!type_runs<T>()) return;
  const std::vector<T> input(16, T(1.5));
  const cl::Buffer in = make_buffer(input);
  const cl::Buffer out = make_buffer(std::vector<T>(16, poison_value<T>()));
  for (op operation : {op::bit_and, op::bit_or, op::bit_xor}) {
    const char* operation_name = clscan::to_string(operation);
    CAPTURE(operation_name);
    clscan::options<T> opts;
    opts.operation = operation;
    CHECK_THROWS_AS(clscan::inclusive<T>(env().queue, in, out, 16, opts), clscan::invalid_argument);
    CHECK_THROWS_AS(clscan::exclusive<T>(env().queue, in, out, 16, opts), clscan::invalid_argument);
    CHECK_THROWS_AS(clscan::inclusive<T>(env().queue, in, 16, opts), clscan::invalid_argument);
    CHECK_THROWS_AS(clscan::exclusive<T>(env().queue, in, 16, opts), clscan::invalid_argument);
  }
  // Thrown before anything was enqueued: both buffers are as they were.
  check_exact("input", read_buffer<T>(in, 16), 0, input);
  check_exact("output", read_buffer<T>(out, 16), 0, std::vector<T>(16, poison_value<T>()));
}

TEMPLATE_TEST_CASE("types: deterministic floating-point scans give the same bits twice", "[types]", cl_float,
                   cl_double) {
  using T = TestType;
  if (!type_runs<T>()) return;
  const std::size_t tile = tile_for<T>();
  INFO(type_context<T>());
  const op_case<T> sum = builtin_cases<T>().front();
  REQUIRE(sum.operation == op::sum);
  const bool single_pass = clscan::qualify_single_pass(env().device, clscan::element_traits<T>::type).passed;
  for (clscan::algorithm algo :
       {clscan::algorithm::automatic, clscan::algorithm::three_stage, clscan::algorithm::single_pass})
    for (std::size_t n : {tile + 1, 2 * tile + 3, std::size_t{100003}, std::size_t{1} << 20})
      for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
        if (algo == clscan::algorithm::single_pass && !single_pass) continue;
        const char* algorithm = clscan::to_string(algo);
        const char* kind_name = clscan::to_string(kind);
        CAPTURE(algorithm, n, kind_name);
        splitmix64 r{data_seed * 3 + n};
        const std::vector<T> input = sum.data(n, r);
        const cl::Buffer in = make_buffer(input);
        clscan::options<T> opts;
        opts.algorithm = algo;
        opts.deterministic = true;
        std::vector<std::vector<T>> results;
        for (int run = 0; run < 2; ++run) {
          const cl::Buffer out = make_buffer(std::vector<T>(n, poison_value<T>()));
          REQUIRE(call_scan<T>(kind, false, in, out, n, opts).wait() == CL_SUCCESS);
          results.push_back(read_buffer<T>(out, n));
        }
        check_rounded_sum(results[0], 0, input, kind);
        check_exact("second run against the first, bit for bit", results[1], 0, results[0]);
      }
}

// Deterministic single-pass scans combine the tiles' totals in a fixed tree of radix 16
// (kernels/tile_prefix.cl, CLSCAN_FIXED_ORDER): tile counts 0x11, 0x111 and 0x1111 give tiles with
// groups before them on two, three and four levels. llvmpipe dropped level 0 from tile 17 on in
// work-groups narrower than its SIMD width (ctest rusticl-deterministic-narrow runs this in
// work-groups of 5).
TEMPLATE_TEST_CASE("types: deterministic scans through every level of the fixed tree",
                   "[types][deterministic-tree]", cl_float, cl_double) {
  using T = TestType;
  if (!type_runs<T>()) return;
  const clscan::dispatch_plan plan = clscan::plan_for(env().device, clscan::element_traits<T>::type);
  if (!clscan::qualify_single_pass(env().device, clscan::element_traits<T>::type).passed) {
    // ctest rusticl-deterministic-narrow reports this as skipped.
    std::cout << "deterministic-tree: skipped: single-pass is not qualified on " << env().device_name << "\n";
    WARN("skipped: single-pass is not qualified on " << env().device_name);
    return;
  }
  INFO(type_context<T>());
  const op_case<T> sum = builtin_cases<T>().front();
  REQUIRE(sum.operation == op::sum);
  for (const clscan::tuning& shape : {plan.single_pass_small, plan.single_pass})
    for (std::size_t tiles : {std::size_t{0x11}, std::size_t{0x111}, std::size_t{0x1111}}) {
      const std::size_t n = tiles * shape.work_group_size * shape.items_per_thread + 3;
      if (n > (std::size_t{1} << 23)) continue; // the CPU shapes' larger tiles
      for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
        const char* kind_name = clscan::to_string(kind);
        CAPTURE(tiles, n, kind_name);
        splitmix64 r{data_seed * 5 + n};
        const std::vector<T> input = sum.data(n, r);
        const cl::Buffer in = make_buffer(input);
        const cl::Buffer out = make_buffer(std::vector<T>(n, poison_value<T>()));
        clscan::options<T> opts;
        opts.algorithm = clscan::algorithm::single_pass;
        opts.deterministic = true;
        REQUIRE(call_scan<T>(kind, false, in, out, n, opts).wait() == CL_SUCCESS);
        check_rounded_sum(read_buffer<T>(out, n), 0, input, kind);
      }
    }
}

// Floating-point min and max are fmin and fmax on every algorithm, shape and mode: a NaN never hides
// a number (a run that started with a NaN used to carry it as its total, so three-stage lost the -7
// below), and an inclusive scan's first element is the input's, bit for bit (-0.0 stayed -0.0 only
// with the sum's identity -0.0; a NaN became +inf through min's old identity).
TEMPLATE_TEST_CASE("types: NaN in floating-point min and max never hides a number", "[types]", cl_float,
                   cl_double) {
  using T = TestType;
  if (!type_runs<T>()) return;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::size_t tile = tile_for<T>();
  std::vector<std::vector<T>> inputs;
  inputs.emplace_back(5000, T(1));
  inputs.back()[256] = nan, inputs.back()[257] = T(-7);
  for (std::size_t n : {std::size_t{5000}, 3 * tile + 17}) {
    // NaNs at run and tile starts, and a NaN first element.
    splitmix64 r{n};
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i)
      v[i] = (i % 7 == 0 || r.next() % 5 == 0)
                 ? nan
                 : static_cast<T>(static_cast<double>(r.next() % 2001) - 1000.0);
    inputs.push_back(std::move(v));
  }
  for (std::size_t which = 0; which < inputs.size(); ++which) {
    const std::vector<T>& input = inputs[which];
    const std::size_t n = input.size();
    for (op operation : {op::min, op::max}) {
      std::vector<T> expected(n);
      T running = nan;
      for (std::size_t i = 0; i < n; ++i)
        expected[i] = running =
            operation == op::min ? std::fmin(running, input[i]) : std::fmax(running, input[i]);
      for (clscan::algorithm algo :
           {clscan::algorithm::automatic, clscan::algorithm::three_stage, clscan::algorithm::single_pass})
        for (bool deterministic : {false, true}) {
          if (algo == clscan::algorithm::single_pass &&
              !clscan::qualify_single_pass(env().device, clscan::element_traits<T>::type).passed)
            continue;
          const char* algorithm = clscan::to_string(algo);
          const char* operation_name = operation == op::min ? "min" : "max";
          CAPTURE(which, n, algorithm, operation_name, deterministic);
          clscan::options<T> opts;
          opts.algorithm = algo;
          opts.operation = operation;
          opts.deterministic = deterministic;
          const cl::Buffer in = make_buffer(input);
          const cl::Buffer out = make_buffer(std::vector<T>(n, poison_value<T>()));
          REQUIRE(clscan::inclusive<T>(env().queue, in, out, n, opts).wait() == CL_SUCCESS);
          check_exact("inclusive", read_buffer<T>(out, n), 0, expected);
        }
    }
  }
  if (inputs.front().size() == 5000) {
    clscan::options<T> opts;
    opts.operation = op::min;
    opts.algorithm = clscan::algorithm::three_stage;
    const cl::Buffer in = make_buffer(inputs.front());
    REQUIRE(clscan::inclusive<T>(env().queue, in, inputs.front().size(), opts).wait() == CL_SUCCESS);
    CHECK(read_buffer<T>(in, 5000)[4999] == T(-7));
  }
  // The first element, bit for bit: -0.0 through a sum, a NaN through min and max.
  for (op operation : {op::sum, op::min, op::max})
    for (const T first : {T(-0.0), nan}) {
      if (operation == op::sum && first != first) continue; // NaN + ... is NaN anyway
      const std::vector<T> input = {first, T(2), T(3)};
      clscan::options<T> opts;
      opts.operation = operation;
      const cl::Buffer buffer = make_buffer(input);
      REQUIRE(clscan::inclusive<T>(env().queue, buffer, 3, opts).wait() == CL_SUCCESS);
      const T got = read_buffer<T>(buffer, 1)[0];
      CHECK(same_value(got, first)); // -0.0 bit for bit; a NaN stays a NaN (its payload may not)
    }
}
