// sort_kernels: the time of each kernel of clscan's portable radix sort (kernels/sort.cl) on one
// device, for uint keys (and uint values with --pairs), beside a clEnqueueCopyBuffer of the keys in the
// same process. It launches the kernels itself, as lib/algorithms/sort.cpp does (histogram of every
// pass, then per 8-bit pass: count, count totals, scan of the counts, scatter; or with --single-pass
// one sort_onepass per pass, algorithm::single_pass), from a .cl file given on the command line, so that
// a change to the kernels or their shape can be timed kernel by kernel before it goes into the library.
// Nsight Compute profiles no kernel of NVIDIA's OpenCL (README.md).
//
// Usage: sort_kernels [--kernels FILE] [--n N|2^K] [--shape WG:ITEMS] [--pairs] [--single-pass]
//                     [--reps R] [--platform NAME] [--define NAME=VALUE]... [--option OPTION]...
//                     [--binary FILE]
// Prints one line: the median over R sorts (after one untimed) of each kernel's summed time, of the
// whole sort (first kernel's start to last kernel's end), of the copy, and their ratio, and the local
// memory of the ranking kernel; then checks the
// result (keys in order, the same keys; with --pairs, values a stable permutation) and says how many
// positions are wrong. Exits 1 on an OpenCL error or a wrong result, 2 on bad flags.
// Not part of clscan's build or CI: g++ -O2 -std=c++17 bench/profile/sort_kernels.cpp -lOpenCL
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>

#include "../common/arguments.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char* help_text =
    "usage: sort_kernels [--kernels FILE] [--n N|2^K] [--shape WG:ITEMS] [--pairs] [--single-pass] [--reps "
    "R] "
    "[--platform NAME] [--define NAME=VALUE]... [--option OPTION]... [--binary FILE]\n"
    "  --kernels FILE   the sort's kernels (default kernels/sort.cl, from a checkout's root)\n"
    "  --n N            keys, 1 to 2^31 (default 2^24)\n"
    "  --shape WG:ITEMS work-group size and keys per work-item (default 256:16; WG * ITEMS <= 65536)\n"
    "  --pairs          uint values move with the keys (sort_by_key)\n"
    "  --single-pass    one sort_onepass kernel per pass (n < 2^30; 64-bit status words where the device\n"
    "                   has cl_khr_int64_base_atomics, fences as the memory model)\n"
    "  --reps R         timed sorts, 1 to 1000 (default 10)\n"
    "  --platform NAME  the first platform whose name contains NAME (default: the first platform)\n"
    "  --define N=V     one more -D for the kernels' build, e.g. a tunable (CLSCAN_SORT_WINDOW=8)\n"
    "  --option OPTION  one more build option as it is, e.g. -cl-nv-maxrregcount=96 on NVIDIA\n"
    "  --binary FILE    also write the built program's binary to FILE (PTX on NVIDIA's OpenCL, for\n"
    "                   sort_ptx_launch and ptxas -v)\n";

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "sort_kernels: %s\n%s", message.c_str(), help_text);
  std::exit(2);
}

unsigned long long count_flag(const std::string& flag, const std::string& text, unsigned long long low,
                              unsigned long long high) {
  const std::optional<unsigned long long> value = bench::read_count(text);
  if (!value || *value < low || *value > high)
    usage_error(flag + " " + text + ": expected " + std::to_string(low) + " to " + std::to_string(high));
  return *value;
}

struct settings {
  std::string kernels = "kernels/sort.cl", platform, defines, binary;
  std::size_t n = std::size_t{1} << 24, wg = 256, items = 16, reps = 10;
  bool pairs = false, single_pass = false;
};

