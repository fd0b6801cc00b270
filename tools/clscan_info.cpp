// clscan-info: what clscan sees on this machine, and whether it computes correct scans there.
//
//   clscan-info                 every OpenCL platform and device: properties, capabilities, the
//                               dispatch plan clscan uses on it, and the state of its disk cache
//   clscan-info --json          the same as JSON
//   clscan-info --self-test     exact inclusive and exclusive scans (in place and out of place) on
//                               every device, checked against std::inclusive_scan/std::exclusive_scan
//   clscan-info --selected ...  only the device clscan::select_device() picks
//
// Run with --help for the options.
#include "common/cli.hpp"

#include <clscan/clscan.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace {

constexpr const char* usage_text =
    R"(usage: clscan-info [--json] [--selected] [--self-test [--algorithm NAME[,NAME...]]] [--help]

Lists every OpenCL platform and device with what clscan reads from it (capabilities) and what it
chooses for it (the dispatch plan for cl_int scans: algorithm for large sizes, launch shapes and where
they come from), plus the disk cache: its directory and state, and per device the state, the number
of entries and the tuning file when there is one.

options:
  --json              print the same information (or the self-test results) as JSON on stdout.
  --self-test         on every device of every platform, run inclusive and exclusive cl_int sum scans,
                      in place and out of place, of sizes 1, 1000, tile+1, 2^20 and 2^22+3 (random
                      values; integer sums wrap) and compare them exactly with std::inclusive_scan and
                      std::exclusive_scan. Prints pass/fail and the time per device and algorithm.
  --algorithm LIST    algorithms for --self-test: automatic (default), three_stage, single_pass, or a
                      comma-separated list of them, or "all".
  --selected          list (or self-test) only the device clscan::select_device() picks, the one the
                      other tools and the tests use: CLSCAN_PLATFORM and CLSCAN_DEVICE when set, else
                      the first GPU, else the first device. Fails (exit 1) when nothing matches.
  --help, -h          this text.

Disk cache states: "off" (CLSCAN_NO_CACHE is set, or no directory can be named), "missing" (created
on the first store), "not writable" (found by trying to create a file or directory there: clscan
keeps programs in memory only), "writable".

A device (or algorithm) that throws is reported with its error and the others still run.
Exit status: 0 when everything was listed / every self-test check passed; 1 when a device failed (its
capabilities or its dispatch plan could not be read, e.g. an invalid CLSCAN_TUNING) or a check was
wrong or nothing was tested; 2 on a usage error.

Environment: CLSCAN_CACHE_DIR, CLSCAN_NO_CACHE, CLSCAN_TUNING and CLSCAN_LOG apply as in the library.
Without --selected, CLSCAN_PLATFORM and CLSCAN_DEVICE only choose which device is marked "selected".
)";

// ---------------------------------------------------------------------------------------------------
// A small JSON writer: objects, arrays, strings (escaped, invalid UTF-8 replaced by U+FFFD), numbers,
// booleans and null, indented two spaces.

class json_writer {
public:
  explicit json_writer(std::string& out) : out_(out) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  void key(const std::string& name) {
    separator();
    write_string(name);
    out_ += ": ";
    after_key_ = true;
  }

  void value(const std::string& text) {
    separator();
    write_string(text);
  }
  void value(const char* text) { value(std::string(text)); }
  void value(bool flag) {
    separator();
    out_ += flag ? "true" : "false";
  }
  void value(unsigned long long number) {
    separator();
    out_ += std::to_string(number);
  }
  void value(unsigned long number) { value(static_cast<unsigned long long>(number)); }
  void value(unsigned int number) { value(static_cast<unsigned long long>(number)); }
  void value(long long number) {
    separator();
    out_ += std::to_string(number);
  }
  void value(int number) { value(static_cast<long long>(number)); }
  void value(double number) {
    separator();
    char text[64];
    std::snprintf(text, sizeof text, "%.3f", number);
    out_ += text;
  }
  void null() {
    separator();
    out_ += "null";
  }

  template <typename T> void field(const std::string& name, const T& v) {
    key(name);
    value(v);
  }

  static std::string escape(const std::string& text) {
    std::string out;
    append_escaped(out, text);
    return out;
  }

private:
  struct level {
    bool first = true;
  };

