#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// Scan tiles, scan the tile totals recursively, add them back (kernels/three_stage.cl).
extern const algorithm_unit three_stage_unit;

} // namespace clscan::detail
