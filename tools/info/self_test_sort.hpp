// clscan-info --self-test of the sorts: clscan::sort (out of place ascending, in place descending),
// sort_by_key (every value type once) and sorted_order (cl_uint indices, and cl_ulong ones for one key
// type) of keys of every type (double too: no fp64 needed), at 1, 1000 and 100003 keys holding -0.0, +0.0,
// infinities, NaNs, denormals and equal keys, compared bit for bit with std::stable_sort in numpy's order
// (tools/common/sort_reference.hpp). Outputs lie between poisoned guards and inputs must come back
// unchanged, as in self_test_primitives.hpp, whose helpers these checks use. Included by self_test.cpp
// only.
#pragma once

#include "self_test_primitives.hpp"

#include "common/sort_reference.hpp"

#include <clscan/clscan.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace clscan_info::sort_self_test {

using primitive_self_test::report;

namespace detail {

using namespace primitive_self_test::detail;

constexpr std::size_t sizes[] = {1, 1000, 100003};

template <typename T> std::vector<T> guarded(const std::vector<T>& data) {
  std::vector<T> image(guard, poison<T>());
  image.insert(image.end(), data.begin(), data.end());
  image.resize(image.size() + guard, poison<T>());
  return image;
}

template <typename T>
std::vector<T> permuted(const std::vector<T>& in, const std::vector<std::size_t>& order) {
  std::vector<T> out(order.size());
  for (std::size_t j = 0; j < order.size(); ++j)
    out[j] = in[order[j]];
  return out;
}

// clscan::sort of `keys`: out of place from offset 0 into offset `guard`, or in place at offset
// `guard`.
template <typename K>
std::string check_sort(const device_context& dc, const std::vector<K>& keys, clscan::algorithm algo,
                       bool descending, bool in_place) {
  const std::size_t n = keys.size();
  const std::vector<K> expected = permuted(keys, clscan_reference::stable_order(keys, descending));
  clscan::sort_options<K> opts;
  opts.algorithm = algo;
  opts.descending = descending;
  opts.keys_out_offset = guard;
  opts.keys_in_offset = in_place ? guard : 0;
  const cl::Buffer in = upload(dc, in_place ? guarded(keys) : keys);
  const cl::Buffer out = in_place ? in : upload(dc, std::vector<K>(guard + n + guard, poison<K>()));
  const cl::Event done =
      in_place ? clscan::sort<K>(dc.queue, in, n, opts) : clscan::sort<K>(dc.queue, in, out, n, opts);
  clscan_tools::check(done.wait(), "clWaitForEvents");
  std::string problem = compare_output(download<K>(dc, out, guard + n + guard), guard, expected);
  if (problem.empty() && !in_place && !same_bits(download<K>(dc, in, n), keys))
    problem = "the keys were modified";
  return problem;
}

// clscan::sort_by_key of `keys` and `values`, out of place: inputs at offset 1, outputs at `guard`.
template <typename K, typename V>
std::string check_sort_by_key(const device_context& dc, const std::vector<K>& keys,
                              const std::vector<V>& values, clscan::algorithm algo) {
  const std::size_t n = keys.size();
  const std::vector<std::size_t> order = clscan_reference::stable_order(keys);
  clscan::sort_options<K> opts;
  opts.algorithm = algo;
  opts.keys_in_offset = opts.values_in_offset = 1;
  opts.keys_out_offset = opts.values_out_offset = guard;
  std::vector<K> key_image(1, poison<K>());
  key_image.insert(key_image.end(), keys.begin(), keys.end());
  std::vector<V> value_image(1, poison<V>());
  value_image.insert(value_image.end(), values.begin(), values.end());
  const cl::Buffer keys_in = upload(dc, key_image), values_in = upload(dc, value_image);
  const cl::Buffer keys_out = upload(dc, std::vector<K>(guard + n + guard, poison<K>()));
  const cl::Buffer values_out = upload(dc, std::vector<V>(guard + n + guard, poison<V>()));
  clscan_tools::check(
      clscan::sort_by_key<K, V>(dc.queue, keys_in, values_in, keys_out, values_out, n, opts).wait(),
      "clWaitForEvents");
  std::string problem =
      compare_output(download<K>(dc, keys_out, guard + n + guard), guard, permuted(keys, order));
  if (problem.empty())
    problem = compare_output(download<V>(dc, values_out, guard + n + guard), guard, permuted(values, order));
  if (problem.empty() && (!same_bits(download<K>(dc, keys_in, n + 1), key_image) ||
                          !same_bits(download<V>(dc, values_in, n + 1), value_image)))
    problem = "the inputs were modified";
  return problem;
}

// clscan::sorted_order of `keys` into indices of I at offset `guard`.
template <typename K, typename I>
std::string check_sorted_order(const device_context& dc, const std::vector<K>& keys, clscan::algorithm algo,
                               bool descending) {
  const std::size_t n = keys.size();
  const std::vector<std::size_t> order = clscan_reference::stable_order(keys, descending);
  const std::vector<I> expected(order.begin(), order.end());
  clscan::sort_options<K> opts;
  opts.algorithm = algo;
  opts.descending = descending;
  opts.values_out_offset = guard;
  const cl::Buffer in = upload(dc, keys);
  const cl::Buffer indices = upload(dc, std::vector<I>(guard + n + guard, poison<I>()));
  clscan_tools::check(clscan::sorted_order<K, I>(dc.queue, in, indices, n, opts).wait(), "clWaitForEvents");
  std::string problem = compare_output(download<I>(dc, indices, guard + n + guard), guard, expected);
  if (problem.empty() && !same_bits(download<K>(dc, in, n), keys)) problem = "the keys were modified";
  return problem;
}

template <typename V> std::vector<V> sort_values(std::size_t n) {
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = static_cast<V>(i + 1); // distinct, so a value out of place shows
  return values;
}

template <typename K, typename V, typename I>
void check_sorts(const clscan::device_capabilities& caps, const device_context& dc, clscan::algorithm algo,
                 report& r) {
  for (const std::size_t n : sizes) {
    if (n * sizeof(K) * 2 > caps.max_mem_alloc_size) continue;
    clscan_reference::splitmix64 random{0x5027'0000ull ^ (n * 0x9E3779B97F4A7C15ull) ^
                                        static_cast<std::uint64_t>(clscan::element_traits<K>::type)};
    const std::vector<K> keys =
        clscan_reference::make_sort_keys<K>(n, clscan_reference::key_pattern::mixed, random);
    const std::vector<K> few =
        clscan_reference::make_sort_keys<K>(n, clscan_reference::key_pattern::few, random);
    const std::string of = std::string(" (") + type_name<K>() + " keys), n = " + std::to_string(n);
    run_check(r, "sort" + of + " out of place", [&] { return check_sort(dc, keys, algo, false, false); });
    run_check(r, "sort" + of + " in place, descending, 7 distinct keys",
              [&] { return check_sort(dc, few, algo, true, true); });
    run_check(r, std::string("sort_by_key") + of + ", values " + type_name<V>(),
              [&] { return check_sort_by_key<K, V>(dc, keys, sort_values<V>(n), algo); });
    run_check(r, std::string("sorted_order") + of + ", indices " + type_name<I>() + ", descending",
              [&] { return check_sorted_order<K, I>(dc, keys, algo, true); });
  }
}

} // namespace detail

