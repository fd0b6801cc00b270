// Host reference of clscan's sorts (include/clscan/sort.hpp), shared by the tools and the tests: the
// order of the keys and the stable permutation std::stable_sort gives (sort_order.hpp), a check of
// sorted keys, values and indices against it, bit for bit; and keys that exercise it.
#pragma once

#include "reference.hpp"
#include "sort_order.hpp"

#include <clscan/clscan.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace clscan_reference {

template <typename T> std::string sort_value_text(T x) {
  std::ostringstream s;
  s.precision(17);
  s << +x;
  if constexpr (std::is_floating_point_v<T>) s << " (0x" << std::hex << bits_of(x) << ")";
  return s.str();
}

// Empty when got[j] has the bits of in[order[j]] for every j < order.size(), else the first difference,
// named `what` ("key", "value", ...).
template <typename T>
std::string check_permuted(const char* what, const std::vector<T>& in, const std::vector<std::size_t>& order,
                           const T* got) {
  for (std::size_t j = 0; j < order.size(); ++j)
    if (bits_of(in[order[j]]) != bits_of(got[j]))
      return std::string(what) + " " + std::to_string(j) + " of " + std::to_string(order.size()) +
             ": expected " + sort_value_text(in[order[j]]) + " (input " + std::to_string(order[j]) +
             "), got " + sort_value_text(got[j]);
  return {};
}

// Empty when got[j] == order[j] for every j, else the first difference.
template <typename I> std::string check_indices(const std::vector<std::size_t>& order, const I* got) {
  for (std::size_t j = 0; j < order.size(); ++j)
    if (static_cast<std::uint64_t>(got[j]) != order[j])
      return "index " + std::to_string(j) + " of " + std::to_string(order.size()) + ": expected " +
             std::to_string(order[j]) + ", got " + std::to_string(static_cast<std::uint64_t>(got[j]));
  return {};
}

// Test keys (the tests, the fuzz and clscan-info --self-test draw them here).
enum class key_pattern {
  mixed,    // random bits, and for floating point also -0.0, +0.0, infinities, NaNs of both signs and
            // two payloads, denormals and a few small integers, so that equal keys meet
  few,      // 7 distinct values
  equal,    // one value
  sorted,   // ascending (numpy's order), from mixed keys
  reversed, // descending
};

inline const char* key_pattern_name(key_pattern p) {
  switch (p) {
  case key_pattern::mixed: return "mixed";
  case key_pattern::few: return "7 distinct";
  case key_pattern::equal: return "all equal";
  case key_pattern::sorted: return "sorted";
  case key_pattern::reversed: return "reverse sorted";
  }
  return "?";
}

template <typename K> K mixed_key(splitmix64& r) {
  using U = sort_bits_t<K>;
  const std::uint64_t x = r.next();
  U bits = static_cast<U>(r.next());
  if constexpr (std::is_floating_point_v<K>) {
    constexpr unsigned width = 8 * sizeof(K);
    constexpr U sign = U{1} << (width - 1);
    constexpr U exponent_mask = sizeof(K) == 4 ? U(0x7F800000u) : U(0x7FF0000000000000ull);
    constexpr U quiet = sizeof(K) == 4 ? U(0x00400000u) : U(0x0008000000000000ull);
    switch (x % 12) {
    case 0: bits = sign; break;                                                  // -0.0
    case 1: bits = 0; break;                                                     // +0.0
    case 2: bits = exponent_mask | ((x >> 8) & 1 ? sign : 0); break;             // +-inf
    case 3: bits = exponent_mask | quiet | ((x >> 8) & 1 ? sign | 1 : 0); break; // NaNs
    case 4: bits &= sign | (quiet - 1); break;                                   // denormals
    case 5: {
      K k = static_cast<K>(static_cast<long long>((x >> 8) % 5) - 2);
      std::memcpy(&bits, &k, sizeof bits);
      break;
    }
    default: break;
    }
    K key;
    std::memcpy(&key, &bits, sizeof key);
    return key;
  } else {
    if (x % 4 == 0) return static_cast<K>(static_cast<long long>((x >> 8) % 5) - 2);
    return static_cast<K>(bits);
  }
}

template <typename K> std::vector<K> make_sort_keys(std::size_t n, key_pattern pattern, splitmix64& r) {
  std::vector<K> keys(n);
  if (pattern == key_pattern::few || pattern == key_pattern::equal) {
    K pool[7];
    for (K& k : pool)
      k = mixed_key<K>(r);
    const std::uint64_t count = pattern == key_pattern::few ? 7 : 1;
    for (K& k : keys)
      k = pool[r.next() % count];
    return keys;
  }
  for (K& k : keys)
    k = mixed_key<K>(r);
  if (pattern == key_pattern::sorted || pattern == key_pattern::reversed) {
    const bool down = pattern == key_pattern::reversed;
    std::stable_sort(keys.begin(), keys.end(), [&](K a, K b) { return numpy_less(a, b, down); });
  }
  return keys;
}

} // namespace clscan_reference
