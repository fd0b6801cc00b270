// ptx_launch: runs one of clscan's single-pass kernels from the PTX that NVIDIA's OpenCL compiler
// made of it (taken from clscan's disk cache by extract_ptx.py), through the CUDA driver API, so that
// Nsight Compute, which profiles no kernel of NVIDIA's OpenCL, can profile the same code on the same GPU.
// It checks the result against the host and times the kernel against a device copy of the same bytes,
// so that its timings can be set beside clscan-bench's. Not part of clscan's build or CI:
// bench/profile/README.md.
#include "../common/arguments.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

const char* const help_text = R"(usage: ptx_launch --ptx FILE --primitive P --type T --n N --wg W --items I [options]

Loads FILE (PTX of a clscan program for NVIDIA, see extract_ptx.py), launches its single-pass kernel
on CUDA device 0 with ceil(N / (W * I)) work-groups of W work-items, and checks the last result
against the host.

  --primitive P  scan (scan_single_pass, inclusive sum) | select (select_single_pass; the program's
                 predicate must be "x > 0") | by_key (by_key_single_pass, inclusive sum, int keys)
  --type T       int | uint | long | ulong | float | double: the program's element type
  --n N          elements, 1 to 2^31-1 (a number or 2^E)
  --wg W         the program's CLSCAN_WG;   --items I  the program's CLSCAN_ITEMS
  --reps R       timed launches (default 20); under Nsight Compute use 1 to 3
  --help         this text

Each launch is preceded by a zeroing of the look-back's status words (not timed); launches and
device-to-device copies of n * sizeof(T) bytes alternate, each timed by events around it; medians.
Output: one line "primitive type n kernel_us copy_us ratio verified".
Exit status: 0 when verified, 1 on a wrong result or a CUDA error, 2 on a bad command line.
)";

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "ptx_launch: %s (see --help)\n", message.c_str());
  std::exit(2);
}

void check(CUresult status, const char* call) {
  if (status == CUDA_SUCCESS) return;
  const char* name = "?";
  const char* text = "?";
  cuGetErrorName(status, &name);
  cuGetErrorString(status, &text);
  std::fprintf(stderr, "ptx_launch: %s failed: %s (%s)\n", call, text, name);
  std::exit(1);
}
void check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "ptx_launch: %s failed: %s (%s)\n", call, cudaGetErrorString(status),
               cudaGetErrorName(status));
  std::exit(1);
}
#define CHECK(call) check((call), #call)

std::size_t parse_number(const std::string& flag, const std::string& text, std::size_t max) {
  const std::optional<unsigned long long> value = bench::read_count(text);
  if (!value) usage_error(flag + ": '" + text + "' is not a number (digits or 2^E)");
  if (*value < 1 || *value > max) usage_error(flag + ": '" + text + "' is out of range");
  return static_cast<std::size_t>(*value);
}

struct settings {
  std::string ptx, primitive, type;
  std::size_t n = 0, wg = 0, items = 0, reps = 20;
};

settings parse_arguments(int argc, char** argv) {
  settings s;
  bench::for_each_flag(argc, argv, help_text, usage_error, [&](const std::string& arg, const auto& value) {
    if (arg == "--ptx") {
      s.ptx = value();
    } else if (arg == "--primitive") {
      s.primitive = value();
      if (s.primitive != "scan" && s.primitive != "select" && s.primitive != "by_key")
        usage_error("--primitive: unknown '" + s.primitive + "' (scan, select, by_key)");
    } else if (arg == "--type") {
      s.type = value();
      if (!bench::known_type(s.type)) usage_error("--type: unknown '" + s.type + "'");
    } else if (arg == "--n") {
      s.n = parse_number(arg, value(), INT_MAX);
    } else if (arg == "--wg") {
      s.wg = parse_number(arg, value(), 1024);
    } else if (arg == "--items") {
      s.items = parse_number(arg, value(), 1 << 20);
    } else if (arg == "--reps") {
      s.reps = parse_number(arg, value(), 100000);
    } else {
      usage_error("unknown option '" + arg + "'");
    }
  });
  if (s.ptx.empty() || s.primitive.empty() || s.type.empty() || !s.n || !s.wg || !s.items)
    usage_error("--ptx, --primitive, --type, --n, --wg and --items are required");
  return s;
}

