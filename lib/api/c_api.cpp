// The C API (include/clscan/clscan.h): each function checks what only C can get wrong (enumerators,
// struct_size, null pointers), forwards to the C++ API, and turns every exception into a status and a
// thread-local message, so that no exception crosses into C.
#include <clscan/cache.hpp>
#include <clscan/clscan.h>
#include <clscan/device.hpp>
#include <clscan/error.hpp>
#include <clscan/primitives.hpp>
#include <clscan/reduce.hpp>
#include <clscan/scan.hpp>

#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

// The failure of this thread's most recent clscan_status call. The message points at a literal when
// even copying the text ran out of memory.
struct last_failure {
  std::string text;
  const char* message = "";
  cl_int opencl_status = CL_SUCCESS;
};
thread_local last_failure last;

clscan_status record(clscan_status status, const char* message, cl_int opencl_status = CL_SUCCESS) noexcept {
  try {
    last.text.assign(message);
    last.message = last.text.c_str();
  } catch (...) {
    last.message = "clscan: out of host memory while recording the error message";
  }
  last.opencl_status = opencl_status;
  return status;
}

clscan_status succeed() noexcept {
  last.text.clear();
  last.message = "";
  last.opencl_status = CL_SUCCESS;
  return CLSCAN_SUCCESS;
}

// The C++ library's messages name its C++ API; a C caller sees the names of clscan.h instead, as in
// the messages of this file. Build logs stay as the compiler wrote them (build errors are not renamed).
std::string with_c_names(std::string message) {
  static const std::pair<std::string_view, std::string_view> names[] = {
      {"select_options::predicate", "the predicate"},
      {"select_options::", "clscan_select_options."},
      {"options::", "clscan_options."},
      {"algorithm::automatic", "CLSCAN_ALGORITHM_AUTOMATIC"},
      {"algorithm::single_pass", "CLSCAN_ALGORITHM_SINGLE_PASS"},
      {"algorithm::three_stage", "CLSCAN_ALGORITHM_THREE_STAGE"},
      {"op::custom", "CLSCAN_OP_CUSTOM"},
      {"cl::Buffer", "cl_mem"},
      {"clscan::", "clscan_"},
  };
  for (const auto& [cpp, c] : names)
    for (std::size_t at = message.find(cpp); at != std::string::npos; at = message.find(cpp, at + c.size()))
      message.replace(at, cpp.size(), c);
  return message;
}

clscan_status record_renamed(clscan_status status, const char* message,
                             cl_int opencl_status = CL_SUCCESS) noexcept {
  try {
    return record(status, with_c_names(message).c_str(), opencl_status);
  } catch (...) {
    return record(status, message, opencl_status);
  }
}

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

// The smallest clscan_options a caller may pass: the layout of clscan 0.1. Fields appended later are
// read only when struct_size covers them.
constexpr std::size_t first_options_size = sizeof(clscan_options);

void check_options(const clscan_options& options) {
  if (options.struct_size < first_options_size || options.struct_size > sizeof(clscan_options))
    throw clscan::invalid_argument("clscan: clscan_options.struct_size is " +
                                   std::to_string(options.struct_size) + ", not sizeof(clscan_options) (" +
                                   std::to_string(sizeof(clscan_options)) +
                                   "); initialise options with CLSCAN_OPTIONS_INIT or clscan_options_init()");
  if (options.wait_list_size > 0 && !options.wait_list)
    throw clscan::invalid_argument("clscan: clscan_options.wait_list is NULL but wait_list_size is " +
                                   std::to_string(options.wait_list_size));
}

// The C++ request of a scan or a by-key scan from clscan_options, which must outlive it (it points into
// `custom_op`).
clscan::detail::scan_request scan_request_of(clscan::scan_kind kind, type_integer type,
                                             const clscan_options& opts, std::string& custom_op) {
  check_options(opts);
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
  return request;
}

// Hands the reference `done` holds over to the caller, where it asked for the event.
void hand_over(cl::Event& done, cl_event* event) noexcept {
  if (!event) return;
  *event = done();
  done() = nullptr;
}

