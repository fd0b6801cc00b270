#pragma once

#include "three_stage.hpp"

namespace clscan::detail {

// Enqueues the single-pass scan (decoupled look-back with fallback).
void enqueue_single_pass(workspace& ws, temporaries& temps, const compiled_variant& kernels,
                         const scan_operands& op, launch_sequence& launch);

} // namespace clscan::detail
