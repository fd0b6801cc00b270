// Host reference scans, shared by the tools and the tests: the library's operators and identities
// computed on the host, a scan with any combine function, a custom operator that is associative but not
// commutative (affine), a same-value check that matches any NaN with any NaN, a rounding bound for
// floating-point sums, and a seeded generator.
#pragma once

#include <clscan/clscan.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace clscan_reference {

// Wrapping a + b and a * b for integers: unsigned arithmetic (signed overflow is undefined in C++);
// plain a + b and a * b for floating types.
template <typename T> T wrapping_sum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a + b;
  } else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  }
}
template <typename T> T wrapping_product(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a * b;
  } else {
    // Types narrower than unsigned int would be promoted to (signed) int: multiply as unsigned int.
    using U = std::make_unsigned_t<T>;
    using wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(
        static_cast<U>(static_cast<wide>(static_cast<U>(a)) * static_cast<wide>(static_cast<U>(b))));
  }
}

// The library's identity of `operation` for T. Floating-point min and max are fmin and fmax, whose
// identity is NaN; a floating-point sum's identity is -0.0. op::custom has none: std::invalid_argument.
template <typename T> T identity(clscan::op operation) {
  using limits = std::numeric_limits<T>;
  if constexpr (std::is_floating_point_v<T>) {
    switch (operation) {
    case clscan::op::sum: return T(-0.0);
    case clscan::op::min:
    case clscan::op::max: return limits::quiet_NaN();
    default: break;
    }
    throw std::invalid_argument(
        "clscan_reference::identity: no identity for this operator and a floating type");
  } else {
    switch (operation) {
    case clscan::op::sum: return T(0);
    case clscan::op::min: return limits::max();
    case clscan::op::max: return limits::lowest();
    case clscan::op::bit_and: return static_cast<T>(~std::make_unsigned_t<T>(0));
    case clscan::op::bit_or:
    case clscan::op::bit_xor: return T(0);
    case clscan::op::custom: break;
    }
    throw std::invalid_argument("clscan_reference::identity: op::custom has no built-in identity");
  }
}

// a op b as the library computes it: integers wrap; floating min and max are std::fmin and std::fmax;
// bit operators are for integers only (std::invalid_argument otherwise, and for op::custom).
template <typename T> T combine(clscan::op operation, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (operation) {
    case clscan::op::sum: return a + b;
    case clscan::op::min: return std::fmin(a, b);
    case clscan::op::max: return std::fmax(a, b);
    default: break;
    }
    throw std::invalid_argument("clscan_reference::combine: no such operator for a floating type");
  } else {
    switch (operation) {
    case clscan::op::sum: return wrapping_sum(a, b);
    case clscan::op::min: return b < a ? b : a;
    case clscan::op::max: return a < b ? b : a;
    case clscan::op::bit_and: return static_cast<T>(a & b);
    case clscan::op::bit_or: return static_cast<T>(a | b);
    case clscan::op::bit_xor: return static_cast<T>(a ^ b);
    case clscan::op::custom: break;
    }
    throw std::invalid_argument("clscan_reference::combine: op::custom has no host reference");
  }
}

// A scan of `in` with a running value that starts at `start` and is combined on the left:
// exclusive: out[0] = start, out[i] = combine(out[i-1], in[i-1]);
// inclusive: out[i] = combine(...combine(combine(start, in[0]), in[1])..., in[i]).
template <typename T, typename Combine>
std::vector<T> scan(const std::vector<T>& in, clscan::scan_kind kind, T start, Combine combine) {
  std::vector<T> out(in.size());
  T running = start;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (kind == clscan::scan_kind::exclusive) {
      out[i] = running;
      running = combine(running, in[i]);
    } else {
      running = combine(running, in[i]);
      out[i] = running;
    }
  }
  return out;
}

// A scan with one of the library's operators, from `initial` or else the operator's identity.
template <typename T>
std::vector<T> scan(const std::vector<T>& in, clscan::scan_kind kind, clscan::op operation,
                    std::optional<T> initial = std::nullopt) {
  const T start = initial ? *initial : identity<T>(operation);
  return scan(in, kind, start, [operation](T a, T b) { return combine(operation, a, b); });
}

