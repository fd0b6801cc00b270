// The test environment: the device under test (one context and queue per process), scoped
// environment variables, temporary directories, and buffers filled from and read into host vectors.
#pragma once

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <stdlib.h>

namespace clscan_test {

// Sets an environment variable (or unsets it, given std::nullopt) for the life of the object, and
// restores what was there before.
class scoped_env {
public:
  scoped_env(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) previous_ = std::string(old);
    if (value)
      ::setenv(name_.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ~scoped_env() {
    if (previous_)
      ::setenv(name_.c_str(), previous_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

private:
  std::string name_;
  std::optional<std::string> previous_;
};

// A fresh directory under the system's temporary directory, removed (with its contents, made
// writable first) at the end.
class temp_dir {
public:
  temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "clscan-test-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~temp_dir() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                 ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
};

// One context and in-order queue on clscan::select_device() (CLSCAN_PLATFORM / CLSCAN_DEVICE),
// created once per process.
struct environment {
  cl::Device device;
  cl::Context context;
  cl::CommandQueue queue;
  std::string device_name;
};

inline environment& env() {
  static environment e = [] {
    environment made;
    made.device = clscan::select_device();
    made.context = cl::Context(made.device);
    made.queue = cl::CommandQueue(made.context, made.device);
    made.device_name = made.device.getInfo<CL_DEVICE_NAME>();
    return made;
  }();
  return e;
}

// A byte pattern no correct scan produces by accident in the places the tests check.
template <typename T> T poison_value() {
  T value;
  std::memset(&value, 0xA5, sizeof value);
  return value;
}

// n ints that step by `step` through the residues mod `period`, less period / 2: small values of both
// signs, which sum exactly and of which "x > 0" keeps about half.
inline std::vector<cl_int> cycling_ints(std::size_t n, std::size_t step, int period) {
  std::vector<cl_int> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<cl_int>((i * step) % static_cast<std::size_t>(period)) - period / 2;
  return data;
}

template <typename T> cl::Buffer make_buffer(const std::vector<T>& contents) {
  auto& e = env();
  const std::size_t bytes = std::max<std::size_t>(contents.size(), 1) * sizeof(T);
  cl::Buffer buffer(e.context, CL_MEM_READ_WRITE, bytes);
  if (!contents.empty())
    REQUIRE(e.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, contents.size() * sizeof(T), contents.data()) ==
            CL_SUCCESS);
  return buffer;
}

template <typename T> std::vector<T> read_buffer(const cl::Buffer& buffer, std::size_t count) {
  std::vector<T> contents(count);
  if (count)
    REQUIRE(env().queue.enqueueReadBuffer(buffer, CL_TRUE, 0, count * sizeof(T), contents.data()) ==
            CL_SUCCESS);
  return contents;
}

// Runs `call`, which must throw clscan::invalid_argument with `needle` in its message.
template <typename Call> void check_invalid_argument(Call&& call, const std::string& needle) {
  bool thrown = false;
  try {
    call();
  } catch (const clscan::invalid_argument& e) {
    thrown = true;
    INFO("message: " << e.what());
    CHECK_THAT(e.what(), Catch::Matchers::Contains(needle));
  }
  CHECK(thrown);
}

// `all`, or those of them named in CLSCAN_TEST_ALGORITHMS (comma-separated algorithm names), for a run
// whose subject is one of a suite's algorithms; a name not in `all` fails the test.
inline std::vector<clscan::algorithm> algorithms_under_test(const std::vector<clscan::algorithm>& all) {
  const char* text = std::getenv("CLSCAN_TEST_ALGORITHMS");
  if (!text || !*text) return all;
  std::vector<clscan::algorithm> chosen;
  std::istringstream names(text);
  for (std::string name; std::getline(names, name, ',');) {
    const auto known = std::find_if(all.begin(), all.end(),
                                    [&](clscan::algorithm a) { return name == clscan::to_string(a); });
    INFO("CLSCAN_TEST_ALGORITHMS='" << text << "': " << name);
    REQUIRE(known != all.end());
    chosen.push_back(*known);
  }
  return chosen;
}

} // namespace clscan_test
