// Scan correctness for cl_int sums, compared exactly against the CPU: sizes around every tile and
// recursion boundary, random sizes, wrapping data, in place and out of place, inclusive and exclusive,
// guard elements around every scanned range, initial values, offsets, repeat calls, events, wait lists,
// out-of-order queues and several queues on one context.
//
// Every body runs once per algorithm: three_stage and automatic as "[scan]" test cases, single_pass as
// "[scan][single_pass]" test cases (the same checks).
#include "support/guarded.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <future>
#include <iostream>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace clscan_test;
using namespace clscan_test::guarded;
using clscan::algorithm;
using clscan::scan_kind;

namespace {

// Seeds of the random data and the random sizes; CAPTUREd by the tests that use them.
constexpr std::uint64_t data_seed = 0x2026'1121'5ca9ull;
constexpr std::uint64_t size_seed = 0x51'2e5ull;

// Largest buffer a test allocates, and the longest a scan may take before the test gives up on it.
constexpr std::size_t buffer_budget_bytes = std::size_t{256} << 20;
constexpr std::chrono::seconds scan_timeout{120};

using rng = splitmix64;

cl_int to_int(std::uint32_t bits) {
  cl_int value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

enum class data_kind { random, ones, minus_ones, overflow };

const char* data_name(data_kind kind) {
  switch (kind) {
  case data_kind::random: return "random (full int range)";
  case data_kind::ones: return "all 1";
  case data_kind::minus_ones: return "all -1";
  case data_kind::overflow: return "near INT_MAX / INT_MIN (overflows)";
  }
  return "?";
}

const std::vector<data_kind> all_data_kinds = {data_kind::random, data_kind::ones, data_kind::minus_ones,
                                               data_kind::overflow};

std::vector<cl_int> make_data(data_kind kind, std::size_t n, std::uint64_t seed = data_seed) {
  std::vector<cl_int> data(n);
  switch (kind) {
  case data_kind::random: {
    rng r{seed ^ (n * 0x9e37ull)};
    for (auto& x : data)
      x = to_int(static_cast<std::uint32_t>(r.next() >> 16));
    break;
  }
  case data_kind::ones: std::fill(data.begin(), data.end(), 1); break;
  case data_kind::minus_ones: std::fill(data.begin(), data.end(), -1); break;
  case data_kind::overflow:
    for (std::size_t i = 0; i < n; ++i)
      data[i] = i % 5 == 4 ? std::numeric_limits<cl_int>::min() + static_cast<cl_int>(i % 7)
                           : std::numeric_limits<cl_int>::max() - static_cast<cl_int>(i % 3);
    break;
  }
  return data;
}

// The CPU reference: a wrapping sum, as the device's int sums do.
std::vector<cl_int> cpu_scan(const std::vector<cl_int>& in, scan_kind kind, std::optional<cl_int> initial) {
  return clscan_reference::scan(in, kind, clscan::op::sum, initial);
}

std::string describe(std::optional<cl_int> value) { return value ? std::to_string(*value) : "none"; }

std::size_t tile_of(const clscan::tuning& shape) { return shape.work_group_size * shape.items_per_thread; }

// A second queue for reading results back: a result read there is only right if the scan's event
// really completes after the scan's last command.
const cl::CommandQueue& reader_queue() {
  static cl::CommandQueue queue(env().context, env().device);
  return queue;
}

std::vector<cl_int> read_back(const cl::Buffer& buffer, std::size_t count) {
  std::vector<cl_int> contents(count);
  if (count)
    REQUIRE(reader_queue().enqueueReadBuffer(buffer, CL_TRUE, 0, count * sizeof(cl_int), contents.data()) ==
            CL_SUCCESS);
  return contents;
}

// Waits for `event` (flushing `queue` first) and checks it reached CL_COMPLETE. A scan still running
// after scan_timeout is taken for a hang: the process aborts, and Catch reports the test case and its
// captured values, rather than ctest killing a silent process much later.
void await(const cl::Event& event, const cl::CommandQueue& queue) {
  REQUIRE(event() != nullptr);
  queue.flush();
  auto waiting = std::async(std::launch::async, [&event] { return event.wait(); });
  if (waiting.wait_for(scan_timeout) == std::future_status::timeout) {
    std::cerr << "clscan test: a scan did not complete within " << scan_timeout.count()
              << " s; taking it for a hang and aborting\n";
    std::abort();
  }
  CHECK(waiting.get() == CL_SUCCESS);
  CHECK(event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE);
}

// One scan call, or several in a row, on guarded buffers.
struct scan_case {
  std::size_t n = 0;
  bool in_place = false;
  scan_kind kind = scan_kind::inclusive;
  algorithm algo = algorithm::three_stage;
  std::size_t in_offset = 3;  // out of place: input front guard
  std::size_t out_offset = 5; // output front guard; in place, the front guard of the one buffer
  std::size_t back_guard = 6; // guard elements after the scanned range
  std::optional<cl_int> initial;
  bool initial_on_device = false;   // `initial` given through options::initial_on_device
  int repeats = 1;                  // calls in a row; in place each scans the previous result
  std::vector<cl::Event> wait_list; // for the first call
};

// Offsets of `c` for an alignment: front guards of 4/8 elements (multiples of every vector width up
// to 4) or of 3/5 elements (unaligned).
scan_case with_guards(scan_case c, bool aligned) {
  c.in_offset = aligned ? 4 : 3;
  c.out_offset = aligned ? 8 : 5;
  if (c.in_place) c.in_offset = c.out_offset;
  return c;
}

// Enqueued but not yet checked.
struct pending_scan {
  scan_case c;
  std::vector<cl_int> input;
  cl::Buffer in, out; // the same buffer in place
  cl::CommandQueue queue;
  std::vector<cl::Event> events; // returned by each call
};

clscan::options<cl_int> options_for(const scan_case& c) {
  clscan::options<cl_int> opts;
  opts.algorithm = c.algo;
  opts.initial = c.initial;
  opts.in_offset = c.in_place ? c.out_offset : c.in_offset;
  opts.out_offset = c.out_offset;
  opts.wait_list = c.wait_list;
  return opts;
}

cl::Event call_scan(const cl::CommandQueue& queue, const scan_case& c, const cl::Buffer& in,
                    const cl::Buffer& out, const clscan::options<cl_int>& opts) {
  if (c.in_place)
    return c.kind == scan_kind::inclusive ? clscan::inclusive(queue, in, c.n, opts)
                                          : clscan::exclusive(queue, in, c.n, opts);
  return c.kind == scan_kind::inclusive ? clscan::inclusive(queue, in, out, c.n, opts)
                                        : clscan::exclusive(queue, in, out, c.n, opts);
}

// Creates the guarded buffers and enqueues the call(s) on `queue` without waiting. Repeat calls wait
// for the previous call's event, so they stay ordered on out-of-order queues too.
pending_scan enqueue_case(const scan_case& c, std::vector<cl_int> input, const cl::CommandQueue& queue) {
  REQUIRE(input.size() == c.n);
  pending_scan p;
  p.c = c;
  p.input = std::move(input);
  p.queue = queue;
  if (c.in_place) {
    p.in = p.out = make_buffer(guarded_image(&p.input, c.n, c.out_offset, c.back_guard));
  } else {
    p.in = make_buffer(guarded_image(&p.input, c.n, c.in_offset, c.back_guard));
    p.out = make_buffer(guarded_image<cl_int>(nullptr, c.n, c.out_offset, c.back_guard));
  }
  clscan::options<cl_int> opts = options_for(c);
  if (c.initial_on_device && c.initial) {
    // Between poisoned neighbours, so that reading the wrong element shows.
    opts.initial_on_device =
        clscan::device_value{make_buffer(std::vector<cl_int>{-77, -77, *c.initial, -77}), 2};
    opts.initial.reset();
  }
  for (int r = 0; r < c.repeats; ++r) {
    p.events.push_back(call_scan(queue, c, p.in, p.out, opts));
    opts.wait_list = {p.events.back()};
  }
  return p;
}

// Waits for every call of `p`, then checks the scanned range exactly, the guards, and (out of place)
// that the input buffer is unchanged.
void check_case(const pending_scan& p) {
  const scan_case& c = p.c;
  const std::string& device = env().device_name;
  const char* kind = clscan::to_string(c.kind);
  const char* algo = clscan::to_string(c.algo);
  const std::string initial = describe(c.initial);
  CAPTURE(c.n, c.in_place, kind, algo, device, c.in_offset, c.out_offset, initial, c.repeats);

  for (const cl::Event& event : p.events)
    await(event, p.queue);

  std::vector<cl_int> expected = p.input;
  for (int r = 0; r < (c.in_place ? c.repeats : 1); ++r)
    expected = cpu_scan(expected, c.kind, c.initial);

  const std::vector<cl_int> out = read_back(p.out, c.out_offset + c.n + c.back_guard);
  check_exact("scanned range", out, c.out_offset, expected);
  check_guards(c.in_place ? "the buffer's guards" : "output buffer guards", out, c.out_offset, c.n);
  if (!c.in_place)
    check_exact("input buffer, guards included (must be unchanged)",
                read_back(p.in, c.in_offset + c.n + c.back_guard), 0,
                guarded_image(&p.input, c.n, c.in_offset, c.back_guard));
}

void run_case(const scan_case& c, const std::vector<cl_int>& input,
              const cl::CommandQueue& queue = env().queue) {
  check_case(enqueue_case(c, input, queue));
}

std::size_t budget_elements() {
  const auto caps = clscan::capabilities(env().device);
  const std::size_t bytes =
      std::min<std::size_t>(buffer_budget_bytes, static_cast<std::size_t>(caps.max_mem_alloc_size));
  return bytes / sizeof(cl_int) - 64; // room for the guards
}

// The tiles an algorithm's sizes are chosen around: the three-stage tile always (it is also where
// automatic switches algorithm), and the single-pass tile for the algorithms that may run it.
std::vector<std::size_t> tiles_for(algorithm algo) {
  const clscan::dispatch_plan plan = clscan::plan_for(env().device);
  std::vector<std::size_t> tiles = {tile_of(plan.three_stage)};
  if (algo != algorithm::three_stage) tiles.push_back(tile_of(plan.single_pass));
  return tiles;
}

// Sizes 0..9, and sizes around vector, work-item, tile and tile-multiple boundaries (up to 4 tiles).
std::vector<std::size_t> small_and_tile_sizes(algorithm algo) {
  const clscan::dispatch_plan plan = clscan::plan_for(env().device);
  std::set<std::size_t> sizes;
  for (std::size_t n = 0; n <= 9; ++n)
    sizes.insert(n);
  for (const clscan::tuning* shape : {&plan.three_stage, &plan.single_pass})
    for (std::size_t b : {shape->vector_width, shape->items_per_thread, 2 * shape->items_per_thread + 1})
      for (std::size_t n : {b - 1, b, b + 1})
        sizes.insert(n);
  for (std::size_t tile : tiles_for(algo))
    for (std::size_t k : {1, 2, 3, 4})
      for (std::size_t n : {k * tile - 1, k * tile, k * tile + 1})
        sizes.insert(n);
  return {sizes.begin(), sizes.end()};
}

// Sizes around the three-stage recursion boundaries: tile^2 +- 1 (tile^2 + 1 needs three levels of
// tile scans) and tile^3 +- 1, each where it fits in the memory budget.
std::vector<std::size_t> recursion_sizes() {
  const std::size_t tile = tile_of(clscan::plan_for(env().device).three_stage);
  const std::size_t limit = budget_elements();
  std::vector<std::size_t> sizes;
  for (std::size_t power = tile * tile; power + 1 <= limit; power *= tile) {
    for (std::size_t n : {power - 1, power, power + 1})
      sizes.push_back(n);
    if (power > limit / tile) break; // the next power is over the budget (or would overflow)
  }
  return sizes;
}

// Sizes of the matrix: for each size and data kind, in place and out of place, inclusive and
// exclusive (with `all_combinations` false only out of place inclusive and in place exclusive); the
// guards alternate between aligned and unaligned offsets.
void run_matrix(algorithm algo, const std::vector<std::size_t>& sizes, const std::vector<data_kind>& kinds,
                bool all_combinations = true) {
  const std::string& device = env().device_name;
  const char* algo_name = clscan::to_string(algo);
  CAPTURE(device, algo_name, data_seed);
  for (std::size_t n : sizes) {
    for (std::size_t d = 0; d < kinds.size(); ++d) {
      const char* data = data_name(kinds[d]);
      CAPTURE(n, data);
      const std::vector<cl_int> input = make_data(kinds[d], n);
      for (bool in_place : {false, true})
        for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
          if (!all_combinations && in_place != (kind == scan_kind::exclusive)) continue;
          scan_case c;
          c.n = n;
          c.in_place = in_place;
          c.kind = kind;
          c.algo = algo;
          run_case(with_guards(c, (d + in_place + (kind == scan_kind::exclusive)) % 2 == 0), input);
        }
    }
  }
}

// --- the test bodies, each run for every algorithm --------------------------------------------------

void small_and_tile_boundaries(algorithm algo) {
  run_matrix(algo, small_and_tile_sizes(algo), all_data_kinds);
}

void recursion_boundaries(algorithm algo) {
  const std::size_t tile = tile_of(clscan::plan_for(env().device).three_stage);
  const std::vector<std::size_t> sizes = recursion_sizes();
  const std::size_t budget = budget_elements();
  CAPTURE(tile, budget);
  if (sizes.empty() || sizes.back() <= tile * tile)
    WARN("tile^2 + 1 = " << tile * tile + 1 << " elements exceeds the per-buffer budget of " << budget
                         << " elements: no size here needs three recursion levels");
  // Each of these scans takes about a second in a Debug build: every combination for the sizes that
  // need one more level (power + 1), two of the four for the others.
  for (std::size_t n : sizes)
    run_matrix(algo, {n}, {data_kind::random}, n % tile == 1);
}

void random_sizes(algorithm algo) {
  // Log-uniform between 1 and 2^21 elements, so that small and multi-tile sizes both come up.
  rng r{size_seed};
  std::vector<std::size_t> sizes;
  for (int i = 0; i < 20; ++i) {
    const double exponent = r.unit() * 21.0;
    sizes.push_back(static_cast<std::size_t>(std::pow(2.0, exponent)));
  }
  CAPTURE(size_seed);
  run_matrix(algo, sizes, {data_kind::random});
}

void scan_of_a_scan(algorithm algo) {
  const std::size_t tile = tile_of(clscan::plan_for(env().device).three_stage);
  for (std::size_t n :
       {std::size_t{1}, std::size_t{9}, tile - 1, tile + 1, 3 * tile + 5, std::size_t{100003}})
    for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive})
      for (bool in_place : {true, false})
        for (std::optional<cl_int> initial : {std::optional<cl_int>{}, std::optional<cl_int>{-3}}) {
          scan_case c;
          c.n = n;
          c.in_place = in_place; // out of place: the same call twice gives the same result
          c.kind = kind;
          c.algo = algo;
          c.initial = initial;
          c.repeats = 2;
          run_case(with_guards(c, n % 2 == 0), make_data(data_kind::random, n));
        }
}

