#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// reduce_by_key, unique_by_key and run_length_encode in one pass (kernels/runs.cl), chained by the
// look-back only: where it does not run, lib/api/runs.cpp composes the calls of other units' passes.
extern const algorithm_unit runs_unit;

// Bytes of what a tile carries (kernels/runs.cl carry_t): the count of run heads, and for
// reduce_by_key and run_length_encode the value of the run open at the tile's end.
inline std::size_t runs_carry_bytes(primitive call) { return call == primitive::runs_unique ? 4 : 8; }

// Whether the one-pass kernel takes values of `type` for `call` (n below 2^32, which the caller
// checks): the carry's value half holds 4 bytes. unique_by_key carries no value and takes every type;
// run_length_encode carries its lengths as uints, below 2^32 as n is, whatever the lengths' type.
inline bool runs_fit_in_one_pass(primitive call, element_type type) {
  return call == primitive::runs_unique || call == primitive::runs_encode || size_of(type) == 4;
}

} // namespace clscan::detail
