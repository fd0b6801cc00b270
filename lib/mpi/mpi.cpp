// clscan::mpi: a scan of one array split over MPI ranks, as a reduce, one exchange and a scan per rank.
//
// Rank r reduces its slice on its device and reads that total back; one MPI_Allgather gives every rank
// every total (with its rank's call and whether it failed); rank r then combines the totals of the ranks
// before it on its device with clscan::reduce (the operator's own code, in rank order) into the value
// its scan starts from, and scans its slice from it with options::initial_on_device. Rank 0's total
// includes the initial value, so the initial value is applied once, at the front of rank 0.
//
// Everything that can reject a call runs before the exchange: the failure travels in the exchange, so
// that every rank throws instead of waiting for a rank that will never get there, and nothing is
// written to any rank's buffer.
#include "rank_records.hpp"

#include "../api/api.hpp"

#include <clscan/device.hpp>
#include <clscan/error.hpp>
#include <clscan/mpi.hpp>
#include <clscan/names.hpp>
#include <clscan/reduce.hpp>

#include <algorithm>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace clscan::mpi::detail {
namespace {

using clscan::detail::scan_request;

// clscan configures the OpenCL C++ bindings without exceptions: every status is checked.
void check_cl(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw opencl_error(status, call);
}

void check_mpi(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(status, text, &length) != MPI_SUCCESS) length = 0;
  throw error(std::string("clscan::mpi: ") + call + " failed: " + std::string(text, std::size_t(length)));
}

struct communicator_place {
  int rank = 0;
  int size = 0;
};

// Errors here cannot be exchanged (there is no communicator to exchange them on): every rank that
// passes the same communicator meets the same one.
communicator_place place_in(MPI_Comm comm) {
  int initialized = 0, finalized = 0;
  check_mpi(MPI_Initialized(&initialized), "MPI_Initialized");
  check_mpi(MPI_Finalized(&finalized), "MPI_Finalized");
  if (!initialized || finalized)
    throw invalid_argument("clscan::mpi: MPI is not initialized (or already finalized)");
  if (comm == MPI_COMM_NULL) throw invalid_argument("clscan::mpi: the communicator is MPI_COMM_NULL");
  int inter = 0;
  check_mpi(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter) throw invalid_argument("clscan::mpi: the communicator is an inter-communicator");
  communicator_place place;
  check_mpi(MPI_Comm_rank(comm, &place.rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &place.size), "MPI_Comm_size");
  return place;
}

// The checks the scan itself makes only once it runs, after the exchange, made before it: the slice's
// range in the buffer (the scan reads [in_offset, +n) and writes [out_offset, +n)), an initial value on
// the device inside that output range, and whether a forced single-pass scan may run on the device.
void check_slice(const cl::CommandQueue& queue, const cl::Buffer& data, std::size_t n_local,
                 const scan_request& request) {
  const std::size_t element_size = size_of(request.type);
  std::size_t bytes = 0;
  check_cl(data.getInfo(CL_MEM_SIZE, &bytes), "clGetMemObjectInfo");
  const std::size_t capacity = bytes / element_size;
  for (const auto& [name, offset] : {std::pair<const char*, std::size_t>{"in_offset", request.in_offset},
                                     std::pair<const char*, std::size_t>{"out_offset", request.out_offset}}) {
    if (offset > capacity || n_local > capacity - offset)
      throw invalid_argument("clscan::mpi: the buffer holds " + std::to_string(capacity) + " elements of " +
                             std::to_string(element_size) + " bytes, fewer than " + name + " " +
                             std::to_string(offset) + " + n_local " + std::to_string(n_local));
  }
  const std::size_t a = request.in_offset, b = request.out_offset;
  if (a != b && (a < b ? b - a : a - b) < n_local)
    throw invalid_argument("clscan::mpi: the ranges at in_offset and out_offset overlap without being the "
                           "same range");
  // Sub-buffers over the output range are left to the scan's own check, after the exchange.
  if (request.has_initial_buffer && request.initial_buffer == data() && request.initial_buffer_offset >= b &&
      request.initial_buffer_offset - b < n_local)
    throw invalid_argument("clscan::mpi: options::initial_on_device lies in the output range, which the "
                           "scan writes while it reads the value");
  if (request.algo == algorithm::single_pass && n_local > 0) {
    cl::Device device;
    check_cl(queue.getInfo(CL_QUEUE_DEVICE, &device), "clGetCommandQueueInfo");
    const single_pass_qualification verdict = qualify_single_pass(device, request.type);
    if (!verdict.passed)
      throw unsupported_error("clscan::mpi: algorithm::single_pass cannot run on this rank's device: " +
                              verdict.detail);
  }
}

