// Cache directories clscan cannot use as they are: not creatable or writable, entries that are not
// regular files, a read-only directory (see cache.hpp).
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

// setpriv (util-linux) runs a command as another user, without supplementary groups.
constexpr const char* setpriv_path = "/usr/bin/setpriv";
constexpr unsigned nobody_id = 65534;

std::vector<std::string> as_nobody() {
  return {setpriv_path, "--reuid=" + std::to_string(nobody_id), "--regid=" + std::to_string(nobody_id),
          "--clear-groups"};
}

// The exit status of `command` run by `launcher`.
int exit_status(std::vector<std::string> launcher, const std::vector<std::string>& command) {
  child_spec spec;
  spec.command = std::move(launcher);
  spec.command.insert(spec.command.end(), command.begin(), command.end());
  const temp_dir output;
  return run_child(spec, output.path()).exit_code;
}

// The sanitizer options of this process (ASAN_OPTIONS, LSAN_OPTIONS, ...) for a child that runs as
// user nobody: each suppressions=<file> points at a copy in `dir` (readable by everyone) instead.
// The originals live in the checkout (tests/cmake/lsan.supp), which nobody cannot read when the checkout
// is under /root (mode 0700), and a sanitizer that cannot read its suppressions ends the process.
std::map<std::string, std::optional<std::string>> sanitizer_options_for_nobody(const fs::path& dir) {
  std::map<std::string, std::optional<std::string>> options;
  for (const char* name : {"ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS", "MSAN_OPTIONS"}) {
    const char* value = std::getenv(name);
    if (!value) continue;
    // Colon-separated name=value pairs.
    std::string rewritten;
    std::stringstream fields{std::string(value)};
    for (std::string field; std::getline(fields, field, ':');) {
      const std::string key = "suppressions=";
      if (field.compare(0, key.size(), key) == 0 && field.size() > key.size()) {
        const fs::path copy = dir / (std::string(name) + ".supp");
        fs::copy_file(field.substr(key.size()), copy, fs::copy_options::overwrite_existing);
        fs::permissions(copy, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                  fs::perms::others_read);
        field = key + copy.string();
      }
      rewritten += (rewritten.empty() ? "" : ":") + field;
    }
    options[name] = rewritten;
  }
  return options;
}

} // namespace

TEST_CASE("a cache directory that cannot be created or written leaves clscan working", "[cache]") {
  temp_dir root;
  const fs::path file = root.path() / "a-regular-file";
  write_file(file, "not a directory\n");

  SECTION("the directory would be under a regular file") {
    const probe_result result = run_probe((file / "sub").string());
    INFO(result.output);
    CHECK(result.ok());
    CHECK(result.has("log: warning: disk cache: cannot create directory"));
    CHECK(result.has("built program from source"));
    CHECK_FALSE(result.has("disk cache: stored"));
  }
  SECTION("the directory is a regular file") {
    const probe_result result = run_probe(file.string());
    INFO(result.output);
    CHECK(result.ok());
    CHECK(result.has("log: warning: disk cache: cannot create directory"));
    CHECK_FALSE(result.has("disk cache: stored"));
  }
  CHECK(read_file(file) == "not a directory\n");
}

// Something other than a regular file with the name of an entry the scan looks up: skipped with a
// log line and rebuilt, never waited on. Opening a FIFO for reading blocks until a writer comes, so
// the probe runs under timeout(1): a regression fails after two minutes instead of hanging the test.
TEST_CASE("a FIFO, a directory or a device with an entry's name is skipped, never waited on", "[cache]") {
  constexpr const char* timeout_path = "/usr/bin/timeout";
  if (::access(timeout_path, X_OK) != 0)
    FAIL(timeout_path << " not found: it bounds the probe's time (Debian: coreutils)");
  const std::vector<std::string> bounded = {timeout_path, "-k", "10", "120"};
  struct kind {
    const char* name;
    const char* reason; // what clscan logs
    bool replaced;      // the name holds a valid entry afterwards (rename replaces all but a directory)
    void (*make)(const fs::path& at, const fs::path& dir);
  };
  static int fifos = 0;
  const kind kinds[] = {
      {"a FIFO", "a FIFO, not a regular file", true,
       [](const fs::path& at, const fs::path&) { REQUIRE(::mkfifo(at.c_str(), 0644) == 0); }},
      {"a symbolic link to a FIFO", "a FIFO, not a regular file", true,
       [](const fs::path& at, const fs::path& dir) {
         const fs::path fifo = dir / ("fifo-" + std::to_string(fifos++));
         REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
         fs::create_symlink(fifo, at);
       }},
      {"a directory", "a directory, not a regular file", false,
       [](const fs::path& at, const fs::path&) { fs::create_directory(at); }},
      {"a symbolic link to /dev/zero", "a device, not a regular file", true,
       [](const fs::path& at, const fs::path&) { fs::create_symlink("/dev/zero", at); }},
  };
  for (const kind& k : kinds) {
    DYNAMIC_SECTION(k.name) {
      temp_dir root;
      const fs::path dir = root.path() / "cache";
      const fs::path elsewhere = root.path() / "elsewhere";
      fs::create_directory(dir);
      fs::create_directory(elsewhere);
      for (const auto& [name, bytes] : golden_entries())
        k.make(dir / name, elsewhere);

      const probe_result result = run_probe(dir.string(), {}, bounded);
      INFO("probe run:\n" << result.output);
      if (result.exit_code == 124 || result.exit_code == 128 + 9)
        FAIL("the probe was still running after 120 s: it waited on " << k.name);
      REQUIRE(result.ok());
      CHECK(result.has("log: warning: disk cache: ignoring " + dir.string()));
      CHECK(result.has(k.reason));
      CHECK(result.has("built program from source"));
      for (const auto& [name, bytes] : golden_entries()) {
        INFO("entry " << name);
        const fs::file_status status = fs::symlink_status(dir / name);
        if (k.replaced)
          CHECK(fs::is_regular_file(status));
        else
          CHECK(fs::is_directory(status));
      }
      if (k.replaced) {
        const probe_result after = run_probe(dir.string(), {}, bounded);
        INFO("run after the replacement:\n" << after.output);
        REQUIRE(after.ok());
        CHECK(after.has("loaded cached program"));
        CHECK_FALSE(after.has("ignoring"));
      } else {
        CHECK(result.has("log: warning: disk cache: cannot write"));
      }
    }
  }
}

