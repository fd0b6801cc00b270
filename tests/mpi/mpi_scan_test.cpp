// clscan::mpi on however many ranks mpirun starts (tests/cmake/mpi.cmake runs it on 1 to 4), all on
// clscan::select_device(), or with --device-per-rank each rank of a machine on a device of its own.
//
// Every rank generates every rank's slice from the case's seed, so it knows the whole array and checks
// its own slice of the result exactly against a sequential scan of the concatenation (floating-point
// sums within a rounding bound). Each slice lies between poisoned elements, which must come back
// unchanged. The error cases make one rank's call fail and check that every rank throws and that no
// buffer changed. The exit status is 0 when every rank passed; rank 0 prints the summary.
//
// Kept to few kernel variants (the first run on PoCL compiles each of them): one size class of every
// element type for the sums, the other operators on a type each, and offsets that keep the data aligned.
#include <clscan/clscan.hpp>
#include <clscan/mpi.hpp>

#include <common/rank_device.hpp>
#include <common/reference.hpp>

#include "rank_records.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

using clscan::op;
using clscan::scan_kind;
using clscan_reference::splitmix64;

int world_rank = 0;
int world_size = 1;
int failures = 0;
int cases = 0;

void fail(const std::string& what) {
  ++failures;
  // One write per line, so that the ranks' lines do not interleave.
  const std::string line = "mpi: rank " + std::to_string(world_rank) + " of " + std::to_string(world_size) +
                           ": FAIL: " + what + "\n";
  std::fputs(line.c_str(), stderr);
}

// Poison around each slice: elements the scan must not write.
constexpr std::size_t guard = 32;

template <typename T> T poison() {
  T value;
  std::memset(&value, 0x5b, sizeof value);
  return value;
}

// The OpenCL C++ bindings are configured without exceptions (as clscan configures them).
void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw clscan::opencl_error(status, call);
}

template <typename T> bool same_bytes(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct device_env {
  cl::Context context;
  cl::CommandQueue queue;
  std::size_t tile = 0; // elements of one tile of the larger-size algorithm
  bool fp64 = false;
};

// One case: the operator (with its host reference), the kind, the initial value, each rank's count.
template <typename T> struct scan_case {
  std::string name;
  scan_kind kind = scan_kind::inclusive;
  clscan::options<T> opts;
  std::function<T(T, T)> combine;
  T identity{};
  std::vector<std::size_t> counts; // per rank
  std::uint64_t seed = 0;
  bool initial_on_device = false;   // rank 0 passes opts.initial as initial_on_device instead
  bool separate_output = false;     // out_offset past the input range instead of in place
  T (*host_transform)(T) = nullptr; // what opts.transform does to an element, for the reference
};

template <typename T> T random_value(splitmix64& rng, const scan_case<T>& c) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(rng.unit() * 2.0 - 1.0);
  } else {
    if (c.opts.operation == op::custom) {
      // Affine maps with odd multipliers: none collapses the composition to a constant.
      using affine = clscan_reference::affine<T>;
      const T m = static_cast<T>((rng.next() | 1) & affine::low),
              a = static_cast<T>(rng.next() & affine::low);
      return static_cast<T>((m << affine::half) | a);
    }
    return static_cast<T>(rng.next());
  }
}

// Slice r of the case's array: the same on every rank.
template <typename T> std::vector<T> slice_of(const scan_case<T>& c, int rank) {
  splitmix64 rng{c.seed * 1000003u + static_cast<std::uint64_t>(rank)};
  std::vector<T> slice(c.counts[std::size_t(rank)]);
  for (T& x : slice)
    x = random_value(rng, c);
  return slice;
}

std::string where(const std::string& name, std::size_t i) {
  return name + ": element " + std::to_string(i) + " of rank " + std::to_string(world_rank);
}