// Scans from each of `initials` at each of `sizes`, inclusive and exclusive, in and out of place.
// `on_device`: the initial value is read from a device buffer (and out of place, scanned twice in a
// row), of random data; else half the cases scan data that overflows.
void initial_value_scans(algorithm algo, const std::vector<cl_int>& initials,
                         const std::vector<std::size_t>& sizes, bool on_device) {
  for (std::size_t n : sizes)
    for (std::size_t i = 0; i < initials.size(); ++i)
      for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive})
        for (bool in_place : {false, true}) {
          scan_case c;
          c.n = n;
          c.in_place = in_place;
          c.kind = kind;
          c.algo = algo;
          c.initial = initials[i];
          c.initial_on_device = on_device;
          if (on_device) c.repeats = in_place ? 1 : 2;
          run_case(with_guards(c, i % 2 == 0),
                   make_data(on_device || i % 2 ? data_kind::random : data_kind::overflow, n));
        }
}

void initial_values(algorithm algo) {
  const std::size_t tile = tile_of(clscan::plan_for(env().device).three_stage);
  initial_value_scans(
      algo, {0, 1, -7, 123456789, std::numeric_limits<cl_int>::max(), std::numeric_limits<cl_int>::min()},
      {0, 1, 2, 9, tile - 1, tile, tile + 1, 2 * tile + 3, 100003}, false);
}

