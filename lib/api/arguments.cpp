#include "arguments.hpp"
#include "argument_checks.hpp"

#include "algorithms/single_pass.hpp"
#include "device_info.hpp"
#include "element.hpp"
#include "error_check.hpp"
#include "program/expression.hpp"

#include <clscan/error.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace clscan::detail {
namespace {

template <typename T> T queue_info(cl_command_queue queue, cl_command_queue_info what) {
  T value{};
  const cl_int status = clGetCommandQueueInfo(queue, what, sizeof(T), &value, nullptr);
  if (status == CL_INVALID_COMMAND_QUEUE) throw invalid_argument("clscan: the command queue is not valid");
  check(status, "clGetCommandQueueInfo");
  return value;
}

void check_wait_list(const cl_event* events, cl_uint count, cl_context context) {
  for (cl_uint i = 0; i < count; ++i) {
    if (!events[i]) throw invalid_argument("clscan: wait_list[" + std::to_string(i) + "] is a null event");
    cl_context event_context = nullptr;
    const cl_int status =
        clGetEventInfo(events[i], CL_EVENT_CONTEXT, sizeof event_context, &event_context, nullptr);
    if (status == CL_INVALID_EVENT)
      throw invalid_argument("clscan: wait_list[" + std::to_string(i) + "] is not a valid event");
    check(status, "clGetEventInfo");
    if (event_context != context)
      throw invalid_argument("clscan: wait_list[" + std::to_string(i) +
                             "] belongs to another context than the queue");
    check_not_failed(events[i], "wait_list", i);
  }
}

// True when byte ranges [a, a + a_bytes) and [b, b + b_bytes) intersect (both lengths > 0).
bool intersecting(std::uintptr_t a, std::size_t a_bytes, std::uintptr_t b, std::size_t b_bytes) {
  return a < b ? b - a < a_bytes : a - b < b_bytes;
}

// The input of a scan or a reduce: not write-only, nor read-only where it is the output too.
memory_view check_input(cl_mem in, bool in_place, cl_context context, std::size_t offset, std::size_t n,
                        std::size_t element_size) {
  return check_buffer(in, "input", context, offset, n, element_size,
                      in_place ? CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY : CL_MEM_WRITE_ONLY);
}

// options::transform_input: an element type, and a transform to read it. Checked before the buffers,
// whose sizes it decides.
void check_transform_input(const scan_request& request) {
  if (!request.transform_input) return;
  const element_type input = *request.transform_input;
  if (input < element_type::int32 || input > element_type::float64)
    throw invalid_argument("clscan: options::transform_input is " + std::to_string(static_cast<int>(input)) +
                           ", not one of the element types int32, uint32, int64, uint64, float32, float64");
  if (!request.transform || request.transform->empty())
    throw invalid_argument(std::string("clscan: options::transform_input (") + opencl_name(input) +
                           ") is set without options::transform: only a transform reads an input of "
                           "another type, e.g. \"x > 0 ? 1 : 0\"");
}

void validate_request(const scan_request& request, const device_capabilities& caps) {
  // Enumerators cast from numbers (a C caller's, a configuration file's) are refused by name rather
  // than run as whatever a switch falls back to.
  if (request.algo != algorithm::automatic && request.algo != algorithm::single_pass &&
      request.algo != algorithm::three_stage)
    throw invalid_argument("clscan: options::algorithm is " + std::to_string(static_cast<int>(request.algo)) +
                           ", not one of algorithm::automatic, single_pass, three_stage");
  if (request.operation < op::sum || request.operation > op::custom)
    throw invalid_argument("clscan: options::operation is " +
                           std::to_string(static_cast<int>(request.operation)) +
                           ", not one of op::sum, min, max, bit_and, bit_or, bit_xor, custom");
  if (request.type == element_type::float64 && !caps.fp64)
    throw unsupported_error("cl_double scans need fp64 (cl_khr_fp64), which device '" + caps.name +
                            "' does not have");
  // Whether the device was disqualified is known only once it has been checked, on the first call
  // that needs a verdict; what the device lacks is known now, whatever n.
  if (request.algo == algorithm::single_pass && !single_pass_supported(caps, request.type))
    throw unsupported_error("algorithm::single_pass needs global 32-bit atomics, which device '" + caps.name +
                            "' does not have");
  const bool bitwise =
      request.operation == op::bit_and || request.operation == op::bit_or || request.operation == op::bit_xor;
  if (bitwise && is_floating(request.type))
    throw invalid_argument(std::string("bitwise operators need an integer element type, not ") +
                           opencl_name(request.type));
  // (check_primitive_arguments takes the key_equal of the calls that have one.)
  if (request.key_equal && !request.key_equal->empty())
    throw invalid_argument("clscan: options::key_equal is for inclusive_by_key, exclusive_by_key and unique; "
                           "this call compares no keys");
  check_parameters(request, caps, "options::parameters");
  if (request.transform && !request.transform->empty())
    check_user_expression(*request.transform, expression_kind::transform, "options::transform",
                          request.parameters);
  if (request.transform_input == element_type::float64 && !caps.fp64)
    throw unsupported_error("a cl_double input (options::transform_input) needs fp64 (cl_khr_fp64), which "
                            "device '" +
                            caps.name + "' does not have");
  if (request.operation == op::custom) {
    if (!request.custom_op || request.custom_op->empty())
      throw invalid_argument("op::custom needs options::custom_op, an OpenCL C expression of a and b");
    check_user_expression(*request.custom_op, expression_kind::custom_op, "options::custom_op",
                          request.parameters);
  }
}

} // namespace

