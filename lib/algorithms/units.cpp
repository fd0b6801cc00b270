// The algorithm units (algorithm_unit.hpp): adding an algorithm adds a line here.
#include "algorithms/single_pass.hpp"
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

} // namespace clscan::detail
