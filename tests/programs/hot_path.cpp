// A repeated call (the scans, reduce, select_if, inclusive_by_key, the segmented calls, sort_by_key; with new
// parameter values too) must cost only its enqueues: after the first call of a kind (which builds or loads
// its kernels and allocates its temporaries), later calls of that kind allocate no host memory and build,
// load and log nothing. This program counts the operator new calls a call makes on the calling thread
// (the allocation counter is replaced for this whole executable, which is why it is not part of
// clscan-tests) and listens to clscan's log, over many repeated calls of several kinds, then checks
// every result against a host reference.
//
// Output: one line per kind ("ok" or what went wrong). Exit status 0 only when every kind is clean.
#include <clscan/clscan.hpp>

#include <common/reference.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iterator>
#include <new>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace {

thread_local bool counting = false;
thread_local std::size_t allocations = 0;
std::atomic<int> log_events{0};
std::atomic<int> temporary_allocations{0}; // log events of clCreateBuffer for temporary storage

} // namespace

// Every replaceable form of operator new and delete, so that the whole program (the OpenCL
// implementation's C++ parts included) allocates through malloc and frees through free, and the
// calling thread's allocations are counted while `counting` is set.
namespace {

void* allocate(std::size_t size, std::size_t alignment, bool nothrow) {
  if (counting) ++allocations;
  if (size == 0) size = 1;
  void* p = nullptr;
  if (alignment <= alignof(std::max_align_t)) {
    p = std::malloc(size);
  } else {
    size = (size + alignment - 1) / alignment * alignment; // aligned_alloc wants a multiple
    p = std::aligned_alloc(alignment, size);
  }
  if (!p && !nothrow) throw std::bad_alloc();
  return p;
}

constexpr std::size_t plain = alignof(std::max_align_t);

} // namespace

void* operator new(std::size_t size) { return allocate(size, plain, false); }
void* operator new[](std::size_t size) { return allocate(size, plain, false); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size, plain, true); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size, plain, true); }
void* operator new(std::size_t size, std::align_val_t a) {
  return allocate(size, static_cast<std::size_t>(a), false);
}
void* operator new[](std::size_t size, std::align_val_t a) {
  return allocate(size, static_cast<std::size_t>(a), false);
}
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(size, static_cast<std::size_t>(a), true);
}
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(size, static_cast<std::size_t>(a), true);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

constexpr int repeats = 50;

struct scan_case {
  std::string name;
  std::size_t n;
  std::size_t offset; // input and output offset, in elements
  bool exclusive;
  bool in_place;
  clscan::options<cl_int> options;
  bool out_of_order_queue = false;
  bool wait_for_marker = false; // options.wait_list holds a marker event
};

// Wrapping sums, as the device computes them.
cl_int wrapping_sum(cl_int a, cl_int b) { return clscan_reference::wrapping_sum(a, b); }

// What the repeated calls of a kind cost after its first: allocations on this thread, and log events
// (builds or cache loads).
struct repeat_cost {
  std::size_t allocations = 0;
  int log_events = 0;
};

// Calls call() once (it builds or loads the kernels and allocates the temporaries) and then `repeats`
// times, each after prepare() (not counted), and measures those.
template <typename Call, typename Prepare> repeat_cost repeat_calls(Call&& call, Prepare&& prepare) {
  call().wait();
  repeat_cost cost;
  const int events_before = log_events.load();
  for (int i = 0; i < repeats; ++i) {
    prepare();
    counting = true;
    allocations = 0;
    cl::Event done = call();
    counting = false;
    cost.allocations += allocations;
    done.wait();
  }
  cost.log_events = log_events.load() - events_before;
  return cost;
}

template <typename Call> repeat_cost repeat_calls(Call&& call) {
  return repeat_calls(call, [] {});
}

