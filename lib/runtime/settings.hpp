// The environment: every variable clscan reads, read here and nowhere else (README.md, "Environment
// variables"). Each is read when asked for, so that a test can change it between calls, except where
// noted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace clscan::detail {

// A count written as decimal digits only, at most `limit`: no sign, no spaces, no suffix (strtoul
// would take "-1" as ULONG_MAX and "12abc" as 12).
std::optional<std::size_t> parse_count(std::string_view text, std::size_t limit);

// The value of an environment variable, empty when it is unset or empty.
std::string_view environment(const char* name);

// CLSCAN_PLATFORM, CLSCAN_DEVICE: which device select_device() picks (a name part or an index).
std::string_view wanted_platform();
std::string_view wanted_device();
// CLSCAN_DEVICE_LIMITS: caps what clscan believes about a device (tests of smaller devices).
std::string_view device_limits();
// CLSCAN_LOG: "stderr" or a file path; read once, at the first log event.
std::string_view log_target();

// The disk cache's directory: CLSCAN_CACHE_DIR, else $XDG_CACHE_HOME/clscan, else ~/.cache/clscan;
// empty when CLSCAN_NO_CACHE is set (and not "0") or no directory can be named.
std::string cache_directory_setting();
// CLSCAN_MAX_CONTEXTS: (context, device) pairs the workspace cache keeps; nullopt when unset. Throws
// invalid_argument for anything but a positive number.
std::optional<std::size_t> max_contexts_setting();
// CLSCAN_MAX_PROGRAMS: compiled programs each workspace keeps; nullopt when unset. Throws
// invalid_argument for anything but a positive number.
std::optional<std::size_t> max_programs_setting();
// CLSCAN_CACHE_MAX_BYTES: bytes the disk cache's program entries may take; nullopt when unset. Throws
// invalid_argument for anything but a positive number of bytes (digits, optionally followed by K, M or
// G for KiB, MiB, GiB).
std::optional<std::uint64_t> cache_max_bytes_setting();

// CLSCAN_TUNING: a launch shape for every variant ("wg=128,items=16,vec=4,lookback=16").
std::string_view tuning_override();
// CLSCAN_SPIN_LIMIT: look-back rounds before the fallback; nullopt when unset. Throws
// invalid_argument unless it is a whole number from 0 to 2^31-1.
std::optional<std::size_t> spin_limit_override();
// CLSCAN_BUILD_OPTIONS: appended to every program's build options.
std::string_view extra_build_options();
// CLSCAN_NARROW_STATUS=1: 32-bit single-pass status words on every device. Read once: every launch of
// a process must use the layout the status words were written with.
bool narrow_status_forced();
// CLSCAN_MEMORY_MODEL: "fences" or "acq_rel" (nullopt: the device's best). Throws invalid_argument
// for anything else.
enum class memory_model { fences, acq_rel };
std::optional<memory_model> memory_model_override();
// CLSCAN_QUALIFY: 0 skip the single-pass qualification, 1 run it again ignoring stored verdicts;
// nullopt when unset. Throws invalid_argument for anything else.
std::optional<bool> qualify_override();

// The settings above that change which kernels or shapes run (a qualification verdict holds for one
// combination of them), and their current values.
constexpr std::size_t experimental_setting_count = 5;
extern const char* const experimental_setting_names[experimental_setting_count];

} // namespace clscan::detail
