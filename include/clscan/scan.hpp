// The scan calls.
//
//   cl::Event e = clscan::inclusive(queue, buf, n);          // in place, cl_int elements
//   cl::Event e = clscan::exclusive(queue, in, out, n);      // out of place, `in` untouched
//   cl::Event e = clscan::inclusive<cl_long>(queue, buf, n); // other element types
//
// Every call only enqueues work on `queue`: it never waits for the device and never reads data back.
// The returned event completes when the result is in the output buffer. n == 0 enqueues nothing but a
// marker. Elements past n (and outside the offsets) are never read or written. Bad arguments throw
// clscan::invalid_argument before anything is enqueued.
//
// In-order and out-of-order queues both work; clscan orders its own commands with events. Temporary
// storage is kept per context and device and reused: a repeat call with the same or a smaller n
// allocates nothing and builds nothing. A call takes a set of temporaries that no pending command of
// another scan can still use (its in-order queue's own set, a finished one, else a new one), so a scan
// waits for nothing but `wait_list` and what its in-order queue orders before it, never for another
// queue's scans or the events they wait for; beyond four sets, finished ones are given back. A
// scan whose wait list fails reports it through its event and leaves later scans unaffected. Buffers
// may be sub-buffers or CL_MEM_USE_HOST_PTR buffers at any element-aligned address; input and output
// that are different handles over overlapping memory are rejected (pass one buffer to scan in place).
#pragma once

#include <clscan/config.hpp>
#include <clscan/options.hpp>
#include <clscan/types.hpp>

#include <cstddef>

namespace clscan {

enum class scan_kind { inclusive, exclusive };

namespace detail {

// A scan call with its element type erased; built by the templates below.
struct scan_request {
  scan_kind kind = scan_kind::inclusive;
  element_type type = element_type::int32;
  algorithm algo = algorithm::automatic;
  op operation = op::sum;
  const std::string* custom_op = nullptr;
  element_value custom_identity;
  const std::vector<parameter>* parameters = nullptr; // options::parameters
  const std::string* key_equal = nullptr;             // options::key_equal (calls by key, unique)
  const std::string* transform = nullptr;             // options::transform (scans, reduce)
  std::optional<element_type> transform_input;        // options::transform_input
  bool has_initial = false;
  element_value initial;
  // options::initial_on_device: set or not, its buffer and the element offset in it.
  bool has_initial_buffer = false;
  cl_mem initial_buffer = nullptr;
  std::size_t initial_buffer_offset = 0;
  bool deterministic = false;
  std::size_t in_offset = 0;
  std::size_t out_offset = 0;
  const std::vector<cl::Event>* wait_list = nullptr;
};

cl::Event enqueue_scan(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                       std::size_t n, const scan_request& request);

template <typename T> scan_request make_request(scan_kind kind, const options<T>& opts) {
  static_assert(element_traits<T>::supported,
                "clscan scans cl_int, cl_uint, cl_long, cl_ulong, cl_float and cl_double");
  scan_request r;
  r.kind = kind;
  r.type = element_traits<T>::type;
  r.algo = opts.algorithm;
  r.operation = opts.operation;
  r.custom_op = &opts.custom_op;
  r.custom_identity = element_value::of(opts.custom_identity);
  r.parameters = &opts.parameters;
  r.key_equal = &opts.key_equal;
  r.transform = &opts.transform;
  r.transform_input = opts.transform_input;
  r.has_initial = opts.initial.has_value();
  if (opts.initial) r.initial = element_value::of(*opts.initial);
  if (opts.initial_on_device) {
    r.has_initial_buffer = true;
    r.initial_buffer = opts.initial_on_device->buffer();
    r.initial_buffer_offset = opts.initial_on_device->offset;
  }
  r.deterministic = opts.deterministic;
  r.in_offset = opts.in_offset;
  r.out_offset = opts.out_offset;
  r.wait_list = &opts.wait_list;
  return r;
}

} // namespace detail

// In place: data[i] = data[0] op ... op data[i].
template <typename T = cl_int>
cl::Event inclusive(const cl::CommandQueue& queue, const cl::Buffer& data, std::size_t n,
                    const options<T>& opts = {}) {
  return detail::enqueue_scan(queue, data, data, n, detail::make_request(scan_kind::inclusive, opts));
}

// Out of place: out[i] = in[0] op ... op in[i]; `in` is not modified.
template <typename T = cl_int>
cl::Event inclusive(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                    const options<T>& opts = {}) {
  return detail::enqueue_scan(queue, in, out, n, detail::make_request(scan_kind::inclusive, opts));
}

// In place: data[0] = initial (the identity by default), data[i] = initial op data[0] op ... op data[i-1].
template <typename T = cl_int>
cl::Event exclusive(const cl::CommandQueue& queue, const cl::Buffer& data, std::size_t n,
                    const options<T>& opts = {}) {
  return detail::enqueue_scan(queue, data, data, n, detail::make_request(scan_kind::exclusive, opts));
}

// Out of place exclusive scan; `in` is not modified.
template <typename T = cl_int>
cl::Event exclusive(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                    const options<T>& opts = {}) {
  return detail::enqueue_scan(queue, in, out, n, detail::make_request(scan_kind::exclusive, opts));
}

} // namespace clscan
