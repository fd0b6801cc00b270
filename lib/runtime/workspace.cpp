#include "workspace.hpp"

#include "algorithms/single_pass.hpp"
#include "device_info.hpp"
#include "error_check.hpp"
#include "log.hpp"
#include "settings.hpp"
#include "tuning.hpp"

#include <clscan/cache.hpp>
#include <clscan/error.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>

namespace clscan::detail {
namespace {

std::size_t device_base_alignment(const cl::Device& device) {
  cl_uint bits = 0;
  check(clGetDeviceInfo(device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, nullptr),
        "clGetDeviceInfo");
  return std::max<std::size_t>(bits / 8, 1);
}

} // namespace

workspace::workspace(cl::Context context_in, cl::Device device_in)
    : context(std::move(context_in)), device(std::move(device_in)), caps(cached_capabilities(device())),
      base_alignment(device_base_alignment(device)) {}

const tuning& workspace::shape(element_type type, algorithm algo, bool small_inputs) {
  single_pass_candidate candidate = single_pass_candidate::preferred;
  if (algo == algorithm::single_pass) {
    // Devices without the look-back's atomics are never qualified: their chained tiles (three-stage
    // selections and scans by key) take the preferred shape.
    if (single_pass_supported(caps, type) && !known_single_pass_verdict(caps, type))
      throw error("clscan internal error: a single-pass launch shape was planned before the "
                  "qualification's verdict");
    candidate = qualified_candidate(caps, type);
  }
  auto key = std::make_tuple(type, algo, small_inputs, candidate);
  auto it = shapes_.find(key);
  if (it == shapes_.end()) it = shapes_.emplace(key, initial_tuning(caps, type, algo, small_inputs)).first;
  return it->second;
}

const tuning& workspace::reduce_shape(element_type type) {
  auto it = reduce_shapes_.find(type);
  if (it == reduce_shapes_.end()) it = reduce_shapes_.emplace(type, reduce_tuning(caps, type)).first;
  return it->second;
}

namespace {

constexpr std::size_t default_program_limit = 64;

// set_program_cache_limit()'s value (0: CLSCAN_MAX_PROGRAMS, else the default), and a count of its
// calls, which a workspace compares on every call so that a lowered limit applies at its next call
// without reading the environment on calls that build nothing.
std::atomic<std::size_t> program_limit{0};
std::atomic<std::uint64_t> program_limit_generation{0};

std::size_t program_limit_in_effect() {
  if (const std::size_t set = program_limit.load()) return set;
  return max_programs_setting().value_or(default_program_limit);
}

} // namespace

const compiled_variant& workspace::variant(const variant_key& key) {
  auto it = variants_.find(key);
  if (it == variants_.end()) {
    // Read before building: a bad CLSCAN_MAX_PROGRAMS throws before anything is built or enqueued.
    const std::size_t limit = program_limit_in_effect();
    compiled_variant built;
    try {
      built = build_variant(context, device, caps, key);
    } catch (...) {
      // Texts of predicates that never built would otherwise stay until the next eviction.
      release_unnamed_texts();
      throw;
    }
    it = variants_.emplace(key, cached_variant{std::move(built), 0}).first;
    const std::uint64_t generation = program_limit_generation.load();
    evict_variants(limit, &it->first);
    program_limit_generation_ = generation;
  } else if (const std::uint64_t generation = program_limit_generation.load();
             generation != program_limit_generation_) {
    evict_variants(program_limit_in_effect(), &it->first);
    program_limit_generation_ = generation;
  }
  it->second.last_use = ++variant_uses_;
  return it->second.compiled;
}

void workspace::evict_variants(std::size_t limit, const variant_key* kept) {
  if (variants_.size() <= limit) return;
  while (variants_.size() > limit) {
    auto victim = variants_.end();
    for (auto it = variants_.begin(); it != variants_.end(); ++it)
      if (&it->first != kept && (victim == variants_.end() || it->second.last_use < victim->second.last_use))
        victim = it;
    if (victim == variants_.end()) break;
    if (log_enabled())
      log(log_level::debug, "program cache: released a program over the limit of " + std::to_string(limit) +
                                " for " + caps.name);
    variants_.erase(victim);
  }
  release_unnamed_texts();
}

void workspace::release_unnamed_texts() {
  for (auto text = custom_ops_.begin(); text != custom_ops_.end();) {
    const bool named = std::any_of(variants_.begin(), variants_.end(), [&](const auto& entry) {
      const variant_key& key = entry.first;
      const auto names_it = [&](const variant_key::parameter_slot& slot) { return slot.name == &*text; };
      return key.custom_op == &*text || key.predicate == &*text || key.key_equal == &*text ||
             key.transform == &*text ||
             std::any_of(key.parameters.begin(), key.parameters.begin() + key.parameter_count, names_it);
    });
    text = named ? std::next(text) : custom_ops_.erase(text);
  }
}

const std::string* workspace::intern(std::string_view text) {
  auto it = custom_ops_.find(text);
  if (it == custom_ops_.end()) it = custom_ops_.emplace(text).first;
  return &*it;
}

const cl::Buffer& temporaries::scratch(const cl::Context& context, std::size_t slot, std::size_t bytes) {
  if (buffers_.size() <= slot) buffers_.resize(slot + 1);
  auto& [buffer, capacity] = buffers_[slot];
  if (capacity < bytes || !buffer()) {
    cl_int status = CL_SUCCESS;
    cl_mem memory = clCreateBuffer(context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
    check(status, "clCreateBuffer (clscan temporary storage)");
    buffer = cl::Buffer(memory);
    capacity = bytes;
    // Tests of the hot path see allocations through this event.
    if (log_enabled())
      log(log_level::debug,
          "temporary storage: " + std::to_string(bytes) + " bytes (slot " + std::to_string(slot) + ")");
    if (slot == 0) status_words_initialized = 0;
    if (slot == head_flags_slot) head_flags_zeroed = 0;
  }
  return buffer;
}

cl_int execution_status(cl_event event) {
  cl_int status = CL_QUEUED;
  check(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
        "clGetEventInfo");
  return status;
}

void temporaries::keep_enqueued() {
  // Oldest first, up to the first command still in flight: the commands on a set end in the order
  // they were enqueued (an in-order queue, or each waiting for the one before), so a call queries only
  // the commands that ended since and one more, however many calls are in flight.
  const auto in_flight = std::find_if(events_in_flight.begin(), events_in_flight.end(),
                                      [](const cl::Event& e) { return execution_status(e()) > CL_COMPLETE; });
  events_in_flight.erase(events_in_flight.begin(), in_flight);
  for (cl::Event& event : enqueued)
    events_in_flight.push_back(std::move(event));
  enqueued.clear();
}

namespace {

// True when no command uses `set` any more: its last command has completed or was terminated (on an
// in-order queue the commands before it have ended too; on an out-of-order queue each command of a
// scan waits for the one before). A query, never a wait.
bool finished(const temporaries& set) {
  return !set.last_event() || execution_status(set.last_event()) <= CL_COMPLETE;
}

// A set whose last command failed: nothing of it can be trusted (status words a clear that never ran
// should have reset, a ticket counter that kernels which never ran did not advance), so it starts
// afresh. Its buffers are released; OpenCL keeps them alive for any command that still uses them.
void restart_if_failed(temporaries& set) {
  if (set.last_event() && execution_status(set.last_event()) < 0) set = temporaries{};
}

} // namespace

temporaries& workspace::temporaries_for(cl_command_queue queue, bool out_of_order) {
  temporaries* chosen = nullptr;
  // An in-order queue runs the new scan after its own previous one anyway; an out-of-order queue
  // would have to wait for it, so it takes a free set.
  if (!out_of_order)
    for (auto& set : temporaries_)
      if (set->last_queue() == queue) {
        restart_if_failed(*set);
        chosen = set.get();
        break;
      }
  if (!chosen)
    for (auto& set : temporaries_)
      if (finished(*set)) {
        restart_if_failed(*set);
        chosen = set.get();
        break;
      }
  // Every set may still be used by a pending command, which may itself wait for an event that another
  // queue's application code has not set yet: waiting for it could deadlock, so take a new set.
  if (!chosen) chosen = temporaries_.emplace_back(std::make_unique<temporaries>()).get();
  // Give up finished sets beyond the kept number: memory stays bounded by the scans in flight.
  for (auto it = temporaries_.begin(); temporaries_.size() > kept_temporaries && it != temporaries_.end();)
    if (it->get() != chosen && finished(**it))
      it = temporaries_.erase(it);
    else
      ++it;
  chosen->last_use = ++calls_;
  return *chosen;
}

bool workspace::idle() {
  std::unique_lock<std::mutex> lock(mutex, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  try {
    return std::all_of(temporaries_.begin(), temporaries_.end(),
                       [](const auto& set) { return finished(*set); });
  } catch (const error&) {
    return false; // an event the implementation no longer answers for: keep the workspace
  }
}

} // namespace clscan::detail

namespace clscan {

void set_program_cache_limit(std::size_t programs) {
  if (programs == 0)
    throw invalid_argument("clscan: set_program_cache_limit(0): a call needs at least its own program");
  detail::program_limit.store(programs);
  ++detail::program_limit_generation;
}

std::size_t program_cache_limit() { return detail::program_limit_in_effect(); }

} // namespace clscan