  void open(char bracket) {
    separator();
    out_ += bracket;
    levels_.push_back({});
  }
  void close(char bracket) {
    const bool empty = levels_.back().first;
    levels_.pop_back();
    if (!empty) newline();
    out_ += bracket;
    if (levels_.empty()) out_ += '\n';
  }
  void separator() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (levels_.empty()) return;
    if (!levels_.back().first) out_ += ',';
    levels_.back().first = false;
    newline();
  }
  void newline() {
    out_ += '\n';
    out_.append(2 * levels_.size(), ' ');
  }
  void write_string(const std::string& text) {
    out_ += '"';
    append_escaped(out_, text);
    out_ += '"';
  }

  // Length of the valid UTF-8 sequence at text[i], or 0 when it is not one.
  static std::size_t utf8_length(const std::string& text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    std::size_t length = 0;
    std::uint32_t code = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
      code = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      code = lead & 0x0Fu;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      code = lead & 0x07u;
    } else {
      return 0;
    }
    if (i + length > text.size()) return 0;
    for (std::size_t k = 1; k < length; ++k) {
      if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
      code = (code << 6) | (byte(i + k) & 0x3Fu);
    }
    if ((length == 3 && code < 0x800) || (length == 4 && (code < 0x10000 || code > 0x10FFFF))) return 0;
    if (code >= 0xD800 && code <= 0xDFFF) return 0; // surrogates are not characters
    return length;
  }

  static void append_escaped(std::string& out, const std::string& text) {
    for (std::size_t i = 0; i < text.size();) {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      if (c >= 0x80) {
        const std::size_t length = utf8_length(text, i);
        if (length == 0) {
          out += "\\ufffd";
          ++i;
        } else {
          out.append(text, i, length);
          i += length;
        }
        continue;
      }
      switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char code[8];
          std::snprintf(code, sizeof code, "\\u%04x", c);
          out += code;
        } else {
          out += static_cast<char>(c);
        }
      }
      ++i;
    }
  }

  std::string& out_;
  std::vector<level> levels_;
  bool after_key_ = false;
};

// ---------------------------------------------------------------------------------------------------
// The disk cache's state, found by trying what the library will do there: permission bits say
// nothing to root, and a read-only mount or a special file system (/proc) refuses root as well.

enum class cache_state { off, missing, not_writable, writable };

struct cache_status {
  cache_state state = cache_state::off;
  std::string directory; // empty when off
  std::string reason;    // why it is off or not writable
};

const char* state_name(cache_state state) {
  switch (state) {
  case cache_state::off: return "off";
  case cache_state::missing: return "missing";
  case cache_state::not_writable: return "not_writable";
  case cache_state::writable: return "writable";
  }
  return "?";
}

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

cache_status probe_cache() {
  cache_status status;
  status.directory = clscan::cache_directory();
  if (status.directory.empty()) {
    // The library's rule (lib/disk_cache.cpp), which does not say which case applies.
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

// `text` without trailing newlines and with its later lines indented by `indent`: build logs end in
// a newline and span several lines.
std::string indent_lines(std::string text, const std::string& indent) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  for (std::size_t pos = text.find('\n'); pos != std::string::npos; pos = text.find('\n', pos + 1))
    text.insert(pos + 1, indent);
  return text;
}

// ---------------------------------------------------------------------------------------------------
// Platforms and devices, read with the C API so that one broken platform does not hide the others.

using clscan_tools::usage_error; // tools/cli.hpp, shared with the other tools

std::string info_string(cl_platform_id platform, cl_platform_info what) {
  std::size_t size = 0;
  if (clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS) return "?";
  std::string text(size, '\0');
  if (clGetPlatformInfo(platform, what, size, text.data(), nullptr) != CL_SUCCESS) return "?";
  while (!text.empty() && (text.back() == '\0' || text.back() == ' '))
    text.pop_back();
  return text;
}

std::string device_name(cl_device_id device) {
  std::size_t size = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_NAME, 0, nullptr, &size) != CL_SUCCESS) return "?";
  std::string text(size, '\0');
  if (clGetDeviceInfo(device, CL_DEVICE_NAME, size, text.data(), nullptr) != CL_SUCCESS) return "?";
  while (!text.empty() && (text.back() == '\0' || text.back() == ' '))
    text.pop_back();
  return text;
}

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

