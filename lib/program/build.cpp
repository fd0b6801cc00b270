#include "program/build.hpp"

#include "algorithms/algorithm_unit.hpp"
#include "error_check.hpp"
#include "log.hpp"
#include "program/disk_cache.hpp"

#include <clscan/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

namespace clscan::detail {
namespace {

constexpr const char* no_build_log = "(no build log)";

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS)
    return no_build_log;
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS)
    return no_build_log;
  while (!log.empty() && log.back() == '\0')
    log.pop_back();
  return log;
}

// A clean build leaves the log empty or blank (some drivers add a newline); a log that could not be
// read says nothing about the kernels either.
bool has_diagnostics(const std::string& log) {
  return log != no_build_log && log.find_first_not_of(" \t\r\n") != std::string::npos;
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// A program built from a cached binary, or an empty program when the driver rejects the binary.
cl::Program from_binary(const cl::Context& context, cl_device_id device,
                        const std::vector<unsigned char>& binary, const std::string& options) {
  const unsigned char* data = binary.data();
  const std::size_t size = binary.size();
  cl_int binary_status = CL_SUCCESS;
  cl_int status = CL_SUCCESS;
  cl_program program =
      clCreateProgramWithBinary(context(), 1, &device, &size, &data, &binary_status, &status);
  if (status != CL_SUCCESS || binary_status != CL_SUCCESS) {
    if (program) clReleaseProgram(program);
    if (log_enabled())
      log(log_level::warning, std::string("disk cache: driver rejected a cached binary (") +
                                  status_name(status != CL_SUCCESS ? status : binary_status) +
                                  "); rebuilding");
    return {};
  }
  cl::Program wrapped(program); // takes ownership
  status = clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    if (log_enabled())
      log(log_level::warning,
          std::string("disk cache: cached binary did not build (") + status_name(status) + "); rebuilding");
    return {};
  }
  return wrapped;
}

std::vector<unsigned char> program_binary(cl_program program) {
  std::size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS ||
      size == 0)
    return {};
  std::vector<unsigned char> binary(size);
  unsigned char* data = binary.data();
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr) != CL_SUCCESS) return {};
  return binary;
}

cl::Kernel make_kernel(const cl::Program& program, const char* name) {
  cl_int status = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program(), name, &status);
  check(status, "clCreateKernel");
  return cl::Kernel(kernel);
}

std::size_t kernel_work_group_limit(const cl::Kernel& kernel, const cl::Device& device) {
  std::size_t limit = 0;
  check(
      clGetKernelWorkGroupInfo(kernel(), device(), CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit, nullptr),
      "clGetKernelWorkGroupInfo");
  return limit;
}

compiled_variant compile(const cl::Context& context, const cl::Device& device,
                         const device_capabilities& caps, const variant_key& key) {
  const algorithm_unit& unit = unit_of(key);
  compiled_variant built;
  built.program = build_program(context, device, caps, program_source(key, caps), program_options(key, caps));
  for (std::size_t i = 0; i < max_variant_kernels; ++i)
    if (unit.kernel_names[i]) built.kernels[i] = make_kernel(built.program, unit.kernel_names[i]);
  built.work_group_size = key.work_group_size;
  built.tile = key.work_group_size * key.items_per_thread;
  return built;
}

std::size_t compiled_work_group_size(const cl::Kernel& kernel, const cl::Device& device) {
  std::size_t sizes[3] = {0, 0, 0};
  check(clGetKernelWorkGroupInfo(kernel(), device(), CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof sizes, sizes,
                                 nullptr),
        "clGetKernelWorkGroupInfo");
  return sizes[0];
}

// The smallest CL_KERNEL_WORK_GROUP_SIZE of the variant's kernels that run in work-groups of the
// variant's size, and the name of a kernel that has it. Those are the kernels compiled with
// reqd_work_group_size(CLSCAN_WG): the others (clear_status, the segment kernels) are launched in
// work-groups of the driver's choosing. Where the device runs a kernel in the size it requires whatever
// it reports (caps.required_size_fits), a kernel built for the wanted size does not limit it either.
std::pair<std::size_t, std::string> smallest_limit(const compiled_variant& built, const cl::Device& device,
                                                   const device_capabilities& caps, std::size_t wanted) {
  std::size_t limit = SIZE_MAX;
  std::string name;
  for (const cl::Kernel& kernel : built.kernels) {
    if (!kernel()) continue;
    const std::size_t required = compiled_work_group_size(kernel, device);
    if (required == 0 || (caps.required_size_fits && required == wanted)) continue;
    const std::size_t kernel_limit = kernel_work_group_limit(kernel, device);
    if (kernel_limit >= limit) continue;
    limit = kernel_limit;
    name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>();
  }
  return {limit, name};
}

} // namespace

compiled_variant build_variant(const cl::Context& context, const cl::Device& device,
                               const device_capabilities& caps, const variant_key& key) {
  variant_key attempt = key;
  compiled_variant built = compile(context, device, caps, attempt);
  for (auto [limit, kernel] = smallest_limit(built, device, caps, attempt.work_group_size);
       limit < attempt.work_group_size;
       std::tie(limit, kernel) = smallest_limit(built, device, caps, attempt.work_group_size)) {
    std::size_t smaller = 1;
    while (smaller * 2 <= limit)
      smaller *= 2;
    if (log_enabled())
      log(log_level::info, "kernel work-group limit " + std::to_string(limit) + " (" + kernel + ") on " +
                               caps.name + "; rebuilding with " + std::to_string(smaller) + " work-items");
    attempt.work_group_size = smaller;
    built = compile(context, device, caps, attempt);
  }
  return built;
}

cl::Program build_program(const cl::Context& context, const cl::Device& device,
                          const device_capabilities& caps, const std::string& source,
                          const std::string& options) {
  const auto start = std::chrono::steady_clock::now();
  // Read first: a bad CLSCAN_CACHE_MAX_BYTES throws before anything is built.
  const std::uint64_t disk_limit = disk_cache_limit_in_effect();
  const binary_identity id = make_binary_identity(caps, source, options);
  if (auto binary = load_binary(id)) {
    if (cl::Program program = from_binary(context, device(), *binary, options); program()) {
      if (log_enabled())
        log(log_level::info, "loaded cached program for " + caps.name + " in " +
                                 std::to_string(milliseconds_since(start)) + " ms");
      return program;
    }
  }

  const char* text = source.c_str();
  const std::size_t length = source.size();
  cl_int status = CL_SUCCESS;
  cl_program raw = clCreateProgramWithSource(context(), 1, &text, &length, &status);
  check(status, "clCreateProgramWithSource");
  cl::Program program(raw);
  cl_device_id device_id = device();
  status = clBuildProgram(raw, 1, &device_id, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) throw build_error(status, caps.name, options, build_log(raw, device_id));
  if (log_enabled()) {
    log(log_level::info, "built program from source for " + caps.name + " in " +
                             std::to_string(milliseconds_since(start)) + " ms, options: " + options);
    // The kernels are meant to compile without diagnostics; a compiler that has something to say
    // about them is worth a warning the user can read, with the options that produced it.
    if (const std::string diagnostics = build_log(raw, device_id); has_diagnostics(diagnostics))
      log(log_level::warning,
          "compiler output for " + caps.name + ", options: " + options + "\n" + diagnostics);
  }
  store_binary(id, program_binary(raw), disk_limit);
  return program;
}

} // namespace clscan::detail
