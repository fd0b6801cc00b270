// Scans of one array split into parts on several devices (parts.hpp): a layer over the single-device
// calls. Every part but the last is reduced on its own device (part 0 with the caller's initial value
// in front); the totals are read into host memory; each later part's device gets the totals of the
// parts before it, combines them with the operator's own code (a reduce; part 1 needs none, its carry
// is part 0's total) and scans its part with that carry in front (initial_on_device). The totals cross
// contexts through a user event per part (a gate), opened by a thread of the call once the totals
// before it are in host memory, so that the caller's thread never waits.
// What runs behind that gate is the later part's critical path: it is kept to the write of the totals,
// the carry's reduce where there is one, and the scan.
#include "api.hpp"
#include "arguments.hpp"
#include "error_check.hpp"

#include <clscan/error.hpp>
#include <clscan/parts.hpp>
#include <clscan/reduce.hpp>

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

namespace clscan::detail {
namespace {

// What the callbacks of one call share: the host copies of the totals and the gates they open. Gate k
// (a user event in part k's context) opens once the totals of parts 0..k-1 are in host memory; a
// failed read fails every gate not yet opened, so that the later parts' events report the failure.
struct totals_exchange {
  std::mutex mutex;
  std::vector<unsigned char> bytes; // total j at j * element_size; sized once, never moved
  std::vector<bool> read_done;
  std::vector<cl::UserEvent> gates; // gates[k] for k >= 1; gates[0] unused
  std::size_t opened = 1;           // gates 1 .. opened - 1 are set
  cl_int failure = CL_SUCCESS;
  std::vector<cl::Event> writes; // the writes behind gates 1.., held until they end
  bool writes_enqueued = false;
  std::condition_variable writes_handed;

  // Opens the gates that can open now, after `status` for total `index`.
  void on_read(std::size_t index, cl_int status) {
    std::unique_lock<std::mutex> lock(mutex);
    if (status < 0 && failure == CL_SUCCESS) failure = status;
    read_done[index] = true;
    std::size_t ready = 0; // totals 0 .. ready - 1 are in host memory
    while (ready < read_done.size() && read_done[ready])
      ++ready;
    if (failure != CL_SUCCESS)
      open(lock, gates.size(), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    else
      open(lock, std::min(ready + 1, gates.size()), CL_COMPLETE);
  }

  // The events of the writes behind the gates, once all are enqueued (see watch_reads): waits until
  // the enqueueing thread has handed them over. Taken once.
  std::vector<cl::Event> take_writes() {
    std::unique_lock<std::mutex> lock(mutex);
    writes_handed.wait(lock, [this] { return writes_enqueued; });
    return std::move(writes);
  }
  void hand_over_writes(std::vector<cl::Event> enqueued) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      writes = std::move(enqueued);
      writes_enqueued = true;
    }
    writes_handed.notify_all();
  }

