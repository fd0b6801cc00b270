// Segmented scans: a segment is a maximal run of equal consecutive keys (compared with ==, or with
// options::key_equal, e.g. "a / 16 == b / 16"), and each segment is scanned on its own.
//
//   cl::Event e = clscan::inclusive_by_key(queue, keys, values, out, n);   // per-segment sums
//
// inclusive: out[i] = in[s] op ... op in[i], where s starts i's segment; exclusive: out[s] = the
// identity, then the running value. With options::initial, every segment starts from it: inclusive
// out[i] = initial op in[s] op ... op in[i], exclusive out[s] = initial. The other options are those of
// the scans (operator, custom operator, parameters, deterministic, algorithm, wait list); in_offset applies
// to the keys and the input alike, out_offset to the output. in == out (the same buffer and offset) scans in
// place. The contracts of the scans hold: the call only enqueues, bad arguments throw before anything
// is enqueued, repeated calls build and allocate nothing.
#pragma once

#include <clscan/primitives.hpp>

#include <cstddef>

namespace clscan {

namespace detail {

template <typename K, typename T>
primitive_request make_by_key_request(primitive kind, const options<T>& opts) {
  static_assert(element_traits<K>::supported,
                "clscan keys are cl_int, cl_uint, cl_long, cl_ulong, cl_float or cl_double");
  primitive_request r;
  r.kind = kind;
  r.scan =
      make_request(kind == primitive::inclusive_by_key ? scan_kind::inclusive : scan_kind::exclusive, opts);
  r.key_type = element_traits<K>::type;
  return r;
}

} // namespace detail

template <typename K = cl_int, typename T = cl_int>
cl::Event inclusive_by_key(const cl::CommandQueue& queue, const cl::Buffer& keys, const cl::Buffer& in,
                           const cl::Buffer& out, std::size_t n, const options<T>& opts = {}) {
  return detail::enqueue_primitive(queue, in, &keys, out, nullptr, n,
                                   detail::make_by_key_request<K>(detail::primitive::inclusive_by_key, opts));
}

template <typename K = cl_int, typename T = cl_int>
cl::Event exclusive_by_key(const cl::CommandQueue& queue, const cl::Buffer& keys, const cl::Buffer& in,
                           const cl::Buffer& out, std::size_t n, const options<T>& opts = {}) {
  return detail::enqueue_primitive(queue, in, &keys, out, nullptr, n,
                                   detail::make_by_key_request<K>(detail::primitive::exclusive_by_key, opts));
}

} // namespace clscan
