// Diagnostics. clscan never prints; it reports program builds, cache hits, misses and repairs, and
// algorithm fallbacks to a handler the program installs, or, when the environment variable CLSCAN_LOG
// names a file (or "stderr"), appends them there.
#pragma once

#include <functional>
#include <string>

namespace clscan {

enum class log_level { debug, info, warning };

const char* to_string(log_level level) noexcept;

using log_handler = std::function<void(log_level level, const std::string& message)>;

// Installs `handler` for all later events (process-wide; an empty handler removes it). The handler
// may be called from any thread that calls clscan, while clscan holds its own locks: it must not call
// clscan itself. Exceptions it throws are ignored.
void set_log_handler(log_handler handler);

} // namespace clscan
