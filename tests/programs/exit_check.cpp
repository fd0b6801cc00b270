// Programs that must exit cleanly whatever clscan has cached, in any static destruction order
// (tests/CMakeLists.txt runs each mode as its own ctest test under a TIMEOUT, so a hang at exit fails,
// and some of them under Oclgrind too, which aborts when OpenCL objects are released after it has shut
// down). Issues #10 (item 4) and #16 (item A).
//
//   clscan-exit-check <mode> [n]
//
// Modes:
//   global-early      a namespace-scope object, constructed before main and so destroyed after
//                     clscan's own function-local statics, owns the context and queue; its destructor
//                     calls clscan::release_cached_resources() before they go, as the README asks
//   global-late       the same object as a function-local static made after the first scan, so it is
//                     destroyed before clscan's statics
//   global-no-release the early global object without release_cached_resources()
//   no-release        scans in main with objects of main only, never calling release_cached_resources()
//   user-events       five queues on one context: a scan on queue 0 waits on a user event, scans on
//                     queues 1-3 run to completion, a plain scan on queue 4, then the event is set,
//                     every scan is waited for and checked, and main returns
//   parts-in-flight   a scan of two parts in two contexts, checked; then another whose wait list holds
//                     a user event that is never set, so that the call's thread still waits for part
//                     0's total when main returns
//
// Output (stdout only; Oclgrind's reports go to stderr): "exit-check: <mode>: ok" once the results are
// exact. Exit status 0 when they are, 1 when not, 2 on an exception.
#include <clscan/clscan.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace {

// Allocations made while one lives are not leaks to LeakSanitizer (on this thread): for work left in
// flight at exit on purpose, whose commands the implementation never frees.
struct abandoned_on_purpose {
#if defined(__SANITIZE_ADDRESS__)
  abandoned_on_purpose() { __lsan_disable(); }
  ~abandoned_on_purpose() { __lsan_enable(); }
#endif
};

std::size_t n_elements = 100000;

// Scans `n_elements` ints on `queue` (in place when `out` is null), waiting for `waits`; the caller
// waits for the returned event and calls check().
struct scan_job {
  std::vector<cl_int> data;
  cl::Buffer in, out;
  cl::Event done;

  scan_job(const cl::Context& context, const cl::CommandQueue& queue, int seed,
           const std::vector<cl::Event>& waits = {}, clscan::algorithm algo = clscan::algorithm::automatic) {
    data.resize(n_elements);
    for (std::size_t i = 0; i < data.size(); ++i)
      data[i] = static_cast<cl_int>((i * 7 + static_cast<std::size_t>(seed)) % 23) - 11;
    in = cl::Buffer(context, CL_MEM_READ_WRITE, data.size() * sizeof(cl_int));
    out = cl::Buffer(context, CL_MEM_READ_WRITE, data.size() * sizeof(cl_int));
    queue.enqueueWriteBuffer(in, CL_TRUE, 0, data.size() * sizeof(cl_int), data.data());
    clscan::options<cl_int> opts;
    opts.wait_list = waits;
    opts.algorithm = algo;
    done = clscan::inclusive(queue, in, out, data.size(), opts);
  }

  bool check(const cl::CommandQueue& queue) const {
    if (done.wait() != CL_SUCCESS) return false;
    std::vector<cl_int> got(data.size()), expected(data.size());
    queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(cl_int), got.data());
    std::inclusive_scan(data.begin(), data.end(), expected.begin());
    return got == expected;
  }
};

bool scan_and_check(const cl::Context& context, const cl::CommandQueue& queue, int seed) {
  const scan_job job(context, queue, seed);
  return job.check(queue);
}

// Owns a context and queue; optionally gives clscan's cache back in its destructor.
struct holder {
  cl::Device device;
  cl::Context context;
  cl::CommandQueue queue;
  bool release = true;

  holder() {
    device = clscan::select_device();
    context = cl::Context(device);
    queue = cl::CommandQueue(context, device);
  }
  ~holder() {
    if (release) clscan::release_cached_resources();
  }
};

