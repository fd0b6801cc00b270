#include "dispatch.hpp"

#include "algorithms/algorithm_unit.hpp"
#include "algorithms/single_pass.hpp"
#include "element.hpp"
#include "qualify.hpp"
#include "tuning.hpp"

#include <clscan/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace clscan {
namespace detail {
namespace {

// The names and types of the caller's parameters, and key_equal where the call takes one: part of the
// program's identity, unlike the parameters' values. Interned texts: a repeated call copies nothing.
void describe_parameters(workspace& ws, const scan_request& request, variant_key& key) {
  key.parameter_count = request.parameters ? request.parameters->size() : 0;
  for (std::size_t p = 0; p < key.parameter_count; ++p) {
    const parameter& given = (*request.parameters)[p];
    key.parameters[p] = {ws.intern(given.name), static_cast<element_type>(given.value.index())};
  }
  if (request.key_equal && !request.key_equal->empty()) key.key_equal = ws.intern(*request.key_equal);
  if (request.transform && !request.transform->empty()) {
    key.transform = ws.intern(*request.transform);
    if (request.transform_input && *request.transform_input != request.type)
      key.input_type = request.transform_input;
  }
}

// What every program variant takes from the request and its launch shape: element type, operator,
// shape, and whole vectors through aligned pointers only where both buffers' element addresses
// allow them.
void describe_call(workspace& ws, const scan_request& request, const tuning& shape,
                   std::size_t vector_alignment, variant_key& key) {
  key.type = request.type;
  key.operation = request.operation;
  if (request.operation == op::custom) {
    key.custom_op = ws.intern(*request.custom_op);
    key.custom_identity = request.custom_identity;
  }
  key.work_group_size = shape.work_group_size;
  key.items_per_thread = shape.items_per_thread;
  key.vector_width = shape.vector_width;
  key.run_lanes = shape.run_lanes;
  key.aligned = vector_alignment >= shape.vector_width * size_of(request.type);
  describe_parameters(ws, request, key);
}

std::optional<algorithm> choose_algorithm(const scan_request& request, const device_capabilities& caps,
                                          std::size_t n, std::size_t three_stage_tile,
                                          const single_pass_qualification* verdict) {
  if (request.algo == algorithm::single_pass) {
    // (Devices without the atomics are refused by check_arguments.)
    if (!single_pass_supported(caps, request.type))
      throw error("clscan internal error: algorithm::single_pass planned where the arguments refuse it");
    if (!verdict) return std::nullopt;
    if (!verdict->passed)
      throw unsupported_error("algorithm::single_pass was disqualified on device '" + caps.name +
                              "' (its check scans were wrong: " + verdict->detail +
                              "); CLSCAN_QUALIFY=0 runs it anyway");
    return algorithm::single_pass;
  }
  if (request.algo == algorithm::three_stage) return algorithm::three_stage;
  // Deterministic floating-point results need a combination order that does not depend on
  // scheduling: the three-stage scan has one, and the single-pass one builds with
  // CLSCAN_FIXED_ORDER (kernels/tile_prefix.cl).
  if (n <= three_stage_tile || !single_pass_supported(caps, request.type)) return algorithm::three_stage;
  if (!verdict) return std::nullopt;
  return verdict->passed ? algorithm::single_pass : algorithm::three_stage;
}

// Whether a single-pass call of n elements on tiles of `tile` elements combines on the fixed tree for
// its size: every tile resident at once, more tiles than compute units (fixed_order_tiles). Whatever
// the size class: scans by key keep small tiles up to 8 MiB, so their 2^20 and 2^21 ints reach the range.
bool mid_size_tree(const device_capabilities& caps, std::size_t n, std::size_t tile) {
  return fixed_order_tiles(caps).contains((n + tile - 1) / tile);
}

// Whether a single-pass call of n elements above the small inputs takes the small shape's tiles
// anyway: its large tiles would be fewer than the tree's range starts with (about one per compute
// unit), and the small ones fall in the range, where they combine on the tree. On an H200 (2026-11-24,
// five rounds) 2^20 int and float scans took 13.7-14.0 us on 256 tiles of 16 KiB against 14.5-14.8 us
// on 128 of 32 KiB, select_if int 15.5-15.8 against 16.5-16.7; at 2^19, where 128 small tiles stay
// below the range, the large tiles were faster (12.8-13.0 against 13.1-13.4 us).
bool small_tiles_reach_tree(const device_capabilities& caps, std::size_t n, std::size_t large_tile,
                            std::size_t small_tile) {
  const tile_range range = fixed_order_tiles(caps);
  return (n + large_tile - 1) / large_tile < range.first && mid_size_tree(caps, n, small_tile);
}

// The most tiles a call of the small shape can have, for status words sized once for every smaller
// call: the small inputs' (limit_bytes of type), or the tree's range (small_tiles_reach_tree).
std::size_t small_shape_tiles(const device_capabilities& caps, std::size_t limit_bytes, element_type type,
                              std::size_t small_tile) {
  return std::max((limit_bytes / size_of(type) + small_tile - 1) / small_tile, fixed_order_tiles(caps).last);
}

} // namespace

std::optional<scan_plan> plan_scan(workspace& ws, const scan_request& request, std::size_t n,
                                   std::size_t vector_alignment, const single_pass_qualification* verdict) {
  const element_type type = request.type;
  const auto small_class = [&](algorithm algo) {
    if (const std::optional<bool> under_test = size_class_under_test(algo)) return *under_test;
    return n * size_of(type) <= small_input_bytes(ws.caps, algo);
  };
  // Only an automatic choice needs the three-stage tile (a forced algorithm never reads the other's
  // shape, so CLSCAN_TUNING may give it a shape only the forced one can use: clscan-tune does).
  std::size_t three_stage_tile = 0;
  if (request.algo == algorithm::automatic) {
    const tuning& shape = ws.shape(type, algorithm::three_stage, small_class(algorithm::three_stage));
    three_stage_tile = shape.work_group_size * shape.items_per_thread;
  }
  const std::optional<algorithm> algo = choose_algorithm(request, ws.caps, n, three_stage_tile, verdict);
  if (!algo) return std::nullopt;

  scan_plan plan;
  plan.algo = *algo;
  plan.small_inputs = small_class(*algo);
  const tuning* shape = &ws.shape(type, *algo, plan.small_inputs);
  if (*algo == algorithm::single_pass && !plan.small_inputs) {
    if (const std::size_t small_limit = small_input_bytes(ws.caps, *algo)) {
      const tuning& small_shape = ws.shape(type, *algo, true);
      const std::size_t small_tile = small_shape.work_group_size * small_shape.items_per_thread;
      // (Not where the qualification checks the large shape on inputs below its class's sizes.)
      const bool class_forced = size_class_under_test(*algo).has_value();
      if (!class_forced &&
          small_tiles_reach_tree(ws.caps, n, shape->work_group_size * shape->items_per_thread, small_tile)) {
        plan.small_inputs = true;
        shape = &small_shape;
      } else {
        plan.small_class_tiles = small_shape_tiles(ws.caps, small_limit, type, small_tile);
      }
    }
  }
  variant_key& key = plan.key;
  describe_call(ws, request, *shape, vector_alignment, key);
  key.algo = *algo;
  key.lookback = *algo == algorithm::single_pass ? shape->lookback : 0;
  key.spin_limit = *algo == algorithm::single_pass ? shape->spin_limit : 0;
  // Deterministic floating-point scans need the fixed tree; mid-size inputs on GPUs run faster on it
  // (fixed_order_tiles).
  key.fixed_order = *algo == algorithm::single_pass &&
                    ((request.deterministic && is_floating(type)) ||
                     mid_size_tree(ws.caps, n, shape->work_group_size * shape->items_per_thread));
  return plan;
}

element_type single_pass_verdict_type(const primitive_request& request) {
  // The element type's: the launch shape comes from that type's verdict (on CPUs, the work-group
  // size that qualified), and what the qualification catches (a device that breaks the look-back's
  // communication between work-groups) does not depend on what the status words carry.
  // run_length_encode's lengths are carried as uints whatever their type (kernels/runs.cl
  // run_value_t), so cl_ulong lengths take the cl_uint tiles: on an H200 their 8-byte tiles ran 2^28
  // keys at 0.57 of a copy where cl_uint lengths ran 0.97.
  return request.kind == primitive::runs_encode ? element_type::uint32 : request.scan.type;
}

std::optional<scan_plan> plan_primitive(workspace& ws, const primitive_request& request, std::size_t n,
                                        std::size_t vector_alignment,
                                        const single_pass_qualification* verdict) {
  const scan_request& scan = request.scan;
  const element_type type = scan.type;
  const bool by_key =
      request.kind == primitive::inclusive_by_key || request.kind == primitive::exclusive_by_key;
  // The calls on runs in one pass (kernels/runs.cl) read a key beside every value, as the scans by key.
  const bool runs = request.kind == primitive::runs_reduce || request.kind == primitive::runs_unique ||
                    request.kind == primitive::runs_encode;
  // partition_if writes the unselected elements after all the selected ones, so it needs the total
  // first: it runs on counts scanned beforehand.
  const bool needs_totals_first = request.kind == primitive::partition_if;
  // Deterministic floating-point scans by key (and reductions by key in one pass) combine along the
  // look-back's fixed tree (CLSCAN_FIXED_ORDER), or on tile totals scanned beforehand.
  const bool fixed_order =
      (by_key || request.kind == primitive::runs_reduce) && scan.deterministic && is_floating(type);
  // The type whose verdict and launch shapes the call takes (also its size class).
  const element_type verdict_type = single_pass_verdict_type(request);
  const bool single_pass_possible = single_pass_supported(ws.caps, verdict_type);
  // Both ways of chaining the tiles take the single-pass scan's launch shape (chained_shape below),
  // which the verdict decides: even a call that runs without the look-back (three_stage, partition_if)
  // plans only once it is known, so that no shape the qualification would reject is kept for later
  // calls, and every call of a type uses the same tiles whatever ran first (`deterministic`).
  if (single_pass_possible && !verdict) return std::nullopt;
  algorithm algo = algorithm::three_stage;
  if (scan.algo == algorithm::single_pass) {
    // (partition_if and devices without the atomics are refused by check_primitive_arguments.)
    if (needs_totals_first || !single_pass_possible)
      throw error("clscan internal error: algorithm::single_pass planned where the arguments refuse it");
    if (!verdict->passed)
      throw unsupported_error("algorithm::single_pass was disqualified on device '" + ws.caps.name +
                              "' (its check scans were wrong: " + verdict->detail +
                              "); CLSCAN_QUALIFY=0 runs it anyway");
    algo = algorithm::single_pass;
  } else if (scan.algo == algorithm::automatic && !needs_totals_first && single_pass_possible &&
             verdict->passed) {
    algo = algorithm::single_pass;
  }

  scan_plan plan;
  plan.algo = algo;
  variant_key& key = plan.key;
  key.algo = algo;
  key.call = request.kind;
  key.type = type;
  const bool by_run_keys =
      request.kind == primitive::select_run_heads || request.kind == primitive::select_run_tails;
  key.key_type = by_key || by_run_keys || runs ? request.key_type : element_type::int32;
  if (by_key || request.kind == primitive::runs_reduce) {
    key.operation = scan.operation;
    if (scan.operation == op::custom) {
      key.custom_op = ws.intern(*scan.custom_op);
      key.custom_identity = scan.custom_identity;
    }
  } else {
    key.operation = op::sum;
    if (request.kind == primitive::select_if || request.kind == primitive::partition_if)
      key.predicate = ws.intern(*request.predicate);
  }
  describe_parameters(ws, scan, key);
  const algorithm_unit& unit = unit_of(key);
  // One launch shape for both ways of chaining the tiles: the single-pass scan's for this type and
  // size class, with at most 64 elements per GPU work-item (a work-item keeps one bit per element in
  // a ulong) and its local memory within the device's.
  const auto chained_shape = [&](bool small_inputs) {
    const tuning& scan_shape = ws.shape(verdict_type, algorithm::single_pass, small_inputs);
    tuning shape; // its numbers only: copying the origin text would allocate on every call
    shape.work_group_size = scan_shape.work_group_size;
    shape.items_per_thread = scan_shape.items_per_thread;
    shape.vector_width = scan_shape.vector_width;
    shape.lookback = scan_shape.lookback;
    shape.spin_limit = scan_shape.spin_limit;
    if (ws.caps.is_gpu())
      shape.items_per_thread =
          std::max(shape.vector_width, std::min<std::size_t>(shape.items_per_thread, 64));
    // (A tuned or CLSCAN_TUNING shape is taken as given.)
    if (runs && scan_shape.origin == "default" &&
        runs_split_work_items(ws.caps, request.kind != primitive::runs_encode, small_inputs) &&
        shape.items_per_thread >= 2 * shape.vector_width &&
        2 * shape.work_group_size <= ws.caps.max_work_group_size) {
      shape.work_group_size *= 2;
      shape.items_per_thread /= 2;
    }
    while (unit.local_memory_bytes(shape, ws.caps, verdict_type) > ws.caps.local_mem_size &&
           shape.items_per_thread > shape.vector_width)
      shape.items_per_thread /= 2;
    return shape;
  };
  const std::size_t small_limit =
      by_key || runs ? by_key_small_input_bytes(ws.caps) : small_input_bytes(ws.caps, algorithm::single_pass);
  plan.small_inputs = n * size_of(verdict_type) <= small_limit;
  tuning shape = chained_shape(plan.small_inputs);
  if (algo == algorithm::single_pass && !plan.small_inputs && small_limit) {
    const tuning small_shape = chained_shape(true);
    const std::size_t small_tile = small_shape.work_group_size * small_shape.items_per_thread;
    if (small_tiles_reach_tree(ws.caps, n, shape.work_group_size * shape.items_per_thread, small_tile)) {
      plan.small_inputs = true;
      shape = small_shape;
    } else {
      plan.small_class_tiles = small_shape_tiles(ws.caps, small_limit, verdict_type, small_tile);
    }
  }
  key.work_group_size = shape.work_group_size;
  key.items_per_thread = shape.items_per_thread;
  key.vector_width = shape.vector_width;
  key.lookback = shape.lookback;
  key.spin_limit = shape.spin_limit;
  // Selections and scans by key, as scans, combine on the fixed tree where every tile is resident at
  // once (fixed_order_tiles).
  key.fixed_order =
      algo == algorithm::single_pass &&
      (fixed_order || mid_size_tree(ws.caps, n, shape.work_group_size * shape.items_per_thread));
  // A selection's counts never exceed n: below 2^32 elements they fit 32 bits, which halves the
  // look-back's status words and the work-group scan's local memory for them.
  key.narrow_counts = !by_key && !runs && n <= std::numeric_limits<cl_uint>::max();
  key.aligned = vector_alignment >= shape.vector_width * size_of(type);
  return plan;
}

scan_plan plan_reduce(workspace& ws, const scan_request& request, std::size_t vector_alignment) {
  const tuning& shape = ws.reduce_shape(request.type);
  scan_plan plan;
  plan.algo = algorithm::three_stage; // no look-back: nothing waits on the verdict's atomics
  variant_key& key = plan.key;
  describe_call(ws, request, shape, vector_alignment, key);
  key.algo = algorithm::three_stage;
  key.call = primitive::reduce;
  return plan;
}

} // namespace detail

