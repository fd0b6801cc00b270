// The algorithm units (algorithm_unit.hpp): adding an algorithm adds a line here.
#include "algorithms/by_key.hpp"
#include "algorithms/reduce.hpp"
#include "algorithms/runs.hpp"
#include "algorithms/segments.hpp"
#include "algorithms/select.hpp"
#include "algorithms/single_pass.hpp"
#include "algorithms/sort.hpp"
#include "algorithms/three_stage.hpp"

#include <clscan/error.hpp>

namespace clscan::detail {

const algorithm_unit& unit_of(algorithm algo) {
  switch (algo) {
  case algorithm::single_pass: return single_pass_unit;
  case algorithm::three_stage: return three_stage_unit;
  case algorithm::automatic: break;
  }
  throw error("clscan internal error: no algorithm unit for algorithm::automatic");
}

const algorithm_unit& unit_of(const variant_key& key) {
  if (key.sort) return key.algo == algorithm::single_pass ? sort_single_pass_unit : sort_unit;
  if (!key.call) return unit_of(key.algo);
  switch (*key.call) {
  case primitive::select_if:
  case primitive::select_flagged:
  case primitive::partition_if:
  case primitive::unique:
  case primitive::select_run_heads:
  case primitive::select_run_tails: return select_unit;
  case primitive::inclusive_by_key:
  case primitive::exclusive_by_key: return by_key_unit;
  case primitive::reduce: return reduce_unit;
  case primitive::segment_offsets: return segments_unit;
  case primitive::segment_reduce: return segment_reduce_unit;
  case primitive::runs_reduce:
  case primitive::runs_unique:
  case primitive::runs_encode: return runs_unit;
  }
  throw error("clscan internal error: no algorithm unit for this call");
}

} // namespace clscan::detail
