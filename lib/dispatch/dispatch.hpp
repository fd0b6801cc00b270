// Dispatch: for one call, the algorithm, the size class, the launch shape and the program variant,
// decided once from the device's capabilities, the request and n. Vendor or device-type checks only
// tune speed (tuning.cpp); whether a path can run at all is decided from capabilities.
#pragma once

#include "program/variant.hpp"
#include "workspace.hpp"

#include <clscan/device.hpp>
#include <clscan/primitives.hpp>
#include <clscan/scan.hpp>

#include <optional>

namespace clscan::detail {

struct scan_plan {
  algorithm algo = algorithm::three_stage;
  bool small_inputs = false; // the size class (tuning.hpp small_input_bytes)
  // Single-pass calls above the small size class: the tiles of its largest input, on its shape (0
  // otherwise). Status words are sized for it, so that a smaller call after a larger one allocates
  // nothing even where its smaller tiles make more of them.
  std::size_t small_class_tiles = 0;
  variant_key key; // the program to run
};

// The plan for a scan of n elements on `ws`'s device, whose buffers' element addresses allow vector
// accesses of `vector_alignment` bytes; the caller holds ws.mutex. std::nullopt when the choice needs
// the device's single-pass verdict and `verdict` is null: the caller qualifies the device (with the
// lock given up) and asks again.
std::optional<scan_plan> plan_scan(workspace& ws, const scan_request& request, std::size_t n,
                                   std::size_t vector_alignment, const single_pass_qualification* verdict);

// The element type whose single-pass verdict a call beyond scans runs on: its element type.
element_type single_pass_verdict_type(const primitive_request& request);

// The plan of a call beyond scans, as plan_scan's: plan.algo is single_pass where the tiles are
// chained by the look-back, three_stage where tile totals are scanned beforehand.
std::optional<scan_plan> plan_primitive(workspace& ws, const primitive_request& request, std::size_t n,
                                        std::size_t vector_alignment,
                                        const single_pass_qualification* verdict);

// The plan of clscan::reduce: its own launch shape (workspace::reduce_shape), the reduce unit, and no
// algorithm to choose, so it never needs a single-pass verdict.
scan_plan plan_reduce(workspace& ws, const scan_request& request, std::size_t vector_alignment);

} // namespace clscan::detail
