// clscan._native: the compiled half of the clscan Python package (python/src/clscan/__init__.py checks the
// PyOpenCL arrays and calls it). OpenCL objects arrive as the integers PyOpenCL's `int_ptr` gives; they
// are wrapped with a reference of their own, so PyOpenCL's references stay PyOpenCL's. A call runs
// with the GIL released (its first call on a device may build kernels for seconds). clscan's
// exceptions become the classes of clscan._errors, their details attributes.
#include <clscan/clscan.hpp>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

// What a scan call (plain or by key) needs besides its buffers, as the Python layer hands it over.
struct scan_arguments {
  clscan::algorithm algorithm = clscan::algorithm::automatic;
  clscan::op operation = clscan::op::sum;
  std::string custom_op;
  py::object custom_identity; // None, or a Python int / float that fits the element type
  py::object initial;         // the same
  bool deterministic = false;
  std::size_t in_offset = 0;
  std::size_t out_offset = 0;
  std::vector<cl::Event> wait_list;
  std::vector<clscan::parameter> parameters;
  std::string key_equal;
  std::string transform;
  std::optional<clscan::element_type> transform_input; // the input's type, where it is not T
};

// Named parameters as the Python layer hands them over: (name, OpenCL C type, value), the value checked
// to fit the type.
using python_parameters = std::vector<std::tuple<std::string, std::string, py::object>>;

// Reads the Python values, so it runs with the GIL held. Field by field, as the C++ headers fill their
// requests from options: scan_arguments is what Python hands over before T is known, so no one struct
// serves both.
template <typename T> clscan::options<T> options_from(const scan_arguments& args) {
  clscan::options<T> opts;
  opts.algorithm = args.algorithm;
  opts.operation = args.operation;
  opts.custom_op = args.custom_op;
  // The Python layer has checked that these are numbers in T's range.
  if (!args.custom_identity.is_none()) opts.custom_identity = args.custom_identity.cast<T>();
  if (!args.initial.is_none()) opts.initial = args.initial.cast<T>();
  opts.deterministic = args.deterministic;
  opts.in_offset = args.in_offset;
  opts.out_offset = args.out_offset;
  opts.wait_list = args.wait_list;
  opts.parameters = args.parameters;
  opts.key_equal = args.key_equal;
  opts.transform = args.transform;
  opts.transform_input = args.transform_input;
  return opts;
}

template <typename T> struct type_tag { using type = T; };

// Calls f(type_tag<T>{}) for the OpenCL C type `element`.
template <typename F> decltype(auto) with_element_type(clscan::element_type element, F&& f) {
  switch (element) {
  case clscan::element_type::int32: return f(type_tag<cl_int>{});
  case clscan::element_type::uint32: return f(type_tag<cl_uint>{});
  case clscan::element_type::int64: return f(type_tag<cl_long>{});
  case clscan::element_type::uint64: return f(type_tag<cl_ulong>{});
  case clscan::element_type::float32: return f(type_tag<cl_float>{});
  case clscan::element_type::float64: return f(type_tag<cl_double>{});
  }
  throw clscan::invalid_argument("clscan: unknown element type");
}

template <typename Value>
Value parse_or_throw(std::optional<Value> value, const char* what, const std::string& name,
                     const char* choices) {
  if (!value)
    throw clscan::invalid_argument("clscan: unknown " + std::string(what) + " '" + name + "' (" + choices +
                                   ")");
  return *value;
}

clscan::element_type parse_element_type(const std::string& type) {
  return parse_or_throw(clscan::parse_element_type(type), "element type", type,
                        "int, uint, long, ulong, float or double");
}

clscan::algorithm parse_algorithm(const std::string& algorithm) {
  return parse_or_throw(clscan::parse_algorithm(algorithm), "algorithm", algorithm,
                        "automatic, single_pass or three_stage");
}

// Reads the Python values, so it runs with the GIL held.
std::vector<clscan::parameter> parameters_of(const python_parameters& given) {
  std::vector<clscan::parameter> parameters;
  for (const auto& [name, type, value] : given) {
    clscan::parameter& made = parameters.emplace_back();
    made.name = name;
    with_element_type(parse_element_type(type), [&](auto tag) {
      using T = typename decltype(tag)::type;
      made.value = value.cast<T>();
    });
  }
  return parameters;
}

std::vector<cl::Event> events_of(const std::vector<std::uintptr_t>& handles) {
  std::vector<cl::Event> events;
  events.reserve(handles.size());
  for (const std::uintptr_t event : handles)
    events.emplace_back(reinterpret_cast<cl_event>(event), /*retainObject=*/true);
  return events;
}

// A cl_mem handle from Python, with a reference of its own; 0 gives a null cl::Buffer.
cl::Buffer buffer_of(std::uintptr_t handle) {
  if (handle == 0) return cl::Buffer();
  return cl::Buffer(reinterpret_cast<cl_mem>(handle), /*retainObject=*/true);
}

