#pragma once

#include "dispatch.hpp"

#include <clscan/device.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
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

// The device memory one scan works in besides the user's buffers: grow-only scratch buffers and the
// single-pass look-back state, with the last command that used them. A scan that takes a set must
// wait for that command unless its own in-order queue already orders it after it.
struct temporaries {
  // A device buffer of at least `bytes` for slot `slot` (0: the single-pass status words; 1, 2, ...:
  // the three-stage levels of tile totals); grows, never shrinks.
  const cl::Buffer& scratch(const cl::Context& context, std::size_t slot, std::size_t bytes);

  cl::Event last_event;
  cl::CommandQueue last_queue; // retained, so that it can be flushed when another queue waits on it
  std::uint64_t last_use = 0;  // the workspace's call counter when a scan last took this set

  // Single-pass state: tickets hand tiles to work-groups in launch order, and status words carry an
  // epoch so that they need no clearing between launches.
  cl_uint next_ticket = 0;
  cl_uint epoch = 0;
  std::size_t status_words_initialized = 0;

private:
  std::vector<std::pair<cl::Buffer, std::size_t>> buffers_;
};

// Everything clscan keeps per (context, device): compiled variants with their kernel objects, the
// chosen launch shapes, and a few sets of temporaries (so that scans on different queues can run at
// the same time, while calls from different queues, or on out-of-order queues, never share one set
// at the same time). Callers hold `mutex` while they use it; nothing in here waits for the device.
class workspace {
public:
  workspace(cl::Context context, cl::Device device);

  std::mutex mutex;
  const cl::Context context;
  const cl::Device device;
  const device_capabilities& caps;

  // The launch shape for a type and algorithm and a scan of n elements (read once per shape class:
  // defaults, a tuned shape, then CLSCAN_TUNING).
  const tuning& shape(element_type type, algorithm algo, std::size_t n);

  // The compiled kernels for `key`, built (or loaded from the disk cache) on first use. When the
  // compiled kernel cannot run key.work_group_size work-items, the work-group is halved until it can.
  const compiled_variant& variant(const variant_key& key);

  // The one stored copy of a custom operator's text (variant_key::custom_op); copies it only the first
  // time this workspace meets it.
  const std::string* intern(std::string_view text);

  // The temporaries for a scan on `queue`: the set this queue used last (in-order queues only), else
  // a set whose last command has completed, else a new set (up to max_temporaries), else the least
  // recently used one.
  temporaries& temporaries_for(cl_command_queue queue, bool out_of_order);
  static constexpr std::size_t max_temporaries = 4;

  // The user's wait list plus last_event, for a call that must wait for both; kept so that repeated
  // calls reuse its storage.
  std::vector<cl_event> combined_waits;

private:
  std::map<std::tuple<element_type, algorithm, bool>, tuning> shapes_;
  std::map<variant_key, compiled_variant> variants_;
  std::set<std::string, std::less<>> custom_ops_;
  std::vector<std::unique_ptr<temporaries>> temporaries_;
  std::uint64_t calls_ = 0;
};

// The workspace of (context, device), created on first use. Workspaces live until
// release_cached_resources().
workspace& workspace_for(cl_context context, cl_device_id device);

} // namespace clscan::detail
