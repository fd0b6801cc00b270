// The check scans of the single-pass qualification (lib/dispatch/qualify.cpp keeps the verdicts).
#pragma once

#include "qualify.hpp"

#include <clscan/device.hpp>

#include <functional>
#include <optional>
#include <string>

namespace clscan::detail {

// Runs the check scans for single-pass scans of `type`'s size: each launch-shape candidate in turn
// (one on GPUs, run in `context` when one is given; two on CPUs, each in a context of its own),
// calling `trying` before each, until one passes. The verdict names the shape that passed, or every
// failure. Never throws for a failing or failed check: that is the verdict.
single_pass_qualification run_check_scans(const device_capabilities& caps, element_type type,
                                          const cl::Context* context,
                                          const std::function<void(single_pass_candidate)>& trying);

// True on a thread while it runs check scans.
bool inside_check_scans();

// "wg=..,items=..,vec=..,lookback=..".
std::string describe(const tuning& shape);

} // namespace clscan::detail
