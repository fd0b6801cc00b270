// clscan-info's pieces: what it reads from the machine (platforms, devices, the disk cache), and the
// listing and the self-test that report it. tools/info/main.cpp reads the command line.
#pragma once

#include "common/json.hpp"

#include <clscan/clscan.hpp>

#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace clscan_info {

// --- The disk cache (cache_probe.cpp) -----------------------------------------------------------

enum class cache_state { off, missing, not_writable, writable };

struct cache_status {
  cache_state state = cache_state::off;
  std::string directory; // empty when off
  std::string reason;    // why it is off or not writable
};

// "off", "missing", "not_writable", "writable" (the JSON spelling).
const char* state_name(cache_state state);

// The disk cache's state, found by trying what the library will do there: permission bits say
// nothing to root, and a read-only mount or a special file system (/proc) refuses root as well.
cache_status probe_cache();

// The state in words, for the listing.
std::string cache_state_text(const cache_status& cache);

// The path of `device`'s tuning file, or an empty string when it has none (or the cache is off).
std::string existing_tuning_file(const cl::Device& device);

// --- Platforms and devices (discover.cpp) -------------------------------------------------------

struct device_entry {
  std::size_t index = 0;
  cl_device_id id = nullptr;
  std::string name;
  bool selected = false;
  std::optional<clscan::device_capabilities> caps;
  std::optional<clscan::dispatch_plan> plan;
  std::size_t cache_entries = 0;
  std::string tuning_file; // empty when the device has none
  std::string error;       // capabilities() failed
  std::string plan_error;
};

struct platform_entry {
  std::size_t index = 0;
  cl_platform_id id = nullptr;
  std::string name;
  std::string version;
  std::string error; // clGetDeviceIDs failed
  std::vector<device_entry> devices;
};

struct machine {
  std::vector<platform_entry> platforms;
  std::string error; // clGetPlatformIDs failed
  std::string selection_error;
  bool selected_only = false; // --selected: only the device select_device() picks is listed
  cache_status cache;
};

// Every platform and device, read with the C API so that one broken platform does not hide the
// others; with_details adds capabilities, the dispatch plan, cache entries and the tuning file.
// selected_only keeps only the device clscan::select_device() picks.
machine discover(bool with_details, bool selected_only);

// An exception's message, prefixed with its kind for clscan's build, unsupported and argument errors.
std::string describe(const std::exception& e);

// `text` without trailing newlines and with its later lines indented by `indent`: build logs end in
// a newline and span several lines.
std::string indent_lines(std::string text, const std::string& indent);

// --- The listing (listing.cpp) ------------------------------------------------------------------

void print_table(const machine& m);
void print_json(const machine& m);
// The fields every JSON document of clscan-info starts with.
void write_json_header(clscan_tools::json_writer& json, const machine& m);
// Whether everything listed was read without an error.
bool listing_ok(const machine& m);

// --- The self-test (self_test.cpp) --------------------------------------------------------------

// Which calls the self-test checks (--calls): the cl_int scans, the selections (select_if,
// select_flagged, partition_if, unique), the scans by key.
struct self_test_calls {
  bool scans = true;
  bool selections = true;
  bool by_key = true;
  bool sort = true; // sort, sort_by_key, sorted_order
};

// Runs the self-test of `algorithms` on every device of `m`, prints it (as JSON when `json`), and
// returns the exit status: 0 when every check passed.
int run_self_tests(const machine& m, const std::vector<clscan::algorithm>& algorithms,
                   const self_test_calls& calls, bool json);

} // namespace clscan_info
