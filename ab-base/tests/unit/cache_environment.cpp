// The cache's switches and shared use: CLSCAN_NO_CACHE, CLSCAN_LOG, processes starting together,
// cache_directory(), disk_cache_entries and the log handler (see cache.hpp).
#include "cache.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using namespace clscan_test;
using namespace clscan_test::cache;

TEST_CASE("CLSCAN_NO_CACHE=1 turns the disk cache off", "[cache]") {
  temp_dir root;
  const fs::path dir = root.path() / "never-created";

  const probe_result result = run_probe(dir.string(), {{"CLSCAN_NO_CACHE", "1"}});
  INFO(result.output);
  REQUIRE(result.ok());
  CHECK(result.has("built program from source"));
  CHECK_FALSE(result.has("disk cache"));
  CHECK_FALSE(fs::exists(dir));
  CHECK(cache_files(root.path()).empty());

  SECTION("also when the directory exists and holds valid entries") {
    fs::create_directory(dir);
    install_golden(dir);
    const auto before = cache_files(dir);
    const probe_result again = run_probe(dir.string(), {{"CLSCAN_NO_CACHE", "1"}});
    INFO(again.output);
    REQUIRE(again.ok());
    CHECK_FALSE(again.has("loaded cached program"));
    CHECK(cache_files(dir) == before);
  }
  SECTION("CLSCAN_NO_CACHE=0 leaves it on") {
    const probe_result on = run_probe(dir.string(), {{"CLSCAN_NO_CACHE", "0"}});
    INFO(on.output);
    REQUIRE(on.ok());
    CHECK(on.has("disk cache: stored"));
    CHECK_FALSE(entries_in(dir).empty());
  }
}

TEST_CASE("CLSCAN_LOG=<file> appends the events to that file", "[cache]") {
  temp_dir root;
  const fs::path log_file = root.path() / "clscan.log";
  const probe_result result =
      run_probe((root.path() / "cache").string(), {{"CLSCAN_LOG", log_file.string()}});
  INFO(result.output);
  REQUIRE(result.ok());
  const std::string logged = read_file(log_file);
  INFO("log file:\n" << logged);
  CHECK_THAT(logged, Contains("clscan info: disk cache: stored"));
  CHECK_THAT(logged, Contains("built program from source"));
}

TEST_CASE("processes that start on an empty cache at the same time all succeed", "[cache]") {
  temp_dir dir;
  scoped_env cache("CLSCAN_CACHE_DIR", dir.path().string());
  scoped_env no_cache("CLSCAN_NO_CACHE", std::nullopt);
  // Four probes at once, their output discarded as before (only their exit status counts).
  const temp_dir output;
  child_spec spec;
  spec.command = {CLSCAN_CACHE_PROBE};
  std::vector<running_child> probes;
  for (int i = 0; i < 4; ++i)
    probes.push_back(start_child(spec, output.path() / ("probe-" + std::to_string(i) + ".out")));
  for (const running_child& probe : probes)
    CHECK(finish_child(probe).exit_code == 0);

  for (const std::string& name : cache_files(dir.path())) {
    INFO("file " << name);
    CHECK(is_entry_name(name));
  }
  const probe_result after = run_probe(dir.path().string());
  INFO(after.output);
  REQUIRE(after.ok());
  CHECK(after.has("loaded cached program"));
  CHECK_FALSE(after.has("ignoring"));
}

TEST_CASE("cache_directory() follows the environment", "[cache]") {
  scoped_env no_cache("CLSCAN_NO_CACHE", std::nullopt);
  {
    scoped_env dir("CLSCAN_CACHE_DIR", std::string("/some/where/cache"));
    scoped_env xdg("XDG_CACHE_HOME", std::string("/xdg"));
    CHECK(clscan::cache_directory() == "/some/where/cache");
  }
  {
    scoped_env dir("CLSCAN_CACHE_DIR", std::nullopt);
    scoped_env xdg("XDG_CACHE_HOME", std::string("/xdg/cache"));
    CHECK(clscan::cache_directory() == "/xdg/cache/clscan");
  }
  {
    scoped_env dir("CLSCAN_CACHE_DIR", std::nullopt);
    scoped_env xdg("XDG_CACHE_HOME", std::nullopt);
    scoped_env home("HOME", std::string("/home/someone"));
    CHECK(clscan::cache_directory() == "/home/someone/.cache/clscan");
  }
  {
    scoped_env dir("CLSCAN_CACHE_DIR", std::string(""));
    scoped_env xdg("XDG_CACHE_HOME", std::string(""));
    scoped_env home("HOME", std::string("/root2"));
    CHECK(clscan::cache_directory() == "/root2/.cache/clscan");
  }
  {
    scoped_env dir("CLSCAN_CACHE_DIR", std::string("/some/where/cache"));
    scoped_env off("CLSCAN_NO_CACHE", std::string("1"));
    CHECK(clscan::cache_directory().empty());
  }
}

