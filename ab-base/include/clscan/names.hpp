// Names of clscan's enumerations, one spelling each, as the tools' flags, the logs and error messages
// write them; and back from a name.
#pragma once

#include <clscan/options.hpp>
#include <clscan/scan.hpp>
#include <clscan/types.hpp>

#include <optional>
#include <string_view>

namespace clscan {

// "automatic", "single_pass", "three_stage".
const char* to_string(algorithm value) noexcept;
// "sum", "min", "max", "bit_and", "bit_or", "bit_xor", "custom".
const char* to_string(op value) noexcept;
// "inclusive", "exclusive".
const char* to_string(scan_kind value) noexcept;
// The OpenCL C name: "int", "uint", "long", "ulong", "float", "double" (as opencl_name).
const char* to_string(element_type value) noexcept;

// The value whose to_string is `name` exactly, or std::nullopt.
std::optional<algorithm> parse_algorithm(std::string_view name) noexcept;
std::optional<op> parse_op(std::string_view name) noexcept;
std::optional<scan_kind> parse_scan_kind(std::string_view name) noexcept;
std::optional<element_type> parse_element_type(std::string_view name) noexcept;

} // namespace clscan
