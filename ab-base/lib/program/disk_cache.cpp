#include "disk_cache.hpp"

#include "files.hpp"

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

void put_u64(std::string& out, std::uint64_t value) {
  for (int byte = 0; byte < 8; ++byte)
    out.push_back(static_cast<char>((value >> (8 * byte)) & 0xff));
}

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
  log_cache(log_level::debug, "hit " + path);
  return binary;
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