// The line of a kind: empty when the repeats cost nothing and the result is right.
std::string problems_of(const repeat_cost& cost, bool right) {
  std::string problems;
  if (cost.allocations)
    problems +=
        std::to_string(cost.allocations) + " allocations in " + std::to_string(repeats) + " repeated calls; ";
  if (cost.log_events)
    problems += std::to_string(cost.log_events) + " log events (builds or cache loads) in repeated calls; ";
  if (!right) problems += "wrong result; ";
  return problems;
}

std::string run_case(const cl::Context& context, const cl::Device& device, const scan_case& c) {
  const cl::CommandQueue queue(context, device,
                               c.out_of_order_queue ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
                                                    : cl_command_queue_properties{0});
  std::vector<cl_int> data(c.n);
  std::mt19937 random(static_cast<unsigned>(c.n));
  for (cl_int& x : data)
    x = static_cast<cl_int>(random());
  const std::size_t bytes = (c.n + c.offset) * sizeof(cl_int);
  cl::Buffer in(context, CL_MEM_READ_WRITE, bytes);
  cl::Buffer out(context, CL_MEM_READ_WRITE, bytes);
  const cl::Buffer& target = c.in_place ? in : out;
  const auto upload = [&] {
    queue.enqueueWriteBuffer(in, CL_TRUE, c.offset * sizeof(cl_int), c.n * sizeof(cl_int), data.data());
  };
  clscan::options<cl_int> options = c.options;
  options.in_offset = options.out_offset = c.offset;
  if (c.wait_for_marker) {
    cl::Event marker;
    queue.enqueueMarkerWithWaitList(nullptr, &marker);
    options.wait_list = {marker};
  }
  const auto call = [&] {
    return c.exclusive ? clscan::exclusive<cl_int>(queue, in, target, c.n, options)
                       : clscan::inclusive<cl_int>(queue, in, target, c.n, options);
  };

  upload();
  const repeat_cost cost = repeat_calls(call, [&] {
    if (c.in_place) upload();
  });

  std::vector<cl_int> got(c.n);
  queue.enqueueReadBuffer(target, CL_TRUE, c.offset * sizeof(cl_int), c.n * sizeof(cl_int), got.data());
  std::vector<cl_int> expected(c.n);
  const cl_int initial = options.initial.value_or(0);
  if (c.exclusive)
    std::exclusive_scan(data.begin(), data.end(), expected.begin(), initial, wrapping_sum);
  else
    std::inclusive_scan(data.begin(), data.end(), expected.begin(), wrapping_sum, initial);
  return problems_of(cost, got == expected);
}

enum class call_kind { scan, select_if, inclusive_by_key };

// The buffers of select_if and inclusive_by_key calls over `data` and `keys`: those two, uploaded, and
// an output of their size and a count.
struct primitive_buffers {
  primitive_buffers(const cl::CommandQueue& queue, const std::vector<cl_int>& data,
                    const std::vector<cl_int>& key_data)
      : in(upload(queue, data)), keys(upload(queue, key_data)),
        out(buffer(queue, data.size() * sizeof(cl_int))), count(buffer(queue, sizeof(cl_ulong))) {}
  static cl::Buffer buffer(const cl::CommandQueue& queue, std::size_t bytes) {
    return cl::Buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, bytes);
  }
  static cl::Buffer upload(const cl::CommandQueue& queue, const std::vector<cl_int>& contents) {
    cl::Buffer made = buffer(queue, contents.size() * sizeof(cl_int));
    queue.enqueueWriteBuffer(made, CL_TRUE, 0, contents.size() * sizeof(cl_int), contents.data());
    return made;
  }
  cl::Buffer in, keys, out, count;
};

