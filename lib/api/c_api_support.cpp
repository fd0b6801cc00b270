// The conversions of the C API's enumerations and options to the C++ API's (c_api_support.hpp).
#include "c_api_support.hpp"

#include <algorithm>
#include <string>

namespace clscan::c_api {

clscan::element_type element_type_of(type_integer type) {
  switch (type) {
  case CLSCAN_TYPE_INT32: return clscan::element_type::int32;
  case CLSCAN_TYPE_UINT32: return clscan::element_type::uint32;
  case CLSCAN_TYPE_INT64: return clscan::element_type::int64;
  case CLSCAN_TYPE_UINT64: return clscan::element_type::uint64;
  case CLSCAN_TYPE_FLOAT32: return clscan::element_type::float32;
  case CLSCAN_TYPE_FLOAT64: return clscan::element_type::float64;
  }
  throw clscan::invalid_argument("clscan: unknown clscan_type " + std::to_string(static_cast<int>(type)));
}

clscan::op op_of(std::underlying_type_t<clscan_op> operation) {
  switch (operation) {
  case CLSCAN_OP_SUM: return clscan::op::sum;
  case CLSCAN_OP_MIN: return clscan::op::min;
  case CLSCAN_OP_MAX: return clscan::op::max;
  case CLSCAN_OP_AND: return clscan::op::bit_and;
  case CLSCAN_OP_OR: return clscan::op::bit_or;
  case CLSCAN_OP_XOR: return clscan::op::bit_xor;
  case CLSCAN_OP_CUSTOM: return clscan::op::custom;
  }
  throw clscan::invalid_argument("clscan: unknown clscan_op " + std::to_string(static_cast<int>(operation)));
}

clscan::algorithm algorithm_of(std::underlying_type_t<clscan_algorithm> algo) {
  switch (algo) {
  case CLSCAN_ALGORITHM_AUTOMATIC: return clscan::algorithm::automatic;
  case CLSCAN_ALGORITHM_SINGLE_PASS: return clscan::algorithm::single_pass;
  case CLSCAN_ALGORITHM_THREE_STAGE: return clscan::algorithm::three_stage;
  }
  throw clscan::invalid_argument("clscan: unknown clscan_algorithm " +
                                 std::to_string(static_cast<int>(algo)));
}

// The first `size` bytes of a clscan_value hold the member of that size (union members all start at
// its first byte); the rest of the type-erased value stays zero, as the C++ API leaves it.
clscan::detail::element_value value_of(const clscan_value& value, clscan::element_type type) {
  clscan::detail::element_value v;
  std::memcpy(v.bytes, &value, clscan::size_of(type));
  return v;
}

// The C++ request of a scan or a by-key scan from clscan_options, which must outlive it (it points into
// `custom_op`). An output capacity is refused unless the call takes one (takes_out_capacity).
clscan::detail::scan_request scan_request_of(clscan::scan_kind kind, type_integer type,
                                             const clscan_options& opts, std::string& custom_op,
                                             bool takes_out_capacity) {
  check_struct(opts, first_options_size, "clscan_options", "CLSCAN_OPTIONS_INIT");
  if (!takes_out_capacity && out_capacity_of(opts))
    throw clscan::invalid_argument("clscan: clscan_options.has_out_capacity is set, but only "
                                   "clscan_reduce_by_key takes an output capacity");
  clscan::detail::scan_request request;
  request.kind = kind;
  request.type = element_type_of(type);
  request.algo = algorithm_of(integer_of(opts.algorithm));
  request.operation = op_of(integer_of(opts.operation));
  if (request.operation == clscan::op::custom) {
    if (!opts.custom_op)
      throw clscan::invalid_argument("clscan: CLSCAN_OP_CUSTOM needs clscan_options.custom_op, an OpenCL C "
                                     "expression of a and b; it is NULL");
    custom_op = opts.custom_op;
  }
  request.custom_op = &custom_op;
  request.custom_identity = value_of(opts.custom_identity, request.type);
  request.has_initial = opts.has_initial != 0;
  if (request.has_initial) request.initial = value_of(opts.initial, request.type);
  request.deterministic = opts.deterministic != 0;
  request.in_offset = opts.in_offset;
  request.out_offset = opts.out_offset;
  if (opts.struct_size >= offsetof(clscan_options, transform_input) + sizeof opts.transform_input &&
      opts.has_transform_input)
    request.transform_input = element_type_of(integer_of(opts.transform_input));
  return request;
}

void take_expressions(const clscan_parameter* parameters, std::size_t count, const char* key_equal,
                      const char* name, c_expressions& expressions, clscan::detail::scan_request& request) {
  if (count > 0 && !parameters)
    throw clscan::invalid_argument(std::string("clscan: ") + name +
                                   ".parameters is NULL but parameter_count is " + std::to_string(count));
  // Past the limit the C++ check refuses the call; the copy stops there.
  expressions.parameters.resize(std::min(count, clscan::max_parameters + 1));
  for (std::size_t p = 0; p < expressions.parameters.size(); ++p) {
    const clscan_parameter& given = parameters[p];
    if (!given.name)
      throw clscan::invalid_argument(std::string("clscan: ") + name + ".parameters[" + std::to_string(p) +
                                     "].name is NULL");
    clscan::parameter& made = expressions.parameters[p];
    made.name = given.name;
    switch (element_type_of(integer_of(given.type))) {
    case clscan::element_type::int32: made.value = given.value.i32; break;
    case clscan::element_type::uint32: made.value = given.value.u32; break;
    case clscan::element_type::int64: made.value = given.value.i64; break;
    case clscan::element_type::uint64: made.value = given.value.u64; break;
    case clscan::element_type::float32: made.value = given.value.f32; break;
    case clscan::element_type::float64: made.value = given.value.f64; break;
    }
  }
  if (key_equal) expressions.key_equal = key_equal;
  request.parameters = &expressions.parameters;
  request.key_equal = &expressions.key_equal;
}

// Hands the reference `done` holds over to the caller, where it asked for the event.
void hand_over(cl::Event& done, cl_event* event) noexcept {
  if (!event) return;
  *event = done();
  done() = nullptr;
}

} // namespace clscan::c_api
