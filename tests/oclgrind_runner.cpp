// clscan-oclgrind-runner: every clscan kernel on tiny inputs, for a run under Oclgrind
// (`oclgrind --data-races --uninitialized --check-api clscan-oclgrind-runner`, the "oclgrind" test).
//
// Oclgrind simulates an OpenCL device and reports out-of-bounds accesses, uses of uninitialized
// values, data races and API misuse on stderr; the test fails on any such report (ctest's
// FAIL_REGULAR_EXPRESSION) and on a non-zero exit status. This program checks every result against
// the CPU, exits 1 on a wrong one, and refuses (exit 2) to run anywhere but on Oclgrind's device, so
// that a run that is not under Oclgrind cannot pass by accident.
//
// The test builds the kernels with -DCLSCAN_PLAIN_STATUS_READS=0 (oclgrind --build-options): by
// default the single-pass look-back reads status words with plain volatile loads while other
// work-groups write them with atomic exchanges, which real devices perform as single accesses but
// which Oclgrind (rightly, by the OpenCL memory model) reports as read-write data races. With atomic
// reads every other access of the kernels is still checked.
//
// Kernels run: three-stage scan_tiles and add_tile_prefixes (one tile, two tiles + 3, two levels of
// recursion), single-pass scan_single_pass with several work-groups and several look-back rounds, and
// clear_status (first use of a workspace, and when the status array grows); cl_int, cl_long and a
// non-commutative custom operator on cl_uint; inclusive and exclusive; in place and out of place;
// aligned and unaligned offsets; with and without an initial value; and the single-pass fallback path
// (CLSCAN_SPIN_LIMIT=0). Two launch shapes (CLSCAN_TUNING, set here): wg=4,items=8,vec=4,lookback=2
// (32-element tiles, vector loads, look-back over 2 predecessors per round) and
// wg=3,items=5,vec=1,lookback=3 (15-element tiles, scalar loads).
//
// Oclgrind's device reports every device type (GPU among them), so dispatch picks the GPU variant of
// the single-pass kernel (tiles in local memory); the oclgrind-cpu-variant test runs this program
// again with -DCLSCAN_REREAD=1, the CPU variant.
//
// Output: one line per scan, then "oclgrind runner: <n> scans checked on <device>". Words that the
// test's failure expression looks for ("error", "invalid", "uninitialized", "race") are never printed
// on success.
#include <clscan/clscan.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace {

enum class kind_t { inclusive, exclusive };

struct spec {
  clscan::algorithm algo = clscan::algorithm::three_stage;
  clscan::op operation = clscan::op::sum;
  bool affine = false;
  kind_t kind = kind_t::inclusive;
  bool in_place = false;
  std::size_t n = 1, in_offset = 0, out_offset = 0;
  std::optional<std::int64_t> initial;
};

std::string describe(const spec& s, const char* type) {
  std::string text = std::string(s.algo == clscan::algorithm::single_pass ? "single_pass" : "three_stage") +
                     " " + type + " " +
                     (s.affine                         ? "affine"
                      : s.operation == clscan::op::max ? "max"
                                                       : "sum") +
                     " " + (s.kind == kind_t::inclusive ? "inclusive" : "exclusive") +
                     " n=" + std::to_string(s.n) + (s.in_place ? " in place" : " out of place") +
                     " offsets " + std::to_string(s.in_offset) + "/" + std::to_string(s.out_offset);
  if (s.initial) text += " initial " + std::to_string(*s.initial);
  return text;
}

std::uint32_t affine_compose(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t m = ((a >> 16) * (b >> 16)) & 0xffffu;
  const std::uint32_t c = ((b >> 16) * (a & 0xffffu) + (b & 0xffffu)) & 0xffffu;
  return (m << 16) | c;
}

struct runner {
  cl::Device device;
  std::size_t scans = 0;
  bool all_right = true;

