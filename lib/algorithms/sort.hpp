#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// The radix sort (kernels/sort.cl): sort, sort_by_key and sorted_order (sort.hpp). Its program is
// built through the unit like every other; its enqueue is enqueue_sort's own (lib/algorithms/sort.cpp),
// since a sort is not a scan of one buffer.
extern const algorithm_unit sort_unit;
// The same with algorithm::single_pass: one kernel per digit pass (sort_onepass) on the look-back.
extern const algorithm_unit sort_single_pass_unit;

} // namespace clscan::detail