settings parse(int argc, char** argv) {
  settings s;
  bench::for_each_flag(argc, argv, help_text, usage_error, [&](const std::string& arg, auto value) {
    if (arg == "--kernels") {
      s.kernels = value();
    } else if (arg == "--n") {
      s.n = count_flag(arg, value(), 1, 1ull << 31);
    } else if (arg == "--shape") {
      const std::string text = value();
      const std::size_t colon = text.find(':');
      if (colon == std::string::npos) usage_error("--shape " + text + ": expected WG:ITEMS");
      s.wg = count_flag(arg, text.substr(0, colon), 1, 1024);
      s.items = count_flag(arg, text.substr(colon + 1), 1, 65536);
      if (s.wg * s.items > 65536) usage_error("--shape " + text + ": a tile holds at most 65536 keys");
    } else if (arg == "--pairs") {
      s.pairs = true;
    } else if (arg == "--single-pass") {
      s.single_pass = true;
    } else if (arg == "--reps") {
      s.reps = count_flag(arg, value(), 1, 1000);
    } else if (arg == "--platform") {
      s.platform = value();
    } else if (arg == "--option") {
      const std::string text = value();
      if (text.empty() || text[0] != '-' || text.find_first_of(" \t\"'") != std::string::npos)
        usage_error("--option " + text + ": expected one option starting with '-', without spaces or quotes");
      s.defines += " " + text;
    } else if (arg == "--binary") {
      s.binary = value();
    } else if (arg == "--define") {
      const std::string text = value();
      if (text.empty() || text.find_first_of(" \t\"'") != std::string::npos || text[0] == '=')
        usage_error("--define " + text + ": expected NAME=VALUE without spaces or quotes");
      s.defines += " -D" + text;
    } else {
      usage_error("unknown flag " + arg);
    }
  });
  return s;
}

// The kernels' launches and arguments, as lib/algorithms/sort.cpp sets them for an ascending sort of
// all 32 bits.
struct sort_launches {
  static constexpr std::size_t radix = 256, passes = 4, max_segments = 256;
  cl::Context context;
  cl::CommandQueue queue;
  std::size_t n, wg, tile, tiles, groups, tiles_per_group, segment, segments;
  cl::Buffer partials, flags, counts, offsets, segment_totals;
  cl::Kernel histogram, histogram_total, count, count_totals, scan_counts, scatter;
  // --single-pass: the look-back's status words (word 0 the ticket counter), cleared once; every launch
  // takes the next tag and its tiles' tickets, as lib/algorithms/single_pass.cpp begin_lookback does.
  bool single_pass;
  cl::Buffer digit_offsets, status;
  cl::Kernel one_pass;
  cl_uint ticket = 0, tag = 0;
  std::vector<std::pair<std::string, cl::Event>> events;