// A scan of each segment of `in` on its own, a segment being a maximal run of equal consecutive keys
// (compared with ==): clscan::inclusive_by_key / exclusive_by_key. Every segment starts from `initial`
// when given (combined on the left), else from nothing: an exclusive segment's first element is the
// identity.
template <typename K, typename T>
std::vector<T> scan_by_key(const std::vector<K>& keys, const std::vector<T>& in, clscan::scan_kind kind,
                           clscan::op operation, std::optional<T> initial = std::nullopt) {
  std::vector<T> out(in.size());
  T running{};
  for (std::size_t i = 0; i < in.size(); ++i) {
    const bool head = i == 0 || !(keys[i] == keys[i - 1]);
    if (kind == clscan::scan_kind::exclusive)
      out[i] = head ? (initial ? *initial : identity<T>(operation))
                    : (initial ? combine(operation, *initial, running) : running);
    running = head ? in[i] : combine(operation, running, in[i]);
    if (kind == clscan::scan_kind::inclusive)
      out[i] = initial ? combine(operation, *initial, running) : running;
  }
  return out;
}

// Composition of affine maps x -> m*x + c modulo 2^(bits/2), packed as (m << half) | c: "first a, then
// b". Associative, with the identity map (1 << half), and not commutative.
template <typename T> struct affine {
  static constexpr unsigned half = 4 * sizeof(T);
  static constexpr T low = static_cast<T>((T{1} << half) - 1);
  static T compose(T a, T b) {
    const T m = static_cast<T>(((a >> half) * (b >> half)) & low);
    const T c = static_cast<T>(((b >> half) * (a & low) + (b & low)) & low);
    return static_cast<T>((m << half) | c);
  }
  static std::string expression() {
    const std::string h = std::to_string(half);
    const std::string mask = sizeof(T) == 8 ? "0xffffffffUL" : "0xffffU";
    return "(((((a) >> " + h + ") * ((b) >> " + h + ")) & " + mask + ") << " + h + ") | ((((b) >> " + h +
           ") * ((a) & " + mask + ") + ((b) & " + mask + ")) & " + mask + ")";
  }
};

// The same bits, or both NaN: a NaN's payload is not kept through fmin and fmax (NVIDIA returns its
// canonical NaN), so any NaN matches any NaN.
template <typename T> bool same_value(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;
    using bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    static_assert(sizeof(bits) == sizeof(T), "float and double are 32 and 64 bits");
    bits x = 0, y = 0;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x == y;
  } else {
    return a == b;
  }
}

// Floating-point sums against a long double reference that starts at `initial`: element i may differ by
// tolerance * (|initial| + sum of |x| over the prefix it covers) + 1e-30, tolerance 1e-5 for float and
// 1e-13 for double. `violations` counts the elements outside; `first` is the first of them, with its
// reference and bound.
struct rounding_report {
  std::size_t violations = 0, first = 0;
  long double reference = 0, bound = 0;
};

// The bound with `tolerance` in place of 1e-5 / 1e-13 (clscan-bench checks against 16 * epsilon of T).
template <typename T>
rounding_report check_rounded(const T* got, const std::vector<T>& in, clscan::scan_kind kind, T initial,
                              long double tolerance) {
  static_assert(std::is_floating_point_v<T>, "check_rounded is for floating types");
  long double sum = initial, magnitude = std::fabs(static_cast<long double>(initial));
  rounding_report report;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (kind == clscan::scan_kind::inclusive) {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
    }
    const long double bound = tolerance * magnitude + 1e-30L;
    const long double value = got[i];
    if (!(std::fabs(value - sum) <= bound) && report.violations++ == 0) {
      report.first = i;
      report.reference = sum;
      report.bound = bound;
    }
    if (kind == clscan::scan_kind::exclusive) {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
    }
  }
  return report;
}

// The bound above: tolerance 1e-5 for float, 1e-13 for double.
template <typename T>
rounding_report check_rounded(const T* got, const std::vector<T>& in, clscan::scan_kind kind, T initial) {
  return check_rounded(got, in, kind, initial, std::is_same_v<T, float> ? 1e-5L : 1e-13L);
}

// splitmix64: a seeded generator that gives the same sequence with every standard library, and is
// fast in a Debug build.
struct splitmix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) / 9007199254740992.0; }
};

} // namespace clscan_reference
