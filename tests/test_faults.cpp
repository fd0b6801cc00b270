// Faults ("[faults]"): what clscan does when its environment fails it.
//
//   - temporary storage that cannot be allocated: a clscan::opencl_error naming clCreateBuffer, the
//     user's buffers untouched, the context still usable, no OpenCL object left behind (context and
//     queue reference counts) (in a child process with a small device)
//   - a full disk (ENOSPC) under the disk cache: correct scans, a warning, no partial entry
//   - eight processes starting together on an empty disk cache: all correct, the cache valid after
//   - 2000 scans with fresh buffers: no growth of host memory or of OpenCL objects (context and
//     queue reference counts); release_cached_resources() gives contexts back
//   - a single-pass look-back that gets no news (CLSCAN_SPIN_LIMIT=0): falls back, stays correct,
//     never hangs
//   - a single-pass tile that never publishes (CLSCAN_TEST_SILENT_TILE, CLSCAN_SPIN_LIMIT=4): its
//     successor's bounded wait runs out and it reduces the tile itself; correct, never hangs (64- and
//     32-bit status words, in child processes)
//   - more than 2 x 65535 single-pass launches on one queue with 32-bit status words: the 16-bit
//     tags wrap, the status words are cleared, every result is right (in a child process)
//   - a launch shape of one-element tiles (CLSCAN_TUNING=wg=1,items=1,vec=1): a correct result or a
//     clear rejection, never a crash (in a child process)
//
// The child processes are this executable again (/proc/self/exe), running one of the hidden
// "[.faults-child]" test cases below; they print "result: ok" when everything they checked was right,
// and every clscan log event as "log: <level>: <message>".
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <iterator>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using namespace clscan_test;
using clscan_test::guarded::splitmix64;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool is_entry_name(const std::string& name) {
  static const std::regex pattern("^[0-9a-f]{16}-[0-9a-f]{16}\\.clbin$");
  return std::regex_match(name, pattern);
}

// --- child processes --------------------------------------------------------------------------------

std::string self_executable() {
  char path[4096];
  const ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
  REQUIRE(length > 0);
  path[length] = '\0';
  return path;
}

struct child_result {
  int exit_code = -1; // 128 + signal when killed by a signal
  std::string output; // stdout and stderr together
  bool ok() const { return exit_code == 0 && has("result: ok"); }
  bool has(const std::string& text) const { return output.find(text) != std::string::npos; }
};

struct child_spec {
  std::string test_name; // a hidden "[.faults-child]" test case of this executable
  std::map<std::string, std::optional<std::string>> env; // std::nullopt unsets
};

struct running_child {
  pid_t pid = -1;
  fs::path output_file;
};

// Starts this executable on one child test case, its output going to `output_file`. Everything the
// child needs is prepared before fork(); between fork() and execve() it only calls async-signal-safe
// functions (the parent has OpenCL runtime threads).
running_child start_child(const child_spec& spec, const fs::path& output_file) {
  const std::string exe = self_executable();
  std::vector<std::string> args = {exe, spec.test_name};
  std::map<std::string, std::string> variables;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) variables[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : spec.env) {
    if (value)
      variables[name] = *value;
    else
      variables.erase(name);
  }
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : variables)
    env_strings.push_back(name + "=" + value);
  std::vector<char*> argv, envp;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_strings)
    envp.push_back(e.data());
  envp.push_back(nullptr);

  const int fd = ::open(output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(devnull >= 0);
  std::cout.flush();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(devnull, 0);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(fd);
  ::close(devnull);
  return {pid, output_file};
}

