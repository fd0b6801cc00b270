#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clscan::detail {

struct embedded_file {
  std::string_view name; // file name in kernels/, e.g. "three_stage.cl"
  std::string_view text;
};

// The kernels/*.cl files, embedded at build time (generated embedded_kernels.cpp).
const std::vector<embedded_file>& embedded_kernel_files();

// The source of kernels/<name> with its #include "..." lines replaced by the embedded files they name
// (each file once), so the kernel files stay valid OpenCL C and the device compiler needs no include
// path. Resolved once per file and kept.
const std::string& kernel_source(std::string_view name);

} // namespace clscan::detail