TEST_CASE("disk_cache_entries counts the entries of one device", "[cache]") {
  auto& e = env();
  temp_dir dir;
  scoped_env cache("CLSCAN_CACHE_DIR", dir.path().string());
  scoped_env no_cache("CLSCAN_NO_CACHE", std::nullopt);

  CHECK(clscan::disk_cache_entries(e.device) == 0);
  {
    scoped_env missing("CLSCAN_CACHE_DIR", (dir.path() / "does-not-exist").string());
    CHECK(clscan::disk_cache_entries(e.device) == 0);
  }

  const probe_result result = run_probe(dir.path().string());
  INFO(result.output);
  REQUIRE(result.ok());
  const std::vector<std::string> entries = entries_in(dir.path());
  REQUIRE_FALSE(entries.empty());
  CHECK(clscan::disk_cache_entries(e.device) == entries.size());
  CHECK(result.has("entries for this device: " + std::to_string(entries.size())));

  // Files of another device, and files that are not entries, do not count.
  write_file(dir.path() / "0123456789abcdef-0123456789abcdef.clbin", "foreign");
  write_file(dir.path() / "notes.txt", "hello");
  write_file(dir.path() / (entries.front() + ".tmp.1234.0"), "half written");
  CHECK(clscan::disk_cache_entries(e.device) == entries.size());

  // Another entry of this device (same device prefix in the name) counts.
  const std::string prefix = entries.front().substr(0, 17);
  write_file(dir.path() / (prefix + "fedcba9876543210.clbin"), "x");
  CHECK(clscan::disk_cache_entries(e.device) == entries.size() + 1);

  scoped_env off("CLSCAN_NO_CACHE", std::string("1"));
  CHECK(clscan::disk_cache_entries(e.device) == 0);
}

TEST_CASE("an installed log handler receives the cache events of this process", "[cache]") {
  auto& e = env();
  temp_dir dir;
  scoped_env cache("CLSCAN_CACHE_DIR", dir.path().string());
  scoped_env no_cache("CLSCAN_NO_CACHE", std::nullopt);

  std::mutex mutex;
  std::vector<std::pair<clscan::log_level, std::string>> events;
  clscan::set_log_handler([&](clscan::log_level level, const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex);
    events.emplace_back(level, message);
  });
  struct remove_handler {
    ~remove_handler() { clscan::set_log_handler({}); }
  } remove_at_end;

  const auto scan_in_fresh_context = [&] {
    // Programs are kept per context: a fresh context has to get its program again.
    cl::Context context(e.device);
    cl::CommandQueue queue(context, e.device);
    std::vector<cl_int> data(2000);
    std::iota(data.begin(), data.end(), -1000);
    cl::Buffer buffer(context, CL_MEM_READ_WRITE, data.size() * sizeof(cl_int));
    REQUIRE(queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, data.size() * sizeof(cl_int), data.data()) ==
            CL_SUCCESS);
    clscan::exclusive(queue, buffer, data.size()).wait();
    std::vector<cl_int> result(data.size());
    REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, data.size() * sizeof(cl_int), result.data()) ==
            CL_SUCCESS);
    std::vector<cl_int> expected(data.size());
    std::exclusive_scan(data.begin(), data.end(), expected.begin(), 0);
    CHECK(result == expected);
  };
  const auto logged = [&](const std::string& text, std::optional<clscan::log_level> level = std::nullopt) {
    std::lock_guard<std::mutex> lock(mutex);
    return std::any_of(events.begin(), events.end(), [&](const auto& event) {
      return event.second.find(text) != std::string::npos && (!level || event.first == *level);
    });
  };
  const auto all_events = [&] {
    std::lock_guard<std::mutex> lock(mutex);
    std::string text;
    for (const auto& [level, message] : events)
      text += std::string(clscan::to_string(level)) + ": " + message + "\n";
    return text;
  };

  scan_in_fresh_context();
  INFO("events of the first scan:\n" << all_events());
  CHECK(logged("disk cache: miss"));
  CHECK(logged("built program from source", clscan::log_level::info));
  CHECK(logged("disk cache: stored " + dir.path().string(), clscan::log_level::info));
  CHECK_FALSE(entries_in(dir.path()).empty());

  events.clear();
  scan_in_fresh_context();
  INFO("events of the second scan:\n" << all_events());
  CHECK(logged("disk cache: hit"));
  CHECK(logged("loaded cached program", clscan::log_level::info));
  CHECK_FALSE(logged("built program from source"));

  // A warning reaches the handler too.
  events.clear();
  for (const auto& name : entries_in(dir.path()))
    write_file(dir.path() / name, "garbage");
  scan_in_fresh_context();
  INFO("events of the scan over garbage entries:\n" << all_events());
  CHECK(logged("ignoring", clscan::log_level::warning));

  // After the handler is removed it receives nothing.
  clscan::set_log_handler({});
  events.clear();
  scan_in_fresh_context();
  CHECK(all_events().empty());
}