// The event's handle with a reference that the caller owns (pyopencl.Event.from_int_ptr(...,
// retain=False) takes it over).
std::uintptr_t owned_handle(const cl::Event& done) {
  const cl_event event = done.get();
  const cl_int status = clRetainEvent(event);
  if (status != CL_SUCCESS) throw clscan::opencl_error(status, "clRetainEvent");
  return reinterpret_cast<std::uintptr_t>(event);
}

scan_arguments scan_arguments_from(std::size_t in_offset, std::size_t out_offset, const std::string& op,
                                   const std::string& custom_op, py::object custom_identity,
                                   py::object initial, bool deterministic, const std::string& algorithm,
                                   const std::vector<std::uintptr_t>& wait_for,
                                   const python_parameters& parameters, const std::string& key_equal,
                                   const std::string& transform, const std::string& input_type = "") {
  scan_arguments args;
  args.parameters = parameters_of(parameters);
  args.key_equal = key_equal;
  args.transform = transform;
  if (!input_type.empty()) args.transform_input = parse_element_type(input_type);
  args.algorithm = parse_algorithm(algorithm);
  args.operation =
      parse_or_throw(clscan::parse_op(op), "op", op, "sum, min, max, bit_and, bit_or, bit_xor or custom");
  args.custom_op = custom_op;
  args.custom_identity = std::move(custom_identity);
  args.initial = std::move(initial);
  args.deterministic = deterministic;
  args.in_offset = in_offset;
  args.out_offset = out_offset;
  args.wait_list = events_of(wait_for);
  return args;
}

// Each call below turns its handles into objects and dispatches on its types in the same few lines,
// written out per call so that each reads as the signature pybind11 binds (and m.def registers each so).
//
// The calls behind clscan.inclusive, exclusive, inclusive_by_key and exclusive_by_key (`by_key`): keys
// of OpenCL C type `key_type` at the input's offset in their own buffer. Returns the scan's event
// (owned_handle).
std::uintptr_t run_scan(bool by_key, const std::string& kind, const std::string& key_type,
                        const std::string& type, std::uintptr_t queue_ptr, std::uintptr_t keys_ptr,
                        std::uintptr_t in_ptr, std::size_t in_offset, std::uintptr_t out_ptr,
                        std::size_t out_offset, std::size_t n, const std::string& op,
                        const std::string& custom_op, py::object custom_identity, py::object initial,
                        bool deterministic, const std::string& algorithm,
                        const std::vector<std::uintptr_t>& wait_for, const python_parameters& parameters,
                        const std::string& key_equal, const std::string& transform,
                        const std::string& input_type) {
  const clscan::scan_kind scan_kind =
      parse_or_throw(clscan::parse_scan_kind(kind), "scan kind", kind, "inclusive or exclusive");
  const bool inclusive = scan_kind == clscan::scan_kind::inclusive;
  const scan_arguments args = scan_arguments_from(
      in_offset, out_offset, op, custom_op, std::move(custom_identity), std::move(initial), deterministic,
      algorithm, wait_for, parameters, key_equal, transform, input_type);
  const cl::CommandQueue queue(reinterpret_cast<cl_command_queue>(queue_ptr), /*retainObject=*/true);
  const cl::Buffer keys = buffer_of(keys_ptr);
  const cl::Buffer in = buffer_of(in_ptr);
  const cl::Buffer out = buffer_of(out_ptr);
  const cl::Event done = with_element_type(parse_element_type(type), [&](auto value_tag) {
    using T = typename decltype(value_tag)::type;
    const clscan::options<T> opts = options_from<T>(args);
    if (!by_key) {
      py::gil_scoped_release unlocked;
      return inclusive ? clscan::inclusive<T>(queue, in, out, n, opts)
                       : clscan::exclusive<T>(queue, in, out, n, opts);
    }
    return with_element_type(parse_element_type(key_type), [&](auto key_tag) {
      using K = typename decltype(key_tag)::type;
      py::gil_scoped_release unlocked;
      return inclusive ? clscan::inclusive_by_key<K, T>(queue, keys, in, out, n, opts)
                       : clscan::exclusive_by_key<K, T>(queue, keys, in, out, n, opts);
    });
  });
  return owned_handle(done);
}

std::uintptr_t scan(const std::string& kind, const std::string& type, std::uintptr_t queue_ptr,
                    std::uintptr_t in_ptr, std::size_t in_offset, std::uintptr_t out_ptr,
                    std::size_t out_offset, std::size_t n, const std::string& op,
                    const std::string& custom_op, py::object custom_identity, py::object initial,
                    bool deterministic, const std::string& algorithm,
                    const std::vector<std::uintptr_t>& wait_for, const python_parameters& parameters,
                    const std::string& transform, const std::string& input_type) {
  return run_scan(false, kind, /*key_type=*/"", type, queue_ptr, /*keys_ptr=*/0, in_ptr, in_offset, out_ptr,
                  out_offset, n, op, custom_op, std::move(custom_identity), std::move(initial), deterministic,
                  algorithm, wait_for, parameters, "", transform, input_type);
}

