// The radix sort (sort.hpp, kernels/sort.cl): a stable LSD sort in 8-bit digit passes. One kernel reads
// the keys once and counts every pass's digits, so a pass in which every key has the same digit is
// known on the device and only copies (nothing is read back). Each other pass either counts each
// tile's digits, scans the tile-by-digit counts, and scatters every tile's keys (and values) ranked
// stably in local memory (three_stage), or does all of it in one kernel whose tiles learn the counts
// of the tiles before them through the look-back (single_pass: sort_onepass). The passes ping-pong
// between the output and one temporary so that the last one writes the output and none reads the
// buffer it writes.
#include "algorithms/sort.hpp"
#include "algorithms/single_pass.hpp"
#include "launch_call.hpp"
#include "qualify.hpp"
#include "settings.hpp"

#include "arguments.hpp"
#include "error_check.hpp"
#include "launch.hpp"
#include "tuning.hpp"
#include "workspace.hpp"

#include <clscan/error.hpp>
#include <clscan/sort.hpp>

#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>

namespace clscan::detail {
namespace {

// Kernel slots of the three-stage unit; the single-pass unit shares the first three.
constexpr std::size_t histogram_kernel = 0, histogram_total_kernel = 1, clear_histograms_kernel = 2,
                      count_kernel = 3, count_totals_kernel = 4, scan_counts_kernel = 5, scatter_kernel = 6;
// Kernel slots of the single-pass unit.
constexpr std::size_t one_pass_scatter_kernel = 3, one_pass_kernel = 4, clear_status_kernel = 5;

// Scratch slots of a temporaries set (temporaries::scratch) the sort uses; the scans use the low ones.
constexpr std::size_t keys_slot = 16, keys_slot_2 = 17, values_slot = 18, counts_slot = 19, offsets_slot = 20,
                      partials_slot = 21, flags_slot = 22, segment_totals_slot = 23, digit_offsets_slot = 24;

constexpr std::size_t radix = 256;
constexpr unsigned max_passes = 8;
// The most work-groups sort_scan_counts takes (each adds up the totals of those before it).
constexpr std::size_t max_segments = 256;
// single_pass runs below this many keys (its look-back carries 32-bit counts); three_stage above.
constexpr std::size_t one_pass_limit = std::size_t{1} << 30;
// automatic takes single_pass up to this many keys, where the device qualifies. On an H100
// (2026-11-27, clscan-bench --primitive sort,sort_by_key --type uint --algorithm all;
// docs/PERFORMANCE.md, "Sort") the one-pass sort was the faster from 2^20 to 2^28 keys, alone and with
// values.
constexpr std::size_t one_pass_automatic_limit = one_pass_limit;
// Look-back rounds without news before a tile counts a silent predecessor's digits itself, as the
// scans' default (CLSCAN_SPIN_LIMIT overrides both).
constexpr std::size_t default_spin_limit = 1024;

// sort_scatter's local memory (kernels/sort.cl SORT_RANK_STORAGE): the tile's keys and, where values
// move, their 16-bit positions (one spare entry every 16), the rank counters (8 words per work-item, one
// spare every 32) with their sums, and the digit bases; sort_scan_counts' chunk of a tile's size and its
// sums; the histograms' counters. Offsets (bases, chunk, sums) are 64-bit where n may reach 2^32
// (CLSCAN_SORT_WIDE), else 32-bit.
std::size_t sort_local_bytes(const tuning& shape, element_type type, bool values_move, bool wide) {
  const std::size_t offset = wide ? 8 : 4;
  const std::size_t wg = shape.work_group_size, tile = wg * shape.items_per_thread;
  const std::size_t padded_tile = tile + tile / 16, counters = 8 * wg + 8 * wg / 32;
  // One work-item per tile scatters in input order, with only its digits' next offsets.
  const std::size_t scatter = wg == 1 ? radix * 8
                                      : padded_tile * (size_of(type) + (values_move ? 2 : 0)) + counters * 4 +
                                            wg * 4 + radix * offset;
  const std::size_t scan_counts = wg == 1 ? 0 : (tile + wg) * offset;
  return std::max({scatter, scan_counts, std::size_t{max_passes * radix * 4}});
}

// sort_onepass: sort_scatter's, then per digit the tile's count of it and, unless the tile is ranked
// in warps (whose digit sums say it), where its run starts (arrays of 256 words), the look-back's state
// (four more, in the rank counters where these hold 4 * 256 words) and the ticket and flags; ranked in
// warps, sums of at least 256 words.
std::size_t one_pass_local_bytes(const tuning& shape, element_type type, bool values_move, bool wide,
                                 bool ranks_in_warps) {
  const std::size_t counters = 8 * shape.work_group_size + 8 * shape.work_group_size / 32;
  const std::size_t state = counters >= 4 * radix ? 0 : 4 * radix * 4;
  const std::size_t digit_sums = ranks_in_warps ? (radix - std::min(radix, shape.work_group_size)) * 4 : 0;
  const std::size_t digit_arrays = ranks_in_warps ? 1 : 2;
  return sort_local_bytes(shape, type, values_move, wide) + digit_arrays * radix * 4 + state + digit_sums +
         16;
}

// The units' bound, for any call (values moving, 64-bit offsets).
std::size_t local_memory_bytes(const tuning& shape, const device_capabilities& /*caps*/, element_type type) {
  return sort_local_bytes(shape, type, true, true);
}
std::size_t one_pass_local_memory_bytes(const tuning& shape, const device_capabilities& caps,
                                        element_type type) {
  return one_pass_local_bytes(shape, type, true, true, sort_ranks_in_warps(caps, shape.work_group_size));
}

int key_kind(element_type type) {
  switch (type) {
  case element_type::int32:
  case element_type::int64: return 1;
  case element_type::float32:
  case element_type::float64: return 2;
  default: return 0;
  }
}

std::string prelude(const variant_key& key, const device_capabilities& /*caps*/) {
  return "#define CLSCAN_SORT_KEY_KIND " + std::to_string(key_kind(key.key_type)) +
         "\n#define CLSCAN_SORT_VALUE_SIZE " + std::to_string(key.sort_value_size) +
         "\n#define CLSCAN_SORT_WIDE " + (key.narrow_counts ? "0" : "1") + "\n";
}

std::string one_pass_prelude(const variant_key& key, const device_capabilities& caps) {
  // Ballots rather than match.any (CLSCAN_SORT_RANK_MATCH=1), which took the 2^24 uint keys' one-pass
  // kernel on the H100 from 766 µs (portable ranking) to 1293, where ballots took it to 681.
  const bool in_warps = sort_ranks_in_warps(caps, key.work_group_size);
  const char* const ranking = in_warps ? "#define CLSCAN_SORT_RANK_MATCH 2\n" : "";
  // Values staged in local memory (kernels/sort.cl CLSCAN_SORT_VALUES_LOCAL) where they were measured
  // faster: work-groups of 384 ranking in warps. A -D of the build options still decides.
  const char* const staging =
      in_warps && key.work_group_size >= 384
          ? "#ifndef CLSCAN_SORT_VALUES_LOCAL\n#define CLSCAN_SORT_VALUES_LOCAL 1\n#endif\n"
          : "";
  return prelude(key, caps) + lookback_prelude(key, caps) + "#define CLSCAN_SORT_ONE_PASS 1\n" + ranking +
         staging;
}

std::string no_options(const variant_key& /*key*/, const device_capabilities& /*caps*/) { return {}; }

void not_a_scan(workspace& /*ws*/, temporaries& /*temps*/, const compiled_variant& /*kernels*/,
                const scan_operands& /*op*/, launch_sequence& /*launch*/) {
  throw error("clscan internal error: the sort unit runs through enqueue_sort only");
}

// A buffer and an element offset in it.
struct place {
  cl_mem buffer = nullptr;
  cl_ulong offset = 0;
};

struct pass_args {
  place keys_src, keys_dst, values_src, values_dst;
  cl_uint pass = 0, copy = 0, write_keys = 1, values_mode = 0, shift = 0, mask = 0;
};

struct sort_run {
  const compiled_variant& kernels;
  launch_sequence& launch;
  cl_ulong n = 0, tiles = 0;
  cl_mem counts = nullptr, offsets = nullptr, flags = nullptr, segment_totals = nullptr;
  // single_pass: sort_scatter's slot (copies only), each pass's digit offsets, the status words.
  std::size_t scatter_slot = scatter_kernel;
  cl_mem digit_offsets = nullptr, status = nullptr;
  // sort_scan_counts' segments of the tile-by-digit counts, one per work-group.
  cl_ulong segment = 0, segments = 0;
  cl_uint descending = 0;

