// Dispatch: reads the device's capabilities and the request, and picks the algorithm, the program
// variant and its launch shape. Vendor or device-type checks here only tune speed; whether a path can
// run at all is decided from capabilities.
#include "dispatch.hpp"
#include "qualify.hpp"

#include "disk_cache.hpp"
#include "log.hpp"

#include <clscan/error.hpp>
#include <clscan/names.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <tuple>
#include <vector>

#include <unistd.h>

namespace clscan {

namespace detail {
namespace {

// Work-items per segment of the raking work-group scan (CLSCAN_RAKE_SEGMENT in kernels/scan_common.cl).
constexpr std::size_t rake_segment = 16;

bool is_floating(element_type type) { return type == element_type::float32 || type == element_type::float64; }

template <typename T> element_value value_of(T value) { return element_value::of(value); }

// The smallest and largest value of each type, as the identities of max and min.
element_value lowest(element_type type) {
  switch (type) {
  case element_type::int32: return value_of<cl_int>(CL_INT_MIN);
  case element_type::uint32: return value_of<cl_uint>(0);
  case element_type::int64: return value_of<cl_long>(CL_LONG_MIN);
  case element_type::uint64: return value_of<cl_ulong>(0);
  case element_type::float32: return value_of<cl_float>(-CL_HUGE_VALF);
  case element_type::float64: return value_of<cl_double>(-CL_HUGE_VAL);
  }
  return {};
}

element_value highest(element_type type) {
  switch (type) {
  case element_type::int32: return value_of<cl_int>(CL_INT_MAX);
  case element_type::uint32: return value_of<cl_uint>(CL_UINT_MAX);
  case element_type::int64: return value_of<cl_long>(CL_LONG_MAX);
  case element_type::uint64: return value_of<cl_ulong>(CL_ULONG_MAX);
  case element_type::float32: return value_of<cl_float>(CL_HUGE_VALF);
  case element_type::float64: return value_of<cl_double>(CL_HUGE_VAL);
  }
  return {};
}

// An exact OpenCL C expression for a value: its bits reinterpreted with as_<type>().
std::string literal(element_type type, const element_value& value) {
  char text[64];
  if (size_of(type) == 4) {
    cl_uint bits = 0;
    std::memcpy(&bits, value.bytes, 4);
    std::snprintf(text, sizeof text, "as_%s((uint)0x%08xu)", opencl_name(type), bits);
  } else {
    cl_ulong bits = 0;
    std::memcpy(&bits, value.bytes, 8);
    std::snprintf(text, sizeof text, "as_%s((ulong)0x%016llxul)", opencl_name(type),
                  static_cast<unsigned long long>(bits));
  }
  return text;
}

const char* op_define(op operation) {
  switch (operation) {
  case op::sum: return "CLSCAN_OP_SUM";
  case op::min: return "CLSCAN_OP_MIN";
  case op::max: return "CLSCAN_OP_MAX";
  case op::bit_and: return "CLSCAN_OP_AND";
  case op::bit_or: return "CLSCAN_OP_OR";
  case op::bit_xor: return "CLSCAN_OP_XOR";
  case op::custom: return "CLSCAN_OP_CUSTOM";
  }
  return "CLSCAN_OP_SUM";
}

// A count written as decimal digits only: no sign, no spaces, no suffix, at most `limit`. strtoul
// would take "-1" as ULONG_MAX and "12abc" as 12.
std::optional<std::size_t> parse_count(std::string_view text, std::size_t limit) {
  if (text.empty()) return std::nullopt;
  std::size_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::size_t>(c - '0');
    if (value > (limit - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// Reads "wg=128,items=16,vec=4,lookback=16" (fields separated by commas or spaces, each optional)
// into `shape`; `source` names where the text came from, for the error message.
void parse_shape(const std::string& text, const std::string& source, tuning& shape) {
  std::size_t wg = shape.work_group_size, items = shape.items_per_thread, vec = shape.vector_width;
  std::size_t lookback = shape.lookback;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find_first_of(", ", pos), text.size());
    const std::string field = text.substr(pos, end - pos);
    pos = end + 1;
    if (field.empty()) continue;
    const std::size_t equals = field.find('=');
    const std::string name = field.substr(0, equals);
    std::size_t* target = name == "wg"         ? &wg
                          : name == "items"    ? &items
                          : name == "vec"      ? &vec
                          : name == "lookback" ? &lookback
                                               : nullptr;
    // Up to 2^30 each, so that a tile (wg * items) and its bytes never overflow.
    const std::optional<std::size_t> value =
        equals == std::string::npos
            ? std::nullopt
            : parse_count(std::string_view(field).substr(equals + 1), std::size_t{1} << 30);
    if (!target || !value) {
      std::string message = source;
      message.append("='").append(text).append("' is not valid: '").append(field);
      message.append("' is not one of wg=, items=, vec=, lookback= with a whole number from 1 to 2^30");
      throw invalid_argument(message);
    }
    *target = *value;
  }
  const bool valid_vec = vec == 1 || vec == 2 || vec == 4 || vec == 8 || vec == 16;
  // A tile of one element would never shrink the three-stage recursion.
  if (wg == 0 || items == 0 || wg * items < 2 || !valid_vec || items % vec != 0 || lookback == 0)
    throw invalid_argument(source + "='" + text +
                           "' is not valid: wg >= 1, vec in {1,2,4,8,16}, items a multiple of vec, at least "
                           "2 elements per tile (wg * items), lookback >= 1");
  shape.work_group_size = wg;
  shape.items_per_thread = items;
  shape.vector_width = vec;
  shape.lookback = lookback;
}

std::string tuning_path(const device_capabilities& caps) {
  const std::string dir = disk_cache_directory();
  return dir.empty() ? std::string() : dir + "/tuning-" + device_stem(caps) + ".txt";
}

// Bytes of local memory `algo`'s kernel declares for `shape`: the work-group scan's scratch
// (CLSCAN_SCRATCH_SIZE in kernels/scan_common.cl), and for the single-pass kernel its look-back state
// and, on GPUs, its tile with one vector of padding per work-item (CLSCAN_TILE_VECTORS).
std::size_t local_memory_bytes(const tuning& shape, const device_capabilities& caps, element_type type,
                               algorithm algo) {
  const std::size_t element_size = size_of(type);
  const std::size_t wg = shape.work_group_size;
  const std::size_t segments = (wg + rake_segment - 1) / rake_segment;
  std::size_t bytes = (wg + wg / rake_segment + segments) * element_size;
  if (algo == algorithm::single_pass) {
    bytes += std::min(shape.lookback, wg) * (sizeof(cl_int) + element_size) + 64;
    if (caps.is_gpu()) bytes += wg * (shape.items_per_thread + shape.vector_width) * element_size;
  }
  return bytes;
}

// Throws invalid_argument when `shape` needs more local memory than the device has per work-group
// (a tuned or CLSCAN_TUNING shape; the defaults are shrunk to fit).
void check_local_memory(const tuning& shape, const device_capabilities& caps, element_type type,
                        algorithm algo) {
  const std::size_t bytes = local_memory_bytes(shape, caps, type, algo);
  if (bytes > caps.local_mem_size)
    throw invalid_argument(shape.origin + ": wg=" + std::to_string(shape.work_group_size) +
                           ",items=" + std::to_string(shape.items_per_thread) +
                           ",vec=" + std::to_string(shape.vector_width) + " needs " + std::to_string(bytes) +
                           " bytes of local memory for the " + to_string(algo) + " kernel of " +
                           opencl_name(type) + " on '" + caps.name + "', which has " +
                           std::to_string(caps.local_mem_size) + " per work-group");
}

// Throws invalid_argument when `shape` would make `algo`'s kernel keep more private memory per
// work-group than a device can be trusted with.
void check_private_memory(const tuning& shape, const device_capabilities& caps, element_type type,
                          algorithm algo) {
  // The three-stage kernels keep each work-item's run in an element array, so a work-group holds a
  // tile of private memory. CPU implementations keep it on a worker thread's stack (8 MiB on PoCL,
  // where a 16 x 131072-element tile of cl_int crashed the process), GPUs in spilled memory; larger
  // shapes are refused rather than tried. (The single-pass kernel keeps its tile in local memory on
  // GPUs and streams it on CPUs.)
  constexpr std::size_t max_private_tile_bytes = std::size_t{1} << 20;
  const std::size_t tile_bytes = shape.work_group_size * shape.items_per_thread * size_of(type);
  if (algo == algorithm::three_stage && tile_bytes > max_private_tile_bytes)
    throw invalid_argument(
        shape.origin + ": wg=" + std::to_string(shape.work_group_size) +
        ",items=" + std::to_string(shape.items_per_thread) + ",vec=" + std::to_string(shape.vector_width) +
        " makes " + std::to_string(tile_bytes) + "-byte tiles of " + opencl_name(type) + " for the " +
        to_string(algo) + " kernel on '" + caps.name + "', which keeps a tile in private memory: at most " +
        std::to_string(max_private_tile_bytes) + " bytes");
}

// The tuned shape for (algo, type) from the device's tuning file, if it has one. A file that cannot
// be read is treated as absent, and a line that is malformed or does not fit the device as missing.
bool apply_tuned_shape(const device_capabilities& caps, element_type type, algorithm algo, tuning& shape) {
  const std::string path = tuning_path(caps);
  if (path.empty()) return false;
  std::string text;
  if (const std::string why = read_small_file(path, max_small_file_bytes, text); !why.empty()) {
    if (why != "missing") log(log_level::warning, "ignoring tuning file " + path + ": " + why);
    return false;
  }
  std::istringstream in(text);
  const std::string key = std::string(to_string(algo)) + " " + opencl_name(type) + " ";
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    // The file sits in the cache directory, where anything may end up: a line that does not parse
    // or does not fit the device is ignored like a damaged cache entry, never fatal.
    tuning tuned = shape;
    tuned.origin = "tuned: " + path;
    try {
      parse_shape(line.substr(key.size()), path, tuned);
      check_private_memory(tuned, caps, type, algo);
      check_local_memory(tuned, caps, type, algo);
    } catch (const invalid_argument& e) {
      log(log_level::warning, "ignoring tuning line '" + line + "': " + e.what());
      continue;
    }
    shape = tuned;
    return true;
  }
  return false;
}

} // namespace

bool variant_key::operator<(const variant_key& other) const {
  const auto tie = [](const variant_key& k) {
    const std::string_view custom = k.custom_op ? std::string_view(*k.custom_op) : std::string_view();
    return std::make_tuple(k.algo, k.type, k.operation, k.work_group_size, k.items_per_thread, k.vector_width,
                           k.lookback, k.spin_limit, k.aligned, custom);
  };
  if (tie(*this) != tie(other)) return tie(*this) < tie(other);
  return std::memcmp(custom_identity.bytes, other.custom_identity.bytes, sizeof custom_identity.bytes) < 0;
}

element_value identity_of(element_type type, op operation, const element_value& custom_identity) {
  // Floating-point min and max are fmin and fmax, whose identity is NaN (a NaN never hides a number:
  // fmin(NaN, x) == x); a floating-point sum's identity is -0.0 (-0.0 + x == x for every x, -0.0 and
  // NaN included, where +0.0 would turn a leading -0.0 into +0.0). Quiet NaNs with no payload.
  if (type == element_type::float32 && (operation == op::min || operation == op::max))
    return value_of<cl_uint>(0x7fc00000u);
  if (type == element_type::float64 && (operation == op::min || operation == op::max))
    return value_of<cl_ulong>(0x7ff8000000000000ull);
  if (type == element_type::float32 && operation == op::sum) return value_of<cl_uint>(0x80000000u);
  if (type == element_type::float64 && operation == op::sum) return value_of<cl_ulong>(0x8000000000000000ull);
  switch (operation) {
  case op::min: return highest(type);
  case op::max: return lowest(type);
  case op::bit_and: return value_of<cl_ulong>(~cl_ulong{0});
  case op::custom: return custom_identity;
  case op::sum:
  case op::bit_or:
  case op::bit_xor: break;
  }
  element_value zero; // all-zero bits are 0 and +0.0 in every supported type
  return zero;
}

bool wide_status_words(const device_capabilities& caps) {
  // CLSCAN_NARROW_STATUS=1 gives devices with 64-bit atomics the layout of those without, so that
  // tests (Oclgrind, fuzz, tag wrap-around) reach it on the devices at hand. Read once: every
  // launch in a process must use the layout the status words were written with.
  static const bool narrow_forced = [] {
    const char* text = std::getenv("CLSCAN_NARROW_STATUS");
    return text && *text && std::strcmp(text, "0") != 0;
  }();
  return caps.int64_atomics && !narrow_forced;
}

bool acq_rel_status(const device_capabilities& caps) {
  // CLSCAN_MEMORY_MODEL=fences gives devices with release/acquire atomics the OpenCL 1.2 protocol, so
  // that tests reach it there; read on each call (part of the qualification's settings).
  const char* model = std::getenv("CLSCAN_MEMORY_MODEL");
  if (model && *model) {
    if (std::strcmp(model, "fences") == 0) return false;
    if (std::strcmp(model, "acq_rel") != 0)
      throw invalid_argument(std::string("CLSCAN_MEMORY_MODEL='") + model + "' must be fences or acq_rel");
  }
  return !caps.acq_rel_cl_std.empty() && (!wide_status_words(caps) || caps.int64_extended_atomics);
}

std::string program_prelude(const variant_key& key, const device_capabilities& caps) {
  std::string prelude;
  if (key.type == element_type::float64) prelude += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  prelude += std::string("#define CLSCAN_T ") + opencl_name(key.type) + "\n";
  prelude += "#define CLSCAN_ELEM_SIZE " + std::to_string(size_of(key.type)) + "\n";
  // One status-word width per device, so that words left by any earlier launch on the same
  // workspace are read with the layout they were written with.
  if (key.algo == algorithm::single_pass) {
    prelude += std::string("#define CLSCAN_WIDE_STATUS ") + (wide_status_words(caps) ? "1" : "0") + "\n";
    prelude += std::string("#define CLSCAN_ACQ_REL ") + (acq_rel_status(caps) ? "1" : "0") + "\n";
    // GPUs keep the tile in local memory and coalesce global accesses across work-items; CPUs stream
    // each work-item's run. Overridable with -D (e.g. Oclgrind's --build-options, to check the CPU
    // variant on it).
    prelude += std::string("#ifndef CLSCAN_REREAD\n#define CLSCAN_REREAD ") + (caps.is_gpu() ? "0" : "1") +
               "\n#endif\n";
  }
  prelude += "#define CLSCAN_IDENTITY " +
             literal(key.type, identity_of(key.type, key.operation, key.custom_identity)) + "\n";
  prelude += std::string("#define ") + op_define(key.operation) + "\n";
  if (is_floating(key.type)) prelude += "#define CLSCAN_FLOATING 1\n";
  if (key.operation == op::sum && key.type == element_type::int32) prelude += "#define CLSCAN_WRAP_T uint\n";
  if (key.operation == op::sum && key.type == element_type::int64) prelude += "#define CLSCAN_WRAP_T ulong\n";
  if (key.operation == op::custom) {
    std::string expression = *key.custom_op;
    std::replace(expression.begin(), expression.end(), '\n', ' ');
    prelude += "#define CLSCAN_COMBINE(a, b) (" + expression + ")\n";
  }
  return prelude;
}

std::string build_options(const variant_key& key, const device_capabilities& caps) {
  // CLSCAN_BUILD_OPTIONS is appended to every program's options (diagnosis, and tests that compile
  // a kernel with a fault of their own, e.g. -DCLSCAN_TEST_SILENT_TILE). The disk cache key holds
  // the options, so such builds never share entries with normal ones.
  const char* extra = std::getenv("CLSCAN_BUILD_OPTIONS");
  return "-DCLSCAN_WG=" + std::to_string(key.work_group_size) +
         " -DCLSCAN_RAKE_SEGMENT=" + std::to_string(rake_segment) +
         " -DCLSCAN_ITEMS=" + std::to_string(key.items_per_thread) +
         " -DCLSCAN_VEC=" + std::to_string(key.vector_width) +
         " -DCLSCAN_ALIGNED=" + (key.aligned ? "1" : "0") +
         (key.algo == algorithm::single_pass ? " -DCLSCAN_LOOKBACK=" + std::to_string(key.lookback) +
                                                   " -DCLSCAN_SPIN_LIMIT=" + std::to_string(key.spin_limit)
                                             : "") +
         (key.algo == algorithm::single_pass && acq_rel_status(caps) ? " -cl-std=" + caps.acq_rel_cl_std
                                                                     : std::string()) +
         (extra && *extra ? std::string(" ") + extra : std::string());
}

std::size_t small_input_bytes(const device_capabilities& caps, algorithm algo) {
  // GPU single-pass scans of up to 16 MiB run on smaller tiles, so that more work-groups share the
  // work: on an H100, 2^16 int sums took 9.0 us with 16 KiB tiles and 14.1 us with 40 KiB ones; the
  // two met at 2^22 (docs/PERFORMANCE.md).
  return caps.is_gpu() && algo == algorithm::single_pass ? std::size_t{16} << 20 : 0;
}

tuning initial_tuning(const device_capabilities& caps, element_type type, algorithm algo, bool small_inputs) {
  tuning shape;
  const std::size_t element_size = size_of(type);
  // Vector loads of 16 bytes suit both GPUs (one coalesced 16-byte access per work-item) and CPUs.
  shape.vector_width = 16 / element_size;
  if (caps.is_gpu() && algo == algorithm::single_pass) {
    // The single-pass kernel keeps its tile in local memory and amortizes its look-back over the
    // tile: larger tiles are faster as long as enough work-groups stay resident. On an H100 (int sums
    // at 2^26..2^30, docs/PERFORMANCE.md) 128 work-items with 32 KiB tiles ran at 0.90..0.96 of
    // copy, 24 KiB at 0.88..0.94, 40 KiB at 0.81..0.87. Small inputs run on 16 KiB tiles of 256
    // work-items (see small_input_bytes). Other GPUs have not been measured: 16 KiB leaves room
    // for several work-groups where local memory per compute unit is 64 KiB (AMD, Intel), and
    // clscan-tune finds the best shape on the device itself.
    const bool nvidia = caps.vendor.find("NVIDIA") != std::string::npos;
    shape.work_group_size = std::min<std::size_t>(caps.max_work_group_size, small_inputs ? 256 : 128);
    const std::size_t tile_bytes = (nvidia && !small_inputs ? std::size_t{32} : std::size_t{16}) << 10;
    shape.items_per_thread =
        std::max(shape.vector_width, tile_bytes / (shape.work_group_size * element_size) /
                                         shape.vector_width * shape.vector_width);
  } else if (caps.is_gpu()) {
    // The three-stage kernels move one vector per work-item.
    shape.work_group_size = std::min<std::size_t>(caps.max_work_group_size, 256);
    shape.items_per_thread = shape.vector_width;
  } else if (algo == algorithm::single_pass) {
    // CPU implementations run a work-group as a loop on one core. The single-pass kernel then works
    // best as one work-item per tile that reduces its run and reads it again to scan it
    // (CLSCAN_REREAD), and with tiles of 1 MiB: each work-group costs PoCL a few microseconds to
    // schedule, and 1 MiB tiles ran 2^24 int sums at mostly 1.16-1.30 of copy on 2 cores where
    // 64 KiB tiles ran 0.70-1.03 (docs/PERFORMANCE.md).
    //
    // Where one work-item per work-group fails the qualification (qualify.cpp), work-groups of 64
    // work-items share the same tile: a whole number of SIMD widths on any CPU implementation. Mesa's
    // llvmpipe runs a work-group in SIMD groups of 8 and lets the unused lanes of a partial group
    // take part in loop control; their loads read zero, so a wait for a predecessor never ends for
    // them (docs/RELIABILITY.md, "rusticl").
    shape.work_group_size = qualified_candidate(caps, type) == single_pass_candidate::whole_simd
                                ? std::min<std::size_t>(caps.max_work_group_size, 64)
                                : 1;
    shape.items_per_thread =
        std::max(shape.vector_width, (std::size_t{1} << 20) / element_size / shape.work_group_size /
                                         shape.vector_width * shape.vector_width);
  } else {
    // Few work-items with long runs, so the work-group scan and its barriers cost little.
    shape.work_group_size = std::min<std::size_t>(caps.max_work_group_size, 16);
    shape.items_per_thread = 256;
  }
  shape.lookback = 16;
  while (local_memory_bytes(shape, caps, type, algo) > caps.local_mem_size &&
         shape.items_per_thread > shape.vector_width)
    shape.items_per_thread =
        std::max(shape.vector_width, shape.items_per_thread / 2 / shape.vector_width * shape.vector_width);
  while (local_memory_bytes(shape, caps, type, algo) > caps.local_mem_size && shape.work_group_size > 1)
    shape.work_group_size /= 2;
  // Enough predecessors per round that a round usually reaches a published prefix (8, 16 and 32
  // measured alike on an H100 and an H200); at most a work-group, since each work-item reads one.
  shape.lookback = std::min<std::size_t>(shape.work_group_size, 16);
  shape.spin_limit = 1024;
  shape.origin = "default";
  // clscan-tune measures large inputs; its shape does not replace the small-input one.
  if (!small_inputs) apply_tuned_shape(caps, type, algo, shape);
  // CLSCAN_TUNING="wg=128,items=16,vec=4,lookback=16" overrides every variant (tuning experiments,
  // or working around a device problem without a rebuild).
  if (const char* text = std::getenv("CLSCAN_TUNING"); text && *text) {
    parse_shape(text, "CLSCAN_TUNING", shape);
    shape.origin = "CLSCAN_TUNING";
  }
  // CLSCAN_SPIN_LIMIT=0 makes the single-pass look-back fall back at once (tests of that path).
  if (const char* text = std::getenv("CLSCAN_SPIN_LIMIT"); text && *text) {
    // The kernel counts rounds in an int.
    const std::optional<std::size_t> limit = parse_count(text, 0x7fffffff);
    if (!limit)
      throw invalid_argument(std::string("CLSCAN_SPIN_LIMIT='") + text +
                             "' is not a whole number from 0 to 2147483647");
    shape.spin_limit = *limit;
  }
  check_private_memory(shape, caps, type, algo);
  check_local_memory(shape, caps, type, algo);
  return shape;
}

bool single_pass_supported(const device_capabilities& caps, element_type type) {
  (void)type;
  return caps.int32_global_atomics;
}

std::optional<algorithm> choose_algorithm(const scan_request& request, const device_capabilities& caps,
                                          std::size_t n, std::size_t three_stage_tile,
                                          const single_pass_qualification* verdict) {
  if (request.algo == algorithm::single_pass) {
    if (!single_pass_supported(caps, request.type))
      throw unsupported_error("algorithm::single_pass needs global 32-bit atomics, which device '" +
                              caps.name + "' does not have");
    if (!verdict) return std::nullopt;
    if (!verdict->passed)
      throw unsupported_error("algorithm::single_pass was disqualified on device '" + caps.name +
                              "' (its check scans were wrong: " + verdict->detail +
                              "); CLSCAN_QUALIFY=0 runs it anyway");
    return algorithm::single_pass;
  }
  if (request.algo == algorithm::three_stage) return algorithm::three_stage;
  // Deterministic floating-point results need a combination order that does not depend on
  // scheduling; one tile is a single launch of either algorithm, and the three-stage one needs no
  // atomics for it.
  const bool needs_fixed_order = request.deterministic && is_floating(request.type);
  if (needs_fixed_order || n <= three_stage_tile || !single_pass_supported(caps, request.type))
    return algorithm::three_stage;
  if (!verdict) return std::nullopt;
  return verdict->passed ? algorithm::single_pass : algorithm::three_stage;
}

void validate_request(const scan_request& request, const device_capabilities& caps) {
  if (request.type == element_type::float64 && !caps.fp64)
    throw unsupported_error("cl_double scans need fp64 (cl_khr_fp64), which device '" + caps.name +
                            "' does not have");
  const bool bitwise =
      request.operation == op::bit_and || request.operation == op::bit_or || request.operation == op::bit_xor;
  if (bitwise && is_floating(request.type))
    throw invalid_argument(std::string("bitwise operators need an integer element type, not ") +
                           opencl_name(request.type));
  if (request.operation == op::custom) {
    if (!request.custom_op || request.custom_op->empty())
      throw invalid_argument("op::custom needs options::custom_op, an OpenCL C expression of a and b");
    if (request.custom_op->find('\0') != std::string::npos)
      throw invalid_argument(
          "options::custom_op contains a NUL character, which OpenCL C source cannot hold");
    if (request.custom_op->size() > max_custom_op_bytes)
      throw invalid_argument("options::custom_op is " + std::to_string(request.custom_op->size()) +
                             " bytes; an operator expression may have at most " +
                             std::to_string(max_custom_op_bytes));
  }
  // A forced single-pass scan combines floating-point values in an order that depends on how
  // work-groups are scheduled, so it cannot be deterministic; integer results are exact in any order.
  if (request.deterministic && request.algo == algorithm::single_pass && is_floating(request.type))
    throw invalid_argument("options::deterministic with algorithm::single_pass: single-pass floating-point "
                           "results depend on scheduling; use algorithm::automatic or three_stage");
}

} // namespace detail

std::string tuning_file(const cl::Device& device) { return detail::tuning_path(capabilities(device)); }

void store_tuning(const cl::Device& device, algorithm algo, element_type type, const tuning& shape) {
  const std::string path = tuning_file(device);
  if (path.empty())
    throw error("clscan: the disk cache is off (CLSCAN_NO_CACHE), so tuning cannot be stored");
  const std::string key = std::string(to_string(algo)) + " " + opencl_name(type) + " ";
  std::string old_text, text;
  // Something else under the file's name (a FIFO, a file over 1 MiB) is replaced with this one line.
  const std::string why = detail::read_small_file(path, detail::max_small_file_bytes, old_text);
  if (!why.empty() && why != "missing")
    detail::log(log_level::warning, "replacing tuning file " + path + ": " + why);
  std::istringstream in(old_text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.compare(0, key.size(), key) != 0) text += line + '\n';
  text += key + "wg=" + std::to_string(shape.work_group_size) +
          " items=" + std::to_string(shape.items_per_thread) + " vec=" + std::to_string(shape.vector_width) +
          " lookback=" + std::to_string(shape.lookback) + '\n';
  detail::make_cache_directory();
  if (const std::string failure = detail::replace_file(path, text); !failure.empty())
    throw error("clscan: " + failure);
}

dispatch_plan plan_for(const cl::Device& device, element_type type) {
  const device_capabilities caps = capabilities(device);
  dispatch_plan plan;
  plan.single_pass_available = detail::single_pass_supported(caps, type);
  if (plan.single_pass_available) {
    // Qualified first: the verdict can change the single-pass shape.
    const single_pass_qualification verdict = qualify_single_pass(device, type);
    plan.single_pass_available = verdict.passed;
    const std::string when = verdict.from_disk
                                 ? "stored verdict"
                                 : std::to_string(std::lround(verdict.milliseconds)) + " ms, " +
                                       std::to_string(std::lround(verdict.context_milliseconds)) +
                                       " ms of it making a context";
    plan.single_pass_qualification = !verdict.checked ? verdict.detail
                                                      : (verdict.passed ? "qualified (" : "disqualified (") +
                                                            verdict.detail + "; " + when + ")";
  } else {
    plan.single_pass_qualification = "unavailable (no global 32-bit atomics)";
  }
  plan.single_pass_memory_model = detail::acq_rel_status(caps)
                                      ? "acquire/release atomics (-cl-std=" + caps.acq_rel_cl_std + ")"
                                      : "fences (OpenCL 1.2 atomics)";
  plan.large = plan.single_pass_available ? algorithm::single_pass : algorithm::three_stage;
  plan.three_stage = detail::initial_tuning(caps, type, algorithm::three_stage);
  plan.single_pass = detail::initial_tuning(caps, type, algorithm::single_pass);
  plan.small_input_bytes = detail::small_input_bytes(caps, algorithm::single_pass);
  plan.single_pass_small = plan.small_input_bytes
                               ? detail::initial_tuning(caps, type, algorithm::single_pass, true)
                               : plan.single_pass;
  return plan;
}

} // namespace clscan
