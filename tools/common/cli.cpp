#include "cli.hpp"

#include <clscan/names.hpp>

#include <algorithm>
#include <cctype>
#include <limits>

namespace clscan_tools {
namespace {

constexpr std::uint64_t no_limit = std::numeric_limits<std::uint64_t>::max();

std::string quoted(const std::string& flag, const std::string& text) { return flag + ": '" + text + "'"; }

[[noreturn]] void fail_range(const std::string& flag, const std::string& text, std::uint64_t min,
                             std::uint64_t max) {
  std::string range;
  if (max == no_limit)
    range = "at least " + count_text(min);
  else
    range = count_text(min) + " to " + count_text(max);
  throw usage_error(quoted(flag, text) + " is out of range (" + range + ")");
}

bool starts_negative(const std::string& text) {
  return text.size() > 1 && text[0] == '-' && std::isdigit(static_cast<unsigned char>(text[1]));
}

// Reads decimal digits at `pos` into `value`; false when there are none or on overflow (`overflow`).
bool read_digits(const std::string& text, std::size_t& pos, std::uint64_t& value, bool& overflow) {
  const std::size_t start = pos;
  value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    const auto digit = static_cast<std::uint64_t>(text[pos++] - '0');
    if (value > (no_limit - digit) / 10) overflow = true;
    value = value * 10 + digit;
  }
  return pos != start;
}

} // namespace

bool help_requested_only(const char* tool, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return true;
    throw usage_error(arg.rfind('-', 0) == 0 ? "unknown option '" + arg + "' (see --help)"
                                             : "unexpected argument '" + arg + "': " + tool +
                                                   " takes no arguments (see --help)");
  }
  return false;
}

std::string flag_value(int argc, char** argv, int& i) {
  const std::string flag = argv[i];
  if (i + 1 >= argc) throw usage_error(flag + " needs a value");
  // In a script, a flag given twice is a slip more often than an override: refused, not last-wins.
  for (int j = 1; j < i; ++j)
    if (flag == argv[j]) throw usage_error(flag + " is given twice");
  return argv[++i];
}

std::string count_text(std::uint64_t n, std::uint64_t smallest_power) {
  if (n >= smallest_power && n != 0 && (n & (n - 1)) == 0) {
    int e = 0;
    while ((std::uint64_t{1} << e) != n)
      ++e;
    return "2^" + std::to_string(e);
  }
  return std::to_string(n);
}

std::uint64_t parse_integer(const std::string& flag, const std::string& text, std::uint64_t min,
                            std::uint64_t max) {
  if (text.empty()) throw usage_error(flag + ": empty value");
  if (starts_negative(text)) throw usage_error(quoted(flag, text) + " is negative");
  std::size_t pos = 0;
  std::uint64_t value = 0;
  bool overflow = false;
  if (!read_digits(text, pos, value, overflow) || pos != text.size())
    throw usage_error(quoted(flag, text) + " is not a number");
  if (overflow || value < min || value > max) fail_range(flag, text, min, max);
  return value;
}

std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t min,
                          std::uint64_t max) {
  // term [('+'|'-') number], term = number [K|M|G] | 2^number
  if (text.empty()) throw usage_error(flag + ": empty value");
  if (starts_negative(text)) throw usage_error(quoted(flag, text) + " is negative");
  const auto unreadable = [&]() {
    return usage_error(
        quoted(flag, text) +
        " is not a count (a number, 2^N, a K/M/G suffix or +K/-K: e.g. 1000, 64K, 2^20, 2^20+3)");
  };
  std::size_t pos = 0;
  std::uint64_t value = 0;
  bool overflow = false;
  if (!read_digits(text, pos, value, overflow)) throw unreadable();
  if (pos < text.size() && text[pos] == '^') {
    if (value != 2 || overflow) throw unreadable();
    ++pos;
    std::uint64_t exponent = 0;
    if (!read_digits(text, pos, exponent, overflow)) throw unreadable();
    if (overflow || exponent > 63)
      overflow = true;
    else
      value = std::uint64_t{1} << exponent;
  } else if (pos < text.size()) {
    const char suffix = static_cast<char>(std::toupper(static_cast<unsigned char>(text[pos])));
    const int shift = suffix == 'K' ? 10 : suffix == 'M' ? 20 : suffix == 'G' ? 30 : 0;
    if (shift) {
      ++pos;
      if (value > (no_limit >> shift)) overflow = true;
      value <<= shift;
    }
  }
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const bool plus = text[pos++] == '+';
    std::uint64_t delta = 0;
    if (!read_digits(text, pos, delta, overflow)) throw unreadable();
    if (plus) {
      if (delta > no_limit - value) overflow = true;
      value += delta;
    } else {
      if (delta > value && !overflow) throw usage_error(quoted(flag, text) + " is negative");
      value -= delta;
    }
  }
  if (pos != text.size()) throw unreadable();
  if (overflow || value < min || value > max) fail_range(flag, text, min, max);
  return value;
}

std::vector<std::string> split_list(const std::string& flag, const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t first = item.find_first_not_of(" \t");
    if (first == std::string::npos)
      throw usage_error(text.find_first_not_of(" \t") == std::string::npos
                            ? flag + ": empty value"
                            : quoted(flag, text) + " has an empty item");
    items.push_back(item.substr(first, item.find_last_not_of(" \t") - first + 1));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

std::vector<std::uint64_t> parse_count_list(const std::string& flag, const std::string& text,
                                            std::uint64_t min, std::uint64_t max) {
  std::vector<std::uint64_t> counts;
  for (const std::string& item : split_list(flag, text))
    counts.push_back(parse_count(flag, item, min, max));
  return counts;
}

clscan::element_type parse_type(const std::string& flag, const std::string& text) {
  if (const std::optional<clscan::element_type> type = clscan::parse_element_type(text)) return *type;
  throw usage_error(flag + ": unknown '" + text + "' (int, uint, long, ulong, float, double)");
}

std::optional<std::vector<clscan::algorithm>>
algorithm_choice(const std::string& name, const std::vector<clscan::algorithm>& offered) {
  if (name == "all") return offered;
  const std::optional<clscan::algorithm> algo = clscan::parse_algorithm(name);
  if (!algo || std::find(offered.begin(), offered.end(), *algo) == offered.end()) return std::nullopt;
  return std::vector<clscan::algorithm>{*algo};
}

std::string names_text(const std::vector<clscan::algorithm>& algorithms) {
  std::string text;
  for (const clscan::algorithm algo : algorithms)
    text.append(text.empty() ? "" : ", ").append(clscan::to_string(algo));
  return text;
}

} // namespace clscan_tools
