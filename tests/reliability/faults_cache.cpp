// Faults of the disk cache: a full disk (ENOSPC) under it, and eight processes starting together on
// an empty one; with the child both run ("scans of several variants").
#include "faults_scan.hpp"

#include <catch2/catch.hpp>

#include "support/files.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using namespace clscan_test;

namespace {

// The scans of the disk-cache children: several program variants (both algorithms, two element types,
// aligned and unaligned offsets).
std::vector<std::string> run_variant_scans(const cl::Context& context, const cl::CommandQueue& queue) {
  using clscan::algorithm;
  std::vector<std::string> problems;
  const auto add = [&](std::string problem) {
    if (!problem.empty()) problems.push_back(std::move(problem));
  };
  scan_spec s;
  s.algo = algorithm::three_stage, s.n = 3000, s.seed = 11;
  add(checked_scan<cl_int>(context, queue, s));
  s = {}, s.algo = algorithm::single_pass, s.n = 50000, s.in_place = true, s.seed = 12;
  add(checked_scan<cl_int>(context, queue, s));
  s = {}, s.algo = algorithm::three_stage, s.operation = clscan::op::max, s.n = 10000, s.in_offset = 1,
  s.out_offset = 3, s.kind = clscan::scan_kind::exclusive, s.seed = 13;
  add(checked_scan<cl_long>(context, queue, s));
  s = {}, s.algo = algorithm::automatic, s.operation = clscan::op::bit_xor, s.n = 70001, s.seed = 14;
  add(checked_scan<cl_uint>(context, queue, s));
  return problems;
}

} // namespace

// With CLSCAN_FAULTS_FULL_DISK=<entry name>,<entry name>,...: the disk is full for those cache
// entries. clscan writes an entry to "<entry>.tmp.<pid>.<sequence>" and renames it; this child makes
// each such name (sequence 0..31) a symbolic link to /dev/full first, so that clscan's writes of those
// entries fail with ENOSPC, as on a full disk. Links clscan did not consume are removed at the end;
// "full-disk writes: <n>" says how many it did consume (tried to write and removed).
TEST_CASE("faults child: scans of several variants", "[.faults-child]") {
  print_log_events logging;
  std::vector<fs::path> links;
  if (const char* names = std::getenv("CLSCAN_FAULTS_FULL_DISK"); names && *names) {
    const fs::path dir = clscan::cache_directory();
    fs::create_directories(dir);
    std::string list = names;
    for (std::size_t pos = 0; pos < list.size();) {
      const std::size_t end = std::min(list.find(',', pos), list.size());
      const std::string entry = list.substr(pos, end - pos);
      for (int sequence = 0; sequence < 32; ++sequence) {
        const fs::path link =
            dir / (entry + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(sequence));
        fs::create_symlink("/dev/full", link);
        links.push_back(link);
      }
      pos = end + 1;
    }
  }
  const cl::Device device = clscan::select_device();
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  const std::vector<std::string> problems = run_variant_scans(context, queue);
  if (!links.empty()) {
    std::size_t consumed = 0;
    for (const fs::path& link : links) {
      std::error_code error;
      if (fs::is_symlink(fs::symlink_status(link, error)))
        fs::remove(link, error);
      else
        ++consumed;
    }
    std::cout << "full-disk writes: " << consumed << std::endl;
  }
  for (const auto& p : problems)
    std::cout << "problem: " << p << "\n";
  child_verdict(problems.empty());
}

