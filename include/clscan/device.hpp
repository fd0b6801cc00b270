// What clscan's dispatch layer reads off a device, and what it chooses from it. clscan-info prints
// both.
#pragma once

#include <clscan/config.hpp>
#include <clscan/options.hpp>
#include <clscan/types.hpp>

#include <cstddef>
#include <string>

namespace clscan {

struct device_capabilities {
  cl_device_id id = nullptr; // the device these were read from
  std::string platform_name;
  std::string platform_version;
  std::string name;
  std::string vendor;
  std::string version;          // CL_DEVICE_VERSION
  std::string driver_version;   // CL_DRIVER_VERSION
  std::string opencl_c_version; // CL_DEVICE_OPENCL_C_VERSION
  cl_device_type type = 0;
  cl_uint compute_units = 0;
  std::size_t max_work_group_size = 0; // of a one-dimensional work-group: also within MAX_WORK_ITEM_SIZES[0]
  cl_ulong local_mem_size = 0;
  cl_ulong global_mem_size = 0;
  cl_ulong max_mem_alloc_size = 0;
  bool fp64 = false;
  bool int64_atomics = false;          // cl_khr_int64_base_atomics
  bool int64_extended_atomics = false; // cl_khr_int64_extended_atomics
  // "CL2.0" or "CL3.0" where OpenCL C has release/acquire atomics at device scope (OpenCL C 2.0, or
  // 3.0 with __opencl_c_atomic_order_acq_rel and __opencl_c_atomic_scope_device); empty otherwise.
  std::string acq_rel_cl_std;
  bool int32_global_atomics = false; // cl_khr_global_int32_base_atomics, or OpenCL >= 1.1
  bool subgroups = false;            // cl_khr_subgroups or cl_intel_subgroups
  // NVIDIA's warp instructions through inline PTX (vote.sync, shfl.sync, bar.warp.sync): NVIDIA's
  // platform, compute capability 7.0 or later (cl_nv_device_attribute_query). The one-pass sort ranks
  // with them (kernels/sort.cl, CLSCAN_SORT_RANK_MATCH).
  bool nvidia_warp_ptx = false;
  bool out_of_order_queues = false; // CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE in CL_DEVICE_QUEUE_PROPERTIES
  // Every command of a call gets an event clscan holds until it ends (PoCL 3.1 aborts when a failure
  // reaches a command whose event nobody holds); false on NVIDIA's platform, where failures do not abort
  // and each event costs device time: only the commands that need one get an event there.
  bool event_per_command = true;
  // A kernel compiled with reqd_work_group_size(N) runs in work-groups of N even where
  // CL_KERNEL_WORK_GROUP_SIZE says less: NVIDIA's platform, whose compiler fits a kernel's registers to
  // the size it requires, while its driver (580) reports 256 for every kernel.
  bool required_size_fits = false;
  // Every loop of a kernel shares one budget of 65535 iterations per work-item, after which each loop
  // stops silently (Mesa's llvmpipe, rusticl's CPU device: docs/RELIABILITY.md, "rusticl"); kernels
  // whose work-items could loop longer take a bounded path there.
  bool loops_limited = false;
  // The CLSCAN_DEVICE_LIMITS text these were capped with (tests: see capabilities() below), else empty.
  std::string limits;
  bool is_gpu() const noexcept { return (type & CL_DEVICE_TYPE_GPU) != 0; }
};

// The device clscan's tools and tests run on: CLSCAN_PLATFORM and CLSCAN_DEVICE, when set, pick the
// platform and device whose name contains the given text (case-insensitive) or whose index it is;
// otherwise the first GPU of any platform, else the first device. Throws clscan::error when none
// matches.
cl::Device select_device();

// Reads the capabilities of `device` (cached after the first call per device).
//
// Test hook: CLSCAN_DEVICE_LIMITS makes clscan believe less of every device than it reports, so that
// the limits of phone and integrated GPUs are exercised on the devices at hand; comma-separated:
//   gpu               treat the device as a GPU (GPU launch shapes: tiles in local memory)
//   cpu               treat the device as a CPU only (CPU launch shapes), e.g. a simulator that
//                     reports every device type
//   wg=N              at most N work-items per work-group
//   local=N           at most N bytes of local memory
//   no_int64_atomics  no cl_khr_int64_base_atomics (32-bit single-pass status words)
//   no_fp64           no cl_khr_fp64 (cl_double scans throw unsupported_error)
//   no_out_of_order   no out-of-order queues (tests then make none)
//   no_acq_rel        no release/acquire atomics (the OpenCL 1.2 fence protocol)
//   few_events        event_per_command off: events only where a call needs them, as on NVIDIA
//   loops_limited     loops_limited on: the paths taken for llvmpipe's loop budget
//   no_warp_ptx       nvidia_warp_ptx off: the portable ranking on NVIDIA too
// Anything else throws invalid_argument naming the variable and the text.
device_capabilities capabilities(const cl::Device& device);

// Launch shape of a scan kernel: a tile is work_group_size * items_per_thread elements.
struct tuning {
  std::size_t work_group_size = 0;
  std::size_t items_per_thread = 0; // elements each work-item holds, a multiple of vector_width
  std::size_t vector_width = 0;     // elements per vector load
  std::size_t lookback = 0;         // single-pass: predecessors examined per look-back round
  std::size_t spin_limit = 0;       // single-pass: rounds without news before falling back
  // single-pass on GPUs: independent chains each work-item's run is combined in (floating-point
  // operators are not reassociated by compilers); divides items_per_thread / vector_width
  std::size_t run_lanes = 1;
  std::string origin; // "default", "tuned: <file>", or "CLSCAN_TUNING"
};

// What dispatch chooses for `device` and element type `type`.
struct dispatch_plan {
  algorithm large = algorithm::three_stage; // algorithm for sizes above one tile
  bool single_pass_available = false;
  tuning single_pass;       // single-pass shape for inputs larger than small_input_bytes
  tuning single_pass_small; // single-pass shape for inputs of at most small_input_bytes
  std::size_t small_input_bytes = 0;
  // Scans by key run on the small shape (with at most 64 elements a work-item) up to this many bytes
  // of values.
  std::size_t by_key_small_input_bytes = 0;
  // Single-pass calls (scans, selections, scans by key) of fixed_order_first_tiles to
  // fixed_order_last_tiles tiles (none where last is 0) combine the tiles' totals in a fixed tree, as
  // deterministic scans do: faster where every tile is resident at once. A call above the small inputs
  // whose large tiles would be fewer than fixed_order_first_tiles runs on the small shape where its
  // tiles then fall in the range.
  std::size_t fixed_order_first_tiles = 0;
  std::size_t fixed_order_last_tiles = 0;
  tuning three_stage;
  tuning reduce; // clscan::reduce's shape (lookback unused)
  // The single-pass qualification for this element size (see single_pass_qualification below), as
  // clscan-info prints it: "qualified (...)", "disqualified (reason)", "not checked (CLSCAN_QUALIFY=0)".
  std::string single_pass_qualification;
  // How single-pass work-groups publish and read their status words: "acquire/release atomics
  // (-cl-std=CL3.0)" or "fences (OpenCL 1.2 atomics)".
  std::string single_pass_memory_model;
};

dispatch_plan plan_for(const cl::Device& device, element_type type = element_type::int32);

// Before the single-pass scan first runs on a device (per driver and clscan version, and element
// size), clscan qualifies it: a few scans of several tiles in the launch shapes it would use, on a
// context of its own, compared exactly with the host. A device that fails runs the three-stage scan
// instead (a forced algorithm::single_pass throws unsupported_error naming the failure). On CPU
// devices a second shape, whole SIMD-width work-groups, is tried before giving up. The verdict is
// stored beside the disk cache ("qualified-<device>.txt"), so the check costs once per machine.
// CLSCAN_QUALIFY=0 skips it (single-pass is trusted), CLSCAN_QUALIFY=1 runs it again in every process.
struct single_pass_qualification {
  bool checked = false;            // false: CLSCAN_QUALIFY=0, or the device has no single-pass scan
  bool passed = false;             // single-pass may run (always true when not checked)
  std::size_t candidate = 0;       // launch shape that passed: 0 the default, 1 whole SIMD-width groups
  bool from_disk = false;          // the verdict was read from the cache directory, not measured now
  double milliseconds = 0;         // time the check took (0 when read from disk)
  double context_milliseconds = 0; // of which making its own context and queue
  std::string detail;              // the failure, or the shape that passed
};

// Qualifies `device` for single-pass scans of `type`'s size (runs the check at most once per process).
single_pass_qualification qualify_single_pass(const cl::Device& device,
                                              element_type type = element_type::int32);

// Tuned launch shapes live in a text file beside the disk cache, one per device (its platform, name
// and driver): "<algorithm> <type> wg=<n> items=<n> vec=<n> lookback=<n>" per line. clscan-tune
// writes it; dispatch reads it when it first meets the device in a process. CLSCAN_TUNING still
// overrides it. Empty when the disk cache is off.
std::string tuning_file(const cl::Device& device);

// Records `shape` as the tuned launch shape for (algo, type) on `device`, replacing an earlier entry.
// Takes effect for contexts created after the call. Throws clscan::error when the file cannot be
// written.
void store_tuning(const cl::Device& device, algorithm algo, element_type type, const tuning& shape);

} // namespace clscan
