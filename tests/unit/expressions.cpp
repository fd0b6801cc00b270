// Predicates and custom operators are one OpenCL C expression each, compiled in a function of their
// own that sees only its documented names: text that would add code of its own, hide the rest of the
// program in a comment, or reach clscan's names is refused (clscan::invalid_argument, naming the
// problem) before anything is enqueued; legitimate expressions (brackets, ternaries, casts, built-in
// calls, several lines) still work. Through the C++ calls of every kind, and the C API.
#include "support/environment.hpp"

#include <clscan/clscan.h>
#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

using namespace clscan_test;
using Catch::Matchers::Contains;

namespace {

constexpr std::size_t n = 1000;

std::vector<cl_int> sample_ints() { return cycling_ints(n, 7919, 23); }

struct refused_text {
  const char* what;
  const char* text;
  const char* needle; // part of the message that names the problem
};

// Each would once have been pasted into the program as it is; the first closed the predicate's
// expression and added a function of its own, compiled, and selected nothing.
const refused_text refused_predicates[] = {
    {"injected function", "0)) ? 1u : 0u; } inline uint f(int x) { return ((x", "unmatched ')'"},
    {"unbalanced open", "(x > 0", "'(' at offset 0 open"},
    {"unbalanced close", "x > 0)", "unmatched ')'"},
    {"mismatched brackets", "(x > 0]", "closes '('"},
    {"statement", "x > 0; x < 3", "';'"},
    {"block", "({ x > 0 })", "'{'"},
    {"closing brace", "x > 0 }", "'}'"},
    {"preprocessor line", "x > 0\n#define FOO 1\n", "'#'"},
    {"line comment", "x > 0 // and the rest", "comment"},
    {"block comment", "x > 0 /* ) */", "comment"},
    {"string literal", "x > sizeof(\"abc\")", "string literal"},
    {"line continuation", "x > 0 \\\n", "backslash"},
    {"digraph brace", "x > 0 <% %>", "digraph"},
    {"trigraph", "x > 0 ?\?= 1", "trigraph"},
    {"internal name prev", "x != prev", "'prev'"},
    {"internal name src", "src[i] > 0", "'src'"},
    {"internal name n", "i + 1 < n", "'n'"},
    {"internal function", "carry_combine(x, 1) > 0", "'carry_combine'"},
    {"internal macro", "x < CLSCAN_WG", "'CLSCAN_WG'"},
    {"operator's name in a predicate", "a > 0", "'a'"},
    {"blank", " \n\t ", "blank"},
};

// The predicates' attacks again, written for an operator of a and b: each table holds the texts of one
// kind of expression, so the rows look alike on purpose.
const refused_text refused_operators[] = {
    {"injected function", "a + b); } inline int f(int a, int b) { return (a", "unmatched ')'"},
    {"statement", "a + b; a", "';'"},
    {"unbalanced", "((a + b)", "open"},
    {"comment", "a + b /* ) */", "comment"},
    {"preprocessor line", "a +\n#undef CLSCAN_T\nb", "'#'"},
    {"internal function", "combine(a, b)", "'combine'"},
    {"internal name", "a + b + (elem_t)0", "'elem_t'"},
};

template <typename Call> void expect_refused(const refused_text& bad, Call call) {
  INFO(bad.what << ": " << bad.text);
  check_invalid_argument(call, bad.needle);
}

// The C API's refusal of the same text: the status, no event, the message naming the problem.
void expect_c_refused(const refused_text& bad, clscan_status status, cl_event event) {
  INFO(bad.what << " (C API): " << bad.text);
  CHECK(status == CLSCAN_INVALID_ARGUMENT);
  CHECK(event == nullptr);
  CHECK_THAT(clscan_last_error_message(), Contains(bad.needle));
}

// The buffers of the refused calls, which must come back as they were: the input, the poisoned output
// and count.
struct refused_calls_buffers {
  std::vector<cl_int> data = sample_ints();
  cl::Buffer in = make_buffer(data);
  std::vector<cl_int> poison = std::vector<cl_int>(n, poison_value<cl_int>());
  cl::Buffer out = make_buffer(poison);
  std::vector<cl_ulong> count_poison = std::vector<cl_ulong>(1, poison_value<cl_ulong>());
  cl::Buffer count = make_buffer(count_poison);

