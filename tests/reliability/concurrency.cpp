// Concurrency ("[concurrency]"): scans from several host threads at once, every result read back and
// compared exactly with the CPU.
//
//   - eight threads, each with its own in-order queue on one shared context
//   - at the same time on one context: eight threads sharing one in-order queue, each waiting on the
//     events it got back, and eight threads sharing one out-of-order queue, whose uploads and reads
//     order themselves only through events (wait_list and the returned event)
//   - four threads, each with its own context on the same device
//   - a scan on one queue does not wait for a pending scan on another
//
// Each thread runs CLSCAN_CONCURRENCY_SCANS scans (default 1000). Each scan draws its element type
// (cl_int, cl_uint, cl_long), operator (sum, bit_xor, max), algorithm (automatic, single_pass,
// three_stage), inclusive or exclusive, an initial value or none, in place or out of place, offsets
// (aligned or not) and n in 1..2^16, and runs on poisoned guard elements. One scan in 32 instead
// takes n of two to four single-pass tiles of the device's default shape (on PoCL a tile is 1 MiB of
// elements, so smaller sizes are one tile and never look back): with several threads, look-backs of
// different scans then run at the same time.
// Worker threads never call Catch (its assertions are not thread-safe): they collect descriptions of
// what went wrong, and the main thread checks them. Also run under ThreadSanitizer (sanitizers-tsan).
#include "support/guarded.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
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
// Thousands of scans per thread; CLSCAN_CONCURRENCY_SCANS sets another count (a quick run, a long
// soak; the sanitizer builds run fewer, tests/cmake/sanitizers.cmake).
constexpr std::size_t default_scans = 1000;

std::size_t scans_per_thread() {
  const char* text = std::getenv("CLSCAN_CONCURRENCY_SCANS");
  if (!text || !*text) return default_scans;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  INFO("CLSCAN_CONCURRENCY_SCANS='" << text << "'");
  REQUIRE(*end == '\0');
  REQUIRE(value > 0);
  return static_cast<std::size_t>(value);
}

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

// Elements per single-pass tile of each type_id, as dispatch chooses them on the device (so sizes of
// several tiles can be drawn), read on the main thread before the workers start.
struct tile_sizes {
  std::size_t elements[3] = {1, 1, 1};
};

tile_sizes single_pass_tiles(const cl::Device& device) {
  tile_sizes tiles;
  const clscan::element_type types[] = {clscan::element_type::int32, clscan::element_type::uint32,
                                        clscan::element_type::int64};
  for (int t = t_int; t <= t_long; ++t) {
    const clscan::tuning shape = clscan::plan_for(device, types[t]).single_pass;
    tiles.elements[t] = std::max<std::size_t>(1, shape.work_group_size * shape.items_per_thread);
  }
  return tiles;
}

// Multi-tile single-pass (or automatic) scans between their enqueue and their completion, and the
// most seen at once: evidence that look-backs of different threads overlapped. Shared by every group
// of threads of a test.
struct overlap_meter {
  std::atomic<std::size_t> now{0}, most{0};
};

// What the workers of one group did, for the report.
struct tally {
  explicit tally(overlap_meter& meter) : overlap(meter) {}
  std::atomic<std::size_t> completed{0};
  std::atomic<std::size_t> multi_tile{0}; // scans of several single-pass tiles
  overlap_meter& overlap;
};

struct job {
  int type = t_int;
  op operation = op::sum;
  algorithm algo = algorithm::automatic;
  scan_kind kind = scan_kind::inclusive;
  bool in_place = false;
  bool upload_events = false; // non-blocking uploads whose events go into wait_list
  std::size_t n = 1, in_offset = 0, out_offset = 0, back = 3;
  bool has_initial = false;
  bool multi_tile = false; // n spans two to four single-pass tiles
  std::uint64_t data_seed = 0;
};