std::uintptr_t scan_by_key(const std::string& kind, const std::string& key_type, const std::string& type,
                           std::uintptr_t queue_ptr, std::uintptr_t keys_ptr, std::uintptr_t in_ptr,
                           std::size_t in_offset, std::uintptr_t out_ptr, std::size_t out_offset,
                           std::size_t n, const std::string& op, const std::string& custom_op,
                           py::object custom_identity, py::object initial, bool deterministic,
                           const std::string& algorithm, const std::vector<std::uintptr_t>& wait_for,
                           const python_parameters& parameters, const std::string& key_equal) {
  return run_scan(true, kind, key_type, type, queue_ptr, keys_ptr, in_ptr, in_offset, out_ptr, out_offset, n,
                  op, custom_op, std::move(custom_identity), std::move(initial), deterministic, algorithm,
                  wait_for, parameters, key_equal, "", "");
}

// The call behind clscan.reduce: the total of in_buffer[in_offset:in_offset + n] into
// out_buffer[out_offset], after `initial` (a number, or None) or, with initial_buffer not 0, the element
// initial_buffer[initial_offset] read on the device. Returns the call's event (owned_handle).
std::uintptr_t reduce(const std::string& type, std::uintptr_t queue_ptr, std::uintptr_t in_ptr,
                      std::size_t in_offset, std::uintptr_t out_ptr, std::size_t out_offset, std::size_t n,
                      const std::string& op, const std::string& custom_op, py::object custom_identity,
                      py::object initial, std::uintptr_t initial_ptr, std::size_t initial_offset,
                      const std::vector<std::uintptr_t>& wait_for, const python_parameters& parameters,
                      const std::string& transform, const std::string& input_type) {
  const scan_arguments args = scan_arguments_from(
      in_offset, out_offset, op, custom_op, std::move(custom_identity), std::move(initial), false,
      "automatic", wait_for, parameters, "", transform, input_type);
  const cl::CommandQueue queue(reinterpret_cast<cl_command_queue>(queue_ptr), /*retainObject=*/true);
  const cl::Buffer in = buffer_of(in_ptr);
  const cl::Buffer out = buffer_of(out_ptr);
  const cl::Buffer initial_buffer = buffer_of(initial_ptr);
  const cl::Event done = with_element_type(parse_element_type(type), [&](auto tag) {
    using T = typename decltype(tag)::type;
    clscan::options<T> opts = options_from<T>(args);
    if (initial_ptr) opts.initial_on_device = clscan::device_value{initial_buffer, initial_offset};
    py::gil_scoped_release unlocked;
    return clscan::reduce<T>(queue, in, out, n, opts);
  });
  return owned_handle(done);
}

// The call behind clscan.inclusive_segmented, exclusive_segmented and reduce_segmented (`kind`: inclusive,
// exclusive or reduce): n elements of OpenCL C type `type` in in_buffer[in_offset:], segments given by
// num_segments + 1 offsets of `offset_type` (uint or ulong) in offsets_buffer[offsets_offset:], the output
// (n elements, or num_segments for reduce) at out_buffer[out_offset:]. Returns the call's event
// (owned_handle).
std::uintptr_t segmented(const std::string& kind, const std::string& type, const std::string& offset_type,
                         std::uintptr_t queue_ptr, std::uintptr_t in_ptr, std::size_t in_offset,
                         std::uintptr_t out_ptr, std::size_t out_offset, std::size_t n,
                         std::uintptr_t offsets_ptr, std::size_t offsets_offset, std::size_t num_segments,
                         const std::string& op, const std::string& custom_op, py::object custom_identity,
                         py::object initial, bool deterministic, const std::string& algorithm,
                         const std::vector<std::uintptr_t>& wait_for, const python_parameters& parameters) {
  if (kind != "inclusive" && kind != "exclusive" && kind != "reduce")
    throw clscan::invalid_argument("clscan: unknown segmented call '" + kind +
                                   "' (inclusive, exclusive or reduce)");
  const clscan::element_type offsets = parse_element_type(offset_type);
  if (offsets != clscan::element_type::uint32 && offsets != clscan::element_type::uint64)
    throw clscan::invalid_argument("clscan: segment offsets are uint or ulong, not " + offset_type);
  const scan_arguments args =
      scan_arguments_from(in_offset, out_offset, op, custom_op, std::move(custom_identity),
                          std::move(initial), deterministic, algorithm, wait_for, parameters, "", "");
  const cl::CommandQueue queue(reinterpret_cast<cl_command_queue>(queue_ptr), /*retainObject=*/true);
  const cl::Buffer in = buffer_of(in_ptr), out = buffer_of(out_ptr), offsets_buffer = buffer_of(offsets_ptr);
  const cl::Event done = with_element_type(parse_element_type(type), [&](auto tag) {
    using T = typename decltype(tag)::type;
    clscan::segmented_options<T> opts;
    static_cast<clscan::options<T>&>(opts) = options_from<T>(args);
    opts.offsets_offset = offsets_offset;
    const auto call = [&](auto offset_tag) {
      using O = typename decltype(offset_tag)::type;
      py::gil_scoped_release unlocked;
      if (kind == "inclusive")
        return clscan::inclusive_segmented<T, O>(queue, in, out, n, offsets_buffer, num_segments, opts);
      if (kind == "exclusive")
        return clscan::exclusive_segmented<T, O>(queue, in, out, n, offsets_buffer, num_segments, opts);
      return clscan::reduce_segmented<T, O>(queue, in, out, n, offsets_buffer, num_segments, opts);
    };
    return offsets == clscan::element_type::uint32 ? call(type_tag<cl_uint>{}) : call(type_tag<cl_ulong>{});
  });
  return owned_handle(done);
}