// Waits for the child; one still running after `timeout` is taken for a hang and killed.
child_result finish_child(const running_child& child,
                          std::chrono::seconds timeout = std::chrono::seconds(300)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  bool timed_out = false;
  for (;;) {
    const pid_t done = ::waitpid(child.pid, &status, WNOHANG);
    if (done == child.pid || (done < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child.pid, SIGKILL);
      ::waitpid(child.pid, &status, 0);
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  child_result result;
  result.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  result.output = read_file(child.output_file);
  if (timed_out)
    result.output += "\n[killed: still running after " + std::to_string(timeout.count()) + " s]\n";
  return result;
}

child_result run_child(const child_spec& spec, const fs::path& work_dir) {
  static int counter = 0;
  return finish_child(start_child(spec, work_dir / ("child-" + std::to_string(counter++) + ".out")));
}

// For the children: prints each clscan log event as "log: <level>: <message>".
struct print_log_events {
  std::mutex mutex;
  print_log_events() {
    clscan::set_log_handler([this](clscan::log_level level, const std::string& message) {
      std::lock_guard<std::mutex> lock(mutex);
      std::cout << "log: " << clscan::to_string(level) << ": " << message << std::endl;
    });
  }
  ~print_log_events() { clscan::set_log_handler({}); }
};

// --- scans the children and the in-process tests run ------------------------------------------------

// One scan on guarded buffers in `context`, checked against the CPU (sum, max or xor of integers, or
// the affine composition on cl_uint). Returns "" when right, else what was wrong. No Catch macros.
struct scan_spec {
  clscan::algorithm algo = clscan::algorithm::automatic;
  clscan::op operation = clscan::op::sum;
  bool affine = false; // op::custom: composition of affine maps modulo 2^16 (not commutative)
  clscan::scan_kind kind = clscan::scan_kind::inclusive;
  bool in_place = false;
  std::size_t n = 1, in_offset = 0, out_offset = 0;
  std::optional<std::int64_t> initial;
  std::uint64_t seed = 1;
};

std::string describe(const scan_spec& s) {
  std::ostringstream out;
  out << guarded::name_of(s.algo) << " " << (s.affine ? "affine custom" : guarded::name_of(s.operation))
      << " " << guarded::name_of(s.kind) << " n=" << s.n << (s.in_place ? " in place" : " out of place")
      << " offsets " << s.in_offset << "/" << s.out_offset << (s.initial ? " with initial" : "");
  return out.str();
}

template <typename T>
std::string checked_scan(const cl::Context& context, const cl::CommandQueue& queue, const scan_spec& s,
                         std::chrono::seconds timeout = std::chrono::seconds(120)) {
  splitmix64 r{s.seed};
  std::vector<T> input(s.n);
  for (auto& x : input) {
    const std::uint64_t bits = r.next();
    std::memcpy(&x, &bits, sizeof x);
  }
  clscan::options<T> opts;
  opts.algorithm = s.algo;
  opts.operation = s.affine ? clscan::op::custom : s.operation;
  T identity{};
  if (s.affine) {
    opts.custom_op = guarded::affine<cl_uint>::expression();
    identity = static_cast<T>(1u << guarded::affine<cl_uint>::half);
    opts.custom_identity = identity;
  } else if (s.operation == clscan::op::max) {
    identity = std::numeric_limits<T>::lowest();
  }
  if (s.initial) opts.initial = static_cast<T>(*s.initial);
  opts.in_offset = s.in_offset;
  opts.out_offset = s.out_offset;
  const auto combine = [&](T a, T b) -> T {
    if (s.affine) {
      if constexpr (std::is_same<T, cl_uint>::value) return guarded::affine<cl_uint>::compose(a, b);
      return a;
    }
    switch (s.operation) {
    case clscan::op::max: return a < b ? b : a;
    case clscan::op::bit_xor: return static_cast<T>(a ^ b);
    default: return guarded::wrapping_sum(a, b);
    }
  };
  std::vector<T> reference(s.n);
  T running = s.initial ? static_cast<T>(*s.initial) : identity;
  for (std::size_t i = 0; i < s.n; ++i) {
    if (s.kind == clscan::scan_kind::exclusive) reference[i] = running;
    running = combine(running, input[i]);
    if (s.kind == clscan::scan_kind::inclusive) reference[i] = running;
  }
  const T poison = poison_value<T>();
  constexpr std::size_t back = 3;
  std::vector<T> in_image(s.in_offset + s.n + back, poison);
  std::copy(input.begin(), input.end(), in_image.begin() + static_cast<std::ptrdiff_t>(s.in_offset));
  std::vector<T> out_image = s.in_place ? in_image : std::vector<T>(s.out_offset + s.n + back, poison);
  std::vector<T> expected = out_image;
  std::copy(reference.begin(), reference.end(), expected.begin() + static_cast<std::ptrdiff_t>(s.out_offset));

  cl::Buffer in(context, CL_MEM_READ_WRITE, in_image.size() * sizeof(T));
  cl::Buffer out = s.in_place ? in : cl::Buffer(context, CL_MEM_READ_WRITE, out_image.size() * sizeof(T));
  if (queue.enqueueWriteBuffer(in, CL_TRUE, 0, in_image.size() * sizeof(T), in_image.data()) != CL_SUCCESS ||
      (!s.in_place && queue.enqueueWriteBuffer(out, CL_TRUE, 0, out_image.size() * sizeof(T),
                                               out_image.data()) != CL_SUCCESS))
    return "upload failed";
  cl::Event done;
  try {
    if (s.kind == clscan::scan_kind::inclusive)
      done = s.in_place ? clscan::inclusive<T>(queue, in, s.n, opts)
                        : clscan::inclusive<T>(queue, in, out, s.n, opts);
    else
      done = s.in_place ? clscan::exclusive<T>(queue, in, s.n, opts)
                        : clscan::exclusive<T>(queue, in, out, s.n, opts);
  } catch (const std::exception& e) {
    return describe(s) + ": threw " + e.what();
  }
  queue.flush();
  auto waiting = std::async(std::launch::async, [&done] { return done.wait(); });
  if (waiting.wait_for(timeout) == std::future_status::timeout) {
    std::cerr << "clscan faults test: " << describe(s) << " did not complete within " << timeout.count()
              << " s; taking it for a hang and aborting" << std::endl;
    std::abort();
  }
  if (waiting.get() != CL_SUCCESS) return describe(s) + ": the event failed";
  std::vector<T> got(expected.size());
  if (queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(T), got.data()) != CL_SUCCESS)
    return "read failed";
  std::size_t differences = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0 && differences++ == 0) first = i;
  if (!s.in_place) {
    std::vector<T> in_after(in_image.size());
    if (queue.enqueueReadBuffer(in, CL_TRUE, 0, in_after.size() * sizeof(T), in_after.data()) != CL_SUCCESS)
      return "read failed";
    if (in_after != in_image) return describe(s) + ": the input buffer changed";
  }
  if (!differences) return {};
  std::ostringstream message;
  message << describe(s) << ": " << differences << " elements differ, the first at buffer index " << first
          << ": expected " << +expected[first] << ", got " << +got[first];
  return message.str();
}

// The scans of the disk-cache children: several program variants (both algorithms, two element types,
// aligned and unaligned offsets).
std::vector<std::string> run_variant_scans(const cl::Context& context, const cl::CommandQueue& queue) {
  using clscan::algorithm;
  std::vector<std::string> problems;
  const auto add = [&](std::string problem) {
    if (!problem.empty()) problems.push_back(std::move(problem));
  };
  scan_spec s;
  s.algo = algorithm::three_stage, s.n = 3000, s.seed = 11;
  add(checked_scan<cl_int>(context, queue, s));
  s = {}, s.algo = algorithm::single_pass, s.n = 50000, s.in_place = true, s.seed = 12;
  add(checked_scan<cl_int>(context, queue, s));
  s = {}, s.algo = algorithm::three_stage, s.operation = clscan::op::max, s.n = 10000, s.in_offset = 1,
  s.out_offset = 3, s.kind = clscan::scan_kind::exclusive, s.seed = 13;
  add(checked_scan<cl_long>(context, queue, s));
  s = {}, s.algo = algorithm::automatic, s.operation = clscan::op::bit_xor, s.n = 70001, s.seed = 14;
  add(checked_scan<cl_uint>(context, queue, s));
  return problems;
}

} // namespace

// --- the children -------------------------------------------------------------------------------------

// With CLSCAN_FAULTS_FULL_DISK=<entry name>,<entry name>,...: the disk is full for those cache
// entries. clscan writes an entry to "<entry>.tmp.<pid>.<sequence>" and renames it; this child makes
// each such name (sequence 0..31) a symbolic link to /dev/full first, so that clscan's writes of those
// entries fail with ENOSPC, as on a full disk. Links clscan did not consume are removed at the end;
// "full-disk writes: <n>" says how many it did consume (tried to write and removed).
TEST_CASE("faults child: scans of several variants", "[.faults-child]") {
  print_log_events logging;
  std::vector<fs::path> links;
  if (const char* names = std::getenv("CLSCAN_FAULTS_FULL_DISK"); names && *names) {
    const fs::path dir = clscan::cache_directory();
    fs::create_directories(dir);
    std::string list = names;
    for (std::size_t pos = 0; pos < list.size();) {
      const std::size_t end = std::min(list.find(',', pos), list.size());
      const std::string entry = list.substr(pos, end - pos);
      for (int sequence = 0; sequence < 32; ++sequence) {
        const fs::path link =
            dir / (entry + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(sequence));
        fs::create_symlink("/dev/full", link);
        links.push_back(link);
      }
      pos = end + 1;
    }
  }
  const cl::Device device = clscan::select_device();
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  const std::vector<std::string> problems = run_variant_scans(context, queue);
  if (!links.empty()) {
    std::size_t consumed = 0;
    for (const fs::path& link : links) {
      std::error_code error;
      if (fs::is_symlink(fs::symlink_status(link, error)))
        fs::remove(link, error);
      else
        ++consumed;
    }
    std::cout << "full-disk writes: " << consumed << std::endl;
  }
  for (const auto& p : problems)
    std::cout << "problem: " << p << "\n";
  std::cout << "result: " << (problems.empty() ? "ok" : "wrong") << std::endl;
  CHECK(problems.empty());
}

