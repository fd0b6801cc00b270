// The disk cache across processes: clscan-cache-probe (CLSCAN_CACHE_PROBE) runs one scan in a fresh
// process and prints clscan's log events, so each case can check what a new process finds on disk.
// Every case works in its own temporary cache directory.
#include "test_support.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

// Header-only, as in lib/disk_cache.cpp: the tests compute entry checksums and names themselves.
#define XXH_INLINE_ALL
#include <xxhash.h>

#ifndef CLSCAN_CACHE_PROBE
#error "CLSCAN_CACHE_PROBE must name the clscan-cache-probe executable"
#endif

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using clscan_test::env;

using clscan_test::scoped_env;
using clscan_test::temp_dir;

namespace {

struct probe_result {
  int exit_code = -1;
  std::string output;
  bool ok() const { return exit_code == 0 && output.find("result: ok") != std::string::npos; }
  bool has(const std::string& text) const { return output.find(text) != std::string::npos; }
};

// Runs clscan-cache-probe with CLSCAN_CACHE_DIR = `cache_dir` (unset when empty) and the given extra
// variables (std::nullopt unsets one). CLSCAN_NO_CACHE is unset unless `extra` sets it. `launcher`
// (a command line prefix, such as setpriv's) runs the probe at `probe`.
probe_result run_probe(const std::string& cache_dir,
                       const std::map<std::string, std::optional<std::string>>& extra = {},
                       const std::string& launcher = {}, const std::string& probe = CLSCAN_CACHE_PROBE) {
  std::vector<std::unique_ptr<scoped_env>> scope;
  scope.push_back(std::make_unique<scoped_env>(
      "CLSCAN_CACHE_DIR", cache_dir.empty() ? std::nullopt : std::optional<std::string>(cache_dir)));
  if (!extra.count("CLSCAN_NO_CACHE"))
    scope.push_back(std::make_unique<scoped_env>("CLSCAN_NO_CACHE", std::nullopt));
  for (const auto& [name, value] : extra)
    scope.push_back(std::make_unique<scoped_env>(name, value));

  probe_result result;
  const std::string command = launcher + "'" + probe + "' 2>&1 </dev/null";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char chunk[4096];
  std::size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof chunk, pipe)) > 0)
    result.output.append(chunk, got);
  const int status = ::pclose(pipe);
  result.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return result;
}

bool is_entry_name(const std::string& name) {
  static const std::regex pattern("^[0-9a-f]{16}-[0-9a-f]{16}\\.clbin$");
  return std::regex_match(name, pattern);
}

