// The disk cache's entries: stored by a first process, loaded by the next; damaged, foreign or
// rejected entries rebuilt and replaced; garbage in the tuning file (see cache.hpp).
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

namespace {

struct corruption {
  const char* name;
  const char* expected_reason; // the reason clscan logs
  std::string (*apply)(std::string bytes);
};

const corruption corruptions[] = {
    {"truncated in the header", "truncated header", [](std::string b) { return b.substr(0, 20); }},
    {"truncated in the identity", "truncated header",
     [](std::string b) { return b.substr(0, identity_offset + 10); }},
    {"truncated in the binary", "truncated binary", [](std::string b) { return b.substr(0, b.size() - 7); }},
    {"zero-length", "not a clscan cache entry", [](std::string) { return std::string(); }},
    {"garbage", "not a clscan cache entry",
     [](std::string b) {
       std::uint32_t state = 0x12345678u;
       for (char& c : b) {
         state = state * 1664525u + 1013904223u;
         c = static_cast<char>(state >> 24);
       }
       return b;
     }},
    {"wrong magic", "not a clscan cache entry",
     [](std::string b) {
       b[0] = 'X';
       return b;
     }},
    {"another entry format", "another entry format",
     [](std::string b) {
       put_u64(b, 8, get_u64(b, 8) + 1);
       return b;
     }},
    {"identity of another device", "written for another device",
     [](std::string b) {
       const std::size_t identity_size = get_u64(b, 16);
       const std::size_t at = b.find("\ndevice: ", identity_offset);
       REQUIRE(at != std::string::npos);
       REQUIRE(at < identity_offset + identity_size);
       char& first = b[at + 9]; // first character of the device name
       first = first == 'X' ? 'Y' : 'X';
       return b;
     }},
    {"flipped byte in the binary", "checksum mismatch",
     [](std::string b) {
       b[b.size() - 1] = static_cast<char>(b[b.size() - 1] ^ 0x5a);
       return b;
     }},
    {"trailing bytes", "trailing bytes", [](std::string b) { return b + "xyz"; }},
    {"absurd binary size", "bad binary size",
     [](std::string b) {
       const std::size_t at = identity_offset + get_u64(b, 16);
       put_u64(b, at, std::uint64_t{1} << 40);
       return b;
     }},
};

} // namespace

TEST_CASE("a first process builds and stores; a second process loads the stored binary", "[cache]") {
  temp_dir root;
  // A directory that does not exist yet, two levels deep: clscan creates it.
  const fs::path dir = root.path() / "nested" / "clscan";

  const probe_result first = run_probe(dir.string());
  INFO("first run:\n" << first.output);
  REQUIRE(first.ok());
  CHECK(first.has("disk cache: miss"));
  CHECK(first.has("built program from source"));
  CHECK(first.has("disk cache: stored"));
  CHECK_FALSE(first.has("loaded cached program"));
  CHECK_FALSE(first.has("warning"));

  const std::vector<std::string> files = cache_files(dir);
  REQUIRE_FALSE(files.empty());
  for (const std::string& name : files) {
    INFO("file " << name);
    CHECK(is_entry_name(name)); // no temporary files left behind
  }
  std::map<std::string, std::string> stored;
  for (const std::string& name : files)
    stored[name] = read_file(dir / name);

  const probe_result second = run_probe(dir.string());
  INFO("second run:\n" << second.output);
  REQUIRE(second.ok());
  CHECK(second.has("disk cache: hit"));
  CHECK(second.has("loaded cached program"));
  CHECK_FALSE(second.has("built program from source"));
  CHECK_FALSE(second.has("disk cache: stored"));
  CHECK_FALSE(second.has("ignoring"));
  CHECK(cache_files(dir) == files);
  for (const auto& [name, bytes] : stored)
    CHECK(read_file(dir / name) == bytes);
}

TEST_CASE("a damaged or foreign entry is ignored, rebuilt and replaced by a valid one", "[cache]") {
  for (const corruption& damage : corruptions) {
    DYNAMIC_SECTION(damage.name) {
      temp_dir dir;
      install_golden(dir.path());
      for (const auto& [name, bytes] : golden_entries())
        write_file(dir.path() / name, damage.apply(bytes));

      const probe_result repaired = run_probe(dir.path().string());
      INFO("run on the damaged entry:\n" << repaired.output);
      REQUIRE(repaired.ok());
      CHECK(repaired.has("ignoring"));
      CHECK(repaired.has("rebuilding"));
      CHECK(repaired.has(damage.expected_reason));
      CHECK(repaired.has("built program from source"));
      CHECK(repaired.has("disk cache: stored"));

      // The entry was replaced by a valid one under the same name, and nothing else was left behind.
      std::vector<std::string> golden_names;
      for (const auto& [name, bytes] : golden_entries())
        golden_names.push_back(name);
      CHECK(cache_files(dir.path()) == golden_names);
      for (const auto& [name, bytes] : golden_entries()) {
        const std::string now = read_file(dir.path() / name);
        CHECK(now.size() > identity_offset);
        CHECK(now.compare(0, 8, "CLSCANBN") == 0);
      }

      const probe_result after = run_probe(dir.path().string());
      INFO("run after the repair:\n" << after.output);
      REQUIRE(after.ok());
      CHECK(after.has("loaded cached program"));
      CHECK_FALSE(after.has("ignoring"));
      CHECK_FALSE(after.has("built program from source"));
    }
  }
}