// A call of n elements, then calls of fewer: the later ones must allocate no temporary storage, even
// where the smaller ones run on another launch shape with more tiles (GPU single-pass inputs of at
// most small_input_bytes, by_key_small_input_bytes for scans by key). They may build their own
// program once. Where there is a small size class, n is one element above it, so that the next call,
// in the class, has the most tiles it can have against the fewest the first call had.
std::string run_smaller_sizes(const cl::Context& context, const cl::Device& device, call_kind kind) {
  const cl::CommandQueue queue(context, device);
  const clscan::dispatch_plan plan = clscan::plan_for(device);
  const std::size_t small_elements =
      (kind == call_kind::inclusive_by_key ? plan.by_key_small_input_bytes : plan.small_input_bytes) /
      sizeof(cl_int);
  // Above the small inputs, a call whose large tiles would be fewer than the fixed tree's range
  // starts with takes the small shape where its tiles then reach the range: the largest such n follows
  // the first call where the device has that window (GPUs with more compute units than a few).
  std::size_t tree_window = 0;
  if (plan.fixed_order_last_tiles && small_elements) {
    const std::size_t large_tile = plan.single_pass.work_group_size * plan.single_pass.items_per_thread;
    const std::size_t small_tile =
        plan.single_pass_small.work_group_size * plan.single_pass_small.items_per_thread;
    const std::size_t n = (plan.fixed_order_first_tiles - 1) * large_tile;
    if (n > small_elements && (n + small_tile - 1) / small_tile >= plan.fixed_order_first_tiles)
      tree_window = n;
  }
  const std::size_t largest = std::max(small_elements ? small_elements + 1 : 3'000'001, tree_window + 1);
  std::vector<std::size_t> sizes = {largest, largest - 1};
  if (tree_window) sizes.push_back(tree_window);
  sizes.insert(sizes.end(), {small_elements / 2 + 1, 1000});
  std::vector<cl_int> data(largest), keys(largest);
  std::mt19937 random(7);
  for (std::size_t i = 0; i < largest; ++i) {
    data[i] = static_cast<cl_int>(random());
    keys[i] = static_cast<cl_int>(i / 700);
  }
  const primitive_buffers buffers(queue, data, keys);
  const cl::Buffer &in = buffers.in, &key_buffer = buffers.keys, &out = buffers.out, &count = buffers.count;
  clscan::select_options<cl_int> select;
  select.predicate = "x > 0";
  std::string problems;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::size_t n = sizes[i];
    if (n == 0) continue;
    const int before = temporary_allocations.load();
    switch (kind) {
    case call_kind::scan: clscan::inclusive<cl_int>(queue, in, out, n).wait(); break;
    case call_kind::select_if: clscan::select_if<cl_int>(queue, in, out, count, n, select).wait(); break;
    case call_kind::inclusive_by_key:
      clscan::inclusive_by_key<cl_int, cl_int>(queue, key_buffer, in, out, n).wait();
      break;
    }
    const int allocated = temporary_allocations.load() - before;
    if (i > 0 && allocated)
      problems += std::to_string(allocated) + " temporary allocations at n = " + std::to_string(n) + "; ";
    if (i == 0 && !allocated) problems += "the first call logged no temporary allocation (is it logged?); ";
    const std::vector<cl_int> first(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<cl_int> expected;
    if (kind == call_kind::scan) {
      expected.resize(n);
      std::inclusive_scan(first.begin(), first.end(), expected.begin(), wrapping_sum);
    } else if (kind == call_kind::select_if) {
      std::copy_if(first.begin(), first.end(), std::back_inserter(expected), [](cl_int x) { return x > 0; });
    } else {
      const std::vector<cl_int> first_keys(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
      expected =
          clscan_reference::scan_by_key(first_keys, first, clscan::scan_kind::inclusive, clscan::op::sum);
    }
    std::vector<cl_int> got(expected.size());
    if (!got.empty()) queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(cl_int), got.data());
    cl_ulong selected = expected.size();
    if (kind == call_kind::select_if) queue.enqueueReadBuffer(count, CL_TRUE, 0, sizeof selected, &selected);
    if (got != expected || selected != expected.size())
      problems += "wrong result at n = " + std::to_string(n) + "; ";
  }
  return problems;
}