// Run with CLSCAN_TUNING=wg=1,items=2,vec=1, two-element tiles (and POCL_MEMORY_LIMIT=1 on PoCL, so
// that the device's allocation limit is 256 MiB): a single-pass scan of n cl_int elements then needs
// a status array of 1 + n words of 8 bytes (64-bit status words; 2 + 2n words of 4 bytes otherwise),
// 8n bytes, while the data takes 4n. With n = max_alloc / 8 + 1 the data fits and the status array
// does not.
TEST_CASE("faults child: temporary storage beyond the allocation limit", "[.faults-child]") {
  print_log_events logging;
  const cl::Device device = clscan::select_device();
  const clscan::device_capabilities caps = clscan::capabilities(device);
  const std::size_t n = static_cast<std::size_t>(caps.max_mem_alloc_size / 8 + 1);
  const std::size_t bytes = n * sizeof(cl_int);
  constexpr std::size_t budget = std::size_t{256} << 20;
  std::cout << "device: " << caps.name << ", max_mem_alloc_size " << caps.max_mem_alloc_size << ", n " << n
            << ", data " << bytes << " bytes" << std::endl;
  if (bytes > budget || 2 * bytes > caps.global_mem_size) {
    std::cout << "skipped: the data would take " << bytes << " bytes (more than " << budget << ")"
              << std::endl;
    std::cout << "result: ok" << std::endl;
    return;
  }
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  bool ok = true;
  const auto fail = [&](const std::string& why) {
    std::cout << "problem: " << why << std::endl;
    ok = false;
  };
  // OpenCL objects hold their context (buffers, programs, kernels) or queue (events), so an object
  // that the failed call created and never released shows in these counts.
  const auto references = [&] {
    return std::make_pair(context.getInfo<CL_CONTEXT_REFERENCE_COUNT>(),
                          queue.getInfo<CL_QUEUE_REFERENCE_COUNT>());
  };
  const auto show = [](const std::pair<cl_uint, cl_uint>& counts) {
    return "context " + std::to_string(counts.first) + ", queue " + std::to_string(counts.second);
  };
  const auto references_at_start = references();
  // Known contents: the index, so a comparison after the failed call sees any write at all.
  std::vector<cl_int> pattern(n);
  std::iota(pattern.begin(), pattern.end(), 7);
  for (bool in_place : {true, false}) {
    std::cout << (in_place ? "in place" : "out of place") << std::endl;
    cl::Buffer in(context, CL_MEM_READ_WRITE, bytes);
    cl::Buffer out = in;
    if (!in_place) out = cl::Buffer(context, CL_MEM_READ_WRITE, bytes);
    const cl_int poison = poison_value<cl_int>();
    if (queue.enqueueWriteBuffer(in, CL_TRUE, 0, bytes, pattern.data()) != CL_SUCCESS ||
        (!in_place && queue.enqueueFillBuffer(out, poison, 0, bytes) != CL_SUCCESS)) {
      fail("upload failed");
      break;
    }
    clscan::options<cl_int> opts;
    opts.algorithm = clscan::algorithm::single_pass;
    // The first failed call creates clscan's workspace and builds its program, which stay; the
    // second has nothing left to create but the storage that fails.
    queue.finish();
    const auto references_before = references();
    try {
      cl::Event done =
          in_place ? clscan::inclusive(queue, in, n, opts) : clscan::inclusive(queue, in, out, n, opts);
      done.wait();
      fail("the scan did not throw (its temporary storage was expected to exceed "
           "CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
    } catch (const clscan::opencl_error& e) {
      std::cout << "error: " << e.what() << std::endl;
      const bool named = e.call().find("clCreateBuffer") != std::string::npos;
      const bool status = e.status() == CL_INVALID_BUFFER_SIZE ||
                          e.status() == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                          e.status() == CL_OUT_OF_RESOURCES || e.status() == CL_OUT_OF_HOST_MEMORY;
      if (!named) fail(std::string("the error does not name clCreateBuffer: ") + e.what());
      if (!status) fail(std::string("unexpected status: ") + e.what());
      if (std::string(e.what()).find(clscan::status_name(e.status())) == std::string::npos)
        fail(std::string("what() does not name the status: ") + e.what());
    } catch (const std::exception& e) {
      fail(std::string("threw something other than clscan::opencl_error: ") + e.what());
    }
    std::vector<cl_int> after(n);
    if (queue.enqueueReadBuffer(in, CL_TRUE, 0, bytes, after.data()) != CL_SUCCESS || after != pattern)
      fail("the input buffer changed");
    if (!in_place && (queue.enqueueReadBuffer(out, CL_TRUE, 0, bytes, after.data()) != CL_SUCCESS ||
                      std::any_of(after.begin(), after.end(), [&](cl_int x) { return x != poison; })))
      fail("the output buffer changed");
    queue.finish();
    const auto references_after = references();
    std::cout << "references around the failed call: " << show(references_before) << " -> "
              << show(references_after) << std::endl;
    if (!in_place && references_after != references_before)
      fail("the failed call left OpenCL objects behind: references " + show(references_before) +
           " before it, " + show(references_after) + " after it");
  }
  // The same context (and its workspace) still scans what fits.
  scan_spec s;
  s.algo = clscan::algorithm::single_pass, s.n = 1000, s.seed = 5;
  const std::string afterwards = checked_scan<cl_int>(context, queue, s);
  if (!afterwards.empty()) fail("a later scan that fits: " + afterwards);
  s.algo = clscan::algorithm::three_stage, s.in_place = true;
  scoped_env shape("CLSCAN_TUNING", std::nullopt); // tiles of one element break three-stage (see below)
  cl::Context other(device);
  cl::CommandQueue other_queue(other, device);
  const std::string elsewhere = checked_scan<cl_int>(other, other_queue, s);
  if (!elsewhere.empty()) fail("a scan in another context: " + elsewhere);
  // Once clscan lets go of what it keeps on purpose, nothing of the failed calls may remain.
  queue.finish();
  other_queue.finish();
  clscan::release_cached_resources();
  const auto references_at_end = references();
  std::cout << "references: " << show(references_at_start) << " at the start, " << show(references_at_end)
            << " at the end after release_cached_resources()" << std::endl;
  if (references_at_end != references_at_start)
    fail("OpenCL objects leaked: references " + show(references_at_start) + " at the start, " +
         show(references_at_end) + " at the end");
  std::cout << "result: " << (ok ? "ok" : "wrong") << std::endl;
  CHECK(ok);
}

// Run with CLSCAN_TUNING=wg=1,items=1,vec=1: one-element tiles, for both algorithms.
TEST_CASE("faults child: one-element tiles", "[.faults-child]") {
  const cl::Device device = clscan::select_device();
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  bool ok = true;
  for (auto algo : {clscan::algorithm::single_pass, clscan::algorithm::three_stage}) {
    for (std::size_t n : {1, 2, 3, 100}) {
      scan_spec s;
      s.algo = algo, s.n = n, s.seed = n;
      std::cout << "scan: " << describe(s) << std::endl;
      std::string problem;
      try {
        problem = checked_scan<cl_int>(context, queue, s);
      } catch (const std::exception& e) {
        problem = e.what();
      }
      if (problem.find("invalid_argument") != std::string::npos ||
          problem.find("CLSCAN_TUNING") != std::string::npos) {
        std::cout << "rejected: " << problem << std::endl; // a clear rejection of the shape is fine
      } else if (!problem.empty()) {
        std::cout << "problem: " << problem << std::endl;
        ok = false;
      }
    }
  }
  std::cout << "result: " << (ok ? "ok" : "wrong") << std::endl;
  CHECK(ok);
}

// Run with CLSCAN_FAULTS_SILENT_TILE=<k>, CLSCAN_BUILD_OPTIONS=-DCLSCAN_TEST_SILENT_TILE=<k>, a small
// CLSCAN_SPIN_LIMIT and small tiles (CLSCAN_TUNING): single-pass tile k never publishes, so its
// successor can only get past it by giving up waiting after CLSCAN_SPIN_LIMIT rounds and reducing
// the tile itself. A correct result is therefore proof that the bounded wait ran out and the
// fallback's value was right; a broken bound hangs (the watchdogs here and in the parent end it).
// Out of place only: in place the silent tile still writes its output over the input its successor
// reduces (kernels/single_pass.cl). Sizes put tile k second to last (the last tile never publishes
// anyway), with a one-element, a partial and a full last tile, and in the middle of 41 tiles; with
// and without an initial value. The affine operator is not commutative, so a fallback that combined
// in the wrong order would show.
TEST_CASE("faults child: a tile that never publishes", "[.faults-child]") {
  print_log_events logging;
  const char* silent = std::getenv("CLSCAN_FAULTS_SILENT_TILE");
  REQUIRE(silent);
  const std::size_t k = static_cast<std::size_t>(std::strtoull(silent, nullptr, 10));
  const cl::Device device = clscan::select_device();
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  bool ok = true;
  std::size_t scans = 0;
  // One program per type (each build option is a program of its own, and PoCL compiles every one
  // cold on a fresh machine): aligned offsets for int and the affine operator, unaligned ones for long.
  const auto for_type = [&](clscan::element_type type, auto zero, bool affine, std::size_t in_offset,
                            std::size_t out_offset) {
    using T = decltype(zero);
    const clscan::tuning shape = clscan::plan_for(device, type).single_pass;
    const std::size_t tile = shape.work_group_size * shape.items_per_thread;
    std::cout << clscan::opencl_name(type) << (affine ? " affine" : " sum") << ": tile " << tile
              << " elements, spin limit " << shape.spin_limit << " (" << shape.origin << ")" << std::endl;
    std::vector<std::size_t> sizes = {(k + 1) * tile + 1, (k + 2) * tile - 7, (k + 2) * tile};
    if (k + 2 < 41) sizes.push_back(41 * tile - 13);
    for (std::size_t n : sizes)
      for (auto kind : {clscan::scan_kind::inclusive, clscan::scan_kind::exclusive})
        for (bool with_initial : {false, true}) {
          scan_spec s;
          s.algo = clscan::algorithm::single_pass;
          s.affine = affine;
          s.kind = kind;
          s.n = n;
          s.in_offset = in_offset, s.out_offset = out_offset;
          if (with_initial) s.initial = static_cast<std::int64_t>(n * 977 + k);
          s.seed = n * 131 + k * 7 + with_initial;
          const std::string problem = checked_scan<T>(context, queue, s, std::chrono::seconds(60));
          ++scans;
          if (!problem.empty()) {
            std::cout << "problem: " << problem << std::endl;
            ok = false;
          }
        }
  };
  for_type(clscan::element_type::int32, cl_int{}, false, 4, 8);
  for_type(clscan::element_type::int64, cl_long{}, false, 3, 5);
  for_type(clscan::element_type::uint32, cl_uint{}, true, 0, 0);
  std::cout << "scans: " << scans << std::endl;
  std::cout << "result: " << (ok ? "ok" : "wrong") << std::endl;
  CHECK(ok);
}

// Run with CLSCAN_NARROW_STATUS=1 (32-bit status words: 16-bit tags), small tiles (CLSCAN_TUNING) and
// a small CLSCAN_SPIN_LIMIT: CLSCAN_FAULTS_TAG_LAUNCHES single-pass launches on one in-order queue,
// so on one set of temporaries. Launch i gets tag i % 65535 + 1: launch 65535 finds the epoch at
// 65535, clears the status words and restarts tags (and tickets) at 1. Every launch's result is read
// back and compared, and each launch has its own initial value, so a tile that took a word left by
// an earlier launch for current would be wrong.
//
// Whether the clear reached every word is made certain rather than left to timing: launches 0 and 1
// scan eight tiles, all later ones three or four (the clearing launch too), except the one right
// after each clear, which scans eight tiles again with tag 2. So tile 5 published last in launch 1,
// with tag 2, and a clear of just the clearing launch's own tiles would leave those words. The
// launches after a clear scan cl_uint (the same bits as the cl_int sums, the same status words)
// with a program built with -DCLSCAN_TEST_SILENT_TILE=5: tile 6 then finds nothing of tile 5 and
// falls back, unless the clear missed tile 5's words and it takes launch 1's prefix.
TEST_CASE("faults child: narrow status tags wrap around", "[.faults-child]") {
  print_log_events logging;
  const cl::Device device = clscan::select_device();
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  const char* count = std::getenv("CLSCAN_FAULTS_TAG_LAUNCHES");
  REQUIRE(count);
  const std::size_t launches = static_cast<std::size_t>(std::strtoull(count, nullptr, 10));
  const clscan::tuning shape = clscan::plan_for(device, clscan::element_type::int32).single_pass;
  const std::size_t tile = shape.work_group_size * shape.items_per_thread;
  constexpr std::size_t tag_period = 65535, batch = 1024, big_tiles = 8;
  // Launch sizes: three or four tiles, and eight for launch 0 and the second of each tag period.
  const std::size_t sizes[] = {2 * tile + 1, 3 * tile, 3 * tile + tile / 2, 4 * tile};
  const auto size_of_launch = [&](std::size_t i) {
    return i == 0 || i % tag_period == 1 ? big_tiles * tile - 3 : sizes[(i / 2) % 4];
  };
  const auto after_clear = [&](std::size_t i) { return i > 1 && i % tag_period == 1; };
  // Set once the cl_int program is built (launch 0), so that only the cl_uint one has the silent tile.
  std::optional<scoped_env> silent_tile;
  // Every slot of the output buffer has room for the largest launch and a poisoned gap after it;
  // a multiple of four elements, so every launch uses the aligned program.
  const std::size_t stride = (big_tiles * tile + 8 + 3) / 4 * 4;
  std::cout << "tile " << tile << " elements (" << shape.origin << "), " << launches << " launches"
            << std::endl;

  std::vector<cl_int> input(big_tiles * tile);
  splitmix64 r{0x7a6};
  for (auto& x : input)
    x = static_cast<cl_int>(r.next());
  std::vector<cl_int> inclusive(input.size());
  cl_int running = 0;
  for (std::size_t j = 0; j < input.size(); ++j)
    inclusive[j] = running = guarded::wrapping_sum(running, input[j]);
  cl::Buffer in(context, CL_MEM_READ_ONLY, input.size() * sizeof(cl_int));
  cl::Buffer out(context, CL_MEM_READ_WRITE, batch * stride * sizeof(cl_int));
  REQUIRE(queue.enqueueWriteBuffer(in, CL_TRUE, 0, input.size() * sizeof(cl_int), input.data()) ==
          CL_SUCCESS);

  const cl_int poison = poison_value<cl_int>();
  std::vector<cl_int> got(batch * stride);
  std::size_t wrong = 0, elements = 0;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t first = 0; first < launches; first += batch) {
    const std::size_t count_here = std::min(batch, launches - first);
    REQUIRE(queue.enqueueFillBuffer(out, poison, 0, got.size() * sizeof(cl_int)) == CL_SUCCESS);
    for (std::size_t b = 0; b < count_here; ++b) {
      const std::size_t i = first + b;
      if (i == 1) silent_tile.emplace("CLSCAN_BUILD_OPTIONS", std::string("-DCLSCAN_TEST_SILENT_TILE=5"));
      if (after_clear(i)) {
        clscan::options<cl_uint> opts;
        opts.algorithm = clscan::algorithm::single_pass;
        opts.initial = static_cast<cl_uint>(i * 2654435761u);
        opts.out_offset = b * stride;
        if (i % 2)
          clscan::exclusive(queue, in, out, size_of_launch(i), opts);
        else
          clscan::inclusive(queue, in, out, size_of_launch(i), opts);
        continue;
      }
      clscan::options<cl_int> opts;
      opts.algorithm = clscan::algorithm::single_pass;
      opts.initial = static_cast<cl_int>(i * 2654435761u);
      opts.out_offset = b * stride;
      if (i % 2)
        clscan::exclusive(queue, in, out, size_of_launch(i), opts);
      else
        clscan::inclusive(queue, in, out, size_of_launch(i), opts);
    }
    REQUIRE(queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(cl_int), got.data()) == CL_SUCCESS);
    for (std::size_t b = 0; b < batch; ++b) {
      const std::size_t i = first + b;
      const std::size_t n = b < count_here ? size_of_launch(i) : 0;
      const cl_int initial = static_cast<cl_int>(i * 2654435761u);
      std::size_t differences = 0, first_difference = 0;
      for (std::size_t j = 0; j < stride; ++j) {
        cl_int expected = poison;
        if (j < n) {
          if (i % 2)
            expected = j == 0 ? initial : guarded::wrapping_sum(initial, inclusive[j - 1]);
          else
            expected = guarded::wrapping_sum(initial, inclusive[j]);
        }
        if (got[b * stride + j] != expected && differences++ == 0) first_difference = j;
      }
      elements += n;
      if (differences) {
        if (++wrong <= 20)
          std::cout << "problem: launch " << i << " (tag " << i % tag_period + 1 << ", n " << n << ", "
                    << (after_clear(i) ? "cl_uint with the silent tile 5, " : "")
                    << (i % 2 ? "exclusive" : "inclusive") << "): " << differences
                    << " elements differ, the first at " << first_difference << std::endl;
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "launches: " << launches << ", elements checked: " << elements << ", wrong launches: " << wrong
            << ", " << seconds << " s" << std::endl;
  std::cout << "result: " << (wrong == 0 ? "ok" : "wrong") << std::endl;
  CHECK(wrong == 0);
}

// --- the tests ----------------------------------------------------------------------------------------

TEST_CASE("faults: temporary storage that cannot be allocated throws opencl_error and touches nothing",
          "[faults]") {
  temp_dir work;
  child_spec spec;
  spec.test_name = "faults child: temporary storage beyond the allocation limit";
  spec.env["CLSCAN_TUNING"] = std::string("wg=1,items=2,vec=1");
  spec.env["POCL_MEMORY_LIMIT"] = std::string("1"); // PoCL: 1 GiB of global memory, 256 MiB per buffer
  const child_result child = run_child(spec, work.path());
  INFO("child output:\n" << child.output);
  CHECK(child.exit_code == 0);
  CHECK(child.ok());
  if (child.has("skipped:")) {
    WARN("the allocation failure could not be forced on device '"
         << env().device_name << "' within the memory budget; see the output");
  } else {
    CHECK(child.has("error: clCreateBuffer"));
    CHECK_FALSE(child.has("problem:"));
    CHECK(child.has("references around the failed call: "));
    CHECK(child.has("at the end after release_cached_resources()"));
  }
}

TEST_CASE("faults: a full disk under the cache leaves scans correct and no partial entry", "[faults]") {
  // How the disk gets full: RLIMIT_FSIZE cannot do it on PoCL, which writes the preprocessed program
  // (about 1 MB) into its own kernel cache on every clBuildProgram, even when it has the program
  // cached; any limit small enough to fail clscan's entries (130..330 KB here) fails PoCL's builds
  // first. So the child process links clscan's temporary file names for some entries to /dev/full
  // (see "faults child: scans of several variants"): their writes fail with ENOSPC, the errno of a
  // full disk, while the rest of the file system works.
  temp_dir work;
  const fs::path names_dir = work.path() / "names", dir = work.path() / "cache";
  child_spec spec;
  spec.test_name = "faults child: scans of several variants";
  spec.env["CLSCAN_NO_CACHE"] = std::nullopt;
  // The single-pass qualification stores a file of its own (qualified-*.txt) and is tested in
  // [qualify]; here only program entries may appear.
  spec.env["CLSCAN_QUALIFY"] = std::string("0");

  // A first run in another directory gives the names of the entries (they do not depend on the
  // directory).
  spec.env["CLSCAN_CACHE_DIR"] = names_dir.string();
  const child_result first = run_child(spec, work.path());
  INFO("run that learns the entry names:\n" << first.output);
  REQUIRE(first.ok());
  std::vector<std::string> names;
  for (const std::string& name : files_in(names_dir))
    if (is_entry_name(name)) names.push_back(name);
  REQUIRE(names.size() >= 2);
  // The disk is full for every other entry; the others are written normally.
  std::vector<std::string> full, written;
  std::string full_list;
  for (std::size_t i = 0; i < names.size(); ++i) {
    (i % 2 == 0 ? full : written).push_back(names[i]);
    if (i % 2 == 0) full_list += (full_list.empty() ? "" : ",") + names[i];
  }

  spec.env["CLSCAN_CACHE_DIR"] = dir.string();
  spec.env["CLSCAN_FAULTS_FULL_DISK"] = full_list;
  const child_result limited = run_child(spec, work.path());
  INFO("run with a full disk for " << full.size() << " of " << names.size() << " entries:\n"
                                   << limited.output);
  CHECK(limited.ok());
  CHECK(limited.has("full-disk writes: " + std::to_string(full.size())));
  CHECK(limited.has("warning: disk cache: cannot write"));
  CHECK(limited.has("No space left on device"));
  std::map<std::string, std::string> kept;
  for (const std::string& name : files_in(dir)) {
    INFO("file left in the cache directory: " << name);
    CHECK(name.find(".tmp.") == std::string::npos); // no partial temporary file
    CHECK(is_entry_name(name));
    CHECK(std::find(full.begin(), full.end(), name) == full.end()); // no partial entry
    kept[name] = read_file(dir / name);
  }
  CHECK(kept.size() == written.size());

  // With space again: the entries written before load (not reported, not rebuilt), the missing ones
  // are built and stored.
  spec.env["CLSCAN_FAULTS_FULL_DISK"] = std::nullopt;
  const child_result unlimited = run_child(spec, work.path());
  INFO("run with space again:\n" << unlimited.output);
  CHECK(unlimited.ok());
  CHECK(unlimited.has("loaded cached program"));
  CHECK(unlimited.has("disk cache: stored"));
  CHECK_FALSE(unlimited.has("ignoring"));
  CHECK_FALSE(unlimited.has("warning"));
  for (const auto& [name, bytes] : kept) {
    INFO("entry " << name << " written by the run with the full disk");
    CHECK(read_file(dir / name) == bytes);
  }
  CHECK(files_in(dir) == names);

  // And now everything is in the cache.
  const child_result cached = run_child(spec, work.path());
  INFO("run on the filled cache:\n" << cached.output);
  CHECK(cached.ok());
  CHECK(cached.has("loaded cached program"));
  CHECK_FALSE(cached.has("built program from source"));
  CHECK_FALSE(cached.has("ignoring"));
}

TEST_CASE("faults: eight processes starting together on an empty cache all succeed", "[faults]") {
  temp_dir work;
  const fs::path dir = work.path() / "cache";
  child_spec spec;
  spec.test_name = "faults child: scans of several variants";
  spec.env["CLSCAN_NO_CACHE"] = std::nullopt;
  // The single-pass qualification stores a file of its own (qualified-*.txt) and is tested in
  // [qualify]; here only program entries may appear.
  spec.env["CLSCAN_QUALIFY"] = std::string("0");
  spec.env["CLSCAN_CACHE_DIR"] = dir.string();
  std::vector<running_child> children;
  for (int i = 0; i < 8; ++i)
    children.push_back(start_child(spec, work.path() / ("process-" + std::to_string(i) + ".out")));
  std::size_t built = 0;
  for (std::size_t i = 0; i < children.size(); ++i) {
    const child_result result = finish_child(children[i]);
    INFO("process " << i << ":\n" << result.output);
    CHECK(result.ok());
    CHECK_FALSE(result.has("ignoring"));
    if (result.has("built program from source")) ++built;
  }
  CHECK(built >= 1);
  const std::vector<std::string> files = files_in(dir);
  CHECK_FALSE(files.empty());
  for (const std::string& name : files) {
    INFO("file " << name);
    CHECK(is_entry_name(name));
  }
  const child_result after = run_child(spec, work.path());
  INFO("a following process:\n" << after.output);
  CHECK(after.ok());
  CHECK(after.has("loaded cached program"));
  CHECK_FALSE(after.has("built program from source"));
  CHECK_FALSE(after.has("ignoring"));
  CHECK_FALSE(after.has("stored"));
  CHECK(files_in(dir) == files);
}

namespace {

// AddressSanitizer keeps freed memory in quarantine (256 MB by default) and ThreadSanitizer keeps
// shadow memory for it, so under them resident memory grows without any leak.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitizer_allocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool sanitizer_allocator = true;
#else
constexpr bool sanitizer_allocator = false;
#endif
#else
constexpr bool sanitizer_allocator = false;
#endif

std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

cl_uint reference_count(const cl::Context& context) { return context.getInfo<CL_CONTEXT_REFERENCE_COUNT>(); }
cl_uint reference_count(const cl::CommandQueue& queue) { return queue.getInfo<CL_QUEUE_REFERENCE_COUNT>(); }

} // namespace

TEST_CASE("faults: 2000 scans with fresh buffers grow neither host memory nor OpenCL objects", "[faults]") {
  const cl::Device device = env().device;
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  constexpr std::size_t iterations = 2000, warm_up = 300;
  std::vector<std::string> problems;
  const auto one_scan = [&](std::size_t i) {
    scan_spec s;
    const clscan::algorithm algos[] = {clscan::algorithm::three_stage, clscan::algorithm::single_pass,
                                       clscan::algorithm::automatic};
    s.algo = algos[i % 3];
    s.in_place = (i / 3) % 2 == 0;
    s.kind = (i / 6) % 2 ? clscan::scan_kind::exclusive : clscan::scan_kind::inclusive;
    s.n = 40000 + (i % 7) * 1000; // fresh buffers of 160..184 KB each time
    s.seed = i;
    const std::string problem = checked_scan<cl_int>(context, queue, s);
    if (!problem.empty() && problems.size() < 10)
      problems.push_back("scan " + std::to_string(i) + ": " + problem);
  };
  for (std::size_t i = 0; i < warm_up; ++i)
    one_scan(i);
  queue.finish();
  const std::size_t rss_warm = resident_bytes();
  const cl_uint refs_warm = reference_count(context), queue_refs_warm = reference_count(queue);
  std::size_t rss_peak = rss_warm;
  for (std::size_t i = warm_up; i < iterations; ++i) {
    one_scan(i);
    if (i % 100 == 0) rss_peak = std::max(rss_peak, resident_bytes());
  }
  queue.finish();
  const std::size_t rss_end = resident_bytes();
  rss_peak = std::max(rss_peak, rss_end);
  const cl_uint refs_end = reference_count(context), queue_refs_end = reference_count(queue);
  std::cout << "faults: resident memory after " << warm_up << " scans " << rss_warm / 1024 << " KiB, after "
            << iterations << " scans " << rss_end / 1024 << " KiB (peak " << rss_peak / 1024
            << " KiB); context references " << refs_warm << " -> " << refs_end << ", queue references "
            << queue_refs_warm << " -> " << queue_refs_end << std::endl;
  INFO("problems:\n"
       << [&] {
            std::string all;
            for (const auto& p : problems)
              all += p + "\n";
            return all;
          }());
  CHECK(problems.empty());
  // Buffers, queues and programs hold the context on PoCL, events their queue: a leaked one shows here.
  CHECK(refs_end == refs_warm);
  CHECK(queue_refs_end == queue_refs_warm);
  // A leaked buffer per scan would be 1700 x ~170 KB = 290 MB; allocator noise is a few MB.
  if (sanitizer_allocator)
    WARN("built with a sanitizer: the resident-memory bound is not checked (the sanitizer's allocator "
         "holds freed memory); the OpenCL reference count still is");
  else
    CHECK(rss_peak <= rss_warm + (std::size_t{16} << 20));
  clscan::release_cached_resources();
}

TEST_CASE("faults: release_cached_resources() gives up clscan's references to a context", "[faults]") {
  const cl::Device device = env().device;
  cl::Context context(device);
  REQUIRE(reference_count(context) == 1);
  {
    cl::CommandQueue queue(context, device);
    const cl_uint before = reference_count(context); // the queue's own reference, on some platforms
    for (auto algo : {clscan::algorithm::three_stage, clscan::algorithm::single_pass}) {
      scan_spec s;
      s.algo = algo, s.n = 100000, s.seed = 3;
      CHECK(checked_scan<cl_int>(context, queue, s).empty());
    }
    queue.finish();
    const cl_uint holding = reference_count(context);
    INFO("references: " << before << " before the scans, " << holding << " after them");
    CHECK(holding > before); // clscan's workspace holds the context
    clscan::release_cached_resources();
    CHECK(reference_count(context) == before);
  }
  CHECK(reference_count(context) == 1);
}

TEST_CASE("faults: a look-back that gets no news falls back and stays correct (CLSCAN_SPIN_LIMIT=0)",
          "[faults]") {
  // CLSCAN_SPIN_LIMIT=0 makes every single-pass work-group stop waiting for its predecessors at once
  // and reduce their tiles itself (the decoupled fallback); out of place it walks back to the first
  // tile whatever the timing, so the look-back loop runs for many rounds on every run (a PoCL
  // miscompilation of that loop once showed only when two test processes ran side by side). In
  // place it stops at a published prefix, as it must. Read once per (context, device), like
  // CLSCAN_TUNING, so each shape below gets a fresh context. The disk cache is off, so every program
  // is built here, and its build options (in the log) show that the limit reached the kernel.
  scoped_env spin("CLSCAN_SPIN_LIMIT", std::string("0"));
  scoped_env no_cache("CLSCAN_NO_CACHE", std::string("1"));
  std::mutex mutex;
  std::vector<std::string> builds;
  clscan::set_log_handler([&](clscan::log_level, const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex);
    if (message.find("built program from source") != std::string::npos) builds.push_back(message);
  });
  struct remove_handler {
    ~remove_handler() { clscan::set_log_handler({}); }
  } remove_at_end;

  const cl::Device device = env().device;
  // Device defaults (large tiles: on PoCL one work-item per MiB), and 32-element tiles with a
  // look-back window of 2, so that a scan has thousands of tiles. Every work-group reduces all of its
  // predecessors' tiles, so the work grows with the square of the tile count: three default tiles
  // and a bit, but no more than about 3000 small ones.
  for (const std::optional<std::string>& tuning :
       {std::optional<std::string>(), std::optional<std::string>("wg=4,items=8,vec=4,lookback=2")}) {
    const std::string shape = tuning ? *tuning : "device defaults";
    CAPTURE(shape);
    scoped_env tuning_env("CLSCAN_TUNING", tuning);
    const clscan::tuning single = clscan::plan_for(device).single_pass;
    const std::size_t tile = single.work_group_size * single.items_per_thread;
    const std::size_t largest = tuning ? 100003 : 3 * tile + 5;
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    for (std::size_t n :
         {std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{33}, std::size_t{1000}, largest})
      for (bool in_place : {false, true})
        for (auto kind : {clscan::scan_kind::inclusive, clscan::scan_kind::exclusive})
          for (bool affine : {false, true}) {
            scan_spec s;
            s.algo = clscan::algorithm::single_pass;
            s.n = n, s.in_place = in_place, s.kind = kind, s.affine = affine;
            s.in_offset = s.out_offset = 4;
            if (!in_place) s.out_offset = 8;
            if (n == 1000) s.initial = 12345;
            s.seed = n * 31 + in_place * 7 + affine;
            std::string problem = affine ? checked_scan<cl_uint>(context, queue, s, std::chrono::seconds(60))
                                         : checked_scan<cl_int>(context, queue, s, std::chrono::seconds(60));
            INFO(problem);
            CHECK(problem.empty());
          }
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::string all;
    for (const auto& b : builds)
      all += b + "\n";
    INFO("programs built:\n" << all);
    CHECK_FALSE(builds.empty());
    for (const auto& b : builds)
      CHECK_THAT(b, Contains("-DCLSCAN_SPIN_LIMIT=0"));
  }
  // A value that is not a number is rejected like an invalid CLSCAN_TUNING.
  {
    scoped_env bad("CLSCAN_SPIN_LIMIT", std::string("soon"));
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    cl::Buffer buffer(context, CL_MEM_READ_WRITE, 64 * sizeof(cl_int));
    clscan::options<cl_int> opts;
    opts.algorithm = clscan::algorithm::single_pass;
    CHECK_THROWS_AS(clscan::inclusive(queue, buffer, 64, opts), clscan::invalid_argument);
  }
  clscan::release_cached_resources();
}

TEST_CASE("faults: a tile that never publishes is waited for boundedly, then reduced by its successor",
          "[faults]") {
  // Real spin counters this time (CLSCAN_SPIN_LIMIT=4, not 0): tile k of every single-pass scan is
  // compiled never to publish (-DCLSCAN_TEST_SILENT_TILE=k), as if its work-group had stalled, so its
  // successor's wait for news must run out and fall back (see "faults child: a tile that never
  // publishes"). Both status layouts: 64-bit words, and 32-bit words with 16-bit payloads
  // (CLSCAN_NARROW_STATUS=1), in which a cl_long takes four words. 32-element tiles with a look-back
  // window of 2. The disk cache is off, so every program is built in the child and its build
  // options (in the log) show that the define reached it. The children of one layout run side by
  // side; a child still running after 240 s is taken for a hang and fails the test.
  temp_dir work;
  // Tile 0 (its successor's fallback ends the walk with the initial value), tile 1 (the walk goes on
  // to a published prefix) and tile 39 (the walk passes many published aggregates).
  const std::size_t silent_tiles[] = {0, 1, 39};
  for (bool narrow : {false, true}) {
    std::vector<running_child> children;
    for (std::size_t k : silent_tiles) {
      child_spec spec;
      spec.test_name = "faults child: a tile that never publishes";
      spec.env["CLSCAN_FAULTS_SILENT_TILE"] = std::to_string(k);
      spec.env["CLSCAN_BUILD_OPTIONS"] = "-DCLSCAN_TEST_SILENT_TILE=" + std::to_string(k);
      // The silent tile breaks in-place scans on purpose, which the qualification would catch.
      spec.env["CLSCAN_QUALIFY"] = std::string("0");
      spec.env["CLSCAN_SPIN_LIMIT"] = std::string("4");
      spec.env["CLSCAN_TUNING"] = std::string("wg=4,items=8,vec=4,lookback=2");
      spec.env["CLSCAN_NO_CACHE"] = std::string("1");
      spec.env["CLSCAN_NARROW_STATUS"] = narrow ? std::optional<std::string>("1") : std::nullopt;
      children.push_back(start_child(
          spec, work.path() / ("silent-" + std::to_string(k) + (narrow ? "-narrow" : "-wide") + ".out")));
    }
    for (std::size_t i = 0; i < children.size(); ++i) {
      const std::size_t k = silent_tiles[i];
      const child_result result = finish_child(children[i], std::chrono::seconds(240));
      INFO("silent tile " << k << ", " << (narrow ? "32-bit" : "64-bit")
                          << " status words; child output (exit code " << result.exit_code
                          << "; 134 = 128 + SIGABRT, the in-child watchdog):\n"
                          << result.output);
      CHECK(result.ok());
      CHECK_FALSE(result.has("problem:"));
      CHECK(result.has(k + 2 < 41 ? "scans: 48" : "scans: 36"));
      CHECK(result.has("tile 32 elements, spin limit 4"));
      CHECK(result.has("-DCLSCAN_TEST_SILENT_TILE=" + std::to_string(k)));
      // Every program built carries the define and the spin limit.
      std::istringstream lines(result.output);
      std::size_t builds = 0;
      for (std::string line; std::getline(lines, line);) {
        if (line.find("built program from source") == std::string::npos) continue;
        ++builds;
        CHECK_THAT(line, Contains("-DCLSCAN_TEST_SILENT_TILE=" + std::to_string(k)) &&
                             Contains("-DCLSCAN_SPIN_LIMIT=4"));
      }
      CHECK(builds >= 3);
    }
  }
}

TEST_CASE("faults: 16-bit status tags wrap around and the status words are cleared (CLSCAN_NARROW_STATUS=1)",
          "[faults]") {
  // More than twice 65535 launches of three to eight 32-element tiles on one queue, so the tags of
  // the 32-bit status layout wrap twice; every result is compared, and the launch after each clear
  // has a tile that never publishes, in place of which only a word the clear missed could be taken
  // (see "faults child: narrow status tags wrap around").
  temp_dir work;
  child_spec spec;
  spec.test_name = "faults child: narrow status tags wrap around";
  spec.env["CLSCAN_NARROW_STATUS"] = std::string("1");
  spec.env["CLSCAN_TUNING"] = std::string("wg=4,items=8,vec=4,lookback=2");
  spec.env["CLSCAN_SPIN_LIMIT"] = std::string("4");
  spec.env["CLSCAN_BUILD_OPTIONS"] = std::nullopt;
  spec.env["CLSCAN_NO_CACHE"] = std::string("1"); // so that the log shows each program's options
  // Its cl_uint program has a silent tile on purpose (in place wrong), which the qualification of
  // that build would catch and refuse.
  spec.env["CLSCAN_QUALIFY"] = std::string("0");
  const std::size_t launches = 2 * 65535 + 2000;
  spec.env["CLSCAN_FAULTS_TAG_LAUNCHES"] = std::to_string(launches);
  const child_result child =
      finish_child(start_child(spec, work.path() / "tags.out"), std::chrono::seconds(600));
  INFO("child output (exit code " << child.exit_code << "):\n" << child.output);
  CHECK(child.ok());
  CHECK(child.has("tile 32 elements"));
  CHECK(child.has("launches: " + std::to_string(launches) + ","));
  CHECK(child.has("wrong launches: 0"));
  // Two programs: the cl_int one as usual, the cl_uint one with the silent tile.
  std::size_t plain = 0, silent = 0;
  std::istringstream lines(child.output);
  for (std::string line; std::getline(lines, line);)
    if (line.find("built program from source") != std::string::npos)
      ++(line.find("-DCLSCAN_TEST_SILENT_TILE=5") != std::string::npos ? silent : plain);
  CHECK(plain >= 1);
  CHECK(silent >= 1);
  std::cout << "faults: " << [&] {
    const auto at = child.output.find("launches: " + std::to_string(launches));
    return at == std::string::npos ? std::string("tag wrap-around child gave no summary")
                                   : child.output.substr(at, child.output.find('\n', at) - at);
  }() << std::endl;
}

TEST_CASE("faults: one-element tiles (CLSCAN_TUNING=wg=1,items=1,vec=1) scan correctly or are rejected",
          "[faults]") {
  temp_dir work;
  child_spec spec;
  spec.test_name = "faults child: one-element tiles";
  spec.env["CLSCAN_TUNING"] = std::string("wg=1,items=1,vec=1");
  const child_result child = run_child(spec, work.path());
  INFO("child output (exit code " << child.exit_code << "; 139 = 128 + SIGSEGV):\n" << child.output);
  CHECK(child.exit_code == 0);
  CHECK(child.ok());
}
