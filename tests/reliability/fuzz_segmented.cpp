// Differential fuzzing of the segmented calls over offsets ("[fuzz]", with fuzz.cpp and
// fuzz_primitives.cpp; "[fuzz-segmented]" alone): random inclusive_segmented, exclusive_segmented and
// reduce_segmented calls, each compared exactly with a sequential reference of the rules segmented.hpp
// states.
//
// Every case draws, from its own seeded generator: the call, n (0, 1, small, around 1 to 3 tiles of the
// launch shape, log-uniform up to 2^14, now and then up to 2^17), the offsets' type (cl_uint or
// cl_ulong) and pattern (CSR with segments of mean length 1, 4, 40 or 1000, or of all n, often with
// empty ones; or random entries: unsorted, repeated, past n, huge), num_segments, offsets into every
// buffer, in place or not (the scans), an initial value or none, and the data: any bits for integers
// (sums wrap), small integers for floats (exact in any order). Outputs are poisoned with guards around
// them; the input and the offsets must come back unchanged. Calls on one context follow each other, so
// the head flags one call sets and clears are the next call's storage too.
//
// As in fuzz_primitives.cpp, programs cost far more than cases, so cases come from a small pool of
// program families (value type, operator, algorithm, launch shape): max(3, cases / 20) of them.
//
// Environment: CLSCAN_FUZZ_SEED, CLSCAN_FUZZ_REPLAY and CLSCAN_FUZZ_VERBOSE as in fuzz.cpp, and
//   CLSCAN_FUZZ_SEGMENTED_CASES=<n>  the number of cases; default a quarter of CLSCAN_FUZZ_CASES, else 60
#include "reliability/fuzz_common.hpp"
#include "support/guarded.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace clscan_test;
using namespace clscan_test::guarded;
using namespace clscan_test::fuzz;
using clscan::algorithm;
using clscan::op;