std::string describe(const std::exception& e) {
  std::string text = e.what();
  if (dynamic_cast<const clscan::build_error*>(&e))
    text = "build error: " + text;
  else if (dynamic_cast<const clscan::unsupported_error*>(&e))
    text = "unsupported: " + text;
  else if (dynamic_cast<const clscan::invalid_argument*>(&e))
    text = "invalid argument: " + text;
  return text;
}

machine discover(bool with_details, bool selected_only) {
  machine m;
  m.selected_only = selected_only;
  m.cache = probe_cache();
  cl_uint platform_count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &platform_count);
  if (status != CL_SUCCESS || platform_count == 0) {
    m.error = status == CL_SUCCESS ? "no OpenCL platform found"
                                   : std::string("clGetPlatformIDs failed: ") + clscan::status_name(status) +
                                         " (" + std::to_string(status) + "); is an OpenCL ICD installed?";
    return m;
  }
  std::vector<cl_platform_id> ids(platform_count);
  clGetPlatformIDs(platform_count, ids.data(), nullptr);

  cl_device_id selected = nullptr;
  try {
    selected = clscan::select_device()();
  } catch (const std::exception& e) {
    m.selection_error = e.what();
  }

  for (std::size_t p = 0; p < ids.size(); ++p) {
    platform_entry platform;
    platform.index = p;
    platform.id = ids[p];
    platform.name = info_string(ids[p], CL_PLATFORM_NAME);
    platform.version = info_string(ids[p], CL_PLATFORM_VERSION);
    cl_uint device_count = 0;
    const cl_int device_status = clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
    if (device_status != CL_SUCCESS && device_status != CL_DEVICE_NOT_FOUND) {
      platform.error = std::string("clGetDeviceIDs failed: ") + clscan::status_name(device_status);
    } else if (device_count > 0) {
      std::vector<cl_device_id> devices(device_count);
      clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, device_count, devices.data(), nullptr);
      for (std::size_t d = 0; d < devices.size(); ++d) {
        device_entry device;
        device.index = d;
        device.id = devices[d];
        device.name = device_name(devices[d]);
        device.selected = devices[d] == selected;
        if (selected_only && !device.selected) continue;
        if (with_details) {
          const cl::Device handle(devices[d], true);
          try {
            device.caps = clscan::capabilities(handle);
            device.cache_entries = clscan::disk_cache_entries(handle);
            device.tuning_file = existing_tuning_file(handle);
          } catch (const std::exception& e) {
            device.error = describe(e);
          }
          if (device.caps) {
            try {
              device.plan = clscan::plan_for(handle, clscan::element_type::int32);
            } catch (const std::exception& e) {
              device.plan_error = describe(e);
            }
          }
        }
        platform.devices.push_back(std::move(device));
      }
    }
    // Under --selected a platform without the device is left out, its errors included: they say
    // nothing about the device asked for.
    if (!selected_only || !platform.devices.empty()) m.platforms.push_back(std::move(platform));
  }
  return m;
}

const char* algorithm_name(clscan::algorithm algo) {
  switch (algo) {
  case clscan::algorithm::automatic: return "automatic";
  case clscan::algorithm::single_pass: return "single_pass";
  case clscan::algorithm::three_stage: return "three_stage";
  }
  return "?";
}

std::string type_name(cl_device_type type) {
  std::string names;
  const auto add = [&](cl_device_type bit, const char* name) {
    if (!(type & bit)) return;
    if (!names.empty()) names += '|';
    names += name;
  };
  add(CL_DEVICE_TYPE_CPU, "CPU");
  add(CL_DEVICE_TYPE_GPU, "GPU");
  add(CL_DEVICE_TYPE_ACCELERATOR, "ACCELERATOR");
  add(CL_DEVICE_TYPE_DEFAULT, "DEFAULT");
#ifdef CL_DEVICE_TYPE_CUSTOM
  add(CL_DEVICE_TYPE_CUSTOM, "CUSTOM");
#endif
  return names.empty() ? "UNKNOWN" : names;
}

std::string bytes_text(cl_ulong bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[64];
  if (unit == 0)
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(text, sizeof text, "%.1f %s (%llu bytes)", value, units[unit],
                  static_cast<unsigned long long>(bytes));
  return text;
}

