#pragma once

#include "dispatch.hpp"

#include <clscan/device.hpp>

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace clscan::detail {

// The kernels of one program variant, ready to launch.
struct compiled_variant {
  cl::Program program;
  cl::Kernel scan_tiles;        // three-stage
  cl::Kernel add_tile_prefixes; // three-stage
  cl::Kernel single_pass;       // single-pass
  cl::Kernel clear_status;      // single-pass: zeroes the status words
  std::size_t work_group_size = 0;
  std::size_t tile = 0; // elements per work-group
};

// Everything clscan keeps per (context, device): compiled variants with their kernel objects, the
// chosen launch shapes, grow-only temporary buffers, and the last event it enqueued (so that calls
// from different queues, or on out-of-order queues, never share temporaries at the same time).
// Callers hold `mutex` while they use it; nothing in here waits for the device.
class workspace {
public:
  workspace(cl::Context context, cl::Device device);

  std::mutex mutex;
  const cl::Context context;
  const cl::Device device;
  const device_capabilities& caps;

  // The launch shape for a type and algorithm (read once: defaults, then CLSCAN_TUNING).
  const tuning& shape(element_type type, algorithm algo);

  // The compiled kernels for `key`, built (or loaded from the disk cache) on first use. When the
  // compiled kernel cannot run key.work_group_size work-items, the work-group is halved until it can.
  const compiled_variant& variant(const variant_key& key);

  // The one stored copy of a custom operator's text (variant_key::custom_op); copies it only the first
  // time this workspace meets it.
  const std::string* intern(std::string_view text);

  // A device buffer of at least `bytes` for temporary slot `slot`; grows, never shrinks.
  const cl::Buffer& scratch(std::size_t slot, std::size_t bytes);

  cl::Event last_event;
  cl::CommandQueue last_queue; // retained, so that it can be flushed when another queue waits on it
  // The user's wait list plus last_event, for a call that must wait for both; kept so that repeated
  // calls reuse its storage.
  std::vector<cl_event> combined_waits;

  // Single-pass state: tickets hand tiles to work-groups in launch order, and status words carry an
  // epoch so that they need no clearing between launches.
  cl_uint next_ticket = 0;
  cl_uint epoch = 0;
  std::size_t status_words_initialized = 0;

private:
  std::map<std::pair<element_type, algorithm>, tuning> shapes_;
  std::map<variant_key, compiled_variant> variants_;
  std::set<std::string, std::less<>> custom_ops_;
  std::vector<std::pair<cl::Buffer, std::size_t>> scratch_;
};

// The workspace of (context, device), created on first use. Workspaces live until
// release_cached_resources().
workspace& workspace_for(cl_context context, cl_device_id device);

} // namespace clscan::detail
