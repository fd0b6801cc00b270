// The element types clscan scans, and how each is named in OpenCL C.
#pragma once

#include <clscan/config.hpp>

#include <cstring>
#include <type_traits>

namespace clscan {

enum class element_type { int32, uint32, int64, uint64, float32, float64 };

// OpenCL C spelling of an element type: "int", "uint", "long", "ulong", "float", "double".
const char* opencl_name(element_type type) noexcept;
std::size_t size_of(element_type type) noexcept;

template <typename T> struct element_traits { static constexpr bool supported = false; };
template <> struct element_traits<cl_int> {
  static constexpr bool supported = true;
  static constexpr element_type type = element_type::int32;
};
template <> struct element_traits<cl_uint> {
  static constexpr bool supported = true;
  static constexpr element_type type = element_type::uint32;
};
template <> struct element_traits<cl_long> {
  static constexpr bool supported = true;
  static constexpr element_type type = element_type::int64;
};
template <> struct element_traits<cl_ulong> {
  static constexpr bool supported = true;
  static constexpr element_type type = element_type::uint64;
};
template <> struct element_traits<cl_float> {
  static constexpr bool supported = true;
  static constexpr element_type type = element_type::float32;
};
template <> struct element_traits<cl_double> {
  static constexpr bool supported = true;
  static constexpr element_type type = element_type::float64;
};

namespace detail {

// An element value with its type erased, so the dispatch layer is not a template.
struct element_value {
  unsigned char bytes[8] = {};

  template <typename T> static element_value of(const T& value) {
    static_assert(sizeof(T) <= sizeof(bytes), "element types are at most 8 bytes");
    element_value v;
    std::memcpy(v.bytes, &value, sizeof(T));
    return v;
  }
};

} // namespace detail
} // namespace clscan
