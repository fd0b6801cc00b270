#pragma once

#include <clscan/log.hpp>

#include <string>

namespace clscan::detail {

// True when a handler or CLSCAN_LOG would receive events; lets callers skip building messages.
bool log_enabled() noexcept;
void log(log_level level, const std::string& message);

} // namespace clscan::detail