// n pairs of elements from a generator seeded with `seed`: make(random, i, first[i], second[i]).
template <typename A, typename B, typename Make>
void fill_random(std::size_t n, unsigned seed, std::vector<A>& first, std::vector<B>& second, Make make) {
  std::mt19937 random(seed);
  first.resize(n);
  second.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    make(random, i, first[i], second[i]);
}

// select_if and inclusive_by_key, each repeated as the scans are: no allocation and no log event
// after the first call, and the right result.
std::string run_primitive(const cl::Context& context, const cl::Device& device, bool by_key,
                          clscan::algorithm algo) {
  const cl::CommandQueue queue(context, device);
  const std::size_t n = 200'000;
  std::vector<cl_int> data, keys;
  fill_random(n, 11, data, keys, [](std::mt19937& random, std::size_t i, cl_int& x, cl_int& key) {
    x = static_cast<cl_int>(random() % 1000) - 400;
    key = static_cast<cl_int>(i / (1 + random() % 50));
  });
  const primitive_buffers buffers(queue, data, keys);
  const cl::Buffer &in = buffers.in, &key_buffer = buffers.keys, &out = buffers.out, &count = buffers.count;
  clscan::select_options<cl_int> select;
  select.predicate = "x > 0";
  select.algorithm = algo;
  clscan::options<cl_int> scan;
  scan.algorithm = algo;
  const auto call = [&] {
    return by_key ? clscan::inclusive_by_key<cl_int, cl_int>(queue, key_buffer, in, out, n, scan)
                  : clscan::select_if<cl_int>(queue, in, out, count, n, select);
  };
  const repeat_cost cost = repeat_calls(call);

  std::vector<cl_int> expected;
  if (by_key)
    expected = clscan_reference::scan_by_key(keys, data, clscan::scan_kind::inclusive, clscan::op::sum);
  else
    std::copy_if(data.begin(), data.end(), std::back_inserter(expected), [](cl_int x) { return x > 0; });
  std::vector<cl_int> got(expected.size());
  queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(cl_int), got.data());
  cl_ulong selected = expected.size();
  if (!by_key) queue.enqueueReadBuffer(count, CL_TRUE, 0, sizeof selected, &selected);
  return problems_of(cost, got == expected && selected == expected.size());
}

// inclusive_segmented and reduce_segmented over CSR offsets (empty segments too), repeated as the scans
// are: the head flags are set and cleared by each call on the storage of the first, nothing allocated.
std::string run_segmented(const cl::Context& context, const cl::Device& device, bool reduce,
                          clscan::algorithm algo) {
  const cl::CommandQueue queue(context, device);
  const std::size_t n = 200'000;
  std::mt19937 random(13);
  std::vector<cl_int> data(n);
  for (cl_int& x : data)
    x = static_cast<cl_int>(random() % 1000) - 400;
  std::vector<cl_uint> offsets = {0};
  while (offsets.back() < n)
    offsets.push_back(std::min<cl_uint>(static_cast<cl_uint>(n), offsets.back() + random() % 60));
  const std::size_t segments = offsets.size() - 1;
  const cl::Buffer in = primitive_buffers::upload(queue, data);
  const cl::Buffer out = primitive_buffers::buffer(queue, n * sizeof(cl_int));
  const cl::Buffer offsets_buffer = primitive_buffers::buffer(queue, offsets.size() * sizeof(cl_uint));
  queue.enqueueWriteBuffer(offsets_buffer, CL_TRUE, 0, offsets.size() * sizeof(cl_uint), offsets.data());
  clscan::segmented_options<cl_int> opts;
  opts.algorithm = algo;
  const auto call = [&] {
    return reduce ? clscan::reduce_segmented<cl_int>(queue, in, out, n, offsets_buffer, segments, opts)
                  : clscan::inclusive_segmented<cl_int>(queue, in, out, n, offsets_buffer, segments, opts);
  };
  const repeat_cost cost = repeat_calls(call);

  std::vector<cl_int> expected(reduce ? segments : n);
  for (std::size_t s = 0; s < segments; ++s) {
    cl_int running = 0;
    for (std::size_t i = offsets[s]; i < offsets[s + 1]; ++i) {
      running = wrapping_sum(running, data[i]);
      if (!reduce) expected[i] = running;
    }
    if (reduce) expected[s] = running;
  }
  std::vector<cl_int> got(expected.size());
  queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(cl_int), got.data());
  return problems_of(cost, got == expected);
}

