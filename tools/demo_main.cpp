// clscan-demo's command line. clscan_demo.cpp is README.md's usage example word for word, so it takes
// no arguments itself; tools/CMakeLists.txt renames its main() to clscan_demo_main(), which this main()
// runs once the command line has been checked: --help prints the usage and exits 0, anything else is
// refused with status 2.
#include "common/cli.hpp"

#include <cstdio>
#include <exception>
#include <string>

int clscan_demo_main();

namespace {

const char* const help_text = R"(usage: clscan-demo [--help]

Runs README.md's usage example (tools/clscan_demo.cpp): an exclusive scan out of place and an
inclusive scan in place of 100000 ints on the device clscan::select_device() picks (CLSCAN_PLATFORM,
CLSCAN_DEVICE), both checked against std::exclusive_scan / std::inclusive_scan. Exit status 0 when
both match, 1 when not or on an error (reported on stderr), 2 on a bad command line.
)";

} // namespace

int main(int argc, char** argv) {
  // clscan's errors (e.g. no OpenCL device) are reported with status 1, not a terminate().
  return clscan_tools::run_main_without_arguments("clscan-demo", help_text, argc, argv, clscan_demo_main);
}
