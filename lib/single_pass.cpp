#include "single_pass.hpp"

#include "dispatch.hpp"
#include "error_check.hpp"

#include <algorithm>

namespace clscan::detail {
namespace {

// Must match kernels/single_pass.cl: CLSCAN_WIDE_STATUS picks 64-bit status words with 32-bit
// payloads, else 32-bit words with 16-bit payloads; the tag takes the other half of the word.
struct status_layout {
  std::size_t word_bytes;
  std::size_t payload_bits;
};

status_layout layout_for(const device_capabilities& caps) {
  return wide_status_words(caps) ? status_layout{8, 32} : status_layout{4, 16};
}

} // namespace

void enqueue_single_pass(workspace& ws, temporaries& temps, const compiled_variant& kernels,
                         const scan_operands& op, launch_sequence& launch) {
  const std::size_t element_size = size_of(op.request->type);
  const status_layout layout = layout_for(ws.caps);
  const std::size_t words_per_value = element_size * 8 / layout.payload_bits;
  const std::size_t tiles = (op.n + kernels.tile - 1) / kernels.tile;
  // Inputs of at most small_input_bytes run on smaller tiles, so a smaller n can need more tiles:
  // the buffer is sized for both, so that no smaller n allocates again.
  std::size_t capacity_tiles = tiles;
  if (const std::size_t small_n =
          std::min(op.n, small_input_bytes(ws.caps, algorithm::single_pass) / element_size);
      small_n > 0 && small_n < op.n) {
    const tuning& small_shape = ws.shape(op.request->type, algorithm::single_pass, small_n);
    const std::size_t small_tile = small_shape.work_group_size * small_shape.items_per_thread;
    capacity_tiles = std::max(capacity_tiles, (small_n + small_tile - 1) / small_tile);
  }
  // Word 0 is the ticket counter, then an aggregate and a prefix slot per tile.
  const std::size_t status_bytes = (1 + capacity_tiles * 2 * words_per_value) * layout.word_bytes;
  const cl::Buffer& status = temps.scratch(ws.context, 0, status_bytes);
  const cl_mem status_mem = status();

  // The workspace's ticket and epoch state changes only once the kernel is enqueued: a failed enqueue
  // must leave it matching what the device will see.
  const cl_uint max_tag = layout.payload_bits == 32 ? 0xffffffffu : 0xffffu;
  // The ticket counter is predicted from the launches enqueued before, which holds only if they run.
  // One that waited for events still pending when it was enqueued may never run (an event can fail)
  // while this one does: unless it has completed by now, the counter is reset to 0 first, and if that
  // launch was the one that cleared the status words, they are cleared again (a clear that never ran
  // leaves tags of earlier launches that restarted tags would match). A set whose last command failed
  // was started afresh by temporaries_for.
  bool unconfirmed = false, unconfirmed_clear = false;
  if (temps.unconfirmed_launch()) {
    if (execution_status(temps.unconfirmed_launch()) == CL_COMPLETE) {
      temps.unconfirmed_launch = cl::Event();
    } else {
      unconfirmed = true;
      unconfirmed_clear = temps.unconfirmed_launch_cleared;
    }
  }
  const bool clear = temps.status_words_initialized == 0 || temps.epoch >= max_tag || unconfirmed_clear;
  const bool reset_ticket = unconfirmed && !clear;
  // After a clear, tags restart at 1 (every word reads as untagged, 0) and so does the ticket counter.
  const cl_uint tag = clear ? 1 : temps.epoch + 1;
  const cl_uint ticket_base = clear || reset_ticket ? 0 : temps.next_ticket;
  if (clear) {
    temps.status_words_initialized = 0; // until the kernel after the fill is enqueued too
    // The whole buffer, not just this launch's part: words beyond it hold tags of earlier launches,
    // which restarting tags would make look current to a later, larger launch.
    std::size_t capacity = 0;
    check(clGetMemObjectInfo(status(), CL_MEM_SIZE, sizeof capacity, &capacity, nullptr),
          "clGetMemObjectInfo");
    const cl_ulong words = capacity / layout.word_bytes;
    set_arg(kernels.clear_status(), 0, status_mem);
    set_arg(kernels.clear_status(), 1, words);
    launch.run_before_waits(kernels.clear_status(), std::min<std::size_t>(words, 1u << 16));
  } else if (reset_ticket) {
    // Word 0 only: tags keep counting up, so words of a launch that did run never look current.
    set_arg(kernels.clear_status(), 0, status_mem);
    set_arg(kernels.clear_status(), 1, cl_ulong{1});
    launch.run_before_waits(kernels.clear_status(), 1);
  }

  cl_kernel k = kernels.single_pass();
  const cl_mem in = op.in, out = op.out;
  const cl_ulong in_offset = op.in_offset, out_offset = op.out_offset, n = op.n;
  const cl_int exclusive = op.request->kind == scan_kind::exclusive ? 1 : 0;
  const element_value& seed = op.request->has_initial ? op.request->initial : op.identity;
  set_arg(k, 0, in);
  set_arg(k, 1, in_offset);
  set_arg(k, 2, out);
  set_arg(k, 3, out_offset);
  set_arg(k, 4, n);
  set_arg(k, 5, status_mem);
  set_arg(k, 6, ticket_base);
  set_arg(k, 7, tag);
  set_arg(k, 8, exclusive);
  set_arg_bytes(k, 9, element_size, seed.bytes);
  launch.run(k, tiles, kernels.work_group_size, true);

  temps.status_words_initialized = 1;
  temps.epoch = tag;
  temps.next_ticket = ticket_base + static_cast<cl_uint>(tiles);
  if (op.waits_pending) {
    temps.unconfirmed_launch = launch.finish();
    temps.unconfirmed_launch_cleared = clear;
  } else if (temps.unconfirmed_launch()) {
    // This launch runs only after the unconfirmed one has ended on this in-order queue (or the set
    // was free); once it runs, its own reset or clear made the state right again.
    temps.unconfirmed_launch = cl::Event();
  }
}

} // namespace clscan::detail
