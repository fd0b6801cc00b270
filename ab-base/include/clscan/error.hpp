// Every exception clscan throws. All derive from clscan::error, itself a std::runtime_error.
#pragma once

#include <clscan/config.hpp>

#include <stdexcept>
#include <string>

namespace clscan {

// Name of an OpenCL status code, e.g. "CL_OUT_OF_RESOURCES"; "CL_UNKNOWN_ERROR" for codes it does
// not know.
const char* status_name(cl_int status) noexcept;

// Base of all clscan exceptions.
class error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// An OpenCL call failed. what() names the call and the status, e.g.
// "clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (-54)".
class opencl_error : public error {
public:
  opencl_error(cl_int status, std::string call, const std::string& detail = {});
  cl_int status() const noexcept { return status_; }
  const std::string& call() const noexcept { return call_; }

private:
  cl_int status_;
  std::string call_;
};

// A kernel program did not build for a device. Carries the build log, the options and the device.
class build_error : public opencl_error {
public:
  build_error(cl_int status, std::string device_name, std::string options, std::string log);
  const std::string& device_name() const noexcept { return device_name_; }
  const std::string& options() const noexcept { return options_; }
  const std::string& build_log() const noexcept { return log_; }

private:
  std::string device_name_;
  std::string options_;
  std::string log_;
};

// The arguments of a call are wrong (a null buffer, n larger than a buffer holds, buffers from
// another context). Thrown before anything is enqueued; the buffers are untouched.
class invalid_argument : public error {
public:
  using error::error;
};

// The device lacks a capability the request needs, e.g. fp64 for a cl_double scan.
class unsupported_error : public error {
public:
  using error::error;
};

} // namespace clscan
