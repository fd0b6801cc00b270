// For Oclgrind: each call in an OpenCL context of its own, and env() left holding no OpenCL object.
#pragma once

#include "environment.hpp"

namespace clscan_test {

// Runs each call given to it in a context of its own, and leaves env() holding no OpenCL object when it
// goes, for the two faults of Oclgrind 21.10 that tests/unit/sort.cpp's Oclgrind case describes (a new
// buffer inherits a released one's record of initialized bytes; a release from a static destructor
// writes into memory Oclgrind has freed).
class own_contexts {
public:
  own_contexts() : device_(env().device) {}
  own_contexts(const own_contexts&) = delete;
  own_contexts& operator=(const own_contexts&) = delete;
  ~own_contexts() { env() = environment{}; }

  template <typename Call> void operator()(const Call& call) const {
    environment& e = env();
    e.context = cl::Context(device_);
    e.queue = cl::CommandQueue(e.context, device_);
    call();
    e.queue = cl::CommandQueue();
    e.context = cl::Context();
  }

private:
  cl::Device device_;
};

} // namespace clscan_test
