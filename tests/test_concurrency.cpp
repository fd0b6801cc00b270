// Concurrency ("[concurrency]"): scans from several host threads at once, every result read back and
// compared exactly with the CPU.
//
//   - eight threads, each with its own in-order queue on one shared context (300 scans each)
//   - four threads sharing one in-order queue and context, each waiting on the events it got back;
//     and four threads sharing one out-of-order queue, whose uploads and reads order themselves
//     only through events (wait_list and the returned event)
//   - four threads, each with its own context on the same device
//
// Each scan draws its element type (cl_int, cl_uint, cl_long), operator (sum, bit_xor, max), algorithm
// (automatic, single_pass, three_stage), inclusive or exclusive, an initial value or none, in place or
// out of place, offsets (aligned or not) and n in 1..2^16, and runs on poisoned guard elements. Worker
// threads never call Catch (its assertions are not thread-safe): they collect descriptions of what went
// wrong, and the main thread checks them. Meant to be run under ThreadSanitizer as well.
#include "test_support.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace clscan_test;
using clscan::algorithm;
using clscan::op;
using clscan::scan_kind;
using clscan_test::guarded::splitmix64;

namespace {

constexpr std::uint64_t base_seed = 0xC0C0'2025'0001ull;
constexpr std::size_t max_n = std::size_t{1} << 16;

// What went wrong in the worker threads, for the main thread to report.
class failure_log {
public:
  void add(std::string message) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
    if (messages_.size() < 20) messages_.push_back(std::move(message));
  }
  std::size_t count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
  }
  std::string text() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string all;
    for (const auto& m : messages_)
      all += m + "\n";
    return all;
  }

private:
  mutable std::mutex mutex_;
  std::size_t count_ = 0;
  std::vector<std::string> messages_;
};

enum type_id { t_int, t_uint, t_long };
const char* const type_names[] = {"int", "uint", "long"};

struct job {
  int type = t_int;
  op operation = op::sum;
  algorithm algo = algorithm::automatic;
  scan_kind kind = scan_kind::inclusive;
  bool in_place = false;
  bool upload_events = false; // non-blocking uploads whose events go into wait_list
  std::size_t n = 1, in_offset = 0, out_offset = 0, back = 3;
  bool has_initial = false;
  std::uint64_t data_seed = 0;
};

std::string describe(const job& j) {
  std::ostringstream out;
  out << type_names[j.type] << " " << guarded::name_of(j.operation) << " " << guarded::name_of(j.kind) << " "
      << guarded::name_of(j.algo) << ", n = " << j.n << ", " << (j.in_place ? "in place" : "out of place")
      << ", in_offset " << j.in_offset << ", out_offset " << j.out_offset
      << (j.has_initial ? ", with an initial value" : "") << (j.upload_events ? ", uploads in wait_list" : "")
      << ", data seed 0x" << std::hex << j.data_seed;
  return out.str();
}

job draw_job(splitmix64& r) {
  job j;
  // (int: sum, bit_xor), (uint: max), (long: sum): with both algorithms and both alignments, 16 programs.
  switch (r.next() % 4) {
  case 0:
    j.type = t_int;
    j.operation = op::sum;
    break;
  case 1:
    j.type = t_int;
    j.operation = op::bit_xor;
    break;
  case 2:
    j.type = t_uint;
    j.operation = op::max;
    break;
  default:
    j.type = t_long;
    j.operation = op::sum;
    break;
  }
  const algorithm algos[] = {algorithm::automatic, algorithm::single_pass, algorithm::three_stage};
  j.algo = algos[r.next() % 3];
  j.kind = r.next() % 2 ? scan_kind::inclusive : scan_kind::exclusive;
  j.in_place = r.next() % 2 == 0;
  j.upload_events = r.next() % 2 == 0;
  // Log-uniform in 1..2^16, so small sizes (one tile) and large ones (many) both come up often.
  j.n = std::min<std::size_t>(max_n, 1 + static_cast<std::size_t>(std::pow(2.0, r.unit() * 16.0)));
  j.in_offset = r.next() % 4;
  j.out_offset = j.in_place ? j.in_offset : r.next() % 4;
  j.back = r.next() % 4;
  j.has_initial = r.next() % 4 == 0;
  j.data_seed = r.next();
  return j;
}

