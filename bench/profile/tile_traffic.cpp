// tile_traffic: how fast a scan by key's memory traffic (int keys and int values in, int values out) can
// run with no scan at all, beside a clEnqueueCopyBuffer of the values in the same process. It sets a
// ceiling for inclusive_by_key's ratio to a copy (docs/PERFORMANCE.md, "Why it stops here").
//
// Kernels (all int, the input n a multiple of every tile):
// - copy_vec4: a copy of the values by a kernel, to check that kernel timing and the copy agree;
// - stream: keys and values in, values out, 4 elements a work-item, no local memory: the traffic alone;
// - tile: the traffic through local memory as clscan's GPU tiles move it. Work-groups of WG load
//   RUN_VECTORS int2 vectors of keys and values per work-item, coalesced, into a local tile (one padding
//   vector per run), wait at a barrier, scan their own run of the tile in place (a plain running sum
//   with the segment heads added, not a scan by key), wait again, and store the tile, coalesced. The
//   work-groups an SM holds are capped by padding local memory (the `PER_SM` count aimed at on a
//   228 KiB SM); with --ticket, tiles are taken in the order work-groups start, from an atomic counter,
//   as clscan's single-pass kernels take them.
//
// Usage: tile_traffic [--n N|2^K] [--shapes WG:RUN_VECTORS:PER_SM[,PER_SM...][;...]] [--ticket]
//                     [--platform NAME] [--dump-ptx DIR]
// Prints one line per kernel and shape: median of 25 timed launches (event profiling, after 2 untimed),
// the copy's median measured just before, and their ratio. Exits 1 on any OpenCL error, 2 on bad flags.
// Not part of clscan's build or CI: g++ -O2 -std=c++17 bench/profile/tile_traffic.cpp -lOpenCL.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include "../common/arguments.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

const char* kernel_source = R"CL(
kernel void copy_vec4(const global int* keys, const global int* src, global int* dst, global uint* ticket) {
  const size_t j = get_global_id(0);
  vstore4(vload4(j, src), j, dst);
}

// Each element gains 1 where it starts a segment: the traffic of a scan by key, keys compared with the
// key before, and no scan.
kernel void stream(const global int* keys, const global int* src, global int* dst, global uint* ticket) {
  const size_t j = get_global_id(0), first = j * 4;
  const int4 k = vload4(j, keys);
  int4 v = vload4(j, src);
  const int before = first ? keys[first - 1] : 0;
  v += (int4)(k.x != before, k.y != k.x, k.z != k.y, k.w != k.z) & 1;
  vstore4(v, j, dst);
}

#ifndef WG
#define WG 128
#endif
#ifndef RUN_VECTORS
#define RUN_VECTORS 32
#endif
#ifndef LOAD_UNROLL
#define LOAD_UNROLL 8
#endif

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
tile(const global int* keys, const global int* src, global int* dst, global uint* ticket) {
  local int2 tile_elements[WG * (RUN_VECTORS + 1)];
#ifdef PAD_BYTES
  local int pad[PAD_BYTES / 4];
  pad[get_local_id(0)] = 1;
#endif
#ifdef TICKET
  local uint tile_index;
  if (get_local_id(0) == 0) tile_index = atomic_inc(ticket) % get_num_groups(0);
  barrier(CLK_LOCAL_MEM_FENCE);
#else
  const uint tile_index = get_group_id(0);
#endif
  const size_t tile_first = tile_index * (size_t)(WG * RUN_VECTORS * 2);
  const uint lid = get_local_id(0);
#pragma unroll LOAD_UNROLL
  for (int k = 0; k < RUN_VECTORS; ++k) {
    const uint j = k * WG + lid;
    const size_t first = tile_first + j * 2;
    const int2 key = vload2(0, keys + first);
    int2 v = vload2(0, src + first);
    const int before = first ? keys[first - 1] : 0;
    v += (int2)(key.x != before, key.y != key.x) & 1;
    tile_elements[j + j / RUN_VECTORS] = v;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  local int2* run = tile_elements + lid * (RUN_VECTORS + 1);
  int running = 0;
#pragma unroll 4
  for (int k = 0; k < RUN_VECTORS; ++k) {
    int2 v = run[k];
    running += v.x;
    v.x = running;
    running += v.y;
    v.y = running;
    run[k] = v;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll LOAD_UNROLL
  for (int k = 0; k < RUN_VECTORS; ++k) {
    const uint j = k * WG + lid;
    vstore2(tile_elements[j + j / RUN_VECTORS], 0, dst + tile_first + j * 2);
  }
#ifdef PAD_BYTES
  if (pad[(lid + 1) % WG] == 7) dst[0] = 0; // keeps the padding allocated
#endif
}
)CL";

struct usage_error {
  std::string message;
};

void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "tile_traffic: %s failed with status %d\n", call, status);
    std::exit(1);
  }
}