TEST_CASE("a read-only cache directory is only read: scans work and nothing is written", "[cache]") {
  temp_dir root;
  std::vector<std::string> launcher;
  std::string probe = CLSCAN_CACHE_PROBE;
  std::map<std::string, std::optional<std::string>> extra;
  const bool as_root = ::geteuid() == 0;
  if (as_root) {
    // Root writes through any mode bits (and CI runs as root), so the probe runs as user nobody.
    if (::access(setpriv_path, X_OK) != 0)
      FAIL(setpriv_path << " not found: it runs the probe without root's rights (Debian: util-linux)");
    // mkdtemp made the directory 0700; nobody has to reach the cache directory inside it.
    fs::permissions(root.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                     fs::perms::others_read | fs::perms::others_exec);
    // PoCL compiles kernels into its own cache (POCL_CACHE_DIR, else under XDG_CACHE_HOME or HOME)
    // and loads them from there, so nobody needs one it can write.
    const fs::path home = root.path() / "nobody-home";
    fs::create_directory(home);
    REQUIRE(::chown(home.c_str(), nobody_id, nobody_id) == 0);
    extra = sanitizer_options_for_nobody(root.path());
    extra.insert({{"HOME", home.string()},
                  {"XDG_CACHE_HOME", (home / ".cache").string()},
                  {"POCL_CACHE_DIR", (home / "pocl").string()},
                  {"TMPDIR", home.string()}});
    launcher = as_nobody();
    // A build tree that nobody cannot reach (a clone under /root): run a copy of the probe (clscan
    // is linked into it) from the temporary directory instead.
    if (exit_status(launcher, {"/usr/bin/test", "-x", probe}) != 0) {
      const fs::path copy = root.path() / "clscan-cache-probe";
      fs::copy_file(probe, copy);
      probe = copy.string();
    }
    INFO("user nobody must be able to run " << probe << " and write to " << home);
    REQUIRE(exit_status(launcher, {"/usr/bin/test", "-x", probe, "-a", "-w", home.string()}) == 0);
  }
  const fs::path dir = root.path() / "read-only";
  fs::create_directory(dir);
  // Put back the write permission at the end, so that the temporary directory can be removed.
  struct writable_again {
    fs::path dir;
    ~writable_again() {
      std::error_code ignored;
      fs::permissions(dir, fs::perms::owner_write, fs::perm_options::add, ignored);
    }
  } restore{dir};
  const auto make_read_only = [&] {
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                             fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  };
  const std::string user = "euid: " + std::to_string(as_root ? nobody_id : ::geteuid());

  SECTION("an empty directory: programs are built and kept in memory only") {
    make_read_only();
    const probe_result result = run_probe(dir.string(), extra, launcher, probe);
    INFO(result.output);
    REQUIRE(result.has(user));
    CHECK(result.ok());
    CHECK(result.has("disk cache: miss"));
    CHECK(result.has("built program from source"));
    CHECK(result.has("log: warning: disk cache: cannot write"));
    CHECK(result.has("Permission denied"));
    CHECK_FALSE(result.has("disk cache: stored"));
    CHECK(cache_files(dir).empty());
  }
  SECTION("a directory holding entries written before: they are loaded, not rebuilt") {
    install_golden(dir);
    make_read_only();
    const std::map<std::string, std::string> before = snapshot(dir);
    const probe_result result = run_probe(dir.string(), extra, launcher, probe);
    INFO(result.output);
    REQUIRE(result.has(user));
    CHECK(result.ok());
    CHECK(result.has("disk cache: hit"));
    CHECK(result.has("loaded cached program"));
    CHECK_FALSE(result.has("built program from source"));
    CHECK_FALSE(result.has("warning"));
    CHECK_FALSE(result.has("disk cache: stored"));
    CHECK(snapshot(dir) == before);
  }
}