void check_not_failed(cl_event event, const char* list, std::size_t index) {
  // A command gated on an event that has already failed never runs, and on some implementations (PoCL
  // 3.1) its own event then never completes either: refused here, before anything is enqueued, rather
  // than returned as an event that waiting on would block forever. An event that fails later is
  // reported in the call's event.
  cl_int execution_status = CL_COMPLETE;
  check(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof execution_status, &execution_status,
                       nullptr),
        "clGetEventInfo");
  if (execution_status < 0)
    throw invalid_argument("clscan: " + std::string(list) + "[" + std::to_string(index) +
                           "] has already failed (" + status_name(execution_status) + ", " +
                           std::to_string(execution_status) + "): nothing was enqueued");
}

// Sub-buffers of one parent (or a buffer and its sub-buffer), or buffers over one host range. OpenCL
// leaves writing through one handle while reading through another undefined, even for the very same
// range.
bool views_overlap(const memory_view& a, byte_range a_range, const memory_view& b, byte_range b_range) {
  if (a_range.bytes == 0 || b_range.bytes == 0) return false;
  if (a.root == b.root &&
      intersecting(a.origin + a_range.offset, a_range.bytes, b.origin + b_range.offset, b_range.bytes))
    return true;
  return a.host && b.host &&
         intersecting(reinterpret_cast<std::uintptr_t>(a.host) + a_range.offset, a_range.bytes,
                      reinterpret_cast<std::uintptr_t>(b.host) + b_range.offset, b_range.bytes);
}

