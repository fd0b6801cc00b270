// The C API (include/clscan/clscan.h): each function checks what only C can get wrong (enumerators,
// struct_size, null pointers), forwards to the C++ API, and turns every exception into a status and a
// thread-local message, so that no exception crosses into C.
#include "c_api_support.hpp"

#include <clscan/cache.hpp>
#include <clscan/clscan.h>
#include <clscan/device.hpp>
#include <clscan/error.hpp>
#include <clscan/primitives.hpp>
#include <clscan/reduce.hpp>
#include <clscan/scan.hpp>
#include <clscan/sort.hpp>

#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace clscan::c_api {

// The failure of this thread's most recent clscan_status call. The message points at a literal when
// even copying the text ran out of memory.
struct last_failure {
  std::string text;
  const char* message = "";
  cl_int opencl_status = CL_SUCCESS;
};
thread_local last_failure last;

clscan_status record(clscan_status status, const char* message, cl_int opencl_status) noexcept {
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
      {"sort_options::", "clscan_sort_options."},
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

clscan_status record_renamed(clscan_status status, const char* message, cl_int opencl_status) noexcept {
  try {
    return record(status, with_c_names(message).c_str(), opencl_status);
  } catch (...) {
    return record(status, message, opencl_status);
  }
}

} // namespace clscan::c_api

namespace {

using namespace clscan::c_api;

// The calls of clscan_options: the scans, reduce and the scans by key (`keys` and `key_type` used by
// the latter only).
enum class scan_call { inclusive, exclusive, reduce, inclusive_by_key, exclusive_by_key };

clscan_status scan(scan_call call, cl_command_queue queue, cl_mem keys, type_integer key_type, cl_mem in,
                   cl_mem out, size_t n, type_integer type, const clscan_options* options,
                   cl_event* event) noexcept {
  if (event) *event = nullptr;
  return guarded([&] {
    const clscan_options defaults = clscan_options_defaults();
    const clscan_options& opts = options ? *options : defaults;
    const bool by_key = call == scan_call::inclusive_by_key || call == scan_call::exclusive_by_key;
    const bool exclusive = call == scan_call::exclusive || call == scan_call::exclusive_by_key;
    std::string custom_op;
    clscan::detail::primitive_request request;
    request.scan = scan_request_of(exclusive ? clscan::scan_kind::exclusive : clscan::scan_kind::inclusive,
                                   type, opts, custom_op);
    c_expressions expressions;
    take_expressions(opts, "clscan_options", expressions, request.scan);
    if (by_key) {
      request.kind = exclusive ? clscan::detail::primitive::exclusive_by_key
                               : clscan::detail::primitive::inclusive_by_key;
      request.key_type = element_type_of(key_type);
    }
    const borrowed_events waits(opts.wait_list, opts.wait_list_size);
    request.scan.wait_list = &waits.get();

    const borrowed<cl::CommandQueue> borrowed_queue(queue);
    const borrowed<cl::Buffer> borrowed_keys(keys);
    const borrowed<cl::Buffer> borrowed_in(in);
    const borrowed<cl::Buffer> borrowed_out(out);
    const cl::CommandQueue& q = borrowed_queue.get();
    cl::Event done;
    if (by_key)
      done = clscan::detail::enqueue_primitive(q, borrowed_in.get(), &borrowed_keys.get(), borrowed_out.get(),
                                               nullptr, n, request);
    else if (call == scan_call::reduce)
      done = clscan::detail::enqueue_reduce(q, borrowed_in.get(), borrowed_out.get(), n, request.scan);
    else // in place when the handles are the same: the C++ API compares the buffers' handles
      done = clscan::detail::enqueue_scan(q, borrowed_in.get(), borrowed_out.get(), n, request.scan);
    hand_over(done, event);
  });
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
  case clscan::detail::primitive::select_run_heads:
  case clscan::detail::primitive::runs_unique: return "clscan_unique_by_key";
  case clscan::detail::primitive::select_run_tails:
  case clscan::detail::primitive::runs_reduce: return "clscan_reduce_by_key";
  case clscan::detail::primitive::runs_encode: return "clscan_run_length_encode";
  case clscan::detail::primitive::segment_offsets:
  case clscan::detail::primitive::segment_reduce: return "clscan_reduce_segmented";
  }
  return "clscan";
}

