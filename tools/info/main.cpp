// clscan-info: what clscan sees on this machine, and whether it computes correct scans there.
//
//   clscan-info                 every OpenCL platform and device: properties, capabilities, the
//                               dispatch plan clscan uses on it, and the state of its disk cache
//   clscan-info --json          the same as JSON
//   clscan-info --self-test     exact inclusive and exclusive scans (in place and out of place) on
//                               every device, checked against std::inclusive_scan/std::exclusive_scan,
//                               then the selections and scans by key of every element type
//   clscan-info --selected ...  only the device clscan::select_device() picks
//
// Run with --help for the options.
//
// The pieces: info.hpp (what is read), cache_probe.cpp, discover.cpp, listing.cpp, self_test.cpp.
#include "info.hpp"

#include "common/cli.hpp"

#include <clscan/clscan.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

using clscan_tools::usage_error;

constexpr const char* usage_text =
    R"(usage: clscan-info [--json] [--selected] [--self-test [--algorithm NAME[,NAME...]] [--calls NAME[,NAME...]]]
                   [--help]

Lists every OpenCL platform and device with what clscan reads from it (capabilities) and what it
chooses for it (the dispatch plan for cl_int scans: algorithm for large sizes, launch shapes and where
they come from), plus the disk cache: its directory and state, and per device the state, the number
of entries and the tuning file when there is one.

options:
  --json              print the same information (or the self-test results) as JSON on stdout.
  --self-test         on every device of every platform, run inclusive and exclusive cl_int sum scans,
                      in place and out of place, of sizes 1, 1000, tile+1, 2^20 and 2^22+3 (random
                      values; integer sums wrap) and compare them exactly with std::inclusive_scan and
                      std::exclusive_scan; then select_if, select_flagged, partition_if, unique,
                      inclusive_by_key, exclusive_by_key, inclusive_segmented and
                      reduce_segmented of every element type the device has, at
                      sizes around their tile (1, tile-1, tile+1, 3*tile+5), compared exactly with
                      std::copy_if, std::stable_partition, std::unique_copy and a sequential scan by
                      key, outputs between poisoned guards; then sort, sort_by_key and sorted_order
                      of keys of every type (1, 1000 and 100003 keys with -0.0, NaNs, infinities,
                      denormals and equal keys; ascending and descending, in place and out of place,
                      every value type, cl_uint and cl_ulong indices), compared bit for bit with
                      std::stable_sort in numpy's order. Prints pass/fail and the time per device
                      and algorithm (single_pass leaves out partition_if, which refuses it).
  --algorithm LIST    algorithms for --self-test: automatic (default), three_stage, single_pass, or a
                      comma-separated list of them, or "all".
  --calls LIST        calls for --self-test: scans, select (the four selections), by_key (the two
                      scans by key, and the segmented calls over the same segments), sort (the three sorts), a comma-separated list of them, or
                      "all" (default). The first
                      self-test of the selections and scans by key on a device compiles about 30
                      programs (up to a minute on PoCL with 2 cores); later runs find them compiled
                      (clscan's disk cache, the driver's own cache).
  --selected          list (or self-test) only the device clscan::select_device() picks, the one the
                      other tools and the tests use: CLSCAN_PLATFORM and CLSCAN_DEVICE when set, else
                      the first GPU, else the first device. Fails (exit 1) when nothing matches.
  --help, -h          this text.

Disk cache states: "off" (CLSCAN_NO_CACHE is set, or no directory can be named), "missing" (created
on the first store), "not writable" (found by trying to create a file or directory there: clscan
keeps programs in memory only), "writable".

A device (or algorithm) that throws is reported with its error and the others still run.
Exit status: 0 when everything was listed / every self-test check passed; 1 when a device failed (its
capabilities or its dispatch plan could not be read, e.g. an invalid CLSCAN_TUNING) or a check was
wrong or nothing was tested; 2 on a usage error.

