#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// One pass over the data: decoupled look-back with fallback (kernels/single_pass.cl).
extern const algorithm_unit single_pass_unit;

// True when the device has what the single-pass kernel needs for this element type.
bool single_pass_supported(const device_capabilities& caps, element_type type);

// True when the single-pass status words are 64 bits wide (cl_khr_int64_base_atomics, unless
// CLSCAN_NARROW_STATUS=1 asks for the 32-bit layout); kernels/tile_prefix.cl CLSCAN_WIDE_STATUS.
bool wide_status_words(const device_capabilities& caps);

// True when single-pass status words use release/acquire atomics on this device
// (kernels/tile_prefix.cl CLSCAN_ACQ_REL): the device has them at device scope, 64-bit words also
// have cl_khr_int64_extended_atomics, and CLSCAN_MEMORY_MODEL is not "fences".
bool acq_rel_status(const device_capabilities& caps);

} // namespace clscan::detail