namespace {

constexpr std::uint64_t default_cases = 60;
constexpr std::size_t guard = 3;

// The device's shape, and small tiles of one work-item (programs that PoCL builds fast), so that small
// n spans many tiles.
const std::vector<shape_def>& segmented_shapes() {
  static const std::vector<shape_def> made = {
      shapes()[0],
      {std::string("wg=1,items=8,vec=4,lookback=2"), "CLSCAN_TUNING=wg=1,items=8,vec=4,lookback=2"}};
  return made;
}

struct family {
  int type = t_int;
  op operation = op::sum;
  algorithm algo = algorithm::automatic;
  std::size_t shape = 0;
};

enum class call_id { inclusive, exclusive, reduce };
const char* call_name(call_id c) {
  switch (c) {
  case call_id::inclusive: return "inclusive_segmented";
  case call_id::exclusive: return "exclusive_segmented";
  case call_id::reduce: return "reduce_segmented";
  }
  return "?";
}

struct segmented_case {
  std::uint64_t seed = 0, index = 0, cases = 0;
  family f;
  call_id call = call_id::inclusive;
  bool wide = false; // cl_ulong offsets
  std::size_t n = 0;
  std::string size_origin;
  bool csr = true;
  std::size_t mean_length = 1; // csr
  bool empties = false;        // csr
  std::size_t random_entries = 0;
  std::size_t in_offset = 0, out_offset = 0, offsets_offset = 0;
  bool in_place = false;
  bool has_initial = false;
  std::uint64_t data_seed = 0;
};

std::string describe(const segmented_case& c) {
  std::ostringstream out;
  out << "case " << c.index << " of " << c.cases << " (seed " << hex(c.seed) << "): " << call_name(c.call)
      << " of " << c.n << " " << type_names[c.f.type] << " (" << c.size_origin << "), op "
      << clscan::to_string(c.f.operation) << ", " << clscan::to_string(c.f.algo) << ", "
      << (c.wide ? "cl_ulong" : "cl_uint") << " offsets: ";
  if (c.csr)
    out << "CSR, mean length " << c.mean_length << (c.empties ? ", with empty segments" : "");
  else
    out << c.random_entries << " random entries";
  out << "; in_offset " << c.in_offset << ", out_offset " << c.out_offset << ", offsets_offset "
      << c.offsets_offset << (c.in_place ? ", in place" : "") << (c.has_initial ? ", initial" : "")
      << ", shape: " << segmented_shapes()[c.f.shape].label << ", data seed " << hex(c.data_seed)
      << "\n  replay: CLSCAN_FUZZ_SEED=" << hex(c.seed) << " CLSCAN_FUZZ_SEGMENTED_CASES=" << c.cases
      << " CLSCAN_FUZZ_REPLAY=" << c.index << " clscan-tests \"[fuzz-segmented]\"";
  return out.str();
}

std::vector<family> family_pool(std::uint64_t seed, std::uint64_t cases, bool fp64) {
  splitmix64 r{seed ^ 0x5e9'0ffull};
  std::vector<family> pool(std::max<std::uint64_t>(3, cases / 20));
  for (family& f : pool) {
    do
      f.type = static_cast<int>(r.next() % type_count);
    while (f.type == t_double && !fp64);
    const op ops[] = {op::sum, op::sum, op::min, op::max};
    f.operation = ops[r.next() % 4];
    f.algo = r.next() % 3 == 0 ? algorithm::three_stage : algorithm::automatic;
    f.shape = r.next() % 2;
  }
  return pool;
}

segmented_case draw_case(fuzz_state& state, const std::vector<family>& pool, std::uint64_t seed,
                         std::uint64_t cases, std::uint64_t index) {
  splitmix64 r{seed ^ (index * 0x9E3779B97F4A7C15ull) ^ 0x5e9ull};
  segmented_case c;
  c.seed = seed;
  c.index = index;
  c.cases = cases;
  c.f = pool[r.next() % pool.size()];
  c.call = static_cast<call_id>(r.next() % 3);
  c.wide = r.next() % 2 == 0;
  const clscan::dispatch_plan& plan = plan_of(state, c.f.shape, c.f.type);
  const std::size_t tile = std::max<std::size_t>(1, tile_of(plan.single_pass));
  const std::uint64_t size_roll = r.next() % 100;
  const std::size_t k = 1 + r.next() % 3;
  const long delta = static_cast<long>(r.next() % 5) - 2;
  if (size_roll < 5) {
    c.n = 0;
    c.size_origin = "zero";
  } else if (size_roll < 10) {
    c.n = 1;
    c.size_origin = "one";
  } else if (size_roll < 35) {
    c.n = 2 + r.next() % 39;
    c.size_origin = "small";
  } else if (size_roll < 65 && k * tile + 2 <= (std::size_t{1} << 17)) {
    c.n = static_cast<std::size_t>(std::max(1L, static_cast<long>(k * tile) + delta));
    c.size_origin = std::to_string(k) + " x tile " + std::to_string(tile) + (delta < 0 ? " - " : " + ") +
                    std::to_string(std::labs(delta));
  } else if (size_roll < 96) {
    c.n = static_cast<std::size_t>(std::pow(2.0, r.unit() * 14.0)) + r.next() % 7;
    c.size_origin = "random up to 2^14";
  } else {
    c.n = static_cast<std::size_t>(std::pow(2.0, 14.0 + r.unit() * 3.0));
    c.size_origin = "random up to 2^17";
  }
  c.csr = r.next() % 4 != 0;
  const std::size_t lengths[] = {1, 4, 40, 1000, std::max<std::size_t>(1, c.n)};
  c.mean_length = lengths[r.next() % 5];
  c.empties = r.next() % 2 == 0;
  c.random_entries = r.next() % 40;
  c.in_offset = r.next() % 3 == 0 ? 0 : r.next() % 20;
  c.out_offset = r.next() % 3 == 0 ? 0 : r.next() % 20;
  c.offsets_offset = r.next() % 2 == 0 ? 0 : r.next() % 9;
  c.in_place = c.call != call_id::reduce && r.next() % 4 == 0;
  if (c.in_place) c.out_offset = c.in_offset;
  c.has_initial = r.next() % 3 == 0;
  c.data_seed = r.next();
  return c;
}

template <typename O> std::vector<O> make_offsets(const segmented_case& c, splitmix64& r) {
  std::vector<O> offsets;
  if (c.csr) {
    std::size_t at = 0;
    offsets.push_back(0);
    while (at < c.n) {
      const std::size_t length = c.empties && r.next() % 3 == 0 ? 0 : 1 + r.next() % (2 * c.mean_length);
      at = std::min(c.n, at + length);
      offsets.push_back(static_cast<O>(at));
    }
    if (c.empties) offsets.push_back(static_cast<O>(c.n));
  } else {
    for (std::size_t s = 0; s <= c.random_entries; ++s) {
      const std::uint64_t roll = r.next() % 10;
      offsets.push_back(roll == 0   ? std::numeric_limits<O>::max()
                        : roll == 1 ? static_cast<O>(c.n + r.next() % 5)
                                    : static_cast<O>(r.next() % (c.n + 1)));
    }
  }
  return offsets;
}

template <typename T> T draw_value(splitmix64& r) {
  if constexpr (is_float<T>)
    return static_cast<T>(static_cast<int>(r.next() % 33) - 16);
  else
    return random_bits<T>(r);
}

// The rules of segmented.hpp, element by element.
template <typename T, typename O>
std::vector<T> reference(const segmented_case& c, const std::vector<T>& in, const std::vector<O>& offsets,
                         std::optional<T> initial) {
  const std::size_t n = in.size(), segments = offsets.size() - 1;
  const T identity = clscan_reference::identity<T>(c.f.operation);
  const auto f = [&](T a, T b) { return clscan_reference::combine(c.f.operation, a, b); };
  std::vector<bool> heads(n, false);
  if (c.call != call_id::reduce) {
    if (n) heads[0] = true;
    for (const O o : offsets)
      if (static_cast<std::uint64_t>(o) < n) heads[static_cast<std::size_t>(o)] = true;
    std::vector<T> out(n);
    T running{};
    for (std::size_t i = 0; i < n; ++i) {
      const T before = heads[i] ? identity : running;
      running = heads[i] ? in[i] : f(running, in[i]);
      const T result = c.call == call_id::exclusive ? before : running;
      out[i] = initial ? f(*initial, result) : result;
    }
    return out;
  }
  const auto range = [&](std::size_t s) {
    return std::make_pair(static_cast<std::uint64_t>(offsets[s]),
                          std::min<std::uint64_t>(n, static_cast<std::uint64_t>(offsets[s + 1])));
  };
  std::vector<T> out(segments);
  for (std::size_t s = 0; s < segments; ++s) {
    const auto [b, e] = range(s);
    if (b >= e) {
      out[s] = initial ? *initial : identity;
      continue;
    }
    T total = in[static_cast<std::size_t>(b)];
    for (std::size_t i = static_cast<std::size_t>(b) + 1; i < e; ++i)
      total = f(total, in[i]);
    out[s] = initial ? f(*initial, total) : total;
  }
  return out;
}

template <typename T, typename O> outcome run_typed(fuzz_state& state, const segmented_case& c) {
  shape_context& sc = context_for(state, c.f.shape);
  splitmix64 r{c.data_seed};
  const std::size_t n = c.n;
  std::vector<T> input(n);
  for (T& x : input)
    x = draw_value<T>(r);
  const std::vector<O> offsets = make_offsets<O>(c, r);
  const std::size_t segments = offsets.size() - 1;
  const std::optional<T> initial = c.has_initial ? std::optional<T>(draw_value<T>(r)) : std::nullopt;
  const std::vector<T> expected = reference(c, input, offsets, initial);
  const bool reduce = c.call == call_id::reduce;
  const std::size_t out_n = reduce ? segments : n;

  std::vector<T> in_image(c.in_offset + n + guard, poison_value<T>());
  std::copy(input.begin(), input.end(), in_image.begin() + static_cast<std::ptrdiff_t>(c.in_offset));
  std::vector<O> offsets_image(c.offsets_offset + offsets.size() + guard, poison_value<O>());
  std::copy(offsets.begin(), offsets.end(),
            offsets_image.begin() + static_cast<std::ptrdiff_t>(c.offsets_offset));
  std::vector<T> out_image(c.out_offset + out_n + guard, poison_value<T>());
  const auto buffer_of = [&](const auto& image) {
    using E = typename std::decay_t<decltype(image)>::value_type;
    cl::Buffer b(sc.context, CL_MEM_READ_WRITE, std::max<std::size_t>(1, image.size()) * sizeof(E));
    REQUIRE(sc.queue.enqueueWriteBuffer(b, CL_TRUE, 0, image.size() * sizeof(E), image.data()) == CL_SUCCESS);
    return b;
  };
  const cl::Buffer in_buffer = buffer_of(in_image), offsets_buffer = buffer_of(offsets_image);
  const cl::Buffer out_buffer = c.in_place ? in_buffer : buffer_of(out_image);

  clscan::segmented_options<T> opts;
  opts.operation = c.f.operation;
  opts.algorithm = c.f.algo;
  opts.initial = initial;
  opts.in_offset = c.in_offset;
  opts.out_offset = c.out_offset;
  opts.offsets_offset = c.offsets_offset;
  cl::Event done;
  {
    scoped_env tuning("CLSCAN_TUNING", segmented_shapes()[c.f.shape].tuning);
    done = c.call == call_id::inclusive ? clscan::inclusive_segmented<T, O>(sc.queue, in_buffer, out_buffer,
                                                                            n, offsets_buffer, segments, opts)
           : c.call == call_id::exclusive
               ? clscan::exclusive_segmented<T, O>(sc.queue, in_buffer, out_buffer, n, offsets_buffer,
                                                   segments, opts)
               : clscan::reduce_segmented<T, O>(sc.queue, in_buffer, out_buffer, n, offsets_buffer, segments,
                                                opts);
  }
  const cl_int waited = await_event(done, sc.queue, [&] { return describe(c); });
  if (waited != CL_SUCCESS)
    return outcome{false, "the returned event did not complete (" + std::to_string(waited) + ")"};

  const auto read = [&](const cl::Buffer& b, auto& image) {
    using E = typename std::decay_t<decltype(image)>::value_type;
    std::vector<E> got(image.size());
    REQUIRE(sc.queue.enqueueReadBuffer(b, CL_TRUE, 0, got.size() * sizeof(E), got.data()) == CL_SUCCESS);
    return got;
  };
  std::string problems;
  if (c.in_place) {
    std::vector<T> want = in_image;
    std::copy(expected.begin(), expected.end(), want.begin() + static_cast<std::ptrdiff_t>(c.out_offset));
    problems += compare_image("output (in place)", read(in_buffer, in_image), want, 0, 0, c.out_offset,
                              c.out_offset + out_n);
  } else {
    std::vector<T> want = out_image;
    std::copy(expected.begin(), expected.end(), want.begin() + static_cast<std::ptrdiff_t>(c.out_offset));
    problems +=
        compare_image("output", read(out_buffer, out_image), want, 0, 0, c.out_offset, c.out_offset + out_n);
    problems +=
        compare_image("input", read(in_buffer, in_image), in_image, 0, 0, c.in_offset, c.in_offset + n, true);
  }
  problems += compare_image("offsets", read(offsets_buffer, offsets_image), offsets_image, 0, 0,
                            c.offsets_offset, c.offsets_offset + offsets.size(), true);
  return problems.empty() ? outcome{} : outcome{false, problems};
}

template <typename T> outcome run_with_offsets(fuzz_state& state, const segmented_case& c) {
  return c.wide ? run_typed<T, cl_ulong>(state, c) : run_typed<T, cl_uint>(state, c);
}

outcome run_case(fuzz_state& state, const segmented_case& c) {
  switch (c.f.type) {
  case t_int: return run_with_offsets<cl_int>(state, c);
  case t_uint: return run_with_offsets<cl_uint>(state, c);
  case t_long: return run_with_offsets<cl_long>(state, c);
  case t_ulong: return run_with_offsets<cl_ulong>(state, c);
  case t_float: return run_with_offsets<cl_float>(state, c);
  default: return run_with_offsets<cl_double>(state, c);
  }
}

} // namespace

TEST_CASE("fuzz: random segmented scans and reductions match the CPU reference", "[fuzz][fuzz-segmented]") {
  const run_settings settings = settings_of("CLSCAN_FUZZ_SEGMENTED_CASES", 4, default_cases);
  const bool fp64 = clscan::capabilities(env().device).fp64;
  print_start("fuzz segmented", settings, "CLSCAN_FUZZ_SEGMENTED_CASES", fp64);
  fuzz_state state(segmented_shapes());
  const std::vector<family> pool = family_pool(settings.seed, settings.cases, fp64);
  std::map<std::string, std::size_t> counts;
  const run_totals totals = run_cases(
      settings, "segmented case",
      [&](std::uint64_t index) { return draw_case(state, pool, settings.seed, settings.cases, index); },
      [&](const segmented_case& c) { return run_case(state, c); },
      [&](const segmented_case& c, const outcome&) { ++counts[call_name(c.call)]; });
  std::ostringstream summary;
  summary << summary_head("fuzz segmented", settings, totals) << " (" << pool.size() << " program families):";
  for (const auto& [call, count] : counts)
    summary << " " << call << " " << count;
  std::cout << summary.str() << std::endl;
  report(settings, totals, "segmented cases");
}
