// Named scalar parameters (options::parameters, select_options::parameters) and key_equal: the values
// reach the predicate, the custom operator and key_equal as kernel arguments, so a repeat call with
// new values gives the new results and builds nothing (clscan::cached_programs stays); every algorithm
// and size class honours them; key_equal groups neighbouring keys as a sequential reference does; bad
// names and misplaced key_equal are refused before anything is enqueued, buffers untouched.
#include "support/environment.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

using namespace clscan_test;
using Catch::Matchers::Contains;

namespace {

// Sizes around the edges of tiles and size classes: empty, one element, a few tiles of every shape the
// device may take, and one large enough for the large-input shapes.
const std::size_t sizes[] = {0, 1, 255, 256, 257, 4097, 70'001, 600'001};

const clscan::algorithm algorithms[] = {clscan::algorithm::automatic, clscan::algorithm::three_stage};

template <typename T> std::vector<T> sample(std::size_t n, int period) {
  std::vector<T> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<T>((i * 7919) % static_cast<std::size_t>(period));
  return data;
}

bool fp64() { return clscan::capabilities(env().device).fp64; }

// The buffers of the refusal cases: sample ints in `in`, poison in `out`, both to be found unchanged.
struct refusal_buffers {
  std::size_t n = 1000;
  std::vector<cl_int> data = sample<cl_int>(n, 100);
  cl::Buffer in = make_buffer(data);
  std::vector<cl_int> poison = std::vector<cl_int>(n, poison_value<cl_int>());
  cl::Buffer out = make_buffer(poison);

  // Nothing the refused calls left on the queue changed either buffer.
  void check_unchanged() const {
    REQUIRE(env().queue.finish() == CL_SUCCESS);
    CHECK(read_buffer<cl_int>(out, n) == poison);
    CHECK(read_buffer<cl_int>(in, n) == data);
  }
};

// Every scan algorithm: single_pass only where the device runs it for `type`.
std::vector<clscan::algorithm> scan_algorithms(clscan::element_type type) {
  std::vector<clscan::algorithm> out = {clscan::algorithm::automatic, clscan::algorithm::three_stage};
  if (clscan::plan_for(env().device, type).single_pass_available)
    out.push_back(clscan::algorithm::single_pass);
  return out;
}

template <typename T> void check_select_threshold(clscan::algorithm algo) {
  auto& e = env();
  const std::vector<T> thresholds = {T(10), T(90), T(0), T(50)};
  for (const std::size_t n : sizes) {
    INFO("n = " << n << ", algorithm " << static_cast<int>(algo));
    const std::vector<T> data = sample<T>(n, 100);
    const cl::Buffer in = make_buffer(data);
    const cl::Buffer out = make_buffer(std::vector<T>(n, poison_value<T>()));
    const cl::Buffer count = make_buffer(std::vector<cl_ulong>(1, poison_value<cl_ulong>()));
    clscan::select_options<T> opts;
    opts.algorithm = algo;
    opts.predicate = "x > threshold && (i & skip) == 0";
    std::size_t programs = 0;
    for (std::size_t call = 0; call < thresholds.size(); ++call) {
      const T threshold = thresholds[call];
      const cl_ulong skip = call % 2; // every element, then the even ones
      opts.parameters = {{"threshold", threshold}, {"skip", skip}};
      clscan::select_if<T>(e.queue, in, out, count, n, opts);
      REQUIRE(e.queue.finish() == CL_SUCCESS);
      if (call == 0) programs = clscan::cached_programs(e.context);
      CHECK(clscan::cached_programs(e.context) == programs); // new values, no new program
      std::vector<T> expected;
      for (std::size_t i = 0; i < n; ++i)
        if (data[i] > threshold && (i & skip) == 0) expected.push_back(data[i]);
      INFO("threshold " << threshold << ", skip " << skip);
      REQUIRE(read_buffer<cl_ulong>(count, 1)[0] == expected.size());
      std::vector<T> got = read_buffer<T>(out, n);
      got.resize(expected.size());
      CHECK(got == expected);
    }
  }
}

// (a + b) % m: associative on [0, m), with identity 0, and a result that depends on the parameter m.
template <typename T> T modular_sum(T a, T b, T m) { return static_cast<T>((a + b) % m); }

template <typename T> void check_custom_operator(clscan::algorithm algo) {
  auto& e = env();
  const std::vector<T> moduli = {T(1000), T(97), T(1000), T(3)};
  for (const std::size_t n : sizes) {
    INFO("n = " << n << ", algorithm " << static_cast<int>(algo));
    const cl::Buffer out = make_buffer(std::vector<T>(n, poison_value<T>()));
    const cl::Buffer total = make_buffer(std::vector<T>(1, poison_value<T>()));
    clscan::options<T> opts;
    opts.algorithm = algo;
    opts.operation = clscan::op::custom;
    opts.custom_op = "(a + b) % m";
    std::size_t programs = 0;
    for (std::size_t call = 0; call < moduli.size(); ++call) {
      const T m = moduli[call];
      INFO("m = " << m);
      const std::vector<T> data = sample<T>(n, static_cast<int>(m)); // in [0, m)
      const cl::Buffer in = make_buffer(data);
      opts.parameters = {{"m", m}};
      const bool exclusive = call % 2 == 1;
      if (exclusive)
        clscan::exclusive<T>(e.queue, in, out, n, opts);
      else
        clscan::inclusive<T>(e.queue, in, out, n, opts);
      clscan::reduce<T>(e.queue, in, total, n, opts);
      REQUIRE(e.queue.finish() == CL_SUCCESS);
      if (call == 1) programs = clscan::cached_programs(e.context); // after both kinds built
      if (call > 1) CHECK(clscan::cached_programs(e.context) == programs);
      std::vector<T> expected(n);
      T running = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (exclusive) expected[i] = running;
        running = modular_sum(running, data[i], m);
        if (!exclusive) expected[i] = running;
      }
      CHECK(read_buffer<T>(out, n) == expected);
      CHECK(read_buffer<T>(total, 1)[0] == running);
    }
  }
}

