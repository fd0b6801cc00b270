// Options of a scan call: which algorithm, which operator, an initial value, offsets and events to
// wait for. One small struct instead of a growing list of overloads.
#pragma once

#include <clscan/config.hpp>
#include <clscan/types.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace clscan {

// Which scan algorithm runs. `automatic` lets dispatch choose per device and size.
enum class algorithm {
  automatic,
  // One pass over the data: tiles are claimed through a global counter and chained by decoupled
  // look-back. Needs cl_khr_int64_base_atomics or cl_khr_global_int32_base_atomics.
  single_pass,
  // Scan tiles, scan the tile totals recursively, add the totals back. Runs on any device and gives
  // the same bits run to run for floating-point types.
  three_stage,
};

// The associative operator a scan combines elements with.
enum class op {
  sum,     // a + b; integer sums wrap around (two's complement)
  min,     // min(a, b)
  max,     // max(a, b)
  bit_and, // a & b (integer types only)
  bit_or,  // a | b (integer types only)
  bit_xor, // a ^ b (integer types only)
  custom,  // options::custom_op, an OpenCL C expression in `a` and `b`
};

// An element of a device buffer: a value the device computes, used without reading it back.
struct device_value {
  cl::Buffer buffer;
  std::size_t offset = 0; // in elements of the call's type
};

// A named scalar that the call's expressions read (options::parameters, select_options::parameters):
// {"threshold", 0.5f} makes `threshold`, a float, a name in custom_op, predicate and key_equal. The
// values are the kernels' arguments, never the program's text: a call that changes only the values
// builds and allocates nothing, and the program cache keys on the names and types alone. A name is an
// identifier of at most 64 characters, not x, i, a or b, not a keyword, type or macro of OpenCL C, not
// starting with clscan or CLSCAN (clscan's own names), and given once per call;
// cl_double values need a device with fp64. clscan::invalid_argument names the problem otherwise.
struct parameter {
  std::string name;
  std::variant<cl_int, cl_uint, cl_long, cl_ulong, cl_float, cl_double> value;
};

// Most parameters one call takes.
constexpr std::size_t max_parameters = 8;

template <typename T = cl_int> struct options {
  clscan::algorithm algorithm = clscan::algorithm::automatic;
  clscan::op operation = clscan::op::sum;

  // With op::custom: an OpenCL C expression of `a` and `b` (both of the element type) that combines
  // them associatively, e.g. "a * b" or "(a > b) ? a : b", and its identity element. One expression:
  // brackets balanced, no ';', braces, '#', comment, string literal or name of clscan's own
  // (clscan::invalid_argument otherwise); it sees only a, b and OpenCL C's built-ins.
  std::string custom_op;
  T custom_identity{};

  // Scans and reduce: an OpenCL C expression of `x` (an input element, of type T or transform_input)
  // and `i` (its index in the input, a ulong), applied to each element as it is read, so that the call
  // scans or reduces f(x) without writing it to memory first, e.g. "x * x" or "x > threshold ? 1 : 0".
  // The result is converted to T. It applies to the input only, never to `initial`; in place, the
  // buffer receives the scan of the transformed values. The same rules as custom_op's; the calls by key
  // refuse it.
  std::string transform;

  // With a transform only: the type of the input's elements, when it is not T, e.g. element_type::float32
  // for a cl_uint count of positive floats ("x > 0.0f ? 1 : 0"), or element_type::int32 for cl_long sums
  // of cl_int data. `x` then has this type; the transform's result, the output, initial, custom_op and
  // the scan itself stay of T. in_offset and the input buffer's size count elements of this type. A
  // scan cannot write its output over an input of another type: the same buffer may hold both only in
  // ranges apart (reduce may write its total into the input's buffer, as it may without a type of the
  // input's own). cl_double needs fp64. clscan::invalid_argument without a transform, and from the calls
  // by key, which take no transform.
  std::optional<element_type> transform_input;

  // Named scalars the expressions (custom_op, key_equal, transform) read, at most max_parameters (see
  // parameter).
  std::vector<parameter> parameters;

  // inclusive_by_key and exclusive_by_key only: an OpenCL C expression of `a` and `b`, two neighbouring
  // keys (a the one before), true where b continues a's segment, e.g. "a / 16 == b / 16". Empty: ==.
  // The same rules as custom_op's; the scans refuse it.
  std::string key_equal;

  // An exclusive scan starts from this value (out[0] == initial); an inclusive scan combines it in
  // front of the first element. Unset: the operator's identity.
  std::optional<T> initial;

  // As `initial`, but read on the device when the call runs, from a buffer of the call's element type
  // in the queue's context: chains a call onto a value computed on the device (another call's total,
  // clscan::reduce) without reading it back. Put the event that writes it in `wait_list`. Set at most
  // one of `initial` and `initial_on_device`.
  std::optional<device_value> initial_on_device;

  // Floating-point scans may round differently from run to run with the default single-pass scan,
  // whose order of combination depends on scheduling. `deterministic` makes every algorithm combine
  // in an order fixed by the device and n, so the result is the same bits every run on the same
  // device (the single-pass scan then combines its tiles' totals along a fixed tree over the tiles
  // rather than combining whatever it finds first; scans by key alike).
  // Integer scans are exact in any order, so for them it changes nothing.
  bool deterministic = false;

  // Element offsets into the input and output buffers (in_offset in elements of transform_input where it
  // is set).
  std::size_t in_offset = 0;
  std::size_t out_offset = 0;

  // Events the scan waits for before it reads its input.
  std::vector<cl::Event> wait_list;
};

} // namespace clscan
