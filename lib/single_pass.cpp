#include "single_pass.hpp"

#include <clscan/error.hpp>

namespace clscan::detail {

void enqueue_single_pass(workspace&, const compiled_variant&, const scan_operands&, launch_sequence&) {
  throw unsupported_error("clscan: the single-pass scan is not built yet");
}

} // namespace clscan::detail