// Throws clscan::opencl_error when `event` (terminal by now) failed.
void throw_if_failed(const cl::Event& event, const char* what) {
  cl_int status = CL_COMPLETE;
  const cl_int queried = event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status);
  if (queried != CL_SUCCESS) throw clscan::opencl_error(queried, "clGetEventInfo");
  if (status < 0)
    throw clscan::opencl_error(status, what,
                               "it did not complete (an event of wait_for failed after the call?); the "
                               "result is not returned");
}

// The call behind clscan.sort, clscan.argsort and clscan.sort_by_key: `kind` is "sort", "sort_by_key" or
// "sorted_order"; value_type names sort_by_key's values or sorted_order's indices ("uint" or "ulong")
// and the values' buffers are 0 where the call has none. Returns the call's event (owned_handle).
std::uintptr_t run_sort(const std::string& kind, const std::string& key_type, const std::string& value_type,
                        std::uintptr_t queue_ptr, std::uintptr_t keys_in_ptr, std::size_t keys_in_offset,
                        std::uintptr_t keys_out_ptr, std::size_t keys_out_offset,
                        std::uintptr_t values_in_ptr, std::size_t values_in_offset,
                        std::uintptr_t values_out_ptr, std::size_t values_out_offset, std::size_t n,
                        bool descending, unsigned begin_bit, py::object end_bit, const std::string& algorithm,
                        const std::vector<std::uintptr_t>& wait_for) {
  if (kind != "sort" && kind != "sort_by_key" && kind != "sorted_order")
    throw clscan::invalid_argument("clscan: unknown sort '" + kind + "' (sort, sort_by_key or sorted_order)");
  const clscan::algorithm algo = parse_algorithm(algorithm);
  const std::vector<cl::Event> waits = events_of(wait_for);
  const bool all_bits = end_bit.is_none();
  const unsigned end = all_bits ? 0u : end_bit.cast<unsigned>();
  const cl::CommandQueue queue(reinterpret_cast<cl_command_queue>(queue_ptr), /*retainObject=*/true);
  const cl::Buffer keys_in = buffer_of(keys_in_ptr);
  const cl::Buffer keys_out = buffer_of(keys_out_ptr);
  const cl::Buffer values_in = buffer_of(values_in_ptr);
  const cl::Buffer values_out = buffer_of(values_out_ptr);
  const clscan::element_type values = parse_element_type(value_type);
  const cl::Event done = with_element_type(parse_element_type(key_type), [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    clscan::sort_options<K> opts;
    opts.descending = descending;
    opts.begin_bit = begin_bit;
    if (!all_bits) opts.end_bit = end;
    opts.keys_in_offset = keys_in_offset;
    opts.keys_out_offset = keys_out_offset;
    opts.values_in_offset = values_in_offset;
    opts.values_out_offset = values_out_offset;
    opts.algorithm = algo;
    opts.wait_list = waits;
    if (kind == "sort") {
      py::gil_scoped_release unlocked;
      return clscan::sort<K>(queue, keys_in, keys_out, n, opts);
    }
    if (kind == "sorted_order") {
      if (values != clscan::element_type::uint32 && values != clscan::element_type::uint64)
        throw clscan::invalid_argument("clscan: sorted_order writes uint or ulong indices, not " +
                                       value_type);
      py::gil_scoped_release unlocked;
      return values == clscan::element_type::uint32
                 ? clscan::sorted_order<K, cl_uint>(queue, keys_in, values_out, n, opts)
                 : clscan::sorted_order<K, cl_ulong>(queue, keys_in, values_out, n, opts);
    }
    return with_element_type(values, [&](auto value_tag) {
      using V = typename decltype(value_tag)::type;
      py::gil_scoped_release unlocked;
      return clscan::sort_by_key<K, V>(queue, keys_in, values_in, keys_out, values_out, n, opts);
    });
  });
  return owned_handle(done);
}