scan_request without_initial(scan_request request) {
  request.has_initial = false;
  request.has_initial_buffer = false;
  request.initial_buffer = nullptr;
  request.initial_buffer_offset = 0;
  return request;
}

// Waits for `events` (checked: valid, of the queue's context); throws when one of them failed.
void wait_for_wait_list(const std::vector<cl::Event>& events) {
  std::vector<cl_event> handles;
  handles.reserve(events.size());
  for (const cl::Event& event : events)
    handles.push_back(event());
  static_cast<void>(clWaitForEvents(cl_uint(handles.size()), handles.data()));
  for (std::size_t i = 0; i < events.size(); ++i) {
    cl_int status = CL_COMPLETE;
    check_cl(events[i].getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status), "clGetEventInfo");
    if (status < 0)
      throw opencl_error(status, "options::wait_list[" + std::to_string(i) + "]",
                         "clscan::mpi: an event this rank's total waits for failed; nothing was enqueued");
  }
}

// What a rank prepares before the exchange.
struct local_part {
  cl::Event marker;   // n_local == 0: the call's result
  cl::Buffer scratch; // slot 0: this rank's total, later the value its scan starts from; then the totals
};

local_part prepare(const cl::CommandQueue& queue, const cl::Buffer& data, std::size_t n_local,
                   const scan_request& request, const communicator_place& place, rank_record& record) {
  // The rank's own call with nothing to scan: the library's checks of the queue, buffer, offsets,
  // wait list and request, without touching the buffer.
  local_part part;
  clscan::detail::prepare_scan(queue, data, data, 0, request); // n = 0: the checks alone
  check_slice(queue, data, n_local, request);
  const bool total = contributes_total(n_local, place.rank, request);
  if (total && request.wait_list && !request.wait_list->empty()) {
    // The call waits for its total, and so for the wait list, anyway: waited for before anything is
    // enqueued, a wait event that fails is this rank's failure, with nothing of clscan's behind it.
    wait_for_wait_list(*request.wait_list);
  }
  part.marker = clscan::detail::enqueue_scan(queue, data, data, 0, request);
  if (!total) return part;

  const std::size_t element_size = size_of(request.type);
  cl::Context context;
  check_cl(queue.getInfo(CL_QUEUE_CONTEXT, &context), "clGetCommandQueueInfo");
  cl_int status = CL_SUCCESS;
  // Room for the totals of every rank before this one.
  part.scratch =
      cl::Buffer(context, CL_MEM_READ_WRITE, element_size * (1 + std::size_t(place.rank)), nullptr, &status);
  check_cl(status, "clCreateBuffer");
  scan_request reduce_request = request;
  reduce_request.out_offset = 0;
  const cl::Event reduced =
      clscan::detail::enqueue_reduce(queue, data, part.scratch, n_local, reduce_request);
  const std::vector<cl::Event> after_reduce{reduced};
  check_cl(queue.enqueueReadBuffer(part.scratch, CL_TRUE, 0, element_size, record.total, &after_reduce),
           "clEnqueueReadBuffer");
  // A blocking read can return success although the reduce it waited for failed: the total it read
  // is not this rank's, and the failure must travel in the exchange like any other.
  cl_int reduce_status = CL_COMPLETE;
  check_cl(reduced.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &reduce_status), "clGetEventInfo");
  if (reduce_status < 0)
    throw opencl_error(reduce_status, "the local reduce", "clscan::mpi: this rank's total was not made");
  record.has_total = 1;
  return part;
}

// Every rank enters this when some rank failed: the lowest failing rank's message, to every rank.
std::string message_of(MPI_Comm comm, int failed_rank, int rank, const std::string& own_message) {
  char text[1024] = {};
  if (rank == failed_rank) own_message.copy(text, sizeof text - 1);
  check_mpi(MPI_Bcast(text, int(sizeof text), MPI_CHAR, failed_rank, comm), "MPI_Bcast");
  text[sizeof text - 1] = '\0';
  return text;
}