// The same scans with the initial value in a device buffer.
void initial_values_on_device(algorithm algo) {
  const std::size_t tile = tile_of(clscan::plan_for(env().device).three_stage);
  initial_value_scans(algo, {-7, std::numeric_limits<cl_int>::min()},
                      {1, 9, tile - 1, tile + 1, 2 * tile + 3, 100003}, true);
}

void offsets(algorithm algo) {
  const std::size_t tile = tile_of(clscan::plan_for(env().device).three_stage);
  struct offset_pair {
    std::size_t in, out;
  };
  // Out of place: aligned (multiples of 4), unaligned, and one of each.
  const std::vector<offset_pair> separate = {{0, 0}, {4, 8}, {8, 4}, {16, 12}, {1, 1}, {3, 5},
                                             {7, 2}, {4, 1}, {1, 4}, {13, 12}, {0, 3}, {6, 0}};
  // In place: one offset for both.
  const std::vector<std::size_t> shared = {0, 1, 2, 3, 4, 5, 7, 8, 12, 13};
  for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{9}, tile - 1, tile + 1, 3 * tile + 17})
    for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
      const std::vector<cl_int> input = make_data(data_kind::random, n);
      for (const offset_pair& o : separate) {
        scan_case c;
        c.n = n;
        c.kind = kind;
        c.algo = algo;
        c.in_offset = o.in;
        c.out_offset = o.out;
        run_case(c, input);
      }
      for (std::size_t offset : shared) {
        scan_case c;
        c.n = n;
        c.in_place = true;
        c.kind = kind;
        c.algo = algo;
        c.in_offset = c.out_offset = offset;
        run_case(c, input);
      }
    }
}