  // Opens every gate still shut, with `status`.
  void open_all(cl_int status) {
    std::unique_lock<std::mutex> lock(mutex);
    open(lock, gates.size(), status);
  }

private:
  // Opens gates up to `limit` with `status`. The events are set after the lock is given up: setting
  // one may run callbacks on this thread.
  void open(std::unique_lock<std::mutex>& lock, std::size_t limit, cl_int status) {
    std::vector<cl::UserEvent> to_set;
    for (; opened < limit; ++opened)
      to_set.push_back(gates[opened]);
    lock.unlock();
    for (cl::UserEvent& gate : to_set)
      gate.setStatus(status);
  }
};

struct callback_data {
  std::shared_ptr<totals_exchange> exchange;
  std::size_t index;
};

void CL_CALLBACK total_read(cl_event /*event*/, cl_int status, void* user_data) {
  std::unique_ptr<callback_data> data(static_cast<callback_data*>(user_data));
  data->exchange->on_read(data->index, status);
}

// Keeps the host totals alive until a write that reads them has ended.
void CL_CALLBACK release_exchange(cl_event /*event*/, cl_int /*status*/, void* user_data) {
  delete static_cast<callback_data*>(user_data);
}

void on_complete(cl_event event, void(CL_CALLBACK* callback)(cl_event, cl_int, void*),
                 std::shared_ptr<totals_exchange> exchange, std::size_t index) {
  auto data = std::make_unique<callback_data>(callback_data{std::move(exchange), index});
  check(clSetEventCallback(event, CL_COMPLETE, callback, data.get()), "clSetEventCallback");
  static_cast<void>(data.release()); // the callback owns it now
}

// Opens the gates as the totals' reads complete. A thread of the call's own waits for them, one after
// the other: on two H200s it opens part 1's gate sooner than a completion callback of the read does
// (2 x 2^29 ints: 1.49-1.54 times one GPU's 2^29 against 1.55-1.75, docs/SCALING.md), since the driver's
// callback thread learns of the completion late. It is also what makes a failure reach the later parts:
// no implementation tried calls the callbacks of a command that a failure terminates. One thread per
// call, not one shared: a call whose reads wait for an event that never completes must not hold up
// other calls' gates. When no thread can be started, the reads' callbacks open the gates instead.
//
// The thread also holds the events of the writes behind the gates until each has ended: PoCL 3.1
// aborts the process ("PTHREAD ERROR in pocl_update_event_failed()") when a failed gate's failure
// reaches a command whose event has been released, and no callback tells when a failed command ends.
// The writes are handed over once enqueued (`writes_enqueued`); until then the reads alone are watched.
void watch_reads(const std::shared_ptr<totals_exchange>& exchange, const std::vector<cl::Event>& reads) {
  if (reads.empty()) return; // one part: no gate
  try {
    std::thread([exchange, reads] {
      for (std::size_t k = 0; k < reads.size(); ++k) {
        cl_event read = reads[k]();
        // A failed read makes the wait return an error; its status says which.
        static_cast<void>(clWaitForEvents(1, &read));
        cl_int status = CL_COMPLETE;
        if (clGetEventInfo(read, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr) !=
            CL_SUCCESS)
          status = CL_OUT_OF_RESOURCES;
        exchange->on_read(k, status);
        if (status < 0) break; // every gate is open now, failed
      }
      // Every gate is open now (complete or failed), so every write ends.
      for (cl::Event& write : exchange->take_writes()) {
        cl_event handle = write();
        static_cast<void>(clWaitForEvents(1, &handle));
      }
    }).detach();
  } catch (const std::system_error&) {
    for (std::size_t k = 0; k < reads.size(); ++k)
      on_complete(reads[k](), total_read, exchange, k);
  }
}

template <typename T> T info_of(cl_command_queue queue, cl_command_queue_info what) {
  T value{};
  check(clGetCommandQueueInfo(queue, what, sizeof value, &value, nullptr), "clGetCommandQueueInfo");
  return value;
}

// One part's share of the call.
struct part_call {
  cl_context context = nullptr;
  std::vector<cl::Event> waits; // the caller's events of this part's context
  scan_request request;         // the part's scan, offsets set
  cl::Buffer work;              // [0] the part's total, [1] its carry, [2..2+k) the totals before it
  cl::Event reduced;            // the part's total is written
};

// The reduce of the totals of the parts before part k (k >= 2), at element 2 of its work buffer, into
// element 1: the request of the part's scan, which has no initial value (part 0's total holds it), less
// its transform (the totals combine elements transformed already).
scan_request totals_carry(const scan_request& request) {
  scan_request carry = request;
  carry.transform = nullptr;
  carry.in_offset = 2;
  carry.out_offset = 1;
  return carry;
}

} // namespace