clscan_status scan(clscan::scan_kind kind, cl_command_queue queue, cl_mem in, cl_mem out, size_t n,
                   type_integer type, const clscan_options* options, cl_event* event) noexcept {
  if (event) *event = nullptr;
  return guarded([&] {
    clscan_options defaults;
    clscan_options_init(&defaults);
    const clscan_options& opts = options ? *options : defaults;
    std::string custom_op;
    clscan::detail::scan_request request = scan_request_of(kind, type, opts, custom_op);
    const borrowed_events waits(opts.wait_list, opts.wait_list_size);
    request.wait_list = &waits.get();

    const borrowed<cl::CommandQueue> borrowed_queue(queue);
    const borrowed<cl::Buffer> borrowed_in(in);
    const borrowed<cl::Buffer> borrowed_out(out);
    // In place when the handles are the same: the C++ API compares the buffers' handles.
    cl::Event done =
        clscan::detail::enqueue_scan(borrowed_queue.get(), borrowed_in.get(), borrowed_out.get(), n, request);
    hand_over(done, event);
  });
}

clscan_status reduce(cl_command_queue queue, cl_mem in, cl_mem out, size_t n, type_integer type,
                     const clscan_options* options, cl_event* event) noexcept {
  if (event) *event = nullptr;
  return guarded([&] {
    clscan_options defaults;
    clscan_options_init(&defaults);
    const clscan_options& opts = options ? *options : defaults;
    std::string custom_op;
    clscan::detail::scan_request request =
        scan_request_of(clscan::scan_kind::inclusive, type, opts, custom_op);
    const borrowed_events waits(opts.wait_list, opts.wait_list_size);
    request.wait_list = &waits.get();
    const borrowed<cl::CommandQueue> borrowed_queue(queue);
    const borrowed<cl::Buffer> borrowed_in(in);
    const borrowed<cl::Buffer> borrowed_out(out);
    cl::Event done = clscan::detail::enqueue_reduce(borrowed_queue.get(), borrowed_in.get(),
                                                    borrowed_out.get(), n, request);
    hand_over(done, event);
  });
}

clscan_status scan_by_key(clscan::detail::primitive kind, cl_command_queue queue, cl_mem keys,
                          type_integer key_type, cl_mem in, cl_mem out, size_t n, type_integer type,
                          const clscan_options* options, cl_event* event) noexcept {
  if (event) *event = nullptr;
  return guarded([&] {
    clscan_options defaults;
    clscan_options_init(&defaults);
    const clscan_options& opts = options ? *options : defaults;
    std::string custom_op;
    clscan::detail::primitive_request request;
    request.kind = kind;
    request.scan =
        scan_request_of(kind == clscan::detail::primitive::inclusive_by_key ? clscan::scan_kind::inclusive
                                                                            : clscan::scan_kind::exclusive,
                        type, opts, custom_op);
    request.key_type = element_type_of(key_type);
    const borrowed_events waits(opts.wait_list, opts.wait_list_size);
    request.scan.wait_list = &waits.get();

    const borrowed<cl::CommandQueue> borrowed_queue(queue);
    const borrowed<cl::Buffer> borrowed_keys(keys);
    const borrowed<cl::Buffer> borrowed_in(in);
    const borrowed<cl::Buffer> borrowed_out(out);
    cl::Event done =
        clscan::detail::enqueue_primitive(borrowed_queue.get(), borrowed_in.get(), &borrowed_keys.get(),
                                          borrowed_out.get(), nullptr, n, request);
    hand_over(done, event);
  });
}

constexpr std::size_t first_select_options_size = sizeof(clscan_select_options);

void check_select_options(const clscan_select_options& options) {
  if (options.struct_size < first_select_options_size || options.struct_size > sizeof(clscan_select_options))
    throw clscan::invalid_argument(
        "clscan: clscan_select_options.struct_size is " + std::to_string(options.struct_size) +
        ", not sizeof(clscan_select_options) (" + std::to_string(sizeof(clscan_select_options)) +
        "); initialise options with CLSCAN_SELECT_OPTIONS_INIT or clscan_select_options_init()");
  if (options.wait_list_size > 0 && !options.wait_list)
    throw clscan::invalid_argument("clscan: clscan_select_options.wait_list is NULL but wait_list_size is " +
                                   std::to_string(options.wait_list_size));
}