  template <typename T>
  void run(const cl::Context& context, const cl::CommandQueue& queue, const spec& s, const char* type) {
    ++scans;
    const std::string name = describe(s, type);
    std::vector<T> input(s.n);
    std::uint64_t state = 0x9e3779b97f4a7c15ull ^ (s.n * 1315423911ull);
    for (auto& x : input) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const std::uint64_t bits = state >> 11;
      std::memcpy(&x, &bits, sizeof x);
    }
    clscan::options<T> opts;
    opts.algorithm = s.algo;
    opts.operation = s.affine ? clscan::op::custom : s.operation;
    T identity = s.operation == clscan::op::max ? std::numeric_limits<T>::lowest() : T(0);
    if (s.affine) {
      opts.custom_op = "(((((a) >> 16) * ((b) >> 16)) & 0xffffU) << 16) | ((((b) >> 16) * ((a) & 0xffffU) + "
                       "((b) & 0xffffU)) & 0xffffU)";
      identity = static_cast<T>(1u << 16);
      opts.custom_identity = identity;
    }
    if (s.initial) opts.initial = static_cast<T>(*s.initial);
    opts.in_offset = s.in_offset;
    opts.out_offset = s.out_offset;

    using U = std::make_unsigned_t<T>;
    std::vector<T> reference(s.n);
    T running = s.initial ? static_cast<T>(*s.initial) : identity;
    for (std::size_t i = 0; i < s.n; ++i) {
      if (s.kind == kind_t::exclusive) reference[i] = running;
      if (s.affine) {
        if constexpr (std::is_same<T, cl_uint>::value) running = affine_compose(running, input[i]);
      } else if (s.operation == clscan::op::max) {
        running = std::max(running, input[i]);
      } else {
        running = static_cast<T>(static_cast<U>(static_cast<U>(running) + static_cast<U>(input[i])));
      }
      if (s.kind == kind_t::inclusive) reference[i] = running;
    }

    // Guards around the ranges; every element of both buffers is written by the host first, so that
    // Oclgrind's uninitialized-value checks only see what the kernels themselves leave undefined.
    T poison;
    std::memset(&poison, 0xA5, sizeof poison);
    const std::size_t back = 3;
    std::vector<T> in_image(s.in_offset + s.n + back, poison);
    std::copy(input.begin(), input.end(), in_image.begin() + static_cast<std::ptrdiff_t>(s.in_offset));
    std::vector<T> out_image = s.in_place ? in_image : std::vector<T>(s.out_offset + s.n + back, poison);
    std::vector<T> expected = out_image;
    std::copy(reference.begin(), reference.end(),
              expected.begin() + static_cast<std::ptrdiff_t>(s.out_offset));

    cl::Buffer in(context, CL_MEM_READ_WRITE, in_image.size() * sizeof(T));
    cl::Buffer out = s.in_place ? in : cl::Buffer(context, CL_MEM_READ_WRITE, out_image.size() * sizeof(T));
    queue.enqueueWriteBuffer(in, CL_TRUE, 0, in_image.size() * sizeof(T), in_image.data());
    if (!s.in_place)
      queue.enqueueWriteBuffer(out, CL_TRUE, 0, out_image.size() * sizeof(T), out_image.data());
    cl::Event done;
    if (s.kind == kind_t::inclusive)
      done = s.in_place ? clscan::inclusive<T>(queue, in, s.n, opts)
                        : clscan::inclusive<T>(queue, in, out, s.n, opts);
    else
      done = s.in_place ? clscan::exclusive<T>(queue, in, s.n, opts)
                        : clscan::exclusive<T>(queue, in, out, s.n, opts);
    done.wait();
    std::vector<T> got(expected.size());
    queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(T), got.data());
    bool right = std::memcmp(got.data(), expected.data(), got.size() * sizeof(T)) == 0;
    if (!s.in_place) {
      std::vector<T> in_after(in_image.size());
      queue.enqueueReadBuffer(in, CL_TRUE, 0, in_after.size() * sizeof(T), in_after.data());
      right = right && std::memcmp(in_after.data(), in_image.data(), in_after.size() * sizeof(T)) == 0;
    }
    std::cout << (right ? "ok    " : "WRONG ") << name << std::endl;
    all_right = all_right && right;
  }

  // Every kind x placement x offsets of one algorithm and type over `sizes`.
  template <typename T>
  void sweep(const cl::Context& context, const cl::CommandQueue& queue, spec base, const char* type,
             const std::vector<std::size_t>& sizes, bool with_in_place = true) {
    for (std::size_t n : sizes)
      for (kind_t kind : {kind_t::inclusive, kind_t::exclusive})
        for (bool in_place : {false, true})
          for (bool aligned : {true, false}) {
            if (in_place && !with_in_place) continue;
            spec s = base;
            s.n = n, s.kind = kind, s.in_place = in_place;
            s.in_offset = aligned ? 4 : 1;
            s.out_offset = in_place ? s.in_offset : (aligned ? 8 : 3);
            run<T>(context, queue, s, type);
          }
  }
};