void returned_event(algorithm algo) {
  const std::size_t tile = tile_of(clscan::plan_for(env().device).three_stage);
  for (std::size_t n : {std::size_t{0}, std::size_t{7}, tile + 1, std::size_t{100003}})
    for (bool in_place : {false, true}) {
      scan_case c;
      c.n = n;
      c.in_place = in_place;
      c.algo = algo;
      const char* algo_name = clscan::to_string(algo);
      CAPTURE(n, in_place, algo_name);
      const pending_scan p = enqueue_case(c, make_data(data_kind::random, n), env().queue);
      REQUIRE(p.events.size() == 1);
      REQUIRE(p.events[0]() != nullptr);
      // The event belongs to the caller's queue and context.
      CHECK(p.events[0].getInfo<CL_EVENT_COMMAND_QUEUE>()() == env().queue());
      CHECK(p.events[0].getInfo<CL_EVENT_CONTEXT>()() == env().context());
      p.events[0].wait();
      CHECK(p.events[0].getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE);
      check_case(p); // reads back on another queue: the result is there once the event completed
    }
}

// The call must only enqueue: it returns while its wait list holds an incomplete user event, the scan
// runs only once the user event completes, and until then the buffers are untouched.
void user_event_wait_list(algorithm algo) {
  const std::size_t tile = tile_of(clscan::plan_for(env().device).three_stage);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, tile + 1, std::size_t{100003}})
    for (bool in_place : {false, true})
      for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
        const char* algo_name = clscan::to_string(algo);
        const char* kind_name = clscan::to_string(kind);
        CAPTURE(n, in_place, kind_name, algo_name);
        cl::UserEvent gate(env().context);
        scan_case c;
        c.n = n;
        c.in_place = in_place;
        c.kind = kind;
        c.algo = algo;
        c.wait_list = {gate};
        const std::vector<cl_int> input = make_data(data_kind::random, n);

        auto call = std::async(std::launch::async, [&] { return enqueue_case(c, input, env().queue); });
        if (call.wait_for(std::chrono::seconds(30)) == std::future_status::timeout) {
          FAIL_CHECK("the scan call did not return within 30 s while its wait list held an incomplete "
                     "user event: it blocks");
          gate.setStatus(CL_COMPLETE);
          call.get();
          continue;
        }
        const pending_scan p = call.get();
        const cl_int status = p.events.at(0).getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
        INFO("status of the scan's event before the user event completes: " << status);
        CHECK(status != CL_COMPLETE);
        CHECK(status >= 0);
        // Nothing has run: the output is still all poison (in place: the input as it was).
        const std::size_t front = c.in_place ? c.out_offset : c.in_offset;
        const std::vector<cl_int> before = read_back(p.out, c.out_offset + n + c.back_guard);
        if (c.in_place)
          check_exact("buffer before the user event completes", before, 0,
                      guarded_image(&input, n, front, c.back_guard));
        else
          check_guards("output before the user event completes (all poison)", before, 0, 0);

        gate.setStatus(CL_COMPLETE);
        check_case(p);
      }
}

