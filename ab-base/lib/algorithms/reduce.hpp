#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// clscan::reduce (kernels/reduce.cl): work-groups reduce contiguous ranges into partial totals, one
// work-group combines them with the initial value; one launch where one work-group reads it all.
extern const algorithm_unit reduce_unit;

} // namespace clscan::detail