std::vector<cl::Event> enqueue_parts(const std::vector<part>& parts, const scan_request& request) {
  if (request.in_offset || request.out_offset)
    throw invalid_argument("clscan: a scan of parts takes each part's offset from part::offset; "
                           "options::in_offset and options::out_offset must be 0");
  if (request.has_initial_buffer)
    throw invalid_argument("clscan: a scan of parts does not take options::initial_on_device; use "
                           "options::initial");
  if (request.transform_input && *request.transform_input != request.type)
    throw invalid_argument("clscan: a scan of parts runs in place, which an input of another type than the "
                           "result's (options::transform_input) cannot");
  if (parts.empty()) return {};

  const std::size_t count = parts.size();
  const std::size_t element_size = size_of(request.type);
  std::vector<part_call> calls(count);
  const std::vector<cl::Event> no_events;
  const std::vector<cl::Event>& user_waits = request.wait_list ? *request.wait_list : no_events;

  // Every check first, for every part: nothing is enqueued before they all pass.
  std::vector<checked_call> checked(count);
  for (std::size_t k = 0; k < count; ++k) {
    if (!parts[k].queue())
      throw invalid_argument("clscan: part " + std::to_string(k) + ": the command queue is null");
    calls[k].context = info_of<cl_context>(parts[k].queue(), CL_QUEUE_CONTEXT);
  }
  for (std::size_t w = 0; w < user_waits.size(); ++w) {
    const cl::Event& event = user_waits[w];
    if (!event()) throw invalid_argument("clscan: options::wait_list holds a null event");
    cl_context context = nullptr;
    check(clGetEventInfo(event(), CL_EVENT_CONTEXT, sizeof context, &context, nullptr), "clGetEventInfo");
    check_not_failed(event(), "options::wait_list", w);
    bool used = false;
    for (part_call& call : calls)
      if (call.context == context) {
        call.waits.push_back(event);
        used = true;
      }
    if (!used)
      throw invalid_argument("clscan: an event of options::wait_list belongs to a context no part uses");
  }
  for (std::size_t k = 0; k < count; ++k) {
    part_call& call = calls[k];
    call.request = request;
    call.request.in_offset = call.request.out_offset = parts[k].offset;
    call.request.wait_list = &call.waits;
    if (k > 0) call.request.has_initial = false;
    try {
      checked[k] =
          check_arguments(parts[k].queue, parts[k].buffer, parts[k].buffer, parts[k].n, call.request);
    } catch (const invalid_argument& e) {
      // The part's number goes after the library's own "clscan: ", not in front of a second one.
      std::string_view reason = e.what();
      if (reason.rfind("clscan: ", 0) == 0) reason.remove_prefix(8);
      throw invalid_argument("clscan: part " + std::to_string(k) + ": " + std::string(reason));
    }
    const byte_range range{parts[k].offset * element_size, parts[k].n * element_size};
    for (std::size_t j = 0; j < k; ++j)
      if (views_overlap(checked[j].out, {parts[j].offset * element_size, parts[j].n * element_size},
                        checked[k].out, range))
        throw invalid_argument("clscan: parts " + std::to_string(j) + " and " + std::to_string(k) +
                               " overlap");
  }

  // Every program every part needs, built or loaded before anything is enqueued: a build_error must
  // not come after an earlier part was scanned in place.
  for (std::size_t k = 0; k < count; ++k) {
    part_call& call = calls[k];
    call.work = cl::Buffer(cl::Context(call.context, true), CL_MEM_READ_WRITE, (2 + k) * element_size);
    if (k + 1 < count) {
      scan_request total = call.request;
      total.out_offset = 0;
      prepare_reduce(parts[k].queue, parts[k].buffer, call.work, parts[k].n, total);
    }
    scan_request scan = call.request;
    if (k > 0) {
      if (k > 1) {
        scan_request carry = totals_carry(call.request);
        carry.wait_list = nullptr;
        prepare_reduce(parts[k].queue, call.work, call.work, k, carry);
      }
      scan.has_initial_buffer = true;
      scan.initial_buffer = call.work();
      scan.initial_buffer_offset = k == 1 ? 2 : 1;
    }
    prepare_scan(parts[k].queue, parts[k].buffer, parts[k].buffer, parts[k].n, scan);
  }

  auto exchange = std::make_shared<totals_exchange>();
  exchange->bytes.resize((count - 1) * element_size);
  exchange->read_done.assign(count - 1, false);
  exchange->gates.resize(count);
  for (std::size_t k = 1; k < count; ++k)
    exchange->gates[k] = cl::UserEvent(cl::Context(calls[k].context, true));
  std::vector<cl::Event> reads; // reads[k]: total k into exchange->bytes
  try {
    // Totals of every part but the last, read into host memory as each is ready.
    for (std::size_t k = 0; k < count; ++k) {
      part_call& call = calls[k];
      if (k + 1 == count) break;
      scan_request total = call.request; // part 0 keeps the caller's initial value, the others have none
      total.out_offset = 0;
      call.reduced = enqueue_reduce(parts[k].queue, parts[k].buffer, call.work, parts[k].n, total);
      cl_event read = nullptr;
      const cl_event after = call.reduced();
      check(clEnqueueReadBuffer(parts[k].queue(), call.work(), CL_FALSE, 0, element_size,
                                exchange->bytes.data() + k * element_size, 1, &after, &read),
            "clEnqueueReadBuffer");
      reads.emplace_back(read);
    }
    for (const part& p : parts)
      check(clFlush(p.queue()), "clFlush");
    watch_reads(exchange, reads);

    std::vector<cl::Event> done(count);
    std::vector<cl::Event> writes;
    for (std::size_t k = 0; k < count; ++k) {
      part_call& call = calls[k];
      // In place, the part's total must be read before its scan overwrites it (out-of-order queues).
      if (call.reduced()) call.waits.push_back(call.reduced);
      if (k > 0) {
        cl_event written = nullptr;
        const cl_event gate = exchange->gates[k]();
        check(clEnqueueWriteBuffer(parts[k].queue(), call.work(), CL_FALSE, 2 * element_size,
                                   k * element_size, exchange->bytes.data(), 1, &gate, &written),
              "clEnqueueWriteBuffer");
        const cl::Event written_event(written);
        writes.push_back(written_event);
        on_complete(written, release_exchange, exchange, k);

        if (k == 1) {
          // Part 0's total already holds the caller's initial value: it is the carry.
          call.waits.push_back(written_event);
        } else {
          scan_request carry = totals_carry(call.request);
          const std::vector<cl::Event> carry_waits = {written_event};
          carry.wait_list = &carry_waits;
          call.waits.push_back(enqueue_reduce(parts[k].queue, call.work, call.work, k, carry));
        }
        call.request.has_initial_buffer = true;
        call.request.initial_buffer = call.work();
        call.request.initial_buffer_offset = k == 1 ? 2 : 1;
      }
      done[k] = enqueue_scan(parts[k].queue, parts[k].buffer, parts[k].buffer, parts[k].n, call.request);
    }
    for (const part& p : parts)
      check(clFlush(p.queue()), "clFlush");
    exchange->hand_over_writes(std::move(writes));
    return done;
  } catch (...) {
    // Commands already enqueued behind a gate must not wait forever. They write only this call's own
    // buffers (the parts they precede were not enqueued), so they may as well run; a failed gate
    // would also take PoCL 3.1 down (pocl_update_event_failed aborts on a pthread error).
    exchange->open_all(CL_COMPLETE);
    exchange->hand_over_writes({});
    throw;
  }
}

} // namespace clscan::detail
