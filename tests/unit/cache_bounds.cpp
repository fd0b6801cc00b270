// The bounds of the program caches: each (context, device) entry keeps at most program_cache_limit()
// compiled programs, the least recently used released first, never the one a call uses; the disk
// cache's entries take at most disk_cache_limit() bytes, the least recently used (written or loaded)
// deleted first. Many predicate texts, each a program of its own, with small limits.
#include "support/environment.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
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

// The calls that used the disk cache (select_above's "x > k", by k), least recently used first, and
// their entries, for checking the eviction order without assuming entry sizes: PoCL's binaries carry
// the kernels PoCL has compiled for the program so far, which its own cache may hold from earlier
// processes, so one program's entry can be much larger than another's of the same shape.
class use_order {
public:
  explicit use_order(fs::path dir) : dir_(std::move(dir)) {}

  // Runs `call`, which stores or loads the entries of k, and records k as the most recently used.
  template <typename Call> void call(int k, Call&& call) {
    std::set<std::string> before;
    for (const auto& [name, bytes] : entries(dir_))
      before.insert(name);
    call();
    std::set<std::string>& mine = names_[k];
    for (const auto& [name, bytes] : entries(dir_)) {
      if (!before.count(name)) mine.insert(name);
      bytes_[name] = bytes;
    }
    INFO("x > " << k << ": its entries exceed the limit, or it stored none");
    REQUIRE(!mine.empty());
    order_.erase(std::remove(order_.begin(), order_.end(), k), order_.end());
    order_.push_back(k);
    // Recency is the entries' modification time, which the kernel sets from a clock that ticks every
    // few milliseconds: entries used within one tick are equally recent, in no order a test can rely on.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  // The eviction's invariants: at most `limit` bytes; the entries present are the most recently used
  // (no call's entries outlive a more recent call's, the most recent call's are all there); and no
  // more were deleted than needed (the most recently used of the deleted entries did not fit).
  void check(std::uint64_t limit) const {
    const std::set<std::string> here = present_names();
    std::uintmax_t total = 0;
    for (const std::string& name : here)
      total += bytes_.at(name);
    INFO(describe(here) << ", limit " << limit);
    CHECK(total <= limit);
    bool kept_older = false;
    std::uintmax_t newest_deleted = 0; // the largest deleted entry of the most recent call that lost one
    for (const int k : order_) {
      std::size_t kept = 0;
      std::uintmax_t deleted = 0;
      for (const std::string& name : names_.at(k)) {
        if (here.count(name))
          ++kept;
        else
          deleted = std::max(deleted, bytes_.at(name));
      }
      // An older call's entry survived where this more recent one's did not.
      CHECK(!(kept_older && deleted > 0));
      kept_older = kept_older || kept > 0;
      if (deleted > 0) newest_deleted = deleted;
    }
    CHECK(std::all_of(names_.at(order_.back()).begin(), names_.at(order_.back()).end(),
                      [&](const std::string& name) { return here.count(name) == 1; }));
    if (newest_deleted > 0) CHECK(total + newest_deleted > limit);
  }

  // The calls whose entries are all present, least recently used first.
  std::vector<int> present() const {
    const std::set<std::string> here = present_names();
    std::vector<int> calls;
    for (const int k : order_)
      if (std::all_of(names_.at(k).begin(), names_.at(k).end(),
                      [&](const std::string& name) { return here.count(name) == 1; }))
        calls.push_back(k);
    return calls;
  }
  const std::vector<int>& in_order() const { return order_; }
  std::size_t programs_of(int k) const { return names_.at(k).size(); }

private:
  std::set<std::string> present_names() const {
    std::set<std::string> here;
    for (const auto& [name, bytes] : entries(dir_))
      here.insert(name);
    return here;
  }
  std::string describe(const std::set<std::string>& here) const {
    std::string text = "least recently used first:";
    for (const int k : order_) {
      text += " x>" + std::to_string(k) + "[";
      for (const std::string& name : names_.at(k))
        text += (here.count(name) ? "" : "-") + std::to_string(bytes_.at(name)) + " ";
      text += "]";
    }
    return text;
  }

  fs::path dir_;
  std::map<int, std::set<std::string>> names_;
  std::map<std::string, std::uintmax_t> bytes_;
  std::vector<int> order_;
};

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
  cl::Context context(e.device);
  cl::CommandQueue queue(context, e.device);
  use_order uses(dir.path());
  const auto run = [&](int k) {
    uses.call(k, [&] { select_above(queue, context, k, clscan::algorithm::three_stage); });
  };

  run(100);
  const std::uintmax_t call_bytes = total_bytes(dir.path());
  CHECK(clscan::disk_cache_bytes() == call_bytes);

  // Room for a few calls' entries; the calls below store more than that.
  const std::uint64_t limit = call_bytes * 5;
  scoped_env limited("CLSCAN_CACHE_MAX_BYTES", std::to_string(limit));
  REQUIRE(clscan::disk_cache_limit() == limit);
  for (int k = 0; k < 9; ++k) {
    run(k);
    uses.check(limit);
    CHECK(clscan::disk_cache_bytes() == total_bytes(dir.path()));
  }
  CHECK(log.count("disk cache: deleted") >= 1);

  // A load makes an entry the most recently used: the oldest survivor, loaded by a fresh workspace,
  // outlives the survivors stored after it once new entries push the total over the limit.
  const std::vector<int> survivors = uses.present();
  REQUIRE(survivors.size() >= 2);
  const int oldest = survivors.front();
  clscan::release_cached_resources(context);
  log.clear();
  run(oldest);
  CHECK(log.count("loaded cached program") == uses.programs_of(oldest));
  CHECK(log.count("built program from source") == 0);
  for (int k = 20; k < 30 && log.count("disk cache: deleted") == 0; ++k) {
    run(k);
    uses.check(limit);
  }
  CHECK(log.count("disk cache: deleted") >= 1);
  const std::vector<int> after_load = uses.present();
  CHECK(std::find(after_load.begin(), after_load.end(), oldest) != after_load.end());

  // Every survivor loads; an evicted call builds again, within the limit.
  clscan::release_cached_resources(context);
  for (const int k : uses.present()) {
    log.clear();
    run(k);
    CHECK(log.count("loaded cached program") == uses.programs_of(k));
    CHECK(log.count("built program from source") == 0);
  }
  const std::vector<int> now = uses.present();
  const int evicted = [&] {
    for (const int k : uses.in_order())
      if (std::find(now.begin(), now.end(), k) == now.end()) return k;
    return -1;
  }();
  REQUIRE(evicted >= 0);
  clscan::release_cached_resources(context);
  log.clear();
  run(evicted);
  CHECK(log.count("built program from source") >= 1);
  uses.check(limit);

  {
    // A limit below one entry keeps none, and calls still run.
    scoped_env tiny("CLSCAN_CACHE_MAX_BYTES", "1K");
    REQUIRE(clscan::disk_cache_limit() == 1024);
    clscan::release_cached_resources(context);
    select_above(queue, context, 99, clscan::algorithm::three_stage);
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
    CHECK_THROWS_AS(select_above(queue, context, 8, clscan::algorithm::three_stage),
                    clscan::invalid_argument);
  }
  clscan::release_cached_resources(context);
}
