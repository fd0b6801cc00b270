#pragma once

#include "program/build.hpp"
#include "qualify.hpp"

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

// The device memory one scan works in besides the user's buffers: grow-only scratch buffers and the
// single-pass look-back state, with the last command that used them. A scan takes a set only when no
// command of another scan can still use it, or when its own in-order queue orders it after them: it
// never waits for another scan's commands (which may wait for events it was never given).
// Scratch slot of the segmented calls' head flags (temporaries::head_flags_zeroed).
constexpr std::size_t head_flags_slot = 27;

struct temporaries {
  // A device buffer of at least `bytes` for slot `slot` (0: the single-pass status words; 1, 2, ...:
  // the three-stage levels of tile totals); grows, never shrinks.
  const cl::Buffer& scratch(const cl::Context& context, std::size_t slot, std::size_t bytes);

  cl::Event last_event;
  cl::CommandQueue last_queue; // retained, so that its handle cannot name another queue while the set lives
  std::uint64_t last_use = 0;  // the workspace's call counter when a scan last took this set

  // Single-pass state: tickets hand tiles to work-groups in launch order, and status words carry an
  // epoch so that they need no clearing between launches. Both are predicted from the launches
  // enqueued before, which holds only for launches that run.
  cl_uint next_ticket = 0;
  cl_uint epoch = 0;
  std::size_t status_words_initialized = 0;
  // The segmented calls' head flags (scratch slot head_flags_slot, lib/api/segmented.cpp): bytes from its
  // start known to be zero. Each call sets its flags and clears them again, so the buffer is filled with
  // zeros only when it is allocated.
  std::size_t head_flags_zeroed = 0;
  // The last single-pass launch on this set, when it waited for events that had not completed when
  // it was enqueued: a wait event may still fail, and then that launch never runs while later commands
  // on its queue may. Until it is seen complete, the next launch resets the ticket counter (and
  // clears every status word again when this launch was the one that cleared them).
  cl::Event unconfirmed_launch;
  bool unconfirmed_launch_cleared = false;

  // The events clscan's commands on this set were given, kept until each has ended: PoCL 3.1 aborts
  // the process ("PTHREAD ERROR in pocl_update_event_failed()") when a wait event's failure reaches a
  // command whose event the application has released, so none is released while it may still fail
  // (an implementation calls no callback of a command that a failure terminates, so none can tell).
  // keep_enqueued() moves the current call's events (`enqueued`, filled by its launch_sequence) there
  // and drops those that have ended, so the list holds only commands still in flight.
  void keep_enqueued();
  std::vector<cl::Event> enqueued;
  std::vector<cl::Event> events_in_flight;

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
  // CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: the alignment of buffers the implementation allocates.
  const std::size_t base_alignment;

  // The launch shape for a type, algorithm and size class (tuning.hpp small_input_bytes), read once
  // per class: defaults, a tuned shape, then CLSCAN_TUNING. A single-pass shape depends on the
  // qualification's verdict (on CPUs the work-group size that qualified), so it is kept per candidate
  // and asked for only once the verdict is known: one planned before it would be the preferred
  // candidate's, which the qualification may reject. Throws clscan::error when asked too early.
  const tuning& shape(element_type type, algorithm algo, bool small_inputs);
  // clscan::reduce's launch shape for a type (tuning.hpp reduce_tuning), read once.
  const tuning& reduce_shape(element_type type);

  // The compiled kernels for `key`, built (or loaded from the disk cache) on first use
  // (program/build.hpp build_variant). A build first releases the least recently used variants over
  // the program cache limit (clscan::program_cache_limit), never the one returned: the call holds the
  // mutex while it uses the reference, and each call uses one variant.
  const compiled_variant& variant(const variant_key& key);
  std::size_t variant_count() const { return variants_.size(); }

  // The one stored copy of a custom operator's text (variant_key::custom_op); copies it only the first
  // time this workspace meets it.
  const std::string* intern(std::string_view text);

  // The temporaries for a scan on `queue`: the set this queue used last (in-order queues only: the
  // queue runs the scan after that set's last command), else a set whose last command has finished,
  // else a new set. Never one that another queue's pending command may still use, so a scan never
  // waits for commands it was not given. A set whose last command failed is started afresh (its
  // buffers given up), since what that command and those before it did to it is unknown. Beyond
  // `kept_temporaries` sets, finished ones are given up, so memory follows the scans in flight.
  temporaries& temporaries_for(cl_command_queue queue, bool out_of_order);
  static constexpr std::size_t kept_temporaries = 4;

  // True when no call uses this workspace and every set's last command has finished: giving it up
  // then waits for nothing. Never blocks (try_lock, event status queries).
  bool idle();

private:
  std::map<std::tuple<element_type, algorithm, bool, single_pass_candidate>, tuning> shapes_;
  std::map<element_type, tuning> reduce_shapes_;
  struct cached_variant {
    compiled_variant compiled;
    std::uint64_t last_use = 0; // variant_uses_ when a call last took it
  };
  // Releases the least recently used variants, but `kept`, until at most `limit` remain, and the
  // interned texts no remaining key names.
  void evict_variants(std::size_t limit, const variant_key* kept);
  void release_unnamed_texts();

  std::map<variant_key, cached_variant> variants_;
  std::uint64_t variant_uses_ = 0;
  std::uint64_t program_limit_generation_ = 0; // of set_program_cache_limit, when last applied
  std::set<std::string, std::less<>> custom_ops_;
  std::vector<std::unique_ptr<temporaries>> temporaries_;
  std::uint64_t calls_ = 0;
};

// The workspace of (context, device), created on first use; the caller's reference keeps it alive
// through its call even if the cache gives it up meanwhile. Workspaces live until
// release_cached_resources() or until the cache, over its limit (set_cache_limit, CLSCAN_MAX_CONTEXTS),
// gives up the least recently used idle ones. The cache itself is never destroyed: at exit clscan makes
// no OpenCL call (the implementation may have shut down, or block).
std::shared_ptr<workspace> workspace_for(cl_context context, cl_device_id device);

// The execution status of `event` (CL_QUEUED ... CL_COMPLETE, or negative when it failed): a query,
// never a wait.
cl_int execution_status(cl_event event);

} // namespace clscan::detail
