// Element types and the names of clscan's enumerations: the one place each spelling lives.
#include "element.hpp"

#include <clscan/names.hpp>

#include <cstdio>
#include <cstring>

#include <iterator>

namespace clscan {
namespace {

// The first enumerator, of the n in `values`, whose name is `name`.
template <typename E, std::size_t N>
std::optional<E> find_named(const E (&values)[N], std::string_view name) noexcept {
  for (const E value : values)
    if (name == to_string(value)) return value;
  return std::nullopt;
}

} // namespace

const char* opencl_name(element_type type) noexcept {
  switch (type) {
  case element_type::int32: return "int";
  case element_type::uint32: return "uint";
  case element_type::int64: return "long";
  case element_type::uint64: return "ulong";
  case element_type::float32: return "float";
  case element_type::float64: return "double";
  }
  return "?";
}

std::size_t size_of(element_type type) noexcept {
  switch (type) {
  case element_type::int32:
  case element_type::uint32:
  case element_type::float32: return 4;
  case element_type::int64:
  case element_type::uint64:
  case element_type::float64: return 8;
  }
  return 0;
}

const char* to_string(algorithm value) noexcept {
  switch (value) {
  case algorithm::automatic: return "automatic";
  case algorithm::single_pass: return "single_pass";
  case algorithm::three_stage: return "three_stage";
  }
  return "?";
}

const char* to_string(op value) noexcept {
  switch (value) {
  case op::sum: return "sum";
  case op::min: return "min";
  case op::max: return "max";
  case op::bit_and: return "bit_and";
  case op::bit_or: return "bit_or";
  case op::bit_xor: return "bit_xor";
  case op::custom: return "custom";
  }
  return "?";
}

const char* to_string(scan_kind value) noexcept {
  return value == scan_kind::inclusive ? "inclusive" : "exclusive";
}

const char* to_string(element_type value) noexcept { return opencl_name(value); }

std::optional<algorithm> parse_algorithm(std::string_view name) noexcept {
  static constexpr algorithm all[] = {algorithm::automatic, algorithm::single_pass, algorithm::three_stage};
  return find_named(all, name);
}

std::optional<op> parse_op(std::string_view name) noexcept {
  static constexpr op all[] = {op::sum, op::min, op::max, op::bit_and, op::bit_or, op::bit_xor, op::custom};
  return find_named(all, name);
}

std::optional<scan_kind> parse_scan_kind(std::string_view name) noexcept {
  static constexpr scan_kind all[] = {scan_kind::inclusive, scan_kind::exclusive};
  return find_named(all, name);
}

std::optional<element_type> parse_element_type(std::string_view name) noexcept {
  static constexpr element_type all[] = {element_type::int32,  element_type::uint32,  element_type::int64,
                                         element_type::uint64, element_type::float32, element_type::float64};
  return find_named(all, name);
}

namespace detail {
namespace {

template <typename T> element_value value_of(T value) { return element_value::of(value); }

// The smallest and largest value of each type, as the identities of max and min.
element_value lowest(element_type type) {
  switch (type) {
  case element_type::int32: return value_of<cl_int>(CL_INT_MIN);
  case element_type::uint32: return value_of<cl_uint>(0);
  case element_type::int64: return value_of<cl_long>(CL_LONG_MIN);
  case element_type::uint64: return value_of<cl_ulong>(0);
  case element_type::float32: return value_of<cl_float>(-CL_HUGE_VALF);
  case element_type::float64: return value_of<cl_double>(-CL_HUGE_VAL);
  }
  return {};
}

element_value highest(element_type type) {
  switch (type) {
  case element_type::int32: return value_of<cl_int>(CL_INT_MAX);
  case element_type::uint32: return value_of<cl_uint>(CL_UINT_MAX);
  case element_type::int64: return value_of<cl_long>(CL_LONG_MAX);
  case element_type::uint64: return value_of<cl_ulong>(CL_ULONG_MAX);
  case element_type::float32: return value_of<cl_float>(CL_HUGE_VALF);
  case element_type::float64: return value_of<cl_double>(CL_HUGE_VAL);
  }
  return {};
}

} // namespace

element_value identity_of(element_type type, op operation, const element_value& custom_identity) {
  // Floating-point min and max are fmin and fmax, whose identity is NaN (a NaN never hides a number:
  // fmin(NaN, x) == x); a floating-point sum's identity is -0.0 (-0.0 + x == x for every x, -0.0 and
  // NaN included, where +0.0 would turn a leading -0.0 into +0.0). Quiet NaNs with no payload.
  if (type == element_type::float32 && (operation == op::min || operation == op::max))
    return value_of<cl_uint>(0x7fc00000u);
  if (type == element_type::float64 && (operation == op::min || operation == op::max))
    return value_of<cl_ulong>(0x7ff8000000000000ull);
  if (type == element_type::float32 && operation == op::sum) return value_of<cl_uint>(0x80000000u);
  if (type == element_type::float64 && operation == op::sum) return value_of<cl_ulong>(0x8000000000000000ull);
  switch (operation) {
  case op::min: return highest(type);
  case op::max: return lowest(type);
  case op::bit_and: return value_of<cl_ulong>(~cl_ulong{0});
  case op::custom: return custom_identity;
  case op::sum:
  case op::bit_or:
  case op::bit_xor: break;
  }
  element_value zero; // all-zero bits are 0 and +0.0 in every supported type
  return zero;
}

std::string opencl_literal(element_type type, const element_value& value) {
  char text[64];
  if (size_of(type) == 4) {
    cl_uint bits = 0;
    std::memcpy(&bits, value.bytes, 4);
    std::snprintf(text, sizeof text, "as_%s((uint)0x%08xu)", opencl_name(type), bits);
  } else {
    cl_ulong bits = 0;
    std::memcpy(&bits, value.bytes, 8);
    std::snprintf(text, sizeof text, "as_%s((ulong)0x%016llxul)", opencl_name(type),
                  static_cast<unsigned long long>(bits));
  }
  return text;
}

} // namespace detail

} // namespace clscan
