// What every function of the C API (include/clscan/clscan.h) shares: the status of a call and the
// thread-local message (c_api.cpp), handles borrowed from the caller, and the conversions of C
// enumerations and options to the C++ API's (c_api_support.cpp).
#pragma once

#include <clscan/clscan.h>
#include <clscan/error.hpp>
#include <clscan/scan.hpp>

#include <cstddef>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace clscan::c_api {

// Records the failure of this thread's call and returns `status`; record_renamed gives the message
// the names of clscan.h first.
clscan_status record(clscan_status status, const char* message, cl_int opencl_status = CL_SUCCESS) noexcept;
clscan_status record_renamed(clscan_status status, const char* message,
                             cl_int opencl_status = CL_SUCCESS) noexcept;
clscan_status succeed() noexcept;

// Runs `body`, mapping clscan's exception hierarchy onto the status enum. `plain_error` is the status
// for a clscan::error of none of the derived types (clscan_select_device: no device; elsewhere a
// fault in clscan).
template <typename Body>
clscan_status guarded(Body&& body, clscan_status plain_error = CLSCAN_INTERNAL_ERROR) noexcept {
  try {
    body();
    return succeed();
  } catch (const clscan::build_error& e) {
    return record(CLSCAN_BUILD_ERROR, e.what(), e.status());
  } catch (const clscan::opencl_error& e) {
    return record_renamed(CLSCAN_OPENCL_ERROR, e.what(), e.status());
  } catch (const clscan::invalid_argument& e) {
    return record_renamed(CLSCAN_INVALID_ARGUMENT, e.what());
  } catch (const clscan::unsupported_error& e) {
    return record_renamed(CLSCAN_UNSUPPORTED, e.what());
  } catch (const clscan::error& e) {
    return record_renamed(plain_error, e.what());
  } catch (const std::bad_alloc&) {
    return record(CLSCAN_OUT_OF_MEMORY, "clscan: out of host memory");
  } catch (const std::exception& e) {
    return record(CLSCAN_INTERNAL_ERROR, e.what());
  } catch (...) {
    return record(CLSCAN_INTERNAL_ERROR, "clscan: an unknown exception");
  }
}

// A C++ wrapper over a handle the caller owns, for the length of one call: made without retaining
// the handle, and emptied before its destructor would release it. Copies the library keeps (a queue
// it remembers) are ordinary wrappers with references of their own.
template <typename Wrapper> class borrowed {
public:
  explicit borrowed(typename Wrapper::cl_type handle) : wrapper_(handle, false) {}
  ~borrowed() { wrapper_() = nullptr; }
  borrowed(const borrowed&) = delete;
  borrowed& operator=(const borrowed&) = delete;
  const Wrapper& get() const noexcept { return wrapper_; }

private:
  Wrapper wrapper_;
};

// The wait list as the C++ API takes it, borrowed in the same way.
class borrowed_events {
public:
  borrowed_events(const cl_event* events, cl_uint count) {
    events_.reserve(count); // the only allocation: once it succeeded, nothing below throws
    for (cl_uint i = 0; i < count; ++i)
      events_.emplace_back(events[i], false);
  }
  ~borrowed_events() {
    for (cl::Event& event : events_)
      event() = nullptr;
  }
  borrowed_events(const borrowed_events&) = delete;
  borrowed_events& operator=(const borrowed_events&) = delete;
  const std::vector<cl::Event>& get() const noexcept { return events_; }

private:
  std::vector<cl::Event> events_;
};

// C lets a caller pass any integer as an enumeration, while C++ may assume that an enumeration holds
// only values its enumerators span (UBSan reports loading 99 as a clscan_type): enumerations from C
// are read as their integer, through their bytes.
template <typename Enum> std::underlying_type_t<Enum> integer_of(const Enum& value) noexcept {
  std::underlying_type_t<Enum> integer;
  static_assert(sizeof integer == sizeof value, "an enumeration has the size of its underlying type");
  std::memcpy(&integer, &value, sizeof integer);
  return integer;
}

using type_integer = std::underlying_type_t<clscan_type>;

clscan::element_type element_type_of(type_integer type);
clscan::op op_of(std::underlying_type_t<clscan_op> operation);
clscan::algorithm algorithm_of(std::underlying_type_t<clscan_algorithm> algo);
clscan::detail::element_value value_of(const clscan_value& value, clscan::element_type type);