std::string describe(const job& j) {
  std::ostringstream out;
  out << type_names[j.type] << " " << clscan::to_string(j.operation) << " " << clscan::to_string(j.kind)
      << " " << clscan::to_string(j.algo) << ", n = " << j.n << ", "
      << (j.in_place ? "in place" : "out of place") << ", in_offset " << j.in_offset << ", out_offset "
      << j.out_offset << (j.has_initial ? ", with an initial value" : "")
      << (j.upload_events ? ", uploads in wait_list" : "")
      << (j.multi_tile ? ", several single-pass tiles" : "") << ", data seed 0x" << std::hex << j.data_seed;
  return out.str();
}

job draw_job(splitmix64& r, const tile_sizes& tiles) {
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
  // Log-uniform in 1..2^16, so small sizes (one tile) and large ones (many) both come up often. One
  // scan in 32 spans two to four single-pass tiles (uniform in (2, 4] tiles; sometimes exactly
  // three): single-pass tiles are far larger than 2^16 elements on CPUs. Capped at 2^24 elements
  // for devices whose tiles are larger still.
  j.multi_tile = r.next() % 32 == 0;
  if (j.multi_tile) {
    const std::size_t tile = tiles.elements[j.type];
    j.n = r.next() % 8 == 0 ? 3 * tile : 2 * tile + 1 + static_cast<std::size_t>(r.next() % (2 * tile));
    j.n = std::min<std::size_t>(j.n, std::size_t{1} << 24);
  } else {
    j.n = std::min<std::size_t>(max_n, 1 + static_cast<std::size_t>(std::pow(2.0, r.unit() * 16.0)));
  }
  j.in_offset = r.next() % 4;
  j.out_offset = j.in_place ? j.in_offset : r.next() % 4;
  j.back = r.next() % 4;
  j.has_initial = r.next() % 4 == 0;
  j.data_seed = r.next();
  return j;
}

// Counts a multi-tile single-pass scan among those in flight from its enqueue to its completion: a
// window a little wider than the kernel, so the most seen at once bounds overlapping look-backs from
// above.
class in_flight {
public:
  explicit in_flight(overlap_meter& meter) : meter_(meter) {
    const std::size_t now = meter_.now.fetch_add(1) + 1;
    std::size_t most = meter_.most.load();
    while (now > most && !meter_.most.compare_exchange_weak(most, now)) {
    }
  }
  ~in_flight() { meter_.now.fetch_sub(1); }
  in_flight(const in_flight&) = delete;
  in_flight& operator=(const in_flight&) = delete;

private:
  overlap_meter& meter_;
};