// A cl_ulong buffer in the queue's context for a count that is read back at once.
cl::Buffer scratch_count_buffer(const cl::CommandQueue& queue) {
  cl_int status = CL_SUCCESS;
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>(&status);
  if (status != CL_SUCCESS) throw clscan::opencl_error(status, "clGetCommandQueueInfo");
  cl::Buffer count(context, CL_MEM_READ_WRITE, sizeof(cl_ulong), nullptr, &status);
  if (status != CL_SUCCESS) throw clscan::opencl_error(status, "clCreateBuffer");
  return count;
}

// The call behind clscan.select_if, select_flagged, partition_if and unique: `kind` names the call;
// flags_ptr is 0 but for select_flagged. With a count buffer, the count goes to
// count_buffer[count_offset] (a cl_ulong) and the call returns (event, None) without waiting for the
// device. With count_ptr 0, the count goes to a buffer of this call's, which it reads back with the
// GIL released, and the call returns (event, count) once the selection has finished. The event has a
// reference that the caller owns (owned_handle).
py::tuple run_selection(const std::string& kind, const std::string& type, std::uintptr_t queue_ptr,
                        std::uintptr_t in_ptr, std::size_t in_offset, std::uintptr_t flags_ptr,
                        std::size_t flags_offset, std::uintptr_t out_ptr, std::size_t out_offset,
                        std::uintptr_t count_ptr, std::size_t count_offset, std::size_t n,
                        const std::string& predicate, const std::string& algorithm,
                        const std::vector<std::uintptr_t>& wait_for, const python_parameters& parameters,
                        const std::string& key_equal, std::optional<std::size_t> out_capacity) {
  if (kind != "select_if" && kind != "select_flagged" && kind != "partition_if" && kind != "unique")
    throw clscan::invalid_argument("clscan: unknown selection '" + kind +
                                   "' (select_if, select_flagged, partition_if or unique)");
  const clscan::algorithm algo = parse_algorithm(algorithm);
  std::vector<cl::Event> waits = events_of(wait_for);
  std::vector<clscan::parameter> named = parameters_of(parameters);
  const cl::CommandQueue queue(reinterpret_cast<cl_command_queue>(queue_ptr), /*retainObject=*/true);
  const cl::Buffer in = buffer_of(in_ptr);
  const cl::Buffer flags = buffer_of(flags_ptr);
  const cl::Buffer out = buffer_of(out_ptr);
  const bool read_back = count_ptr == 0;
  const cl::Buffer count = read_back ? scratch_count_buffer(queue) : buffer_of(count_ptr);
  cl_ulong selected = 0;
  const cl::Event done = with_element_type(parse_element_type(type), [&](auto tag) {
    using T = typename decltype(tag)::type;
    clscan::select_options<T> opts;
    opts.predicate = predicate;
    opts.in_offset = in_offset;
    opts.out_offset = out_offset;
    opts.count_offset = read_back ? 0 : count_offset;
    opts.flags_offset = flags_offset;
    opts.algorithm = algo;
    opts.wait_list = std::move(waits);
    opts.parameters = std::move(named);
    opts.key_equal = key_equal;
    opts.out_capacity = out_capacity;
    py::gil_scoped_release unlocked;
    cl::Event event;
    if (kind == "select_if") {
      event = clscan::select_if<T>(queue, in, out, count, n, opts);
    } else if (kind == "select_flagged") {
      event = clscan::select_flagged<T>(queue, in, flags, out, count, n, opts);
    } else if (kind == "partition_if") {
      event = clscan::partition_if<T>(queue, in, out, count, n, opts);
    } else {
      event = clscan::unique<T>(queue, in, out, count, n, opts);
    }
    if (read_back) {
      const std::vector<cl::Event> selection_done{event};
      // No event of its own for the read: one released right after the read could still be in PoCL
      // 3.1's hands if a failed wait event reached it, which aborts the process.
      const cl_int status =
          queue.enqueueReadBuffer(count, CL_TRUE, 0, sizeof selected, &selected, &selection_done);
      // A blocking read can return success although the selection it waited for failed (an event of
      // wait_for that failed after the call): the count it read is not the selection's.
      throw_if_failed(event, "the selection");
      if (status != CL_SUCCESS) throw clscan::opencl_error(status, "clEnqueueReadBuffer");
    }
    return event;
  });
  const std::uintptr_t event = owned_handle(done);
  if (!read_back) return py::make_tuple(event, py::none());
  return py::make_tuple(event, static_cast<unsigned long long>(selected));
}

