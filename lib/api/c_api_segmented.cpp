// The C API's segmented calls over offsets (clscan_inclusive_segmented, clscan_exclusive_segmented,
// clscan_reduce_segmented in include/clscan/clscan.h): what only C can get wrong, then segmented.hpp's
// request, as c_api.cpp does for the other calls.
#include "c_api_support.hpp"

#include <clscan/clscan.h>
#include <clscan/error.hpp>
#include <clscan/segmented.hpp>

#include <string>

namespace {

using namespace clscan::c_api;
using clscan::detail::segmented_call;

const char* c_name_of(segmented_call kind) noexcept {
  switch (kind) {
  case segmented_call::inclusive: return "clscan_inclusive_segmented";
  case segmented_call::exclusive: return "clscan_exclusive_segmented";
  case segmented_call::reduce: return "clscan_reduce_segmented";
  }
  return "clscan";
}

clscan_status segmented(segmented_call kind, cl_command_queue queue, cl_mem in, cl_mem out, size_t n,
                        type_integer type, cl_mem offsets, type_integer offset_type, size_t offsets_offset,
                        size_t num_segments, const clscan_options* options, cl_event* event) noexcept {
  if (event) *event = nullptr;
  return guarded([&] {
    const clscan_options defaults = clscan_options_defaults();
    const clscan_options& opts = options ? *options : defaults;
    clscan::detail::segmented_request request;
    request.kind = kind;
    request.offset_type = element_type_of(offset_type);
    if (request.offset_type != clscan::element_type::uint32 &&
        request.offset_type != clscan::element_type::uint64)
      throw clscan::invalid_argument(std::string(c_name_of(kind)) +
                                     ": the offset type must be CLSCAN_TYPE_UINT32 or CLSCAN_TYPE_UINT64");
    std::string custom_op;
    request.scan = scan_request_of(kind == segmented_call::exclusive ? clscan::scan_kind::exclusive
                                                                     : clscan::scan_kind::inclusive,
                                   type, opts, custom_op);
    c_expressions expressions;
    take_expressions(opts, "clscan_options", expressions, request.scan);
    request.offsets_offset = offsets_offset;
    const borrowed_events waits(opts.wait_list, opts.wait_list_size);
    request.scan.wait_list = &waits.get();

    const borrowed<cl::CommandQueue> borrowed_queue(queue);
    const borrowed<cl::Buffer> borrowed_in(in);
    const borrowed<cl::Buffer> borrowed_out(out);
    const borrowed<cl::Buffer> borrowed_offsets(offsets);
    cl::Event done =
        clscan::detail::enqueue_segmented(borrowed_queue.get(), borrowed_in.get(), borrowed_out.get(), n,
                                          borrowed_offsets.get(), num_segments, request);
    hand_over(done, event);
  });
}

} // namespace

extern "C" {

clscan_status clscan_inclusive_segmented(cl_command_queue queue, cl_mem in, cl_mem out, size_t n,
                                         clscan_type type, cl_mem offsets, clscan_type offset_type,
                                         size_t offsets_offset, size_t num_segments,
                                         const clscan_options* options, cl_event* event) {
  return segmented(segmented_call::inclusive, queue, in, out, n, integer_of(type), offsets,
                   integer_of(offset_type), offsets_offset, num_segments, options, event);
}

clscan_status clscan_exclusive_segmented(cl_command_queue queue, cl_mem in, cl_mem out, size_t n,
                                         clscan_type type, cl_mem offsets, clscan_type offset_type,
                                         size_t offsets_offset, size_t num_segments,
                                         const clscan_options* options, cl_event* event) {
  return segmented(segmented_call::exclusive, queue, in, out, n, integer_of(type), offsets,
                   integer_of(offset_type), offsets_offset, num_segments, options, event);
}

clscan_status clscan_reduce_segmented(cl_command_queue queue, cl_mem in, cl_mem out, size_t n,
                                      clscan_type type, cl_mem offsets, clscan_type offset_type,
                                      size_t offsets_offset, size_t num_segments,
                                      const clscan_options* options, cl_event* event) {
  return segmented(segmented_call::reduce, queue, in, out, n, integer_of(type), offsets,
                   integer_of(offset_type), offsets_offset, num_segments, options, event);
}

} // extern "C"
