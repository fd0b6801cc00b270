#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// Scan tiles, scan the tile totals recursively, add them back (kernels/three_stage.cl).
extern const algorithm_unit three_stage_unit;

// Whether a three-stage scan of n elements on `kernels` scans levels of tile totals (n over a tile).
bool three_stage_has_levels(const compiled_variant& kernels, std::size_t n);

} // namespace clscan::detail
