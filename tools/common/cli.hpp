// Command-line plumbing shared by clscan's tools (clscan-bench, clscan-tune, clscan-demo, clscan-info):
// reading the value of a flag, numbers, element types and algorithm choices, with errors that name
// the flag and the text as written.
// Every tool reports a usage_error as "<tool>: <message>" on stderr and exits with status 2.
#pragma once

#include <clscan/clscan.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace clscan_tools {

// A bad command line: the message names the flag and the text as written.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A tool's main(): returns body()'s status; a usage_error is reported on stderr as "<tool>: <message>"
// with status 2, any other exception as "<tool>: <message>" with status 1.
template <typename Body> int run_main(const char* tool, Body body) {
  try {
    return body();
  } catch (const usage_error& e) {
    std::fprintf(stderr, "%s: %s\n", tool, e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", tool, e.what());
    return 1;
  }
}

// The command line of a tool that takes no arguments but --help (or -h): true when that was given
// (the caller prints its help and exits 0); usage_error("unknown option '-x' (see --help)") or
// ("unexpected argument 'x': <tool> takes no arguments (see --help)") for anything else.
bool help_requested_only(const char* tool, int argc, char** argv);

// run_main() for a tool that takes no arguments but --help: prints `help` for --help, else runs body().
template <typename Body>
int run_main_without_arguments(const char* tool, const char* help, int argc, char** argv, Body body) {
  return run_main(tool, [&] {
    if (help_requested_only(tool, argc, argv)) {
      std::fputs(help, stdout);
      return 0;
    }
    return body();
  });
}

// The value after the flag argv[i] (advancing i), or usage_error("<flag> needs a value"), or
// usage_error("<flag> is given twice") when argv[1..i) holds the same flag.
std::string flag_value(int argc, char** argv, int& i);

// A non-negative decimal integer in [min, max], nothing else: no sign, no spaces, no suffix. Errors
// (usage_error): "--reps: 'abc' is not a number", "--reps: '-3' is negative", "--reps: '0' is out
// of range (1 to 100000)".
std::uint64_t parse_integer(const std::string& flag, const std::string& text, std::uint64_t min,
                            std::uint64_t max);

// An element count in [min, max]: a decimal number, 2^N, either with a binary suffix K, M or G
// (x 2^10, 2^20, 2^30) or an offset +K / -K, e.g. 1000, 64K, 2^20, 2^20+3, 2^24-1, 1G. Negative
// numbers, overflow, trailing text and anything else are usage errors that quote the text.
std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t min,
                          std::uint64_t max);

// The items of a comma-separated list, spaces around them removed. An empty list is
// usage_error("<flag>: empty value"), an empty item (a typo such as "1,,2" or "a,") usage_error("<flag>:
// '<text>' has an empty item").
std::vector<std::string> split_list(const std::string& flag, const std::string& text);

// A comma-separated list of counts (split_list, then parse_count).
std::vector<std::uint64_t> parse_count_list(const std::string& flag, const std::string& text,
                                            std::uint64_t min, std::uint64_t max);

// "2^N" for powers of two from `smallest_power` up, else the decimal number.
std::string count_text(std::uint64_t n, std::uint64_t smallest_power = 1024);

// An element type by its OpenCL C name (clscan::parse_element_type), else usage_error("<flag>: unknown
// '<text>' (int, uint, long, ulong, float, double)").
clscan::element_type parse_type(const std::string& flag, const std::string& text);

// An algorithm name (clscan::parse_algorithm) that is one of `offered`, as a list of one, or "all"
// for all of `offered`; std::nullopt for anything else (each tool words its own error).
std::optional<std::vector<clscan::algorithm>> algorithm_choice(const std::string& name,
                                                               const std::vector<clscan::algorithm>& offered);

// The names of `algorithms` joined by ", ".
std::string names_text(const std::vector<clscan::algorithm>& algorithms);

} // namespace clscan_tools