// Compares this rank's slice of the result with the sequential scan of the concatenation.
template <typename T>
void check_slice(const scan_case<T>& c, const std::vector<T>& got, std::size_t first,
                 const std::vector<T>& whole, std::size_t begin) {
  const std::size_t n = c.counts[std::size_t(world_rank)];
  if constexpr (std::is_floating_point_v<T>) {
    if (c.opts.operation == op::sum) {
      long double sum = c.opts.initial ? *c.opts.initial : 0, magnitude = std::fabs(sum);
      const long double tolerance = std::is_same_v<T, float> ? 1e-5L : 1e-13L;
      for (std::size_t i = 0; i < begin + n; ++i) {
        if (c.kind == scan_kind::inclusive) sum += whole[i], magnitude += std::fabs((long double)whole[i]);
        if (i >= begin) {
          const long double value = got[first + i - begin];
          if (!(std::fabs(value - sum) <= tolerance * magnitude + 1e-30L))
            return fail(where(c.name, i - begin) + ": got " + std::to_string((double)value) + ", expected " +
                        std::to_string((double)sum));
        }
        if (c.kind == scan_kind::exclusive) sum += whole[i], magnitude += std::fabs((long double)whole[i]);
      }
      return;
    }
  }
  const T start = c.opts.initial ? *c.opts.initial : c.identity;
  const std::vector<T> expected = clscan_reference::scan(whole, c.kind, start, c.combine);
  for (std::size_t i = 0; i < n; ++i)
    if (!clscan_reference::same_value(got[first + i], expected[begin + i])) {
      std::ostringstream text;
      text << where(c.name, i) << ": got " << +got[first + i] << ", expected " << +expected[begin + i];
      return fail(text.str());
    }
}

// Fills a guarded buffer: poison, then the slice at in_offset; the output range (when separate) poison.
template <typename T> struct guarded_slice {
  std::vector<T> image;
  std::size_t in_offset = guard, out_offset = guard;
};

template <typename T> guarded_slice<T> layout(const scan_case<T>& c, const std::vector<T>& mine) {
  guarded_slice<T> g;
  const std::size_t n = mine.size();
  if (c.separate_output) g.out_offset = guard + (n + guard - 1) / guard * guard + guard;
  g.image.assign(std::max(g.in_offset, g.out_offset) + n + guard, poison<T>());
  std::copy(mine.begin(), mine.end(), g.image.begin() + std::ptrdiff_t(g.in_offset));
  return g;
}

template <typename T> void run_case(const device_env& dev, scan_case<T> c) {
  ++cases;
  const std::size_t n = c.counts[std::size_t(world_rank)];
  std::vector<T> whole;
  std::size_t begin = 0;
  for (int r = 0; r < world_size; ++r) {
    if (r == world_rank) begin = whole.size();
    const std::vector<T> s = slice_of(c, r);
    whole.insert(whole.end(), s.begin(), s.end());
  }
  const std::vector<T> mine(whole.begin() + std::ptrdiff_t(begin), whole.begin() + std::ptrdiff_t(begin + n));
  if (c.host_transform) std::transform(whole.begin(), whole.end(), whole.begin(), c.host_transform);
  guarded_slice<T> g = layout(c, mine);
  cl::Buffer buffer(dev.context, CL_MEM_READ_WRITE, g.image.size() * sizeof(T));
  check(dev.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, g.image.size() * sizeof(T), g.image.data()),
        "clEnqueueWriteBuffer");

  clscan::options<T> opts = c.opts;
  opts.in_offset = g.in_offset;
  opts.out_offset = g.out_offset;
  cl::Buffer initial_buffer;
  if (c.initial_on_device && c.opts.initial) {
    // Rank 0's initial value on the device, behind one poisoned element; the others pass none.
    opts.initial.reset();
    if (world_rank == 0) {
      const T values[2] = {poison<T>(), *c.opts.initial};
      initial_buffer = cl::Buffer(dev.context, CL_MEM_READ_WRITE, sizeof values);
      check(dev.queue.enqueueWriteBuffer(initial_buffer, CL_TRUE, 0, sizeof values, values),
            "clEnqueueWriteBuffer");
      opts.initial_on_device = clscan::device_value{initial_buffer, 1};
    }
  } else if (world_rank != 0 && opts.initial) {
    // Only rank 0's initial value counts: another on the other ranks must change nothing.
    opts.initial = c.combine(*opts.initial, *opts.initial);
  }

  try {
    cl::Event done = c.kind == scan_kind::inclusive
                         ? clscan::mpi::inclusive<T>(MPI_COMM_WORLD, dev.queue, buffer, n, opts)
                         : clscan::mpi::exclusive<T>(MPI_COMM_WORLD, dev.queue, buffer, n, opts);
    done.wait();
  } catch (const std::exception& e) {
    return fail(c.name + ": threw " + e.what());
  }
  std::vector<T> got(g.image.size());
  check(dev.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, got.size() * sizeof(T), got.data()),
        "clEnqueueReadBuffer");

  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool output = i >= g.out_offset && i < g.out_offset + n;
    const bool input = i >= g.in_offset && i < g.in_offset + n;
    if (!output && !same_bytes(got[i], g.image[i]))
      return fail(c.name + ": element " + std::to_string(i) + " of rank " + std::to_string(world_rank) +
                  "'s buffer, outside the output range, was written");
    (void)input;
  }
  check_slice(c, got, g.out_offset, whole, begin);
}