// Calls whose expressions read named parameters (options::parameters), each repeat with new values:
// select_if with "x > threshold", inclusive_by_key with a custom operator and key_equal of parameters,
// and an inclusive scan of a transform of a parameter, of the input's type or (widened) of ints into
// longs (options::transform_input) by the three-stage scan, whose levels take a second program. New
// values are kernel arguments, so the repeats allocate and build nothing; the result is that of the last
// values.
enum class parameter_call { select_if, inclusive_by_key, transform, widened };

std::string run_parameters(const cl::Context& context, const cl::Device& device, parameter_call kind) {
  const cl::CommandQueue queue(context, device);
  const std::size_t n = 200'000;
  std::vector<cl_int> data, keys;
  fill_random(n, 19, data, keys, [](std::mt19937& random, std::size_t i, cl_int& x, cl_int& key) {
    x = static_cast<cl_int>(random() % 1000);
    key = static_cast<cl_int>(i / 3);
  });
  const primitive_buffers buffers(queue, data, keys);
  const cl::Buffer &in = buffers.in, &key_buffer = buffers.keys, &out = buffers.out, &count = buffers.count;
  clscan::select_options<cl_int> select;
  select.predicate = "x > threshold";
  select.parameters = {{"threshold", cl_int{0}}};
  clscan::options<cl_int> scan;
  scan.operation = clscan::op::custom;
  scan.custom_op = "(a + b) % m";
  scan.key_equal = "a / width == b / width";
  scan.parameters = {{"m", cl_int{1000}}, {"width", cl_int{1}}};
  clscan::options<cl_int> mapped;
  mapped.transform = "x % m";
  mapped.parameters = {{"m", cl_int{1000}}};
  clscan::options<cl_long> widened;
  widened.algorithm = clscan::algorithm::three_stage;
  widened.transform = "x % m";
  widened.transform_input = clscan::element_type::int32;
  widened.parameters = mapped.parameters;
  const cl::Buffer wide(context, CL_MEM_READ_WRITE, n * sizeof(cl_long));
  int repeat = 0;
  const auto new_values = [&] {
    ++repeat;
    select.parameters[0].value = cl_int{repeat * 10};
    scan.parameters[0].value = cl_int{1000 + repeat};
    scan.parameters[1].value = cl_int{1 + repeat % 7};
    mapped.parameters[0].value = cl_int{1 + repeat};
    widened.parameters[0].value = cl_int{1 + repeat};
  };
  const auto call = [&] {
    switch (kind) {
    case parameter_call::select_if: return clscan::select_if<cl_int>(queue, in, out, count, n, select);
    case parameter_call::inclusive_by_key:
      return clscan::inclusive_by_key<cl_int, cl_int>(queue, key_buffer, in, out, n, scan);
    case parameter_call::transform: break;
    case parameter_call::widened: return clscan::inclusive<cl_long>(queue, in, wide, n, widened);
    }
    return clscan::inclusive<cl_int>(queue, in, out, n, mapped);
  };
  const repeat_cost cost = repeat_calls(call, new_values);

  std::vector<cl_int> expected;
  if (kind == parameter_call::inclusive_by_key) {
    const cl_int m = std::get<cl_int>(scan.parameters[0].value);
    const cl_int width = std::get<cl_int>(scan.parameters[1].value);
    cl_int running = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const bool head = i == 0 || keys[i - 1] / width != keys[i] / width;
      running = head ? data[i] % m : (running + data[i]) % m;
      expected.push_back(running);
    }
  } else if (kind == parameter_call::widened) {
    const cl_int m = std::get<cl_int>(widened.parameters[0].value);
    cl_long running = 0;
    std::vector<cl_long> sums;
    for (std::size_t i = 0; i < n; ++i)
      sums.push_back(running += data[i] % m);
    std::vector<cl_long> got(n);
    queue.enqueueReadBuffer(wide, CL_TRUE, 0, n * sizeof(cl_long), got.data());
    return problems_of(cost, got == sums);
  } else if (kind == parameter_call::transform) {
    const cl_int m = std::get<cl_int>(mapped.parameters[0].value);
    cl_int running = 0;
    for (std::size_t i = 0; i < n; ++i)
      expected.push_back(running = wrapping_sum(running, data[i] % m));
  } else {
    const cl_int threshold = std::get<cl_int>(select.parameters[0].value);
    std::copy_if(data.begin(), data.end(), std::back_inserter(expected),
                 [&](cl_int x) { return x > threshold; });
  }
  std::vector<cl_int> got(expected.size());
  if (!got.empty()) queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(cl_int), got.data());
  cl_ulong selected = expected.size();
  if (kind == parameter_call::select_if)
    queue.enqueueReadBuffer(count, CL_TRUE, 0, sizeof selected, &selected);
  return problems_of(cost, got == expected && selected == expected.size());
}

