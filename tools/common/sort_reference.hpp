// Host reference of clscan's sorts (include/clscan/sort.hpp), shared by the tools and the tests: the
// order of the keys written two ways (numpy's order compared directly, and the order-preserving
// unsigned image cut to a bit range), the stable permutation std::stable_sort gives, and a check of
// sorted keys, values and indices against it, bit for bit; and keys that exercise it.
#pragma once

#include "reference.hpp"

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

template <typename K> using sort_bits_t = std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>;

template <typename T> sort_bits_t<T> bits_of(T x) {
  sort_bits_t<T> b = 0;
  static_assert(sizeof b == sizeof x, "4- and 8-byte elements only");
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// The header's u(k): unsigned integers as they are, signed ones with the sign bit flipped, floating
// point with -0.0 read as +0.0, negative values inverted, positive ones with the sign bit set, and
// every NaN all ones.
template <typename K> sort_bits_t<K> sort_image(K key) {
  using U = sort_bits_t<K>;
  constexpr U sign = U{1} << (8 * sizeof(K) - 1);
  if constexpr (std::is_floating_point_v<K>) {
    if (std::isnan(key)) return ~U{0};
    if (key == K(0)) return sign; // +0.0 and -0.0
    const U b = bits_of(key);
    return (b & sign) ? ~b : (b | sign);
  } else if constexpr (std::is_signed_v<K>) {
    return bits_of(key) ^ sign;
  } else {
    return static_cast<U>(key);
  }
}

// What a sort of [begin_bit, end_bit) compares: ~u(k) for descending (NaNs excepted), then those bits.
template <typename K>
sort_bits_t<K> sort_digit_key(K key, bool descending, unsigned begin_bit, unsigned end_bit) {
  using U = sort_bits_t<K>;
  U u = sort_image(key);
  bool nan = false;
  if constexpr (std::is_floating_point_v<K>) nan = std::isnan(key);
  if (descending && !nan) u = ~u;
  const unsigned width = end_bit - begin_bit;
  if (width == 0) return 0;
  const U mask = width >= 8 * sizeof(U) ? ~U{0} : ((U{1} << width) - 1);
  return begin_bit >= 8 * sizeof(U) ? U{0} : (u >> begin_bit) & mask;
}

// numpy's order, written without the image: integers numerically; floats -inf < ... < -0.0 == +0.0 <
// ... < +inf < every NaN; descending reverses the non-NaN keys and keeps the NaNs last.
template <typename K> bool numpy_less(K a, K b, bool descending) {
  if constexpr (std::is_floating_point_v<K>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return !na && nb;
  }
  return descending ? b < a : a < b;
}

// The permutation a stable sort gives: order[j] = the input position of the j-th key. The whole key
// (begin_bit 0, end_bit 8 * sizeof(K)) is compared with numpy_less, a bit range through its image.
template <typename K>
std::vector<std::size_t> stable_order(const std::vector<K>& keys, bool descending = false,
                                      unsigned begin_bit = 0, unsigned end_bit = 8 * sizeof(K)) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (begin_bit == 0 && end_bit == 8 * sizeof(K)) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return numpy_less(keys[a], keys[b], descending); });
  } else {
    std::vector<sort_bits_t<K>> digits(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
      digits[i] = sort_digit_key(keys[i], descending, begin_bit, end_bit);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return digits[a] < digits[b]; });
  }
  return order;
}

// The permutation stable_order gives for the whole key, in linear time: a stable LSD counting sort of
// the keys' images, 8 bits a pass (the images order keys as numpy_less does, equal keys alike), for
// inputs where std::stable_sort takes minutes (the benchmark's 2^28 keys). The sort tests check it
// against stable_order.
template <typename K>
std::vector<std::size_t> stable_order_linear(const std::vector<K>& keys, bool descending = false) {
  using U = sort_bits_t<K>;
  std::vector<std::pair<U, std::size_t>> items(keys.size()), moved(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    items[i] = {sort_digit_key(keys[i], descending, 0, 8 * sizeof(K)), i};
  for (unsigned shift = 0; shift < 8 * sizeof(K); shift += 8) {
    std::size_t next[256] = {};
    for (const auto& item : items)
      ++next[(item.first >> shift) & 255];
    std::size_t sum = 0;
    for (std::size_t& c : next)
      sum += std::exchange(c, sum);
    for (const auto& item : items)
      moved[next[(item.first >> shift) & 255]++] = item;
    items.swap(moved);
  }
  std::vector<std::size_t> order(keys.size());
  for (std::size_t j = 0; j < keys.size(); ++j)
    order[j] = items[j].second;
  return order;
}

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
