#include "disk_cache.hpp"

#include "files.hpp"

#include "log.hpp"
#include "settings.hpp"

#include <clscan/cache.hpp>
#include <clscan/error.hpp>
#include <clscan/version.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string_view>
#include <system_error>
#include <vector>

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

void put_u64(std::string& out, std::uint64_t value) {
  for (int byte = 0; byte < 8; ++byte)
    out.push_back(static_cast<char>((value >> (8 * byte)) & 0xff));
}

void log_cache(log_level level, const std::string& message) {
  if (log_enabled()) log(level, "disk cache: " + message);
}

constexpr std::uint64_t default_disk_limit = std::uint64_t{256} << 20;
// set_disk_cache_limit()'s value; 0: CLSCAN_CACHE_MAX_BYTES, else the default.
std::atomic<std::uint64_t> disk_limit{0};

bool has_suffix(const std::string& name, std::string_view suffix) {
  return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct entry_file {
  std::string name;
  std::uint64_t bytes = 0;
  struct timespec modified {};
};

// The program entries of `dir` (every device's), as regular files seen without following links; and
// (in `stale`) the temporary files of writers that died before renaming them, an hour old or more.
std::vector<entry_file> list_entries(const std::string& dir, std::vector<std::string>* stale = nullptr) {
  std::vector<entry_file> entries;
  DIR* handle = ::opendir(dir.c_str());
  if (!handle) return entries;
  const time_t hour_ago = ::time(nullptr) - 3600;
  while (const dirent* item = ::readdir(handle)) {
    const std::string name = item->d_name;
    const bool entry = has_suffix(name, ".clbin");
    const bool temporary = name.find(".clbin.tmp.") != std::string::npos;
    if (!entry && !(temporary && stale)) continue;
    struct stat info {};
    if (::fstatat(::dirfd(handle), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(info.st_mode))
      continue;
    if (entry)
      entries.push_back({name, static_cast<std::uint64_t>(info.st_size), info.st_mtim});
    else if (info.st_mtim.tv_sec < hour_ago)
      stale->push_back(name);
  }
  ::closedir(handle);
  return entries;
}

bool older(const entry_file& a, const entry_file& b) {
  if (a.modified.tv_sec != b.modified.tv_sec) return a.modified.tv_sec < b.modified.tv_sec;
  if (a.modified.tv_nsec != b.modified.tv_nsec) return a.modified.tv_nsec < b.modified.tv_nsec;
  return a.name < b.name;
}

// Deletes the least recently used entries of `dir` until the rest take at most `limit` bytes. Other
// processes may delete or write entries meanwhile: a name already gone is skipped, and a reader that
// opened an entry before it was deleted still reads all of it.
void evict_over_limit(const std::string& dir, std::uint64_t limit) {
  std::vector<std::string> stale;
  std::vector<entry_file> entries = list_entries(dir, &stale);
  for (const std::string& name : stale) {
    std::string path = dir;
    path += '/';
    path += name;
    ::unlink(path.c_str());
  }
  std::uint64_t total = 0;
  for (const entry_file& entry : entries)
    total += entry.bytes;
  if (total <= limit) return;
  std::sort(entries.begin(), entries.end(), older);
  for (const entry_file& entry : entries) {
    if (total <= limit) break;
    const std::string path = dir + "/" + entry.name;
    if (::unlink(path.c_str()) == 0 || errno == ENOENT) {
      total -= entry.bytes;
      log_cache(log_level::info, "deleted " + path + ", least recently used, to stay within " +
                                     std::to_string(limit) + " bytes");
    }
  }
}

} // namespace

std::uint64_t disk_cache_limit_in_effect() {
  if (const std::uint64_t set = disk_limit.load()) return set;
  return cache_max_bytes_setting().value_or(default_disk_limit);
}

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

std::optional<std::vector<unsigned char>> load_binary(const binary_identity& id) {
  const std::string dir = disk_cache_directory();
  if (dir.empty()) return std::nullopt;
  const std::string path = dir + "/" + entry_name(id);
  const auto reject = [&](const std::string& why) {
    log_cache(log_level::warning, "ignoring " + path + ": " + why + "; rebuilding it");
    return std::nullopt;
  };
  readable_file in;
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
  // Its modification time is its last use, which eviction goes by; a read-only cache keeps the old one.
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  log_cache(log_level::debug, "hit " + path);
  return binary;
}

void store_binary(const binary_identity& id, const std::vector<unsigned char>& binary, std::uint64_t limit) {
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
  evict_over_limit(dir, limit);
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

std::uint64_t disk_cache_bytes() {
  const std::string dir = detail::disk_cache_directory();
  std::uint64_t total = 0;
  if (!dir.empty())
    for (const auto& entry : detail::list_entries(dir))
      total += entry.bytes;
  return total;
}

void set_disk_cache_limit(std::uint64_t bytes) {
  if (bytes == 0)
    throw invalid_argument(
        "clscan: set_disk_cache_limit(0): set CLSCAN_NO_CACHE=1 to turn the disk cache off");
  detail::disk_limit.store(bytes);
}

std::uint64_t disk_cache_limit() { return detail::disk_cache_limit_in_effect(); }

} // namespace clscan