const char* c_name_of(clscan::detail::primitive kind) noexcept {
  switch (kind) {
  case clscan::detail::primitive::select_if: return "clscan_select_if";
  case clscan::detail::primitive::select_flagged: return "clscan_select_flagged";
  case clscan::detail::primitive::partition_if: return "clscan_partition_if";
  case clscan::detail::primitive::unique: return "clscan_unique";
  case clscan::detail::primitive::inclusive_by_key: return "clscan_inclusive_by_key";
  case clscan::detail::primitive::exclusive_by_key: return "clscan_exclusive_by_key";
  case clscan::detail::primitive::reduce: return "clscan_reduce";
  }
  return "clscan";
}

// The selections. `flags` is used by select_flagged only; `predicate` by select_if and partition_if,
// which must have one.
clscan_status selection(clscan::detail::primitive kind, cl_command_queue queue, cl_mem in, cl_mem flags,
                        cl_mem out, cl_mem count, size_t n, type_integer type, const char* predicate,
                        const clscan_select_options* options, cl_event* event) noexcept {
  if (event) *event = nullptr;
  return guarded([&] {
    clscan_select_options defaults;
    clscan_select_options_init(&defaults);
    const clscan_select_options& opts = options ? *options : defaults;
    check_select_options(opts);

    const bool takes_predicate =
        kind == clscan::detail::primitive::select_if || kind == clscan::detail::primitive::partition_if;
    std::string predicate_text;
    if (takes_predicate) {
      if (!predicate || !*predicate)
        throw clscan::invalid_argument(std::string(c_name_of(kind)) + ": the predicate is " +
                                       (predicate ? "empty" : "NULL") +
                                       "; give an OpenCL C expression of x and i, e.g. \"x > 0\"");
      predicate_text = predicate;
    }
    if (!count) throw clscan::invalid_argument(std::string(c_name_of(kind)) + ": the count buffer is NULL");

    clscan::detail::primitive_request request;
    request.kind = kind;
    request.scan.type = element_type_of(type);
    request.scan.algo = algorithm_of(integer_of(opts.algorithm));
    request.scan.in_offset = opts.in_offset;
    request.scan.out_offset = opts.out_offset;
    request.predicate = &predicate_text;
    request.count_offset = opts.count_offset;
    request.flags_offset = opts.flags_offset;
    const borrowed_events waits(opts.wait_list, opts.wait_list_size);
    request.scan.wait_list = &waits.get();

    const borrowed<cl::CommandQueue> borrowed_queue(queue);
    const borrowed<cl::Buffer> borrowed_in(in);
    const borrowed<cl::Buffer> borrowed_flags(flags);
    const borrowed<cl::Buffer> borrowed_out(out);
    const borrowed<cl::Buffer> borrowed_count(count);
    const bool flagged = kind == clscan::detail::primitive::select_flagged;
    cl::Event done = clscan::detail::enqueue_primitive(borrowed_queue.get(), borrowed_in.get(),
                                                       flagged ? &borrowed_flags.get() : nullptr,
                                                       borrowed_out.get(), &borrowed_count.get(), n, request);
    hand_over(done, event);
  });
}

} // namespace