// A count as bench::read_count reads it (digits or 2^E), or a usage_error that quotes it.
unsigned long long parse_number(const std::string& flag, const std::string& text) {
  const std::optional<unsigned long long> count = bench::read_count(text);
  if (!count || *count == ULLONG_MAX) throw usage_error{flag + ": '" + text + "' is not a number or 2^E"};
  return *count;
}

struct shape {
  unsigned wg, run_vectors, per_sm;
};

// "WG:RUN_VECTORS:PER_SM[,PER_SM...]" items separated by ';'.
std::vector<shape> parse_shapes(const std::string& text) {
  std::vector<shape> shapes;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(';', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    const std::size_t c1 = item.find(':'), c2 = item.find(':', c1 == std::string::npos ? c1 : c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos)
      throw usage_error{"--shapes: '" + item + "' is not WG:RUN_VECTORS:PER_SM[,PER_SM...]"};
    const unsigned long long wg = parse_number("--shapes", item.substr(0, c1));
    const unsigned long long run_vectors = parse_number("--shapes", item.substr(c1 + 1, c2 - c1 - 1));
    if (wg == 0 || wg > 1024 || run_vectors == 0 || run_vectors > 64)
      throw usage_error{"--shapes: '" + item + "': WG must be 1 to 1024, RUN_VECTORS 1 to 64"};
    std::size_t p = c2 + 1;
    while (p <= item.size()) {
      const std::size_t q = std::min(item.find(',', p), item.size());
      const unsigned long long per_sm = parse_number("--shapes", item.substr(p, q - p));
      if (per_sm == 0 || per_sm > 32) throw usage_error{"--shapes: PER_SM must be 1 to 32"};
      shapes.push_back({unsigned(wg), unsigned(run_vectors), unsigned(per_sm)});
      p = q + 1;
    }
    pos = end + 1;
  }
  return shapes;
}