template <typename T> std::vector<T> random_values(std::size_t n, bool select_data) {
  std::mt19937_64 rng(0x5eed + n);
  std::vector<T> v(n);
  for (auto& x : v) {
    if (select_data) {
      // > 0 with probability 0.43, as clscan-bench's and cub_bench's selections.
      const bool keep = std::uniform_real_distribution<double>(0, 1)(rng) < 0.43;
      x = keep ? static_cast<T>(1 + rng() % (1u << 20)) : static_cast<T>(-static_cast<long long>(rng() % 2));
    } else if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>(std::uniform_real_distribution<double>(-1, 1)(rng));
    } else {
      x = static_cast<T>(rng());
    }
  }
  return v;
}

// Segment numbers, segments of 1 to 1999 elements (1000 on average), as the benchmarks' by_key data.
std::vector<int> segment_keys(std::size_t n) {
  std::mt19937_64 rng(0x6eed + n);
  std::vector<int> keys(n);
  int key = 0;
  for (std::size_t i = 0; i < n;) {
    const std::size_t length = 1 + rng() % 1999;
    for (std::size_t j = 0; j < length && i < n; ++j, ++i)
      keys[i] = key;
    ++key;
  }
  return keys;
}

template <typename T> T add(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else
    return a + b;
}

// Integers exactly; floating point within 16 epsilon of the running sum of |x|.
template <typename T>
bool same(const std::vector<T>& got, const std::vector<T>& want, const std::vector<double>& scale, std::string& why) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    bool ok = got[i] == want[i];
    if constexpr (std::is_floating_point_v<T>)
      ok = std::fabs(double(got[i]) - double(want[i])) <= 16 * std::numeric_limits<T>::epsilon() * scale[i];
    if (!ok) {
      std::ostringstream text;
      text << "element " << i << ": " << +got[i] << ", expected " << +want[i];
      why = text.str();
      return false;
    }
  }
  return true;
}