// The selections. `flags` is used by select_flagged only; `predicate` by select_if and partition_if,
// which must have one.
clscan_status selection(clscan::detail::primitive kind, cl_command_queue queue, cl_mem in, cl_mem flags,
                        cl_mem out, cl_mem count, size_t n, type_integer type, const char* predicate,
                        const clscan_select_options* options, cl_event* event) noexcept {
  return with_select_options(options, event, [&](const clscan_select_options& opts) {
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
    request.out_capacity = out_capacity_of(opts);
    c_expressions expressions;
    take_expressions(opts, "clscan_select_options", expressions, request.scan);
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

// The three sorts. values_in: sort_by_key's, else null; values_out: sort_by_key's values or
// sorted_order's indices, else null.
clscan_status sort(clscan::detail::sort_call call, const char* name, cl_command_queue queue, cl_mem keys_in,
                   cl_mem keys_out, cl_mem values_in, cl_mem values_out, size_t n, type_integer key_type,
                   type_integer value_type, const clscan_sort_options* options, cl_event* event) noexcept {
  if (event) *event = nullptr;
  return guarded([&] {
    const clscan_sort_options defaults = clscan_sort_options_defaults();
    const clscan_sort_options& opts = options ? *options : defaults;
    check_struct(opts, first_sort_options_size, "clscan_sort_options", "CLSCAN_SORT_OPTIONS_INIT");
    const auto null_buffer = [&](const char* which) {
      throw clscan::invalid_argument(std::string(name) + ": the " + which + " buffer is NULL");
    };
    if (!keys_in) null_buffer(call == clscan::detail::sort_call::order ? "keys" : "keys_in");
    if (call != clscan::detail::sort_call::order && !keys_out) null_buffer("keys_out");
    if (call == clscan::detail::sort_call::pairs && !values_in) null_buffer("values_in");
    if (call == clscan::detail::sort_call::pairs && !values_out) null_buffer("values_out");
    if (call == clscan::detail::sort_call::order && !values_out) null_buffer("indices_out");

    clscan::detail::sort_request request;
    request.call = call;
    request.key_type = element_type_of(key_type);
    if (call == clscan::detail::sort_call::pairs) request.value_type = element_type_of(value_type);
    if (call == clscan::detail::sort_call::order) {
      request.value_type = element_type_of(value_type);
      if (request.value_type != clscan::element_type::uint32 &&
          request.value_type != clscan::element_type::uint64)
        throw clscan::invalid_argument(std::string(name) +
                                       ": the index type must be CLSCAN_TYPE_UINT32 or CLSCAN_TYPE_UINT64");
    }
    const unsigned key_bits = 8 * static_cast<unsigned>(clscan::size_of(request.key_type));
    request.descending = opts.descending != 0;
    request.begin_bit = opts.begin_bit;
    request.end_bit = opts.end_bit == 0 ? key_bits : opts.end_bit;
    request.keys_in_offset = opts.keys_in_offset;
    request.keys_out_offset =
        call == clscan::detail::sort_call::order ? opts.keys_in_offset : opts.keys_out_offset;
    request.values_in_offset = opts.values_in_offset;
    request.values_out_offset = opts.values_out_offset;
    request.algo = algorithm_of(integer_of(opts.algorithm));
    const borrowed_events waits(opts.wait_list, opts.wait_list_size);
    request.wait_list = &waits.get();

    const borrowed<cl::CommandQueue> borrowed_queue(queue);
    const borrowed<cl::Buffer> borrowed_keys_in(keys_in);
    const borrowed<cl::Buffer> borrowed_keys_out(call == clscan::detail::sort_call::order ? keys_in
                                                                                          : keys_out);
    const borrowed<cl::Buffer> borrowed_values_in(values_in);
    const borrowed<cl::Buffer> borrowed_values_out(values_out);
    cl::Event done = clscan::detail::enqueue_sort(
        borrowed_queue.get(), borrowed_keys_in.get(), borrowed_keys_out.get(),
        call == clscan::detail::sort_call::pairs ? &borrowed_values_in.get() : nullptr,
        call == clscan::detail::sort_call::keys ? nullptr : &borrowed_values_out.get(), n, request);
    hand_over(done, event);
  });
}

} // namespace

extern "C" {

clscan_status clscan_inclusive(cl_command_queue queue, cl_mem in, cl_mem out, size_t n, clscan_type type,
                               const clscan_options* options, cl_event* event) {
  return scan(scan_call::inclusive, queue, nullptr, 0, in, out, n, integer_of(type), options, event);
}

clscan_status clscan_exclusive(cl_command_queue queue, cl_mem in, cl_mem out, size_t n, clscan_type type,
                               const clscan_options* options, cl_event* event) {
  return scan(scan_call::exclusive, queue, nullptr, 0, in, out, n, integer_of(type), options, event);
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
  return scan(scan_call::inclusive_by_key, queue, keys, integer_of(key_type), in, out, n, integer_of(type),
              options, event);
}

clscan_status clscan_exclusive_by_key(cl_command_queue queue, cl_mem keys, clscan_type key_type, cl_mem in,
                                      cl_mem out, size_t n, clscan_type type, const clscan_options* options,
                                      cl_event* event) {
  return scan(scan_call::exclusive_by_key, queue, keys, integer_of(key_type), in, out, n, integer_of(type),
              options, event);
}

clscan_status clscan_reduce(cl_command_queue queue, cl_mem in, cl_mem out, size_t n, clscan_type type,
                            const clscan_options* options, cl_event* event) {
  return scan(scan_call::reduce, queue, nullptr, 0, in, out, n, integer_of(type), options, event);
}

clscan_status clscan_sort(cl_command_queue queue, cl_mem keys_in, cl_mem keys_out, size_t n,
                          clscan_type key_type, const clscan_sort_options* options, cl_event* event) {
  return sort(clscan::detail::sort_call::keys, "clscan_sort", queue, keys_in, keys_out, nullptr, nullptr, n,
              integer_of(key_type), CLSCAN_TYPE_UINT32, options, event);
}

clscan_status clscan_sort_by_key(cl_command_queue queue, cl_mem keys_in, cl_mem values_in, cl_mem keys_out,
                                 cl_mem values_out, size_t n, clscan_type key_type, clscan_type value_type,
                                 const clscan_sort_options* options, cl_event* event) {
  return sort(clscan::detail::sort_call::pairs, "clscan_sort_by_key", queue, keys_in, keys_out, values_in,
              values_out, n, integer_of(key_type), integer_of(value_type), options, event);
}

clscan_status clscan_sorted_order(cl_command_queue queue, cl_mem keys, cl_mem indices_out, size_t n,
                                  clscan_type key_type, clscan_type index_type,
                                  const clscan_sort_options* options, cl_event* event) {
  return sort(clscan::detail::sort_call::order, "clscan_sorted_order", queue, keys, keys, nullptr,
              indices_out, n, integer_of(key_type), integer_of(index_type), options, event);
}

const char* clscan_last_error_message(void) { return last.message; }

cl_int clscan_last_opencl_status(void) { return last.opencl_status; }

} // extern "C"
