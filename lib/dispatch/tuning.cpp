// Launch shapes: the defaults per device, CLSCAN_TUNING, the tuning file, and the memory checks that
// keep a shape within what the device and the kernels can hold.
#include "tuning.hpp"

#include "algorithms/algorithm_unit.hpp"
#include "element.hpp"
#include "files.hpp"
#include "log.hpp"
#include "program/disk_cache.hpp"
#include "qualify.hpp"
#include "settings.hpp"

#include <clscan/error.hpp>
#include <clscan/names.hpp>

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace clscan {
namespace detail {

// Reads "wg=128,items=16,vec=4,lookback=16,lanes=2" (fields separated by commas or spaces, each
// optional) into `shape`; `source` names where the text came from, for the error message. A shape
// whose runs the default lanes do not divide, and that names no lanes, runs as one lane.
void parse_shape(const std::string& text, const std::string& source, tuning& shape) {
  std::size_t wg = shape.work_group_size, items = shape.items_per_thread, vec = shape.vector_width;
  std::size_t lookback = shape.lookback;
  // 0: not given (the default lanes, where they divide the run); given, it must be at least 1.
  std::size_t lanes = 0;
  bool lanes_given = false;
  std::vector<std::string> names_given;
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
                          : name == "lanes"    ? &lanes
                                               : nullptr;
    // Up to 2^30 each, so that a tile (wg * items) and its bytes never overflow.
    const std::optional<std::size_t> value =
        equals == std::string::npos
            ? std::nullopt
            : parse_count(std::string_view(field).substr(equals + 1), std::size_t{1} << 30);
    if (!target || !value) {
      std::string message = source;
      message.append("='").append(text).append("' is not valid: '").append(field);
      message.append(
          "' is not one of wg=, items=, vec=, lookback=, lanes= with a whole number from 1 to 2^30");
      throw invalid_argument(message);
    }
    if (std::find(names_given.begin(), names_given.end(), name) != names_given.end()) {
      std::string message = source;
      message.append("='").append(text).append("' is not valid: ").append(name).append("= is given twice");
      throw invalid_argument(message);
    }
    names_given.push_back(name);
    *target = *value;
    lanes_given = lanes_given || target == &lanes;
  }
  const bool valid_vec = vec == 1 || vec == 2 || vec == 4 || vec == 8 || vec == 16;
  // A tile of one element would never shrink the three-stage recursion.
  if (wg == 0 || items == 0 || wg * items < 2 || !valid_vec || items % vec != 0 || lookback == 0 ||
      (lanes_given && (lanes == 0 || (items / vec) % lanes != 0)))
    throw invalid_argument(source + "='" + text +
                           "' is not valid: wg >= 1, vec in {1,2,4,8,16}, items a multiple of vec, at least "
                           "2 elements per tile (wg * items), lookback >= 1, lanes dividing items / vec");
  if (!lanes_given) lanes = (items / vec) % shape.run_lanes == 0 ? shape.run_lanes : 1;
  shape.work_group_size = wg;
  shape.items_per_thread = items;
  shape.vector_width = vec;
  shape.lookback = lookback;
  shape.run_lanes = lanes;
}

namespace {

std::string tuning_path(const device_capabilities& caps) {
  const std::string dir = disk_cache_directory();
  return dir.empty() ? std::string() : dir + "/tuning-" + device_stem(caps) + ".txt";
}

std::size_t local_memory_bytes(const tuning& shape, const device_capabilities& caps, element_type type,
                               algorithm algo) {
  return unit_of(algo).local_memory_bytes(shape, caps, type);
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

std::size_t small_input_bytes(const device_capabilities& caps, algorithm algo) {
  // GPU single-pass scans of up to 1 MiB run on smaller tiles, so that more work-groups share the
  // work: on an H100, 2^16 int sums took 9.0 us with 16 KiB tiles and 14.1 us with 40 KiB ones. On an
  // H200 (2026-11-23, three rounds) the 32 KiB tiles of large inputs were as fast at 2^18 (11.5-12.7
  // against 11.3-14.2 us) and faster from 2^20 on: 2^21 18.5-19.2 against 20.8-23.3 us, 2^22
  // 24.8-25.0 against 28.9-30.8 us (docs/PERFORMANCE.md). The limit was 16 MiB before.
  return caps.is_gpu() && algo == algorithm::single_pass ? std::size_t{1} << 20 : 0;
}

std::size_t by_key_small_input_bytes(const device_capabilities& caps) {
  // Scans by key read a key beside every value and do more per element, and 32 KiB tiles of values
  // leave a 4 MiB input (2^20 ints) with 128 tiles, fewer than one per SM of an H200. There, 2^20 int
  // values took 20 us on the small-input shape against 25 us (two rounds); at 2^22 the small one was
  // slower (42 against 37 us; 2026-11-23, docs/PERFORMANCE.md). Since the fixed tree takes mid sizes
  // (fixed_order_tiles), 8 MiB inputs are faster on small tiles too (H200, 2026-11-24, one of three
  // runs, three rounds): 2^21 ints 24.5-29.5 us against 27.7-32.5, 2^21 floats 24.9-28.4 against 27.2-31.7,
  // 2^20 longs 23.5-28.0 against 26.5-29.8; 2^20 doubles were mixed.
  return 8 * small_input_bytes(caps, algorithm::single_pass);
}

bool runs_split_work_items(const device_capabilities& caps, bool reads_values, bool small_inputs) {
  // A work-item walks its run of the tile twice (reducing, then writing each run's value), one element
  // after the other. On an H100 (int keys in runs of 1 to 1999, clscan-bench --primitive P --type int
  // --sizes 2^24,2^28, CLSCAN_TUNING; ratio to copy) reduce_by_key ran at 0.34 / 0.51 on 128 x 64 and
  // 0.44 / 0.67 on 256 x 32, unique_by_key 0.73 / 1.52 and 0.80 / 1.54, run_length_encode 0.57 / 0.99
  // and 0.55 / 0.80 (docs/data/runs/h100-2026-11-28-runs-shapes). Once run_length_encode visited only
  // the heads and a run's value was written at the next head, on an H200
  // (docs/data/runs/h200-2026-11-28-runs-shapes), 256 x 32 still led for reduce_by_key (0.40 / 0.54
  // against 0.29 / 0.40), unique_by_key was even (0.70 / 1.15 against 0.62 / 1.17) and
  // run_length_encode still slower; 512 x 16 was slower for all three.
  return caps.is_gpu() && reads_values && !small_inputs && caps.vendor.find("NVIDIA") != std::string::npos;
}

tile_range fixed_order_tiles(const device_capabilities& caps) {
  // When every tile of a scan is resident at once, the fixed tree of radix 16 bounds how long a tile
  // waits (one published total per level) where the nearest-first look-back may walk back over many
  // tiles that have published only their own totals. On an H200 (132 SMs, six work-groups each;
  // 2026-11-23, six rounds on two machines, docs/PERFORMANCE.md) int sums of 2^22 elements (512 tiles)
  // took a median 22.5 us on the tree against 26.4, float 23.0 against 25.6, and long sums of 2^21
  // (512 tiles of 4096) 27.3 against 30.9; double was mixed (faster at 2^21, slower at 2^20 and 2^22).
  // On an H100 (132 SMs, three rounds) ints of 2^21 took 17.5-18.2 against 19.2-19.3 us, 2^22
  // 24.0-24.5 against 26.7-27.1. At 2^23 ints (1024 tiles) the tree ran level on the H200 and 2.5 %
  // slower on the H100, and at 2^20 ints (128 tiles, fewer than the SMs) it lost on the H200 (18.0
  // against 15.4 us). So: more tiles than compute units, at most four per compute unit. The other
  // one-pass calls gain alike (H200, 2026-11-24, three rounds): select_if int 2^22 22.9-23.2 against
  // 25.5-28.5 us, unique int 2^22 25.2-27.3 against 27.5-28.2, inclusive_by_key int 2^22 33.7-34.4
  // against 37.9-38.5 and 2^20 (256 small tiles) 18.4-18.6 against 20.3-20.4. Other GPUs have not
  // been measured.
  if (!caps.is_gpu()) return {};
  return {std::size_t{caps.compute_units} + 1, 4 * std::size_t{caps.compute_units}};
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
  // Enough predecessors per round that a round usually reaches a published prefix, few enough that
  // work-item 0 combines them quickly: on an H200 (2026-11-24, docs/PERFORMANCE.md) int sums at 2^28
  // ran at 0.795 of copy with 4, 0.822 with 8, 0.826 with 16, 0.799 with 32 and 0.640 with 128; float
  // and double alike. At most a work-group, since each work-item reads one.
  shape.lookback = std::min<std::size_t>(shape.work_group_size, 16);
  // A GPU work-item combines its run of the local tile in two independent chains for floating-point
  // types: compilers reassociate integer sums themselves, but not floating-point ones, whose run
  // was one chain of 64 dependent adds. On an H200 (2^28, ratio to copy) float sums went from 0.58 to
  // 0.79 and double from 0.63 to 0.78 with two chains (four: 0.79 / 0.77, eight: 0.68 / 0.75); int
  // and long lost 3% and 6% with two, so they keep one (docs/PERFORMANCE.md, "Defaults").
  const std::size_t run_vectors = shape.items_per_thread / shape.vector_width;
  if (caps.is_gpu() && algo == algorithm::single_pass && is_floating(type) && run_vectors % 2 == 0)
    shape.run_lanes = 2;
  shape.spin_limit = 1024;
  shape.origin = "default";
  // clscan-tune measures large inputs; its shape does not replace the small-input one.
  if (!small_inputs) apply_tuned_shape(caps, type, algo, shape);
  // CLSCAN_TUNING="wg=128,items=16,vec=4,lookback=16" overrides every variant (tuning experiments,
  // or working around a device problem without a rebuild).
  if (const std::string_view text = tuning_override(); !text.empty()) {
    parse_shape(std::string(text), "CLSCAN_TUNING", shape);
    shape.origin = "CLSCAN_TUNING";
  }
  // CLSCAN_SPIN_LIMIT=0 makes the single-pass look-back fall back at once (tests of that path).
  if (const std::optional<std::size_t> limit = spin_limit_override()) shape.spin_limit = *limit;
  check_private_memory(shape, caps, type, algo);
  check_local_memory(shape, caps, type, algo);
  return shape;
}

std::size_t sort_base_items(std::size_t work_group_size) {
  return std::max<std::size_t>(1, 4096 / work_group_size);
}

bool sort_ranks_in_warps(const device_capabilities& caps, std::size_t work_group_size) {
  return caps.nvidia_warp_ptx && work_group_size % 32 == 0;
}

tuning sort_tuning(const device_capabilities& caps, bool one_pass, bool values_move) {
  tuning shape;
  shape.vector_width = 1;
  if (!caps.is_gpu()) {
    // CPUs run a work-group as a loop on one core: one work-item per tile counts and scatters its keys
    // in input order (stable without ranking them), on tiles of 16384 keys that stay in the core's
    // cache between the count and the scatter. On PoCL (2 cores) this ran 2^24 int sorts several
    // times faster than work-groups of 64 ranking 4096 keys in local memory.
    shape.work_group_size = 1;
    shape.items_per_thread = 16384;
    return shape;
  }
  // Tiles of 4096 keys (positions in a tile fit 16 bits; with 32-bit keys and values, 256 work-items,
  // about 38 KiB of local memory), and of 6144 for the one-pass kernel on keys alone, where fewer tiles
  // mean fewer look-backs over 256 digits. On the H100 (2026-11-27, bench/profile/sort_kernels.cpp
  // --shape, 2^24 uint keys, sort µs; docs/data/runs/h100-2026-11-27-sort-onepass): one-pass keys
  // 256 x 16 1089, 256 x 24 930, 256 x 32 1136, 384 x 16 1232, 192 x 32 1157; one-pass pairs 256 x 16
  // 1480, 256 x 24 1816, 384 x 16 1670; three-stage keys 256 x 16 1011, 256 x 24 1121.
  shape.work_group_size = std::min<std::size_t>(caps.max_work_group_size, 256);
  shape.items_per_thread = sort_base_items(shape.work_group_size);
  if (one_pass && !values_move) shape.items_per_thread = shape.items_per_thread * 3 / 2;
  // Ranked in warps, the one-pass kernel gains from larger tiles and work-groups: on an H200
  // (2026-11-27, sort_kernels --single-pass --define CLSCAN_SORT_RANK_MATCH=2, 2^24 uint, one-pass
  // kernel µs; docs/data/runs/h200-2026-11-27-sort-shapes) keys 256 x 24 616, 256 x 32 560, 384 x 16
  // 594, 384 x 20 545, 512 x 12 599; pairs 256 x 16 1039, 256 x 20 975, 384 x 12 924, 512 x 8 936.
  if (one_pass && caps.max_work_group_size >= 384 && sort_ranks_in_warps(caps, 384)) {
    shape.work_group_size = 384;
    shape.items_per_thread = values_move ? 12 : 20;
  }
  return shape;
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
          " lookback=" + std::to_string(shape.lookback) + " lanes=" + std::to_string(shape.run_lanes) + '\n';
  detail::make_cache_directory();
  if (const std::string failure = detail::replace_file(path, text); !failure.empty())
    throw error("clscan: " + failure);
}

} // namespace clscan