// Each rank's count for case `index`: 0, 1, tile - 1, tile, tile + 1 and random ones, a different mix on
// every rank and in every case.
std::vector<std::size_t> counts_for(std::size_t index, std::size_t tile) {
  std::vector<std::size_t> counts(static_cast<std::size_t>(world_size));
  splitmix64 rng{0x6d7069ull + index};
  for (int r = 0; r < world_size; ++r) {
    switch ((index + 2 * std::size_t(r)) % 6) {
    case 0: counts[std::size_t(r)] = 0; break;
    case 1: counts[std::size_t(r)] = 1; break;
    case 2: counts[std::size_t(r)] = tile - 1; break;
    case 3: counts[std::size_t(r)] = tile; break;
    case 4: counts[std::size_t(r)] = tile + 1; break;
    default: counts[std::size_t(r)] = std::size_t(rng.next() % (2 * tile)) + 2; break;
    }
  }
  return counts;
}

template <typename T>
scan_case<T> builtin_case(std::string name, op operation, scan_kind kind, std::size_t index, std::size_t tile,
                          std::optional<T> initial) {
  scan_case<T> c;
  c.name = std::move(name) + (kind == scan_kind::inclusive ? " inclusive" : " exclusive") +
           (initial ? " with initial" : "");
  c.kind = kind;
  c.opts.operation = operation;
  c.opts.initial = initial;
  c.combine = [operation](T a, T b) { return clscan_reference::combine(operation, a, b); };
  c.identity = clscan_reference::identity<T>(operation);
  c.counts = counts_for(index, tile);
  c.seed = index;
  return c;
}

template <typename T> scan_case<T> affine_case(scan_kind kind, std::size_t index, std::size_t tile) {
  using affine = clscan_reference::affine<T>;
  scan_case<T> c;
  c.name = std::string("affine ") + clscan::opencl_name(clscan::element_traits<T>::type) +
           (kind == scan_kind::inclusive ? " inclusive" : " exclusive") + " with initial";
  c.kind = kind;
  c.opts.operation = op::custom;
  c.opts.custom_op = affine::expression();
  c.opts.custom_identity = static_cast<T>(T{1} << affine::half);
  c.opts.initial = static_cast<T>((T{3} << affine::half) | T{5});
  c.combine = affine::compose;
  c.identity = c.opts.custom_identity;
  c.counts = counts_for(index, tile);
  c.seed = index;
  return c;
}

// Reads the whole buffer back and compares it with what was written.
template <typename T>
bool unchanged(const device_env& dev, const cl::Buffer& buffer, const std::vector<T>& image) {
  std::vector<T> now(image.size());
  check(dev.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, now.size() * sizeof(T), now.data()),
        "clEnqueueReadBuffer");
  return std::memcmp(now.data(), image.data(), now.size() * sizeof(T)) == 0;
}

