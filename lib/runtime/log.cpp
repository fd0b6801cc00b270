#include "log.hpp"
#include "settings.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

namespace clscan {

const char* to_string(log_level level) noexcept {
  switch (level) {
  case log_level::debug: return "debug";
  case log_level::info: return "info";
  case log_level::warning: return "warning";
  }
  return "unknown";
}

namespace {

struct log_state {
  std::mutex mutex;
  log_handler handler;
  std::atomic<bool> has_handler{false};
  const std::string env_target = read_env_target(); // CLSCAN_LOG: a file path or "stderr"

  static std::string read_env_target() { return std::string(detail::log_target()); }
};

log_state& state() {
  static log_state s;
  return s;
}

} // namespace

void set_log_handler(log_handler handler) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.handler = std::move(handler);
  s.has_handler = static_cast<bool>(s.handler);
}

namespace detail {

bool log_enabled() noexcept {
  auto& s = state();
  return s.has_handler.load(std::memory_order_relaxed) || !s.env_target.empty();
}

void log(log_level level, const std::string& message) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.handler) {
    try {
      s.handler(level, message);
    } catch (...) {
      // A diagnostic must not change what the scan does.
    }
  }
  if (s.env_target.empty()) return;
  // The user asked for this output by setting CLSCAN_LOG.
  const bool to_stderr = s.env_target == "stderr";
  std::FILE* file = to_stderr ? stderr : std::fopen(s.env_target.c_str(), "a");
  if (!file) return;
  std::fprintf(file, "clscan %s: %s\n", to_string(level), message.c_str());
  if (!to_stderr) std::fclose(file);
}

} // namespace detail
} // namespace clscan
