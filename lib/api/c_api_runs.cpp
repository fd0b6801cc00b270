// The C API's calls on runs of equal keys (clscan_reduce_by_key, clscan_unique_by_key,
// clscan_run_length_encode in include/clscan/clscan.h): what only C can get wrong, then runs.hpp's
// request, as c_api.cpp does for the other calls.
#include "c_api_support.hpp"

#include <clscan/clscan.h>
#include <clscan/error.hpp>
#include <clscan/runs.hpp>

#include <string>

namespace {

using namespace clscan::c_api;

// Enqueues a checked request; values_in null for run_length_encode.
void enqueue(cl_command_queue queue, cl_mem keys_in, cl_mem values_in, cl_mem keys_out, cl_mem values_out,
             cl_mem count, size_t n, const clscan::detail::run_request& request, cl_event* event) {
  const borrowed<cl::CommandQueue> borrowed_queue(queue);
  const borrowed<cl::Buffer> borrowed_keys_in(keys_in);
  const borrowed<cl::Buffer> borrowed_values_in(values_in);
  const borrowed<cl::Buffer> borrowed_keys_out(keys_out);
  const borrowed<cl::Buffer> borrowed_values_out(values_out);
  const borrowed<cl::Buffer> borrowed_count(count);
  cl::Event done = clscan::detail::enqueue_runs(
      borrowed_queue.get(), borrowed_keys_in.get(), values_in ? &borrowed_values_in.get() : nullptr,
      borrowed_keys_out.get(), borrowed_values_out.get(), borrowed_count.get(), n, request);
  hand_over(done, event);
}

// unique_by_key and run_length_encode: the selections' options.
clscan_status by_selection(clscan::detail::run_call kind, const char* name, cl_command_queue queue,
                           cl_mem keys_in, type_integer key_type, cl_mem values_in, type_integer value_type,
                           cl_mem keys_out, cl_mem values_out, cl_mem count, size_t n,
                           const clscan_select_options* options, cl_event* event) noexcept {
  return with_select_options(options, event, [&](const clscan_select_options& opts) {
    if (kind == clscan::detail::run_call::unique_by_key && !values_in)
      throw clscan::invalid_argument(std::string(name) + ": the values buffer is NULL");
    clscan::detail::run_request request;
    request.kind = kind;
    request.key_type = element_type_of(key_type);
    request.scan.type = element_type_of(value_type);
    if (kind == clscan::detail::run_call::run_length_encode &&
        request.scan.type != clscan::element_type::uint32 &&
        request.scan.type != clscan::element_type::uint64)
      throw clscan::invalid_argument(std::string(name) +
                                     ": the length type must be CLSCAN_TYPE_UINT32 or CLSCAN_TYPE_UINT64");
    request.scan.algo = algorithm_of(integer_of(opts.algorithm));
    request.scan.in_offset = opts.in_offset;
    request.scan.out_offset = opts.out_offset;
    request.count_offset = opts.count_offset;
    request.out_capacity = out_capacity_of(opts);
    const borrowed_events waits(opts.wait_list, opts.wait_list_size);
    request.scan.wait_list = &waits.get();
    enqueue(queue, keys_in, values_in, keys_out, values_out, count, n, request, event);
  });
}

} // namespace

extern "C" {

clscan_status clscan_reduce_by_key(cl_command_queue queue, cl_mem keys_in, clscan_type key_type,
                                   cl_mem values_in, clscan_type value_type, cl_mem keys_out,
                                   cl_mem values_out, cl_mem count, size_t count_offset, size_t n,
                                   const clscan_options* options, cl_event* event) {
  if (event) *event = nullptr;
  return guarded([&] {
    if (!values_in) throw clscan::invalid_argument("clscan_reduce_by_key: the values buffer is NULL");
    const clscan_options defaults = clscan_options_defaults();
    const clscan_options& opts = options ? *options : defaults;
    std::string custom_op;
    clscan::detail::run_request request;
    request.kind = clscan::detail::run_call::reduce_by_key;
    request.scan =
        scan_request_of(clscan::scan_kind::inclusive, integer_of(value_type), opts, custom_op, true);
    request.key_type = element_type_of(integer_of(key_type));
    request.count_offset = count_offset;
    request.out_capacity = out_capacity_of(opts);
    const borrowed_events waits(opts.wait_list, opts.wait_list_size);
    request.scan.wait_list = &waits.get();
    enqueue(queue, keys_in, values_in, keys_out, values_out, count, n, request, event);
  });
}

clscan_status clscan_unique_by_key(cl_command_queue queue, cl_mem keys_in, clscan_type key_type,
                                   cl_mem values_in, clscan_type value_type, cl_mem keys_out,
                                   cl_mem values_out, cl_mem count, size_t n,
                                   const clscan_select_options* options, cl_event* event) {
  return by_selection(clscan::detail::run_call::unique_by_key, "clscan_unique_by_key", queue, keys_in,
                      integer_of(key_type), values_in, integer_of(value_type), keys_out, values_out, count, n,
                      options, event);
}

clscan_status clscan_run_length_encode(cl_command_queue queue, cl_mem in, clscan_type type, cl_mem unique_out,
                                       cl_mem lengths_out, clscan_type length_type, cl_mem count, size_t n,
                                       const clscan_select_options* options, cl_event* event) {
  return by_selection(clscan::detail::run_call::run_length_encode, "clscan_run_length_encode", queue, in,
                      integer_of(type), nullptr, integer_of(length_type), unique_out, lengths_out, count, n,
                      options, event);
}

} // extern "C"
