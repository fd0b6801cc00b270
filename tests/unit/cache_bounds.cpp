// The bounds of the program caches: each (context, device) entry keeps at most program_cache_limit()
// compiled programs, the least recently used released first, never the one a call uses; the disk
// cache's entries take at most disk_cache_limit() bytes, the least recently used (written or loaded)
// deleted first. Many predicate texts, each a program of its own, with small limits.
#include "support/environment.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>

using namespace clscan_test;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t n = 777;

std::vector<cl_int> sample_ints() { return cycling_ints(n, 104729, 41); }

// select_if with "x > k" (a program of its own for each k) on `queue`, without Catch2's assertions:
// "" when the count and the selected elements are exact and the poison after them unwritten, else what
// was wrong. The call's exceptions propagate.
std::string select_above_problem(const cl::CommandQueue& queue, const cl::Context& context, int k,
                                 clscan::algorithm algo) {
  const std::vector<cl_int> data = sample_ints();
  cl::Buffer in(context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
  cl::Buffer out(context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
  cl::Buffer count(context, CL_MEM_READ_WRITE, sizeof(cl_ulong));
  const std::vector<cl_int> poison(n, poison_value<cl_int>());
  const cl_ulong count_poison = poison_value<cl_ulong>();
  if (queue.enqueueWriteBuffer(in, CL_TRUE, 0, n * sizeof(cl_int), data.data()) != CL_SUCCESS ||
      queue.enqueueWriteBuffer(out, CL_TRUE, 0, n * sizeof(cl_int), poison.data()) != CL_SUCCESS ||
      queue.enqueueWriteBuffer(count, CL_TRUE, 0, sizeof count_poison, &count_poison) != CL_SUCCESS)
    return "writing the buffers failed";
  clscan::select_options<cl_int> opts;
  opts.predicate = "x > " + std::to_string(k);
  opts.algorithm = algo;
  clscan::select_if<cl_int>(queue, in, out, count, n, opts);
  std::vector<cl_int> expected;
  std::copy_if(data.begin(), data.end(), std::back_inserter(expected), [&](cl_int x) { return x > k; });
  std::vector<cl_int> got(n);
  cl_ulong got_count = 0;
  if (queue.enqueueReadBuffer(out, CL_TRUE, 0, n * sizeof(cl_int), got.data()) != CL_SUCCESS ||
      queue.enqueueReadBuffer(count, CL_TRUE, 0, sizeof got_count, &got_count) != CL_SUCCESS)
    return "reading the results failed";
  if (got_count != expected.size())
    return "x > " + std::to_string(k) + ": count " + std::to_string(got_count) + ", expected " +
           std::to_string(expected.size());
  if (!std::equal(expected.begin(), expected.end(), got.begin()))
    return "x > " + std::to_string(k) + ": wrong selection";
  if (!std::all_of(got.begin() + static_cast<std::ptrdiff_t>(expected.size()), got.end(),
                   [](cl_int v) { return v == poison_value<cl_int>(); }))
    return "x > " + std::to_string(k) + ": an element past the count was written";
  return {};
}

// select_above_problem, checked.
void select_above(const cl::CommandQueue& queue, const cl::Context& context, int k,
                  clscan::algorithm algo = clscan::algorithm::automatic) {
  const std::string problem = select_above_problem(queue, context, k, algo);
  INFO(problem);
  CHECK(problem.empty());
}

// select_above_problem for other threads: an exception is a problem too.
std::string select_above_quietly(const cl::CommandQueue& queue, const cl::Context& context, int k) {
  try {
    return select_above_problem(queue, context, k, clscan::algorithm::automatic);
  } catch (const std::exception& e) {
    return "x > " + std::to_string(k) + ": " + e.what();
  }
}

// Sets the program limit back to what it was (set_program_cache_limit overrides CLSCAN_MAX_PROGRAMS
// for the rest of the process, so the sections that read the variable come before the one that sets it).
struct program_limit_restorer {
  std::size_t before = clscan::program_cache_limit();
  ~program_limit_restorer() { clscan::set_program_cache_limit(before); }
};

// The program entries in `dir` with their sizes.
std::vector<std::pair<std::string, std::uintmax_t>> entries(const fs::path& dir) {
  std::vector<std::pair<std::string, std::uintmax_t>> found;
  for (const auto& item : fs::directory_iterator(dir))
    if (item.path().extension() == ".clbin")
      found.emplace_back(item.path().filename().string(), item.file_size());
  return found;
}

std::uintmax_t total_bytes(const fs::path& dir) {
  std::uintmax_t total = 0;
  for (const auto& [name, bytes] : entries(dir))
    total += bytes;
  return total;
}

// clscan's log events while it lives.
struct log_capture {
  std::mutex mutex;
  std::vector<std::string> messages;
  log_capture() {
    clscan::set_log_handler([this](clscan::log_level, const std::string& message) {
      std::lock_guard<std::mutex> lock(mutex);
      messages.push_back(message);
    });
  }
  ~log_capture() { clscan::set_log_handler({}); }
  std::size_t count(const std::string& part) {
    std::lock_guard<std::mutex> lock(mutex);
    return static_cast<std::size_t>(
        std::count_if(messages.begin(), messages.end(),
                      [&](const std::string& m) { return m.find(part) != std::string::npos; }));
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    messages.clear();
  }
};

} // namespace

TEST_CASE("program cache: a context keeps at most the limit of programs, however many predicates it has run",
          "[cache][program-cache]") {
  auto& e = env();
  scoped_env no_limit("CLSCAN_MAX_PROGRAMS", std::nullopt);
  CHECK(clscan::program_cache_limit() >= 16); // the default is generous

  SECTION("CLSCAN_MAX_PROGRAMS") {
    // A context of its own, so that the count is this test's alone.
    cl::Context context(e.device);
    cl::CommandQueue queue(context, e.device);
    scoped_env limit("CLSCAN_MAX_PROGRAMS", "2");
    REQUIRE(clscan::program_cache_limit() == 2);
    for (int k = 0; k < 5; ++k) {
      select_above(queue, context, k);
      CHECK(clscan::cached_programs(context) <= 2);
    }
    CHECK(clscan::cached_programs(context) == 2);
    clscan::release_cached_resources(context);
    CHECK(clscan::cached_programs(context) == 0);
  }
  SECTION("bad limits are refused, naming them, before anything is enqueued") {
    CHECK_THROWS_AS(clscan::set_program_cache_limit(0), clscan::invalid_argument);
    CHECK_THROWS_AS(clscan::cached_programs(cl::Context()), clscan::invalid_argument);
    for (const char* bad : {"0", "-1", "12abc", "many"}) {
      INFO("CLSCAN_MAX_PROGRAMS=" << bad);
      scoped_env limit("CLSCAN_MAX_PROGRAMS", std::string(bad));
      CHECK_THROWS_WITH(clscan::program_cache_limit(), Catch::Matchers::Contains("CLSCAN_MAX_PROGRAMS"));
      // A call that must build: refused before its output is touched.
      const cl::Buffer in = make_buffer(sample_ints());
      const std::vector<cl_int> poison(n, poison_value<cl_int>());
      const cl::Buffer out = make_buffer(poison);
      const cl::Buffer count = make_buffer(std::vector<cl_ulong>(1, 0));
      clscan::select_options<cl_int> opts;
      opts.predicate = std::string("x != 12345 + ") + std::to_string(bad[0]);
      opts.algorithm = clscan::algorithm::three_stage; // no qualification first
      CHECK_THROWS_AS(clscan::select_if<cl_int>(e.queue, in, out, count, n, opts), clscan::invalid_argument);
      REQUIRE(e.queue.finish() == CL_SUCCESS);
      CHECK(read_buffer<cl_int>(out, n) == poison);
    }
  }
  SECTION("set_program_cache_limit, and a limit of one: every call keeps the program it runs") {
    cl::Context context(e.device);
    cl::CommandQueue queue(context, e.device);
    const program_limit_restorer restore;
    clscan::set_program_cache_limit(3);
    for (int k = -8; k < 4; ++k) {
      select_above(queue, context, k);
      CHECK(clscan::cached_programs(context) <= 3);
    }
    CHECK(clscan::cached_programs(context) == 3);
    // Released ones come back when needed.
    select_above(queue, context, -8);
    CHECK(clscan::cached_programs(context) == 3);
    clscan::set_program_cache_limit(1);
    // A lowered limit applies at the context's next call.
    for (int k : {1, 2, 1, 2}) {
      select_above(queue, context, k);
      CHECK(clscan::cached_programs(context) == 1);
    }
    // Threads with predicates of their own on one context and queue each: every call runs the
    // program it built, whatever the others' calls release.
    std::vector<std::string> failures(3);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < failures.size(); ++t)
      threads.emplace_back([&, t] {
        cl::CommandQueue own(context, e.device);
        for (int round = 0; round < 4 && failures[t].empty(); ++round)
          failures[t] = select_above_quietly(own, context, static_cast<int>(10 * t) + round % 2);
      });
    for (std::thread& thread : threads)
      thread.join();
    for (const std::string& failure : failures)
      CHECK(failure.empty());
    CHECK(clscan::cached_programs(context) == 1);
    clscan::release_cached_resources(context);
  }
}

