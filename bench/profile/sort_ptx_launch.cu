// sort_ptx_launch: runs the one-pass radix sort (sort_histogram, sort_histogram_total, then one
// sort_onepass per 8-bit pass) from the PTX that NVIDIA's OpenCL compiler made of kernels/sort.cl
// (sort_kernels --single-pass --binary FILE), through the CUDA driver API, so that Nsight Compute, which
// profiles no kernel of NVIDIA's OpenCL, can profile the same code. Launches and arguments are
// sort_kernels.cpp's (uint keys, ascending, all 32 bits). Not part of clscan's build or CI:
// bench/profile/README.md.
#include "../common/arguments.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <string>
#include <vector>

namespace {

const char* const help_text =
    R"(usage: sort_ptx_launch --ptx FILE --wg W --items I [--n N] [--pairs] [--reps R]

Loads FILE (sort_kernels --single-pass --binary FILE on NVIDIA's OpenCL, built with the same --shape
W:I and --pairs), sorts N uint keys (default 2^24; with --pairs uint values too) R times (default 5)
on CUDA device 0, each sort timed by events and beside a device-to-device copy of the keys, and checks
the last result. Under Nsight Compute, profile one pass: --kernel-name sort_onepass --launch-count 1.
Output: "n kernel_us copy_us ratio wrong". Exit status 0 when right, 1 on a wrong result or a CUDA
error, 2 on a bad command line.
)";

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "sort_ptx_launch: %s (see --help)\n", message.c_str());
  std::exit(2);
}

void check(CUresult status, const char* call) {
  if (status == CUDA_SUCCESS) return;
  const char* name = "?";
  cuGetErrorName(status, &name);
  std::fprintf(stderr, "sort_ptx_launch: %s failed: %s\n", call, name);
  std::exit(1);
}
#define CHECK(call) check((call), #call)

std::size_t count_flag(const std::string& flag, const std::string& text, std::size_t low, std::size_t high) {
  const std::optional<unsigned long long> value = bench::read_count(text);
  if (!value || *value < low || *value > high) usage_error(flag + ": '" + text + "' is out of range");
  return static_cast<std::size_t>(*value);
}

struct launcher {
  CUfunction function;
  unsigned wg;
  template <typename... Args> void operator()(std::size_t groups, Args... args) const {
    void* pointers[] = {static_cast<void*>(&args)...};
    CHECK(cuLaunchKernel(function, static_cast<unsigned>(groups), 1, 1, wg, 1, 1, 0, nullptr, pointers,
                         nullptr));
  }
};

} // namespace

