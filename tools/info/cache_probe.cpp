// clscan-info: the disk cache's state, probed by doing what the library will do there.
#include "info.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include <sys/stat.h>
#include <unistd.h>

namespace clscan_info {
const char* state_name(cache_state state) {
  switch (state) {
  case cache_state::off: return "off";
  case cache_state::missing: return "missing";
  case cache_state::not_writable: return "not_writable";
  case cache_state::writable: return "writable";
  }
  return "?";
}

namespace {

std::string errno_text(int code) { return std::error_code(code, std::generic_category()).message(); }

// Creates and removes a file in `dir`, or a directory where the cache directory itself is still to be
// made; empty when that worked, else why not. The leading dot keeps the probe out of entry counts.
std::string try_create(const std::string& dir, bool directory) {
  std::string name = dir + "/.clscan-info-probe-XXXXXX";
  if (directory) {
    if (!::mkdtemp(name.data())) return errno_text(errno);
    ::rmdir(name.c_str());
    return {};
  }
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return errno_text(errno);
  ::close(fd);
  ::unlink(name.c_str());
  return {};
}

} // namespace

cache_status probe_cache() {
  cache_status status;
  status.directory = clscan::cache_directory();
  status.bytes = clscan::disk_cache_bytes();
  try {
    status.limit = clscan::disk_cache_limit();
  } catch (const clscan::invalid_argument& e) {
    status.limit_error = e.what();
  }
  if (status.directory.empty()) {
    // The library's rule (lib/program/disk_cache.cpp), which does not say which case applies.
    const char* off = std::getenv("CLSCAN_NO_CACHE");
    status.reason = off && *off && std::strcmp(off, "0") != 0
                        ? std::string("CLSCAN_NO_CACHE=") + off
                        : "no directory: CLSCAN_CACHE_DIR, XDG_CACHE_HOME and HOME are unset";
    return status;
  }
  status.state = cache_state::not_writable;
  struct stat info {};
  if (::stat(status.directory.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) {
      status.reason = "not a directory";
    } else {
      const std::string why = try_create(status.directory, false);
      if (why.empty())
        status.state = cache_state::writable;
      else
        status.reason = "cannot create a file in it: " + why;
    }
    return status;
  }
  if (errno != ENOENT && errno != ENOTDIR) {
    status.reason = errno_text(errno);
    return status;
  }
  // The library creates the directory with its parents on the first store, which works when the
  // nearest existing ancestor takes a new directory.
  std::string ancestor = status.directory;
  bool found = false;
  while (!found && ancestor != "/" && ancestor != ".") {
    const std::size_t slash = ancestor.find_last_of('/');
    ancestor = slash == std::string::npos ? "." : slash == 0 ? "/" : ancestor.substr(0, slash);
    found = ::stat(ancestor.c_str(), &info) == 0;
  }
  if (!found) {
    status.reason = "no parent directory of it exists";
  } else if (!S_ISDIR(info.st_mode)) {
    status.reason = "cannot be created: " + ancestor + " is not a directory";
  } else if (const std::string why = try_create(ancestor, true); !why.empty()) {
    status.reason = "cannot be created in " + ancestor + ": " + why;
  } else {
    status.state = cache_state::missing;
  }
  return status;
}

std::string cache_size_text(const cache_status& cache) {
  const auto mib = [](std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    return std::string(text);
  };
  return std::to_string(cache.bytes) + " bytes (" + mib(cache.bytes) + ") of program entries, limit " +
         (cache.limit_error.empty() ? std::to_string(cache.limit) + " bytes (" + mib(cache.limit) + ")"
                                    : "invalid: " + cache.limit_error);
}

std::string cache_state_text(const cache_status& cache) {
  switch (cache.state) {
  case cache_state::off: return "off (" + cache.reason + ")";
  case cache_state::missing: return "missing (created on the first store)";
  case cache_state::not_writable: return "not writable: " + cache.reason + " (programs stay in memory only)";
  case cache_state::writable: return "writable";
  }
  return "?";
}

// The path of `device`'s tuning file, or an empty string when it has none (or the cache is off).
std::string existing_tuning_file(const cl::Device& device) {
  const std::string path = clscan::tuning_file(device);
  struct stat info {};
  return !path.empty() && ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) ? path : std::string();
}

} // namespace clscan_info