// The call behind clscan.reduce_by_key, unique_by_key and run_length_encode (`kind`): keys of
// `key_type` in keys_buffer[in_offset:], values of `value_type` in values_buffer[in_offset:] (0 for
// run_length_encode, whose value_type is the lengths' type, uint or ulong), outputs at out_offset of
// keys_out and values_out; the operator arguments are reduce_by_key's. The count as run_selection's.
py::tuple run_runs(const std::string& kind, const std::string& key_type, const std::string& value_type,
                   std::uintptr_t queue_ptr, std::uintptr_t keys_ptr, std::uintptr_t values_ptr,
                   std::size_t in_offset, std::uintptr_t keys_out_ptr, std::uintptr_t values_out_ptr,
                   std::size_t out_offset, std::uintptr_t count_ptr, std::size_t count_offset, std::size_t n,
                   const std::string& op, const std::string& custom_op, py::object custom_identity,
                   py::object initial, bool deterministic, const std::string& algorithm,
                   const std::vector<std::uintptr_t>& wait_for, std::optional<std::size_t> out_capacity) {
  if (kind != "reduce_by_key" && kind != "unique_by_key" && kind != "run_length_encode")
    throw clscan::invalid_argument("clscan: unknown call '" + kind +
                                   "' (reduce_by_key, unique_by_key or run_length_encode)");
  const scan_arguments args = scan_arguments_from(
      in_offset, out_offset, op, custom_op, std::move(custom_identity), std::move(initial), deterministic,
      algorithm, wait_for, python_parameters{}, "", "");
  const clscan::element_type values = parse_element_type(value_type);
  if (kind == "run_length_encode" && values != clscan::element_type::uint32 &&
      values != clscan::element_type::uint64)
    throw clscan::invalid_argument("clscan: run_length_encode's lengths are uint or ulong, not " +
                                   value_type);
  const cl::CommandQueue queue(reinterpret_cast<cl_command_queue>(queue_ptr), /*retainObject=*/true);
  const cl::Buffer keys_in = buffer_of(keys_ptr), values_in = buffer_of(values_ptr);
  const cl::Buffer keys_out = buffer_of(keys_out_ptr), values_out = buffer_of(values_out_ptr);
  const bool read_back = count_ptr == 0;
  const cl::Buffer count = read_back ? scratch_count_buffer(queue) : buffer_of(count_ptr);
  const std::size_t counted_at = read_back ? 0 : count_offset;
  cl_ulong runs = 0;
  const cl::Event done = with_element_type(parse_element_type(key_type), [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    return with_element_type(values, [&](auto value_tag) {
      using V = typename decltype(value_tag)::type;
      clscan::reduce_by_key_options<V> reduce_opts;
      clscan::select_options<K> opts;
      if (kind == "reduce_by_key") {
        static_cast<clscan::options<V>&>(reduce_opts) = options_from<V>(args);
        reduce_opts.count_offset = counted_at;
        reduce_opts.out_capacity = out_capacity;
      } else {
        opts.in_offset = in_offset;
        opts.out_offset = out_offset;
        opts.count_offset = counted_at;
        opts.algorithm = args.algorithm;
        opts.wait_list = args.wait_list;
        opts.out_capacity = out_capacity;
      }
      py::gil_scoped_release unlocked;
      cl::Event event;
      if (kind == "reduce_by_key") {
        event = clscan::reduce_by_key<K, V>(queue, keys_in, values_in, keys_out, values_out, count, n,
                                            reduce_opts);
      } else if (kind == "unique_by_key") {
        event = clscan::unique_by_key<K, V>(queue, keys_in, values_in, keys_out, values_out, count, n, opts);
      } else if constexpr (std::is_same_v<V, cl_uint> || std::is_same_v<V, cl_ulong>) {
        event = clscan::run_length_encode<K, V>(queue, keys_in, keys_out, values_out, count, n, opts);
      }
      if (read_back) {
        const std::vector<cl::Event> call_done{event};
        const cl_int status = queue.enqueueReadBuffer(count, CL_TRUE, 0, sizeof runs, &runs, &call_done);
        throw_if_failed(event, kind.c_str());
        if (status != CL_SUCCESS) throw clscan::opencl_error(status, "clEnqueueReadBuffer");
      }
      return event;
    });
  });
  const std::uintptr_t event = owned_handle(done);
  if (!read_back) return py::make_tuple(event, py::none());
  return py::make_tuple(event, static_cast<unsigned long long>(runs));
}

// Python text from bytes that may not be UTF-8 (a compiler's build log): invalid bytes become U+FFFD
// instead of making the exception itself fail.
py::str text(const std::string& bytes) {
  PyObject* decoded = PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "replace");
  if (!decoded) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

