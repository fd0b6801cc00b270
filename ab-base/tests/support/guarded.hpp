// Guarded buffers and exact checks, shared by the scan, type and robustness tests, built on the host
// reference of tools/common/reference.hpp (clscan_reference).
//
// A guarded buffer holds `front` poison elements, the scanned range of n elements, and `back` poison
// elements. A correct scan writes only the scanned range, so every guard still holds poison_value().
#pragma once

#include "environment.hpp"

#include <clscan/clscan.hpp>

#include <common/reference.hpp>

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

// The shared host reference (tools/common/reference.hpp), under the names the tests use.
using clscan_reference::affine;
using clscan_reference::same_value;
using clscan_reference::splitmix64;
using clscan_reference::wrapping_product;
using clscan_reference::wrapping_sum;

// Floating-point sums within clscan_reference::check_rounded's bound: "" when every element of
// got[offset ...] is within it, else what was wrong with the first element outside it.
template <typename T>
std::string check_rounded(const std::vector<T>& got, std::size_t offset, const std::vector<T>& in,
                          clscan::scan_kind kind, T initial) {
  // Only floating-point results have a bound; an integer case here is the test's own mistake.
  if constexpr (!std::is_floating_point_v<T>) {
    return "check_rounded: integer results are compared exactly, not within a bound; ";
  } else {
    const clscan_reference::rounding_report report =
        clscan_reference::check_rounded(got.data() + offset, in, kind, initial);
    if (!report.violations) return {};
    std::ostringstream out;
    out.precision(std::numeric_limits<long double>::max_digits10);
    out << "result: " << report.violations << " of " << in.size()
        << " elements outside the error bound; the first at index " << report.first << ": reference "
        << report.reference << ", got " << got[offset + report.first] << ", allowed error " << report.bound
        << "; ";
    return out.str();
  }
}

template <typename T> bool same_bits(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

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