  sort_launches(const cl::Context& c, const cl::CommandQueue& q, const cl::Program& program,
                const settings& s, std::size_t compute_units)
      : context(c), queue(q), n(s.n), wg(s.wg), tile(s.wg * s.items), single_pass(s.single_pass) {
    tiles = (n + tile - 1) / tile;
    const std::size_t wanted = compute_units * 4;
    tiles_per_group = std::max<std::size_t>(1, (tiles + wanted - 1) / wanted);
    groups = (tiles + tiles_per_group - 1) / tiles_per_group;
    const std::size_t chunks = (tiles * radix + tile - 1) / tile,
                      per = (chunks + max_segments - 1) / max_segments;
    segment = per * tile;
    segments = (chunks + per - 1) / per;
    partials = buffer(groups * passes * radix * 4);
    flags = buffer(8 * 4);
    counts = buffer(tiles * radix * 4);
    offsets = buffer(tiles * radix * 4);
    segment_totals = buffer(segments * 4);
    histogram = cl::Kernel(program, "sort_histogram");
    histogram_total = cl::Kernel(program, "sort_histogram_total");
    count = cl::Kernel(program, "sort_count");
    count_totals = cl::Kernel(program, "sort_count_totals");
    scan_counts = cl::Kernel(program, "sort_scan_counts");
    scatter = cl::Kernel(program, "sort_scatter");
    if (single_pass) {
      digit_offsets = buffer(passes * radix * 4);
      const std::size_t status_bytes = 8 + tiles * radix * 16; // two slots of 8 bytes per (tile, digit)
      status = buffer(status_bytes);
      const cl_uchar zero = 0;
      queue.enqueueFillBuffer(status, zero, 0, status_bytes);
      one_pass = cl::Kernel(program, "sort_onepass");
    }
  }
  cl::Buffer buffer(std::size_t bytes) const {
    return cl::Buffer(context, CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 4));
  }

  // Raw buffer handles (or null) go in by their size, everything else as cl::Kernel takes it.
  static void set(cl::Kernel& k, cl_uint index, cl_mem buffer) { k.setArg(index, sizeof buffer, &buffer); }
  template <typename T> static void set(cl::Kernel& k, cl_uint index, const T& arg) { k.setArg(index, arg); }

  template <typename... Args>
  void run(const char* name, cl::Kernel& k, std::size_t work_groups, const Args&... args) {
    cl_uint index = 0;
    (set(k, index++, args), ...);
    cl::Event e;
    queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(work_groups * wg), cl::NDRange(wg), nullptr, &e);
    events.emplace_back(name, e);
  }

  // keys -> keys_out (with values -> values_out when values is set), through keys_temp / values_temp.
  void sort(const cl::Buffer& keys, const cl::Buffer& keys_out, const cl::Buffer& keys_temp,
            const cl::Buffer* values, const cl::Buffer* values_out, const cl::Buffer* values_temp) {
    const cl_ulong zero = 0, n64 = n;
    const cl_mem none = nullptr;
    // The work-groups add their counts into one histogram per pass (n < 2^32), zeroed first.
    const cl_uint zero_count = 0;
    queue.enqueueFillBuffer(partials, zero_count, 0, passes * radix * 4);
    run("histogram", histogram, groups, keys, zero, n64, cl_ulong{tiles_per_group}, partials, cl_uint{0},
        cl_uint{0}, cl_uint{passes}, cl_uint{32});
    run("histogram_total", histogram_total, passes, partials, cl_uint{1}, cl_uint{passes}, n64, flags,
        single_pass ? digit_offsets() : none);
    cl_mem src = keys(), values_src = values ? (*values)() : nullptr;
    for (cl_uint p = 0; p < passes; ++p) {
      const bool to_out = (passes - 1 - p) % 2 == 0;
      const cl_mem dst = to_out ? keys_out() : keys_temp();
      const cl_mem values_dst = values ? (to_out ? (*values_out)() : (*values_temp)()) : nullptr;
      if (single_pass) {
        run("onepass", one_pass, tiles, src, zero, dst, zero, values_src, zero, values_dst, zero, n64,
            cl_ulong{tiles}, digit_offsets, flags, p, cl_uint{1}, cl_uint{values ? 1u : 0u}, cl_uint{0},
            cl_uint{8 * p}, cl_uint{255}, status, ticket, ++tag);
        ticket += static_cast<cl_uint>(tiles);
        src = dst;
        values_src = values_dst;
        continue;
      }
      const cl_ulong total = tiles * radix;
      run("count", count, tiles, src, zero, n64, cl_ulong{tiles}, counts, flags, p, cl_uint{0},
          cl_uint{8 * p}, cl_uint{255});
      run("count_totals", count_totals, segments, counts, total, cl_ulong{segment}, segment_totals, flags, p);
      run("scan_counts", scan_counts, segments, counts, offsets, total, cl_ulong{segment}, segment_totals,
          flags, p);
      run("scatter", scatter, tiles, src, zero, dst, zero, values_src, zero, values_dst, zero, n64,
          cl_ulong{tiles}, offsets, flags, p, cl_uint{0}, cl_uint{1}, cl_uint{values ? 1u : 0u}, cl_uint{0},
          cl_uint{8 * p}, cl_uint{255});
      src = dst;
      values_src = values_dst;
    }
  }
};

