#pragma once

#include "three_stage.hpp"

namespace clscan::detail {

// True when the device's status words are 64 bits wide (cl_khr_int64_base_atomics).
bool wide_status_words(const device_capabilities& caps);

// Enqueues the single-pass scan (decoupled look-back with fallback).
void enqueue_single_pass(workspace& ws, temporaries& temps, const compiled_variant& kernels,
                         const scan_operands& op, launch_sequence& launch);

} // namespace clscan::detail
