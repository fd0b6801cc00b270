// The argument checks of reduce_by_key, unique_by_key and run_length_encode (runs.hpp): five buffers
// (three for run_length_encode's four), each named in its message, then the request as a scan's.
#include "run_arguments.hpp"

#include "algorithms/single_pass.hpp"
#include "argument_checks.hpp"
#include "device_info.hpp"
#include "element.hpp"

#include <clscan/error.hpp>

#include <array>
#include <limits>
#include <string>

namespace clscan::detail {

const char* run_call_name(run_call kind) {
  switch (kind) {
  case run_call::reduce_by_key: return "clscan::reduce_by_key";
  case run_call::unique_by_key: return "clscan::unique_by_key";
  case run_call::run_length_encode: return "clscan::run_length_encode";
  }
  return "clscan";
}

checked_call check_run_arguments(const cl::CommandQueue& queue, const cl::Buffer& keys_in,
                                 const cl::Buffer* values_in, const cl::Buffer& keys_out,
                                 const cl::Buffer& values_out, const cl::Buffer& count, std::size_t n,
                                 const run_request& request) {
  const char* who = run_call_name(request.kind);
  const auto name = [&] { return std::string(who); }; // built only for a message
  const bool encode = request.kind == run_call::run_length_encode;
  const scan_request& scan = request.scan;
  if (request.predicate && !request.predicate->empty())
    throw invalid_argument(name() + ": select_options::predicate must be empty (this call compares "
                                    "neighbouring keys)");
  // The passes compare keys with == and their kernels do not take the caller's parameters yet.
  if (scan.parameters && !scan.parameters->empty())
    throw invalid_argument(name() + ": parameters are not supported by this call yet");
  if (scan.key_equal && !scan.key_equal->empty())
    throw invalid_argument(name() + ": key_equal is not supported by this call yet (keys compare with ==)");
  if (scan.transform && !scan.transform->empty())
    throw invalid_argument(name() + ": options::transform is not supported by this call");
  if (scan.transform_input)
    throw invalid_argument(name() + ": options::transform_input is not supported by this call");
  if (scan.has_initial_buffer)
    throw invalid_argument(name() + ": options::initial_on_device is not supported by this call; use "
                                    "options::initial");
  if (encode && scan.type == element_type::uint32 && n > std::numeric_limits<cl_uint>::max())
    throw invalid_argument(name() + ": n is " + std::to_string(n) +
                           ", too many for cl_uint lengths (a run may be that long); use cl_ulong lengths");
  if (!encode && !values_in) throw invalid_argument(name() + ": no values buffer");

  checked_call call = call_on(queue, who);
  const cl_context context = call.context;
  const std::size_t key_size = size_of(request.key_type), value_size = size_of(scan.type);
  const std::size_t in_offset = scan.in_offset, out_offset = scan.out_offset;
  const cl_mem_flags output_flags = CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;

  // Every buffer with its range; the outputs may share memory with nothing else.
  struct used {
    const char* role;
    memory_view view;
    byte_range range;
    bool written;
  };
  std::array<used, 5> buffers{};
  std::size_t used_count = 0;
  const auto take = [&](const cl::Buffer& buffer, const char* role, std::size_t offset, std::size_t elements,
                        std::size_t size, cl_mem_flags forbidden, bool written, bool n_is_callers,
                        const char* n_name = "n") {
    const memory_view view =
        check_buffer(buffer(), role, context, offset, elements, size, forbidden, n_is_callers, n_name);
    buffers[used_count++] = {role, view, {offset * size, elements * size}, written};
  };
  take(keys_in, encode ? "input" : "keys", in_offset, n, key_size, CL_MEM_WRITE_ONLY, false, true);
  if (!encode) take(*values_in, "values", in_offset, n, value_size, CL_MEM_WRITE_ONLY, false, true);
  // Outputs: out_capacity elements each where set (outputs sized for the result), else n.
  const std::size_t out_n = request.out_capacity.value_or(n);
  const char* out_n_name = request.out_capacity ? "out_capacity" : "n";
  take(keys_out, encode ? "unique_out" : "keys_out", out_offset, out_n, key_size, output_flags, true, true,
       out_n_name);
  take(values_out, encode ? "lengths_out" : "values_out", out_offset, out_n, value_size, output_flags, true,
       true, out_n_name);
  if (!count()) throw invalid_argument(name() + ": the count buffer is null");
  take(count, "count", request.count_offset, 1, sizeof(cl_ulong), CL_MEM_READ_ONLY, true, false);
  for (std::size_t a = 0; a < used_count; ++a)
    for (std::size_t b = a + 1; b < used_count; ++b)
      if ((buffers[a].written || buffers[b].written) &&
          views_overlap(buffers[a].view, buffers[a].range, buffers[b].view, buffers[b].range))
        throw invalid_argument(name() + ": the " + buffers[a].role + " and the " + buffers[b].role +
                               " overlap; " + (buffers[a].written ? buffers[a].role : buffers[b].role) +
                               " is written while the other is " +
                               (buffers[a].written && buffers[b].written ? "written too" : "read"));

  // The request (algorithm, operator, value type, wait list) as a scan's, on buffers already checked:
  // the keys' pair for run_length_encode, whose lengths are no input.
  if (encode) {
    scan_request keys_request;
    keys_request.type = request.key_type;
    keys_request.algo = scan.algo;
    keys_request.in_offset = in_offset;
    keys_request.out_offset = out_offset;
    keys_request.wait_list = scan.wait_list;
    call = check_arguments(queue, keys_in, keys_out, n, keys_request, request.out_capacity);
  } else {
    call = check_arguments(queue, *values_in, values_out, n, scan, request.out_capacity);
  }
  const device_capabilities& caps = cached_capabilities(call.device);
  if (request.key_type == element_type::float64 && !caps.fp64)
    throw unsupported_error(name() + ": cl_double keys need fp64 (cl_khr_fp64), which device '" + caps.name +
                            "' does not have");
  for (const element_type type : {request.key_type, scan.type})
    if (scan.algo == algorithm::single_pass && !single_pass_supported(caps, type))
      throw unsupported_error("algorithm::single_pass needs global 32-bit atomics, which device '" +
                              caps.name + "' does not have");
  return call;
}

} // namespace clscan::detail