// Keys equal when a / width == b / width (both keys of one block of `width`), as a sequential scan.
template <typename K, typename T>
std::vector<T> blocked_scan(const std::vector<K>& keys, const std::vector<T>& in, K width, bool exclusive) {
  std::vector<T> out(in.size());
  T running{};
  for (std::size_t i = 0; i < in.size(); ++i) {
    const bool head = i == 0 || keys[i - 1] / width != keys[i] / width;
    if (exclusive) out[i] = head ? T{} : running;
    running = head ? in[i] : static_cast<T>(running + in[i]);
    if (!exclusive) out[i] = running;
  }
  return out;
}

template <typename K, typename T> void check_key_equal(clscan::algorithm algo) {
  auto& e = env();
  for (const std::size_t n : sizes) {
    INFO("n = " << n << ", algorithm " << static_cast<int>(algo));
    std::vector<K> keys(n);
    for (std::size_t i = 0; i < n; ++i)
      keys[i] = static_cast<K>(i / 3 + (i % 11 == 0 ? 1 : 0)); // runs of 3, some keys out of order
    const std::vector<T> values = sample<T>(n, 9);
    const cl::Buffer key_buffer = make_buffer(keys);
    const cl::Buffer in = make_buffer(values);
    const cl::Buffer out = make_buffer(std::vector<T>(n, poison_value<T>()));
    clscan::options<T> opts;
    opts.algorithm = algo;
    // The fixed expression of the issue, then the same through a parameter of changing values.
    opts.key_equal = "a / 16 == b / 16";
    clscan::inclusive_by_key<K, T>(e.queue, key_buffer, in, out, n, opts);
    REQUIRE(e.queue.finish() == CL_SUCCESS);
    CHECK(read_buffer<T>(out, n) == blocked_scan<K, T>(keys, values, K(16), false));

    opts.key_equal = "a / width == b / width";
    std::size_t programs = 0;
    const K widths[] = {K(16), K(1), K(1000), K(5)};
    for (std::size_t call = 0; call < 4; ++call) {
      const K width = widths[call];
      const bool exclusive = call % 2 == 1;
      INFO("width " << width << (exclusive ? ", exclusive" : ", inclusive"));
      opts.parameters = {{"width", width}};
      if (exclusive)
        clscan::exclusive_by_key<K, T>(e.queue, key_buffer, in, out, n, opts);
      else
        clscan::inclusive_by_key<K, T>(e.queue, key_buffer, in, out, n, opts);
      REQUIRE(e.queue.finish() == CL_SUCCESS);
      if (call == 1) programs = clscan::cached_programs(e.context);
      if (call > 1) CHECK(clscan::cached_programs(e.context) == programs);
      CHECK(read_buffer<T>(out, n) == blocked_scan<K, T>(keys, values, width, exclusive));
    }
  }
}

