#include "settings.hpp"

#include <clscan/error.hpp>

#include <cstdint>
#include <cstdlib>

namespace clscan::detail {

const char* const experimental_setting_names[experimental_setting_count] = {
    "CLSCAN_TUNING", "CLSCAN_BUILD_OPTIONS", "CLSCAN_SPIN_LIMIT", "CLSCAN_NARROW_STATUS",
    "CLSCAN_MEMORY_MODEL"};

std::optional<std::size_t> parse_count(std::string_view text, std::size_t limit) {
  if (text.empty()) return std::nullopt;
  std::size_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::size_t>(c - '0');
    if (value > (limit - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::string_view environment(const char* name) {
  const char* text = std::getenv(name);
  return text ? std::string_view(text) : std::string_view();
}

std::string_view wanted_platform() { return environment("CLSCAN_PLATFORM"); }
std::string_view wanted_device() { return environment("CLSCAN_DEVICE"); }
std::string_view device_limits() { return environment("CLSCAN_DEVICE_LIMITS"); }
std::string_view log_target() { return environment("CLSCAN_LOG"); }

std::string cache_directory_setting() {
  if (const std::string_view off = environment("CLSCAN_NO_CACHE"); !off.empty() && off != "0") return {};
  if (const std::string_view dir = environment("CLSCAN_CACHE_DIR"); !dir.empty()) return std::string(dir);
  if (const std::string_view xdg = environment("XDG_CACHE_HOME"); !xdg.empty())
    return std::string(xdg) + "/clscan";
  if (const std::string_view home = environment("HOME"); !home.empty())
    return std::string(home) + "/.cache/clscan";
  return {};
}

std::optional<std::size_t> max_contexts_setting() {
  const std::string_view text = environment("CLSCAN_MAX_CONTEXTS");
  if (text.empty()) return std::nullopt;
  const std::optional<std::size_t> value = parse_count(text, SIZE_MAX);
  if (!value || *value == 0)
    throw invalid_argument("clscan: CLSCAN_MAX_CONTEXTS='" + std::string(text) +
                           "' is not a positive number of (context, device) pairs");
  return value;
}

std::optional<std::size_t> max_programs_setting() {
  const std::string_view text = environment("CLSCAN_MAX_PROGRAMS");
  if (text.empty()) return std::nullopt;
  const std::optional<std::size_t> value = parse_count(text, SIZE_MAX);
  if (!value || *value == 0)
    throw invalid_argument("clscan: CLSCAN_MAX_PROGRAMS='" + std::string(text) +
                           "' is not a positive number of compiled programs");
  return value;
}

std::optional<std::uint64_t> cache_max_bytes_setting() {
  const std::string_view text = environment("CLSCAN_CACHE_MAX_BYTES");
  if (text.empty()) return std::nullopt;
  std::string_view digits = text;
  unsigned shift = 0;
  switch (digits.back()) {
  case 'K': shift = 10; break;
  case 'M': shift = 20; break;
  case 'G': shift = 30; break;
  default: break;
  }
  if (shift) digits.remove_suffix(1);
  const std::optional<std::size_t> value = parse_count(digits, SIZE_MAX >> shift);
  if (!value || *value == 0)
    throw invalid_argument("clscan: CLSCAN_CACHE_MAX_BYTES='" + std::string(text) +
                           "' is not a positive number of bytes (digits, optionally followed by K, M or G)");
  return std::uint64_t{*value} << shift;
}

std::string_view tuning_override() { return environment("CLSCAN_TUNING"); }

std::optional<std::size_t> spin_limit_override() {
  const std::string_view text = environment("CLSCAN_SPIN_LIMIT");
  if (text.empty()) return std::nullopt;
  // The kernel counts rounds in an int.
  const std::optional<std::size_t> limit = parse_count(text, 0x7fffffff);
  if (!limit)
    throw invalid_argument("CLSCAN_SPIN_LIMIT='" + std::string(text) +
                           "' is not a whole number from 0 to 2147483647");
  return limit;
}

std::string_view extra_build_options() { return environment("CLSCAN_BUILD_OPTIONS"); }

bool narrow_status_forced() {
  static const bool forced = [] {
    const std::string_view text = environment("CLSCAN_NARROW_STATUS");
    if (!text.empty() && text != "0" && text != "1")
      throw invalid_argument("CLSCAN_NARROW_STATUS='" + std::string(text) + "' must be 0 or 1");
    return text == "1";
  }();
  return forced;
}

std::optional<memory_model> memory_model_override() {
  const std::string_view text = environment("CLSCAN_MEMORY_MODEL");
  if (text.empty()) return std::nullopt;
  if (text == "fences") return memory_model::fences;
  if (text == "acq_rel") return memory_model::acq_rel;
  throw invalid_argument("CLSCAN_MEMORY_MODEL='" + std::string(text) + "' must be fences or acq_rel");
}

std::optional<bool> qualify_override() {
  const std::string_view text = environment("CLSCAN_QUALIFY");
  if (text.empty()) return std::nullopt;
  if (text == "0") return false;
  if (text == "1") return true;
  throw invalid_argument("CLSCAN_QUALIFY='" + std::string(text) + "' must be 0 or 1");
}

} // namespace clscan::detail