extern "C" {

clscan_status clscan_inclusive(cl_command_queue queue, cl_mem in, cl_mem out, size_t n, clscan_type type,
                               const clscan_options* options, cl_event* event) {
  return scan(clscan::scan_kind::inclusive, queue, in, out, n, integer_of(type), options, event);
}

clscan_status clscan_exclusive(cl_command_queue queue, cl_mem in, cl_mem out, size_t n, clscan_type type,
                               const clscan_options* options, cl_event* event) {
  return scan(clscan::scan_kind::exclusive, queue, in, out, n, integer_of(type), options, event);
}

clscan_status clscan_select_if(cl_command_queue queue, cl_mem in, cl_mem out, cl_mem count, size_t n,
                               clscan_type type, const char* predicate, const clscan_select_options* options,
                               cl_event* event) {
  return selection(clscan::detail::primitive::select_if, queue, in, nullptr, out, count, n, integer_of(type),
                   predicate, options, event);
}

clscan_status clscan_select_flagged(cl_command_queue queue, cl_mem in, cl_mem flags, cl_mem out, cl_mem count,
                                    size_t n, clscan_type type, const clscan_select_options* options,
                                    cl_event* event) {
  return selection(clscan::detail::primitive::select_flagged, queue, in, flags, out, count, n,
                   integer_of(type), nullptr, options, event);
}

clscan_status clscan_partition_if(cl_command_queue queue, cl_mem in, cl_mem out, cl_mem count, size_t n,
                                  clscan_type type, const char* predicate,
                                  const clscan_select_options* options, cl_event* event) {
  return selection(clscan::detail::primitive::partition_if, queue, in, nullptr, out, count, n,
                   integer_of(type), predicate, options, event);
}

clscan_status clscan_unique(cl_command_queue queue, cl_mem in, cl_mem out, cl_mem count, size_t n,
                            clscan_type type, const clscan_select_options* options, cl_event* event) {
  return selection(clscan::detail::primitive::unique, queue, in, nullptr, out, count, n, integer_of(type),
                   nullptr, options, event);
}

clscan_status clscan_inclusive_by_key(cl_command_queue queue, cl_mem keys, clscan_type key_type, cl_mem in,
                                      cl_mem out, size_t n, clscan_type type, const clscan_options* options,
                                      cl_event* event) {
  return scan_by_key(clscan::detail::primitive::inclusive_by_key, queue, keys, integer_of(key_type), in, out,
                     n, integer_of(type), options, event);
}

clscan_status clscan_exclusive_by_key(cl_command_queue queue, cl_mem keys, clscan_type key_type, cl_mem in,
                                      cl_mem out, size_t n, clscan_type type, const clscan_options* options,
                                      cl_event* event) {
  return scan_by_key(clscan::detail::primitive::exclusive_by_key, queue, keys, integer_of(key_type), in, out,
                     n, integer_of(type), options, event);
}

clscan_status clscan_reduce(cl_command_queue queue, cl_mem in, cl_mem out, size_t n, clscan_type type,
                            const clscan_options* options, cl_event* event) {
  return reduce(queue, in, out, n, integer_of(type), options, event);
}

const char* clscan_last_error_message(void) { return last.message; }

cl_int clscan_last_opencl_status(void) { return last.opencl_status; }

const char* clscan_status_name(clscan_status status) {
  switch (integer_of(status)) {
  case CLSCAN_SUCCESS: return "CLSCAN_SUCCESS";
  case CLSCAN_INVALID_ARGUMENT: return "CLSCAN_INVALID_ARGUMENT";
  case CLSCAN_UNSUPPORTED: return "CLSCAN_UNSUPPORTED";
  case CLSCAN_BUILD_ERROR: return "CLSCAN_BUILD_ERROR";
  case CLSCAN_OPENCL_ERROR: return "CLSCAN_OPENCL_ERROR";
  case CLSCAN_OUT_OF_MEMORY: return "CLSCAN_OUT_OF_MEMORY";
  case CLSCAN_DEVICE_NOT_FOUND: return "CLSCAN_DEVICE_NOT_FOUND";
  case CLSCAN_INTERNAL_ERROR: return "CLSCAN_INTERNAL_ERROR";
  }
  return "CLSCAN_UNKNOWN_STATUS";
}

const char* clscan_opencl_status_name(cl_int status) { return clscan::status_name(status); }

const char* clscan_version(void) { return CLSCAN_VERSION_STRING; }

clscan_status clscan_select_device(cl_device_id* device) {
  if (device) *device = nullptr;
  return guarded(
      [&] {
        if (!device)
          throw clscan::invalid_argument("clscan: clscan_select_device: the device pointer is NULL");
        // A root device, which OpenCL does not reference-count: the handle outlives the wrapper.
        *device = clscan::select_device()();
      },
      CLSCAN_DEVICE_NOT_FOUND);
}

clscan_status clscan_release_cached_resources(void) {
  return guarded([] { clscan::release_cached_resources(); });
}

clscan_status clscan_release_context_resources(cl_context context) {
  return guarded([&] {
    const borrowed<cl::Context> borrowed_context(context);
    clscan::release_cached_resources(borrowed_context.get());
  });
}

clscan_status clscan_set_cache_limit(size_t contexts) {
  return guarded([&] { clscan::set_cache_limit(contexts); });
}

clscan_status clscan_get_cache_limit(size_t* contexts) {
  return guarded([&] {
    if (!contexts)
      throw clscan::invalid_argument("clscan: clscan_get_cache_limit: the result pointer is NULL");
    *contexts = clscan::cache_limit();
  });
}

} // extern "C"