// CL_DEVICE_QUEUE_PROPERTIES is CL_DEVICE_QUEUE_ON_HOST_PROPERTIES in OpenCL 2.0 and later.
bool out_of_order_supported() {
  const auto properties = env().device.getInfo<CL_DEVICE_QUEUE_PROPERTIES>();
  return (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
}

// A batch of different scans, enqueued back to back before any is checked.
std::vector<scan_case> batch_cases(algorithm algo) {
  const std::size_t tile = tile_of(clscan::plan_for(env().device).three_stage);
  const std::vector<std::size_t> sizes = {
      3 * tile + 7,        5, tile + 1, std::size_t{100003}, 0, tile, 2 * tile - 1,
      std::size_t{262147}, 1, 9 * tile};
  std::vector<scan_case> cases;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    scan_case c;
    c.n = sizes[i];
    c.in_place = i % 3 == 1;
    c.kind = i % 2 ? scan_kind::exclusive : scan_kind::inclusive;
    c.algo = algo;
    if (i % 4 == 3) c.initial = static_cast<cl_int>(i * 1000 + 1);
    if (i % 5 == 2) c.repeats = 2; // chained through wait_list
    cases.push_back(with_guards(c, i % 2 == 0));
  }
  return cases;
}

void run_batch(algorithm algo, const std::vector<cl::CommandQueue>& queues) {
  const std::vector<scan_case> cases = batch_cases(algo);
  std::vector<pending_scan> pending;
  for (std::size_t i = 0; i < cases.size(); ++i)
    pending.push_back(enqueue_case(cases[i], make_data(data_kind::random, cases[i].n, data_seed + i),
                                   queues[i % queues.size()]));
  // Wait for the last scan first, flushing only its own queue: clscan makes each call wait for the
  // previous call on another queue (they share temporaries), and OpenCL requires the queue of an event
  // that commands of another queue wait for to be flushed, which is clscan's job here, not the caller's.
  const std::size_t last_queue = (pending.size() - 1) % queues.size();
  CAPTURE(last_queue);
  await(pending.back().events.back(), pending.back().queue);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const std::size_t queue_index = i % queues.size();
    CAPTURE(i, queue_index);
    check_case(pending[i]);
  }
}

