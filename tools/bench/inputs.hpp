// clscan-bench's inputs: the generators, seeds and distributions of its data, in plain C++ (neither
// clscan nor OpenCL), so that bench/cub/cub_bench.cu includes them and gives CUB the same data.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

namespace clscan_bench {

// sort and sort_by_key with --keys distinct7: the number of distinct keys.
constexpr std::size_t distinct_keys = 7;
// select and partition: the share of the inputs that satisfies "x > 0".
constexpr int selected_percent = 43;
// by_key, reduce_by_key, unique_by_key and run_length_encode: segment (run) lengths are uniform in [1, 2 *
// average_segment - 1].
constexpr std::size_t average_segment = 1000;

// scan, by_key and the sorts' values: all bit patterns for integers, uniform in [-1, 1) for floating
// point.
template <typename T> void fill_random(std::vector<T>& v, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  if constexpr (std::is_integral_v<T>) {
    for (auto& x : v)
      x = static_cast<T>(rng());
  } else {
    std::uniform_real_distribution<T> dist(T(-1), T(1));
    for (auto& x : v)
      x = dist(rng);
  }
}

// Seeds: a size's inputs differ from each other and from other sizes', the same in every run.
inline std::uint64_t values_seed(std::size_t n, std::size_t input) { return 0x5eed0000u + 977 * n + input; }
inline std::uint64_t keys_seed(std::size_t n, std::size_t input) { return 0x6b657900u + 977 * n + input; }

// select and partition: selected_percent % of the elements, each independently at random, satisfy
// "x > 0"; the others are 0 or negative (0 for unsigned types). Magnitudes stay below 2^20, which every
// element type holds exactly.
template <typename T> void fill_selectable(std::vector<T>& v, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (auto& x : v) {
    const std::uint64_t r = rng();
    const auto magnitude = static_cast<std::int64_t>((r >> 32) % (std::uint64_t{1} << 20));
    if (r % 100 < static_cast<std::uint64_t>(selected_percent))
      x = static_cast<T>(magnitude + 1);
    else if constexpr (std::is_signed_v<T>)
      x = static_cast<T>(-magnitude);
    else
      x = T(0);
  }
}

// unique: runs of equal elements of average length 2. Each element repeats the one before with
// probability 1/2, else takes a new value below 2^20 that differs from it.
template <typename T> void fill_runs(std::vector<T>& v, std::uint64_t seed) {
  constexpr std::uint64_t values = std::uint64_t{1} << 20;
  std::mt19937_64 rng(seed);
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint64_t r = rng();
    if (i == 0 || (r & 1)) {
      const std::uint64_t next = (r >> 32) % values;
      value = i > 0 && next == value ? (next + 1) % values : next;
    }
    v[i] = static_cast<T>(value);
  }
}

// by_key: segment lengths uniform in [1, 2 * average_segment - 1]; the keys number the segments
// 0, 1, 2, ... (wrapping past 2^32 segments, so that neighbours still differ).
inline void fill_segment_keys(std::vector<std::int32_t>& keys, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uint32_t key = 0;
  for (std::size_t i = 0; i < keys.size(); ++key) {
    const std::size_t length = 1 + static_cast<std::size_t>(rng() % (2 * average_segment - 1));
    const std::size_t end = std::min(keys.size(), i + length);
    std::fill(keys.begin() + static_cast<std::ptrdiff_t>(i), keys.begin() + static_cast<std::ptrdiff_t>(end),
              static_cast<std::int32_t>(key));
    i = end;
  }
}

// run_length_encode: the runs of fill_segment_keys (the same seed gives the same run boundaries as
// by_key's and reduce_by_key's keys), each element its segment's number mod 2^20 as T: every element
// type holds it exactly, and neighbouring runs still differ.
template <typename T> void fill_segment_runs(std::vector<T>& v, std::uint64_t seed) {
  std::vector<std::int32_t> keys(v.size());
  fill_segment_keys(keys, seed);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<T>(static_cast<std::uint32_t>(keys[i]) & 0xfffffu);
}

// sort and sort_by_key with --keys distinct7: distinct_keys values drawn as fill_random draws its
// elements, then each element one of them, picked by the same generator.
template <typename T> void fill_distinct(std::vector<T>& v, std::uint64_t seed) {
  std::vector<T> pool(distinct_keys);
  fill_random(pool, seed);
  std::mt19937_64 rng(seed + 1);
  for (auto& x : v)
    x = pool[rng() % distinct_keys];
}

} // namespace clscan_bench
