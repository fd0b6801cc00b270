// Shared helpers for clscan's tests: the device under test, and buffers with poisoned guards.
#pragma once

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

namespace clscan_test {

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
template <typename T>
T poison_value() {
  T value;
  std::memset(&value, 0xA5, sizeof value);
  return value;
}

template <typename T>
cl::Buffer make_buffer(const std::vector<T>& contents) {
  auto& e = env();
  const std::size_t bytes = std::max<std::size_t>(contents.size(), 1) * sizeof(T);
  cl::Buffer buffer(e.context, CL_MEM_READ_WRITE, bytes);
  if (!contents.empty())
    REQUIRE(e.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, contents.size() * sizeof(T), contents.data()) ==
            CL_SUCCESS);
  return buffer;
}

template <typename T>
std::vector<T> read_buffer(const cl::Buffer& buffer, std::size_t count) {
  std::vector<T> contents(count);
  if (count)
    REQUIRE(env().queue.enqueueReadBuffer(buffer, CL_TRUE, 0, count * sizeof(T), contents.data()) == CL_SUCCESS);
  return contents;
}

} // namespace clscan_test