// clscan::sort_by_key repeated as the scans are, in place (a temporary copy first: three passes) and
// out of place: no allocation and no log event after the first call, and the stable sorted result.
std::string run_sort(const cl::Context& context, const cl::Device& device, bool in_place) {
  const cl::CommandQueue queue(context, device);
  const std::size_t n = 200'000;
  std::vector<cl_uint> keys, values;
  fill_random(n, 17, keys, values, [](std::mt19937& random, std::size_t i, cl_uint& key, cl_uint& value) {
    key = static_cast<cl_uint>(random());
    value = static_cast<cl_uint>(i);
  });
  cl::Buffer k(context, CL_MEM_READ_WRITE, n * sizeof(cl_uint)),
      v(context, CL_MEM_READ_WRITE, n * sizeof(cl_uint));
  cl::Buffer ko(context, CL_MEM_READ_WRITE, n * sizeof(cl_uint)),
      vo(context, CL_MEM_READ_WRITE, n * sizeof(cl_uint));
  clscan::sort_options<cl_uint> options;
  options.end_bit = 24;
  const auto call = [&] {
    return in_place ? clscan::sort_by_key<cl_uint, cl_uint>(queue, k, v, k, v, n, options)
                    : clscan::sort_by_key<cl_uint, cl_uint>(queue, k, v, ko, vo, n, options);
  };
  const auto reset = [&] {
    queue.enqueueWriteBuffer(k, CL_TRUE, 0, n * sizeof(cl_uint), keys.data());
    queue.enqueueWriteBuffer(v, CL_TRUE, 0, n * sizeof(cl_uint), values.data());
  };
  reset();
  const repeat_cost cost = repeat_calls(call, reset);

  std::vector<cl_uint> order(n);
  std::iota(order.begin(), order.end(), cl_uint{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](cl_uint a, cl_uint b) { return (keys[a] & 0xFFFFFF) < (keys[b] & 0xFFFFFF); });
  std::vector<cl_uint> got_keys(n), got_values(n);
  queue.enqueueReadBuffer(in_place ? k : ko, CL_TRUE, 0, n * sizeof(cl_uint), got_keys.data());
  queue.enqueueReadBuffer(in_place ? v : vo, CL_TRUE, 0, n * sizeof(cl_uint), got_values.data());
  bool right = true;
  for (std::size_t i = 0; i < n; ++i)
    right = right && got_values[i] == order[i] && got_keys[i] == keys[order[i]];
  return problems_of(cost, right);
}