namespace detail {

inline void check_every_type(const clscan::device_capabilities& caps, const device_context& dc,
                             clscan::algorithm algo, report& r) {
  check_sorts<cl_int, cl_uint, cl_uint>(caps, dc, algo, r);
  check_sorts<cl_uint, cl_int, cl_uint>(caps, dc, algo, r);
  check_sorts<cl_long, cl_ulong, cl_ulong>(caps, dc, algo, r);
  check_sorts<cl_ulong, cl_long, cl_uint>(caps, dc, algo, r);
  check_sorts<cl_float, cl_float, cl_uint>(caps, dc, algo, r);
  check_sorts<cl_double, cl_double, cl_uint>(caps, dc, algo, r); // bits only: no fp64 needed
}

} // namespace detail

// The sorts on `algo` for every key type (cl_double too: keys and values move as their bits, with no
// fp64); each value type
// is moved once. Exceptions propagate, with r.running naming the check, but for a single_pass sort that
// the device refuses (unsupported_error, as where it has no single-pass verdict): that is reported as
// skipped with the library's reason, and the checks before it stand.
inline void run(const clscan::device_capabilities& caps, const cl::Context& context,
                const cl::CommandQueue& queue, clscan::algorithm algo, report& r) {
  const detail::device_context dc{context, queue};
  if (algo != clscan::algorithm::single_pass) {
    detail::check_every_type(caps, dc, algo, r);
    return;
  }
  try {
    detail::check_every_type(caps, dc, algo, r);
  } catch (const clscan::unsupported_error& e) {
    r.skipped.push_back(std::string("sorts on single_pass: ") + e.what());
    r.running.clear();
  }
}

} // namespace clscan_info::sort_self_test