// Memory of one worker thread that its scans reuse: the host images of every scan, and the OpenCL
// buffers of the scans of several tiles. ThreadSanitizer maps its shadow of each new large
// allocation page by page (a page fault and a TLB shootdown each; PoCL's copies into a buffer's
// fresh memory go through its memcpy interceptor too): with fresh memory for every scan these tests
// ran 71 s under it instead of 25 s (250 scans a thread, 2 cores). The small scans keep fresh
// buffers, so that clscan also meets many buffers it has never seen.
class image_pool {
public:
  enum slot { input, output, expected, readback, slots };
  // Room for `count` elements of T in `which`, contents unspecified; valid until the next call for it.
  template <typename T> T* get(slot which, std::size_t count) {
    std::vector<std::max_align_t>& storage = storage_[which];
    const std::size_t units = (count * sizeof(T) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
    if (storage.size() < units) storage.resize(units);
    return reinterpret_cast<T*>(storage.data());
  }
  // A buffer of at least `bytes` in `context` for `which` (input or output), kept for later calls.
  cl::Buffer buffer(const cl::Context& context, slot which, std::size_t bytes, cl_int* status) {
    kept& k = buffers_[which == input ? 0 : 1];
    if (k.context != context() || k.bytes < bytes) {
      k.buffer = cl::Buffer(context, CL_MEM_READ_WRITE, bytes, nullptr, status);
      k.context = context();
      k.bytes = *status == CL_SUCCESS ? bytes : 0;
    }
    return k.buffer;
  }

private:
  struct kept {
    cl::Buffer buffer;
    cl_context context = nullptr;
    std::size_t bytes = 0;
  };
  std::vector<std::max_align_t> storage_[slots];
  kept buffers_[2];
};

// One pool per thread, whatever the element type (a thread_local in run_job<T> would be one per T).
image_pool& thread_pool() {
  thread_local image_pool pool;
  return pool;
}

// One scan on guarded buffers, checked. Returns an empty string when everything is right. Uses no
// Catch macros: it runs on worker threads.
template <typename T>
std::string run_job(const cl::Context& context, const cl::CommandQueue& queue, const job& j, tally& counts) {
  image_pool& pool = thread_pool();
  const T poison = poison_value<T>();
  const std::size_t in_size = j.in_offset + j.n + j.back, out_size = j.out_offset + j.n + j.back;
  // The input buffer's image: poison, the data, poison. In place it is the output's image too.
  T* const in_image = pool.get<T>(image_pool::input, in_size);
  std::fill(in_image, in_image + in_size, poison);
  splitmix64 r{j.data_seed};
  T* const input = in_image + j.in_offset;
  for (std::size_t i = 0; i < j.n; ++i) {
    const std::uint64_t bits = r.next();
    std::memcpy(&input[i], &bits, sizeof(T));
  }
  T initial;
  {
    const std::uint64_t bits = r.next();
    std::memcpy(&initial, &bits, sizeof initial);
  }
  // Out of place, the output buffer starts as poison throughout.
  T* const out_image = j.in_place ? in_image : pool.get<T>(image_pool::output, out_size);
  if (!j.in_place) std::fill(out_image, out_image + out_size, poison);
  // What the output buffer must hold afterwards: the guards as they were, the reference between them.
  T* const out_expected = pool.get<T>(image_pool::expected, out_size);
  std::fill(out_expected, out_expected + out_size, poison);
  const std::vector<T> reference =
      clscan_reference::scan(std::vector<T>(input, input + j.n), j.kind, j.operation,
                             j.has_initial ? std::optional<T>(initial) : std::nullopt);
  std::copy(reference.begin(), reference.end(), out_expected + j.out_offset);

  cl_int status = CL_SUCCESS;
  const auto make_buffer = [&](image_pool::slot which, std::size_t size) {
    return j.multi_tile ? pool.buffer(context, which, size * sizeof(T), &status)
                        : cl::Buffer(context, CL_MEM_READ_WRITE, size * sizeof(T), nullptr, &status);
  };
  cl::Buffer in = make_buffer(image_pool::input, in_size);
  if (status != CL_SUCCESS) return "clCreateBuffer failed: " + std::to_string(status);
  cl::Buffer out = in;
  if (!j.in_place) {
    out = make_buffer(image_pool::output, out_size);
    if (status != CL_SUCCESS) return "clCreateBuffer failed: " + std::to_string(status);
  }

  clscan::options<T> opts;
  opts.algorithm = j.algo;
  opts.operation = j.operation;
  if (j.has_initial) opts.initial = initial;
  opts.in_offset = j.in_offset;
  opts.out_offset = j.out_offset;
  const auto upload = [&](const cl::Buffer& buffer, const T* image, std::size_t size) {
    if (j.upload_events) {
      cl::Event uploaded;
      status = queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, size * sizeof(T), image, nullptr, &uploaded);
      if (status == CL_SUCCESS) opts.wait_list.push_back(uploaded);
    } else {
      status = queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, size * sizeof(T), image);
    }
    return status == CL_SUCCESS;
  };
  if (!upload(in, in_image, in_size)) return "clEnqueueWriteBuffer failed: " + std::to_string(status);
  if (!j.in_place && !upload(out, out_image, out_size)) {
    queue.finish();
    return "clEnqueueWriteBuffer failed: " + std::to_string(status);
  }

  std::optional<in_flight> flight;
  if (j.multi_tile && j.algo != algorithm::three_stage) flight.emplace(counts.overlap);
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
  status = done.wait();
  flight.reset();
  if (status != CL_SUCCESS) {
    queue.finish();
    return "waiting for the returned event failed: " + std::to_string(status);
  }
  if (done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE)
    return "the returned event is not complete";

  std::string problems;
  const auto compare = [&](const char* what, const T* actual, const T* expected, std::size_t size,
                           std::size_t range_begin) {
    // One memcmp over the whole buffer first: ThreadSanitizer intercepts each call.
    if (std::memcmp(actual, expected, size * sizeof(T)) == 0) return;
    std::size_t differences = 0, first = 0;
    for (std::size_t i = 0; i < size; ++i)
      if (std::memcmp(&actual[i], &expected[i], sizeof(T)) != 0 && differences++ == 0) first = i;
    std::ostringstream message;
    message << what << ": " << differences << " elements differ, the first at buffer index " << first << " ("
            << (first < range_begin         ? "front guard"
                : first < range_begin + j.n ? "scanned range"
                                            : "back guard")
            << "): expected " << +expected[first] << ", got " << +actual[first] << "; ";
    problems += message.str();
  };
  T* got = pool.get<T>(image_pool::readback, out_size);
  if ((status = queue.enqueueReadBuffer(out, CL_TRUE, 0, out_size * sizeof(T), got)) != CL_SUCCESS)
    return "clEnqueueReadBuffer failed: " + std::to_string(status);
  compare(j.in_place ? "buffer" : "output buffer", got, out_expected, out_size, j.out_offset);
  if (!j.in_place) {
    got = pool.get<T>(image_pool::readback, in_size);
    if ((status = queue.enqueueReadBuffer(in, CL_TRUE, 0, in_size * sizeof(T), got)) != CL_SUCCESS)
      return "clEnqueueReadBuffer failed: " + std::to_string(status);
    compare("input buffer (must be unchanged)", got, in_image, in_size, j.in_offset);
  }
  return problems;
}