dispatch_plan plan_for(const cl::Device& device, element_type type) {
  const device_capabilities caps = capabilities(device);
  dispatch_plan plan;
  plan.single_pass_available = detail::single_pass_supported(caps, type);
  if (plan.single_pass_available) {
    // Qualified first: the verdict can change the single-pass shape.
    const single_pass_qualification verdict = qualify_single_pass(device, type);
    plan.single_pass_available = verdict.passed;
    const std::string when = verdict.from_disk
                                 ? "stored verdict"
                                 : std::to_string(std::lround(verdict.milliseconds)) + " ms, " +
                                       std::to_string(std::lround(verdict.context_milliseconds)) +
                                       " ms of it making a context";
    plan.single_pass_qualification = !verdict.checked ? verdict.detail
                                                      : (verdict.passed ? "qualified (" : "disqualified (") +
                                                            verdict.detail + "; " + when + ")";
  } else {
    plan.single_pass_qualification = "unavailable (no global 32-bit atomics)";
  }
  plan.single_pass_memory_model = detail::acq_rel_status(caps)
                                      ? "acquire/release atomics (-cl-std=" + caps.acq_rel_cl_std + ")"
                                      : "fences (OpenCL 1.2 atomics)";
  plan.large = plan.single_pass_available ? algorithm::single_pass : algorithm::three_stage;
  plan.three_stage = detail::initial_tuning(caps, type, algorithm::three_stage);
  plan.reduce = detail::reduce_tuning(caps, type);
  plan.single_pass = detail::initial_tuning(caps, type, algorithm::single_pass);
  plan.small_input_bytes = detail::small_input_bytes(caps, algorithm::single_pass);
  plan.by_key_small_input_bytes = detail::by_key_small_input_bytes(caps);
  const detail::tile_range tree = detail::fixed_order_tiles(caps);
  plan.fixed_order_first_tiles = tree.first;
  plan.fixed_order_last_tiles = tree.last;
  plan.single_pass_small = plan.small_input_bytes
                               ? detail::initial_tuning(caps, type, algorithm::single_pass, true)
                               : plan.single_pass;
  return plan;
}

} // namespace clscan
