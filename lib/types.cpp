// Element types and the names of clscan's enumerations: the one place each spelling lives.
#include <clscan/names.hpp>

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

} // namespace clscan
