// A program variant: what identifies one compiled program, and its source prelude and build options.
#pragma once

#include <clscan/device.hpp>
#include <clscan/primitives.hpp>
#include <clscan/scan.hpp>

#include <array>
#include <optional>

#include <string>

namespace clscan::detail {

// Identifies one compiled program: algorithm, element type, operator, launch shape and alignment.
struct variant_key {
  // A scan's algorithm, or for the other calls (primitive) whether the look-back (single_pass) or the
  // tile aggregates known beforehand (three_stage) chain the tiles.
  algorithm algo = algorithm::three_stage;
  std::optional<primitive> call;               // empty: a scan
  element_type key_type = element_type::int32; // by-key calls
  // select_if and partition_if: the predicate, interned as custom_op is.
  const std::string* predicate = nullptr;
  element_type type = element_type::int32;
  op operation = op::sum;
  // Only for op::custom: the expression, interned by the workspace (workspace::intern), so that equal
  // texts are the same pointer and a repeated call builds its key without copying the text.
  const std::string* custom_op = nullptr;
  element_value custom_identity; // only for op::custom
  // options::key_equal (calls by key, unique), interned as custom_op is; null: ==.
  const std::string* key_equal = nullptr;
  // options::transform (scans, reduce), interned; null: none.
  const std::string* transform = nullptr;
  // options::transform_input where it differs from `type` (CLSCAN_IN_T, kernels/prelude.cl): the
  // input's type, which only the transform reads. Empty: the input has `type`.
  std::optional<element_type> input_type;
  // options::parameters: their names (interned) and types, never their values, which are the kernels'
  // last arguments (CLSCAN_USER_PARAMS, kernels/prelude.cl).
  struct parameter_slot {
    const std::string* name = nullptr;
    element_type type = element_type::int32;
  };
  std::array<parameter_slot, max_parameters> parameters{};
  std::size_t parameter_count = 0;
  std::size_t work_group_size = 0;
  std::size_t items_per_thread = 0;
  std::size_t vector_width = 0;
  std::size_t lookback = 0;   // 0 where the algorithm has no look-back
  std::size_t spin_limit = 0; // 0 where the algorithm has no look-back
  std::size_t run_lanes = 1;  // CLSCAN_RUN_LANES (kernels/tile_io.cl)
  bool fixed_order = false;   // CLSCAN_FIXED_ORDER (kernels/tile_prefix.cl): deterministic single-pass
  bool narrow_counts = false; // selections of fewer than 2^32 elements: 32-bit tile counts (select.cl)
  bool aligned = false;
  // The radix sort (lib/algorithms/sort.cpp): `type` is the keys' bits (uint32 or uint64), key_type the
  // keys' own type, sort_value_size the bytes of the values moved with them (0: none).
  bool sort = false;
  std::size_t sort_value_size = 0;

  bool operator<(const variant_key& other) const;
};

// The kernel source of a variant (prelude: type, operator, identity, the algorithm's own defines;
// then the algorithm's kernel file) and its build options (-D shape, the algorithm's options,
// CLSCAN_BUILD_OPTIONS).
std::string program_source(const variant_key& key, const device_capabilities& caps);
std::string program_options(const variant_key& key, const device_capabilities& caps);

// Most kernels one algorithm's program holds (compiled_variant::kernels).
constexpr std::size_t max_variant_kernels = 7;

} // namespace clscan::detail
