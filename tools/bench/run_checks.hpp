// The host side of clscan-bench's transforms (--transform) and of its calls on runs (unique_by_key,
// run_length_encode, reduce_by_key sums): the expressions both programs time with their host forms,
// and the references the results are checked against. Plain C++ (neither clscan nor OpenCL), as
// inputs.hpp, so that bench/cub/cub_bench.cu checks CUB's results with the same code, and
// tests/programs/bench_checks.cpp shows that each check rejects a wrong result.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace clscan_bench {

// --- --transform ---------------------------------------------------------------------------------

// The transforms both programs offer: a few, so that the host can evaluate each exactly as the
// device does. Integer products wrap (two's complement), as every OpenCL device and CUDA compute them.
enum class transform_kind { none, twice, positive_flag, even_index };

struct transform_entry {
  transform_kind kind;
  const char* text; // the OpenCL C expression of x and i (options<T>::transform)
};

constexpr transform_entry transform_entries[] = {{transform_kind::twice, "x * 2"},
                                                 {transform_kind::positive_flag, "x > 0 ? 1 : 0"},
                                                 {transform_kind::even_index, "i % 2 == 0 ? x : 0"}};

// "x * 2", "x > 0 ? 1 : 0", "i % 2 == 0 ? x : 0": the list a usage error offers.
inline std::string transform_list() {
  std::string text;
  for (const transform_entry& e : transform_entries)
    text += (text.empty() ? "'" : ", '") + std::string(e.text) + "'";
  return text;
}

// The transform `text` names, blanks ignored ("x*2" is "x * 2"); nothing when it names none.
inline std::optional<transform_kind> parse_transform(const std::string& text) {
  const auto squeeze = [](const std::string& s) {
    std::string out;
    for (const char c : s)
      if (c != ' ' && c != '\t') out += c;
    return out;
  };
  for (const transform_entry& e : transform_entries)
    if (squeeze(text) == squeeze(e.text)) return e.kind;
  return std::nullopt;
}

// The expression's text as the rows print it; empty for none.
inline const char* transform_text(transform_kind kind) {
  for (const transform_entry& e : transform_entries)
    if (e.kind == kind) return e.text;
  return "";
}

// f(x, i) on the host, converted to T as clscan converts the expression's value.
template <typename T> T apply_transform(transform_kind kind, T x, std::uint64_t i) {
  switch (kind) {
  case transform_kind::twice:
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(x) * U{2}));
    } else {
      return x * T(2);
    }
  case transform_kind::positive_flag: return x > T(0) ? T(1) : T(0);
  case transform_kind::even_index: return i % 2 == 0 ? x : T(0);
  case transform_kind::none: break;
  }
  return x;
}

// body(f) with f(x, i) the transform `kind` of T, chosen once: a serial loop that calls f does not
// switch per element (clscan-bench's std_us).
template <typename T, typename Body> auto with_transform(transform_kind kind, Body body) {
  switch (kind) {
  case transform_kind::twice:
    return body([](T x, std::uint64_t i) { return apply_transform(transform_kind::twice, x, i); });
  case transform_kind::positive_flag:
    return body([](T x, std::uint64_t i) { return apply_transform(transform_kind::positive_flag, x, i); });
  case transform_kind::even_index:
    return body([](T x, std::uint64_t i) { return apply_transform(transform_kind::even_index, x, i); });
  case transform_kind::none: break;
  }
  return body([](T x, std::uint64_t) { return x; });
}

// f applied to every element of `in`, each with its index.
template <typename T> std::vector<T> apply_transform(transform_kind kind, const std::vector<T>& in) {
  std::vector<T> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = apply_transform(kind, in[i], i);
  return out;
}

// --- The calls on runs ---------------------------------------------------------------------------

// "what: mismatch at j of n: expected E, got A", with T's digits.
template <typename T>
std::string run_mismatch(const char* what, std::size_t j, std::size_t n, T expected, T actual) {
  std::ostringstream s;
  s.precision(std::numeric_limits<T>::max_digits10);
  s << what << ": mismatch at " << j << " of " << n << ": expected " << +expected << ", got " << +actual;
  return s.str();
}

// Where each run of equal neighbours (==) of keys[0, n) starts.
template <typename K> std::vector<std::size_t> run_starts(const std::vector<K>& keys) {
  std::vector<std::size_t> starts;
  for (std::size_t j = 0; j < keys.size(); ++j)
    if (j == 0 || !(keys[j] == keys[j - 1])) starts.push_back(j);
  return starts;
}

