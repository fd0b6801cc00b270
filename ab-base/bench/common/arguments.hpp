// What the CUDA programs of bench/ (cub/cub_bench.cu, profile/ptx_launch.cu) share: the walk over their
// command lines, the element types they know, counts given on them, and medians. Header-only, so that
// each program stays one nvcc call.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace bench {

// Walks argv: --help or -h prints help_text and exits 0; every other argument is passed to
// handle(arg, value), where value() takes the next argument as the flag's value and calls
// usage_error (which must not return) when there is none.
template <typename UsageError, typename Handle>
void for_each_flag(int argc, char** argv, const char* help_text, UsageError usage_error, Handle handle) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(help_text, stdout);
      std::exit(0);
    }
    handle(arg, value);
  }
}

// The element types the programs measure (clscan's six).
inline bool known_type(const std::string& type) {
  const char* const known[] = {"int", "uint", "long", "ulong", "float", "double"};
  return std::find(std::begin(known), std::end(known), type) != std::end(known);
}

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
