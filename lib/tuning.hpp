// Launch shapes (clscan::tuning): one owner for the defaults per device, the tuning file and
// CLSCAN_TUNING, and the limits a shape must keep.
#pragma once

#include <clscan/device.hpp>
#include <clscan/options.hpp>

#include <cstddef>

namespace clscan::detail {

// Launch shape dispatch starts from for this device, type and algorithm, for inputs larger than
// small_input_bytes() or (small_inputs) for the others; a tuned shape replaces the large-input one,
// CLSCAN_TUNING replaces both. Throws invalid_argument for a shape that does not fit the kernel's
// private or local memory.
tuning initial_tuning(const device_capabilities& caps, element_type type, algorithm algo,
                      bool small_inputs = false);

// Inputs of at most this many bytes use `algo`'s small-input shape (0: one shape for every size).
std::size_t small_input_bytes(const device_capabilities& caps, algorithm algo);

} // namespace clscan::detail
