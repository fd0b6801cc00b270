// The order of clscan's sorts (include/clscan/sort.hpp) on the host, with the standard library only:
// the order-preserving unsigned image of a key and its bit ranges, numpy's order compared directly,
// and the stable permutation std::stable_sort gives (also in linear time, for the benchmarks' 2^28
// keys). Shared by sort_reference.hpp (tools and tests) and bench/cub's cub_bench, which has no
// OpenCL headers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
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

} // namespace clscan_reference
