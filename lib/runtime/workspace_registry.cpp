// The registry of workspaces, one per (context, device), and the public calls that release them or
// bound their number (<clscan/cache.hpp>).
#include "workspace.hpp"

#include "settings.hpp"

#include <clscan/cache.hpp>
#include <clscan/error.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace clscan::detail {

namespace {

constexpr std::size_t default_cache_limit = 4;

struct registry_entry {
  std::shared_ptr<workspace> ws;
  std::uint64_t last_use = 0;
};

struct registry_state {
  std::mutex mutex;
  std::map<std::pair<cl_context, cl_device_id>, registry_entry> entries;
  std::uint64_t uses = 0;
  std::size_t limit = 0; // set by set_cache_limit(); 0: CLSCAN_MAX_CONTEXTS, else the default
  // What release_cached_resources() dropped once the process had begun to exit: kept, never released.
  std::vector<std::shared_ptr<workspace>> kept_at_exit;
};

// Set by an exit handler, which runs before the destructors of statics made before it was
// registered: a global object that owns a context and calls release_cached_resources() in its
// destructor, when the OpenCL implementation's own statics (some made lazily, at a program's first
// build) may already be gone. It is registered again with every new workspace, so that it also runs
// before the destructor of a static made after clscan's first use but before its context's first scan
// (at most max_exit_registrations times: a few words of the C library's each).
std::atomic<bool> exiting{false};
constexpr int max_exit_registrations = 256;
int exit_registrations = 0; // under the registry's mutex

extern "C" void note_exit() { exiting.store(true); }

void register_exit_handler() {
  if (exit_registrations < max_exit_registrations && std::atexit(note_exit) == 0) ++exit_registrations;
}

// Never destroyed: at exit clscan releases nothing, because the OpenCL implementation may already have
// shut down (Oclgrind aborts then) or may block (waiting for queues), and a global object's destructor
// may still call release_cached_resources() after clscan's other statics are gone. The pointer keeps
// everything reachable, so LeakSanitizer reports none of it.
registry_state& registry() {
  static registry_state* const state = new registry_state; // NOLINT(cppcoreguidelines-owning-memory)
  return *state;
}

// Releases `dropped` now, or, once the process has begun to exit, keeps it for good: the OpenCL
// implementation may have shut down already, and the operating system reclaims everything anyway.
void release_or_keep(registry_state& r, std::vector<std::shared_ptr<workspace>>& dropped) {
  if (!exiting.load()) return; // released by the caller's vector
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto& ws : dropped)
    r.kept_at_exit.push_back(std::move(ws));
  dropped.clear();
}

// The limit in effect: set_cache_limit()'s, else CLSCAN_MAX_CONTEXTS (read each time, so a test can
// set it), else default_cache_limit.
std::size_t cache_limit_locked(const registry_state& r) {
  if (r.limit) return r.limit;
  return max_contexts_setting().value_or(default_cache_limit);
}

// Moves the least recently used idle workspaces out of the registry (into `evicted`, released by the
// caller once the registry's lock is given back) until at most `limit` remain. A workspace in use by a
// call, or with a command pending, stays, even over the limit. Never waits.
void evict_over_limit(registry_state& r, std::size_t limit,
                      std::vector<std::shared_ptr<workspace>>& evicted) {
  while (r.entries.size() > limit) {
    auto victim = r.entries.end();
    for (auto it = r.entries.begin(); it != r.entries.end(); ++it)
      if ((victim == r.entries.end() || it->second.last_use < victim->second.last_use) &&
          it->second.ws.use_count() == 1 && it->second.ws->idle())
        victim = it;
    if (victim == r.entries.end()) return;
    evicted.push_back(std::move(victim->second.ws));
    r.entries.erase(victim);
  }
}

} // namespace

std::shared_ptr<workspace> workspace_for(cl_context context, cl_device_id device) {
  auto& r = registry();
  std::vector<std::shared_ptr<workspace>> evicted; // released after the lock, outside every other lock
  std::shared_ptr<workspace> found;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto key = std::make_pair(context, device);
    auto it = r.entries.find(key);
    if (it == r.entries.end()) {
      const std::size_t limit = cache_limit_locked(r);
      // The workspace retains the context and device, so their handles cannot be reused while it lives.
      auto created = std::make_shared<workspace>(cl::Context(context, true), cl::Device(device, true));
      it = r.entries.emplace(key, registry_entry{std::move(created), 0}).first;
      register_exit_handler();
      it->second.last_use = ++r.uses;
      found = it->second.ws; // in use from here on, so never evicted below
      evict_over_limit(r, limit, evicted);
    } else {
      it->second.last_use = ++r.uses;
      found = it->second.ws;
    }
  }
  return found;
}

} // namespace clscan::detail

namespace clscan {

void release_cached_resources() {
  auto& r = detail::registry();
  std::vector<std::shared_ptr<detail::workspace>> released;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    for (auto& [key, entry] : r.entries)
      released.push_back(std::move(entry.ws));
    r.entries.clear();
  }
  detail::release_or_keep(r, released);
  // A workspace a call still uses is released when that call returns.
}

void release_cached_resources(const cl::Context& context) {
  if (!context()) throw invalid_argument("clscan: release_cached_resources: the context is null");
  auto& r = detail::registry();
  std::vector<std::shared_ptr<detail::workspace>> released;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    for (auto it = r.entries.begin(); it != r.entries.end();)
      if (it->first.first == context()) {
        released.push_back(std::move(it->second.ws));
        it = r.entries.erase(it);
      } else {
        ++it;
      }
  }
  detail::release_or_keep(r, released);
}

void set_cache_limit(std::size_t contexts) {
  if (contexts == 0)
    throw invalid_argument("clscan: set_cache_limit(0): clscan keeps at least one (context, device) pair");
  auto& r = detail::registry();
  std::vector<std::shared_ptr<detail::workspace>> evicted;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    r.limit = contexts;
    detail::evict_over_limit(r, contexts, evicted);
  }
}

std::size_t cache_limit() {
  auto& r = detail::registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return detail::cache_limit_locked(r);
}

std::size_t cached_programs(const cl::Context& context) {
  if (!context()) throw invalid_argument("clscan: cached_programs: the context is null");
  auto& r = detail::registry();
  std::vector<std::shared_ptr<detail::workspace>> held;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& [key, entry] : r.entries)
      if (key.first == context()) held.push_back(entry.ws);
  }
  std::size_t count = 0;
  for (const auto& ws : held) {
    std::lock_guard<std::mutex> lock(ws->mutex);
    count += ws->variant_count();
  }
  return count;
}

} // namespace clscan