checked_call call_on(const cl::CommandQueue& queue, const char* who) {
  checked_call call;
  call.queue = queue();
  if (!call.queue) throw invalid_argument(std::string(who) + ": the command queue is null");
  call.context = queue_info<cl_context>(call.queue, CL_QUEUE_CONTEXT);
  call.device = queue_info<cl_device_id>(call.queue, CL_QUEUE_DEVICE);
  const auto properties = queue_info<cl_command_queue_properties>(call.queue, CL_QUEUE_PROPERTIES);
  call.out_of_order = (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
  return call;
}

void take_wait_list(const std::vector<cl::Event>* wait_list, checked_call& call) {
  call.wait_count = static_cast<cl_uint>(wait_list ? wait_list->size() : 0);
  // cl::Event holds exactly one cl_event, as the C++ bindings themselves rely on.
  call.waits = call.wait_count ? reinterpret_cast<const cl_event*>(wait_list->data()) : nullptr;
  check_wait_list(call.waits, call.wait_count, call.context);
}

void check_initial_on_device(const scan_request& request, cl_context context, const memory_view& out,
                             byte_range out_range, cl_mem may_share) {
  if (!request.has_initial_buffer) return;
  if (!request.initial_buffer)
    throw invalid_argument("clscan: options::initial_on_device holds a null buffer");
  if (request.has_initial)
    throw invalid_argument("clscan: options::initial and options::initial_on_device are both set; set one");
  const std::size_t element_size = size_of(request.type);
  const memory_view view =
      check_buffer(request.initial_buffer, "initial_on_device", context, request.initial_buffer_offset, 1,
                   element_size, CL_MEM_WRITE_ONLY, false);
  // Every work-group reads the value when it starts, while others may already write their output.
  if (request.initial_buffer != may_share &&
      views_overlap(view, {request.initial_buffer_offset * element_size, element_size}, out, out_range))
    throw invalid_argument("clscan: options::initial_on_device lies in the output range, which the call "
                           "writes while it reads the value");
}

checked_call check_arguments(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                             std::size_t n, const scan_request& request,
                             std::optional<std::size_t> out_capacity) {
  checked_call call = call_on(queue, "clscan");
  const cl_context context = call.context;
  check_transform_input(request);

  const std::size_t element_size = size_of(request.type);
  const std::size_t input_size = input_element_size(request);
  const bool in_place = in() == out();
  const memory_view in_view = check_input(in(), in_place, context, request.in_offset, n, input_size);
  const std::size_t out_n = out_capacity.value_or(n);
  const memory_view out_view = check_buffer(out(), "output", context, request.out_offset, out_n, element_size,
                                            CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY, true,
                                            out_capacity ? "select_options::out_capacity" : "n");
  const byte_range out_range{request.out_offset * element_size, out_n * element_size};
  const byte_range in_range{request.in_offset * input_size, n * input_size};
  if (in_place && input_type_of(request) != request.type &&
      views_overlap(in_view, in_range, out_view, out_range))
    throw invalid_argument(std::string("clscan: the input (options::transform_input, ") +
                           opencl_name(*request.transform_input) + ") and the output (" +
                           opencl_name(request.type) +
                           ") overlap in one buffer: a scan cannot write its result over an input of "
                           "another type; scan into another buffer, or into a range of this one apart "
                           "from the input");
  check_in_out(in_place, in_view, in_range, out_view, out_range, [](bool one_handle) {
    return std::string(one_handle ? "clscan: input and output ranges overlap without being the same range"
                                  : "clscan: the input and output buffers are different handles whose ranges "
                                    "overlap (sub-buffers of one buffer, a buffer and its sub-buffer, or "
                                    "buffers over the same host memory); to scan in place, pass the same "
                                    "cl::Buffer as input and output");
  });

  take_wait_list(request.wait_list, call);
  validate_request(request, cached_capabilities(call.device));
  check_initial_on_device(request, context, out_view, out_range);
  call.in = in_view;
  call.out = out_view;
  return call;
}

namespace {

const char* call_name(primitive kind) {
  switch (kind) {
  case primitive::select_if: return "select_if";
  case primitive::select_flagged: return "select_flagged";
  case primitive::partition_if: return "partition_if";
  case primitive::unique: return "unique";
  case primitive::inclusive_by_key: return "inclusive_by_key";
  case primitive::exclusive_by_key: return "exclusive_by_key";
  case primitive::reduce: return "reduce";
  case primitive::select_run_heads:
  case primitive::runs_unique: return "unique_by_key";
  case primitive::select_run_tails:
  case primitive::runs_reduce: return "reduce_by_key";
  case primitive::runs_encode: return "run_length_encode";
  case primitive::segment_offsets:
  case primitive::segment_reduce: return "reduce_segmented";
  }
  return "?";
}

} // namespace

checked_call check_primitive_arguments(const cl::CommandQueue& queue, const cl::Buffer& in,
                                       const cl::Buffer* aux, const cl::Buffer& out, const cl::Buffer* count,
                                       std::size_t n, const primitive_request& request) {
  // Built only for a message: a call that passes allocates nothing here.
  const auto name = [&] { return std::string("clscan::") + call_name(request.kind); };
  const bool by_key =
      request.kind == primitive::inclusive_by_key || request.kind == primitive::exclusive_by_key;
  const scan_request& scan = request.scan;
  if (scan.has_initial_buffer)
    throw invalid_argument(name() + ": options::initial_on_device is not supported by this call; use "
                                    "options::initial");
  // partition_if writes the unselected elements after all the selected ones, so it needs the total
  // first: it runs on counts scanned beforehand (also for n == 0, where nothing would run).
  if (request.kind == primitive::partition_if && scan.algo == algorithm::single_pass)
    throw invalid_argument(name() + ": algorithm::single_pass cannot write the unselected elements before "
                                    "the total is known; use algorithm::automatic");
  if (scan.transform && !scan.transform->empty())
    throw invalid_argument(name() + ": options::transform is for the scans and reduce; this call does not "
                                    "take one");
  if (scan.transform_input)
    throw invalid_argument(name() + ": options::transform_input is for the scans and reduce, with a "
                                    "transform; this call does not take one");
  scan_request without_key_equal = scan;
  without_key_equal.key_equal = nullptr;
  // A selection writes at most out_capacity elements (by default n).
  checked_call call = check_arguments(queue, in, out, n, without_key_equal, request.out_capacity);
  const device_capabilities& caps = cached_capabilities(call.device);
  if (scan.key_equal && !scan.key_equal->empty()) {
    if (!by_key && request.kind != primitive::unique)
      throw invalid_argument(name() + ": select_options::key_equal is for unique only");
    check_user_expression(*scan.key_equal, expression_kind::key_equal,
                          by_key ? "options::key_equal" : "select_options::key_equal", scan.parameters);
  }
  const std::size_t element_size = size_of(scan.type);
  const byte_range in_range{scan.in_offset * element_size, n * element_size};
  const byte_range out_range{scan.out_offset * element_size, request.out_capacity.value_or(n) * element_size};

  const bool has_predicate = request.predicate && !request.predicate->empty();
  if (request.kind == primitive::select_if || request.kind == primitive::partition_if) {
    if (!has_predicate)
      throw invalid_argument(name() +
                             ": select_options::predicate is empty; give an OpenCL C expression of x and "
                             "i, e.g. \"x > 0\"");
    check_user_expression(*request.predicate, expression_kind::predicate, "select_options::predicate",
                          scan.parameters);
  } else if (!by_key && has_predicate) {
    throw invalid_argument(name() + ": select_options::predicate must be empty (this call selects by " +
                           (request.kind == primitive::unique ? "comparing neighbours" : "the flags") + ")");
  }

  // The flags or keys, read by every tile while the output and the count are written.
  memory_view aux_view{};
  byte_range aux_range{};
  const bool has_aux = request.kind == primitive::select_flagged || by_key;
  if (has_aux) {
    if (!aux) throw invalid_argument(name() + ": no " + (by_key ? "keys" : "flags") + " buffer");
    const char* role = by_key ? "keys" : "flags";
    const std::size_t aux_size = by_key ? size_of(request.key_type) : 1;
    const std::size_t aux_offset = by_key ? scan.in_offset : request.flags_offset;
    aux_view = check_buffer((*aux)(), role, call.context, aux_offset, n, aux_size, CL_MEM_WRITE_ONLY);
    aux_range = {aux_offset * aux_size, n * aux_size};
    if (by_key && request.key_type == element_type::float64 && !caps.fp64)
      throw unsupported_error(name() + ": cl_double keys need fp64 (cl_khr_fp64), which device '" +
                              caps.name + "' does not have");
    if (views_overlap(aux_view, aux_range, call.out, out_range))
      throw invalid_argument(
          name() + ": the " + role + " and the output overlap; the output is written while the " + role +
          " are read" +
          (by_key ? std::string(" (a tile's segment boundaries read the keys of the tiles beside it, which "
                                "may already hold their output): scan into the values buffer (in place) "
                                "or another buffer, then copy the result over the keys")
                  : std::string()));
  }
  if (!by_key) {
    if (!count || !(*count)()) throw invalid_argument(name() + ": the count buffer is null");
    const memory_view count_view = check_buffer((*count)(), "count", call.context, request.count_offset, 1,
                                                sizeof(cl_ulong), CL_MEM_READ_ONLY, false);
    const byte_range count_range{request.count_offset * sizeof(cl_ulong), sizeof(cl_ulong)};
    if (views_overlap(count_view, count_range, call.in, in_range) ||
        views_overlap(count_view, count_range, call.out, out_range))
      throw invalid_argument(name() + ": the count overlaps the input or the output");
    if (has_aux && views_overlap(count_view, count_range, aux_view, aux_range))
      throw invalid_argument(name() + ": the count overlaps the flags; the count is written while the "
                                      "flags are read");
  }
  return call;
}

checked_call check_reduce_arguments(const cl::CommandQueue& queue, const cl::Buffer& in,
                                    const cl::Buffer& out, std::size_t n, const scan_request& request) {
  checked_call call = call_on(queue, "clscan::reduce");
  const cl_context context = call.context;
  check_transform_input(request);

  const std::size_t element_size = size_of(request.type);
  const std::size_t input_size = input_element_size(request);
  const bool in_place = in() == out();
  const memory_view in_view = check_input(in(), in_place, context, request.in_offset, n, input_size);
  const memory_view out_view =
      check_buffer(out(), "output", context, request.out_offset, 1, element_size, CL_MEM_READ_ONLY, false);
  const byte_range out_range{request.out_offset * element_size, element_size};
  // One handle may be read and written (every element is read before the total is written), whatever
  // the input's type; through two handles over the same memory OpenCL leaves that undefined.
  if (!in_place &&
      views_overlap(in_view, {request.in_offset * input_size, n * input_size}, out_view, out_range))
    throw invalid_argument(
        "clscan::reduce: the input and output buffers are different handles whose ranges "
        "overlap (sub-buffers of one buffer, a buffer and its sub-buffer, or buffers over "
        "the same host memory); pass the same cl::Buffer to write the total into the input");
  // The initial value is read before the total is written, by the same work-item: through one handle,
  // the total may replace it.
  check_initial_on_device(request, context, out_view, out_range, out());
  take_wait_list(request.wait_list, call);
  // The algorithm is not reduce's to choose (reduce.hpp), so a forced one is not checked against
  // `deterministic` either.
  scan_request checked = request;
  checked.algo = algorithm::automatic;
  validate_request(checked, cached_capabilities(call.device));
  call.in = in_view;
  call.out = out_view;
  return call;
}

} // namespace clscan::detail
