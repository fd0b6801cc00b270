#include "workspace.hpp"

#include "device_info.hpp"
#include "error_check.hpp"
#include "kernel_sources.hpp"
#include "log.hpp"
#include "program_cache.hpp"

#include <clscan/cache.hpp>
#include <clscan/error.hpp>

#include <algorithm>
#include <memory>

namespace clscan::detail {
namespace {

cl::Kernel make_kernel(const cl::Program& program, const char* name) {
  cl_int status = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program(), name, &status);
  check(status, "clCreateKernel");
  return cl::Kernel(kernel);
}

std::size_t kernel_work_group_limit(const cl::Kernel& kernel, const cl::Device& device) {
  std::size_t limit = 0;
  check(
      clGetKernelWorkGroupInfo(kernel(), device(), CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit, nullptr),
      "clGetKernelWorkGroupInfo");
  return limit;
}

compiled_variant compile(const workspace& ws, const variant_key& key) {
  const char* file = key.algo == algorithm::single_pass ? "single_pass.cl" : "three_stage.cl";
  const std::string source = program_prelude(key, ws.caps) + kernel_source(file);
  compiled_variant built;
  built.program = build_program(ws.context, ws.device, ws.caps, source, build_options(key, ws.caps));
  if (key.algo == algorithm::single_pass) {
    built.single_pass = make_kernel(built.program, "scan_single_pass");
    built.clear_status = make_kernel(built.program, "clear_status");
  } else {
    built.scan_tiles = make_kernel(built.program, "scan_tiles");
    built.add_tile_prefixes = make_kernel(built.program, "add_tile_prefixes");
  }
  built.work_group_size = key.work_group_size;
  built.tile = key.work_group_size * key.items_per_thread;
  return built;
}

std::size_t smallest_limit(const compiled_variant& built, const cl::Device& device) {
  std::size_t limit = SIZE_MAX;
  for (const cl::Kernel* kernel : {&built.scan_tiles, &built.add_tile_prefixes, &built.single_pass})
    if ((*kernel)()) limit = std::min(limit, kernel_work_group_limit(*kernel, device));
  return limit;
}

std::mutex registry_mutex;
std::map<std::pair<cl_context, cl_device_id>, std::unique_ptr<workspace>>& registry() {
  static std::map<std::pair<cl_context, cl_device_id>, std::unique_ptr<workspace>> workspaces;
  return workspaces;
}

} // namespace

workspace::workspace(cl::Context context_in, cl::Device device_in)
    : context(std::move(context_in)), device(std::move(device_in)), caps(cached_capabilities(device())) {}

const tuning& workspace::shape(element_type type, algorithm algo, std::size_t n) {
  const bool small_inputs = n * size_of(type) <= small_input_bytes(caps, algo);
  auto key = std::make_tuple(type, algo, small_inputs);
  auto it = shapes_.find(key);
  if (it == shapes_.end()) it = shapes_.emplace(key, initial_tuning(caps, type, algo, small_inputs)).first;
  return it->second;
}

const compiled_variant& workspace::variant(const variant_key& key) {
  auto it = variants_.find(key);
  if (it != variants_.end()) return it->second;

  variant_key attempt = key;
  compiled_variant built = compile(*this, attempt);
  // The work-group size is compiled in (reqd_work_group_size, local arrays), so a kernel that cannot
  // run that many work-items (registers, local memory) is rebuilt with fewer.
  for (std::size_t limit = smallest_limit(built, device); limit < attempt.work_group_size;
       limit = smallest_limit(built, device)) {
    std::size_t smaller = 1;
    while (smaller * 2 <= limit)
      smaller *= 2;
    if (log_enabled())
      log(log_level::info, "kernel work-group limit " + std::to_string(limit) + " on " + caps.name +
                               "; rebuilding with " + std::to_string(smaller) + " work-items");
    attempt.work_group_size = smaller;
    built = compile(*this, attempt);
  }
  return variants_.emplace(key, std::move(built)).first->second;
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
  }
  return buffer;
}

namespace {

// True when `event` has completed or was terminated: nothing it belongs to uses the temporaries any
// more. A query, never a wait.
bool finished(const cl::Event& event) {
  cl_int status = CL_QUEUED;
  check(clGetEventInfo(event(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
        "clGetEventInfo");
  return status <= CL_COMPLETE;
}

} // namespace

temporaries& workspace::temporaries_for(cl_command_queue queue, bool out_of_order) {
  temporaries* chosen = nullptr;
  // An in-order queue runs the new scan after its own previous one anyway; an out-of-order queue
  // would have to wait for it, so it looks for a free set first.
  if (!out_of_order)
    for (auto& set : temporaries_)
      if (set->last_queue() == queue) {
        chosen = set.get();
        break;
      }
  if (!chosen)
    for (auto& set : temporaries_)
      if (!set->last_event() || finished(set->last_event)) {
        chosen = set.get();
        break;
      }
  if (!chosen && temporaries_.size() < max_temporaries)
    chosen = temporaries_.emplace_back(std::make_unique<temporaries>()).get();
  if (!chosen)
    chosen = std::min_element(temporaries_.begin(), temporaries_.end(), [](const auto& a, const auto& b) {
               return a->last_use < b->last_use;
             })->get();
  chosen->last_use = ++calls_;
  return *chosen;
}

workspace& workspace_for(cl_context context, cl_device_id device) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto& workspaces = registry();
  const auto key = std::make_pair(context, device);
  auto it = workspaces.find(key);
  if (it == workspaces.end()) {
    // The workspace retains the context and device, so their handles cannot be reused while it lives.
    auto created = std::make_unique<workspace>(cl::Context(context, true), cl::Device(device, true));
    it = workspaces.emplace(key, std::move(created)).first;
  }
  return *it->second;
}

} // namespace clscan::detail

namespace clscan {

void release_cached_resources() {
  std::lock_guard<std::mutex> lock(detail::registry_mutex);
  detail::registry().clear();
}

} // namespace clscan