int run(int argc, char** argv) {
  std::size_t n = std::size_t(1) << 28;
  std::string shapes_text = "128:32:6", platform_name = "NVIDIA", dump_dir;
  bool ticket = false;
  const char* const help =
      "usage: tile_traffic [--n N|2^K] [--shapes WG:RUN_VECTORS:PER_SM[,PER_SM...][;...]] [--ticket]\n"
      "                    [--platform NAME] [--dump-ptx DIR]\n"
      "  --n         elements (default 2^28), a multiple of every tile\n"
      "  --shapes    tile shapes: work-group size, int2 vectors a work-item, work-groups per SM\n"
      "              aimed at by padding local memory (default 128:32:6)\n"
      "  --ticket    tiles in the order work-groups start, from an atomic counter\n"
      "  --platform  a substring of the OpenCL platform's name (default NVIDIA)\n"
      "  --dump-ptx  write each program's binary (PTX on NVIDIA) to DIR/INDEX.ptx\n";
  const auto fail = [](const std::string& message) { throw usage_error{message}; };
  bench::for_each_flag(argc, argv, help, fail, [&](const std::string& flag, auto value) {
    if (flag == "--n")
      n = parse_number(flag, value());
    else if (flag == "--shapes")
      shapes_text = value();
    else if (flag == "--ticket")
      ticket = true;
    else if (flag == "--platform")
      platform_name = value();
    else if (flag == "--dump-ptx")
      dump_dir = value();
    else
      fail("unknown option '" + flag + "' (see --help)");
  });
  const std::vector<shape> shapes = parse_shapes(shapes_text);
  for (const shape& s : shapes)
    if (n == 0 || n % (std::size_t(s.wg) * s.run_vectors * 2) != 0 || n % 4 != 0)
      throw usage_error{"--n: " + std::to_string(n) + " is not a positive multiple of every tile"};

  cl_uint platform_count = 0;
  check(clGetPlatformIDs(0, nullptr, &platform_count), "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(platform_count);
  check(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");
  cl_platform_id platform = nullptr;
  for (cl_platform_id p : platforms) {
    char name[256] = {};
    check(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr), "clGetPlatformInfo");
    if (std::string_view(name).find(platform_name) != std::string_view::npos) platform = p;
  }
  if (!platform) throw usage_error{"--platform: no platform's name contains '" + platform_name + "'"};
  cl_device_id device;
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  cl_int status;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  const cl_queue_properties queue_properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, queue_properties, &status);
  check(status, "clCreateCommandQueueWithProperties");
  const std::size_t bytes = n * sizeof(int);
  cl_mem buffers[4];
  for (int b = 0; b < 4; ++b) {
    buffers[b] =
        clCreateBuffer(context, CL_MEM_READ_WRITE, b == 3 ? sizeof(cl_uint) : bytes, nullptr, &status);
    check(status, "clCreateBuffer");
  }
  std::vector<int> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = int(i / 1000); // segments of 1000, as clscan-bench's
  check(clEnqueueWriteBuffer(queue, buffers[0], CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr),
        "clEnqueueWriteBuffer");
  check(clEnqueueWriteBuffer(queue, buffers[1], CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr),
        "clEnqueueWriteBuffer");
  const cl_uint zero = 0;
  check(clEnqueueWriteBuffer(queue, buffers[3], CL_TRUE, 0, sizeof zero, &zero, 0, nullptr, nullptr),
        "clEnqueueWriteBuffer");

  auto median_us = [&](auto enqueue) {
    std::vector<double> times;
    for (int r = 0; r < 27; ++r) {
      cl_event event = enqueue();
      check(clWaitForEvents(1, &event), "clWaitForEvents");
      cl_ulong start, end;
      check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
            "clGetEventProfilingInfo");
      check(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
            "clGetEventProfilingInfo");
      clReleaseEvent(event);
      if (r >= 2) times.push_back((end - start) * 1e-3);
    }
    return bench::median(times);
  };
  auto copy = [&] {
    cl_event event;
    check(clEnqueueCopyBuffer(queue, buffers[1], buffers[2], 0, 0, bytes, 0, nullptr, &event),
          "clEnqueueCopyBuffer");
    return event;
  };

  struct launch {
    std::string kernel, options;
    std::size_t elements_per_item, wg;
  };
  std::vector<launch> launches = {{"copy_vec4", "", 4, 128}, {"stream", "", 4, 128}};
  for (const shape& s : shapes) {
    // A 228 KiB SM keeps 1 KiB per work-group for itself.
    const long budget = 228 * 1024 / long(s.per_sm) - 1024;
    const long tile_bytes = long(s.wg) * (s.run_vectors + 1) * 8;
    const long pad = (budget - tile_bytes - 512) / 1024 * 1024;
    std::string options = "-DWG=" + std::to_string(s.wg) + " -DRUN_VECTORS=" + std::to_string(s.run_vectors) +
                          " -DLOAD_UNROLL=" + std::to_string(std::min(s.run_vectors, 16u));
    if (pad >= 1024) options += " -DPAD_BYTES=" + std::to_string(pad);
    if (ticket) options += " -DTICKET=1";
    options += " -DPER_SM=" + std::to_string(s.per_sm); // only for the printed line
    launches.push_back({"tile", options, std::size_t(s.run_vectors) * 2, s.wg});
  }

  int index = 0;
  for (const launch& l : launches) {
    cl_program program = clCreateProgramWithSource(context, 1, &kernel_source, nullptr, &status);
    check(status, "clCreateProgramWithSource");
    if (clBuildProgram(program, 1, &device, l.options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      std::vector<char> log(1 << 16);
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, log.size(), log.data(), nullptr);
      std::fprintf(stderr, "tile_traffic: clBuildProgram failed (%s):\n%s\n", l.options.c_str(), log.data());
      return 1;
    }
    if (!dump_dir.empty()) {
      std::size_t size = 0;
      check(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
            "clGetProgramInfo");
      std::vector<unsigned char> binary(size);
      unsigned char* data = binary.data();
      check(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr), "clGetProgramInfo");
      const std::string path = dump_dir + "/" + std::to_string(index) + ".ptx";
      FILE* file = std::fopen(path.c_str(), "wb");
      if (!file || std::fwrite(binary.data(), 1, size, file) != size) {
        std::fprintf(stderr, "tile_traffic: cannot write %s\n", path.c_str());
        return 1;
      }
      std::fclose(file);
    }
    cl_kernel kernel = clCreateKernel(program, l.kernel.c_str(), &status);
    check(status, "clCreateKernel");
    for (cl_uint a = 0; a < 4; ++a)
      check(clSetKernelArg(kernel, a, sizeof(cl_mem), &buffers[a]), "clSetKernelArg");
    const std::size_t global = n / l.elements_per_item, local = l.wg;
    auto kernel_launch = [&] {
      cl_event event;
      check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, &event),
            "clEnqueueNDRangeKernel");
      return event;
    };
    const double copy_us = median_us(copy), kernel_us = median_us(kernel_launch);
    std::printf("%2d %-9s %-60s %8.1f us  copy %8.1f us  ratio %.3f\n", index, l.kernel.c_str(),
                l.options.c_str(), kernel_us, copy_us, copy_us / kernel_us);
    std::fflush(stdout);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    ++index;
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "tile_traffic: %s\n", e.message.c_str());
    return 2;
  }
}