template <typename T> T combine(op operation, T a, T b) {
  using U = std::make_unsigned_t<T>;
  switch (operation) {
  case op::sum: return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  case op::bit_xor: return static_cast<T>(a ^ b);
  case op::max: return a < b ? b : a;
  default: return a;
  }
}

template <typename T> T identity(op operation) {
  return operation == op::max ? std::numeric_limits<T>::lowest() : T(0);
}

// One scan on guarded buffers, checked. Returns an empty string when everything is right. Uses no
// Catch macros: it runs on worker threads.
template <typename T>
std::string run_job(const cl::Context& context, const cl::CommandQueue& queue, const job& j) {
  splitmix64 r{j.data_seed};
  std::vector<T> input(j.n);
  for (auto& x : input) {
    const std::uint64_t bits = r.next();
    std::memcpy(&x, &bits, sizeof x);
  }
  T initial;
  {
    const std::uint64_t bits = r.next();
    std::memcpy(&initial, &bits, sizeof initial);
  }
  std::vector<T> reference(j.n);
  T running = j.has_initial ? initial : identity<T>(j.operation);
  for (std::size_t i = 0; i < j.n; ++i) {
    if (j.kind == scan_kind::exclusive) reference[i] = running;
    running = combine(j.operation, running, input[i]);
    if (j.kind == scan_kind::inclusive) reference[i] = running;
  }

  const T poison = poison_value<T>();
  std::vector<T> in_image(j.in_offset + j.n + j.back, poison);
  std::copy(input.begin(), input.end(), in_image.begin() + static_cast<std::ptrdiff_t>(j.in_offset));
  std::vector<T> out_image = j.in_place ? in_image : std::vector<T>(j.out_offset + j.n + j.back, poison);
  std::vector<T> out_expected = out_image;
  std::copy(reference.begin(), reference.end(),
            out_expected.begin() + static_cast<std::ptrdiff_t>(j.out_offset));

  cl_int status = CL_SUCCESS;
  cl::Buffer in(context, CL_MEM_READ_WRITE, in_image.size() * sizeof(T), nullptr, &status);
  if (status != CL_SUCCESS) return "clCreateBuffer failed: " + std::to_string(status);
  cl::Buffer out = in;
  if (!j.in_place) {
    out = cl::Buffer(context, CL_MEM_READ_WRITE, out_image.size() * sizeof(T), nullptr, &status);
    if (status != CL_SUCCESS) return "clCreateBuffer failed: " + std::to_string(status);
  }

  clscan::options<T> opts;
  opts.algorithm = j.algo;
  opts.operation = j.operation;
  if (j.has_initial) opts.initial = initial;
  opts.in_offset = j.in_offset;
  opts.out_offset = j.out_offset;
  const auto upload = [&](const cl::Buffer& buffer, const std::vector<T>& image) {
    if (j.upload_events) {
      cl::Event uploaded;
      status = queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, image.size() * sizeof(T), image.data(), nullptr,
                                        &uploaded);
      if (status == CL_SUCCESS) opts.wait_list.push_back(uploaded);
    } else {
      status = queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, image.size() * sizeof(T), image.data());
    }
    return status == CL_SUCCESS;
  };
  if (!upload(in, in_image)) return "clEnqueueWriteBuffer failed: " + std::to_string(status);
  if (!j.in_place && !upload(out, out_image)) {
    queue.finish();
    return "clEnqueueWriteBuffer failed: " + std::to_string(status);
  }

  cl::Event done;
  try {
    if (j.kind == scan_kind::inclusive)
      done = j.in_place ? clscan::inclusive<T>(queue, in, j.n, opts)
                        : clscan::inclusive<T>(queue, in, out, j.n, opts);
    else
      done = j.in_place ? clscan::exclusive<T>(queue, in, j.n, opts)
                        : clscan::exclusive<T>(queue, in, out, j.n, opts);
  } catch (const std::exception& e) {
    queue.finish(); // the images must outlive the uploads
    return std::string("the call threw: ") + e.what();
  }
  // The returned event alone says when the result is there (also on an out-of-order queue).
  if ((status = done.wait()) != CL_SUCCESS) {
    queue.finish();
    return "waiting for the returned event failed: " + std::to_string(status);
  }
  if (done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE)
    return "the returned event is not complete";

  std::vector<T> got(out_expected.size());
  if ((status = queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(T), got.data())) != CL_SUCCESS)
    return "clEnqueueReadBuffer failed: " + std::to_string(status);
  std::string problems;
  const auto compare = [&](const char* what, const std::vector<T>& actual, const std::vector<T>& expected,
                           std::size_t range_begin) {
    std::size_t differences = 0, first = 0;
    for (std::size_t i = 0; i < actual.size(); ++i)
      if (std::memcmp(&actual[i], &expected[i], sizeof(T)) != 0 && differences++ == 0) first = i;
    if (!differences) return;
    std::ostringstream message;
    message << what << ": " << differences << " elements differ, the first at buffer index " << first << " ("
            << (first < range_begin         ? "front guard"
                : first < range_begin + j.n ? "scanned range"
                                            : "back guard")
            << "): expected " << +expected[first] << ", got " << +actual[first] << "; ";
    problems += message.str();
  };
  compare(j.in_place ? "buffer" : "output buffer", got, out_expected, j.out_offset);
  if (!j.in_place) {
    std::vector<T> input_after(in_image.size());
    if ((status = queue.enqueueReadBuffer(in, CL_TRUE, 0, input_after.size() * sizeof(T),
                                          input_after.data())) != CL_SUCCESS)
      return "clEnqueueReadBuffer failed: " + std::to_string(status);
    compare("input buffer (must be unchanged)", input_after, in_image, j.in_offset);
  }
  return problems;
}