  void check_untouched() const {
    REQUIRE(env().queue.finish() == CL_SUCCESS);
    CHECK(read_buffer<cl_int>(out, n) == poison);
    CHECK(read_buffer<cl_ulong>(count, 1) == count_poison);
    CHECK(read_buffer<cl_int>(in, n) == data);
  }
};

// Waits for a selection into `out` and `count` and checks it: the count, the selected elements in
// order, the poison after them.
template <typename T>
void check_selected(const cl::Buffer& out, const cl::Buffer& count, const std::vector<T>& expected) {
  REQUIRE(env().queue.finish() == CL_SUCCESS);
  REQUIRE(read_buffer<cl_ulong>(count, 1)[0] == expected.size());
  const std::vector<T> got = read_buffer<T>(out, n);
  const auto selected_end = got.begin() + static_cast<std::ptrdiff_t>(expected.size());
  CHECK(std::vector<T>(got.begin(), selected_end) == expected);
  CHECK(std::all_of(selected_end, got.end(), [](T v) { return v == poison_value<T>(); }));
}

} // namespace

TEST_CASE("expressions: a predicate that is not one expression of x and i is refused before anything is "
          "enqueued",
          "[select][expressions]") {
  auto& e = env();
  const refused_calls_buffers b;
  const cl::Buffer &in = b.in, &out = b.out, &count = b.count;
  for (const refused_text& bad : refused_predicates) {
    clscan::select_options<cl_int> opts;
    opts.predicate = bad.text;
    expect_refused(bad, [&] { clscan::select_if<cl_int>(e.queue, in, out, count, n, opts); });
    expect_refused(bad, [&] { clscan::partition_if<cl_int>(e.queue, in, out, count, n, opts); });
    // Refused whatever n is: the check does not depend on the data.
    expect_refused(bad, [&] { clscan::select_if<cl_int>(e.queue, in, out, count, 0, opts); });
    // The C API goes through the same checks.
    cl_event event = nullptr;
    const clscan_select_options c_opts = CLSCAN_SELECT_OPTIONS_INIT;
    expect_c_refused(
        bad,
        clscan_select_if(e.queue(), in(), out(), count(), n, CLSCAN_TYPE_INT32, bad.text, &c_opts, &event),
        event);
  }
  b.check_untouched();
}

TEST_CASE("expressions: a custom operator that is not one expression of a and b is refused before anything "
          "is enqueued",
          "[select][expressions]") {
  auto& e = env();
  const refused_calls_buffers b;
  const cl::Buffer &in = b.in, &out = b.out;
  const cl::Buffer keys = make_buffer(std::vector<cl_int>(n, 1));
  for (const refused_text& bad : refused_operators) {
    clscan::options<cl_int> opts;
    opts.operation = clscan::op::custom;
    opts.custom_op = bad.text;
    expect_refused(bad, [&] { clscan::inclusive<cl_int>(e.queue, in, out, n, opts); });
    expect_refused(bad, [&] { clscan::exclusive<cl_int>(e.queue, in, out, n, opts); });
    expect_refused(bad, [&] { clscan::reduce<cl_int>(e.queue, in, out, n, opts); });
    expect_refused(bad, [&] { clscan::inclusive_by_key<cl_int, cl_int>(e.queue, keys, in, out, n, opts); });
    clscan_options c_opts = CLSCAN_OPTIONS_INIT;
    c_opts.operation = CLSCAN_OP_CUSTOM;
    c_opts.custom_op = bad.text;
    cl_event event = nullptr;
    expect_c_refused(bad, clscan_inclusive(e.queue(), in(), out(), n, CLSCAN_TYPE_INT32, &c_opts, &event),
                     event);
  }
  b.check_untouched();
}