// One rank passes a count its buffer cannot hold: that rank throws invalid_argument, every other rank
// rank_error naming it, and no buffer changes. The same with an operator that does not compile on that
// rank (build_error). Then a mismatched call (rank 1 exclusive, the others inclusive): invalid_argument
// everywhere. Then a good call, which shows the ranks are still in step.
void error_cases(const device_env& dev) {
  using T = cl_int;
  const int bad = world_size - 1;
  std::vector<T> image(guard + 100 + guard, poison<T>());
  for (std::size_t i = 0; i < 100; ++i)
    image[guard + i] = T(i);
  cl::Buffer buffer(dev.context, CL_MEM_READ_WRITE, image.size() * sizeof(T));
  check(dev.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, image.size() * sizeof(T), image.data()),
        "clEnqueueWriteBuffer");
  clscan::options<T> opts;
  opts.in_offset = opts.out_offset = guard;

  ++cases;
  const std::size_t n = world_rank == bad ? image.size() : 100;
  try {
    clscan::mpi::inclusive<T>(MPI_COMM_WORLD, dev.queue, buffer, n, opts).wait();
    fail("a count past the buffer on rank " + std::to_string(bad) + ": no exception");
  } catch (const clscan::mpi::rank_error& e) {
    if (world_rank == bad) fail(std::string("the failing rank threw rank_error: ") + e.what());
    if (e.failed_rank() != bad) fail("rank_error names rank " + std::to_string(e.failed_rank()));
    if (std::string(e.what()).find("fewer than") == std::string::npos)
      fail(std::string("rank_error does not carry the failing rank's message: ") + e.what());
  } catch (const clscan::invalid_argument& e) {
    if (world_rank != bad) fail(std::string("a rank that did not fail threw invalid_argument: ") + e.what());
  } catch (const std::exception& e) {
    fail(std::string("a count past the buffer: unexpected exception ") + e.what());
  }
  if (!unchanged(dev, buffer, image)) fail("a failed call changed the buffer");

  // The failing rank's operator does not compile: its local reduction throws build_error.
  ++cases;
  try {
    clscan::options<T> custom = opts;
    custom.operation = op::custom;
    custom.custom_op = world_rank == bad ? "a + no_such_name" : "a + b";
    clscan::mpi::inclusive<T>(MPI_COMM_WORLD, dev.queue, buffer, 100, custom).wait();
    fail("an operator that does not compile on rank " + std::to_string(bad) + ": no exception");
  } catch (const clscan::mpi::rank_error& e) {
    if (world_rank == bad || e.failed_rank() != bad)
      fail(std::string("an operator that does not compile: rank_error ") + e.what());
  } catch (const clscan::build_error& e) {
    if (world_rank != bad) fail(std::string("a rank that did not fail threw build_error: ") + e.what());
  } catch (const std::exception& e) {
    fail(std::string("an operator that does not compile: unexpected exception ") + e.what());
  }
  if (!unchanged(dev, buffer, image)) fail("a call whose operator did not compile changed the buffer");

  // Rank 0's wait list fails after its call: its total is not made, so it throws, and every other rank
  // throws rank_error naming it rather than scanning from a total it never had.
  if (world_size > 1) {
    ++cases;
    clscan::options<T> gated = opts;
    std::optional<cl::UserEvent> gate;
    std::thread failer;
    if (world_rank == 0) {
      gate.emplace(dev.context);
      gated.wait_list = {*gate};
      failer = std::thread([&gate] {
        // Late enough that the call waits for its total by then (failing the event while the call
        // still enqueues is a race with PoCL 3.1's own propagation of the failure).
        std::this_thread::sleep_for(std::chrono::seconds(1));
        gate->setStatus(-1);
      });
    }
    try {
      clscan::mpi::inclusive<T>(MPI_COMM_WORLD, dev.queue, buffer, 100, gated).wait();
      fail("a wait list that fails on rank 0: no exception");
    } catch (const clscan::mpi::rank_error& e) {
      if (world_rank == 0 || e.failed_rank() != 0)
        fail(std::string("a wait list that fails on rank 0: rank_error ") + e.what());
    } catch (const clscan::error& e) {
      // Rank 0: its own error (opencl_error; invalid_argument where the event failed before the call).
      if (world_rank != 0)
        fail(std::string("a rank whose wait list held did not throw rank_error: ") + e.what());
    } catch (const std::exception& e) {
      fail(std::string("a wait list that fails on rank 0: unexpected exception ") + e.what());
    }
    if (failer.joinable()) failer.join();
    if (!unchanged(dev, buffer, image)) fail("a call whose wait list failed changed the buffer");
  }

  if (world_size > 1) {
    ++cases;
    try {
      (world_rank == 1 ? clscan::mpi::exclusive<T>(MPI_COMM_WORLD, dev.queue, buffer, 100, opts)
                       : clscan::mpi::inclusive<T>(MPI_COMM_WORLD, dev.queue, buffer, 100, opts))
          .wait();
      fail("mismatched calls: no exception");
    } catch (const clscan::invalid_argument& e) {
      if (std::string(e.what()).find("rank 1 called exclusive") == std::string::npos)
        fail(std::string("mismatched calls: the message does not name rank 1's call: ") + e.what());
    } catch (const std::exception& e) {
      fail(std::string("mismatched calls: unexpected exception ") + e.what());
    }
    if (!unchanged(dev, buffer, image)) fail("a mismatched call changed the buffer");
  }

  ++cases;
  try {
    clscan::mpi::inclusive<T>(MPI_COMM_WORLD, dev.queue, buffer, 100, opts).wait();
    std::vector<T> got(image.size());
    check(dev.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, got.size() * sizeof(T), got.data()),
          "clEnqueueReadBuffer");
    // Every rank holds 0..99: rank r's element i is r * 4950 + i(i+1)/2.
    for (std::size_t i = 0; i < 100; ++i)
      if (got[guard + i] != T(world_rank * 4950 + int(i * (i + 1) / 2)))
        return fail("the call after the failures: element " + std::to_string(i) + " is wrong");
  } catch (const std::exception& e) {
    fail(std::string("the call after the failures threw ") + e.what());
  }
}