std::unique_ptr<holder> early; // set in main for the global modes: destroyed after clscan's statics

holder& late_holder() {
  static holder h;
  return h;
}

bool run_user_events() {
  const cl::Device device = clscan::select_device();
  const cl::Context context(device);
  std::vector<cl::CommandQueue> queues;
  for (int i = 0; i < 5; ++i)
    queues.emplace_back(context, device);
  cl::UserEvent gate(context);
  bool ok = true;
  const scan_job gated(context, queues[0], 0, {gate});
  queues[0].flush();
  for (int i = 1; i <= 3; ++i)
    ok = scan_and_check(context, queues[static_cast<std::size_t>(i)], i) && ok;
  const scan_job plain(context, queues[4], 4);
  gate.setStatus(CL_COMPLETE);
  ok = gated.check(queues[0]) && ok;
  ok = plain.check(queues[4]) && ok;
  return ok;
}

bool run_parts_in_flight() {
  const cl::Device device = clscan::select_device();
  const cl::Context first(device), second(device);
  const cl::CommandQueue first_queue(first, device), second_queue(second, device);
  const std::size_t half = n_elements / 2;
  std::vector<cl_int> data(2 * half, 1);
  const cl::Buffer a(first, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, half * sizeof(cl_int), data.data());
  const cl::Buffer b(second, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, half * sizeof(cl_int), data.data());
  std::vector<clscan::part> parts = {{first_queue, a, half, 0}, {second_queue, b, half, 0}};
  for (const cl::Event& done : clscan::inclusive(parts))
    if (done.wait() != CL_SUCCESS) return false;
  std::vector<cl_int> got(2 * half);
  first_queue.enqueueReadBuffer(a, CL_TRUE, 0, half * sizeof(cl_int), got.data());
  second_queue.enqueueReadBuffer(b, CL_TRUE, 0, half * sizeof(cl_int), got.data() + half);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != static_cast<cl_int>(i + 1)) return false;

  const cl::UserEvent never(first);
  clscan::options<cl_int> opts;
  opts.wait_list = {never};
  [[maybe_unused]] const abandoned_on_purpose in_flight;
  static_cast<void>(clscan::inclusive(parts, opts));
  return true;
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc > 2) n_elements = std::strtoull(argv[2], nullptr, 10);
  try {
    bool ok = false;
    if (mode == "global-early" || mode == "global-no-release") {
      // `early` was constructed before clscan's function-local statics exist, so its destructor runs
      // after theirs.
      early = std::make_unique<holder>();
      early->release = mode == "global-early";
      ok = scan_and_check(early->context, early->queue, 1) && scan_and_check(early->context, early->queue, 2);
    } else if (mode == "global-late") {
      {
        const cl::Device device = clscan::select_device();
        const cl::Context context(device);
        const cl::CommandQueue queue(context, device);
        ok = scan_and_check(context, queue, 3); // clscan's statics exist from here on
      }
      holder& h = late_holder();
      ok = scan_and_check(h.context, h.queue, 4) && ok;
    } else if (mode == "no-release") {
      const cl::Device device = clscan::select_device();
      const cl::Context context(device);
      const cl::CommandQueue queue(context, device);
      ok = scan_and_check(context, queue, 5);
      const scan_job job(context, queue, 6, {}, clscan::algorithm::three_stage);
      ok = job.check(queue) && ok;
    } else if (mode == "user-events") {
      ok = run_user_events();
    } else if (mode == "parts-in-flight") {
      ok = run_parts_in_flight();
    } else {
      std::printf("usage: clscan-exit-check global-early|global-late|global-no-release|no-release|"
                  "user-events|parts-in-flight [n]\n");
      return 2;
    }
    std::printf("exit-check: %s: %s\n", mode.c_str(), ok ? "ok" : "WRONG RESULT");
    std::fflush(stdout);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("exit-check: %s: error: %s\n", mode.c_str(), e.what());
    return 2;
  }
}