void out_of_order_queue(algorithm algo) {
  const std::string& device = env().device_name;
  CAPTURE(device);
  if (!out_of_order_supported()) {
    WARN("device '" << device << "' does not support out-of-order queues "
                    << "(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE): out-of-order scans not tested");
    return;
  }
  cl::CommandQueue queue(env().context, env().device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  run_batch(algo, {queue});
  // Again on the same queue, now that clscan's temporaries exist.
  run_batch(algo, {queue});
}

void two_queues(algorithm algo) {
  cl::CommandQueue first(env().context, env().device);
  cl::CommandQueue second(env().context, env().device);
  run_batch(algo, {first, second});
  // The default queue joins in: three queues used in turn.
  run_batch(algo, {env().queue, second, first});
}

// Single-pass needs global atomics: on a device without them, every single_pass call must throw
// clscan::unsupported_error (checked), and the single-pass tests say so with a warning.
bool single_pass_runs() {
  if (clscan::plan_for(env().device).single_pass_available) return true;
  cl::Buffer buffer = make_buffer(std::vector<cl_int>(16, 1));
  clscan::options<cl_int> opts;
  opts.algorithm = algorithm::single_pass;
  CHECK_THROWS_AS(clscan::inclusive(env().queue, buffer, 16, opts), clscan::unsupported_error);
  WARN("device '" << env().device_name << "' cannot run algorithm::single_pass: checked that it throws "
                  << "clscan::unsupported_error; single-pass scans not tested");
  return false;
}

template <algorithm A> struct algo_tag { static constexpr algorithm value = A; };
using three_stage = algo_tag<algorithm::three_stage>;
using automatic = algo_tag<algorithm::automatic>;

} // namespace