std::string run_job(const cl::Context& context, const cl::CommandQueue& queue, const job& j) {
  switch (j.type) {
  case t_int: return run_job<cl_int>(context, queue, j);
  case t_uint: return run_job<cl_uint>(context, queue, j);
  default: return run_job<cl_long>(context, queue, j);
  }
}

// Runs `scans` jobs drawn from `seed` on (context, queue), recording failures under `who`.
void worker(const cl::Context& context, const cl::CommandQueue& queue, std::uint64_t seed, std::size_t scans,
            const std::string& who, failure_log& failures, std::atomic<std::size_t>& completed) {
  splitmix64 r{seed};
  for (std::size_t i = 0; i < scans; ++i) {
    const job j = draw_job(r);
    std::string problem;
    try {
      problem = run_job(context, queue, j);
    } catch (const std::exception& e) {
      problem = std::string("exception: ") + e.what();
    }
    if (!problem.empty())
      failures.add(who + ", scan " + std::to_string(i) + " (" + describe(j) + "): " + problem);
    completed.fetch_add(1, std::memory_order_relaxed);
  }
}

// Runs `body(t)` on `threads` threads at once and waits for all of them.
template <typename Body> void run_threads(std::size_t threads, Body body) {
  std::vector<std::thread> pool;
  pool.reserve(threads);
  std::atomic<bool> go{false};
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      while (!go.load())
        std::this_thread::yield();
      body(t);
    });
  go = true;
  for (auto& thread : pool)
    thread.join();
}

void report(const char* what, std::size_t expected, const std::atomic<std::size_t>& completed,
            const failure_log& failures, std::chrono::steady_clock::time_point start) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "concurrency: " << what << ": " << completed.load() << " scans in " << seconds << " s, "
            << failures.count() << " wrong" << std::endl;
  INFO(what << ": failures (first 20):\n" << failures.text());
  CHECK(completed.load() == expected);
  CHECK(failures.count() == 0);
}

} // namespace

TEST_CASE("concurrency: eight threads, each with its own queue on one shared context", "[concurrency]") {
  const cl::Device device = env().device;
  cl::Context context(device);
  constexpr std::size_t threads = 8, scans = 300;
  std::vector<cl::CommandQueue> queues;
  for (std::size_t t = 0; t < threads; ++t)
    queues.emplace_back(context, device);
  failure_log failures;
  std::atomic<std::size_t> completed{0};
  const auto start = std::chrono::steady_clock::now();
  run_threads(threads, [&](std::size_t t) {
    worker(context, queues[t], base_seed + t, scans, "thread " + std::to_string(t) + " (own queue)", failures,
           completed);
  });
  report("8 threads x 300 scans, one queue each, one context", threads * scans, completed, failures, start);
  clscan::release_cached_resources(); // no other thread is inside clscan now
}

