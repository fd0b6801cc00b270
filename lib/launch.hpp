#pragma once

#include "error_check.hpp"

#include <clscan/config.hpp>

#include <cstddef>
#include <vector>

namespace clscan::detail {

template <typename T> void set_arg(cl_kernel kernel, cl_uint index, const T& value) {
  check(clSetKernelArg(kernel, index, sizeof(T), &value), "clSetKernelArg");
}

inline void set_arg_bytes(cl_kernel kernel, cl_uint index, std::size_t size, const void* value) {
  check(clSetKernelArg(kernel, index, size, value), "clSetKernelArg");
}

// Enqueues a scan's commands in order on one queue. On an in-order queue the queue itself orders them;
// on an out-of-order queue each command waits for the previous one's event. The first command also
// waits for `initial_waits`.
//
// `waits_pending` (some initial wait has not completed, so it may still fail): each command waits for
// the previous one's event on an in-order queue too, so that a failure ends every command of the call
// and the last one's event reports it. rusticl (Mesa 22.3) fails only the commands that wait for a
// failed event themselves and runs the rest of an in-order queue, so a call of several commands would
// complete with garbage and report CL_COMPLETE.
//
// Every command gets an event, which the caller keeps until the command has ended (take_events,
// temporaries::keep): PoCL 3.1 aborts the process ("PTHREAD ERROR in pocl_update_event_failed()")
// when a failure reaches a command whose event nobody holds (one enqueued without an event, or whose
// event was released) and goes on from it to a command behind it.
class launch_sequence {
public:
  launch_sequence(cl_command_queue queue, bool out_of_order, const cl_event* initial_waits,
                  cl_uint initial_count, bool waits_pending = false)
      : queue_(queue), chained_(out_of_order || waits_pending), out_of_order_(out_of_order),
        waits_(initial_waits), wait_count_(initial_count) {}

  // Enqueues `kernel` over `groups` work-groups of `group_size` work-items. `last` marks the command
  // whose event the scan returns.
  void run(cl_kernel kernel, std::size_t groups, std::size_t group_size, bool /*last*/) {
    const std::size_t global = groups * group_size;
    cl_event event = nullptr;
    check(
        clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, &group_size, wait_count_, waits_, &event),
        "clEnqueueNDRangeKernel");
    advance(event);
  }

  // Enqueues `kernel` over `global` work-items in work-groups of the implementation's choice.
  void run_any_shape(cl_kernel kernel, std::size_t global) {
    cl_event event = nullptr;
    check(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, wait_count_, waits_, &event),
          "clEnqueueNDRangeKernel");
    advance(event);
  }

  // Enqueues `kernel` (work-groups of the implementation's choice) on clscan's own temporaries only,
  // without the user's wait list on an in-order queue: the queue orders it after the commands that
  // used them before, and it touches nothing the wait list guards. The next command still takes the
  // wait list, so only the scan's own commands wait for the user's events. On an out-of-order queue it
  // is the first command, as run_any_shape().
  void run_before_waits(cl_kernel kernel, std::size_t global) {
    if (out_of_order_) {
      run_any_shape(kernel, global);
      return;
    }
    cl_event event = nullptr;
    check(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 0, nullptr, &event),
          "clEnqueueNDRangeKernel");
    events_.emplace_back(event); // takes ownership
  }

  cl::Event finish() { return previous_; }

  // Every event the sequence's commands were given.
  std::vector<cl::Event> take_events() { return std::move(events_); }

private:
  // After a command: on an out-of-order queue, or behind pending waits, the next one waits for its event.
  void advance(cl_event event) {
    previous_ = cl::Event(event); // takes ownership
    events_.push_back(previous_);
    if (chained_) {
      waits_ = &previous_();
      wait_count_ = 1;
    } else {
      waits_ = nullptr;
      wait_count_ = 0;
    }
  }

  cl_command_queue queue_;
  bool chained_;
  bool out_of_order_;
  const cl_event* waits_;
  cl_uint wait_count_;
  cl::Event previous_;
  std::vector<cl::Event> events_;
};

} // namespace clscan::detail
