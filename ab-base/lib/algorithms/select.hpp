#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// select_if, select_flagged, partition_if and unique (kernels/select.cl): one pass chained by the
// look-back, or tile counts known beforehand.
extern const algorithm_unit select_unit;

} // namespace clscan::detail