int main(int argc, char** argv) {
  std::string ptx_file;
  std::size_t n = std::size_t{1} << 24, wg = 0, items = 0, reps = 5;
  bool pairs = false;
  bench::for_each_flag(argc, argv, help_text, usage_error, [&](const std::string& arg, auto value) {
    if (arg == "--ptx")
      ptx_file = value();
    else if (arg == "--n")
      n = count_flag(arg, value(), 1, (std::size_t{1} << 30) - 1);
    else if (arg == "--wg")
      wg = count_flag(arg, value(), 1, 1024);
    else if (arg == "--items")
      items = count_flag(arg, value(), 1, 65536);
    else if (arg == "--reps")
      reps = count_flag(arg, value(), 1, 1000);
    else if (arg == "--pairs")
      pairs = true;
    else
      usage_error("unknown flag " + arg);
  });
  if (ptx_file.empty() || !wg || !items) usage_error("--ptx, --wg and --items are required");
  std::ifstream file(ptx_file, std::ios::binary);
  if (!file) usage_error("--ptx " + ptx_file + ": cannot read it");
  std::string ptx((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  // NVIDIA's OpenCL passes the NDRange's offsets in %envreg registers (e.g. get_group_id adds
  // %envreg0), which a CUDA launch leaves undefined: an OpenCL launch without offsets reads zeros.
  ptx = std::regex_replace(ptx, std::regex("%envreg[0-9]+"), "0");
  ptx.push_back('\0');

  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  CUmodule module;
  CHECK(cuModuleLoadData(&module, ptx.data()));
  CUfunction histogram_fn, total_fn, onepass_fn;
  CHECK(cuModuleGetFunction(&histogram_fn, module, "sort_histogram"));
  CHECK(cuModuleGetFunction(&total_fn, module, "sort_histogram_total"));
  CHECK(cuModuleGetFunction(&onepass_fn, module, "sort_onepass"));
  int sms = 0;
  CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));

  constexpr std::size_t radix = 256, passes = 4;
  const std::size_t tile = wg * items, tiles = (n + tile - 1) / tile;
  const std::size_t wanted = static_cast<std::size_t>(sms) * 4;
  const std::size_t tiles_per_group = std::max<std::size_t>(1, (tiles + wanted - 1) / wanted);
  const std::size_t groups = (tiles + tiles_per_group - 1) / tiles_per_group;
  const std::size_t bytes = n * 4, status_bytes = 8 + tiles * radix * 16;
  auto allocate = [](std::size_t size) {
    CUdeviceptr p;
    CHECK(cuMemAlloc(&p, std::max<std::size_t>(size, 4)));
    return p;
  };
  const CUdeviceptr keys_in = allocate(bytes), keys_out = allocate(bytes), keys_temp = allocate(bytes),
                    copy_out = allocate(bytes), values_in = allocate(bytes), values_out = allocate(bytes),
                    values_temp = allocate(bytes), partials = allocate(groups * passes * radix * 4),
                    flags = allocate(8 * 4), digit_offsets = allocate(passes * radix * 4),
                    status = allocate(status_bytes);
  std::vector<std::uint32_t> keys(n), values(n);
  std::mt19937 random(1);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<std::uint32_t>(random());
    values[i] = static_cast<std::uint32_t>(i);
  }
  CHECK(cuMemcpyHtoD(keys_in, keys.data(), bytes));
  CHECK(cuMemcpyHtoD(values_in, values.data(), bytes));
  CHECK(cuMemsetD8(status, 0, status_bytes));

  const unsigned w = static_cast<unsigned>(wg);
  const launcher histogram{histogram_fn, w}, histogram_total{total_fn, w}, onepass{onepass_fn, w};
  std::uint32_t ticket = 0, tag = 0;
  const std::uint64_t zero = 0, n64 = n;
  auto sort = [&] {
    CHECK(cuMemsetD8Async(partials, 0, passes * radix * 4, nullptr));
    histogram(groups, keys_in, zero, n64, std::uint64_t{tiles_per_group}, partials, 0u, 0u,
              static_cast<std::uint32_t>(passes), 32u);
    histogram_total(passes, partials, 1u, static_cast<std::uint32_t>(passes), n64, flags, digit_offsets);
    CUdeviceptr src = keys_in, values_src = pairs ? values_in : 0;
    for (std::uint32_t p = 0; p < passes; ++p) {
      const bool to_out = (passes - 1 - p) % 2 == 0;
      const CUdeviceptr dst = to_out ? keys_out : keys_temp;
      const CUdeviceptr values_dst = pairs ? (to_out ? values_out : values_temp) : 0;
      onepass(tiles, src, zero, dst, zero, values_src, zero, values_dst, zero, n64, std::uint64_t{tiles},
              digit_offsets, flags, p, 1u, pairs ? 1u : 0u, 0u, 8 * p, 255u, status, ticket, ++tag);
      ticket += static_cast<std::uint32_t>(tiles);
      src = dst;
      values_src = values_dst;
    }
  };

  CUevent start, stop;
  CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  std::vector<double> sort_us, copy_us;
  for (std::size_t rep = 0; rep <= reps; ++rep) {
    float ms = 0;
    CHECK(cuEventRecord(start, nullptr));
    CHECK(cuMemcpyDtoDAsync(copy_out, keys_in, bytes, nullptr));
    CHECK(cuEventRecord(stop, nullptr));
    CHECK(cuEventSynchronize(stop));
    CHECK(cuEventElapsedTime(&ms, start, stop));
    if (rep) copy_us.push_back(ms * 1e3);
    CHECK(cuEventRecord(start, nullptr));
    sort();
    CHECK(cuEventRecord(stop, nullptr));
    CHECK(cuEventSynchronize(stop));
    CHECK(cuEventElapsedTime(&ms, start, stop));
    if (rep) sort_us.push_back(ms * 1e3);
  }

  std::vector<std::uint32_t> got(n), got_values(n);
  CHECK(cuMemcpyDtoH(got.data(), keys_out, bytes));
  if (pairs) CHECK(cuMemcpyDtoH(got_values.data(), values_out, bytes));
  std::vector<std::uint32_t> expected = keys;
  std::stable_sort(expected.begin(), expected.end());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    wrong += got[i] != expected[i] || (pairs && (got_values[i] >= n || keys[got_values[i]] != got[i]));
  const double sort_median = bench::median(sort_us), copy_median = bench::median(copy_us);
  std::printf("n %zu %s kernel_us %.1f copy_us %.1f ratio %.4f wrong %zu\n", n, pairs ? "pairs" : "keys",
              sort_median, copy_median, copy_median / sort_median, wrong);
  return wrong ? 1 : 0;
}
