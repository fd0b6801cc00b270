#pragma once

#include "error_check.hpp"

#include <clscan/config.hpp>
#include <clscan/error.hpp>
#include <clscan/options.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

namespace clscan::detail {

template <typename T> void set_arg(cl_kernel kernel, cl_uint index, const T& value) {
  check(clSetKernelArg(kernel, index, sizeof(T), &value), "clSetKernelArg");
}

inline void set_arg_bytes(cl_kernel kernel, cl_uint index, std::size_t size, const void* value) {
  check(clSetKernelArg(kernel, index, size, value), "clSetKernelArg");
}

// An argument given as bytes (an element of a type known only at run time).
struct bytes_arg {
  std::size_t size;
  const void* value;
};

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
// Where the device needs it (event_per_command), every command gets an event, which the caller keeps
// until the command has ended (temporaries::enqueued, keep_enqueued): PoCL 3.1 aborts the process
// ("PTHREAD ERROR in pocl_update_event_failed()") when a failure reaches a command whose event nobody
// holds (one enqueued without an event, or whose event was released) and goes on from it to a command
// behind it. Elsewhere only the commands that need one get an event (the last, and each one behind
// pending waits or on an out-of-order queue): on an H200 each further event added about 2.8 µs of device
// time to a call (a 2^20 int reduce, two kernels: 10.5 -> 13.4 µs; bench/gpu, 2026-11-27).
class launch_sequence {
public:
  // `events` receives every command's event (temporaries::enqueued: a vector kept across calls, so
  // that a repeated call allocates nothing for it).
  launch_sequence(cl_command_queue queue, bool out_of_order, const cl_event* initial_waits,
                  cl_uint initial_count, std::vector<cl::Event>& events, bool waits_pending = false,
                  bool event_per_command = true)
      : queue_(queue), chained_(out_of_order || waits_pending), out_of_order_(out_of_order),
        event_per_command_(event_per_command), waits_(initial_waits), wait_count_(initial_count),
        events_(events) {
    events_.clear();
  }
  launch_sequence(const launch_sequence&) = delete;
  launch_sequence& operator=(const launch_sequence&) = delete;
  ~launch_sequence() { forget_buffers(); }

  // Sets a buffer argument of one of the workspace's cached kernels. A command takes its kernel's
  // argument values when it is enqueued, but the kernel object may keep its last buffers referenced
  // until it gets others (rusticl does): every buffer set here is set back to null once the call's
  // commands are enqueued (forget_buffers), so that no cached kernel keeps a user's buffer, or a
  // temporary the workspace has given up, alive after the commands that use it have ended.
  void buffer_arg(cl_kernel kernel, cl_uint index, cl_mem buffer) {
    std::size_t k = 0;
    while (k < kernels_set_ && buffers_set_[k].kernel != kernel)
      ++k;
    // No unit has more kernels or arguments.
    if (index >= 32 || k == buffers_set_.size())
      throw error("clscan internal error: too many kernels or buffer arguments in one call");
    if (k == kernels_set_) buffers_set_[kernels_set_++] = {kernel, 0};
    buffers_set_[k].indices |= std::uint32_t{1} << index;
    set_arg(kernel, index, buffer);
  }

  // Sets `kernel`'s arguments `first`, `first` + 1, ... to `values`, in order: a cl_mem as buffer_arg()
  // does, a bytes_arg as its bytes, anything else as its own type. One list per kernel reads as the
  // kernel's signature, where one call per argument repeated itself across the units.
  template <typename... Values> void args(cl_kernel kernel, cl_uint first, const Values&... values) {
    cl_uint index = first;
    (one_arg(kernel, index++, values), ...);
  }

  // Sets every buffer argument set through buffer_arg() back to null. Never throws: it also runs when
  // an enqueue failed.
  void forget_buffers() noexcept {
    const cl_mem none = nullptr;
    for (std::size_t k = 0; k < kernels_set_; ++k)
      for (cl_uint index = 0; index < 32; ++index)
        if (buffers_set_[k].indices & (std::uint32_t{1} << index))
          (void)clSetKernelArg(buffers_set_[k].kernel, index, sizeof none, &none);
    kernels_set_ = 0;
  }

  // The caller's named parameters (options::parameters), set as the last arguments of every kernel
  // the sequence runs (CLSCAN_USER_PARAMS, kernels/prelude.cl): each of the call's kernels takes them
  // when its program has any. Values only; nothing is built for new ones. With a transform
  // (options::transform), a switch comes before them: whether the launch reads the call's input
  // (transform_input), which the units turn off for launches over their own temporaries.
  void user_parameters(const std::vector<parameter>* parameters, bool transform) {
    parameters_ = parameters;
    transform_ = transform;
  }
  void transform_input(bool on) { transform_input_ = on ? 1 : 0; }