template <typename T> void check_unique_key_equal(clscan::algorithm algo) {
  auto& e = env();
  for (const std::size_t n : sizes) {
    INFO("n = " << n << ", algorithm " << static_cast<int>(algo));
    std::vector<T> data(n);
    for (std::size_t i = 0; i < n; ++i)
      data[i] = static_cast<T>(i / 5 + (i % 13 == 0 ? 7 : 0));
    const cl::Buffer in = make_buffer(data);
    const cl::Buffer count = make_buffer(std::vector<cl_ulong>(1, poison_value<cl_ulong>()));
    clscan::select_options<T> opts;
    opts.algorithm = algo;
    opts.key_equal = "a / width == b / width";
    const T widths[] = {T(16), T(1), T(3)};
    std::size_t programs = 0;
    for (std::size_t call = 0; call < 3; ++call) {
      const T width = widths[call];
      INFO("width " << width);
      opts.parameters = {{"width", width}};
      const cl::Buffer out = make_buffer(std::vector<T>(n, poison_value<T>())); // poisoned afresh
      clscan::unique<T>(e.queue, in, out, count, n, opts);
      REQUIRE(e.queue.finish() == CL_SUCCESS);
      if (call == 0) programs = clscan::cached_programs(e.context);
      CHECK(clscan::cached_programs(e.context) == programs);
      std::vector<T> expected;
      for (std::size_t i = 0; i < n; ++i)
        if (i == 0 || data[i - 1] / width != data[i] / width) expected.push_back(data[i]);
      REQUIRE(read_buffer<cl_ulong>(count, 1)[0] == expected.size());
      std::vector<T> got = read_buffer<T>(out, n);
      CHECK(std::all_of(got.begin() + static_cast<std::ptrdiff_t>(expected.size()), got.end(),
                        [](T v) { return v == poison_value<T>(); }));
      got.resize(expected.size());
      CHECK(got == expected);
    }
  }
}

} // namespace

TEST_CASE("parameters: a threshold changed across repeat calls selects exactly, without a new program",
          "[parameters]") {
  for (const clscan::algorithm algo : algorithms) {
    check_select_threshold<cl_int>(algo);
    check_select_threshold<cl_float>(algo);
    check_select_threshold<cl_ulong>(algo);
    if (fp64()) check_select_threshold<cl_double>(algo);
  }
}

TEST_CASE("parameters: a custom operator's parameter reaches every scan algorithm and reduce",
          "[parameters]") {
  for (const clscan::algorithm algo : scan_algorithms(clscan::element_type::uint32)) {
    check_custom_operator<cl_uint>(algo);
  }
  check_custom_operator<cl_int>(clscan::algorithm::automatic);
  check_custom_operator<cl_long>(clscan::algorithm::three_stage);
}

TEST_CASE("parameters: key_equal groups neighbouring keys in scans by key, with parameters", "[parameters]") {
  for (const clscan::algorithm algo : algorithms) {
    check_key_equal<cl_int, cl_int>(algo);
    check_key_equal<cl_uint, cl_float>(algo);
  }
  check_key_equal<cl_long, cl_long>(clscan::algorithm::automatic);
}

TEST_CASE("parameters: unique with key_equal keeps the first of each group of neighbours", "[parameters]") {
  for (const clscan::algorithm algo : algorithms) {
    check_unique_key_equal<cl_int>(algo);
    check_unique_key_equal<cl_ulong>(algo);
  }
}