template <typename T> int run(const settings& s, CUfunction kernel) {
  const std::size_t n = s.n;
  const std::size_t tile = s.wg * s.items;
  const std::size_t tiles = (n + tile - 1) / tile;
  const bool is_select = s.primitive == "select", is_by_key = s.primitive == "by_key";
  const std::vector<T> input = random_values<T>(n, is_select);
  const std::vector<int> keys = is_by_key ? segment_keys(n) : std::vector<int>{};

  // The host's answer.
  std::vector<T> want;
  std::vector<double> scale(n, 0.0);
  if (is_select) {
    std::copy_if(input.begin(), input.end(), std::back_inserter(want), [](T x) { return x > T(0); });
  } else {
    want.resize(n);
    T running{};
    double magnitude = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (is_by_key && (i == 0 || keys[i] != keys[i - 1])) running = T{}, magnitude = 0;
      running = add(running, input[i]);
      magnitude += std::fabs(double(input[i]));
      want[i] = running;
      scale[i] = magnitude;
    }
  }

  const std::size_t bytes = n * sizeof(T);
  const std::size_t status_bytes = (tiles + 1) * 64 + 256; // up to 4 words of 8 bytes per slot, 2 slots a tile
  CUdeviceptr src = 0, dst = 0, copy_dst = 0, status = 0, count = 0, key_buffer = 0;
  CHECK(cuMemAlloc(&src, bytes));
  CHECK(cuMemAlloc(&dst, bytes));
  CHECK(cuMemAlloc(&copy_dst, bytes));
  CHECK(cuMemAlloc(&status, status_bytes));
  CHECK(cuMemAlloc(&count, sizeof(std::uint64_t)));
  CHECK(cuMemcpyHtoD(src, input.data(), bytes));
  if (is_by_key) {
    CHECK(cuMemAlloc(&key_buffer, n * sizeof(int)));
    CHECK(cuMemcpyHtoD(key_buffer, keys.data(), n * sizeof(int)));
  }

  // The kernels' parameters, as kernels/single_pass.cl, select.cl and by_key.cl declare them.
  std::uint64_t zero64 = 0, n64 = n;
  CUdeviceptr null_pointer = 0;
  std::uint32_t ticket_base = 0, tag = 1;
  [[maybe_unused]] int zero32 = 0; // exclusive, has_initial: no (nvcc calls it unused)
  T zero_value{};
  std::vector<void*> params;
  if (s.primitive == "scan")
    params = {&src, &zero64, &dst, &zero64, &n64, &status, &ticket_base, &tag, &zero32, &zero_value,
              &null_pointer, &zero64};
  else if (is_select)
    params = {&src, &zero64, &null_pointer, &zero64, &dst, &zero64, &count, &zero64, &n64, &n64, &status,
              &ticket_base, &tag}; // capacity: n
  else
    params = {&key_buffer, &src, &zero64, &dst, &zero64, &n64, &zero32, &zero32, &zero_value, &status,
              &ticket_base, &tag};

  CUstream stream = nullptr;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUevent start = nullptr, stop = nullptr;
  CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  const auto elapsed_us = [&] {
    float ms = 0;
    CHECK(cuEventSynchronize(stop));
    CHECK(cuEventElapsedTime(&ms, start, stop));
    return 1000.0 * ms;
  };
  std::vector<double> kernel_us, copy_us;
  for (std::size_t rep = 0; rep < s.reps + 1; ++rep) { // the first launch warms up
    CHECK(cuMemsetD8Async(dst, 0xA5, bytes, stream)); // poisoned: unwritten elements show
    CHECK(cuMemsetD8Async(status, 0, status_bytes, stream));
    CHECK(cuEventRecord(start, stream));
    CHECK(cuLaunchKernel(kernel, static_cast<unsigned>(tiles), 1, 1, static_cast<unsigned>(s.wg), 1, 1, 0, stream,
                         params.data(), nullptr));
    CHECK(cuEventRecord(stop, stream));
    const double k = elapsed_us();
    CHECK(cuEventRecord(start, stream));
    CHECK(cuMemcpyDtoDAsync(copy_dst, src, bytes, stream));
    CHECK(cuEventRecord(stop, stream));
    const double c = elapsed_us();
    if (rep > 0) kernel_us.push_back(k), copy_us.push_back(c);
  }
  CHECK(cuStreamSynchronize(stream));

  std::string why;
  bool verified = true;
  std::vector<T> got(want.size());
  if (is_select) {
    std::uint64_t kept = 0;
    CHECK(cuMemcpyDtoH(&kept, count, sizeof kept));
    if (kept != want.size()) {
      verified = false;
      why = "count " + std::to_string(kept) + ", expected " + std::to_string(want.size());
    }
  }
  if (verified && !got.empty()) {
    CHECK(cuMemcpyDtoH(got.data(), dst, got.size() * sizeof(T)));
    verified = same(got, want, scale, why);
  }
  const double k = bench::median(kernel_us), c = bench::median(copy_us);
  std::printf("%s %s %zu %.2f %.2f %.3f %s\n", s.primitive.c_str(), s.type.c_str(), n, k, c, c / k,
              verified ? "yes" : "NO");
  if (!verified) std::fprintf(stderr, "ptx_launch: wrong result: %s\n", why.c_str());
  for (CUdeviceptr p : {src, dst, copy_dst, status, count, key_buffer})
    if (p) CHECK(cuMemFree(p));
  return verified ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  const settings s = parse_arguments(argc, argv);
  std::ifstream file(s.ptx, std::ios::binary);
  if (!file) usage_error("--ptx: cannot read '" + s.ptx + "'");
  std::stringstream text;
  text << file.rdbuf();
  const std::string ptx = text.str();

  CHECK(cudaFree(nullptr)); // the primary context, current on this thread
  CUmodule module = nullptr;
  char log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* option_values[] = {log, reinterpret_cast<void*>(sizeof log)};
  if (cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, option_values) != CUDA_SUCCESS) {
    std::fprintf(stderr, "ptx_launch: cuModuleLoadDataEx failed on %s:\n%s\n", s.ptx.c_str(), log);
    return 1;
  }
  const std::string entry = s.primitive + "_single_pass";
  CUfunction kernel = nullptr;
  CHECK(cuModuleGetFunction(&kernel, module, entry.c_str()));
  int registers = 0, shared = 0;
  CHECK(cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, kernel));
  CHECK(cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel));
  std::fprintf(stderr, "ptx_launch: %s: %d registers, %d bytes of shared memory per work-group\n", entry.c_str(),
               registers, shared);

  if (s.type == "int") return run<int>(s, kernel);
  if (s.type == "uint") return run<unsigned>(s, kernel);
  if (s.type == "long") return run<long long>(s, kernel);
  if (s.type == "ulong") return run<unsigned long long>(s, kernel);
  if (s.type == "float") return run<float>(s, kernel);
  return run<double>(s, kernel);
}