TEST_CASE("expressions: predicates with brackets, ternaries, casts, built-in calls and several lines select "
          "exactly",
          "[select][expressions]") {
  auto& e = env();
  const std::vector<cl_int> data = sample_ints();
  const cl::Buffer in = make_buffer(data);
  struct accepted {
    const char* text;
    bool (*holds)(cl_int x, cl_ulong i);
  };
  const accepted predicates[] = {
      {"(x > 0) ? (i & 1) == 0 : x < -5", [](cl_int x, cl_ulong i) { return x > 0 ? (i & 1) == 0 : x < -5; }},
      {"(float)x * 0.5f > 2.0f", [](cl_int x, cl_ulong) { return static_cast<float>(x) * 0.5f > 2.0f; }},
      {"abs(x) == 3 || min(x, 7) == 7",
       [](cl_int x, cl_ulong) { return std::abs(x) == 3 || std::min(x, 7) == 7; }},
      {"fabs((float)x) > 9.5f", [](cl_int x, cl_ulong) { return std::fabs(static_cast<float>(x)) > 9.5f; }},
      // A built-in clscan's kernels also use as a variable's name: called, it is the built-in.
      {"all((int2)(x, (int)i) > 0)", [](cl_int x, cl_ulong i) { return x > 0 && i > 0; }},
      {"x != '}' - 125 &&\n  x != 1", [](cl_int x, cl_ulong) { return x != 0 && x != 1; }},
      {"(int2)(x, 4).y == 4 && x % 2 == 0", [](cl_int x, cl_ulong) { return x % 2 == 0; }},
  };
  for (const accepted& p : predicates) {
    INFO("predicate: " << p.text);
    std::vector<cl_int> expected;
    for (std::size_t i = 0; i < n; ++i)
      if (p.holds(data[i], i)) expected.push_back(data[i]);
    const cl::Buffer out = make_buffer(std::vector<cl_int>(n, poison_value<cl_int>()));
    const cl::Buffer count = make_buffer(std::vector<cl_ulong>(1, poison_value<cl_ulong>()));
    clscan::select_options<cl_int> opts;
    opts.predicate = p.text;
    clscan::select_if<cl_int>(e.queue, in, out, count, n, opts);
    check_selected(out, count, expected);
  }
}

TEST_CASE("expressions: a predicate of a float element calls fabs", "[select][expressions]") {
  auto& e = env();
  std::vector<cl_float> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<cl_float>(static_cast<int>((i * 31) % 17) - 8) * 0.125f;
  const cl::Buffer in = make_buffer(data);
  const cl::Buffer out = make_buffer(std::vector<cl_float>(n, poison_value<cl_float>()));
  const cl::Buffer count = make_buffer(std::vector<cl_ulong>(1, poison_value<cl_ulong>()));
  clscan::select_options<cl_float> opts;
  opts.predicate = "fabs(x) > 0.5f";
  clscan::select_if<cl_float>(e.queue, in, out, count, n, opts);
  std::vector<cl_float> expected;
  std::copy_if(data.begin(), data.end(), std::back_inserter(expected),
               [](cl_float x) { return std::fabs(x) > 0.5f; });
  check_selected(out, count, expected);
}

TEST_CASE("expressions: custom operators with brackets, ternaries and built-in calls scan exactly",
          "[select][expressions]") {
  auto& e = env();
  const std::vector<cl_int> data = sample_ints();
  const cl::Buffer in = make_buffer(data);
  struct accepted {
    const char* text;
    cl_int identity;
    cl_int (*combine)(cl_int a, cl_int b);
  };
  const accepted operators[] = {
      {"(a > b) ? a : b", INT_MIN, [](cl_int a, cl_int b) { return a > b ? a : b; }},
      {"min(a,\n b)", INT_MAX, [](cl_int a, cl_int b) { return std::min(a, b); }},
      {"(int)((uint)a ^ (uint)(b))", 0, [](cl_int a, cl_int b) { return a ^ b; }},
  };
  for (const accepted& o : operators) {
    INFO("custom_op: " << o.text);
    std::vector<cl_int> expected(n);
    cl_int running = o.identity;
    for (std::size_t i = 0; i < n; ++i)
      expected[i] = running = o.combine(running, data[i]);
    clscan::options<cl_int> opts;
    opts.operation = clscan::op::custom;
    opts.custom_op = o.text;
    opts.custom_identity = o.identity;
    const cl::Buffer out = make_buffer(std::vector<cl_int>(n, poison_value<cl_int>()));
    clscan::inclusive<cl_int>(e.queue, in, out, n, opts);
    const cl::Buffer total = make_buffer(std::vector<cl_int>(1, poison_value<cl_int>()));
    clscan::reduce<cl_int>(e.queue, in, total, n, opts);
    REQUIRE(e.queue.finish() == CL_SUCCESS);
    CHECK(read_buffer<cl_int>(out, n) == expected);
    CHECK(read_buffer<cl_int>(total, 1)[0] == expected.back());
  }
}