TEST_CASE("parameters: bad names and misplaced key_equal are refused before anything is enqueued",
          "[parameters]") {
  auto& e = env();
  const refusal_buffers b;
  const cl::Buffer keys = make_buffer(b.data);
  const std::vector<cl_ulong> count_poison(1, poison_value<cl_ulong>());
  const cl::Buffer count = make_buffer(count_poison);

  struct bad_names {
    std::vector<clscan::parameter> parameters;
    const char* needle;
  };
  const std::vector<bad_names> refused = {
      {{{"", 1}}, "not an identifier"},
      {{{"1st", 1}}, "not an identifier"},
      {{{"the threshold", 1}}, "not an identifier"},
      {{{"x", 1}}, "operands"},
      {{{"i", 1u}}, "operands"},
      {{{"a", 1.0f}}, "operands"},
      {{{"b", 1}}, "operands"},
      {{{"int", 1}}, "keywords and types"},
      {{{"float4", 1}}, "keywords and types"},
      {{{"CLSCAN_WG", 1}}, "clscan's own"},
      {{{"clscan_param_0", 1}}, "clscan's own"},
      {{{"M_PI", 1}}, "macros"},
      {{{"FLT_MAX", 1}}, "macros"},
      {{{"__t", 1}}, "macros"},
      {{{"NAN", 1}}, "macros"},
      {{{"t", 1}, {"u", 2}, {"t", 3}}, "parameters[2] is named 't', as options::parameters[0] is"},
      {{{std::string(65, 'p'), 1}}, "65 characters"},
      {std::vector<clscan::parameter>(9, clscan::parameter{"p", 1}), "at most 8"},
  };
  for (const bad_names& bad : refused) {
    INFO("expecting: " << bad.needle);
    clscan::select_options<cl_int> select;
    select.predicate = "x > 0";
    select.parameters = bad.parameters;
    check_invalid_argument([&] { clscan::select_if<cl_int>(e.queue, b.in, b.out, count, b.n, select); },
                           bad.needle);
    check_invalid_argument([&] { clscan::select_if<cl_int>(e.queue, b.in, b.out, count, 0, select); },
                           bad.needle);
    clscan::options<cl_int> scan;
    scan.parameters = bad.parameters;
    check_invalid_argument([&] { clscan::inclusive<cl_int>(e.queue, b.in, b.out, b.n, scan); }, bad.needle);
    check_invalid_argument([&] { clscan::reduce<cl_int>(e.queue, b.in, b.out, b.n, scan); }, bad.needle);
    check_invalid_argument(
        [&] { clscan::inclusive_by_key<cl_int, cl_int>(e.queue, keys, b.in, b.out, b.n, scan); }, bad.needle);
  }

  // key_equal where no keys are compared, and one that is not an expression of a and b.
  clscan::options<cl_int> scan;
  scan.key_equal = "a == b";
  check_invalid_argument([&] { clscan::inclusive<cl_int>(e.queue, b.in, b.out, b.n, scan); },
                         "key_equal is for");
  check_invalid_argument([&] { clscan::reduce<cl_int>(e.queue, b.in, b.out, b.n, scan); },
                         "key_equal is for");
  clscan::select_options<cl_int> select;
  select.predicate = "x > 0";
  select.key_equal = "a == b";
  check_invalid_argument([&] { clscan::select_if<cl_int>(e.queue, b.in, b.out, count, b.n, select); },
                         "key_equal is for unique only");
  clscan::select_options<cl_int> unique;
  unique.key_equal = "a == b; b";
  check_invalid_argument([&] { clscan::unique<cl_int>(e.queue, b.in, b.out, count, b.n, unique); }, "';'");
  scan.key_equal = "x == b";
  check_invalid_argument(
      [&] { clscan::inclusive_by_key<cl_int, cl_int>(e.queue, keys, b.in, b.out, b.n, scan); },
      "key_equal is one OpenCL C expression of a and b");

  // A cl_double parameter on a device without fp64.
  if (!fp64()) {
    clscan::select_options<cl_int> doubled;
    doubled.predicate = "x > t";
    doubled.parameters = {{"t", 0.5}};
    CHECK_THROWS_AS(clscan::select_if<cl_int>(e.queue, b.in, b.out, count, b.n, doubled),
                    clscan::unsupported_error);
  }

  b.check_unchanged();
  CHECK(read_buffer<cl_ulong>(count, 1) == count_poison);
}