// The values are their input positions through a bijection of 32-bit words that looks random, so that
// they are no more compressible than real data, and a value still says where its key came from.
constexpr cl_uint scramble_factor = 0x9E3779B1u;
cl_uint xor_shift(cl_uint x) { return x ^ (x >> 16); } // its own inverse
cl_uint scramble(cl_uint position) { return xor_shift(position * scramble_factor); }
cl_uint unscramble(cl_uint value) {
  cl_uint inverse = scramble_factor; // Newton's iteration for the factor's inverse modulo 2^32
  for (int i = 0; i < 5; ++i)
    inverse *= 2u - scramble_factor * inverse;
  return xor_shift(value) * inverse;
}

double microseconds(const cl::Event& e) {
  return (e.getProfilingInfo<CL_PROFILING_COMMAND_END>() - e.getProfilingInfo<CL_PROFILING_COMMAND_START>()) /
         1e3;
}

} // namespace

int main(int argc, char** argv) try {
  const settings s = parse(argc, argv);
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  const auto platform = std::find_if(platforms.begin(), platforms.end(), [&](const cl::Platform& p) {
    return p.getInfo<CL_PLATFORM_NAME>().find(s.platform) != std::string::npos;
  });
  if (platform == platforms.end()) usage_error("--platform " + s.platform + ": no such platform");
  std::vector<cl::Device> devices;
  platform->getDevices(CL_DEVICE_TYPE_ALL, &devices);
  const cl::Device device = devices.at(0);
  const cl::Context context(device);
  const cl::CommandQueue queue(context, device, CL_QUEUE_PROFILING_ENABLE);

  std::ifstream file(s.kernels);
  if (!file) usage_error("--kernels " + s.kernels + ": cannot read it");
  std::stringstream source;
  source << file.rdbuf();
  cl::Program program(context, source.str());
  std::string options = "-DCLSCAN_ELEM_SIZE=4 -DCLSCAN_SORT_KEY_KIND=0 -DCLSCAN_SORT_WIDE=0 -DCLSCAN_WG=" +
                        std::to_string(s.wg) + " -DCLSCAN_ITEMS=" + std::to_string(s.items) +
                        " -DCLSCAN_SORT_VALUE_SIZE=" + (s.pairs ? "4" : "0");
  if (s.single_pass) {
    if (s.n >= (std::size_t{1} << 30)) usage_error("--single-pass: n must be below 2^30");
    // The includes of sort.cl's one-pass part resolve beside the file.
    const std::size_t slash = s.kernels.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : s.kernels.substr(0, slash);
    const bool wide =
        device.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_int64_base_atomics") != std::string::npos;
    options += " -I " + dir +
               " -DCLSCAN_SORT_ONE_PASS=1 -DCLSCAN_T=uint -DCLSCAN_WIDE_STATUS=" + (wide ? "1" : "0") +
               " -DCLSCAN_ACQ_REL=0 -DCLSCAN_LOOKBACK=1 -DCLSCAN_SPIN_LIMIT=1024";
  }
  options += s.defines;
  try {
    program.build(std::vector<cl::Device>{device}, options.c_str());
  } catch (const cl::BuildError&) {
    std::fprintf(stderr, "sort_kernels: %s does not build:\n%s\n", s.kernels.c_str(),
                 program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device).c_str());
    return 1;
  }
  if (!s.binary.empty()) {
    const std::vector<std::vector<unsigned char>> binaries = program.getInfo<CL_PROGRAM_BINARIES>();
    std::ofstream out(s.binary, std::ios::binary);
    out.write(reinterpret_cast<const char*>(binaries.at(0).data()),
              static_cast<std::streamsize>(binaries.at(0).size()));
    if (!out) usage_error("--binary " + s.binary + ": cannot write it");
  }

  const std::size_t n = s.n, bytes = n * 4;
  std::vector<cl_uint> keys(n), values(n);
  std::mt19937 random(1);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<cl_uint>(random());
    values[i] = scramble(static_cast<cl_uint>(i));
  }
  sort_launches sort(context, queue, program, s, device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
  const cl::Buffer keys_in = sort.buffer(bytes), keys_out = sort.buffer(bytes),
                   keys_temp = sort.buffer(bytes), copy_out = sort.buffer(bytes),
                   values_in = sort.buffer(bytes), values_out = sort.buffer(bytes),
                   values_temp = sort.buffer(bytes);
  queue.enqueueWriteBuffer(keys_in, CL_TRUE, 0, bytes, keys.data());
  queue.enqueueWriteBuffer(values_in, CL_TRUE, 0, bytes, values.data());

  std::map<std::string, std::vector<double>> kernel_us;
  std::vector<double> sort_us, copy_us;
  for (std::size_t rep = 0; rep <= s.reps; ++rep) {
    cl::Event copy;
    queue.enqueueCopyBuffer(keys_in, copy_out, 0, 0, bytes, nullptr, &copy);
    sort.events.clear();
    sort.sort(keys_in, keys_out, keys_temp, s.pairs ? &values_in : nullptr, &values_out, &values_temp);
    queue.finish();
    if (rep == 0) continue; // builds and first touches
    copy_us.push_back(microseconds(copy));
    std::map<std::string, double> sums;
    for (const auto& [name, e] : sort.events)
      sums[name] += microseconds(e);
    for (const auto& [name, us] : sums)
      kernel_us[name].push_back(us);
    const cl_ulong first = sort.events.front().second.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const cl_ulong last = sort.events.back().second.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    sort_us.push_back((last - first) / 1e3);
  }

  // Keys in order and the same multiset (sum and a hash); with values, a permutation that is stable.
  std::vector<cl_uint> got(n), got_values(n);
  queue.enqueueReadBuffer(keys_out, CL_TRUE, 0, bytes, got.data());
  if (s.pairs) queue.enqueueReadBuffer(values_out, CL_TRUE, 0, bytes, got_values.data());
  std::size_t wrong = 0;
  std::vector<char> seen(s.pairs ? n : 0, 0);
  unsigned long long sum_in = 0, sum_out = 0, hash_in = 0, hash_out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum_in += keys[i];
    sum_out += got[i];
    hash_in ^= keys[i] * 0x9E3779B97F4A7C15ull;
    hash_out ^= got[i] * 0x9E3779B97F4A7C15ull;
    bool bad = i > 0 && got[i - 1] > got[i];
    if (s.pairs) {
      const cl_uint v = unscramble(got_values[i]);
      bad = bad || v >= n || seen[v]++ || got[i] != keys[v] ||
            (i > 0 && got[i - 1] == got[i] && unscramble(got_values[i - 1]) > v);
    }
    wrong += bad;
  }
  if (sum_in != sum_out || hash_in != hash_out) ++wrong;

  const double total = bench::median(sort_us), copy = bench::median(copy_us);
  std::printf("%s: n %zu, %s%s, shape %zu:%zu: sort %.1f us, copy %.1f us, ratio %.4f, %.2f G keys/s |",
              s.kernels.c_str(), n, s.pairs ? "pairs" : "keys", s.single_pass ? ", single pass" : "", s.wg,
              s.items, total, copy, copy / total, n / total / 1e3);
  for (const auto& [name, us] : kernel_us)
    std::printf(" %s %.1f", name.c_str(), bench::median(us));
  // The local memory of the ranking kernel, to set beside the device's CL_DEVICE_LOCAL_MEM_SIZE.
  const cl::Kernel ranking(program, s.single_pass ? "sort_onepass" : "sort_scatter");
  std::printf(" | local %zu of %zu B | wrong %zu\n",
              static_cast<std::size_t>(ranking.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device)),
              static_cast<std::size_t>(device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>()), wrong);
  return wrong ? 1 : 0;
} catch (const cl::Error& e) {
  std::fprintf(stderr, "sort_kernels: %s failed: %d\n", e.what(), e.err());
  return 1;
}
