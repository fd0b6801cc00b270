// clscan-bench's scans of one element type T: the options and the call, random inputs, and the check
// of a result against the host reference (tools/common/reference.hpp).
#pragma once

#include "inputs.hpp"

#include "common/reference.hpp"

#include <clscan/clscan.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace clscan_bench {

template <typename T>
clscan::options<T> make_options(clscan::algorithm algo, clscan::op operation, bool deterministic = false) {
  clscan::options<T> o;
  o.algorithm = algo;
  o.operation = operation;
  o.deterministic = deterministic;
  return o;
}

template <typename T>
cl::Event run_scan(const cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                   clscan::scan_kind kind, const clscan::options<T>& o) {
  return kind == clscan::scan_kind::inclusive ? clscan::inclusive<T>(q, in, out, n, o)
                                              : clscan::exclusive<T>(q, in, out, n, o);
}

// "mismatch at i of n: expected E, got A", with T's digits.
template <typename T, typename V>
std::string mismatch_text(std::size_t i, std::size_t n, V expected, V actual) {
  std::ostringstream s;
  s.precision(std::numeric_limits<T>::max_digits10);
  s << "mismatch at " << i << " of " << n << ": expected " << +expected << ", got " << +actual;
  return s.str();
}

// Compares `got` with the host scan of `in`. Returns an empty string when it matches, else a
// description of the first mismatch. Floating-point sums within 16 * epsilon * (sum of |x| up to that
// element) of a long double reference; everything else exactly (any NaN for a NaN: fmin and fmax keep
// no payload).
template <typename T>
std::string verify(const std::vector<T>& in, const std::vector<T>& got, clscan::op operation,
                   clscan::scan_kind kind) {
  const std::size_t n = in.size();
  const auto describe = [&](std::size_t i, auto expected, auto actual) {
    return mismatch_text<T>(i, n, expected, actual);
  };
  if constexpr (std::is_floating_point_v<T>) {
    if (operation == clscan::op::sum) {
      const long double tolerance = 16 * static_cast<long double>(std::numeric_limits<T>::epsilon());
      const clscan_reference::rounding_report report =
          clscan_reference::check_rounded(got.data(), in, kind, T(0), tolerance);
      if (!report.violations) return {};
      return describe(report.first, static_cast<double>(report.reference),
                      static_cast<double>(got[report.first])) +
             " (tolerance " + std::to_string(static_cast<double>(report.bound)) + ")";
    }
  }
  const std::vector<T> expected = clscan_reference::scan(in, kind, operation);
  for (std::size_t i = 0; i < n; ++i)
    if (!(expected[i] == got[i] || clscan_reference::same_value(expected[i], got[i])))
      return describe(i, expected[i], got[i]);
  return {};
}

} // namespace clscan_bench