TEST_CASE("parameters: every type of parameter reaches the expression with its value", "[parameters]") {
  auto& e = env();
  const std::size_t n = 3000;
  const std::vector<cl_int> data = sample<cl_int>(n, 100);
  const cl::Buffer in = make_buffer(data);
  const cl::Buffer out = make_buffer(std::vector<cl_int>(n, poison_value<cl_int>()));
  const cl::Buffer count = make_buffer(std::vector<cl_ulong>(1, poison_value<cl_ulong>()));
  clscan::select_options<cl_int> opts;
  // Parameters of the six types, each checked: one wrong value or type selects nothing.
  opts.predicate = "p0 == -3 && p1 == 4000000000u && p2 == -5000000000l && p3 == 18000000000000000000ul && "
                   "p4 == 0.25f && x > n && src == 2";
  opts.parameters = {{"p0", cl_int{-3}},
                     {"p1", cl_uint{4000000000u}},
                     {"p2", cl_long{-5000000000}},
                     {"p3", cl_ulong{18000000000000000000ull}},
                     {"p4", cl_float{0.25f}},
                     // Names clscan's kernels use for their own variables: the expression's function
                     // sees only its parameters.
                     {"n", cl_int{50}},
                     {"src", cl_uint{2}}};
  if (fp64()) {
    opts.predicate += " && p5 == 0.125";
    opts.parameters.push_back({"p5", cl_double{0.125}});
  }
  clscan::select_if<cl_int>(e.queue, in, out, count, n, opts);
  REQUIRE(e.queue.finish() == CL_SUCCESS);
  std::vector<cl_int> expected;
  std::copy_if(data.begin(), data.end(), std::back_inserter(expected), [](cl_int x) { return x > 50; });
  REQUIRE(read_buffer<cl_ulong>(count, 1)[0] == expected.size());
  std::vector<cl_int> got = read_buffer<cl_int>(out, n);
  got.resize(expected.size());
  CHECK(got == expected);
}

namespace {

// options::transform "x * 3 + (i % 5) * scale" over ints (wrapping as the device computes), scanned
// inclusive and exclusive (from `initial`, which is not transformed), in place and out of place, and
// reduced; `scale` changes between calls without a new program.
void check_transform(clscan::algorithm algo, clscan::op operation) {
  auto& e = env();
  const auto f = [](cl_int x, std::size_t i, cl_int scale) {
    return static_cast<cl_int>(static_cast<cl_uint>(x) * 3u +
                               static_cast<cl_uint>(i % 5) * static_cast<cl_uint>(scale));
  };
  const auto op = [&](cl_int a, cl_int b) {
    return operation == clscan::op::max
               ? std::max(a, b)
               : static_cast<cl_int>(static_cast<cl_uint>(a) + static_cast<cl_uint>(b));
  };
  const cl_int identity = operation == clscan::op::max ? std::numeric_limits<cl_int>::min() : 0;
  for (const std::size_t n : sizes) {
    INFO("n = " << n << ", algorithm " << static_cast<int>(algo) << ", op " << static_cast<int>(operation));
    std::vector<cl_int> data(n);
    for (std::size_t i = 0; i < n; ++i)
      data[i] = static_cast<cl_int>((i * 7919) % 201) - 100;
    const cl::Buffer in = make_buffer(data);
    clscan::options<cl_int> opts;
    opts.algorithm = algo;
    opts.operation = operation;
    opts.transform = "x * 3 + (int)(i % 5) * scale";
    std::size_t programs = 0;
    const cl_int scales[] = {1, -7, 1000, 2};
    for (std::size_t call = 0; call < 4; ++call) {
      const cl_int scale = scales[call];
      const bool exclusive = call % 2 == 1;
      const bool in_place = call >= 2;
      INFO("scale " << scale << (exclusive ? ", exclusive" : ", inclusive")
                    << (in_place ? ", in place" : ""));
      opts.parameters = {{"scale", scale}};
      opts.initial.reset();
      if (exclusive) opts.initial = 100;
      const cl::Buffer out =
          in_place ? make_buffer(data) : make_buffer(std::vector<cl_int>(n, poison_value<cl_int>()));
      const cl::Buffer& source = in_place ? out : in;
      if (exclusive)
        clscan::exclusive<cl_int>(e.queue, source, out, n, opts);
      else
        clscan::inclusive<cl_int>(e.queue, source, out, n, opts);
      const cl::Buffer total = make_buffer(std::vector<cl_int>(1, poison_value<cl_int>()));
      clscan::reduce<cl_int>(e.queue, in, total, n, opts);
      REQUIRE(e.queue.finish() == CL_SUCCESS);
      if (call == 1) programs = clscan::cached_programs(e.context);
      if (call > 1) CHECK(clscan::cached_programs(e.context) == programs);
      std::vector<cl_int> expected(n);
      cl_int running = exclusive ? 100 : identity;
      for (std::size_t i = 0; i < n; ++i) {
        if (exclusive) expected[i] = running;
        running = op(running, f(data[i], i, scale));
        if (!exclusive) expected[i] = running;
      }
      CHECK(read_buffer<cl_int>(out, n) == expected);
      CHECK(read_buffer<cl_int>(total, 1)[0] == running);
    }
  }
}

} // namespace

