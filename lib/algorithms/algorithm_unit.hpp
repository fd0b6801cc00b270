// One algorithm as the rest of the library sees it: its kernel file and kernels, what its kernels need
// from a launch shape, what it adds to a program, and how it enqueues a scan. Dispatch picks a unit;
// the program builder and the tuning ask it; nothing else knows which algorithm runs.
#pragma once

#include "launch.hpp"
#include "program/variant.hpp"
#include "workspace.hpp"

#include <clscan/device.hpp>
#include <clscan/scan.hpp>

#include <cstddef>
#include <string>

namespace clscan::detail {

// Operands of one scan call, already validated.
struct scan_operands {
  cl_mem in = nullptr;
  cl_mem out = nullptr;
  std::size_t n = 0;
  std::size_t in_offset = 0;
  std::size_t out_offset = 0;
  const scan_request* request = nullptr;
  element_value identity;
  algorithm algo = algorithm::three_stage; // as dispatch resolved it
  // The size class dispatch chose (tuning.hpp small_input_bytes): the shape the kernels were built for.
  bool small_inputs = false;
  std::size_t small_class_tiles = 0; // scan_plan::small_class_tiles
  // Some event of the wait list had not completed when the scan was enqueued: it may still fail, and
  // then this scan's commands never run (single-pass keeps its ticket state right across that).
  bool waits_pending = false;
  // The calls beyond scans (primitives.hpp): the request, the flags or keys buffer, and the count
  // buffer of the selections.
  const primitive_request* call = nullptr;
  cl_mem aux = nullptr;
  cl_mem count = nullptr;
  cl_mem out_keys = nullptr; // the calls on runs in one pass: the keys' output beside `out`
  // An input of its own type (variant_key::input_type): the program of the call's type without the
  // transform, for the launches over clscan's own temporaries (three-stage levels, reduce's partial
  // totals), which the call's program reads as the input's type. Null where the call's program reads
  // both, or the call reads no temporaries.
  const compiled_variant* plain_kernels = nullptr;
};

struct algorithm_unit {
  algorithm id;            // for the units of the other calls: the algorithm of their one-pass family
  const char* kernel_file; // in kernels/
  // compiled_variant::kernels[i] is the kernel named kernel_names[i] (nullptr: unused slot).
  const char* kernel_names[max_variant_kernels];
  // Bytes of local memory the unit's kernels declare for `shape`.
  std::size_t (*local_memory_bytes)(const tuning& shape, const device_capabilities& caps, element_type type);
  // What the unit adds to a program: prelude lines (#define ...) and build options.
  std::string (*prelude)(const variant_key& key, const device_capabilities& caps);
  std::string (*build_options)(const variant_key& key, const device_capabilities& caps);
  // Enqueues one scan on `launch`, with the kernels of `kernels` and the temporaries of `temps`.
  void (*enqueue)(workspace& ws, temporaries& temps, const compiled_variant& kernels, const scan_operands& op,
                  launch_sequence& launch);
};

// The unit of a scan algorithm (algorithm::automatic has none: dispatch resolves it first).
const algorithm_unit& unit_of(algorithm algo);
// The unit that runs a program variant: a scan's algorithm, or the unit of the call.
const algorithm_unit& unit_of(const variant_key& key);

// Local memory of the work-group scan every unit's kernels share (kernels/group_scan.cl
// CLSCAN_SCRATCH_SIZE): a raking scan over segments of group_scan_segment work-items.
constexpr std::size_t group_scan_segment = 16;
inline std::size_t group_scan_local_bytes(std::size_t work_group_size, std::size_t element_size) {
  const std::size_t segments = (work_group_size + group_scan_segment - 1) / group_scan_segment;
  return (work_group_size + work_group_size / group_scan_segment + segments) * element_size;
}

} // namespace clscan::detail
