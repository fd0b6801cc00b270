// clscan::reduce against a sequential host reduce: every element type, the built-in operators, custom
// operators that are associative but not commutative (so that a wrong order of combination shows),
// sizes around the reduce tile and across several work-group ranges, offsets, in place, initial values
// on the host and on the device, n == 0, and argument errors. The output buffer is poisoned, and only
// out[out_offset] may change. Integer results are compared exactly; floating-point sums must be the same
// bits on two runs and within a bound of a long double reference.
#include "support/guarded.hpp"

#include <common/reference.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

using namespace clscan_test;
using namespace clscan_test::guarded;
using clscan::op;

namespace {

constexpr std::uint64_t data_seed = 0x2026'1123'4ed0ull;
constexpr std::size_t guard = 3; // poisoned elements on either side of the result

template <typename T> constexpr bool is_float = std::is_floating_point_v<T>;

template <typename T> bool device_supports() {
  return !std::is_same_v<T, cl_double> || clscan::capabilities(env().device).fp64;
}

// Elements per tile of reduce's shape for T on this device.
template <typename T> std::size_t reduce_tile() {
  const clscan::tuning shape = clscan::plan_for(env().device, clscan::element_traits<T>::type).reduce;
  return shape.work_group_size * shape.items_per_thread;
}

// Around one tile and a few, past the size one work-group reads alone (up to 256 KiB), and several
// work-group ranges that do not divide evenly.
template <typename T> std::vector<std::size_t> interesting_sizes() {
  const std::size_t tile = reduce_tile<T>();
  std::vector<std::size_t> sizes = {
      1, 2, 3, 17, tile - 1, tile, tile + 1, 2 * tile + 3, 70'001, (std::size_t{1} << 20) + 3};
  sizes.erase(std::remove(sizes.begin(), sizes.end(), std::size_t{0}), sizes.end());
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// One operator with its host reference and the data it is tested on.
template <typename T> struct op_case {
  std::string name;
  clscan::options<T> opts; // operation, custom_op and custom_identity
  T identity;
  std::function<T(T, T)> combine;
  std::function<T(clscan_reference::splitmix64&)> element;
  bool rounded = false; // a floating-point sum: within a bound, not exact
};

template <typename T> T random_bits(clscan_reference::splitmix64& r) {
  const std::uint64_t bits = r.next();
  T value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Numbers in [-1000, 1000) with fractions, an occasional NaN for min and max (which fmin and fmax pass
// over, in any order).
template <typename T> T real(clscan_reference::splitmix64& r, bool nans) {
  if (nans && r.next() % 97 == 0) return std::numeric_limits<T>::quiet_NaN();
  return static_cast<T>(static_cast<double>(r.next() >> 11) / 9007199254740992.0 * 2000.0 - 1000.0);
}

template <typename T> op_case<T> builtin(op operation) {
  op_case<T> c;
  c.name = clscan::to_string(operation);
  c.opts.operation = operation;
  c.identity = clscan_reference::identity<T>(operation);
  c.combine = [operation](T a, T b) { return clscan_reference::combine(operation, a, b); };
  if constexpr (is_float<T>) {
    const bool nans = operation != op::sum;
    c.element = [nans](clscan_reference::splitmix64& r) { return real<T>(r, nans); };
    c.rounded = operation == op::sum;
  } else if (operation == op::bit_and) {
    // One bit clear each, so that the total depends on every element.
    c.element = [](clscan_reference::splitmix64& r) {
      return static_cast<T>(~(std::uint64_t{1} << (r.next() % (8 * sizeof(T)))));
    };
  } else if (operation == op::bit_or) {
    c.element = [](clscan_reference::splitmix64& r) {
      return static_cast<T>(std::uint64_t{1} << (r.next() % (8 * sizeof(T))));
    };
  } else {
    c.element = random_bits<T>;
  }
  return c;
}

// Associative, not commutative: the composition of affine maps on unsigned integers (guarded.hpp), and
// "the last number" on floating-point types (NaN, its identity, is skipped).
template <typename T> op_case<T> not_commutative() {
  op_case<T> c;
  c.opts.operation = op::custom;
  if constexpr (is_float<T>) {
    c.name = "last number";
    c.opts.custom_op = "isnan(b) ? a : b";
    c.identity = std::numeric_limits<T>::quiet_NaN();
    c.combine = [](T a, T b) { return std::isnan(b) ? a : b; };
    c.element = [](clscan_reference::splitmix64& r) { return real<T>(r, true); };
  } else {
    static_assert(std::is_unsigned_v<T>, "affine maps on unsigned types");
    c.name = "affine composition";
    c.opts.custom_op = affine<T>::expression();
    c.identity = static_cast<T>(T{1} << affine<T>::half);
    c.combine = affine<T>::compose;
    c.element = random_bits<T>;
  }
  c.opts.custom_identity = c.identity;
  return c;
}

template <typename T> std::vector<T> make_data(const op_case<T>& c, std::size_t n) {
  clscan_reference::splitmix64 r{data_seed ^ n};
  std::vector<T> data(n);
  for (auto& x : data)
    x = c.element(r);
  return data;
}

template <typename T> T host_reduce(const op_case<T>& c, const std::vector<T>& in, T start) {
  T total = start;
  for (const T& x : in)
    total = c.combine(total, x);
  return total;
}

// A floating-point sum within 1e-5 (float) or 1e-13 (double) of the magnitudes it adds, as the scans
// are checked (tools/common/reference.hpp check_rounded).
template <typename T> void check_sum(T got, const std::vector<T>& in, T initial) {
  long double exact = initial, magnitude = std::fabs(static_cast<long double>(initial));
  for (const T& x : in) {
    exact += x;
    magnitude += std::fabs(static_cast<long double>(x));
  }
  const long double tolerance = std::is_same_v<T, cl_float> ? 1e-5L : 1e-13L;
  INFO("got " << got << ", reference " << static_cast<double>(exact));
  CHECK(std::fabs(static_cast<long double>(got) - exact) <= tolerance * magnitude + 1e-30L);
}

// Where a call reads and writes, and what it starts from.
struct layout {
  std::size_t in_offset = 1;
  std::size_t out_offset = guard;
  bool in_place = false; // the output is element out_offset of the input buffer
  enum class start { none, host, device } initial = start::none;
};

// Runs reduce on `in` as `where` says, checks that only the result's element changed (and the input
// and the initial value's buffer not at all), and returns the result.
template <typename T>
T run_reduce(const op_case<T>& c, const std::vector<T>& in, const layout& where, T start) {
  const std::size_t n = in.size();
  clscan::options<T> opts = c.opts;
  opts.in_offset = where.in_offset;
  opts.out_offset = where.out_offset;
  std::vector<T> in_image(where.in_offset + n + guard, poison_value<T>());
  std::copy(in.begin(), in.end(), in_image.begin() + static_cast<std::ptrdiff_t>(where.in_offset));
  if (where.in_place) REQUIRE(where.out_offset < in_image.size());
  const cl::Buffer in_buffer = make_buffer(in_image);
  const std::size_t out_size = where.in_place ? in_image.size() : where.out_offset + 1 + guard;
  const cl::Buffer out_buffer =
      where.in_place ? in_buffer : make_buffer(std::vector<T>(out_size, poison_value<T>()));
  const std::vector<T> initial_image = {poison_value<T>(), start, poison_value<T>()};
  const cl::Buffer initial_buffer = make_buffer(initial_image);
  if (where.initial == layout::start::host) opts.initial = start;
  if (where.initial == layout::start::device)
    opts.initial_on_device = clscan::device_value{initial_buffer, 1};

  REQUIRE(clscan::reduce(env().queue, in_buffer, out_buffer, n, opts).wait() == CL_SUCCESS);
  std::vector<T> out = read_buffer<T>(out_buffer, out_size);
  const T result = out[where.out_offset];
  std::vector<T> expected_rest = where.in_place ? in_image : std::vector<T>(out_size, poison_value<T>());
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(where.out_offset));
  expected_rest.erase(expected_rest.begin() + static_cast<std::ptrdiff_t>(where.out_offset));
  check_exact("the output buffer but the result", out, 0, expected_rest);
  if (!where.in_place)
    check_exact("the input buffer", read_buffer<T>(in_buffer, in_image.size()), 0, in_image);
  check_exact("the initial value's buffer", read_buffer<T>(initial_buffer, 3), 0, initial_image);
  return result;
}

template <typename T> void check_result(const op_case<T>& c, const std::vector<T>& in, T got, T start) {
  if (c.rounded) {
    if constexpr (is_float<T>) check_sum(got, in, start);
  } else {
    const T expected = host_reduce(c, in, start);
    INFO("expected " << +expected << ", got " << +got);
    CHECK(same_value(got, expected));
  }
}

// Every size with the input unaligned for vectors (in_offset 1), and with `aligned_too` also at
// in_offset 0; the largest size twice, for the same bits; an initial value on the host and on the device,
// and in place, at sizes of one work-group range and of several.
template <typename T> void suite(const op_case<T>& c, bool aligned_too = false) {
  if (!device_supports<T>()) {
    WARN("skipped for " << clscan::opencl_name(clscan::element_traits<T>::type) << ": no fp64");
    return;
  }
  const std::size_t tile = reduce_tile<T>();
  for (std::size_t n : interesting_sizes<T>()) {
    CAPTURE(clscan::opencl_name(clscan::element_traits<T>::type), c.name, n, tile);
    const std::vector<T> in = make_data(c, n);
    const T none = c.identity;
    layout where;
    const T first = run_reduce(c, in, where, none);
    check_result(c, in, first, none);
    if (n == (std::size_t{1} << 20) + 3) {
      const T again = run_reduce(c, in, where, none);
      INFO("a second run of the same reduce");
      CHECK(same_bits(first, again));
    }
    if (aligned_too) {
      layout aligned;
      aligned.in_offset = 0;
      aligned.out_offset = 0;
      check_result(c, in, run_reduce(c, in, aligned, none), none);
    }
    if (n == 17 || n == tile + 1 || n == 70'001) {
      clscan_reference::splitmix64 r{data_seed + n};
      const T start = c.element(r);
      layout with_initial;
      with_initial.initial = layout::start::host;
      check_result(c, in, run_reduce(c, in, with_initial, start), start);
      with_initial.initial = layout::start::device;
      with_initial.out_offset = 0;
      check_result(c, in, run_reduce(c, in, with_initial, start), start);
      // In place: the result inside the input range, and after it.
      layout in_place;
      in_place.in_place = true;
      in_place.out_offset = in_place.in_offset + n / 2;
      check_result(c, in, run_reduce(c, in, in_place, none), none);
      in_place.out_offset = in_place.in_offset + n + 1;
      in_place.initial = layout::start::device;
      check_result(c, in, run_reduce(c, in, in_place, start), start);
    }
  }
}

} // namespace

// Every program variant costs PoCL most of a second to compile, so the operators are spread over the
// types (12 variants, about 10 s cold on 2 cores): sums of both kinds of integer and floating-point
// type, min and max of integers and floats (their identities differ), each bitwise operator (identity
// all ones for and), and an operator that is not commutative on a 64-bit integer and a float.
TEST_CASE("reduce: totals match a sequential host reduce for every type and operator", "[reduce]") {
  suite(builtin<cl_int>(op::sum), true);
  suite(builtin<cl_int>(op::bit_or));
  suite(builtin<cl_uint>(op::max));
  suite(builtin<cl_long>(op::min));
  suite(builtin<cl_long>(op::bit_and));
  suite(builtin<cl_ulong>(op::bit_xor));
  suite(not_commutative<cl_ulong>());
  suite(builtin<cl_float>(op::sum));
  suite(not_commutative<cl_float>());
  suite(builtin<cl_float>(op::max));
  suite(builtin<cl_double>(op::sum));
}

TEST_CASE("reduce: n == 0 writes the initial value or the identity, and nothing else", "[reduce]") {
  const auto& q = env().queue;
  const cl::Buffer in = make_buffer(std::vector<cl_int>(4, 1));
  const auto check_zero = [&](const clscan::options<cl_int>& opts, cl_int expected) {
    const cl::Buffer out = make_buffer(std::vector<cl_int>(4, poison_value<cl_int>()));
    REQUIRE(clscan::reduce(q, in, out, 0, opts).wait() == CL_SUCCESS);
    const std::vector<cl_int> got = read_buffer<cl_int>(out, 4);
    CHECK(got[opts.out_offset] == expected);
    check_guards("output", got, opts.out_offset, 1);
  };
  clscan::options<cl_int> opts;
  opts.out_offset = 2;
  check_zero(opts, 0);
  opts.operation = op::min;
  check_zero(opts, std::numeric_limits<cl_int>::max());
  opts.initial = -7;
  check_zero(opts, -7);
  opts.initial.reset();
  const cl::Buffer initial = make_buffer(std::vector<cl_int>{5, 42});
  opts.initial_on_device = clscan::device_value{initial, 1};
  check_zero(opts, 42);

  // The initial value's own element as the output: nothing to write.
  clscan::options<cl_int> same;
  same.initial_on_device = clscan::device_value{initial, 1};
  same.out_offset = 1;
  REQUIRE(clscan::reduce(q, in, initial, 0, same).wait() == CL_SUCCESS);
  CHECK(read_buffer<cl_int>(initial, 2) == std::vector<cl_int>{5, 42});
}

TEST_CASE("reduce: chains on device values through wait lists, on in-order and out-of-order queues",
          "[reduce]") {
  const auto& e = env();
  std::vector<cl::CommandQueue> queues = {e.queue};
  if (clscan::capabilities(e.device).out_of_order_queues)
    queues.emplace_back(e.context, e.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  const std::size_t n = (std::size_t{1} << 20) + 3;
  std::vector<cl_int> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<cl_int>(i % 1000) - 400;
  const cl_int sum = std::accumulate(data.begin(), data.end(), cl_int{0}); // no overflow
  const cl::Buffer in = make_buffer(data);
  for (const cl::CommandQueue& q : queues) {
    const cl::Buffer totals = make_buffer(std::vector<cl_int>(3, poison_value<cl_int>()));
    // totals[0] = sum, then totals[2] = totals[0] + sum: the second waits for the first's event.
    clscan::options<cl_int> first;
    cl::Event done = clscan::reduce(q, in, totals, n, first);
    clscan::options<cl_int> second;
    second.out_offset = 2;
    second.initial_on_device = clscan::device_value{totals, 0};
    second.wait_list = {done};
    REQUIRE(clscan::reduce(q, in, totals, n, second).wait() == CL_SUCCESS);
    const std::vector<cl_int> got = read_buffer<cl_int>(totals, 3);
    CHECK(got[0] == sum);
    CHECK(same_bits(got[1], poison_value<cl_int>()));
    CHECK(got[2] == 2 * sum);
  }
}

namespace {

// Expects `call` to throw clscan::invalid_argument whose message contains `needle`, with `out`
// (16 poisoned cl_int) untouched.
template <typename Call>
void expect_rejected(const char* what, const std::string& needle, const cl::Buffer& out, Call call) {
  INFO(what);
  check_invalid_argument(call, needle);
  REQUIRE(env().queue.finish() == CL_SUCCESS);
  check_guards("output", read_buffer<cl_int>(out, 16), 0, 0);
}

} // namespace

TEST_CASE("reduce: bad arguments throw before anything is enqueued, and leave the buffers as they were",
          "[reduce]") {
  const auto& e = env();
  const auto& q = e.queue;
  const std::vector<cl_int> data(16, 3);
  const cl::Buffer in = make_buffer(data);
  const cl::Buffer out = make_buffer(std::vector<cl_int>(16, poison_value<cl_int>()));
  const cl::Buffer initial = make_buffer(std::vector<cl_int>{1, 2});
  const cl::Buffer write_only(e.context, CL_MEM_WRITE_ONLY, 64);
  const cl::Buffer read_only(e.context, CL_MEM_READ_ONLY, 64);
  const cl::Context other_context(e.device);
  const cl::Buffer foreign(other_context, CL_MEM_READ_WRITE, 64);

  expect_rejected("null queue", "command queue is null", out,
                  [&] { clscan::reduce<cl_int>(cl::CommandQueue(), in, out, 16); });
  expect_rejected("input too short", "input buffer holds 16", out,
                  [&] { clscan::reduce<cl_int>(q, in, out, 17); });
  clscan::options<cl_int> far_out;
  far_out.out_offset = 16;
  expect_rejected("output past its buffer",
                  "output buffer holds 16 elements of 4 bytes, fewer than offset 16 + 1,", out,
                  [&] { clscan::reduce<cl_int>(q, in, out, 16, far_out); });
  expect_rejected("write-only input", "CL_MEM_WRITE_ONLY", out,
                  [&] { clscan::reduce<cl_int>(q, write_only, out, 16); });
  expect_rejected("read-only output", "CL_MEM_READ_ONLY", out,
                  [&] { clscan::reduce<cl_int>(q, in, read_only, 16); });
  expect_rejected("output of another context", "output buffer belongs to another context", out,
                  [&] { clscan::reduce<cl_int>(q, in, foreign, 16); });
  clscan::options<cl_int> both;
  both.initial = 1;
  both.initial_on_device = clscan::device_value{initial, 0};
  clscan::options<cl_int> null_initial;
  null_initial.initial_on_device = clscan::device_value{};
  expect_rejected("a null initial_on_device buffer", "null buffer", out,
                  [&] { clscan::reduce<cl_int>(q, in, out, 16, null_initial); });
  expect_rejected("initial and initial_on_device", "both set", out,
                  [&] { clscan::reduce<cl_int>(q, in, out, 16, both); });
  clscan::options<cl_int> short_initial;
  short_initial.initial_on_device = clscan::device_value{initial, 2};
  expect_rejected("initial_on_device past its buffer", "initial_on_device buffer holds 2", out,
                  [&] { clscan::reduce<cl_int>(q, in, out, 16, short_initial); });
  clscan::options<cl_int> foreign_initial;
  foreign_initial.initial_on_device = clscan::device_value{foreign, 0};
  expect_rejected("initial_on_device of another context", "initial_on_device buffer belongs to another", out,
                  [&] { clscan::reduce<cl_int>(q, in, out, 16, foreign_initial); });
  clscan::options<cl_int> custom;
  custom.operation = op::custom;
  expect_rejected("op::custom without custom_op", "custom_op", out,
                  [&] { clscan::reduce<cl_int>(q, in, out, 16, custom); });
  clscan::options<cl_float> bitwise;
  bitwise.operation = op::bit_xor;
  expect_rejected("a bitwise operator on floats", "bitwise", out,
                  [&] { clscan::reduce<cl_float>(q, in, out, 16, bitwise); });

  // Sub-buffers of one buffer whose ranges overlap (origins a multiple of the device's base address
  // alignment apart); the same handle may be read and written.
  const std::size_t step = e.device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8 / sizeof(cl_int);
  cl::Buffer parent = make_buffer(std::vector<cl_int>(4 * step, 0));
  const auto sub = [&](std::size_t first) {
    cl_buffer_region region{first * sizeof(cl_int), 2 * step * sizeof(cl_int)};
    cl_int status = CL_SUCCESS;
    cl::Buffer b = parent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
    REQUIRE(status == CL_SUCCESS);
    return b;
  };
  const cl::Buffer low = sub(0), high = sub(step); // high's element 0 is low's element step
  expect_rejected("overlapping input and output handles", "overlap", out,
                  [&] { clscan::reduce<cl_int>(q, low, high, 2 * step); });
  clscan::options<cl_int> aliased_initial;
  aliased_initial.initial_on_device = clscan::device_value{low, step};
  expect_rejected("initial_on_device over the output's memory through another handle", "output range", out,
                  [&] { clscan::reduce<cl_int>(q, in, high, 16, aliased_initial); });

  // algorithm is reduce's to ignore, deterministic too: accepted whatever they say.
  clscan::options<cl_float> forced;
  forced.algorithm = clscan::algorithm::single_pass;
  forced.deterministic = true;
  forced.in_offset = 1;
  const cl::Buffer floats = make_buffer(std::vector<cl_float>(16, 0.5f));
  REQUIRE(clscan::reduce<cl_float>(q, floats, floats, 15, forced).wait() == CL_SUCCESS);
  CHECK(read_buffer<cl_float>(floats, 16)[0] == 7.5f);
  CHECK(read_buffer<cl_int>(in, 16) == data);
}

namespace {

// reduce of `in` on `queue` (whose context is `context`) at in_offset 1 and out_offset `guard`;
// checks the guards and returns the result.
template <typename T>
T reduce_on(const cl::Context& context, const cl::CommandQueue& queue, const op_case<T>& c,
            const std::vector<T>& in) {
  const std::size_t n = in.size();
  std::vector<T> in_image(1 + n, poison_value<T>());
  std::copy(in.begin(), in.end(), in_image.begin() + 1);
  cl::Buffer in_buffer(context, CL_MEM_READ_WRITE, in_image.size() * sizeof(T));
  cl::Buffer out_buffer(context, CL_MEM_READ_WRITE, (2 * guard + 1) * sizeof(T));
  const std::vector<T> poisoned(2 * guard + 1, poison_value<T>());
  REQUIRE(queue.enqueueWriteBuffer(in_buffer, CL_TRUE, 0, in_image.size() * sizeof(T), in_image.data()) ==
          CL_SUCCESS);
  REQUIRE(queue.enqueueWriteBuffer(out_buffer, CL_TRUE, 0, poisoned.size() * sizeof(T), poisoned.data()) ==
          CL_SUCCESS);
  clscan::options<T> opts = c.opts;
  opts.in_offset = 1;
  opts.out_offset = guard;
  REQUIRE(clscan::reduce(queue, in_buffer, out_buffer, n, opts).wait() == CL_SUCCESS);
  std::vector<T> out(poisoned.size());
  REQUIRE(queue.enqueueReadBuffer(out_buffer, CL_TRUE, 0, out.size() * sizeof(T), out.data()) == CL_SUCCESS);
  check_guards("output", out, guard, 1);
  return out[guard];
}

} // namespace

// Tiles of a few elements (CLSCAN_TUNING, read when a context is first used), so that 2^20 elements
// make many work-group ranges (11 with tiles of 6) whose partial totals span more than one tile, in
// work-groups of an odd number of work-items.
TEST_CASE("reduce: tiny tiles: many work-group ranges, partial totals over several tiles",
          "[reduce-shapes]") {
  const cl::Device& device = env().device;
  for (const char* shape : {"wg=3,items=2,vec=1", "wg=5,items=4,vec=2"}) {
    const scoped_env tuning("CLSCAN_TUNING", std::string(shape));
    const cl::Context context(device);
    const cl::CommandQueue queue(context, device);
    const op_case<cl_int> sum = builtin<cl_int>(op::sum);
    const op_case<cl_ulong> affine_maps = not_commutative<cl_ulong>();
    for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{6}, std::size_t{7}, std::size_t{121},
                          std::size_t{70'001}, (std::size_t{1} << 20) + 3}) {
      CAPTURE(shape, n);
      const std::vector<cl_int> ints = make_data(sum, n);
      check_result(sum, ints, reduce_on(context, queue, sum, ints), sum.identity);
      const std::vector<cl_ulong> maps = make_data(affine_maps, n);
      check_result(affine_maps, maps, reduce_on(context, queue, affine_maps, maps), affine_maps.identity);
    }
    clscan::release_cached_resources(context);
  }
}