// The smallest options struct a caller may pass: its layout in the first version that had it. Fields
// appended later are read only when struct_size covers them.
constexpr std::size_t first_options_size = offsetof(clscan_options, parameters);
constexpr std::size_t first_select_options_size = offsetof(clscan_select_options, parameters);
constexpr std::size_t first_sort_options_size = sizeof(clscan_sort_options);

// What C can get wrong in every options struct of clscan.h: its struct_size and its wait list. `name`
// is the struct's, `init_macro` its initialiser's (the function is name + "_init").
template <typename Options>
void check_struct(const Options& options, std::size_t first_size, const char* name, const char* init_macro) {
  if (options.struct_size < first_size || options.struct_size > sizeof(Options))
    throw clscan::invalid_argument(std::string("clscan: ") + name + ".struct_size is " +
                                   std::to_string(options.struct_size) + ", not sizeof(" + name + ") (" +
                                   std::to_string(sizeof(Options)) + "); initialise options with " +
                                   init_macro + " or " + name + "_init()");
  if (options.wait_list_size > 0 && !options.wait_list)
    throw clscan::invalid_argument(std::string("clscan: ") + name +
                                   ".wait_list is NULL but wait_list_size is " +
                                   std::to_string(options.wait_list_size));
}
// A call that takes clscan_select_options (the selections, unique_by_key, run_length_encode): the event
// cleared first, then under guarded the caller's options, or the defaults for NULL, checked and handed to
// `body`.
template <typename Body>
clscan_status with_select_options(const clscan_select_options* options, cl_event* event,
                                  Body&& body) noexcept {
  if (event) *event = nullptr;
  return guarded([&] {
    const clscan_select_options defaults = clscan_select_options_defaults();
    const clscan_select_options& opts = options ? *options : defaults;
    check_struct(opts, first_select_options_size, "clscan_select_options", "CLSCAN_SELECT_OPTIONS_INIT");
    body(opts);
  });
}

// clscan_select_options.out_capacity where has_out_capacity is set and struct_size covers both.
inline std::optional<std::size_t> out_capacity_of(const clscan_select_options& opts) {
  if (opts.struct_size < offsetof(clscan_select_options, out_capacity) + sizeof opts.out_capacity ||
      !opts.has_out_capacity)
    return std::nullopt;
  return opts.out_capacity;
}

clscan::detail::scan_request scan_request_of(clscan::scan_kind kind, type_integer type,
                                             const clscan_options& opts, std::string& custom_op,
                                             bool takes_out_capacity = false);

// clscan_options.out_capacity where has_out_capacity is set and struct_size covers both
// (clscan_reduce_by_key).
inline std::optional<std::size_t> out_capacity_of(const clscan_options& opts) {
  if (opts.struct_size < offsetof(clscan_options, out_capacity) + sizeof opts.out_capacity ||
      !opts.has_out_capacity)
    return std::nullopt;
  return opts.out_capacity;
}

// The named parameters and key_equal of an options struct (clscan_options, clscan_select_options), when
// its struct_size covers them, copied into `expressions` and pointed to by `request`.
struct c_expressions {
  std::vector<clscan::parameter> parameters;
  std::string key_equal;
  std::string transform;
};
void take_expressions(const clscan_parameter* parameters, std::size_t count, const char* key_equal,
                      const char* name, c_expressions& expressions, clscan::detail::scan_request& request);
template <typename Options>
void take_expressions(const Options& opts, const char* name, c_expressions& expressions,
                      clscan::detail::scan_request& request) {
  if (opts.struct_size < offsetof(Options, key_equal) + sizeof opts.key_equal) return;
  take_expressions(opts.parameters, opts.parameter_count, opts.key_equal, name, expressions, request);
  if constexpr (std::is_same_v<Options, clscan_options>) {
    if (opts.struct_size < offsetof(Options, transform) + sizeof opts.transform) return;
    if (opts.transform) expressions.transform = opts.transform;
    request.transform = &expressions.transform;
  }
}
void hand_over(cl::Event& done, cl_event* event) noexcept;

} // namespace clscan::c_api