std::string run_job(const cl::Context& context, const cl::CommandQueue& queue, const job& j, tally& counts) {
  switch (j.type) {
  case t_int: return run_job<cl_int>(context, queue, j, counts);
  case t_uint: return run_job<cl_uint>(context, queue, j, counts);
  default: return run_job<cl_long>(context, queue, j, counts);
  }
}

// Runs `scans` jobs drawn from `seed` on (context, queue), recording failures under `who`.
void worker(const cl::Context& context, const cl::CommandQueue& queue, std::uint64_t seed, std::size_t scans,
            const tile_sizes& tiles, const std::string& who, failure_log& failures, tally& counts) {
  splitmix64 r{seed};
  for (std::size_t i = 0; i < scans; ++i) {
    const job j = draw_job(r, tiles);
    std::string problem;
    try {
      problem = run_job(context, queue, j, counts);
    } catch (const std::exception& e) {
      problem = std::string("exception: ") + e.what();
    }
    if (!problem.empty())
      failures.add(who + ", scan " + std::to_string(i) + " (" + describe(j) + "): " + problem);
    if (j.multi_tile) counts.multi_tile.fetch_add(1, std::memory_order_relaxed);
    counts.completed.fetch_add(1, std::memory_order_relaxed);
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

void report(const std::string& what, std::size_t expected, const tally& counts, const failure_log& failures,
            std::chrono::steady_clock::time_point start) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "concurrency: " << what << ": " << counts.completed.load() << " scans in " << seconds << " s ("
            << counts.multi_tile.load() << " of several single-pass tiles; up to "
            << counts.overlap.most.load() << " such single-pass scans of this test in flight at once), "
            << failures.count() << " wrong" << std::endl;
  INFO(what << ": failures (first 20):\n" << failures.text());
  CHECK(counts.completed.load() == expected);
  CHECK(failures.count() == 0);
}

} // namespace