std::string tuning_text(const clscan::tuning& t, bool single_pass) {
  std::ostringstream text;
  text << "work_group_size " << t.work_group_size << ", items_per_thread " << t.items_per_thread
       << ", vector_width " << t.vector_width;
  if (single_pass) text << ", lookback " << t.lookback;
  text << ", tile " << t.work_group_size * t.items_per_thread << " (" << t.origin << ")";
  return text.str();
}

void print_table(const machine& m) {
  std::printf("clscan %s\n", CLSCAN_VERSION_STRING);
  std::printf("disk cache directory: %s\n", m.cache.directory.empty() ? "(none)" : m.cache.directory.c_str());
  std::printf("disk cache state: %s\n", cache_state_text(m.cache).c_str());
  if (!m.error.empty()) {
    std::printf("error: %s\n", m.error.c_str());
    return;
  }
  if (!m.selection_error.empty())
    std::printf("%sselect_device(): %s\n", m.selected_only ? "error: " : "", m.selection_error.c_str());

  const auto row = [](const char* label, const std::string& value) {
    std::printf("    %-22s %s\n", label, value.c_str());
  };
  const auto yes_no = [](bool flag) { return std::string(flag ? "yes" : "no"); };
  for (const platform_entry& platform : m.platforms) {
    std::printf("\nplatform %zu: %s\n", platform.index, platform.name.c_str());
    std::printf("  version: %s\n", platform.version.c_str());
    if (!platform.error.empty()) std::printf("  error: %s\n", platform.error.c_str());
    if (platform.devices.empty() && platform.error.empty()) std::printf("  (no devices)\n");
    for (const device_entry& device : platform.devices) {
      std::printf("\n  device %zu: %s%s\n", device.index, device.name.c_str(),
                  device.selected ? "   [selected: clscan::select_device()]" : "");
      if (!device.error.empty()) {
        std::printf("    error: %s\n", indent_lines(device.error, "      ").c_str());
        continue;
      }
      const clscan::device_capabilities& c = *device.caps;
      row("vendor", c.vendor);
      row("type", type_name(c.type));
      row("device version", c.version);
      row("OpenCL C version", c.opencl_c_version);
      row("driver version", c.driver_version);
      row("compute units", std::to_string(c.compute_units));
      row("max work-group size", std::to_string(c.max_work_group_size));
      row("local memory", bytes_text(c.local_mem_size));
      row("global memory", bytes_text(c.global_mem_size));
      row("max allocation", bytes_text(c.max_mem_alloc_size));
      row("fp64", yes_no(c.fp64));
      row("int64 atomics", yes_no(c.int64_atomics));
      row("int32 global atomics", yes_no(c.int32_global_atomics));
      row("subgroups", yes_no(c.subgroups));
      if (device.plan) {
        const clscan::dispatch_plan& plan = *device.plan;
        std::printf("    dispatch plan (cl_int):\n");
        row("  large sizes use", algorithm_name(plan.large));
        row("  single pass", plan.single_pass_qualification);
        row("  memory model", plan.single_pass_memory_model);
        row("  three_stage", tuning_text(plan.three_stage, false));
        row("  single_pass", tuning_text(plan.single_pass, true));
        if (plan.small_input_bytes)
          row("  single_pass small", tuning_text(plan.single_pass_small, true) + " (inputs up to " +
                                         std::to_string(plan.small_input_bytes >> 20) + " MiB)");
      } else {
        row("dispatch plan", "error: " + indent_lines(device.plan_error, "      "));
      }
      row("disk cache", cache_state_text(m.cache));
      row("disk cache entries", std::to_string(device.cache_entries));
      if (!device.tuning_file.empty()) row("tuning file", device.tuning_file);
    }
  }
}

void write_tuning(json_writer& json, const clscan::tuning& t) {
  json.begin_object();
  json.field("work_group_size", static_cast<unsigned long long>(t.work_group_size));
  json.field("items_per_thread", static_cast<unsigned long long>(t.items_per_thread));
  json.field("vector_width", static_cast<unsigned long long>(t.vector_width));
  json.field("lookback", static_cast<unsigned long long>(t.lookback));
  json.field("tile", static_cast<unsigned long long>(t.work_group_size * t.items_per_thread));
  json.field("origin", t.origin);
  json.end_object();
}

