#pragma once

#include "algorithms/algorithm_unit.hpp"

namespace clscan::detail {

// inclusive_by_key and exclusive_by_key (kernels/by_key.cl): one pass chained by the look-back, or
// tile aggregates known beforehand.
extern const algorithm_unit by_key_unit;

// Bytes of the pair a by-key tile carries (kernels/by_key.cl carry_t): the value and a flag word,
// aligned to the value.
// The key_equal of keys that are segment-head flags (lib/api/segmented.cpp): b continues a's segment
// unless it is a head. The unit recognises the text and compiles the test inline (CLSCAN_KEY_HEADS), as
// the same expression of a caller's would mean the same.
constexpr const char* head_flags_key_equal = "b == 0u";

inline std::size_t by_key_carry_bytes(element_type type) { return size_of(type) == 8 ? 16 : 8; }

} // namespace clscan::detail
