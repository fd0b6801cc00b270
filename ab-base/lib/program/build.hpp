// Programs: from a variant key to kernels ready to launch, through the disk cache.
#pragma once

#include "program/variant.hpp"

#include <clscan/device.hpp>

#include <array>
#include <string>

namespace clscan::detail {

// The kernels of one program variant, ready to launch: kernels[i] is the algorithm unit's
// kernel_names[i].
struct compiled_variant {
  cl::Program program;
  std::array<cl::Kernel, max_variant_kernels> kernels;
  std::size_t work_group_size = 0;
  std::size_t tile = 0; // elements per work-group
};

// Builds (or loads from the disk cache) the program of `key` and makes its kernels. The work-group
// size is compiled in (reqd_work_group_size, local arrays), so when a kernel cannot run that many
// work-items (registers, local memory) the program is rebuilt with the largest power of two it can.
compiled_variant build_variant(const cl::Context& context, const cl::Device& device,
                               const device_capabilities& caps, const variant_key& key);

// Builds `source` with `options` for one device: from the disk cache when it holds a valid entry the
// driver accepts, otherwise from source (and then stores the binary). Throws clscan::build_error with
// the build log when the source does not build.
cl::Program build_program(const cl::Context& context, const cl::Device& device,
                          const device_capabilities& caps, const std::string& source,
                          const std::string& options);

} // namespace clscan::detail
