// The public entry point: validates arguments, then hands the request to dispatch and the algorithm
// that dispatch picks. Nothing is enqueued until every check has passed and every kernel and
// temporary buffer is ready, so a call that fails leaves the user's buffers as they were. Only the
// runtime's enqueue calls themselves can still fail after that (e.g. CL_OUT_OF_RESOURCES): commands
// enqueued before such a failure still run, which in place can leave the buffer partly scanned.
#include "device_info.hpp"
#include "dispatch.hpp"
#include "error_check.hpp"
#include "single_pass.hpp"
#include "three_stage.hpp"
#include "workspace.hpp"

#include <clscan/error.hpp>
#include <clscan/scan.hpp>

#include <string>

namespace clscan::detail {
namespace {

template <typename T> T queue_info(cl_command_queue queue, cl_command_queue_info what) {
  T value{};
  const cl_int status = clGetCommandQueueInfo(queue, what, sizeof(T), &value, nullptr);
  if (status == CL_INVALID_COMMAND_QUEUE) throw invalid_argument("clscan: the command queue is not valid");
  check(status, "clGetCommandQueueInfo");
  return value;
}

template <typename T> T memory_info(cl_mem memory, cl_mem_info what, const char* role) {
  T value{};
  const cl_int status = clGetMemObjectInfo(memory, what, sizeof(T), &value, nullptr);
  if (status == CL_INVALID_MEM_OBJECT)
    throw invalid_argument(std::string("clscan: the ") + role + " buffer is not a valid memory object");
  check(status, "clGetMemObjectInfo");
  return value;
}

// `forbidden_flags`: access flags the kernels cannot work with for this role. The kernels read the
// input, and write the output and may read it back (the three-stage scan adds the tile prefixes to
// it in place), so the input must not be write-only and the output must be readable and writable.
void check_buffer(cl_mem buffer, const char* role, cl_context context, std::size_t offset, std::size_t n,
                  std::size_t element_size, cl_mem_flags forbidden_flags) {
  if (!buffer) throw invalid_argument(std::string("clscan: the ") + role + " buffer is null");
  if (memory_info<cl_context>(buffer, CL_MEM_CONTEXT, role) != context)
    throw invalid_argument(std::string("clscan: the ") + role +
                           " buffer belongs to another context than the queue");
  const auto flags = memory_info<cl_mem_flags>(buffer, CL_MEM_FLAGS, role);
  if (flags & forbidden_flags & CL_MEM_WRITE_ONLY)
    throw invalid_argument(std::string("clscan: the ") + role +
                           " buffer was created CL_MEM_WRITE_ONLY, but clscan's kernels read it; use "
                           "CL_MEM_READ_WRITE");
  if (flags & forbidden_flags & CL_MEM_READ_ONLY)
    throw invalid_argument(std::string("clscan: the ") + role +
                           " buffer was created CL_MEM_READ_ONLY, but clscan's kernels write it; use "
                           "CL_MEM_READ_WRITE");
  const std::size_t bytes = memory_info<std::size_t>(buffer, CL_MEM_SIZE, role);
  const std::size_t capacity = bytes / element_size;
  if (offset > capacity || n > capacity - offset)
    throw invalid_argument(std::string("clscan: the ") + role + " buffer holds " + std::to_string(capacity) +
                           " elements of " + std::to_string(element_size) + " bytes, fewer than offset " +
                           std::to_string(offset) + " + n " + std::to_string(n));
}

void check_wait_list(const cl_event* events, cl_uint count, cl_context context) {
  for (cl_uint i = 0; i < count; ++i) {
    if (!events[i]) throw invalid_argument("clscan: wait_list[" + std::to_string(i) + "] is a null event");
    cl_context event_context = nullptr;
    const cl_int status =
        clGetEventInfo(events[i], CL_EVENT_CONTEXT, sizeof event_context, &event_context, nullptr);
    if (status == CL_INVALID_EVENT)
      throw invalid_argument("clscan: wait_list[" + std::to_string(i) + "] is not a valid event");
    check(status, "clGetEventInfo");
    if (event_context != context)
      throw invalid_argument("clscan: wait_list[" + std::to_string(i) +
                             "] belongs to another context than the queue");
  }
}

// True when [a, a + n) and [b, b + n) in the same buffer overlap without being the same range.
bool partially_overlapping(std::size_t a, std::size_t b, std::size_t n) {
  if (a == b) return false;
  return a < b ? b - a < n : a - b < n;
}

} // namespace

cl::Event enqueue_scan(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                       std::size_t n, const scan_request& request) {
  cl_command_queue q = queue();
  if (!q) throw invalid_argument("clscan: the command queue is null");
  const auto context = queue_info<cl_context>(q, CL_QUEUE_CONTEXT);
  const auto device = queue_info<cl_device_id>(q, CL_QUEUE_DEVICE);
  const auto properties = queue_info<cl_command_queue_properties>(q, CL_QUEUE_PROPERTIES);
  const bool out_of_order = (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;

  const std::size_t element_size = size_of(request.type);
  const bool in_place = in() == out();
  check_buffer(in(), "input", context, request.in_offset, n, element_size,
               in_place ? CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY : CL_MEM_WRITE_ONLY);
  check_buffer(out(), "output", context, request.out_offset, n, element_size,
               CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY);
  if (in_place && partially_overlapping(request.in_offset, request.out_offset, n))
    throw invalid_argument("clscan: input and output ranges overlap without being the same range");

  const std::vector<cl::Event>* user_waits = request.wait_list;
  const auto user_wait_count = static_cast<cl_uint>(user_waits ? user_waits->size() : 0);
  // cl::Event holds exactly one cl_event, as the C++ bindings themselves rely on.
  const cl_event* user_wait_events =
      user_wait_count ? reinterpret_cast<const cl_event*>(user_waits->data()) : nullptr;
  check_wait_list(user_wait_events, user_wait_count, context);
  validate_request(request, cached_capabilities(device));

  if (n == 0) {
    cl_event marker = nullptr;
    check(clEnqueueMarkerWithWaitList(q, user_wait_count, user_wait_events, &marker),
          "clEnqueueMarkerWithWaitList");
    return cl::Event(marker);
  }

  workspace& ws = workspace_for(context, device);
  std::lock_guard<std::mutex> lock(ws.mutex);

  scan_operands operands;
  operands.in = in();
  operands.out = out();
  operands.n = n;
  operands.in_offset = request.in_offset;
  operands.out_offset = request.out_offset;
  operands.request = &request;
  operands.identity = identity_of(request.type, request.operation, request.custom_identity);

  // Only an automatic choice needs the three-stage tile (a forced algorithm never reads the other's
  // shape, so CLSCAN_TUNING may give it a shape only the forced one can use: clscan-tune does).
  std::size_t three_stage_tile = 0;
  if (request.algo == algorithm::automatic) {
    const tuning& small_shape = ws.shape(request.type, algorithm::three_stage, n);
    three_stage_tile = small_shape.work_group_size * small_shape.items_per_thread;
  }
  const algorithm algo = choose_algorithm(request, ws.caps, n, three_stage_tile);
  const tuning& shape = ws.shape(request.type, algo, n);
  variant_key key;
  key.algo = algo;
  key.type = request.type;
  key.operation = request.operation;
  if (request.operation == op::custom) {
    key.custom_op = ws.intern(*request.custom_op);
    key.custom_identity = request.custom_identity;
  }
  key.work_group_size = shape.work_group_size;
  key.items_per_thread = shape.items_per_thread;
  key.vector_width = shape.vector_width;
  key.lookback = algo == algorithm::single_pass ? shape.lookback : 0;
  key.spin_limit = algo == algorithm::single_pass ? shape.spin_limit : 0;
  key.aligned = request.in_offset % shape.vector_width == 0 && request.out_offset % shape.vector_width == 0;
  const compiled_variant& kernels = ws.variant(key);

  // A set of temporaries last used from another queue, or from an out-of-order queue, is taken only
  // after the command that last used it: the call waits for it.
  temporaries& temps = ws.temporaries_for(q, out_of_order);
  const bool wait_previous = temps.last_event() && (out_of_order || temps.last_queue() != q);
  // A command may wait on another queue's event only once that queue has been flushed.
  if (wait_previous && temps.last_queue() != q) check(clFlush(temps.last_queue()), "clFlush");
  const cl_event* first_waits = user_wait_events;
  cl_uint first_wait_count = user_wait_count;
  if (wait_previous) {
    std::vector<cl_event>& combined = ws.combined_waits;
    combined.assign(user_wait_events, user_wait_events + user_wait_count);
    combined.push_back(temps.last_event());
    first_waits = combined.data();
    first_wait_count = static_cast<cl_uint>(combined.size());
  }

  launch_sequence launch(q, out_of_order, first_waits, first_wait_count);
  try {
    if (algo == algorithm::single_pass)
      enqueue_single_pass(ws, temps, kernels, operands, launch);
    else
      enqueue_three_stage(ws, temps, kernels, operands, launch);
  } catch (...) {
    // Commands enqueued before the failure may still run on these temporaries, and no event tells
    // when they end: give the set up (OpenCL keeps its buffers alive for those commands), so that no
    // later scan shares it.
    temps = temporaries{};
    throw;
  }

  cl::Event done = launch.finish();
  temps.last_event = done;
  if (temps.last_queue() != q) temps.last_queue = queue;
  return done;
}

} // namespace clscan::detail