TEST_CASE("disk cache: its entries stay within the limit, the least recently used deleted first, and it "
          "still works",
          "[cache][disk-cache-limit]") {
  auto& e = env();
  temp_dir dir;
  scoped_env cache("CLSCAN_CACHE_DIR", dir.path().string());
  scoped_env on("CLSCAN_NO_CACHE", std::nullopt);
  scoped_env no_limit("CLSCAN_CACHE_MAX_BYTES", std::nullopt);
  CHECK(clscan::disk_cache_limit() == (std::uint64_t{256} << 20));
  // Three-stage selections with the single-pass check turned off: one program per call. (A call of
  // any algorithm waits for the check's verdict, and the check's own program would be one more entry.)
  scoped_env no_check("CLSCAN_QUALIFY", "0");
  log_capture log;
  const auto run = [&](const cl::Context& context, const cl::CommandQueue& queue, int k) {
    select_above(queue, context, k, clscan::algorithm::three_stage);
  };

  cl::Context context(e.device);
  cl::CommandQueue queue(context, e.device);
  run(context, queue, 100);
  // The programs one call stores: one, or more where a kernel cannot run the compiled work-group size
  // and its program is built again smaller (rusticl), each an entry of its own.
  const std::size_t per_call = entries(dir.path()).size();
  REQUIRE(per_call >= 1);
  const std::uintmax_t call_bytes = total_bytes(dir.path());
  CHECK(clscan::disk_cache_bytes() == call_bytes);

  // Room for two calls' entries and a half (the entries of "x > k" differ by a few bytes at most).
  const std::uint64_t limit = call_bytes * 5 / 2;
  scoped_env limited("CLSCAN_CACHE_MAX_BYTES", std::to_string(limit));
  REQUIRE(clscan::disk_cache_limit() == limit);
  for (int k = 0; k < 6; ++k) {
    run(context, queue, k);
    const std::uintmax_t total = total_bytes(dir.path());
    INFO("after x > " << k << ": " << total << " bytes in " << entries(dir.path()).size() << " entries");
    CHECK(total <= limit);
    CHECK(total >= 2 * call_bytes - call_bytes / 10);
    CHECK(clscan::disk_cache_bytes() == total);
  }
  CHECK(log.count("disk cache: deleted") >= 5);

  // The survivors are the last two calls' entries, x > 4 and x > 5: loaded, not built, by a fresh
  // workspace. A load makes an entry the most recently used: loading x > 4 and then storing x > 6
  // deletes x > 5's.
  clscan::release_cached_resources(context);
  log.clear();
  run(context, queue, 4);
  CHECK(log.count("loaded cached program") == per_call);
  CHECK(log.count("built program from source") == 0);
  run(context, queue, 6);
  CHECK(log.count("built program from source") == per_call);
  clscan::release_cached_resources(context);
  log.clear();
  run(context, queue, 4);
  run(context, queue, 6);
  CHECK(log.count("loaded cached program") == 2 * per_call);
  CHECK(log.count("built program from source") == 0);
  clscan::release_cached_resources(context);
  log.clear();
  run(context, queue, 5);
  CHECK(log.count("built program from source") >= 1);
  CHECK(total_bytes(dir.path()) <= limit);

  {
    // A limit below one entry keeps none, and calls still run.
    scoped_env tiny("CLSCAN_CACHE_MAX_BYTES", "1K");
    REQUIRE(clscan::disk_cache_limit() == 1024);
    clscan::release_cached_resources(context);
    run(context, queue, 7);
    CHECK(entries(dir.path()).empty());
    CHECK(clscan::disk_cache_bytes() == 0);
  }
  // Bad limits are refused, naming them, before anything is built or enqueued.
  CHECK_THROWS_AS(clscan::set_disk_cache_limit(0), clscan::invalid_argument);
  for (const char* bad : {"0", "-5", "1T", "12 M", "lots"}) {
    INFO("CLSCAN_CACHE_MAX_BYTES=" << bad);
    scoped_env limit_text("CLSCAN_CACHE_MAX_BYTES", std::string(bad));
    CHECK_THROWS_WITH(clscan::disk_cache_limit(), Catch::Matchers::Contains("CLSCAN_CACHE_MAX_BYTES"));
    clscan::release_cached_resources(context);
    CHECK_THROWS_AS(run(context, queue, 8), clscan::invalid_argument);
  }
  clscan::release_cached_resources(context);
}
