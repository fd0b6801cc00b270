// Timing for the tools: the median of samples, a host wall-clock stopwatch, and device times read from
// OpenCL profiling events.
#pragma once

#include <clscan/clscan.hpp>

#include <chrono>
#include <vector>

namespace clscan_tools {

// The median (the mean of the two middle values for an even count); NaN for no samples.
double median(std::vector<double> samples);

// Host time since construction or the last restart(), on the steady clock.
class stopwatch {
public:
  stopwatch() : start_(std::chrono::steady_clock::now()) {}
  void restart() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  double milliseconds() const { return seconds() * 1e3; }
  double microseconds() const { return seconds() * 1e6; }

private:
  std::chrono::steady_clock::time_point start_;
};

// One profiling timestamp of `event` in nanoseconds; clscan::opencl_error when it cannot be read.
cl_ulong profiling_ns(const cl::Event& event, cl_profiling_info what);

// Microseconds from the start to the end of one command.
double command_us(const cl::Event& event);

// Microseconds from the end of `from` to the end of `to`.
double between_us(const cl::Event& from, const cl::Event& to);

} // namespace clscan_tools
