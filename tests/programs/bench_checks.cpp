// The host checks of clscan-bench and cub_bench (tools/bench/run_checks.hpp) reject wrong results: each
// accepts the reference's own output, then rejects it with one element, one length or the count changed,
// and the transforms compute what the devices compute. No device: the benchmarks' rows show that
// correct results pass; this shows that a wrong one would not. Exit status 1 on the first surprise.
#include "bench/inputs.hpp"
#include "bench/run_checks.hpp"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace clscan_bench;

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "bench-checks: %s\n", what.c_str());
  ++failures;
}

void expect_pass(const std::string& message, const char* what) {
  expect(message.empty(), std::string(what) + ": the right result was rejected: " + message);
}

void expect_fail(const std::string& message, const char* what, const char* mentions) {
  expect(!message.empty(), std::string(what) + ": a wrong result was accepted");
  expect(message.find(mentions) != std::string::npos,
         std::string(what) + ": the message does not say '" + mentions + "': " + message);
}

// A value that differs from x (x + 1 could overflow a signed integer).
template <typename T> T differ(T x) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(x ^ T(1));
  else
    return x + T(1); // the inputs lie in [-1, 1) or below 2^20: exact, and not x
}

// The reference outputs of run_length_encode, computed here independently of the check.
template <typename T> void run_length_encode_cases(std::size_t n) {
  std::vector<T> in(n);
  fill_segment_runs(in, keys_seed(n, 0));
  std::vector<T> unique;
  std::vector<std::uint32_t> lengths;
  for (std::size_t i = 0; i < n; ++i)
    if (i == 0 || in[i] != in[i - 1]) {
      unique.push_back(in[i]);
      lengths.push_back(1);
    } else {
      ++lengths.back();
    }
  const std::uint64_t runs = unique.size();
  expect(runs > 2, "run_length_encode: too few runs to test with");
  expect_pass(check_run_length_encode(in, runs, unique, lengths), "run_length_encode");

  std::vector<T> bad_unique = unique;
  bad_unique[runs / 2] = differ(bad_unique[runs / 2]);
  expect_fail(check_run_length_encode(in, runs, bad_unique, lengths), "run_length_encode key",
              "unique: mismatch");
  std::vector<std::uint32_t> bad_lengths = lengths;
  ++bad_lengths.back();
  expect_fail(check_run_length_encode(in, runs, unique, bad_lengths), "run_length_encode length",
              "length: mismatch");
  expect_fail(check_run_length_encode(in, runs - 1, unique, lengths), "run_length_encode count", "count");
  expect_fail(check_run_length_encode(in, runs + 1, unique, lengths), "run_length_encode count", "count");
}

template <typename V> void by_key_cases(std::size_t n) {
  std::vector<std::int32_t> keys(n);
  fill_segment_keys(keys, keys_seed(n, 0));
  std::vector<V> values(n);
  fill_random(values, values_seed(n, 0));
  std::vector<std::int32_t> unique_keys;
  std::vector<V> firsts, sums;
  std::vector<long double> exact; // floating-point sums, rounded to V once at the end
  for (std::size_t i = 0; i < n; ++i)
    if (i == 0 || keys[i] != keys[i - 1]) {
      unique_keys.push_back(keys[i]);
      firsts.push_back(values[i]);
      sums.push_back(values[i]);
      exact.push_back(values[i]);
    } else if constexpr (std::is_integral_v<V>) {
      using U = std::make_unsigned_t<V>;
      sums.back() = static_cast<V>(static_cast<U>(static_cast<U>(sums.back()) + static_cast<U>(values[i])));
    } else {
      exact.back() += values[i];
      sums.back() = static_cast<V>(exact.back());
    }
  const std::uint64_t runs = unique_keys.size();
  expect_pass(check_unique_by_key(keys, values, runs, unique_keys, firsts), "unique_by_key");
  std::vector<std::int32_t> bad_keys = unique_keys;
  bad_keys[0] += 1;
  expect_fail(check_unique_by_key(keys, values, runs, bad_keys, firsts), "unique_by_key key",
              "key: mismatch");
  std::vector<V> bad_values = firsts;
  bad_values.back() = differ(bad_values.back());
  expect_fail(check_unique_by_key(keys, values, runs, unique_keys, bad_values), "unique_by_key value",
              "value: mismatch");
  expect_fail(check_unique_by_key(keys, values, runs - 1, unique_keys, firsts), "unique_by_key count",
              "count");

  // Sums: exact for integers; floating-point ones off by 1, far beyond the bound, fail.
  expect_pass(check_reduce_by_key_sum(keys, values, runs, unique_keys, sums), "reduce_by_key");
  std::vector<V> bad_sums = sums;
  bad_sums[runs / 2] = differ(bad_sums[runs / 2]);
  expect_fail(check_reduce_by_key_sum(keys, values, runs, unique_keys, bad_sums), "reduce_by_key sum",
              "sum: mismatch");
  expect_fail(check_reduce_by_key_sum(keys, values, runs, bad_keys, sums), "reduce_by_key key",
              "key: mismatch");
}

void transform_cases() {
  // The names, blanks ignored; unknown expressions refused.
  expect(parse_transform("x*2") == transform_kind::twice, "'x*2' is not x * 2");
  expect(parse_transform(" x > 0 ? 1 : 0") == transform_kind::positive_flag, "' x > 0 ? 1 : 0' not read");
  expect(parse_transform("i%2==0?x:0") == transform_kind::even_index, "'i%2==0?x:0' not read");
  expect(!parse_transform("x * 3"), "'x * 3' accepted");
  expect(!parse_transform(""), "'' accepted");
  // Integer products wrap as the devices' do; the others as written.
  const std::int32_t big = std::numeric_limits<std::int32_t>::max();
  expect(apply_transform(transform_kind::twice, big, 0) == -2, "x * 2 of INT_MAX is not -2");
  expect(apply_transform(transform_kind::twice, std::uint64_t{1} << 63, 0) == 0,
         "x * 2 of 2^63 (ulong) is not 0");
  expect(apply_transform(transform_kind::twice, -0.75f, 0) == -1.5f, "x * 2 of -0.75f");
  expect(apply_transform(transform_kind::positive_flag, -3.0, 0) == 0.0, "x > 0 ? 1 : 0 of -3.0");
  expect(apply_transform(transform_kind::positive_flag, 7u, 0) == 1u, "x > 0 ? 1 : 0 of 7u");
  expect(apply_transform(transform_kind::even_index, 5, 2) == 5, "i % 2 == 0 ? x : 0 at i = 2");
  expect(apply_transform(transform_kind::even_index, 5, 3) == 0, "i % 2 == 0 ? x : 0 at i = 3");
  const std::vector<float> in = {1.5f, -2.0f, 3.0f};
  const std::vector<float> out = apply_transform(transform_kind::even_index, in);
  expect(out == std::vector<float>({1.5f, 0.0f, 3.0f}), "i % 2 == 0 ? x : 0 over a vector");
}

} // namespace

int main() {
  for (std::size_t n : {std::size_t{5000}, std::size_t{100003}}) {
    run_length_encode_cases<std::int32_t>(n);
    run_length_encode_cases<float>(n);
    run_length_encode_cases<std::uint64_t>(n);
    run_length_encode_cases<double>(n);
    by_key_cases<std::int32_t>(n);
    by_key_cases<std::uint64_t>(n);
    by_key_cases<float>(n);
    by_key_cases<double>(n);
  }
  transform_cases();
  if (failures) {
    std::fprintf(stderr, "bench-checks: %d failed\n", failures);
    return 1;
  }
  std::printf("bench-checks: passed\n");
  return 0;
}