// The rank records and what ranks decide from them, with counts past 2^32 (too large for CI's memory):
// a count is never narrowed on the way, so a slice of 2^32 elements is not taken for an empty one.
void record_checks() {
  using namespace clscan::mpi::detail;
  ++cases;
  clscan::options<cl_long> opts;
  const clscan::detail::scan_request request = clscan::detail::make_request(scan_kind::inclusive, opts);
  const std::size_t big = std::size_t{1} << 32;
  if (describe_call(request, big + 5).n_local != big + 5) fail("records: a count past 2^32 was narrowed");
  if (!contributes_total(big, 3, request)) fail("records: a slice of 2^32 elements has no total");
  if (contributes_total(0, 0, request)) fail("records: rank 0 without elements or initial has a total");
  std::vector<rank_record> records(5);
  for (std::size_t r = 0; r < records.size(); ++r) {
    records[r] = describe_call(request, r == 1 ? 0 : big * r + 1);
    records[r].has_total = contributes_total(records[r].n_local, int(r), request);
  }
  if (ranks_before_with_totals(records, 4) != std::vector<int>{0, 2, 3})
    fail("records: the ranks before rank 4 with totals are not 0, 2, 3");
  if (!ranks_before_with_totals(records, 0).empty()) fail("records: rank 0 has ranks before it");
  if (first_failed_rank(records)) fail("records: a failure where there is none");
  records[3].failed = records[2].failed = 1;
  if (first_failed_rank(records) != 2) fail("records: the first failed rank is not 2");
  if (!call_mismatch(records).empty()) fail("records: a mismatch between equal calls");
  clscan::options<cl_long> custom;
  custom.operation = op::custom;
  custom.custom_op = "a + b";
  records[4] = describe_call(clscan::detail::make_request(scan_kind::inclusive, custom), 1);
  if (call_mismatch(records).find("rank 4 called inclusive of long with op::custom") == std::string::npos)
    fail("records: the mismatch of rank 4 is not named: " + call_mismatch(records));
}

std::size_t tile_of(const cl::Device& device) {
  const clscan::dispatch_plan plan = clscan::plan_for(device);
  const clscan::tuning& shape =
      plan.large == clscan::algorithm::single_pass ? plan.single_pass : plan.three_stage;
  return shape.work_group_size * shape.items_per_thread;
}

