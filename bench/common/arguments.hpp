// What the CUDA programs of bench/ (cub/cub_bench.cu, profile/ptx_launch.cu) share: counts given on
// their command lines, and medians. Header-only, so that each program stays one nvcc call.
#pragma once

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <vector>

namespace bench {

// A count written as digits or as 2^E (E < 40; larger ones read as ULLONG_MAX, out of any range);
// nothing when the text is neither.
inline std::optional<unsigned long long> read_count(const std::string& text) {
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 18 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (text.rfind("2^", 0) == 0 && digits(text.substr(2))) {
    const unsigned long long exponent = std::stoull(text.substr(2));
    return exponent < 40 ? 1ull << exponent : ULLONG_MAX;
  }
  if (digits(text)) return std::stoull(text);
  return std::nullopt;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

} // namespace bench
