// Files for the disk-cache and fault tests: whole-file reads and writes, directory listings, and the
// names of disk-cache entries.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <system_error>
#include <vector>

namespace clscan_test {

// The whole file; empty when it cannot be read.
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

// The names of the files in `dir`, sorted; none when it cannot be read.
inline std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The file name of a disk-cache entry (lib/program/disk_cache.cpp): two 16-digit hashes, then ".clbin".
inline bool is_entry_name(const std::string& name) {
  static const std::regex pattern("^[0-9a-f]{16}-[0-9a-f]{16}\\.clbin$");
  return std::regex_match(name, pattern);
}

} // namespace clscan_test
