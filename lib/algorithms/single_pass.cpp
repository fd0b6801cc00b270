// The single-pass scan (kernels/single_pass.cl): tiles claimed through a global ticket, chained by
// decoupled look-back with a fallback, so that no work-group waits for another to be scheduled.
#include "algorithms/single_pass.hpp"

#include "error_check.hpp"
#include "settings.hpp"
#include "tuning.hpp"

#include <algorithm>

namespace clscan::detail {

bool wide_status_words(const device_capabilities& caps) {
  // CLSCAN_NARROW_STATUS=1 gives devices with 64-bit atomics the layout of those without, so that
  // tests (Oclgrind, fuzz, tag wrap-around) reach it on the devices at hand.
  return caps.int64_atomics && !narrow_status_forced();
}

bool acq_rel_status(const device_capabilities& caps) {
  // CLSCAN_MEMORY_MODEL=fences gives devices with release/acquire atomics the OpenCL 1.2 protocol, so
  // that tests reach it there; read on each call (part of the qualification's settings).
  if (memory_model_override() == memory_model::fences) return false;
  return !caps.acq_rel_cl_std.empty() && (!wide_status_words(caps) || caps.int64_extended_atomics);
}

namespace {

// Must match kernels/tile_prefix.cl: CLSCAN_WIDE_STATUS picks 64-bit status words with 32-bit
// payloads, else 32-bit words with 16-bit payloads; the tag takes the other half of the word.
std::size_t status_word_bytes(const device_capabilities& caps) { return wide_status_words(caps) ? 8 : 4; }

} // namespace

std::size_t status_words_per_slot(const device_capabilities& caps, std::size_t value_bytes,
                                  std::size_t flag_words) {
  const std::size_t payload_bits = status_word_bytes(caps) * 4;
  return value_bytes * 8 / payload_bits + flag_words;
}

std::size_t lookback_local_bytes(const tuning& shape, std::size_t carry_bytes) {
  // The nearest-first walk's window, or the fixed tree's 8 levels of 16 slots (CLSCAN_FIXED_ORDER),
  // whichever is larger: the same shape may be built either way (deterministic scans, mid sizes on
  // GPUs). Then the struct's single fields and their alignment.
  const std::size_t window = std::min(shape.lookback, shape.work_group_size) * (sizeof(cl_int) + carry_bytes);
  const std::size_t tree = 128 * (carry_bytes + 1) + 8 * (sizeof(cl_int) + carry_bytes);
  return std::max(window, tree) + 4 * carry_bytes + 64;
}

std::string lookback_prelude(const variant_key& /*key*/, const device_capabilities& caps) {
  // One status-word width per device, so that words left by any earlier launch on the same
  // workspace are read with the layout they were written with.
  std::string lines =
      std::string("#define CLSCAN_WIDE_STATUS ") + (wide_status_words(caps) ? "1" : "0") + "\n";
  lines += std::string("#define CLSCAN_ACQ_REL ") + (acq_rel_status(caps) ? "1" : "0") + "\n";
  // GPUs keep the tile in local memory and coalesce global accesses across work-items; CPUs stream
  // each work-item's run. Overridable with -D (e.g. Oclgrind's --build-options, to check the CPU
  // variant on it).
  lines += std::string("#ifndef CLSCAN_REREAD\n#define CLSCAN_REREAD ") + (caps.is_gpu() ? "0" : "1") +
           "\n#endif\n";
  return lines;
}

std::string lookback_build_options(const variant_key& key, const device_capabilities& caps) {
  return " -DCLSCAN_LOOKBACK=" + std::to_string(key.lookback) +
         " -DCLSCAN_SPIN_LIMIT=" + std::to_string(key.spin_limit) +
         (acq_rel_status(caps) ? " -cl-std=" + caps.acq_rel_cl_std : std::string());
}

lookback_launch begin_lookback(workspace& ws, temporaries& temps, cl_kernel clear_status,
                               std::size_t words_per_slot, std::size_t capacity_tiles,
                               launch_sequence& launch) {
  const std::size_t word_bytes = status_word_bytes(ws.caps);
  // Word 0 is the ticket counter, then an aggregate and a prefix slot per tile.
  const std::size_t status_bytes = (1 + capacity_tiles * 2 * words_per_slot) * word_bytes;
  const cl::Buffer& status = temps.scratch(ws.context, 0, status_bytes);
  lookback_launch started;
  started.status = status();

  // The workspace's ticket and epoch state changes only once the kernel is enqueued (end_lookback): a
  // failed enqueue must leave it matching what the device will see.
  const cl_uint max_tag = word_bytes == 8 ? 0xffffffffu : 0xffffu;
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
  started.cleared = temps.status_words_initialized == 0 || temps.epoch >= max_tag || unconfirmed_clear;
  const bool reset_ticket = unconfirmed && !started.cleared;
  // After a clear, tags restart at 1 (every word reads as untagged, 0) and so does the ticket counter.
  started.tag = started.cleared ? 1 : temps.epoch + 1;
  started.ticket_base = started.cleared || reset_ticket ? 0 : temps.next_ticket;
  if (started.cleared) {
    temps.status_words_initialized = 0; // until the kernel after the fill is enqueued too
    // The whole buffer, not just this launch's part: words beyond it hold tags of earlier launches,
    // which restarting tags would make look current to a later, larger launch.
    std::size_t capacity = 0;
    check(clGetMemObjectInfo(status(), CL_MEM_SIZE, sizeof capacity, &capacity, nullptr),
          "clGetMemObjectInfo");
    const cl_ulong words = capacity / word_bytes;
    launch.buffer_arg(clear_status, 0, started.status);
    set_arg(clear_status, 1, words);
    launch.run_before_waits(clear_status, std::min<std::size_t>(words, 1u << 16));
  } else if (reset_ticket) {
    // Word 0 only: tags keep counting up, so words of a launch that did run never look current.
    launch.buffer_arg(clear_status, 0, started.status);
    set_arg(clear_status, 1, cl_ulong{1});
    launch.run_before_waits(clear_status, 1);
  }
  return started;
}

void end_lookback(temporaries& temps, const lookback_launch& started, std::size_t tiles, bool waits_pending,
                  launch_sequence& launch) {
  temps.status_words_initialized = 1;
  temps.epoch = started.tag;
  temps.next_ticket = started.ticket_base + static_cast<cl_uint>(tiles);
  if (waits_pending) {
    temps.unconfirmed_launch = launch.finish();
    temps.unconfirmed_launch_cleared = started.cleared;
  } else if (temps.unconfirmed_launch()) {
    // This launch runs only after the unconfirmed one has ended on this in-order queue (or the set
    // was free); once it runs, its own reset or clear made the state right again.
    temps.unconfirmed_launch = cl::Event();
  }
}

namespace {

constexpr std::size_t scan_kernel = 0, clear_status_kernel = 1;

// The work-group scan's scratch, the look-back's state and, on GPUs, the tile with one vector of
// padding per work-item (CLSCAN_TILE_VECTORS).
std::size_t local_memory_bytes(const tuning& shape, const device_capabilities& caps, element_type type) {
  const std::size_t element_size = size_of(type);
  const std::size_t wg = shape.work_group_size;
  std::size_t bytes = group_scan_local_bytes(wg, element_size) + lookback_local_bytes(shape, element_size);
  if (caps.is_gpu()) bytes += wg * (shape.items_per_thread + shape.vector_width) * element_size;
  return bytes;
}

void enqueue(workspace& ws, temporaries& temps, const compiled_variant& kernels, const scan_operands& op,
             launch_sequence& launch) {
  const std::size_t element_size = size_of(op.request->type);
  const std::size_t tiles = (op.n + kernels.tile - 1) / kernels.tile;
  // Inputs of the small size class run on smaller tiles, so a smaller n can need more tiles: the
  // buffer is sized for both, so that no smaller n allocates again.
  const std::size_t capacity_tiles = std::max(tiles, op.small_class_tiles);
  const lookback_launch started =
      begin_lookback(ws, temps, kernels.kernels[clear_status_kernel](),
                     status_words_per_slot(ws.caps, element_size), capacity_tiles, launch);

  cl_kernel k = kernels.kernels[scan_kernel]();
  const cl_mem in = op.in, out = op.out;
  const cl_ulong in_offset = op.in_offset, out_offset = op.out_offset, n = op.n;
  const cl_int exclusive = op.request->kind == scan_kind::exclusive ? 1 : 0;
  const element_value& seed = op.request->has_initial ? op.request->initial : op.identity;
  const cl_ulong seed_offset = op.request->initial_buffer_offset;
  launch.args(k, 0, in, in_offset, out, out_offset, n, started.status, started.ticket_base, started.tag,
              exclusive, bytes_arg{element_size, seed.bytes}, op.request->initial_buffer, seed_offset);
  launch.run(k, tiles, kernels.work_group_size, true);
  end_lookback(temps, started, tiles, op.waits_pending, launch);
}

} // namespace

const algorithm_unit single_pass_unit = {algorithm::single_pass,
                                         "single_pass.cl",
                                         {"scan_single_pass", "clear_status"},
                                         local_memory_bytes,
                                         lookback_prelude,
                                         lookback_build_options,
                                         enqueue};

bool single_pass_supported(const device_capabilities& caps, element_type /*type*/) {
  return caps.int32_global_atomics;
}

} // namespace clscan::detail
