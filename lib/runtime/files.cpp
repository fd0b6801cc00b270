// The cache directory's files: the one writer (replace_file) and the non-blocking readers.
#include "files.hpp"

#include "settings.hpp"

#include <atomic>
#include <cerrno>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace clscan::detail {

bool make_directories(const std::string& path) {
  for (std::size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    const std::string prefix = path.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string disk_cache_directory() { return cache_directory_setting(); }

bool make_cache_directory() {
  const std::string dir = disk_cache_directory();
  return !dir.empty() && make_directories(dir);
}

std::string replace_file(const std::string& path, const std::string& contents) {
  // A name no other writer uses (process and a per-process sequence), renamed over `path` when whole.
  static std::atomic<unsigned> sequence{0};
  const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(sequence++);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0)
    return "cannot write " + temp + ": " + std::error_code(errno, std::generic_category()).message();
  // The first failing call's errno is the reason; later calls may overwrite it.
  int failure = 0;
  const char* data = contents.data();
  std::size_t left = contents.size();
  while (left > 0 && !failure) {
    const ssize_t wrote = ::write(fd, data, left);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0)
      failure = wrote < 0 && errno ? errno : EIO;
    else
      data += wrote, left -= static_cast<std::size_t>(wrote);
  }
  if (::close(fd) != 0 && !failure) failure = errno ? errno : EIO;
  if (!failure && std::rename(temp.c_str(), path.c_str()) != 0) failure = errno ? errno : EIO;
  if (failure) {
    std::remove(temp.c_str());
    return "cannot write " + path + ": " + std::error_code(failure, std::generic_category()).message();
  }
  return {};
}

std::string read_small_file(const std::string& path, std::size_t max_bytes, std::string& contents) {
  contents.clear();
  readable_file file;
  if (std::string why = file.open(path); !why.empty()) return why;
  if (file.size() > max_bytes) return "larger than " + std::to_string(max_bytes) + " bytes";
  contents.resize(static_cast<std::size_t>(file.size()));
  if (!file.read(contents.data(), contents.size())) {
    contents.clear();
    return "shorter than its size";
  }
  return {};
}

} // namespace clscan::detail