// Empty when `count` is the `expected` number of runs of n elements; else what differs.
inline std::string check_count(std::uint64_t count, std::size_t expected, std::size_t n) {
  if (count == expected) return {};
  return "count " + std::to_string(count) + ", expected " + std::to_string(expected) + " of " +
         std::to_string(n);
}

// Empty when got[0, count) is, for each run of `in`, its first element (got_unique) and its length
// (got_lengths), and count is the number of runs; else the first difference.
template <typename K, typename L>
std::string check_run_length_encode(const std::vector<K>& in, std::uint64_t count,
                                    const std::vector<K>& got_unique, const std::vector<L>& got_lengths) {
  const std::vector<std::size_t> starts = run_starts(in);
  if (std::string message = check_count(count, starts.size(), in.size()); !message.empty()) return message;
  if (got_unique.size() < starts.size() || got_lengths.size() < starts.size())
    return "fewer outputs read back than runs";
  for (std::size_t j = 0; j < starts.size(); ++j) {
    const std::size_t end = j + 1 < starts.size() ? starts[j + 1] : in.size();
    if (!(got_unique[j] == in[starts[j]]))
      return run_mismatch("unique", j, in.size(), in[starts[j]], got_unique[j]);
    const L length = static_cast<L>(end - starts[j]);
    if (got_lengths[j] != length) return run_mismatch("length", j, in.size(), length, got_lengths[j]);
  }
  return {};
}

// Empty when got_keys[0, count) and got_values[0, count) are, for each run of `keys`, its first key
// and the value beside it, and count is the number of runs; else the first difference.
template <typename K, typename V>
std::string check_unique_by_key(const std::vector<K>& keys, const std::vector<V>& values, std::uint64_t count,
                                const std::vector<K>& got_keys, const std::vector<V>& got_values) {
  const std::vector<std::size_t> starts = run_starts(keys);
  if (std::string message = check_count(count, starts.size(), keys.size()); !message.empty()) return message;
  if (got_keys.size() < starts.size() || got_values.size() < starts.size())
    return "fewer outputs read back than runs";
  for (std::size_t j = 0; j < starts.size(); ++j) {
    if (!(got_keys[j] == keys[starts[j]]))
      return run_mismatch("key", j, keys.size(), keys[starts[j]], got_keys[j]);
    if (!(got_values[j] == values[starts[j]]))
      return run_mismatch("value", j, keys.size(), values[starts[j]], got_values[j]);
  }
  return {};
}

// Empty when got_keys[0, count) and got_sums[0, count) are, for each run of `keys`, its first key and
// the sum of its values, and count is the number of runs; else the first difference. Integer sums wrap
// and are exact; floating-point sums within 16 * epsilon * (sum of |x| over the run) of a long double
// sum.
template <typename K, typename V>
std::string check_reduce_by_key_sum(const std::vector<K>& keys, const std::vector<V>& values,
                                    std::uint64_t count, const std::vector<K>& got_keys,
                                    const std::vector<V>& got_sums) {
  const std::vector<std::size_t> starts = run_starts(keys);
  if (std::string message = check_count(count, starts.size(), keys.size()); !message.empty()) return message;
  if (got_keys.size() < starts.size() || got_sums.size() < starts.size())
    return "fewer outputs read back than runs";
  for (std::size_t j = 0; j < starts.size(); ++j) {
    const std::size_t end = j + 1 < starts.size() ? starts[j + 1] : keys.size();
    if (!(got_keys[j] == keys[starts[j]]))
      return run_mismatch("key", j, keys.size(), keys[starts[j]], got_keys[j]);
    if constexpr (std::is_integral_v<V>) {
      using U = std::make_unsigned_t<V>;
      U sum = 0;
      for (std::size_t i = starts[j]; i < end; ++i)
        sum = static_cast<U>(sum + static_cast<U>(values[i]));
      if (static_cast<V>(sum) != got_sums[j])
        return run_mismatch("sum", j, keys.size(), static_cast<V>(sum), got_sums[j]);
    } else {
      long double sum = 0, magnitude = 0;
      for (std::size_t i = starts[j]; i < end; ++i) {
        sum += values[i];
        magnitude += std::fabs(static_cast<long double>(values[i]));
      }
      const long double bound = 16 * static_cast<long double>(std::numeric_limits<V>::epsilon()) * magnitude;
      if (!(std::fabs(static_cast<long double>(got_sums[j]) - sum) <= bound))
        return run_mismatch("sum", j, keys.size(), static_cast<V>(sum), got_sums[j]) + " (tolerance " +
               std::to_string(static_cast<double>(bound)) + ")";
    }
  }
  return {};
}

} // namespace clscan_bench