// The fields every JSON document of clscan-info starts with.
void write_json_header(json_writer& json, const machine& m) {
  json.field("clscan_version", CLSCAN_VERSION_STRING);
  const auto directory = [&] {
    if (m.cache.directory.empty())
      json.null();
    else
      json.value(m.cache.directory);
  };
  json.key("cache_directory");
  directory();
  json.key("cache");
  json.begin_object();
  json.key("directory");
  directory();
  json.field("state", state_name(m.cache.state));
  if (!m.cache.reason.empty()) json.field("reason", m.cache.reason);
  json.end_object();
  json.field("selected_only", m.selected_only);
  if (!m.selection_error.empty()) json.field("selection_error", m.selection_error);
  if (!m.error.empty()) json.field("error", m.error);
}

void print_json(const machine& m) {
  std::string out;
  json_writer json(out);
  json.begin_object();
  write_json_header(json, m);
  json.key("platforms");
  json.begin_array();
  for (const platform_entry& platform : m.platforms) {
    json.begin_object();
    json.field("index", static_cast<unsigned long long>(platform.index));
    json.field("name", platform.name);
    json.field("version", platform.version);
    if (!platform.error.empty()) json.field("error", platform.error);
    json.key("devices");
    json.begin_array();
    for (const device_entry& device : platform.devices) {
      json.begin_object();
      json.field("index", static_cast<unsigned long long>(device.index));
      json.field("name", device.name);
      json.field("selected", device.selected);
      if (!device.error.empty()) {
        json.field("error", device.error);
        json.end_object();
        continue;
      }
      const clscan::device_capabilities& c = *device.caps;
      json.field("vendor", c.vendor);
      json.field("type", type_name(c.type));
      json.field("version", c.version);
      json.field("opencl_c_version", c.opencl_c_version);
      json.field("driver_version", c.driver_version);
      json.field("compute_units", static_cast<unsigned long long>(c.compute_units));
      json.field("max_work_group_size", static_cast<unsigned long long>(c.max_work_group_size));
      json.field("local_mem_size", static_cast<unsigned long long>(c.local_mem_size));
      json.field("global_mem_size", static_cast<unsigned long long>(c.global_mem_size));
      json.field("max_mem_alloc_size", static_cast<unsigned long long>(c.max_mem_alloc_size));
      json.field("fp64", c.fp64);
      json.field("int64_atomics", c.int64_atomics);
      json.field("int32_global_atomics", c.int32_global_atomics);
      json.field("subgroups", c.subgroups);
      json.key("dispatch_plan");
      if (device.plan) {
        const clscan::dispatch_plan& plan = *device.plan;
        json.begin_object();
        json.field("element_type", "int");
        json.field("large", algorithm_name(plan.large));
        json.field("single_pass_available", plan.single_pass_available);
        json.field("single_pass_qualification", plan.single_pass_qualification);
        json.field("single_pass_memory_model", plan.single_pass_memory_model);
        json.key("three_stage");
        write_tuning(json, plan.three_stage);
        json.key("single_pass");
        write_tuning(json, plan.single_pass);
        json.key("single_pass_small");
        write_tuning(json, plan.single_pass_small);
        json.field("small_input_bytes", static_cast<std::uint64_t>(plan.small_input_bytes));
        json.end_object();
      } else {
        json.begin_object();
        json.field("error", device.plan_error);
        json.end_object();
      }
      json.field("cache_entries", static_cast<unsigned long long>(device.cache_entries));
      json.key("cache");
      json.begin_object();
      json.field("state", state_name(m.cache.state));
      json.field("entries", static_cast<unsigned long long>(device.cache_entries));
      json.key("tuning_file");
      if (device.tuning_file.empty())
        json.null();
      else
        json.value(device.tuning_file);
      json.end_object();
      json.end_object();
    }
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.end_object();
  std::fputs(out.c_str(), stdout);
}

// ---------------------------------------------------------------------------------------------------
// Self-test.

struct check_failure {
  std::size_t n = 0;
  std::string what;
};

struct self_test_result {
  std::size_t platform = 0;
  std::size_t device = 0;
  std::string name;
  clscan::algorithm algo = clscan::algorithm::automatic;
  std::size_t checks = 0;
  std::size_t passed = 0;
  std::vector<check_failure> failures;
  std::vector<std::size_t> sizes;
  std::vector<std::string> skipped;
  std::string error; // an exception ended the run on this device
  double milliseconds = 0;
  bool ok() const { return error.empty() && failures.empty() && passed == checks && checks > 0; }
};

cl_int wrapping_add(cl_int a, cl_int b) {
  return static_cast<cl_int>(static_cast<cl_uint>(a) + static_cast<cl_uint>(b));
}

// The first difference between `got` and `expected`, or an empty string.
std::string first_difference(const std::vector<cl_int>& got, const std::vector<cl_int>& expected) {
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (got[i] != expected[i] && wrong++ == 0) first = i;
  if (!wrong) return {};
  return std::to_string(wrong) + " elements wrong, first at index " + std::to_string(first) + ": expected " +
         std::to_string(expected[first]) + ", got " + std::to_string(got[first]);
}

void require(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw clscan::opencl_error(status, call);
}

std::vector<std::size_t> self_test_sizes(std::size_t tile) {
  std::vector<std::size_t> sizes = {1, 1000, tile + 1, std::size_t{1} << 20, (std::size_t{1} << 22) + 3};
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

self_test_result self_test(const platform_entry& platform, const device_entry& entry,
                           clscan::algorithm algo) {
  self_test_result result;
  result.platform = platform.index;
  result.device = entry.index;
  result.name = entry.name;
  result.algo = algo;
  const auto start = std::chrono::steady_clock::now();
  try {
    const cl::Device device(entry.id, true);
    const clscan::device_capabilities caps = clscan::capabilities(device);
    const clscan::dispatch_plan plan = clscan::plan_for(device, clscan::element_type::int32);
    const clscan::tuning& shape =
        algo == clscan::algorithm::single_pass ? plan.single_pass : plan.three_stage;
    result.sizes = self_test_sizes(shape.work_group_size * shape.items_per_thread);

    cl_int status = CL_SUCCESS;
    cl::Context context(device, nullptr, nullptr, nullptr, &status);
    require(status, "clCreateContext");
    cl::CommandQueue queue(context, device, 0, &status);
    require(status, "clCreateCommandQueue");

    clscan::options<cl_int> opts;
    opts.algorithm = algo;
    for (const std::size_t n : result.sizes) {
      const std::size_t bytes = n * sizeof(cl_int);
      if (bytes > caps.max_mem_alloc_size || 2 * bytes > caps.global_mem_size) {
        result.skipped.push_back("n = " + std::to_string(n) + ": larger than the device can allocate");
        continue;
      }
      std::mt19937 random(static_cast<std::mt19937::result_type>(n * 2654435761u + 17));
      std::uniform_int_distribution<cl_int> values(std::numeric_limits<cl_int>::min(),
                                                   std::numeric_limits<cl_int>::max());
      std::vector<cl_int> data(n);
      for (cl_int& value : data)
        value = values(random);
      std::vector<cl_int> inclusive(n), exclusive(n);
      std::inclusive_scan(data.begin(), data.end(), inclusive.begin(), wrapping_add);
      std::exclusive_scan(data.begin(), data.end(), exclusive.begin(), cl_int{0}, wrapping_add);

      cl::Buffer in(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
      require(status, "clCreateBuffer");
      cl::Buffer out(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
      require(status, "clCreateBuffer");
      std::vector<cl_int> got(n);

      struct variant {
        clscan::scan_kind kind;
        bool in_place;
      };
      for (const variant v :
           {variant{clscan::scan_kind::inclusive, true}, variant{clscan::scan_kind::exclusive, true},
            variant{clscan::scan_kind::inclusive, false}, variant{clscan::scan_kind::exclusive, false}}) {
        const bool inclusive_kind = v.kind == clscan::scan_kind::inclusive;
        const std::string what = std::string(inclusive_kind ? "inclusive" : "exclusive") +
                                 (v.in_place ? " in place" : " out of place") + ", n = " + std::to_string(n);
        require(queue.enqueueWriteBuffer(in, CL_TRUE, 0, bytes, data.data()), "clEnqueueWriteBuffer");
        cl::Event done;
        if (v.in_place)
          done =
              inclusive_kind ? clscan::inclusive(queue, in, n, opts) : clscan::exclusive(queue, in, n, opts);
        else
          done = inclusive_kind ? clscan::inclusive(queue, in, out, n, opts)
                                : clscan::exclusive(queue, in, out, n, opts);
        require(done.wait(), "clWaitForEvents");
        require(queue.enqueueReadBuffer(v.in_place ? in : out, CL_TRUE, 0, bytes, got.data()),
                "clEnqueueReadBuffer");
        ++result.checks;
        std::string difference = first_difference(got, inclusive_kind ? inclusive : exclusive);
        if (difference.empty() && !v.in_place) {
          require(queue.enqueueReadBuffer(in, CL_TRUE, 0, bytes, got.data()), "clEnqueueReadBuffer");
          if (got != data) difference = "the input buffer was modified";
        }
        if (difference.empty()) {
          ++result.passed;
        } else {
          std::string failure = what;
          failure.append(": ").append(difference);
          result.failures.push_back({n, failure});
        }
      }
    }
  } catch (const std::exception& e) {
    result.error = describe(e);
  }
  result.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

void print_self_test_header(const machine& m) {
  const std::string cache = m.cache.state == cache_state::off
                                ? cache_state_text(m.cache)
                                : m.cache.directory + ", " + cache_state_text(m.cache);
  std::printf("clscan %s self-test (cl_int sum scans; disk cache: %s)\n", CLSCAN_VERSION_STRING,
              cache.c_str());
  if (!m.error.empty()) std::printf("error: %s\n", m.error.c_str());
  if (m.selected_only && !m.selection_error.empty())
    std::printf("error: select_device(): %s\n", m.selection_error.c_str());
  for (const platform_entry& platform : m.platforms)
    if (!platform.error.empty())
      std::printf("platform %zu (%s): error: %s\n", platform.index, platform.name.c_str(),
                  platform.error.c_str());
  std::fflush(stdout);
}

void print_self_test_result(const self_test_result& r) {
  std::printf("platform %zu device %zu (%s), algorithm %s: ", r.platform, r.device, r.name.c_str(),
              algorithm_name(r.algo));
  if (!r.error.empty())
    std::printf("ERROR after %zu of %zu checks passed, %.1f ms\n    %s\n", r.passed, r.checks, r.milliseconds,
                indent_lines(r.error, "    ").c_str());
  else if (!r.failures.empty())
    std::printf("FAIL: %zu of %zu checks wrong, %.1f ms\n", r.failures.size(), r.checks, r.milliseconds);
  else
    std::printf("PASS: %zu checks, %.1f ms\n", r.checks, r.milliseconds);
  if (!r.sizes.empty()) {
    std::printf("    sizes:");
    for (std::size_t n : r.sizes)
      std::printf(" %zu", n);
    std::printf("\n");
  }
  for (const check_failure& f : r.failures)
    std::printf("    wrong: %s\n", f.what.c_str());
  for (const std::string& s : r.skipped)
    std::printf("    skipped: %s\n", s.c_str());
  std::fflush(stdout);
}

void print_self_test_summary(const std::vector<self_test_result>& results) {
  std::size_t passed = 0;
  for (const self_test_result& r : results)
    passed += r.ok() ? 1 : 0;
  std::printf("self-test: %zu passed, %zu failed\n", passed, results.size() - passed);
}

void print_self_test_json(const std::vector<self_test_result>& results, const machine& m) {
  std::string out;
  json_writer json(out);
  json.begin_object();
  write_json_header(json, m);
  json.key("platform_errors");
  json.begin_array();
  for (const platform_entry& platform : m.platforms)
    if (!platform.error.empty()) {
      json.begin_object();
      json.field("platform", static_cast<unsigned long long>(platform.index));
      json.field("name", platform.name);
      json.field("error", platform.error);
      json.end_object();
    }
  json.end_array();
  bool all_ok = m.error.empty() && !results.empty();
  json.key("results");
  json.begin_array();
  for (const self_test_result& r : results) {
    all_ok = all_ok && r.ok();
    json.begin_object();
    json.field("platform", static_cast<unsigned long long>(r.platform));
    json.field("device", static_cast<unsigned long long>(r.device));
    json.field("name", r.name);
    json.field("algorithm", algorithm_name(r.algo));
    json.field("status", !r.error.empty() ? "error" : r.ok() ? "pass" : "fail");
    json.field("checks", static_cast<unsigned long long>(r.checks));
    json.field("passed", static_cast<unsigned long long>(r.passed));
    json.field("milliseconds", r.milliseconds);
    json.key("sizes");
    json.begin_array();
    for (std::size_t n : r.sizes)
      json.value(static_cast<unsigned long long>(n));
    json.end_array();
    json.key("failures");
    json.begin_array();
    for (const check_failure& f : r.failures)
      json.value(f.what);
    json.end_array();
    json.key("skipped");
    json.begin_array();
    for (const std::string& s : r.skipped)
      json.value(s);
    json.end_array();
    if (!r.error.empty()) json.field("error", r.error);
    json.end_object();
  }
  json.end_array();
  json.field("ok", all_ok);
  json.end_object();
  std::fputs(out.c_str(), stdout);
}

std::vector<clscan::algorithm> parse_algorithms(const std::string& list) {
  std::vector<clscan::algorithm> algorithms;
  std::stringstream stream(list);
  std::string name;
  while (std::getline(stream, name, ',')) {
    if (name == "automatic")
      algorithms.push_back(clscan::algorithm::automatic);
    else if (name == "three_stage")
      algorithms.push_back(clscan::algorithm::three_stage);
    else if (name == "single_pass")
      algorithms.push_back(clscan::algorithm::single_pass);
    else if (name == "all")
      algorithms.insert(algorithms.end(), {clscan::algorithm::automatic, clscan::algorithm::three_stage,
                                           clscan::algorithm::single_pass});
    else
      throw usage_error("unknown algorithm '" + name + "' (automatic, three_stage, single_pass or all)");
  }
  if (algorithms.empty()) throw usage_error("--algorithm needs a value");
  return algorithms;
}

} // namespace

int main(int argc, char** argv) {
  bool json = false;
  bool run_self_test = false;
  bool algorithm_given = false;
  bool selected_only = false;
  std::vector<clscan::algorithm> algorithms = {clscan::algorithm::automatic};
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::fputs(usage_text, stdout);
        return 0;
      }
      if (arg == "--json") {
        json = true;
      } else if (arg == "--self-test") {
        run_self_test = true;
      } else if (arg == "--selected") {
        selected_only = true;
      } else if (arg == "--algorithm" || arg.rfind("--algorithm=", 0) == 0) {
        std::string value;
        if (arg == "--algorithm") {
          if (i + 1 >= argc) throw usage_error("--algorithm needs a value");
          value = argv[++i];
        } else {
          value = arg.substr(std::strlen("--algorithm="));
        }
        algorithms = parse_algorithms(value);
        algorithm_given = true;
      } else {
        throw usage_error("unknown option '" + arg + "'");
      }
    }
    if (algorithm_given && !run_self_test) throw usage_error("--algorithm applies to --self-test only");
  } catch (const usage_error& e) {
    std::fprintf(stderr, "clscan-info: %s\n\n%s", e.what(), usage_text);
    return 2;
  }

  try {
    if (!run_self_test) {
      const machine m = discover(true, selected_only);
      if (json)
        print_json(m);
      else
        print_table(m);
      bool ok = m.error.empty() && (!selected_only || m.selection_error.empty());
      for (const platform_entry& platform : m.platforms) {
        ok = ok && platform.error.empty();
        for (const device_entry& device : platform.devices)
          ok = ok && device.error.empty() && device.plan_error.empty();
      }
      return ok ? 0 : 1;
    }

    const machine m = discover(false, selected_only);
    std::vector<self_test_result> results;
    if (!json) print_self_test_header(m);
    for (const platform_entry& platform : m.platforms)
      for (const device_entry& device : platform.devices)
        for (clscan::algorithm algo : algorithms) {
          results.push_back(self_test(platform, device, algo));
          if (!json) print_self_test_result(results.back()); // as it comes: a slow device is no hang
        }
    if (json)
      print_self_test_json(results, m);
    else
      print_self_test_summary(results);
    bool ok = m.error.empty() && !results.empty();
    for (const platform_entry& platform : m.platforms)
      ok = ok && platform.error.empty();
    for (const self_test_result& r : results)
      ok = ok && r.ok();
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clscan-info: %s\n", e.what());
    return 1;
  }
}