TEST_CASE("concurrency: threads sharing one queue wait on their own events", "[concurrency]") {
  const cl::Device device = env().device;
  constexpr std::size_t threads = 4, scans = 150;
  SECTION("an in-order queue") {
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    failure_log failures;
    std::atomic<std::size_t> completed{0};
    const auto start = std::chrono::steady_clock::now();
    run_threads(threads, [&](std::size_t t) {
      worker(context, queue, base_seed + 100 + t, scans,
             "thread " + std::to_string(t) + " (shared in-order queue)", failures, completed);
    });
    report("4 threads x 150 scans, one shared in-order queue", threads * scans, completed, failures, start);
  }
  SECTION("an out-of-order queue") {
    const auto properties = device.getInfo<CL_DEVICE_QUEUE_PROPERTIES>();
    if (!(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
      WARN("device '" << env().device_name << "' has no out-of-order queues; that part did not run");
      return;
    }
    cl::Context context(device);
    cl::CommandQueue queue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    failure_log failures;
    std::atomic<std::size_t> completed{0};
    const auto start = std::chrono::steady_clock::now();
    run_threads(threads, [&](std::size_t t) {
      worker(context, queue, base_seed + 200 + t, scans,
             "thread " + std::to_string(t) + " (shared out-of-order queue)", failures, completed);
    });
    report("4 threads x 150 scans, one shared out-of-order queue", threads * scans, completed, failures,
           start);
  }
  clscan::release_cached_resources();
}

TEST_CASE("concurrency: threads with their own contexts on the same device", "[concurrency]") {
  const cl::Device device = env().device;
  constexpr std::size_t threads = 4, scans = 150;
  failure_log failures;
  std::atomic<std::size_t> completed{0};
  const auto start = std::chrono::steady_clock::now();
  run_threads(threads, [&](std::size_t t) {
    const std::string who = "thread " + std::to_string(t) + " (own context)";
    try {
      // Created inside the thread, at the same time as the others.
      cl::Context context(device);
      cl::CommandQueue queue(context, device);
      worker(context, queue, base_seed + 300 + t, scans, who, failures, completed);
    } catch (const std::exception& e) {
      failures.add(who + ": exception: " + e.what());
    }
  });
  report("4 threads x 150 scans, a context each", threads * scans, completed, failures, start);
  clscan::release_cached_resources();
}

TEST_CASE("concurrency: a scan on one queue does not wait for a pending scan on another queue",
          "[concurrency]") {
  // Queue A's scan waits for a user event that stays unset until queue B's scan has completed: B's
  // scan must not depend on A's (separate temporaries), or it could never complete. The gate is
  // opened on every path, so a failure is reported rather than left hanging.
  auto& e = env();
  const std::size_t n = 100003; // several tiles of every algorithm's default shape on a GPU
  std::vector<cl_int> data(n);
  splitmix64 r{2024};
  for (auto& x : data)
    x = static_cast<cl_int>(r.next() % 2001) - 1000;
  std::vector<cl_int> expected(n);
  std::inclusive_scan(data.begin(), data.end(), expected.begin());

  for (algorithm algo : {algorithm::single_pass, algorithm::three_stage}) {
    CAPTURE(guarded::name_of(algo));
    cl::CommandQueue queue_a(e.context, e.device), queue_b(e.context, e.device);
    const cl::Buffer in_a = make_buffer(data), in_b = make_buffer(data);
    const cl::Buffer out_a = make_buffer(std::vector<cl_int>(n)), out_b = make_buffer(std::vector<cl_int>(n));
    cl::UserEvent gate(e.context);
    clscan::options<cl_int> gated, free_running;
    gated.algorithm = free_running.algorithm = algo;
    gated.wait_list = {gate};
    const cl::Event done_a = clscan::inclusive(queue_a, in_a, out_a, n, gated);
    const cl::Event done_b = clscan::inclusive(queue_b, in_b, out_b, n, free_running);
    queue_a.flush();
    queue_b.flush();

    cl_int status_b = CL_QUEUED;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      status_b = done_b.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
      if (status_b <= CL_COMPLETE) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const cl_int status_a = done_a.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
    gate.setStatus(CL_COMPLETE);
    REQUIRE(done_a.wait() == CL_SUCCESS);
    REQUIRE(done_b.wait() == CL_SUCCESS);
    CHECK(status_b == CL_COMPLETE); // B finished while A's gate was closed
    CHECK(status_a != CL_COMPLETE);
    CHECK(read_buffer<cl_int>(out_a, n) == expected);
    CHECK(read_buffer<cl_int>(out_b, n) == expected);
  }
}
