#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// clscan::reduce (kernels/reduce.cl): work-groups reduce contiguous ranges into partial totals, one
// work-group combines them with the initial value; one launch where one work-group reads it all.
extern const algorithm_unit reduce_unit;

// Whether a reduce of n elements of the request's type on `kernels` writes partial totals (more than
// one work-group) and reduces them in a second launch.
bool reduce_has_partials(const device_capabilities& caps, const compiled_variant& kernels, std::size_t n,
                         const scan_request& request);

} // namespace clscan::detail