// Every file in `dir`, by name, but the single-pass qualification's verdict, which a scan on a GPU
// stores there (lib/qualify.cpp; its file is tested by tests/qualify_check.cmake).
std::vector<std::string> files_in(const fs::path& dir) {
  static const std::regex verdict("^qualified-[0-9a-f]{16}\\.txt$");
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    if (!std::regex_match(it->path().filename().string(), verdict))
      names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> entries_in(const fs::path& dir) {
  std::vector<std::string> names = files_in(dir);
  names.erase(
      std::remove_if(names.begin(), names.end(), [](const std::string& n) { return !is_entry_name(n); }),
      names.end());
  return names;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

// The entries a first probe run writes into an empty directory, made once per process and copied
// into each case's own directory.
const std::map<std::string, std::string>& golden_entries() {
  static const std::map<std::string, std::string> entries = [] {
    temp_dir dir;
    const probe_result first = run_probe(dir.path().string());
    INFO(first.output);
    REQUIRE(first.ok());
    std::map<std::string, std::string> made;
    for (const std::string& name : entries_in(dir.path()))
      made[name] = read_file(dir.path() / name);
    REQUIRE_FALSE(made.empty());
    return made;
  }();
  return entries;
}

void install_golden(const fs::path& dir) {
  for (const auto& [name, bytes] : golden_entries())
    write_file(dir / name, bytes);
}

// Entry layout (lib/disk_cache.cpp): 8-byte magic, u64 format, u64 identity length, identity text,
// u64 binary length, u64 XXH3 of the binary, binary. Integers little-endian.
constexpr std::size_t identity_offset = 24;

std::uint64_t get_u64(const std::string& bytes, std::size_t at) {
  std::uint64_t value = 0;
  for (int byte = 7; byte >= 0; --byte)
    value = (value << 8) | static_cast<unsigned char>(bytes[at + byte]);
  return value;
}

void put_u64(std::string& bytes, std::size_t at, std::uint64_t value) {
  for (int byte = 0; byte < 8; ++byte)
    bytes[at + byte] = static_cast<char>((value >> (8 * byte)) & 0xff);
}

std::uint64_t xxh3(const std::string& bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

struct entry_parts {
  std::string identity;
  std::uint64_t binary_size = 0; // as recorded in the header
  std::uint64_t checksum = 0;    // as recorded in the header
  std::string binary;            // everything after the header
};

entry_parts parse_entry(const std::string& bytes) {
  REQUIRE(bytes.size() >= identity_offset);
  const std::size_t identity_size = get_u64(bytes, 16);
  REQUIRE(bytes.size() >= identity_offset + identity_size + 16);
  const std::size_t at = identity_offset + identity_size;
  entry_parts parts;
  parts.identity = bytes.substr(identity_offset, identity_size);
  parts.binary_size = get_u64(bytes, at);
  parts.checksum = get_u64(bytes, at + 8);
  parts.binary = bytes.substr(at + 16);
  return parts;
}

// `entry` holding `binary` instead, with its length and checksum to match: an entry the disk cache
// accepts whatever the binary is.
std::string with_binary(const std::string& entry, const std::string& binary) {
  const std::size_t at = identity_offset + get_u64(entry, 16);
  std::string made = entry.substr(0, at + 16) + binary;
  put_u64(made, at, binary.size());
  put_u64(made, at + 8, xxh3(binary));
  return made;
}

// The file name lib/disk_cache.cpp gives the entry of `identity`: the XXH3 of the device part (up to
// and including the "driver: " line), then that of the whole identity.
std::string entry_name_for(const std::string& identity) {
  const std::size_t driver = identity.find("\ndriver: ");
  REQUIRE(driver != std::string::npos);
  const std::size_t end = identity.find('\n', driver + 1);
  REQUIRE(end != std::string::npos);
  REQUIRE(identity.compare(end + 1, 9, "options: ") == 0);
  char name[64];
  std::snprintf(name, sizeof name, "%016llx-%016llx.clbin",
                static_cast<unsigned long long>(xxh3(identity.substr(0, end + 1))),
                static_cast<unsigned long long>(xxh3(identity)));
  return name;
}

std::string pseudo_random_bytes(std::size_t size, std::uint32_t state) {
  std::string bytes(size, '\0');
  for (char& c : bytes) {
    state = state * 1664525u + 1013904223u;
    c = static_cast<char>(state >> 24);
  }
  return bytes;
}

// Every file in `dir` with its contents.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const std::string& name : files_in(dir))
    files[name] = read_file(dir / name);
  return files;
}

// setpriv (util-linux) runs a command as another user, without supplementary groups.
constexpr const char* setpriv_path = "/usr/bin/setpriv";
constexpr unsigned nobody_id = 65534;

std::string as_nobody() {
  return std::string(setpriv_path) + " --reuid=" + std::to_string(nobody_id) +
         " --regid=" + std::to_string(nobody_id) + " --clear-groups ";
}

// The sanitizer options of this process (ASAN_OPTIONS, LSAN_OPTIONS, ...) for a child that runs as
// user nobody: each suppressions=<file> points at a copy in `dir` (readable by everyone) instead.
// The originals live in the checkout (tests/lsan.supp), which nobody cannot read when the checkout
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

  const std::vector<std::string> files = files_in(dir);
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
  CHECK(files_in(dir) == files);
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
      CHECK(files_in(dir.path()) == golden_names);
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
  const std::string bounded = std::string(timeout_path) + " -k 10 120 ";
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
  std::string launcher;
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
    if (std::system((launcher + "/usr/bin/test -x '" + probe + "'").c_str()) != 0) {
      const fs::path copy = root.path() / "clscan-cache-probe";
      fs::copy_file(probe, copy);
      probe = copy.string();
    }
    INFO("user nobody must be able to run " << probe << " and write to " << home);
    REQUIRE(std::system(
                (launcher + "/usr/bin/test -x '" + probe + "' -a -w '" + home.string() + "'").c_str()) == 0);
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
    CHECK(files_in(dir).empty());
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
  CHECK(files_in(dir) == names);
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
  // single-pass shape, and more than 16 MiB, so that on GPUs the single-pass one is the large-input
  // shape that a tuning file replaces.
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

TEST_CASE("CLSCAN_NO_CACHE=1 turns the disk cache off", "[cache]") {
  temp_dir root;
  const fs::path dir = root.path() / "never-created";

  const probe_result result = run_probe(dir.string(), {{"CLSCAN_NO_CACHE", "1"}});
  INFO(result.output);
  REQUIRE(result.ok());
  CHECK(result.has("built program from source"));
  CHECK_FALSE(result.has("disk cache"));
  CHECK_FALSE(fs::exists(dir));
  CHECK(files_in(root.path()).empty());

  SECTION("also when the directory exists and holds valid entries") {
    fs::create_directory(dir);
    install_golden(dir);
    const auto before = files_in(dir);
    const probe_result again = run_probe(dir.string(), {{"CLSCAN_NO_CACHE", "1"}});
    INFO(again.output);
    REQUIRE(again.ok());
    CHECK_FALSE(again.has("loaded cached program"));
    CHECK(files_in(dir) == before);
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
  const std::string probe = std::string("'") + CLSCAN_CACHE_PROBE + "'";
  std::string command = "fail=0; ";
  for (int i = 0; i < 4; ++i)
    command += probe + " >/dev/null 2>&1 & p" + std::to_string(i) + "=$!; ";
  for (int i = 0; i < 4; ++i)
    command += "wait $p" + std::to_string(i) + " || fail=1; ";
  command += "exit $fail";
  CHECK(std::system(command.c_str()) == 0); // std::system runs /bin/sh -c

  for (const std::string& name : files_in(dir.path())) {
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
