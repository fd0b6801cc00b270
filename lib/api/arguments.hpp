// Argument checks of a scan call: the queue, the buffers (context, access flags, size, alignment,
// overlap), the wait list and the request against the device. Each failure is an invalid_argument or
// unsupported_error that names the argument; nothing is enqueued before they all pass.
#pragma once

#include "program/expression.hpp"

#include <clscan/device.hpp>
#include <clscan/primitives.hpp>
#include <clscan/scan.hpp>
#include <clscan/sort.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace clscan::detail {

// Where a buffer's memory lies, as far as OpenCL says: for the overlap check (two handles over one
// parent buffer, or over one host range) and for the alignment of vector loads. Memory the
// implementation allocates is aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN; memory of CL_MEM_USE_HOST_PTR
// buffers lies wherever the application put it, and a sub-buffer starts at its origin in its parent.
struct memory_view {
  cl_mem root = nullptr;               // a sub-buffer's parent, else the buffer itself
  std::size_t origin = 0;              // a sub-buffer's offset in bytes in its parent, else 0
  const unsigned char* host = nullptr; // the host memory the buffer starts at (CL_MEM_USE_HOST_PTR)
};

// A call whose arguments passed every check.
struct checked_call {
  cl_command_queue queue = nullptr;
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  bool out_of_order = false;
  memory_view in, out;
  const cl_event* waits = nullptr; // the user's wait list
  cl_uint wait_count = 0;
};

// The type of a call's input elements: options::transform_input where set, else the call's own.
inline element_type input_type_of(const scan_request& request) {
  return request.transform_input.value_or(request.type);
}
inline std::size_t input_element_size(const scan_request& request) { return size_of(input_type_of(request)); }

// out_capacity: the elements of `out` the call may write (a selection's select_options::out_capacity),
// in place of n.
checked_call check_arguments(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                             std::size_t n, const scan_request& request,
                             std::optional<std::size_t> out_capacity = std::nullopt);

// The checks of a call beyond scans (primitives.hpp): those of a scan for the input and output, then
// the flags or keys (aux), the count buffer, the predicate and the key type.
checked_call check_primitive_arguments(const cl::CommandQueue& queue, const cl::Buffer& in,
                                       const cl::Buffer* aux, const cl::Buffer& out, const cl::Buffer* count,
                                       std::size_t n, const primitive_request& request);

// The checks of clscan::reduce: those of a scan for the queue, the wait list and the request, then the
// input (in_offset + n elements, not write-only), the output (element out_offset, not read-only), the
// buffer of options::initial_on_device (of the queue's context, holding its element, not write-only,
// and not set together with options::initial), and that no two different handles overlap where one
// is written.
checked_call check_reduce_arguments(const cl::CommandQueue& queue, const cl::Buffer& in,
                                    const cl::Buffer& out, std::size_t n, const scan_request& request);

// The checks of a sort (sort.hpp): the queue, the wait list, the types and bit range, the keys and the
// values or indices (contexts, access flags, sizes with offsets), and that no two ranges overlap except
// an input and its output exactly (in place). call.in and call.out are the keys' views.
checked_call check_sort_arguments(const cl::CommandQueue& queue, const cl::Buffer& keys_in,
                                  const cl::Buffer& keys_out, const cl::Buffer* values_in,
                                  const cl::Buffer* values_out, std::size_t n, const sort_request& request);

// Checks one buffer of a call: not null, of the queue's context, not created with the access flags in
// `forbidden_flags`, holding offset + n elements, element-aligned. `role` names it in messages, and
// `n_is_callers` says whether n is the caller's (named `n_name` in the message: n, or an option such as
// select_options::out_capacity), else the call's own count, such as the one element of a count buffer,
// which the message then does not name.
memory_view check_buffer(cl_mem buffer, const char* role, cl_context context, std::size_t offset,
                         std::size_t n, std::size_t element_size, cl_mem_flags forbidden_flags,
                         bool n_is_callers = true, const char* n_name = "n");

// True when two buffer handles reach the same memory in the byte ranges they are used in.
struct byte_range {
  std::size_t offset = 0;
  std::size_t bytes = 0;
};
bool views_overlap(const memory_view& a, byte_range a_range, const memory_view& b, byte_range b_range);

// Throws invalid_argument when `event`, element `index` of the wait list `list` (named so in the
// message, which is built only then: calls that pass allocate nothing), has already failed (a negative
// execution status): a command gated on it would never run.
void check_not_failed(cl_event event, const char* list, std::size_t index);

// options::initial_on_device, when set: not with options::initial, a readable buffer of the call's
// context holding the element, outside the output range `out_range` of `out` unless it is the buffer
// `may_share` (a call that reads it before it writes there through the same handle).
void check_initial_on_device(const scan_request& request, cl_context context, const memory_view& out,
                             byte_range out_range, cl_mem may_share = nullptr);

// The largest power of two that divides the address of byte `offset` of `view` (at most
// `base_alignment` where the implementation chose the address).
std::size_t address_alignment(const memory_view& view, std::size_t offset, std::size_t base_alignment);

// Checks an OpenCL C expression the caller gives (a custom operator, a predicate, key_equal, a
// transform), named `what` in messages, before it goes into a program (parameter_checks.cpp): no NUL,
// at most max_custom_op_bytes, one expression (program/expression.hpp) that may name `parameters`.
void check_user_expression(const std::string& text, expression_kind kind, const char* what,
                           const std::vector<parameter>* parameters);

// options::parameters (parameter_checks.cpp): at most max_parameters, each name an identifier that no
// operand, keyword, type or macro of OpenCL C nor any name of clscan's has, given once, and cl_double
// values only where the device has fp64. `what` names the field in messages.
void check_parameters(const scan_request& request, const device_capabilities& caps, const char* what);

// Longest options::custom_op accepted: an expression of a and b, which the program source and the disk
// cache's entry identity hold in full.
constexpr std::size_t max_custom_op_bytes = std::size_t{64} << 10;

} // namespace clscan::detail