TEST_CASE("an intact entry whose binary the driver rejects is rebuilt and replaced by a valid one",
          "[cache][driver-rejects-binary]") {
  temp_dir root;
  const fs::path dir = root.path() / "cache";
  fs::create_directory(dir);
  std::map<std::string, std::string> planted;
  for (const auto& [name, bytes] : golden_entries()) {
    const entry_parts golden = parse_entry(bytes);
    INFO("entry " << name);
    // The replacement goes where the library looks for it.
    REQUIRE(entry_name_for(golden.identity) == name);
    const std::string garbage = pseudo_random_bytes(golden.binary.size(), 0x5eed1234u);
    // Not even the start of a PoCL binary: PoCL 3.1 trusts a binary that begins with its own header
    // ("poclbin") and crashes in clCreateProgramWithBinary on what follows.
    REQUIRE(garbage.compare(0, 7, "poclbin") != 0);
    planted[name] = with_binary(bytes, garbage);
    write_file(dir / name, planted[name]);
  }

  const fs::path log_file = root.path() / "clscan.log";
  const probe_result repaired = run_probe(dir.string(), {{"CLSCAN_LOG", log_file.string()}});
  INFO("run on the rejected binary:\n" << repaired.output);
  REQUIRE(repaired.ok());
  // The entry itself is intact, so the disk cache hands it over and it is the driver that refuses it
  // (on PoCL in clCreateProgramWithBinary; other drivers may only fail its build).
  CHECK(repaired.has("disk cache: hit"));
  CHECK_FALSE(repaired.has("ignoring"));
  CHECK((repaired.has("log: warning: disk cache: driver rejected a cached binary") ||
         repaired.has("log: warning: disk cache: cached binary did not build")));
  CHECK(repaired.has("rebuilding"));
  CHECK(repaired.has("built program from source"));
  CHECK(repaired.has("disk cache: stored"));
  CHECK_FALSE(repaired.has("loaded cached program"));
  const std::string logged = read_file(log_file);
  INFO("CLSCAN_LOG file:\n" << logged);
  CHECK_THAT(logged, Contains("clscan warning: disk cache: ") && Contains("rebuilding"));
  CHECK_THAT(logged, Contains("clscan info: disk cache: stored " + dir.string()));

  std::vector<std::string> names;
  for (const auto& [name, bytes] : planted)
    names.push_back(name);
  CHECK(cache_files(dir) == names);
  for (const auto& [name, bytes] : planted) {
    INFO("entry " << name);
    const entry_parts now = parse_entry(read_file(dir / name));
    CHECK(now.identity == parse_entry(bytes).identity);
    CHECK(now.binary_size == now.binary.size());
    CHECK(now.checksum == xxh3(now.binary));
    CHECK(now.binary != parse_entry(bytes).binary);
  }

  const std::map<std::string, std::string> repaired_files = snapshot(dir);
  const probe_result after = run_probe(dir.string());
  INFO("run after the repair:\n" << after.output);
  REQUIRE(after.ok());
  CHECK(after.has("loaded cached program"));
  CHECK_FALSE(after.has("warning"));
  CHECK_FALSE(after.has("built program from source"));
  CHECK_FALSE(after.has("disk cache: stored"));
  CHECK(snapshot(dir) == repaired_files);
}

TEST_CASE("garbage in the tuning file leaves scans working and exact", "[cache]") {
  temp_dir root;
  const fs::path dir = root.path() / "cache";
  fs::create_directory(dir);
  fs::path tuning;
  {
    scoped_env cache("CLSCAN_CACHE_DIR", dir.string());
    scoped_env on("CLSCAN_NO_CACHE", std::nullopt);
    tuning = clscan::tuning_file(env().device);
  }
  REQUIRE(tuning.parent_path() == dir);
  const fs::path log_file = root.path() / "clscan.log";
  // More elements than one three-stage tile, so the automatic choice reads the three-stage and the
  // single-pass shape, and more than the 1 MiB small-input limit, so that on GPUs the single-pass one is the
  // large-input shape that a tuning file replaces.
  const std::map<std::string, std::optional<std::string>> extra = {{"CLSCAN_PROBE_N", "4200000"},
                                                                   {"CLSCAN_LOG", log_file.string()}};

  SECTION("lines for no algorithm and type") {
    const std::string junk = std::string("this is not a tuning line\n\n") + pseudo_random_bytes(300, 77u) +
                             "\nthree_stage\nsingle_pass int\n" + "three_stage float64 wg=\xff\n";
    write_file(tuning, junk);
    const probe_result result = run_probe(dir.string(), extra);
    INFO(result.output);
    CHECK(result.ok());
    CHECK_FALSE(result.has("error:"));
    CHECK(read_file(tuning) == junk);
  }
  SECTION("lines for the scan's algorithms that do not parse or do not fit the device") {
    const std::vector<std::string> bad = {
        "three_stage int wg=banana items=seven",
        "three_stage int wg=16 items=24 vec=16",    // items not a multiple of vec
        "three_stage int wg=16 items=131072 vec=4", // an 8 MiB tile in private memory
        "single_pass int wg=0 items=0 lookback=0",
        "single_pass int wg=1 items=8 vec=4 speed=11", // an unknown field
    };
    std::string text = "# written by hand\n";
    for (const std::string& line : bad)
      text += line + "\n";
    write_file(tuning, text);
    const probe_result result = run_probe(dir.string(), extra);
    INFO(result.output);
    CHECK(result.ok());
    CHECK_FALSE(result.has("error:"));
    const std::string logged = read_file(log_file);
    INFO("CLSCAN_LOG file:\n" << logged);
    std::istringstream lines(logged);
    std::vector<std::string> warnings;
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("clscan warning: ", 0) == 0) warnings.push_back(line);
    for (const std::string& line : bad) {
      INFO("tuning line: " << line);
      CHECK(std::any_of(warnings.begin(), warnings.end(), [&](const std::string& warning) {
        return warning.find(line) != std::string::npos && warning.find(tuning.string()) != std::string::npos;
      }));
    }
    CHECK(read_file(tuning) == text);
  }
}
