// The disk cache across processes: clscan-cache-probe (CLSCAN_CACHE_PROBE) runs one scan in a fresh
// process and prints clscan's log events, so each case can check what a new process finds on disk.
// Every case works in its own temporary cache directory. The cases: cache_entries.cpp (entries stored,
// loaded, damaged, rejected; the tuning file), cache_directory.cpp (directories that cannot be used),
// cache_environment.cpp (the switches, concurrent processes, the log). This header holds their helpers.
#pragma once

#include "support/environment.hpp"
#include "support/files.hpp"
#include "support/process.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

// Header-only, as in lib/program/disk_cache.cpp: the tests compute entry checksums and names themselves.
#define XXH_INLINE_ALL
#include <xxhash.h>

#ifndef CLSCAN_CACHE_PROBE
#error "CLSCAN_CACHE_PROBE must name the clscan-cache-probe executable"
#endif

namespace clscan_test::cache {

namespace fs = std::filesystem;

using probe_result = child_result;

// Runs clscan-cache-probe with CLSCAN_CACHE_DIR = `cache_dir` (unset when empty) and the given extra
// variables (std::nullopt unsets one). CLSCAN_NO_CACHE is unset unless `extra` sets it. `launcher`
// (a program and its first arguments, such as setpriv's) runs the probe at `probe`.
inline probe_result run_probe(const std::string& cache_dir,
                              const std::map<std::string, std::optional<std::string>>& extra = {},
                              const std::vector<std::string>& launcher = {},
                              const std::string& probe = CLSCAN_CACHE_PROBE) {
  child_spec spec;
  spec.command = launcher;
  spec.command.push_back(probe);
  spec.env["CLSCAN_CACHE_DIR"] = cache_dir.empty() ? std::nullopt : std::optional<std::string>(cache_dir);
  spec.env["CLSCAN_NO_CACHE"] = std::nullopt;
  for (const auto& [name, value] : extra)
    spec.env[name] = value;
  const temp_dir output;
  return run_child(spec, output.path());
}

// Every file in `dir`, by name, but the single-pass qualification's verdict, which a scan on a GPU
// stores there (lib/dispatch/qualify.cpp; its file is tested by tests/cmake/qualify_check.cmake).
inline std::vector<std::string> cache_files(const fs::path& dir) {
  static const std::regex verdict("^qualified-[0-9a-f]{16}\\.txt$");
  std::vector<std::string> names = files_in(dir);
  names.erase(std::remove_if(names.begin(), names.end(),
                             [](const std::string& n) { return std::regex_match(n, verdict); }),
              names.end());
  return names;
}

inline std::vector<std::string> entries_in(const fs::path& dir) {
  std::vector<std::string> names = cache_files(dir);
  names.erase(
      std::remove_if(names.begin(), names.end(), [](const std::string& n) { return !is_entry_name(n); }),
      names.end());
  return names;
}

// The entries a first probe run writes into an empty directory, made once per process and copied
// into each case's own directory.
inline const std::map<std::string, std::string>& golden_entries() {
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

inline void install_golden(const fs::path& dir) {
  for (const auto& [name, bytes] : golden_entries())
    write_file(dir / name, bytes);
}

// Entry layout (lib/program/disk_cache.cpp): 8-byte magic, u64 format, u64 identity length, identity text,
// u64 binary length, u64 XXH3 of the binary, binary. Integers little-endian.
inline constexpr std::size_t identity_offset = 24;

inline std::uint64_t get_u64(const std::string& bytes, std::size_t at) {
  std::uint64_t value = 0;
  for (int byte = 7; byte >= 0; --byte)
    value = (value << 8) | static_cast<unsigned char>(bytes[at + byte]);
  return value;
}

inline void put_u64(std::string& bytes, std::size_t at, std::uint64_t value) {
  for (int byte = 0; byte < 8; ++byte)
    bytes[at + byte] = static_cast<char>((value >> (8 * byte)) & 0xff);
}

inline std::uint64_t xxh3(const std::string& bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

struct entry_parts {
  std::string identity;
  std::uint64_t binary_size = 0; // as recorded in the header
  std::uint64_t checksum = 0;    // as recorded in the header
  std::string binary;            // everything after the header
};

inline entry_parts parse_entry(const std::string& bytes) {
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
inline std::string with_binary(const std::string& entry, const std::string& binary) {
  const std::size_t at = identity_offset + get_u64(entry, 16);
  std::string made = entry.substr(0, at + 16) + binary;
  put_u64(made, at, binary.size());
  put_u64(made, at + 8, xxh3(binary));
  return made;
}

// The file name lib/program/disk_cache.cpp gives the entry of `identity`: the XXH3 of the device part (up to
// and including the "driver: " line), then that of the whole identity.
inline std::string entry_name_for(const std::string& identity) {
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

inline std::string pseudo_random_bytes(std::size_t size, std::uint32_t state) {
  std::string bytes(size, '\0');
  for (char& c : bytes) {
    state = state * 1664525u + 1013904223u;
    c = static_cast<char>(state >> 24);
  }
  return bytes;
}

// Every file in `dir` with its contents.
inline std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const std::string& name : cache_files(dir))
    files[name] = read_file(dir / name);
  return files;
}

} // namespace clscan_test::cache
