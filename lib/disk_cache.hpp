#pragma once

#include <clscan/device.hpp>

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

// The directory in use (CLSCAN_CACHE_DIR, $XDG_CACHE_HOME/clscan or ~/.cache/clscan), or empty when
// CLSCAN_NO_CACHE=1 or no directory can be named. Read from the environment on each call.
std::string disk_cache_directory();

// The binary stored for `id`, if a valid entry exists. An entry that is truncated, corrupt, of
// another format or for another identity is reported through the log and not returned.
std::optional<std::vector<unsigned char>> load_binary(const binary_identity& id);

// Stores `binary` for `id`: written to a temporary file, then renamed over the entry, so readers see
// the old entry or the new one, never half of one. Failures (read-only directory, full disk) are
// logged and otherwise ignored.
void store_binary(const binary_identity& id, const std::vector<unsigned char>& binary);

// 16 hex digits naming this device identity (library version, platform, device, driver) in file
// names of the cache directory.
std::string device_stem(const device_capabilities& device);

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

// Creates the cache directory (and its parents); false when that fails or the cache is off.
bool make_cache_directory();

// Number of entries in the cache directory written for this device identity.
std::size_t count_device_entries(const device_capabilities& device);

} // namespace clscan::detail