Environment: CLSCAN_CACHE_DIR, CLSCAN_NO_CACHE, CLSCAN_TUNING and CLSCAN_LOG apply as in the library.
Without --selected, CLSCAN_PLATFORM and CLSCAN_DEVICE only choose which device is marked "selected".
)";

// A comma-separated list of "scans", "select", "by_key", or "all".
clscan_info::self_test_calls parse_calls(const std::string& list) {
  clscan_info::self_test_calls calls{false, false, false, false};
  for (const std::string& name : clscan_tools::split_list("--calls", list)) {
    if (name == "all")
      calls = {true, true, true, true};
    else if (name == "scans")
      calls.scans = true;
    else if (name == "select")
      calls.selections = true;
    else if (name == "by_key")
      calls.by_key = true;
    else if (name == "sort")
      calls.sort = true;
    else
      throw usage_error("unknown calls '" + name + "' (scans, select, by_key, sort or all)");
  }
  return calls;
}

// A comma-separated list of algorithm names, or "all".
std::vector<clscan::algorithm> parse_algorithms(const std::string& list) {
  const std::vector<clscan::algorithm> offered = {
      clscan::algorithm::automatic, clscan::algorithm::three_stage, clscan::algorithm::single_pass};
  std::vector<clscan::algorithm> algorithms;
  for (const std::string& name : clscan_tools::split_list("--algorithm", list)) {
    const auto chosen = clscan_tools::algorithm_choice(name, offered);
    if (!chosen)
      throw usage_error("unknown algorithm '" + name + "' (" + clscan_tools::names_text(offered) +
                        " or all)");
    algorithms.insert(algorithms.end(), chosen->begin(), chosen->end());
  }
  return algorithms;
}

} // namespace

int main(int argc, char** argv) {
  bool json = false;
  bool run_self_test = false;
  bool algorithm_given = false;
  bool calls_given = false;
  clscan_info::self_test_calls calls;
  bool selected_only = false;
  std::vector<clscan::algorithm> algorithms = {clscan::algorithm::automatic};
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::fputs(usage_text, stdout);
        return 0;
      }
      if (arg == "--json") {
        json = true;
      } else if (arg == "--self-test") {
        run_self_test = true;
      } else if (arg == "--selected") {
        selected_only = true;
      } else if (arg == "--algorithm" || arg.rfind("--algorithm=", 0) == 0) {
        if (algorithm_given) throw usage_error("--algorithm is given twice");
        std::string value;
        if (arg == "--algorithm") {
          if (i + 1 >= argc) throw usage_error("--algorithm needs a value");
          value = argv[++i];
        } else {
          value = arg.substr(std::strlen("--algorithm="));
        }
        algorithms = parse_algorithms(value);
        algorithm_given = true;
      } else if (arg == "--calls" || arg.rfind("--calls=", 0) == 0) {
        if (calls_given) throw usage_error("--calls is given twice");
        std::string value;
        if (arg == "--calls") {
          if (i + 1 >= argc) throw usage_error("--calls needs a value");
          value = argv[++i];
        } else {
          value = arg.substr(std::strlen("--calls="));
        }
        calls = parse_calls(value);
        calls_given = true;
      } else {
        throw usage_error("unknown option '" + arg + "'");
      }
    }
    if (algorithm_given && !run_self_test) throw usage_error("--algorithm applies to --self-test only");
    if (calls_given && !run_self_test) throw usage_error("--calls applies to --self-test only");
  } catch (const usage_error& e) {
    std::fprintf(stderr, "clscan-info: %s\n\n%s", e.what(), usage_text);
    return 2;
  }

  try {
    if (run_self_test)
      return clscan_info::run_self_tests(clscan_info::discover(false, selected_only), algorithms, calls,
                                         json);
    const clscan_info::machine m = clscan_info::discover(true, selected_only);
    if (json)
      clscan_info::print_json(m);
    else
      clscan_info::print_table(m);
    return clscan_info::listing_ok(m) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clscan-info: %s\n", e.what());
    return 1;
  }
}
