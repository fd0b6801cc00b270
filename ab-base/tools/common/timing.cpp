#include "timing.hpp"

#include <algorithm>
#include <cmath>

namespace clscan_tools {

double median(std::vector<double> samples) {
  if (samples.empty()) return std::nan("");
  std::sort(samples.begin(), samples.end());
  const std::size_t middle = samples.size() / 2;
  return samples.size() % 2 ? samples[middle] : 0.5 * (samples[middle - 1] + samples[middle]);
}

cl_ulong profiling_ns(const cl::Event& event, cl_profiling_info what) {
  cl_ulong value = 0;
  const cl_int status = clGetEventProfilingInfo(event(), what, sizeof value, &value, nullptr);
  if (status != CL_SUCCESS) throw clscan::opencl_error(status, "clGetEventProfilingInfo");
  return value;
}

double command_us(const cl::Event& event) {
  return static_cast<double>(profiling_ns(event, CL_PROFILING_COMMAND_END) -
                             profiling_ns(event, CL_PROFILING_COMMAND_START)) /
         1e3;
}

double between_us(const cl::Event& from, const cl::Event& to) {
  return static_cast<double>(profiling_ns(to, CL_PROFILING_COMMAND_END) -
                             profiling_ns(from, CL_PROFILING_COMMAND_END)) /
         1e3;
}

} // namespace clscan_tools
