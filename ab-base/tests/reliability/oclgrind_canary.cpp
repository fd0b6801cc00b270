// clscan-oclgrind-canary <kernels.cl> <kernel>[,<kernel>...]: runs kernels of
// tests/reliability/oclgrind_canary.cl, deliberate faults, for the oclgrind-canary-* tests, each kernel in an
// OpenCL context of its own, one after the other. Those tests pass only when Oclgrind reports the
// fault (tests/cmake/oclgrind_check.cmake), which a broken check (an option dropped, reports sent where the
// test does not look, or lost) would turn into a failure.
//
// Exits 0 once the kernels have run; 2 when not on Oclgrind's device, so that a canary cannot pass
// without Oclgrind; 3 when the kernel file cannot be read or an OpenCL call fails (other than the
// one api_misuse makes fail on purpose).
#include <CL/cl.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct failure {
  std::string what;
};

void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw failure{std::string(call) + " returned " + std::to_string(status)};
}

std::string platform_name(cl_platform_id platform) {
  std::size_t size = 0;
  check(clGetPlatformInfo(platform, CL_PLATFORM_NAME, 0, nullptr, &size), "clGetPlatformInfo");
  std::string name(size, '\0');
  check(clGetPlatformInfo(platform, CL_PLATFORM_NAME, size, name.data(), nullptr), "clGetPlatformInfo");
  return name.c_str();
}

// Runs `kernel_name` from `source` in a context of its own; returns 2 when there is no Oclgrind
// platform, else 0.
int run(const std::string& source, const std::string& kernel_name) {
  cl_uint platforms = 0;
  check(clGetPlatformIDs(0, nullptr, &platforms), "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(platforms);
  check(clGetPlatformIDs(platforms, ids.data(), nullptr), "clGetPlatformIDs");
  cl_platform_id platform = nullptr;
  for (cl_platform_id id : ids)
    if (platform_name(id).find("Oclgrind") != std::string::npos) platform = id;
  if (!platform) {
    std::cout << "FAILED: no Oclgrind platform; run this program under oclgrind" << std::endl;
    return 2;
  }
  cl_device_id device = nullptr;
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &status);
  check(status, "clCreateCommandQueue");

  // Every word written by the host, so that only the kernels' own faults are reported.
  std::vector<cl_int> host(8, 5);
  const std::size_t bytes = host.size() * sizeof(cl_int);
  cl_mem data = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  check(status, "clCreateBuffer");
  cl_mem words = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  check(status, "clCreateBuffer");
  check(clEnqueueWriteBuffer(queue, data, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr),
        "clEnqueueWriteBuffer");
  check(clEnqueueWriteBuffer(queue, words, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr),
        "clEnqueueWriteBuffer");

  const char* sources[] = {source.c_str()};
  cl_program program = clCreateProgramWithSource(context, 1, sources, nullptr, &status);
  check(status, "clCreateProgramWithSource");
  check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel kernel = clCreateKernel(program, kernel_name.c_str(), &status);
  check(status, "clCreateKernel");
  check(clSetKernelArg(kernel, 0, sizeof data, &data), "clSetKernelArg");
  cl_uint arguments = 0;
  check(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof arguments, &arguments, nullptr),
        "clGetKernelInfo");
  if (kernel_name == "api_misuse") {
    // The deliberate fault: half a pointer's size. The call must fail; the correct one follows.
    if (clSetKernelArg(kernel, 1, sizeof(cl_int), &words) == CL_SUCCESS)
      throw failure{"clSetKernelArg with a wrong argument size succeeded"};
  }
  if (arguments > 1) check(clSetKernelArg(kernel, 1, sizeof words, &words), "clSetKernelArg");
  const std::size_t global = 8, local = 4;
  check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
  check(clEnqueueReadBuffer(queue, data, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer");

  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseMemObject(words);
  clReleaseMemObject(data);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  std::cout << "canary kernel " << kernel_name << " ran on " << platform_name(platform) << std::endl;
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cout << "usage: clscan-oclgrind-canary <kernels.cl> <kernel>[,<kernel>...]" << std::endl;
    return 3;
  }
  try {
    std::ifstream file(argv[1]);
    std::stringstream text;
    text << file.rdbuf();
    const std::string source = text.str();
    if (!file || source.empty()) throw failure{std::string("cannot read ") + argv[1]};
    std::stringstream kernels(argv[2]);
    for (std::string kernel; std::getline(kernels, kernel, ',');)
      if (const int status = run(source, kernel); status != 0) return status;
    return 0;
  } catch (const failure& f) {
    std::cout << "FAILED: " << f.what << std::endl;
    return 3;
  }
}
