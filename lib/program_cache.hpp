#pragma once

#include <clscan/device.hpp>

#include <string>

namespace clscan::detail {

// Builds `source` with `options` for one device: from the disk cache when it holds a valid entry the
// driver accepts, otherwise from source (and then stores the binary). Throws clscan::build_error with
// the build log when the source does not build.
cl::Program build_program(const cl::Context& context, const cl::Device& device,
                          const device_capabilities& caps, const std::string& source,
                          const std::string& options);

} // namespace clscan::detail
