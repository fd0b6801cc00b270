// Files of the cache directory (program binaries, tuning, qualification verdicts): where it is, the
// one writer every file goes through, and readers that never block on what they find there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <system_error>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace clscan::detail {

// The directory in use (CLSCAN_CACHE_DIR, $XDG_CACHE_HOME/clscan or ~/.cache/clscan), or empty when
// CLSCAN_NO_CACHE=1 or no directory can be named. Read from the environment on each call.
std::string disk_cache_directory();

// Creates `path` and its parents; false when that fails or `path` is not a directory.
bool make_directories(const std::string& path);

// Creates the cache directory (and its parents); false when that fails or the cache is off.
bool make_cache_directory();

// Writes `contents` to a temporary file beside `path` and renames it over `path`, so that readers see
// the old file or the new one, never half of one. Empty on success, else the reason (for the log).
// The one writer of every file in the cache directory: binaries, tuning, qualification verdicts.
std::string replace_file(const std::string& path, const std::string& contents);

// Reads the regular file `path` of at most `max_bytes` into `contents` without ever blocking (a FIFO
// or a device with its name is refused, not waited on). Empty on success, "missing" when there is no
// such file, else the reason.
std::string read_small_file(const std::string& path, std::size_t max_bytes, std::string& contents);

// Largest tuning or verdict file read (a file of lines of a few dozen bytes each).
constexpr std::size_t max_small_file_bytes = 1 << 20;

// A file opened for reading: a regular file, read through its descriptor.
class readable_file {
public:
  readable_file() = default;
  readable_file(const readable_file&) = delete;
  readable_file& operator=(const readable_file&) = delete;
  ~readable_file() {
    if (fd_ >= 0) ::close(fd_);
  }

  // Opens `path` without ever blocking: O_NONBLOCK, so that a FIFO (or a device) with an entry's name
  // does not wait for a writer, then fstat on the descriptor itself (no race with a rename between a
  // stat and the open) and only a regular file is kept. Returns an empty string on success, else why
  // not: "missing" when there is no such file, else a reason for the log.
  std::string open(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0)
      return errno == ENOENT ? "missing" : std::error_code(errno, std::generic_category()).message();
    struct stat info {};
    if (::fstat(fd_, &info) != 0) return std::error_code(errno, std::generic_category()).message();
    if (!S_ISREG(info.st_mode)) {
      return S_ISDIR(info.st_mode)                            ? "a directory, not a regular file"
             : S_ISFIFO(info.st_mode)                         ? "a FIFO, not a regular file"
             : S_ISSOCK(info.st_mode)                         ? "a socket, not a regular file"
             : S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode) ? "a device, not a regular file"
                                                              : "not a regular file";
    }
    // Regular files ignore O_NONBLOCK; cleared all the same, so that reads are plain blocking reads.
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
    size_ = static_cast<std::uint64_t>(info.st_size);
    return {};
  }

  // Reads exactly `count` bytes; false at the end of the file or on an error.
  bool read(void* into, std::size_t count) {
    auto* out = static_cast<unsigned char*>(into);
    while (count > 0) {
      const ssize_t got = ::read(fd_, out, count);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      out += got;
      count -= static_cast<std::size_t>(got);
      offset_ += static_cast<std::uint64_t>(got);
    }
    return true;
  }

  bool get_u64(std::uint64_t& value) {
    unsigned char bytes[8];
    if (!read(bytes, sizeof bytes)) return false;
    value = 0;
    for (int byte = 7; byte >= 0; --byte)
      value = (value << 8) | bytes[byte];
    return true;
  }

  std::uint64_t size() const { return size_; }     // at open
  std::uint64_t offset() const { return offset_; } // bytes read so far

private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t offset_ = 0;
};

} // namespace clscan::detail