// clscan::reduce repeated as the scans are, at a size of several work-group ranges (two launches and
// a temporary) and one that one work-group reads, with an initial value on the device: no allocation
// and no log event after the first call, and the right total.
std::string run_reduce(const cl::Context& context, const cl::Device& device, std::size_t n) {
  const cl::CommandQueue queue(context, device);
  std::vector<cl_int> data(n);
  std::mt19937 random(13);
  for (cl_int& x : data)
    x = static_cast<cl_int>(random());
  const cl_int initial = 77;
  cl::Buffer in(context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
  cl::Buffer totals(context, CL_MEM_READ_WRITE, 2 * sizeof(cl_int));
  queue.enqueueWriteBuffer(in, CL_TRUE, 0, n * sizeof(cl_int), data.data());
  queue.enqueueWriteBuffer(totals, CL_TRUE, 0, sizeof initial, &initial);
  clscan::options<cl_int> options;
  options.out_offset = 1;
  options.initial_on_device = clscan::device_value{totals, 0};
  const auto call = [&] { return clscan::reduce<cl_int>(queue, in, totals, n, options); };
  const repeat_cost cost = repeat_calls(call);
  cl_int got = 0;
  queue.enqueueReadBuffer(totals, CL_TRUE, sizeof(cl_int), sizeof got, &got);
  return problems_of(cost, got == std::accumulate(data.begin(), data.end(), initial, wrapping_sum));
}

// run_smaller_sizes for a scan, a select_if and an inclusive_by_key, each in a fresh context (so that
// its first call is the largest); prints a line each and returns how many failed.
int check_size_classes(const cl::Device& device) {
  int failed = 0;
  for (const auto& [kind, name] :
       {std::pair{call_kind::scan, "scan"}, std::pair{call_kind::select_if, "select_if"},
        std::pair{call_kind::inclusive_by_key, "inclusive_by_key"}}) {
    const std::string problems = run_smaller_sizes(cl::Context(device), device, kind);
    std::printf("%-45s %s\n", (std::string(name) + ", smaller n after larger: no new temporaries").c_str(),
                problems.empty() ? "ok" : problems.c_str());
    failed += !problems.empty();
  }
  return failed;
}

// Runs the size-class checks only, with the large inputs' single-pass shape for cl_int set to tiles
// twice the small inputs' in the device's tuning file (removed again): under CLSCAN_DEVICE_LIMITS=gpu,
// a CPU device's two size classes otherwise have tiles of the same size, as only NVIDIA's differ.
int run_size_classes_with_larger_tiles(const cl::Device& device) {
  const clscan::dispatch_plan plan = clscan::plan_for(device);
  if (!plan.small_input_bytes) {
    std::printf("skipped: the device has one size class (run under CLSCAN_DEVICE_LIMITS=gpu)\n");
    return 0;
  }
  clscan::tuning larger = plan.single_pass_small;
  larger.items_per_thread *= 2;
  clscan::store_tuning(device, clscan::algorithm::single_pass, clscan::element_type::int32, larger);
  const int failed = check_size_classes(device);
  std::remove(clscan::tuning_file(device).c_str());
  return failed ? 1 : 0;
}

} // namespace

