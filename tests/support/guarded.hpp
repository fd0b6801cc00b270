// Guarded buffers and exact checks, shared by the scan, type and robustness tests.
//
// A guarded buffer holds `front` poison elements, the scanned range of n elements, and `back` poison
// elements. A correct scan writes only the scanned range, so every guard still holds poison_value().
#pragma once

#include "environment.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace clscan_test {

namespace guarded {

// The host image of a guarded buffer: poison, then `data` (poison when null), then poison.
template <typename T>
std::vector<T> guarded_image(const std::vector<T>* data, std::size_t n, std::size_t front, std::size_t back) {
  std::vector<T> image(front + n + back, poison_value<T>());
  if (data) std::copy(data->begin(), data->begin() + static_cast<std::ptrdiff_t>(n), image.begin() + front);
  return image;
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

// Operators of the tests, with their host references.
// Wrapping a + b and a * b for integers: unsigned arithmetic (signed overflow is undefined in C++).
template <typename T> T wrapping_sum(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T> T wrapping_product(T a, T b) {
  using U = std::make_unsigned_t<T>;
  using wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(static_cast<U>(static_cast<wide>(a) * static_cast<wide>(b)));
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

// Floating-point sums, against a long double reference: |got - ref| <= tolerance * (|initial| + sum of |x|
// over the prefix) + 1e-30.
template <typename T>
std::string check_rounded(const std::vector<T>& got, std::size_t offset, const std::vector<T>& in,
                          clscan::scan_kind kind, T initial) {
  const long double tolerance = std::is_same<T, cl_float>::value ? 1e-5L : 1e-13L;
  long double sum = initial, magnitude = std::fabs(static_cast<long double>(initial));
  std::size_t violations = 0, first = 0;
  long double first_ref = 0, first_bound = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (kind == clscan::scan_kind::inclusive) {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
    }
    const long double bound = tolerance * magnitude + 1e-30L;
    const long double value = got[offset + i];
    if (!(std::fabs(value - sum) <= bound) && violations++ == 0) {
      first = i;
      first_ref = sum;
      first_bound = bound;
    }
    if (kind == clscan::scan_kind::exclusive) {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
    }
  }
  if (!violations) return {};
  std::ostringstream out;
  out.precision(std::numeric_limits<long double>::max_digits10);
  out << "result: " << violations << " of " << in.size()
      << " elements outside the error bound; the first at index " << first << ": reference " << first_ref
      << ", got " << got[offset + first] << ", allowed error " << first_bound << "; ";
  return out.str();
}

template <typename T> bool same_bits(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

// The same bits, or both NaN: a NaN's payload is not kept through fmin and fmax (NVIDIA returns its
// canonical NaN, 0x7fffffff for float), so any NaN matches any NaN.
template <typename T> bool same_value(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>)
    if (a != a && b != b) return true;
  return same_bits(a, b);
}

// One CHECK that got[offset + i] and expected[i] have the same bits (any NaN for a NaN) for every i;
// on failure it names the number of mismatches and the first one.
template <typename T>
void check_exact(const char* what, const std::vector<T>& got, std::size_t offset,
                 const std::vector<T>& expected) {
  REQUIRE(got.size() >= offset + expected.size());
  std::size_t mismatches = 0, first = 0;
  // One memcmp first: the element loop below only runs when something differs (fast in Debug builds).
  if (!expected.empty() &&
      std::memcmp(got.data() + offset, expected.data(), expected.size() * sizeof(T)) != 0)
    for (std::size_t i = 0; i < expected.size(); ++i)
      if (!same_value(got[offset + i], expected[i]) && mismatches++ == 0) first = i;
  std::ostringstream detail;
  if (mismatches)
    detail << "; the first at index " << first << ": expected " << +expected[first] << ", got "
           << +got[offset + first];
  INFO(what << ": " << mismatches << " of " << expected.size() << " elements differ" << detail.str());
  CHECK(mismatches == 0);
}

// One CHECK that every element outside [front, front + n) of `got` still holds poison_value().
template <typename T>
void check_guards(const char* what, const std::vector<T>& got, std::size_t front, std::size_t n) {
  REQUIRE(got.size() >= front + n);
  const T poison = poison_value<T>();
  std::size_t damaged = 0, first = 0;
  const auto inspect = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      if (!same_bits(got[i], poison) && damaged++ == 0) first = i;
  };
  inspect(0, front);
  inspect(front + n, got.size());
  std::ostringstream detail;
  if (damaged) detail << "; the first at buffer index " << first << " holds " << +got[first];
  INFO(what << ": " << damaged << " guard elements overwritten (guards: " << front << " before, "
            << got.size() - front - n << " after the " << n << " scanned elements)" << detail.str());
  CHECK(damaged == 0);
}

} // namespace guarded

} // namespace clscan_test