  void scatter(const pass_args& a, bool last) {
    cl_kernel k = kernels.kernels[scatter_slot]();
    launch.args(k, 0, a.keys_src.buffer, a.keys_src.offset, a.keys_dst.buffer, a.keys_dst.offset,
                a.values_src.buffer, a.values_src.offset, a.values_dst.buffer, a.values_dst.offset, n, tiles,
                offsets, flags, a.pass, a.copy, a.write_keys, a.values_mode, descending, a.shift, a.mask);
    launch.run(k, tiles, kernels.work_group_size, last);
  }

  void count(const pass_args& a) {
    cl_kernel k = kernels.kernels[count_kernel]();
    launch.args(k, 0, a.keys_src.buffer, a.keys_src.offset, n, tiles, counts, flags, a.pass, descending,
                a.shift, a.mask);
    launch.run(k, tiles, kernels.work_group_size, false);
    const cl_ulong total = tiles * radix;
    cl_kernel t = kernels.kernels[count_totals_kernel]();
    launch.args(t, 0, counts, total, segment, segment_totals, flags, a.pass);
    launch.run(t, segments, kernels.work_group_size, false);
    cl_kernel s = kernels.kernels[scan_counts_kernel]();
    launch.args(s, 0, counts, offsets, total, segment, segment_totals, flags, a.pass);
    launch.run(s, segments, kernels.work_group_size, false);
  }