int main(int argc, char** argv) {
  clscan::set_log_handler([](clscan::log_level, const std::string& message) {
    ++log_events;
    if (message.rfind("temporary storage", 0) == 0) ++temporary_allocations;
  });
  try {
    const cl::Device device = clscan::select_device();
    if (argc == 2 && std::string(argv[1]) == "--size-classes-with-larger-tiles")
      return run_size_classes_with_larger_tiles(device);
    if (argc != 1) {
      std::printf("usage: clscan-hot-path [--size-classes-with-larger-tiles]\n");
      return 2;
    }
    cl::Context context(device);
    std::printf("device: %s\n", device.getInfo<CL_DEVICE_NAME>().c_str());

    clscan::options<cl_int> single, three, seeded, custom;
    single.algorithm = clscan::algorithm::single_pass;
    three.algorithm = clscan::algorithm::three_stage;
    seeded.initial = 1000;
    custom.operation = clscan::op::custom;
    custom.custom_op = "((a) + (b)) + 0 + 0 + 0 + 0 + 0 + 0"; // longer than a short string
    custom.custom_identity = 0;
    const std::vector<scan_case> cases = {
        {"automatic, small", 1000, 0, false, false, {}},
        {"automatic, large", 3'000'000, 0, false, false, {}},
        {"single_pass", 200'000, 0, false, false, single},
        {"single_pass, exclusive, in place, offset", 200'000, 3, true, true, single},
        {"three_stage", 200'000, 0, false, false, three},
        {"three_stage, exclusive, offset", 200'000, 5, true, false, three},
        {"initial value", 50'000, 0, false, false, seeded},
        {"custom operator", 50'000, 0, false, false, custom},
        {"out-of-order queue", 200'000, 0, false, false, {}, true},
        {"out-of-order queue, three_stage, wait list", 200'000, 0, false, false, three, true, true},
        {"wait list", 200'000, 0, false, false, {}, false, true},
    };
    int failed = 0;
    const bool out_of_order_queues =
        (device.getInfo<CL_DEVICE_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    for (const auto& c : cases) {
      if (c.out_of_order_queue && !out_of_order_queues) {
        std::printf("%-45s not run: the device has no out-of-order queues\n", c.name.c_str());
        continue;
      }
      const std::string problems = run_case(context, device, c);
      std::printf("%-45s %s\n", c.name.c_str(), problems.empty() ? "ok" : problems.c_str());
      failed += !problems.empty();
    }
    for (const bool by_key : {false, true})
      for (const clscan::algorithm algo : {clscan::algorithm::automatic, clscan::algorithm::three_stage}) {
        const std::string name =
            std::string(by_key ? "inclusive_by_key, " : "select_if, ") + clscan::to_string(algo);
        const std::string problems = run_primitive(context, device, by_key, algo);
        std::printf("%-45s %s\n", name.c_str(), problems.empty() ? "ok" : problems.c_str());
        failed += !problems.empty();
      }
    for (const bool reduce : {false, true})
      for (const clscan::algorithm algo : {clscan::algorithm::automatic, clscan::algorithm::three_stage}) {
        const std::string name =
            std::string(reduce ? "reduce_segmented, " : "inclusive_segmented, ") + clscan::to_string(algo);
        const std::string problems = run_segmented(context, device, reduce, algo);
        std::printf("%-45s %s\n", name.c_str(), problems.empty() ? "ok" : problems.c_str());
        failed += !problems.empty();
      }
    for (const auto& [kind, name] :
         {std::pair{parameter_call::select_if, "select_if, parameters changed each call"},
          std::pair{parameter_call::inclusive_by_key, "inclusive_by_key, parameters changed"},
          std::pair{parameter_call::transform, "inclusive, transform's parameter changed"},
          std::pair{parameter_call::widened, "inclusive, longs of ints (transform_input)"}}) {
      const std::string problems = run_parameters(context, device, kind);
      std::printf("%-45s %s\n", name, problems.empty() ? "ok" : problems.c_str());
      failed += !problems.empty();
    }
    for (const std::size_t n : {std::size_t{3'000'000}, std::size_t{1000}}) {
      const std::string name = "reduce, initial on the device, n = " + std::to_string(n);
      const std::string problems = run_reduce(context, device, n);
      std::printf("%-45s %s\n", name.c_str(), problems.empty() ? "ok" : problems.c_str());
      failed += !problems.empty();
    }
    for (const bool in_place : {false, true}) {
      const std::string name = std::string("sort_by_key, ") + (in_place ? "in place" : "out of place");
      const std::string problems = run_sort(context, device, in_place);
      std::printf("%-45s %s\n", name.c_str(), problems.empty() ? "ok" : problems.c_str());
      failed += !problems.empty();
    }
    failed += check_size_classes(device);
    return failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 2;
  }
}
