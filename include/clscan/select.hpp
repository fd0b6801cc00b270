// Stream compaction: keep the elements that pass a test, in order, and count them.
//
//   clscan::select_options<cl_int> opts;
//   opts.predicate = "x > 0";                                  // OpenCL C, of x and its index i
//   cl::Event e = clscan::select_if(queue, in, out, count, n, opts);
//   // out[0, k) holds the positive elements of in[0, n) in order; count[0] == k (a cl_ulong)
//
// Like the scans, every call only enqueues work on `queue`, never waits for the device, and never
// reads data back: the returned event completes when `out` and the count are written. Elements of
// `out` past the count are not written, nor any past select_options::out_capacity: `out` may be sized
// for the result, as Thrust's and Boost's outputs are, and the count still reports every selected
// element (compare it with the capacity to learn whether all of them fit). A predicate is one OpenCL C
// expression of x and i (brackets balanced; no ';', braces, '#', comment, string literal or name of clscan's
// own), compiled in a function of its own that sees only x, i, the named select_options::parameters (values
// passed as kernel arguments: new values build nothing) and OpenCL C's built-ins; other text throws
// clscan::invalid_argument whatever n is. n == 0 writes a zero count and builds nothing, so a
// predicate is compiled (and one that does not compile found) on the first call with n > 0. Bad
// arguments throw clscan::invalid_argument before anything is enqueued; a predicate that does not
// compile throws clscan::build_error with the compiler's log. Repeated calls with the same predicate
// build and allocate nothing.
//
// In place: `in` and `out` may be the same buffer at the same offset (Boost's remove_if and unique work
// so); any other overlap throws clscan::invalid_argument. A tile's selections land at or before its own
// input, where a tile that has not read its input yet may lie (work-groups run in no set order, and the
// one-pass fallback reads a silent predecessor's input again), so no order of the kernels makes writing
// over the input safe: the call copies the input first, into a temporary of clscan's per-(context,
// device) storage (n elements more device memory, kept for the next call as the other temporaries are,
// and one more read and write of the input), then selects from the copy into `out`. With out_capacity
// 0 nothing is written, and nothing copied.
#pragma once

#include <clscan/primitives.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace clscan {

template <typename T = cl_int> struct select_options {
  // An OpenCL C boolean expression of x (the element, of type T) and i (its index in the input, a
  // ulong), e.g. "x > 0" or "(i & 1) == 0 && x != 0". One expression: no statements, no comments.
  std::string predicate;
  // Named scalars the predicate and key_equal read, e.g. {{"threshold", 0.5f}} for "x > threshold"
  // (options.hpp's parameter). New values build and allocate nothing.
  std::vector<parameter> parameters;
  // unique only: an OpenCL C expression of `a` and `b`, neighbouring elements (a the one before), true
  // where b repeats a and is left out, e.g. "a / 16 == b / 16". Empty: a == b.
  std::string key_equal;
  std::size_t in_offset = 0, out_offset = 0; // elements
  std::size_t count_offset = 0;              // in cl_ulong elements of `count`
  std::size_t flags_offset = 0;              // select_flagged: in cl_uchar elements of `flags`
  // Elements `out` holds from out_offset on, when fewer than n (Thrust and Boost users size the output
  // for the result): nothing at or past out_offset + out_capacity is written, and the count still reports
  // every selected element. partition_if writes its first out_capacity elements. The buffer must hold
  // out_offset + out_capacity elements (clscan::invalid_argument otherwise). Unset: n.
  std::optional<std::size_t> out_capacity;
  // automatic: one pass (decoupled look-back) where the device qualifies for it; three_stage: count
  // the tiles, scan the counts, then write (no atomics). partition_if always runs the latter, since
  // it must know the total before it writes the unselected elements.
  clscan::algorithm algorithm = clscan::algorithm::automatic;
  std::vector<cl::Event> wait_list;
};

namespace detail {

// The scan part of a request, from select_options: what the selections and the calls on runs
// (runs.hpp) take from them alike. `opts` must outlive the request (it points into them).
template <typename T> void take_select_options(scan_request& scan, const select_options<T>& opts) {
  scan.algo = opts.algorithm;
  scan.in_offset = opts.in_offset;
  scan.out_offset = opts.out_offset;
  scan.wait_list = &opts.wait_list;
  scan.parameters = &opts.parameters;
  scan.key_equal = &opts.key_equal;
}

template <typename T> primitive_request make_select_request(primitive kind, const select_options<T>& opts) {
  static_assert(element_traits<T>::supported,
                "clscan selects cl_int, cl_uint, cl_long, cl_ulong, cl_float and cl_double");
  primitive_request r;
  r.kind = kind;
  r.scan.type = element_traits<T>::type;
  take_select_options(r.scan, opts);
  r.predicate = &opts.predicate;
  r.count_offset = opts.count_offset;
  r.flags_offset = opts.flags_offset;
  r.out_capacity = opts.out_capacity;
  return r;
}

} // namespace detail

// Stable: out[0, k) = the elements of in[0, n) for which the predicate holds, in order; k is written
// to count[count_offset] as a cl_ulong.
template <typename T = cl_int>
cl::Event select_if(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                    const cl::Buffer& count, std::size_t n, const select_options<T>& opts) {
  return detail::enqueue_primitive(queue, in, nullptr, out, &count, n,
                                   detail::make_select_request(detail::primitive::select_if, opts));
}

// Keeps in[i] where flags[flags_offset + i] != 0; flags is a buffer of cl_uchar; opts.predicate must
// be empty.
template <typename T = cl_int>
cl::Event select_flagged(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& flags,
                         const cl::Buffer& out, const cl::Buffer& count, std::size_t n,
                         const select_options<T>& opts = {}) {
  return detail::enqueue_primitive(queue, in, &flags, out, &count, n,
                                   detail::make_select_request(detail::primitive::select_flagged, opts));
}

// Stable partition: out[0, k) the selected elements in order, out[k, n) the others in order; count = k.
template <typename T = cl_int>
cl::Event partition_if(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                       const cl::Buffer& count, std::size_t n, const select_options<T>& opts) {
  return detail::enqueue_primitive(queue, in, nullptr, out, &count, n,
                                   detail::make_select_request(detail::primitive::partition_if, opts));
}

// Keeps the first element of every run of equal consecutive elements (compared with ==, so every NaN
// is kept, or with opts.key_equal); count = the number kept. opts.predicate must be empty.
template <typename T = cl_int>
cl::Event unique(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                 const cl::Buffer& count, std::size_t n, const select_options<T>& opts = {}) {
  return detail::enqueue_primitive(queue, in, nullptr, out, &count, n,
                                   detail::make_select_request(detail::primitive::unique, opts));
}

} // namespace clscan