TEST_CASE("concurrency: eight threads, each with its own queue on one shared context", "[concurrency]") {
  const cl::Device device = env().device;
  const tile_sizes tiles = single_pass_tiles(device);
  const std::size_t threads = 8, scans = scans_per_thread();
  cl::Context context(device);
  std::vector<cl::CommandQueue> queues;
  for (std::size_t t = 0; t < threads; ++t)
    queues.emplace_back(context, device);
  failure_log failures;
  overlap_meter meter;
  tally counts(meter);
  const auto start = std::chrono::steady_clock::now();
  run_threads(threads, [&](std::size_t t) {
    worker(context, queues[t], base_seed + t, scans, tiles, "thread " + std::to_string(t) + " (own queue)",
           failures, counts);
  });
  report("8 threads x " + std::to_string(scans) + " scans, one queue each, one context", threads * scans,
         counts, failures, start);
  clscan::release_cached_resources(); // no other thread is inside clscan now
}

TEST_CASE("concurrency: threads sharing an in-order and an out-of-order queue wait on their own events",
          "[concurrency]") {
  // Both queues on one context and both groups at once, so that the workspace's temporaries are
  // handed out between an in-order and an out-of-order queue while both are busy.
  const cl::Device device = env().device;
  const tile_sizes tiles = single_pass_tiles(device);
  const std::size_t threads_per_queue = 8, scans = scans_per_thread();
  cl::Context context(device);
  cl::CommandQueue in_order(context, device);
  std::optional<cl::CommandQueue> out_of_order;
  if (device.getInfo<CL_DEVICE_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    out_of_order.emplace(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  else
    WARN("device '" << env().device_name << "' has no out-of-order queues; only the in-order part ran");
  failure_log in_order_failures, out_of_order_failures;
  overlap_meter meter;
  tally in_order_counts(meter), out_of_order_counts(meter);
  const auto start = std::chrono::steady_clock::now();
  run_threads(out_of_order ? 2 * threads_per_queue : threads_per_queue, [&](std::size_t t) {
    const bool in_order_group = t < threads_per_queue;
    const std::string who = "thread " + std::to_string(t) +
                            (in_order_group ? " (shared in-order queue)" : " (shared out-of-order queue)");
    worker(context, in_order_group ? in_order : *out_of_order, base_seed + 100 + t, scans, tiles, who,
           in_order_group ? in_order_failures : out_of_order_failures,
           in_order_group ? in_order_counts : out_of_order_counts);
  });
  const std::string each =
      std::to_string(threads_per_queue) + " threads x " + std::to_string(scans) + " scans";
  report(each + ", one shared in-order queue", threads_per_queue * scans, in_order_counts, in_order_failures,
         start);
  if (out_of_order)
    report(each + ", one shared out-of-order queue (at the same time, same context)",
           threads_per_queue * scans, out_of_order_counts, out_of_order_failures, start);
  clscan::release_cached_resources();
}

TEST_CASE("concurrency: threads with their own contexts on the same device", "[concurrency]") {
  const cl::Device device = env().device;
  const tile_sizes tiles = single_pass_tiles(device);
  const std::size_t threads = 4, scans = scans_per_thread();
  failure_log failures;
  overlap_meter meter;
  tally counts(meter);
  const auto start = std::chrono::steady_clock::now();
  run_threads(threads, [&](std::size_t t) {
    const std::string who = "thread " + std::to_string(t) + " (own context)";
    try {
      // Created inside the thread, at the same time as the others.
      cl::Context context(device);
      cl::CommandQueue queue(context, device);
      worker(context, queue, base_seed + 300 + t, scans, tiles, who, failures, counts);
    } catch (const std::exception& e) {
      failures.add(who + ": exception: " + e.what());
    }
  });
  report("4 threads x " + std::to_string(scans) + " scans, a context each", threads * scans, counts, failures,
         start);
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
    CAPTURE(clscan::to_string(algo));
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