TEST_CASE("faults: a full disk under the cache leaves scans correct and no partial entry", "[faults]") {
  // How the disk gets full: RLIMIT_FSIZE cannot do it on PoCL, which writes the preprocessed program
  // (about 1 MB) into its own kernel cache on every clBuildProgram, even when it has the program
  // cached; any limit small enough to fail clscan's entries (130..330 KB here) fails PoCL's builds
  // first. So the child process links clscan's temporary file names for some entries to /dev/full
  // (see "faults child: scans of several variants"): their writes fail with ENOSPC, the errno of a
  // full disk, while the rest of the file system works.
  temp_dir work;
  const fs::path names_dir = work.path() / "names", dir = work.path() / "cache";
  child_spec spec = faults_child("faults child: scans of several variants");
  spec.env["CLSCAN_NO_CACHE"] = std::nullopt;
  // The single-pass qualification stores a file of its own (qualified-*.txt) and is tested in
  // [qualify]; here only program entries may appear.
  spec.env["CLSCAN_QUALIFY"] = std::string("0");

  // A first run in another directory gives the names of the entries (they do not depend on the
  // directory).
  spec.env["CLSCAN_CACHE_DIR"] = names_dir.string();
  const child_result first = run_child(spec, work.path());
  INFO("run that learns the entry names:\n" << first.output);
  REQUIRE(first.ok());
  std::vector<std::string> names;
  for (const std::string& name : files_in(names_dir))
    if (is_entry_name(name)) names.push_back(name);
  REQUIRE(names.size() >= 2);
  // The disk is full for every other entry; the others are written normally.
  std::vector<std::string> full, written;
  std::string full_list;
  for (std::size_t i = 0; i < names.size(); ++i) {
    (i % 2 == 0 ? full : written).push_back(names[i]);
    if (i % 2 == 0) full_list += (full_list.empty() ? "" : ",") + names[i];
  }

  spec.env["CLSCAN_CACHE_DIR"] = dir.string();
  spec.env["CLSCAN_FAULTS_FULL_DISK"] = full_list;
  const child_result limited = run_child(spec, work.path());
  INFO("run with a full disk for " << full.size() << " of " << names.size() << " entries:\n"
                                   << limited.output);
  CHECK(limited.ok());
  CHECK(limited.has("full-disk writes: " + std::to_string(full.size())));
  CHECK(limited.has("warning: disk cache: cannot write"));
  CHECK(limited.has("No space left on device"));
  std::map<std::string, std::string> kept;
  for (const std::string& name : files_in(dir)) {
    INFO("file left in the cache directory: " << name);
    CHECK(name.find(".tmp.") == std::string::npos); // no partial temporary file
    CHECK(is_entry_name(name));
    CHECK(std::find(full.begin(), full.end(), name) == full.end()); // no partial entry
    kept[name] = read_file(dir / name);
  }
  CHECK(kept.size() == written.size());

  // With space again: the entries written before load (not reported, not rebuilt), the missing ones
  // are built and stored.
  spec.env["CLSCAN_FAULTS_FULL_DISK"] = std::nullopt;
  const child_result unlimited = run_child(spec, work.path());
  INFO("run with space again:\n" << unlimited.output);
  CHECK(unlimited.ok());
  CHECK(unlimited.has("loaded cached program"));
  CHECK(unlimited.has("disk cache: stored"));
  CHECK_FALSE(unlimited.has("ignoring"));
  CHECK_FALSE(unlimited.has("warning"));
  for (const auto& [name, bytes] : kept) {
    INFO("entry " << name << " written by the run with the full disk");
    CHECK(read_file(dir / name) == bytes);
  }
  CHECK(files_in(dir) == names);

  // And now everything is in the cache.
  const child_result cached = run_child(spec, work.path());
  INFO("run on the filled cache:\n" << cached.output);
  CHECK(cached.ok());
  CHECK(cached.has("loaded cached program"));
  CHECK_FALSE(cached.has("built program from source"));
  CHECK_FALSE(cached.has("ignoring"));
}

TEST_CASE("faults: eight processes starting together on an empty cache all succeed", "[faults]") {
  temp_dir work;
  const fs::path dir = work.path() / "cache";
  child_spec spec = faults_child("faults child: scans of several variants");
  spec.env["CLSCAN_NO_CACHE"] = std::nullopt;
  // The single-pass qualification stores a file of its own (qualified-*.txt) and is tested in
  // [qualify]; here only program entries may appear.
  spec.env["CLSCAN_QUALIFY"] = std::string("0");
  spec.env["CLSCAN_CACHE_DIR"] = dir.string();
  std::vector<running_child> children;
  for (int i = 0; i < 8; ++i)
    children.push_back(start_child(spec, work.path() / ("process-" + std::to_string(i) + ".out")));
  std::size_t built = 0;
  for (std::size_t i = 0; i < children.size(); ++i) {
    const child_result result = finish_child(children[i]);
    INFO("process " << i << ":\n" << result.output);
    CHECK(result.ok());
    CHECK_FALSE(result.has("ignoring"));
    if (result.has("built program from source")) ++built;
  }
  CHECK(built >= 1);
  const std::vector<std::string> files = files_in(dir);
  CHECK_FALSE(files.empty());
  for (const std::string& name : files) {
    INFO("file " << name);
    CHECK(is_entry_name(name));
  }
  const child_result after = run_child(spec, work.path());
  INFO("a following process:\n" << after.output);
  CHECK(after.ok());
  CHECK(after.has("loaded cached program"));
  CHECK_FALSE(after.has("built program from source"));
  CHECK_FALSE(after.has("ignoring"));
  CHECK_FALSE(after.has("stored"));
  CHECK(files_in(dir) == files);
}