// Each body as a "[scan]" test case for three_stage and automatic, and as a "[scan][single_pass]" test
// case for single_pass.
#define CLSCAN_SCAN_TEST(title, body)                                                                        \
  TEMPLATE_TEST_CASE(title, "[scan]", three_stage, automatic) { body(TestType::value); }                     \
  TEST_CASE(title " - single_pass", "[scan][single_pass]") {                                                 \
    if (single_pass_runs()) body(algorithm::single_pass);                                                    \
  }

CLSCAN_SCAN_TEST("scan: sizes 0..9 and around every tile boundary with all data kinds",
                 small_and_tile_boundaries)
CLSCAN_SCAN_TEST("scan: sizes around tile^2 (three recursion levels)", recursion_boundaries)
CLSCAN_SCAN_TEST("scan: 20 random sizes", random_sizes)
CLSCAN_SCAN_TEST("scan: in place twice is a scan of a scan and out of place twice the same", scan_of_a_scan)
CLSCAN_SCAN_TEST("scan: initial values with inclusive and exclusive scans", initial_values)
CLSCAN_SCAN_TEST("scan: initial values read on the device (options::initial_on_device)",
                 initial_values_on_device)
CLSCAN_SCAN_TEST("scan: aligned and unaligned in_offset and out_offset", offsets)
CLSCAN_SCAN_TEST("scan: the returned event completes with the result in the output", returned_event)
CLSCAN_SCAN_TEST("scan: a wait list with a user event and the call does not block", user_event_wait_list)
CLSCAN_SCAN_TEST("scan: back-to-back scans on an out-of-order queue", out_of_order_queue)
CLSCAN_SCAN_TEST("scan: two queues of one context used alternately", two_queues)
