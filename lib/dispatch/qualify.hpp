// Single-pass qualification: the one place that decides whether a device's single-pass scan can be
// trusted, and with which CPU launch shape (see clscan::single_pass_qualification).
#pragma once

#include <clscan/device.hpp>
#include <clscan/options.hpp>

#include <optional>

namespace clscan::detail {

// Launch-shape candidates the qualification tries, in order.
enum class single_pass_candidate : std::size_t {
  preferred = 0,  // dispatch's default (on CPUs: one work-item per 1 MiB tile)
  whole_simd = 1, // CPUs: work-groups of whole SIMD widths (64 work-items) over the same tile
};

// The candidate dispatch should use for single-pass shapes of `type` on this device: the one under
// test while a qualification runs, else the qualified one, else the preferred one.
single_pass_candidate qualified_candidate(const device_capabilities& caps, element_type type);

// Inside a qualification's own single-pass scans (on the thread that runs them), the size class under
// test (true: the small-input shape); else std::nullopt, and dispatch decides the class from n.
std::optional<bool> size_class_under_test(algorithm algo);

// The verdict reached for `type` on this device in this process (under the current settings; a passing
// one inside a qualification's own scans), or nullptr. Never waits for a running check: dispatch asks
// this under a workspace lock.
const single_pass_qualification* known_single_pass_verdict(const device_capabilities& caps,
                                                           element_type type);

// The verdict for single-pass scans of `type` on this device, qualifying it first if that has not
// happened in this process (reading a stored verdict when there is one). Blocks the calling thread
// while the check runs (once per device and element size). On GPUs the check's scans run in
// `context` when one is given (the caller's, whose workspace lock the caller must not hold), else in
// a context of their own.
const single_pass_qualification& ensure_single_pass_qualified(const device_capabilities& caps,
                                                              element_type type,
                                                              const cl::Context* context = nullptr);

} // namespace clscan::detail
