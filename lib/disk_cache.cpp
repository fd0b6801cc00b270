#include "disk_cache.hpp"

#include "log.hpp"

#include <clscan/cache.hpp>
#include <clscan/version.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace clscan::detail {
namespace {

// Entry layout: magic, format version, identity length, identity text, binary length, XXH3 of the
// binary, binary. Integers are 64-bit little-endian as written by this host.
constexpr char entry_magic[8] = {'C', 'L', 'S', 'C', 'A', 'N', 'B', 'N'};
constexpr std::uint64_t entry_format = 1;
constexpr std::uint64_t max_identity_size = 16u << 20;

std::string hex64(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::uint64_t hash_of(const std::string& text) { return XXH3_64bits(text.data(), text.size()); }

std::string entry_name(const binary_identity& id) {
  return hex64(hash_of(id.device_part)) + "-" + hex64(hash_of(id.device_part + id.program_part)) + ".clbin";
}

bool make_directories(const std::string& path) {
  for (std::size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    const std::string prefix = path.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

void put_u64(std::string& out, std::uint64_t value) {
  for (int byte = 0; byte < 8; ++byte)
    out.push_back(static_cast<char>((value >> (8 * byte)) & 0xff));
}

// An entry opened for reading: a regular file, read through its descriptor.
class entry_file {
public:
  entry_file() = default;
  entry_file(const entry_file&) = delete;
  entry_file& operator=(const entry_file&) = delete;
  ~entry_file() {
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

void log_cache(log_level level, const std::string& message) {
  if (log_enabled()) log(level, "disk cache: " + message);
}

} // namespace

binary_identity make_binary_identity(const device_capabilities& device, const std::string& source,
                                     const std::string& options) {
  binary_identity id;
  id.device_part = std::string("clscan ") + CLSCAN_VERSION_STRING + "\nplatform: " + device.platform_name +
                   "\nplatform version: " + device.platform_version + "\nvendor: " + device.vendor +
                   "\ndevice: " + device.name + "\ndevice version: " + device.version +
                   "\ndriver: " + device.driver_version + "\n";
  id.program_part = "options: " + options + "\nsource:\n" + source;
  return id;
}

std::string disk_cache_directory() {
  if (const char* off = std::getenv("CLSCAN_NO_CACHE"); off && *off && std::strcmp(off, "0") != 0) return {};
  if (const char* dir = std::getenv("CLSCAN_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/clscan";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/clscan";
  return {};
}

std::optional<std::vector<unsigned char>> load_binary(const binary_identity& id) {
  const std::string dir = disk_cache_directory();
  if (dir.empty()) return std::nullopt;
  const std::string path = dir + "/" + entry_name(id);
  const auto reject = [&](const std::string& why) {
    log_cache(log_level::warning, "ignoring " + path + ": " + why + "; rebuilding it");
    return std::nullopt;
  };
  entry_file in;
  if (const std::string failure = in.open(path); !failure.empty()) {
    if (failure == "missing") {
      log_cache(log_level::debug, "miss " + path);
      return std::nullopt;
    }
    // Not readable, or not a regular file (a directory, a FIFO that would block, a device): skipped.
    return reject(failure);
  }
  char magic[sizeof entry_magic];
  std::uint64_t format = 0, identity_size = 0;
  if (!in.read(magic, sizeof magic) || std::memcmp(magic, entry_magic, sizeof magic) != 0)
    return reject("not a clscan cache entry");
  if (!in.get_u64(format) || format != entry_format) return reject("another entry format");
  if (!in.get_u64(identity_size) || identity_size > max_identity_size) return reject("truncated header");
  std::string identity(identity_size, '\0');
  if (!in.read(identity.data(), identity_size)) return reject("truncated header");
  if (identity != id.device_part + id.program_part) return reject("written for another device or source");
  std::uint64_t binary_size = 0, checksum = 0;
  if (!in.get_u64(binary_size) || !in.get_u64(checksum)) return reject("truncated header");
  if (binary_size == 0 || binary_size > (std::uint64_t{1} << 32)) return reject("bad binary size");
  // Against the file's real length before allocating: a damaged size field must not cost gigabytes.
  if (in.size() < in.offset()) return reject("truncated header");
  const std::uint64_t rest = in.size() - in.offset();
  if (rest < binary_size) return reject("truncated binary");
  if (rest > binary_size) return reject("trailing bytes");
  std::vector<unsigned char> binary(binary_size);
  if (!in.read(binary.data(), binary.size())) return reject("truncated binary");
  // A file that grew after it was opened: not an entry as written (entries are renamed into place).
  unsigned char extra = 0;
  if (in.read(&extra, 1)) return reject("trailing bytes");
  if (XXH3_64bits(binary.data(), binary.size()) != checksum) return reject("checksum mismatch");
  log_cache(log_level::debug, "hit " + path);
  return binary;
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
  entry_file file;
  if (std::string why = file.open(path); !why.empty()) return why;
  if (file.size() > max_bytes) return "larger than " + std::to_string(max_bytes) + " bytes";
  contents.resize(static_cast<std::size_t>(file.size()));
  if (!file.read(contents.data(), contents.size())) {
    contents.clear();
    return "shorter than its size";
  }
  return {};
}

void store_binary(const binary_identity& id, const std::vector<unsigned char>& binary) {
  const std::string dir = disk_cache_directory();
  if (dir.empty() || binary.empty()) return;
  if (!make_directories(dir)) {
    log_cache(log_level::warning, "cannot create directory " + dir + "; keeping binaries in memory only");
    return;
  }
  std::string header(entry_magic, sizeof entry_magic);
  put_u64(header, entry_format);
  const std::string identity = id.device_part + id.program_part;
  put_u64(header, identity.size());
  header += identity;
  put_u64(header, binary.size());
  put_u64(header, XXH3_64bits(binary.data(), binary.size()));

  const std::string path = dir + "/" + entry_name(id);
  std::string contents = std::move(header);
  contents.append(reinterpret_cast<const char*>(binary.data()), binary.size());
  if (const std::string failure = replace_file(path, contents); !failure.empty()) {
    log_cache(log_level::warning, failure);
    return;
  }
  log_cache(log_level::info, "stored " + path);
}

bool make_cache_directory() {
  const std::string dir = disk_cache_directory();
  return !dir.empty() && make_directories(dir);
}

std::string device_stem(const device_capabilities& device) {
  return hex64(hash_of(make_binary_identity(device, {}, {}).device_part));
}

std::size_t count_device_entries(const device_capabilities& device) {
  const std::string dir = disk_cache_directory();
  if (dir.empty()) return 0;
  const std::string prefix = device_stem(device) + "-";
  std::size_t count = 0;
  if (DIR* handle = ::opendir(dir.c_str())) {
    while (const dirent* entry = ::readdir(handle)) {
      const std::string name = entry->d_name;
      if (name.rfind(prefix, 0) == 0 && name.size() > 6 && name.compare(name.size() - 6, 6, ".clbin") == 0)
        ++count;
    }
    ::closedir(handle);
  }
  return count;
}

} // namespace clscan::detail

namespace clscan {

std::string cache_directory() { return detail::disk_cache_directory(); }

std::size_t disk_cache_entries(const cl::Device& device) {
  return detail::count_device_entries(capabilities(device));
}

} // namespace clscan
