// Program binaries on disk: one entry per (device, driver, library version, source, options).
#pragma once

#include "files.hpp"

#include <clscan/device.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clscan::detail {

// Everything that can change a program binary. The whole text is stored in each entry and compared on
// load, so a hash collision in a file name can never hand back a foreign binary.
struct binary_identity {
  std::string device_part;  // library version, platform, device and driver
  std::string program_part; // kernel source (with prelude) and build options
};

binary_identity make_binary_identity(const device_capabilities& device, const std::string& source,
                                     const std::string& options);

// The binary stored for `id`, if a valid entry exists. An entry that is truncated, corrupt, of
// another format or for another identity is reported through the log and not returned.
std::optional<std::vector<unsigned char>> load_binary(const binary_identity& id);

// Stores `binary` for `id`: written to a temporary file, then renamed over the entry, so readers see
// the old entry or the new one, never half of one; then deletes the least recently used entries until
// all take at most `limit` bytes (clscan::disk_cache_limit). Failures (read-only directory, full disk)
// are logged and otherwise ignored.
void store_binary(const binary_identity& id, const std::vector<unsigned char>& binary, std::uint64_t limit);

// clscan::disk_cache_limit(): set_disk_cache_limit()'s, else CLSCAN_CACHE_MAX_BYTES, else 256 MiB.
std::uint64_t disk_cache_limit_in_effect();

// 16 hex digits naming this device identity (library version, platform, device, driver) in file
// names of the cache directory.
std::string device_stem(const device_capabilities& device);

// Number of entries in the cache directory written for this device identity.
std::size_t count_device_entries(const device_capabilities& device);

} // namespace clscan::detail