  void one_pass(const pass_args& a, cl_uint ticket_base, cl_uint tag, bool last) {
    cl_kernel k = kernels.kernels[one_pass_kernel]();
    launch.args(k, 0, a.keys_src.buffer, a.keys_src.offset, a.keys_dst.buffer, a.keys_dst.offset,
                a.values_src.buffer, a.values_src.offset, a.values_dst.buffer, a.values_dst.offset, n, tiles,
                digit_offsets, flags, a.pass, a.write_keys, a.values_mode, descending, a.shift, a.mask,
                status, ticket_base, tag);
    launch.run(k, tiles, kernels.work_group_size, last);
  }
};

cl::Event enqueue_marker(const checked_call& call) {
  cl_event marker = nullptr;
  check(clEnqueueMarkerWithWaitList(call.queue, call.wait_count, call.waits, &marker),
        "clEnqueueMarkerWithWaitList");
  return cl::Event(marker);
}

void enqueue_passes(workspace& ws, temporaries& temps, const compiled_variant& kernels,
                    launch_sequence& launch, const cl::Buffer& keys_in, const cl::Buffer& keys_out,
                    const cl::Buffer* values_in, const cl::Buffer* values_out, std::size_t n,
                    const sort_request& r, bool wide, bool pending, bool one_pass) {
  const std::size_t key_size = size_of(r.key_type);
  const std::size_t value_size = r.call == sort_call::keys ? 0 : size_of(r.value_type);
  const unsigned passes = (r.end_bit - r.begin_bit + 7) / 8;
  const bool order = r.call == sort_call::order;
  const bool keys_exact = !order && keys_in() == keys_out() && r.keys_in_offset == r.keys_out_offset;
  const bool values_exact = r.call == sort_call::pairs && (*values_in)() == (*values_out)() &&
                            r.values_in_offset == r.values_out_offset;

  sort_run run{kernels, launch};
  run.scatter_slot = one_pass ? one_pass_scatter_kernel : scatter_kernel;
  run.n = n;
  run.tiles = (n + kernels.tile - 1) / kernels.tile;
  run.descending = r.descending ? 1 : 0;
  run.flags = temps.scratch(ws.context, flags_slot, max_passes * sizeof(cl_uint))();
  const place user_keys_in{keys_in(), r.keys_in_offset}, user_keys_out{keys_out(), r.keys_out_offset};
  const place user_values_in{values_in ? (*values_in)() : nullptr, r.values_in_offset};
  const place user_values_out{values_out ? (*values_out)() : nullptr, r.values_out_offset};
  const cl_uint moved_values = r.call == sort_call::pairs ? 1 : 0;

  if (passes == 0) {
    // No bit to sort on: the input, in its order (and sorted_order's identity).
    pass_args a;
    a.copy = 1;
    a.keys_src = user_keys_in;
    a.keys_dst = user_keys_out;
    a.write_keys = order || keys_exact ? 0 : 1;
    a.values_src = user_values_in;
    a.values_dst = user_values_out;
    a.values_mode = order ? 2 : values_exact ? 0 : moved_values;
    run.scatter(a, true);
    return;
  }

  // Ping-pong: pass p writes the user's output when P - 1 - p is even, so the last pass does. An
  // output that is its own input (in place) with an odd count of passes is first put aside, so that
  // no pass reads the buffer it writes. sorted_order never writes its keys: they go between two
  // temporaries, and its last pass writes indices only.
  const place temp_keys{temps.scratch(ws.context, keys_slot, n * key_size)(), 0};
  const place temp_keys_2{
      order && passes >= 3 ? temps.scratch(ws.context, keys_slot_2, n * key_size)() : nullptr, 0};
  const place temp_values{value_size ? temps.scratch(ws.context, values_slot, n * value_size)() : nullptr, 0};
  lookback_launch started;
  if (one_pass) {
    // Each pass is a launch of its own on the status words (scratch slot 0, shared with the scans on
    // this set): tag started.tag + p and tickets from started.ticket_base + p * tiles, recorded as one
    // launch of passes * tiles tickets by end_lookback. Tags must not pass the largest the words hold:
    // an epoch too close to it has the words cleared first (tags restart at 1).
    const cl_ulong max_tag = wide_status_words(ws.caps) ? 0xffffffffu : 0xffffu;
    if (cl_ulong{temps.epoch} + passes > max_tag) temps.epoch = static_cast<cl_uint>(max_tag);
    // One slot per tile and digit (kernels/sort.cl, count_slot), where begin_lookback counts
    // two a tile.
    started = begin_lookback(ws, temps, kernels.kernels[clear_status_kernel](),
                             status_words_per_slot(ws.caps, sizeof(cl_uint)), run.tiles * radix / 2, launch);
    run.status = started.status;
    run.digit_offsets = temps.scratch(ws.context, digit_offsets_slot, max_passes * radix * (wide ? 8 : 4))();
  } else {
    run.counts = temps.scratch(ws.context, counts_slot, run.tiles * radix * sizeof(cl_uint))();
    run.offsets = temps.scratch(ws.context, offsets_slot, run.tiles * radix * (wide ? 8 : 4))();
    // Segments of whole tiles' worth of counts, at most max_segments of them: enough work-groups to
    // fill a GPU at large n, one at small n.
    const std::size_t chunks = (run.tiles * radix + kernels.tile - 1) / kernels.tile;
    const std::size_t chunks_per_segment = (chunks + max_segments - 1) / max_segments;
    run.segment = chunks_per_segment * kernels.tile;
    run.segments = (chunks + chunks_per_segment - 1) / chunks_per_segment;
    run.segment_totals = temps.scratch(ws.context, segment_totals_slot, run.segments * (wide ? 8 : 4))();
  }

  // The histogram of every pass: work-groups of whole tiles, each counting fewer than 2^32 keys.
  const std::size_t tile = kernels.tile;
  const std::size_t group_limit = std::max<std::size_t>(1, (std::size_t{1} << 31) / tile);
  const std::size_t wanted_groups = std::max<std::size_t>(1, std::size_t{ws.caps.compute_units} * 4);
  const std::size_t tiles_per_group =
      std::min(group_limit, std::max<std::size_t>(1, (run.tiles + wanted_groups - 1) / wanted_groups));
  const std::size_t groups = (run.tiles + tiles_per_group - 1) / tiles_per_group;
  // Below 2^32 keys the work-groups add their counts into one histogram per pass (sort.cl
  // sort_histogram), zeroed first.
  const std::size_t histograms = wide ? groups : 1;
  const std::size_t partials_bytes = histograms * passes * radix * sizeof(cl_uint);
  const cl_mem partials = temps.scratch(ws.context, partials_slot, partials_bytes)();
  {
    if (!wide) {
      // A kernel rather than a fill: Oclgrind takes the words a fill wrote for uninitialized.
      cl_kernel c = kernels.kernels[clear_histograms_kernel]();
      launch.args(c, 0, partials, static_cast<cl_uint>(passes * radix));
      launch.run(c, 1, kernels.work_group_size, false);
    }
    cl_kernel k = kernels.kernels[histogram_kernel]();
    launch.args(k, 0, user_keys_in.buffer, user_keys_in.offset, run.n, cl_ulong{tiles_per_group}, partials,
                run.descending, cl_uint{r.begin_bit}, cl_uint{passes}, cl_uint{r.end_bit});
    launch.run(k, groups, kernels.work_group_size, false);
    cl_kernel t = kernels.kernels[histogram_total_kernel]();
    launch.args(t, 0, partials, static_cast<cl_uint>(histograms), cl_uint{passes}, run.n, run.flags,
                run.digit_offsets);
    launch.run(t, passes, kernels.work_group_size, false);
  }

  place keys_src = user_keys_in, values_src = user_values_in;
  const bool keys_aside = keys_exact && passes % 2 == 1;
  const bool values_aside = values_exact && passes % 2 == 1;
  if (keys_aside || values_aside) {
    pass_args a;
    a.copy = 1;
    a.keys_src = user_keys_in;
    a.keys_dst = temp_keys;
    a.write_keys = keys_aside ? 1 : 0;
    a.values_src = user_values_in;
    a.values_dst = temp_values;
    a.values_mode = values_aside ? 1 : 0;
    run.scatter(a, false);
    if (keys_aside) keys_src = temp_keys;
    if (values_aside) values_src = temp_values;
  }

  for (unsigned p = 0; p < passes; ++p) {
    const bool last = p + 1 == passes;
    const bool to_user = (passes - 1 - p) % 2 == 0;
    pass_args a;
    a.pass = p;
    a.shift = r.begin_bit + 8 * p;
    a.mask = (1U << std::min(8U, r.end_bit - a.shift)) - 1;
    a.keys_src = keys_src;
    a.keys_dst = order ? (p % 2 == 0 ? temp_keys : temp_keys_2) : to_user ? user_keys_out : temp_keys;
    a.write_keys = order && last ? 0 : 1;
    a.values_src = values_src;
    a.values_dst = value_size ? (to_user ? user_values_out : temp_values) : place{};
    a.values_mode = order ? (p == 0 ? 2 : 1) : moved_values;
    if (one_pass) {
      run.one_pass(a, started.ticket_base + static_cast<cl_uint>(p * run.tiles), started.tag + p, last);
    } else {
      run.count(a);
      run.scatter(a, last);
    }
    keys_src = a.keys_dst;
    values_src = a.values_dst;
  }
  if (one_pass) {
    lookback_launch ended = started;
    ended.tag = started.tag + passes - 1;
    end_lookback(temps, ended, passes * run.tiles, pending, launch);
  }
}

// Whether the look-back of the single-pass scans can be trusted on this device for the sort's: the
// sort reuses the scans' verdict for 4-byte elements rather than qualifying a check sort of its own.
// What the qualification catches is a device that breaks the look-back's communication between
// work-groups (status words published by one and read by another, their tags, the memory-ordering
// recipe of the device, the ticket), and sort_onepass communicates through those same words, macros
// and tickets (tile_prefix.cl), each carrying a 32-bit count as a 4-byte scan's carries its value.
// The rest of sort_onepass (the ranking, the scatter) is sort_scatter's, which the three-stage sort
// runs on every device. A failed verdict, or a device without global 32-bit atomics, runs the
// three-stage passes. Blocks while the check runs, as a scan's first call does; the caller must not
// hold the workspace's lock.
bool one_pass_qualified(const device_capabilities& caps, cl_context context) {
  if (!single_pass_supported(caps, element_type::uint32)) return false;
  const cl::Context held(context, true);
  return ensure_single_pass_qualified(caps, element_type::uint32, &held).passed;
}

} // namespace

cl::Event enqueue_sort(const cl::CommandQueue& queue, const cl::Buffer& keys_in, const cl::Buffer& keys_out,
                       const cl::Buffer* values_in, const cl::Buffer* values_out, std::size_t n,
                       const sort_request& request) {
  const checked_call call = check_sort_arguments(queue, keys_in, keys_out, values_in, values_out, n, request);
  if (n == 0) return enqueue_marker(call);

  // Held through the call: the cache may give the workspace up meanwhile, never under a running call.
  const std::shared_ptr<workspace> held = workspace_for(call.context, call.device);
  workspace& ws = *held;

  // single_pass (asked for, or automatic up to one_pass_automatic_limit keys) where the shape ranks
  // tiles in work-groups (GPUs; one work-item per tile, on CPUs, scatters in input order and has
  // nothing to gain), the keys are fewer than one_pass_limit and the device qualifies; else the
  // three-stage passes, whose results are the same.
  const bool values_move = request.call != sort_call::keys;
  const bool wants_one_pass = request.algo == algorithm::single_pass ||
                              (request.algo == algorithm::automatic && n <= one_pass_automatic_limit);
  const bool one_pass = wants_one_pass && sort_tuning(ws.caps, true, values_move).work_group_size > 1 &&
                        n < one_pass_limit && one_pass_qualified(ws.caps, call.context);
  tuning shape = sort_tuning(ws.caps, one_pass, values_move);
  // Where the tile does not fit, the most keys per work-item that do (on an H200, 48 KiB: 64-bit keys
  // with values in work-groups of 384 take 8, where halving from 10 took 5), at least 2, then smaller
  // work-groups: PoCL 3.1 sorted wrongly with one key per work-item (work-groups of 64 to 256, inputs
  // with a partial last tile; rusticl and Oclgrind right; ctest sort-gpu-shape-tiny-local).
  const bool wide = n > std::numeric_limits<cl_uint>::max();
  const auto fits = [&](const tuning& t) {
    const std::size_t bytes = one_pass ? one_pass_local_bytes(t, request.key_type, values_move, wide,
                                                              sort_ranks_in_warps(ws.caps, t.work_group_size))
                                       : sort_local_bytes(t, request.key_type, values_move, wide);
    return bytes <= ws.caps.local_mem_size;
  };
  while (!fits(shape) && shape.items_per_thread > 2)
    --shape.items_per_thread;
  while (!fits(shape) && shape.work_group_size >= 4)
    shape.work_group_size /= 2;

  std::unique_lock<std::mutex> lock(ws.mutex);
  variant_key key;
  key.sort = true;
  key.algo = one_pass ? algorithm::single_pass : algorithm::three_stage;
  // tile_prefix.cl's own walk is not used (sort_onepass has its window, CLSCAN_SORT_WINDOW); the
  // spin limit is the fallback's.
  key.lookback = one_pass ? 1 : 0;
  key.spin_limit = one_pass ? spin_limit_override().value_or(default_spin_limit) : 0;
  key.type = size_of(request.key_type) == 8 ? element_type::uint64 : element_type::uint32;
  key.key_type = request.key_type;
  key.sort_value_size = request.call == sort_call::keys ? 0 : size_of(request.value_type);
  key.narrow_counts = !wide;
  key.work_group_size = shape.work_group_size;
  key.items_per_thread = shape.items_per_thread;
  key.vector_width = 1;
  const compiled_variant& kernels = ws.variant(key);

  // A set no other pending call may still use, as for the scans (workspace::temporaries_for).
  temporaries& temps = ws.temporaries_for(call.queue, call.out_of_order);
  return launch_call(queue, call, ws, temps, [&](launch_sequence& launch, bool pending) {
    enqueue_passes(ws, temps, kernels, launch, keys_in, keys_out, values_in, values_out, n, request,
                   !key.narrow_counts, pending, one_pass);
  });
}

const algorithm_unit sort_unit = {algorithm::three_stage,
                                  "sort.cl",
                                  {"sort_histogram", "sort_histogram_total", "sort_clear_histograms",
                                   "sort_count", "sort_count_totals", "sort_scan_counts", "sort_scatter"},
                                  local_memory_bytes,
                                  prelude,
                                  no_options,
                                  not_a_scan};

const algorithm_unit sort_single_pass_unit = {algorithm::single_pass,
                                              "sort.cl",
                                              {"sort_histogram", "sort_histogram_total",
                                               "sort_clear_histograms", "sort_scatter", "sort_onepass",
                                               "clear_status"},
                                              one_pass_local_memory_bytes,
                                              one_pass_prelude,
                                              lookback_build_options,
                                              not_a_scan};

} // namespace clscan::detail