// The C++ library's messages name its C++ API; a Python caller sees the package's names instead. The
// C++ call's wait list starts with wait_for (the arrays' events follow), so wait_list[i] is wait_for[i].
std::string with_python_names(std::string message) {
  static const std::pair<std::string_view, std::string_view> names[] = {
      {"select_options::", ""},
      {"options::wait_list", "wait_for"},
      {"options::", ""},
      {"wait_list[", "wait_for["},
      {"algorithm::automatic", "algorithm='automatic'"},
      {"algorithm::single_pass", "algorithm='single_pass'"},
      {"algorithm::three_stage", "algorithm='three_stage'"},
      {"op::custom", "custom_op"},
      {"cl::Buffer", "buffer"},
      {"clscan::", "clscan."},
  };
  for (const auto& [cpp, python] : names)
    for (std::size_t at = message.find(cpp); at != std::string::npos;
         at = message.find(cpp, at + python.size()))
      message.replace(at, cpp.size(), python);
  return message;
}

// Build errors keep their message as it is: it holds the compiler's log.
void raise_as(const char* class_name, const std::exception& e, const py::dict& details, bool rename = true) {
  const py::object type = py::module_::import("clscan._errors").attr(class_name);
  const py::object instance =
      type(text(rename ? with_python_names(e.what()) : std::string(e.what())), **details);
  PyErr_SetObject(type.ptr(), instance.ptr());
}