  // Enqueues `kernel` over `groups` work-groups of `group_size` work-items. `last` marks the command
  // whose event the call returns (a command marked otherwise that ends the call costs finish() a marker).
  void run(cl_kernel kernel, std::size_t groups, std::size_t group_size, bool last) {
    set_user_parameters(kernel);
    const std::size_t global = groups * group_size;
    cl_event event = nullptr;
    const bool wanted = last || chained_ || event_per_command_;
    check(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, &group_size, wait_count_, waits_,
                                 wanted ? &event : nullptr),
          "clEnqueueNDRangeKernel");
    advance(event);
  }

  // Enqueues `kernel` over `global` work-items in work-groups of the implementation's choice.
  void run_any_shape(cl_kernel kernel, std::size_t global) {
    set_user_parameters(kernel);
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
    set_user_parameters(kernel);
    cl_event event = nullptr;
    check(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 0, nullptr, &event),
          "clEnqueueNDRangeKernel");
    events_.emplace_back(event); // takes ownership
  }

  // Fills `bytes` bytes of `buffer` from byte `offset` with `pattern` (`pattern_size` bytes), in order
  // with the other commands.
  void fill(cl_mem buffer, const void* pattern, std::size_t pattern_size, std::size_t offset,
            std::size_t bytes) {
    cl_event event = nullptr;
    check(clEnqueueFillBuffer(queue_, buffer, pattern, pattern_size, offset, bytes, wait_count_, waits_,
                              &event),
          "clEnqueueFillBuffer");
    advance(event);
  }

  // Copies `bytes` bytes of `from` (from byte `from_offset`) to `to` (from byte `to_offset`), in order
  // with the other commands.
  void copy(cl_mem from, cl_mem to, std::size_t from_offset, std::size_t to_offset, std::size_t bytes) {
    cl_event event = nullptr;
    check(clEnqueueCopyBuffer(queue_, from, to, from_offset, to_offset, bytes, wait_count_, waits_, &event),
          "clEnqueueCopyBuffer");
    advance(event);
  }

  // The last command's event. If it got none (a command not marked last ended the call), a marker
  // behind it stands in: the in-order queue orders it after every command of the call.
  cl::Event finish() {
    if (!previous_() && !events_.empty()) {
      cl_event marker = nullptr;
      check(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
      previous_ = cl::Event(marker); // takes ownership
      events_.push_back(previous_);
    }
    return previous_;
  }

private:
  void set_user_parameters(cl_kernel kernel) const {
    const std::size_t given = parameters_ ? parameters_->size() : 0;
    const std::size_t trailing = given + (transform_ ? 1 : 0);
    if (trailing == 0) return;
    cl_uint count = 0;
    check(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr), "clGetKernelInfo");
    if (count < trailing) throw error("clscan internal error: a kernel without the parameters");
    cl_uint index = count - static_cast<cl_uint>(trailing);
    if (transform_) set_arg(kernel, index++, transform_input_);
    if (given)
      for (const parameter& p : *parameters_)
        std::visit([&](const auto& value) { set_arg(kernel, index++, value); }, p.value);
  }

  void one_arg(cl_kernel kernel, cl_uint index, cl_mem buffer) { buffer_arg(kernel, index, buffer); }
  static void one_arg(cl_kernel kernel, cl_uint index, const bytes_arg& bytes) {
    set_arg_bytes(kernel, index, bytes.size, bytes.value);
  }
  template <typename T> static void one_arg(cl_kernel kernel, cl_uint index, const T& value) {
    set_arg(kernel, index, value);
  }

  // After a command: on an out-of-order queue, or behind pending waits, the next one waits for its event
  // (it has one then). A command without an event leaves previous_ empty.
  void advance(cl_event event) {
    previous_ = cl::Event(event); // takes ownership
    if (event) events_.push_back(previous_);
    if (chained_) {
      waits_ = &previous_();
      wait_count_ = 1;
    } else {
      waits_ = nullptr;
      wait_count_ = 0;
    }
  }

  struct kernel_buffers {
    cl_kernel kernel;
    std::uint32_t indices; // bit i: argument i holds a buffer
  };

  cl_command_queue queue_;
  bool chained_;
  bool out_of_order_;
  bool event_per_command_;
  const cl_event* waits_;
  cl_uint wait_count_;
  cl::Event previous_;
  std::vector<cl::Event>& events_;
  const std::vector<parameter>* parameters_ = nullptr;
  bool transform_ = false;
  cl_int transform_input_ = 1;
  std::array<kernel_buffers, 8> buffers_set_{};
  std::size_t kernels_set_ = 0;
};

} // namespace clscan::detail