TEST_CASE("parameters: a transform of x and i is applied to each input element as it is read",
          "[parameters][transform]") {
  for (const clscan::algorithm algo : scan_algorithms(clscan::element_type::int32)) {
    check_transform(algo, clscan::op::sum);
  }
  check_transform(clscan::algorithm::automatic, clscan::op::max);
}

TEST_CASE("parameters: a float transform counts the elements past a threshold", "[parameters][transform]") {
  auto& e = env();
  const std::size_t n = 70'001;
  std::vector<cl_float> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<cl_float>((i * 31) % 1000) * 0.001f;
  const cl::Buffer in = make_buffer(data);
  const cl::Buffer out = make_buffer(std::vector<cl_float>(n, poison_value<cl_float>()));
  clscan::options<cl_float> opts;
  opts.transform = "x > threshold ? 1.0f : 0.0f";
  for (const cl_float threshold : {0.5f, 0.9f, -1.0f}) {
    opts.parameters = {{"threshold", threshold}};
    clscan::inclusive<cl_float>(e.queue, in, out, n, opts);
    REQUIRE(e.queue.finish() == CL_SUCCESS);
    std::vector<cl_float> expected(n);
    cl_float count = 0;
    for (std::size_t i = 0; i < n; ++i)
      expected[i] = count += data[i] > threshold ? 1.0f : 0.0f;
    CHECK(read_buffer<cl_float>(out, n) == expected);
  }
}

TEST_CASE("parameters: a transform is refused where it does not apply or is not one expression",
          "[parameters][transform]") {
  auto& e = env();
  const refusal_buffers b;
  clscan::options<cl_int> opts;
  opts.transform = "x * 2";
  check_invalid_argument(
      [&] { clscan::inclusive_by_key<cl_int, cl_int>(e.queue, b.in, b.in, b.out, b.n, opts); },
      "options::transform is for the scans and reduce");
  opts.transform = "x * 2; x";
  check_invalid_argument([&] { clscan::inclusive<cl_int>(e.queue, b.in, b.out, b.n, opts); }, "';'");
  opts.transform = "a * 2";
  check_invalid_argument([&] { clscan::reduce<cl_int>(e.queue, b.in, b.out, b.n, opts); },
                         "a transform is one OpenCL C expression of x");
  opts.transform = "x * clscan_transform_input";
  check_invalid_argument([&] { clscan::inclusive<cl_int>(e.queue, b.in, b.out, 0, opts); },
                         "clscan_transform_input");
  b.check_unchanged();
}