void translate_clscan_errors(std::exception_ptr thrown) {
  try {
    if (thrown) std::rethrow_exception(thrown);
  } catch (const clscan::build_error& e) {
    raise_as("BuildError", e,
             py::dict("status"_a = e.status(), "call"_a = text(e.call()), "build_log"_a = text(e.build_log()),
                      "options"_a = text(e.options()), "device_name"_a = text(e.device_name())),
             false);
  } catch (const clscan::opencl_error& e) {
    raise_as("OpenCLError", e, py::dict("status"_a = e.status(), "call"_a = text(e.call())));
  } catch (const clscan::invalid_argument& e) {
    raise_as("InvalidArgumentError", e, py::dict());
  } catch (const clscan::unsupported_error& e) {
    raise_as("UnsupportedError", e, py::dict());
  } catch (const clscan::error& e) {
    raise_as("Error", e, py::dict());
  }
}

} // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The compiled part of the clscan package: the C++ library's calls on raw OpenCL handles. Use "
            "the functions of the clscan package instead, which take PyOpenCL objects.";
  m.attr("version") = CLSCAN_VERSION_STRING;
  py::register_exception_translator(&translate_clscan_errors);

  m.def("scan", &scan, "kind"_a, "type"_a, "queue"_a, "in_buffer"_a, "in_offset"_a, "out_buffer"_a,
        "out_offset"_a, "n"_a, "op"_a, "custom_op"_a, "custom_identity"_a, "initial"_a, "deterministic"_a,
        "algorithm"_a, "wait_for"_a, "parameters"_a = python_parameters(), "transform"_a = std::string(),
        "input_type"_a = std::string(),
        "Enqueues an inclusive or exclusive scan of n elements of OpenCL C type `type` (int, uint, long, "
        "ulong, float, double) from in_buffer[in_offset:] to out_buffer[out_offset:] (element offsets) on "
        "`queue`, after the events of `wait_for`. Handles are int_ptr values. Returns the scan's cl_event "
        "with a reference the caller owns. parameters: (name, OpenCL C type, value) triples, the named "
        "parameters of the expressions. input_type: with a transform, the OpenCL C type of the input's "
        "elements where it is not `type` (in_offset counts them); empty: `type`.");
  m.def("scan_by_key", &scan_by_key, "kind"_a, "key_type"_a, "type"_a, "queue"_a, "keys_buffer"_a,
        "in_buffer"_a, "in_offset"_a, "out_buffer"_a, "out_offset"_a, "n"_a, "op"_a, "custom_op"_a,
        "custom_identity"_a, "initial"_a, "deterministic"_a, "algorithm"_a, "wait_for"_a,
        "parameters"_a = python_parameters(), "key_equal"_a = std::string(),
        "Enqueues an inclusive or exclusive scan by key of n elements of OpenCL C type `type`: segments "
        "are runs of equal keys (of OpenCL C type `key_type`) in keys_buffer[in_offset:]; input "
        "in_buffer[in_offset:], output out_buffer[out_offset:]; key_equal: an expression of a and b ("
        " for ==). "
        "Otherwise as scan().");
  m.def("reduce", &reduce, "type"_a, "queue"_a, "in_buffer"_a, "in_offset"_a, "out_buffer"_a, "out_offset"_a,
        "n"_a, "op"_a, "custom_op"_a, "custom_identity"_a, "initial"_a, "initial_buffer"_a,
        "initial_offset"_a, "wait_for"_a, "parameters"_a = python_parameters(), "transform"_a = std::string(),
        "input_type"_a = std::string(),
        "Enqueues the reduce of n elements of OpenCL C type `type` from in_buffer[in_offset:] into "
        "out_buffer[out_offset] (element offsets), after `initial` (None: none) or, with initial_buffer "
        "not 0, the element initial_buffer[initial_offset] read on the device. Otherwise as scan().");
  m.def("select", &run_selection, "kind"_a, "type"_a, "queue"_a, "in_buffer"_a, "in_offset"_a,
        "flags_buffer"_a, "flags_offset"_a, "out_buffer"_a, "out_offset"_a, "count_buffer"_a,
        "count_offset"_a, "n"_a, "predicate"_a, "algorithm"_a, "wait_for"_a,
        "parameters"_a = python_parameters(), "key_equal"_a = std::string(), "out_capacity"_a = py::none(),
        "Enqueues select_if, select_flagged, partition_if or unique (`kind`) of n elements of OpenCL C "
        "type `type` from in_buffer[in_offset:] to out_buffer[out_offset:] (element offsets; the same "
        "buffer and offset: in place), writing at most out_capacity elements there (None: n). "
        "select_flagged reads flags_buffer[flags_offset:] (cl_uchar), the others take 0 there; select_if "
        "and partition_if take the predicate, the others an empty one. The count (a cl_ulong) goes to "
        "count_buffer[count_offset] and (event, None) is returned at once; with count_buffer 0, the call "
        "waits for the count and returns (event, count). The cl_event has a reference the caller owns.");
  m.def("runs", &run_runs, "kind"_a, "key_type"_a, "value_type"_a, "queue"_a, "keys_buffer"_a,
        "values_buffer"_a, "in_offset"_a, "keys_out"_a, "values_out"_a, "out_offset"_a, "count_buffer"_a,
        "count_offset"_a, "n"_a, "op"_a, "custom_op"_a, "custom_identity"_a, "initial"_a, "deterministic"_a,
        "algorithm"_a, "wait_for"_a, "out_capacity"_a = py::none(),
        "Enqueues reduce_by_key, unique_by_key or run_length_encode (`kind`) of n keys of OpenCL C type "
        "`key_type` in keys_buffer[in_offset:], with values of `value_type` in values_buffer[in_offset:] "
        "(run_length_encode: 0, and value_type the lengths' type, uint or ulong), into "
        "keys_out[out_offset:] and values_out[out_offset:], at most out_capacity elements each (None: n). "
        "The operator arguments are reduce_by_key's. "
        "The count as select().");
  m.def("segmented", &segmented, "kind"_a, "type"_a, "offset_type"_a, "queue"_a, "in_buffer"_a, "in_offset"_a,
        "out_buffer"_a, "out_offset"_a, "n"_a, "offsets_buffer"_a, "offsets_offset"_a, "num_segments"_a,
        "op"_a, "custom_op"_a, "custom_identity"_a, "initial"_a, "deterministic"_a, "algorithm"_a,
        "wait_for"_a, "parameters"_a = python_parameters(),
        "Enqueues inclusive_segmented, exclusive_segmented or reduce_segmented (`kind`: inclusive, exclusive "
        "or reduce) of n elements of OpenCL C type `type` in in_buffer[in_offset:], over num_segments + 1 "
        "offsets of `offset_type` (uint or ulong) in offsets_buffer[offsets_offset:], into "
        "out_buffer[out_offset:] (n elements; reduce: num_segments). Otherwise as scan().");
  m.def(
      "sort", &run_sort, "kind"_a, "key_type"_a, "value_type"_a, "queue"_a, "keys_in"_a, "keys_in_offset"_a,
      "keys_out"_a, "keys_out_offset"_a, "values_in"_a, "values_in_offset"_a, "values_out"_a,
      "values_out_offset"_a, "n"_a, "descending"_a, "begin_bit"_a, "end_bit"_a, "algorithm"_a, "wait_for"_a,
      "Enqueues clscan::sort, sort_by_key or sorted_order (`kind`) of n keys of OpenCL C type `key_type` "
      "from "
      "keys_in[keys_in_offset:] (element offsets): sort writes keys_out[keys_out_offset:], sort_by_key also "
      "moves values of OpenCL C type `value_type` from values_in[values_in_offset:] to "
      "values_out[values_out_offset:], sorted_order writes indices of `value_type` (uint or ulong) to "
      "values_out[values_out_offset:]. end_bit None: every bit of the key. Handles are int_ptr values (0 "
      "where unused). Returns the call's cl_event with a reference the caller owns.");
  m.def(
      "select_device", []() { return reinterpret_cast<std::uintptr_t>(clscan::select_device().get()); },
      "The cl_device_id (as an int) that clscan::select_device() picks: CLSCAN_PLATFORM / CLSCAN_DEVICE, "
      "else the first GPU, else the first device.");
  m.def(
      "release_cached_resources",
      [](std::uintptr_t context) {
        if (context == 0) {
          clscan::release_cached_resources();
        } else {
          clscan::release_cached_resources(cl::Context(reinterpret_cast<cl_context>(context), true));
        }
      },
      "context"_a,
      "Releases clscan's programs, kernels and temporary buffers of one cl_context (an int_ptr), or of "
      "every context for 0.");
}
