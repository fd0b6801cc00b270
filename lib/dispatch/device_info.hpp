#pragma once

#include <clscan/device.hpp>

namespace clscan::detail {

// Capabilities of `device`, read once per device handle and kept for the life of the process.
const device_capabilities& cached_capabilities(cl_device_id device);

} // namespace clscan::detail