void run_all(const device_env& dev) {
  std::size_t index = 0;
  const auto both = [&](auto run) {
    run(scan_kind::inclusive, index++);
    run(scan_kind::exclusive, index++);
  };
  const std::size_t tile = dev.tile;
  both([&](scan_kind k, std::size_t i) {
    run_case(dev, builtin_case<cl_int>("int sum", op::sum, k, i, tile, -7));
  });
  both([&](scan_kind k, std::size_t i) {
    run_case(dev, builtin_case<cl_uint>("uint sum", op::sum, k, i, tile, std::nullopt));
  });
  both([&](scan_kind k, std::size_t i) {
    run_case(dev, builtin_case<cl_long>("long sum", op::sum, k, i, tile, std::nullopt));
  });
  both([&](scan_kind k, std::size_t i) {
    run_case(dev, builtin_case<cl_ulong>("ulong sum", op::sum, k, i, tile, 1ull << 40));
  });
  both([&](scan_kind k, std::size_t i) {
    run_case(dev, builtin_case<cl_float>("float sum", op::sum, k, i, tile, 0.5f));
  });
  if (dev.fp64) {
    both([&](scan_kind k, std::size_t i) {
      run_case(dev, builtin_case<cl_double>("double sum", op::sum, k, i, tile, std::nullopt));
    });
  } else {
    index += 2;
    if (world_rank == 0) std::cout << "mpi: no cl_double cases: the device has no fp64" << std::endl;
  }
  both([&](scan_kind k, std::size_t i) {
    run_case(dev, builtin_case<cl_int>("int min", op::min, k, i, tile, std::nullopt));
  });
  both([&](scan_kind k, std::size_t i) {
    run_case(dev, builtin_case<cl_float>("float max", op::max, k, i, tile, -0.25f));
  });
  both([&](scan_kind k, std::size_t i) { run_case(dev, affine_case<cl_ulong>(k, i, tile)); });
  // The initial value read on rank 0's device; and an output range beside the input.
  both([&](scan_kind k, std::size_t i) {
    scan_case<cl_int> c = builtin_case<cl_int>("int sum", op::sum, k, i, tile, 1000);
    c.name += " on the device";
    c.initial_on_device = true;
    run_case(dev, c);
  });
  // A transform: the ranks' totals before a rank are combined as they are, not transformed again.
  both([&](scan_kind k, std::size_t i) {
    scan_case<cl_uint> c = builtin_case<cl_uint>("uint sum", op::sum, k, i, tile, 3u);
    c.name += " of x * 2 + 1";
    c.opts.transform = "x * 2u + 1u";
    c.host_transform = [](cl_uint x) { return x * 2u + 1u; };
    run_case(dev, c);
  });
  both([&](scan_kind k, std::size_t i) {
    scan_case<cl_ulong> c = affine_case<cl_ulong>(k, i, tile);
    c.name += ", output beside the input";
    c.separate_output = true;
    run_case(dev, c);
  });
  // Every rank empty but the last, and all empty.
  for (const bool last_has_data : {true, false}) {
    scan_case<cl_int> c = builtin_case<cl_int>("int sum", op::sum, scan_kind::exclusive, index++, tile, 11);
    c.counts.assign(std::size_t(world_size), 0);
    if (last_has_data) c.counts.back() = tile + 1;
    c.name += last_has_data ? ", only the last rank holds elements" : ", no rank holds elements";
    run_case(dev, c);
  }
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);

  if (argc > 2 || (argc == 2 && std::string(argv[1]) != "--device-per-rank")) {
    if (world_rank == 0) std::fputs("usage: mpirun -np K clscan-mpi-test [--device-per-rank]\n", stderr);
    MPI_Finalize();
    return 2;
  }
  int status = 0;
  try {
    // --device-per-rank: each rank of a machine on a device of its own (two GPUs, two ranks).
    const bool device_per_rank = argc == 2;
    const cl::Device device =
        device_per_rank ? clscan_tools::device_for_rank(MPI_COMM_WORLD) : clscan::select_device();
    device_env dev;
    dev.context = cl::Context(device);
    dev.queue = cl::CommandQueue(dev.context, device);
    dev.tile = tile_of(device);
    dev.fp64 = clscan::capabilities(device).fp64;
    if (world_rank == 0) record_checks();
    run_all(dev);
    error_cases(dev);
    if (world_rank == 0 || device_per_rank)
      std::cout << "mpi: rank " << world_rank << " of " << world_size << " on "
                << device.getInfo<CL_DEVICE_NAME>() << ", tile " << dev.tile << std::endl;
  } catch (const std::exception& e) {
    // Every rank meets the same missing device; the test registration reports that as skipped.
    std::cerr << "mpi: rank " << world_rank << ": " << e.what() << std::endl;
    status = 2;
  }

  int total_failures = 0;
  MPI_Allreduce(&failures, &total_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int worst_status = 0;
  MPI_Allreduce(&status, &worst_status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (world_rank == 0 && worst_status == 0)
    std::cout << "mpi: " << cases << " cases on rank 0, " << total_failures << " failures on " << world_size
              << " ranks: " << (total_failures ? "FAILED" : "passed") << std::endl;
  MPI_Finalize();
  return worst_status ? worst_status : (total_failures ? 1 : 0);
}