// The value this rank's scan starts from, in slot 0 of `scratch`: the totals of `ranks` combined in order
// on the device. Returns the event of the command that writes it.
cl::Event write_start_value(const cl::CommandQueue& queue, const cl::Buffer& scratch,
                            const std::vector<rank_record>& records, const std::vector<int>& ranks,
                            const scan_request& request) {
  const std::size_t element_size = size_of(request.type);
  if (ranks.size() == 1) {
    // One total is the value itself; a fill copies its pattern when enqueued, so no host memory must
    // outlive the call.
    const unsigned char* total = records[std::size_t(ranks.front())].total;
    cl_event filled = nullptr;
    check_cl(
        clEnqueueFillBuffer(queue(), scratch(), total, element_size, 0, element_size, 0, nullptr, &filled),
        "clEnqueueFillBuffer");
    return cl::Event(filled);
  }
  std::vector<unsigned char> totals(ranks.size() * element_size);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    std::memcpy(totals.data() + i * element_size, records[std::size_t(ranks[i])].total, element_size);
  // Blocking: `totals` dies with this call.
  check_cl(queue.enqueueWriteBuffer(scratch, CL_TRUE, element_size, totals.size(), totals.data()),
           "clEnqueueWriteBuffer");
  // The totals are the ranks' transformed elements combined: not transformed again.
  scan_request combine = without_initial(request);
  combine.transform = nullptr;
  combine.in_offset = 1;
  combine.out_offset = 0;
  combine.wait_list = nullptr;
  return clscan::detail::enqueue_reduce(queue, scratch, scratch, ranks.size(), combine);
}

} // namespace

cl::Event scan_across_ranks(MPI_Comm comm, const cl::CommandQueue& queue, const cl::Buffer& data,
                            std::size_t n_local, const scan_request& request) {
  const communicator_place place = place_in(comm);
  // Rank 0 alone starts from the initial value; the others' is ignored.
  const scan_request own_request = place.rank == 0 ? request : without_initial(request);

  rank_record record = describe_call(request, n_local);
  local_part part;
  std::exception_ptr failure;
  std::string failure_message;
  try {
    part = prepare(queue, data, n_local, own_request, place, record);
  } catch (const std::exception& e) {
    failure = std::current_exception();
    failure_message = e.what();
  } catch (...) {
    failure = std::current_exception();
    failure_message = "an exception that is not a std::exception";
  }
  record.failed = failure ? 1 : 0;

  std::vector<rank_record> records(static_cast<std::size_t>(place.size));
  check_mpi(MPI_Allgather(&record, int(sizeof record), MPI_BYTE, records.data(), int(sizeof record), MPI_BYTE,
                          comm),
            "MPI_Allgather");

  if (const std::optional<int> failed = first_failed_rank(records)) {
    const std::string message = message_of(comm, *failed, place.rank, failure_message);
    if (failure) std::rethrow_exception(failure);
    throw rank_error(*failed, "clscan::mpi: rank " + std::to_string(*failed) + " of " +
                                  std::to_string(place.size) + " failed (" + message +
                                  "); nothing was written on any rank");
  }
  if (const std::string mismatch = call_mismatch(records); !mismatch.empty())
    throw invalid_argument(mismatch);

  if (n_local == 0) return part.marker;
  if (place.rank == 0) return clscan::detail::enqueue_scan(queue, data, data, n_local, own_request);
  const std::vector<int> before = ranks_before_with_totals(records, place.rank);
  if (before.empty()) return clscan::detail::enqueue_scan(queue, data, data, n_local, own_request);

  const cl::Event start_written = write_start_value(queue, part.scratch, records, before, request);
  std::vector<cl::Event> waits;
  if (request.wait_list) waits = *request.wait_list;
  waits.push_back(start_written);
  scan_request from_start = own_request;
  from_start.has_initial_buffer = true;
  from_start.initial_buffer = part.scratch();
  from_start.initial_buffer_offset = 0;
  from_start.wait_list = &waits;
  return clscan::detail::enqueue_scan(queue, data, data, n_local, from_start);
}

} // namespace clscan::mpi::detail