// The kernels for one launch shape (CLSCAN_TUNING), each in a fresh context (the tuning is read once
// per context and device).
void run_shape(runner& r, const char* tuning) {
  ::setenv("CLSCAN_TUNING", tuning, 1);
  const clscan::dispatch_plan plan = clscan::plan_for(r.device);
  const std::size_t tile = plan.three_stage.work_group_size * plan.three_stage.items_per_thread;
  std::cout << "CLSCAN_TUNING=" << tuning << ": three-stage tile " << tile << ", single-pass tile "
            << plan.single_pass.work_group_size * plan.single_pass.items_per_thread << std::endl;
  {
    cl::Context context(r.device);
    cl::CommandQueue queue(context, r.device);
    // Three-stage: one tile, two tiles + 3, and tile^2 + 5 (two levels of tile totals).
    spec three;
    three.algo = clscan::algorithm::three_stage;
    r.sweep<cl_int>(context, queue, three, "int", {1, 5, 2 * tile + 3, tile * tile + 5});
    spec three_long = three;
    three_long.operation = clscan::op::max;
    three_long.initial = -77;
    r.sweep<cl_long>(context, queue, three_long, "long", {2 * tile + 3});

    // Single-pass: the first call clears the status array (clear_status); n grows, so the array is
    // reallocated and cleared again; the calls in between reuse it with new tags.
    spec single;
    single.algo = clscan::algorithm::single_pass;
    r.sweep<cl_int>(context, queue, single, "int", {1, 5, 2 * tile + 3, 10 * tile + 1});
    single.initial = 1000;
    r.sweep<cl_int>(context, queue, single, "int", {10 * tile + 1});
    spec single_long;
    single_long.algo = clscan::algorithm::single_pass;
    r.sweep<cl_long>(context, queue, single_long, "long", {10 * tile + 1});
    spec single_affine = single_long;
    single_affine.affine = true;
    r.sweep<cl_uint>(context, queue, single_affine, "uint", {5 * tile + 7});
  }
  {
    // The fallback: every work-group reduces its predecessors' tiles itself (read once per context).
    // Out of place only: in place, the fallback reads a predecessor's input while that predecessor
    // may be writing its output over it, a race the kernel resolves by re-reading the predecessor's
    // prefix after the reduction (a prefix seen then wins), and which Oclgrind reports as such.
    ::setenv("CLSCAN_SPIN_LIMIT", "0", 1);
    cl::Context context(r.device);
    cl::CommandQueue queue(context, r.device);
    spec single;
    single.algo = clscan::algorithm::single_pass;
    r.sweep<cl_int>(context, queue, single, "int (CLSCAN_SPIN_LIMIT=0)", {6 * tile + 5}, false);
    ::unsetenv("CLSCAN_SPIN_LIMIT");
  }
  clscan::release_cached_resources();
}

} // namespace

int main() {
  try {
    runner r;
    r.device = clscan::select_device();
    const cl::Platform platform(r.device.getInfo<CL_DEVICE_PLATFORM>());
    const std::string platform_name = platform.getInfo<CL_PLATFORM_NAME>();
    const std::string device_name = r.device.getInfo<CL_DEVICE_NAME>();
    std::cout << "device: " << device_name << " (platform " << platform_name << ")" << std::endl;
    if (platform_name.find("Oclgrind") == std::string::npos) {
      std::cout << "FAILED: not running on Oclgrind's device; run this program as "
                   "`oclgrind --data-races --uninitialized --check-api clscan-oclgrind-runner`"
                << std::endl;
      return 2;
    }
    // 32-element tiles with 4-wide vectors (tiles in local memory), and 15-element tiles
    // of 3 work-items with scalar loads (neither a power of two).
    run_shape(r, "wg=4,items=8,vec=4,lookback=2");
    run_shape(r, "wg=3,items=5,vec=1,lookback=3");
    std::cout << "oclgrind runner: " << r.scans << " scans checked on " << device_name << ", "
              << (r.all_right ? "all right" : "SOME WRONG") << std::endl;
    return r.all_right ? 0 : 1;
  } catch (const std::exception& e) {
    std::cout << "FAILED: exception: " << e.what() << std::endl;
    return 3;
  }
}
