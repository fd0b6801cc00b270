#pragma once

#include "launch.hpp"
#include "workspace.hpp"

namespace clscan::detail {

// Operands of one scan call, already validated.
struct scan_operands {
  cl_mem in = nullptr;
  cl_mem out = nullptr;
  std::size_t n = 0;
  std::size_t in_offset = 0;
  std::size_t out_offset = 0;
  const scan_request* request = nullptr;
  element_value identity;
  // Some event of the wait list had not completed when the scan was enqueued: it may still fail, and
  // then this scan's commands never run (single-pass keeps its ticket state right across that).
  bool waits_pending = false;
};

// Enqueues the three-stage scan: scan tiles, scan the tile totals recursively, add them back.
void enqueue_three_stage(workspace& ws, temporaries& temps, const compiled_variant& kernels,
                         const scan_operands& op, launch_sequence& launch);

// Temporary bytes the three-stage scan of n elements needs in each level slot.
std::size_t three_stage_level_elements(std::size_t n, std::size_t tile, std::size_t level);

} // namespace clscan::detail
