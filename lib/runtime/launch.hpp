#pragma once

#include "error_check.hpp"

#include <clscan/config.hpp>

#include <cstddef>

namespace clscan::detail {

template <typename T> void set_arg(cl_kernel kernel, cl_uint index, const T& value) {
  check(clSetKernelArg(kernel, index, sizeof(T), &value), "clSetKernelArg");
}

inline void set_arg_bytes(cl_kernel kernel, cl_uint index, std::size_t size, const void* value) {
  check(clSetKernelArg(kernel, index, size, value), "clSetKernelArg");
}

// Enqueues a scan's commands in order on one queue. On an in-order queue the queue itself orders them
// and only the last one gets an event; on an out-of-order queue each command waits for the previous
// one's event. The first command also waits for `initial_waits`.
class launch_sequence {
public:
  launch_sequence(cl_command_queue queue, bool out_of_order, const cl_event* initial_waits,
                  cl_uint initial_count)
      : queue_(queue), out_of_order_(out_of_order), waits_(initial_waits), wait_count_(initial_count) {}

  // Enqueues `kernel` over `groups` work-groups of `group_size` work-items. `last` marks the command
  // whose event the scan returns.
  void run(cl_kernel kernel, std::size_t groups, std::size_t group_size, bool last) {
    const std::size_t global = groups * group_size;
    cl_event event = nullptr;
    check(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, &group_size, wait_count_, waits_,
                                 last || out_of_order_ ? &event : nullptr),
          "clEnqueueNDRangeKernel");
    advance(event);
  }

  // Enqueues `kernel` over `global` work-items in work-groups of the implementation's choice.
  void run_any_shape(cl_kernel kernel, std::size_t global) {
    cl_event event = nullptr;
    check(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, wait_count_, waits_,
                                 out_of_order_ ? &event : nullptr),
          "clEnqueueNDRangeKernel");
    advance(event);
  }

  // Enqueues `kernel` (work-groups of the implementation's choice) on clscan's own temporaries only,
  // without the user's wait list on an in-order queue: the queue orders it after the commands that
  // used them before, and it touches nothing the wait list guards. The next command still takes the
  // wait list. So only the scan's own commands wait for the user's events, and a wait event that fails
  // terminates fewer of them (PoCL 3.1 aborts when several commands are queued behind a failed one).
  // On an out-of-order queue it is the first command, as run_any_shape().
  void run_before_waits(cl_kernel kernel, std::size_t global) {
    if (out_of_order_) {
      run_any_shape(kernel, global);
      return;
    }
    check(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
  }

  cl::Event finish() { return previous_; }

private:
  // After a command: on an out-of-order queue the next one waits for its event.
  void advance(cl_event event) {
    if (event) previous_ = cl::Event(event); // takes ownership
    if (out_of_order_) {
      waits_ = &previous_();
      wait_count_ = 1;
    } else {
      waits_ = nullptr;
      wait_count_ = 0;
    }
  }

  cl_command_queue queue_;
  bool out_of_order_;
  const cl_event* waits_;
  cl_uint wait_count_;
  cl::Event previous_;
};

} // namespace clscan::detail
