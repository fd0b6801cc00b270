// Faults of the 32-bit status words: 16-bit tags wrap around, and the status words are cleared when
// they do (the child case runs more than 2 x 65535 launches on one queue).
#include "faults_scan.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using namespace clscan_test;

// Run with CLSCAN_NARROW_STATUS=1 (32-bit status words: 16-bit tags), small tiles (CLSCAN_TUNING) and
// a small CLSCAN_SPIN_LIMIT: CLSCAN_FAULTS_TAG_LAUNCHES single-pass launches on one in-order queue,
// so on one set of temporaries. Launch i gets tag i % 65535 + 1: launch 65535 finds the epoch at
// 65535, clears the status words and restarts tags (and tickets) at 1. Every launch's result is read
// back and compared, and each launch has its own initial value, so a tile that took a word left by
// an earlier launch for current would be wrong.
//
// Whether the clear reached every word is made certain rather than left to timing: launches 0 and 1
// scan eight tiles, all later ones three or four (the clearing launch too), except the one right
// after each clear, which scans eight tiles again with tag 2. So tile 5 published last in launch 1,
// with tag 2, and a clear of just the clearing launch's own tiles would leave those words. The
// launches after a clear scan cl_uint (the same bits as the cl_int sums, the same status words)
// with a program built with -DCLSCAN_TEST_SILENT_TILE=5: tile 6 then finds nothing of tile 5 and
// falls back, unless the clear missed tile 5's words and it takes launch 1's prefix.
TEST_CASE("faults child: narrow status tags wrap around", "[.faults-child]") {
  print_log_events logging;
  const cl::Device device = clscan::select_device();
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  const char* count = std::getenv("CLSCAN_FAULTS_TAG_LAUNCHES");
  REQUIRE(count);
  const std::size_t launches = static_cast<std::size_t>(std::strtoull(count, nullptr, 10));
  const clscan::tuning shape = clscan::plan_for(device, clscan::element_type::int32).single_pass;
  const std::size_t tile = shape.work_group_size * shape.items_per_thread;
  constexpr std::size_t tag_period = 65535, batch = 1024, big_tiles = 8;
  // Launch sizes: three or four tiles, and eight for launch 0 and the second of each tag period.
  const std::size_t sizes[] = {2 * tile + 1, 3 * tile, 3 * tile + tile / 2, 4 * tile};
  const auto size_of_launch = [&](std::size_t i) {
    return i == 0 || i % tag_period == 1 ? big_tiles * tile - 3 : sizes[(i / 2) % 4];
  };
  const auto after_clear = [&](std::size_t i) { return i > 1 && i % tag_period == 1; };
  // Set once the cl_int program is built (launch 0), so that only the cl_uint one has the silent tile.
  std::optional<scoped_env> silent_tile;
  // Every slot of the output buffer has room for the largest launch and a poisoned gap after it;
  // a multiple of four elements, so every launch uses the aligned program.
  const std::size_t stride = (big_tiles * tile + 8 + 3) / 4 * 4;
  std::cout << "tile " << tile << " elements (" << shape.origin << "), " << launches << " launches"
            << std::endl;

  std::vector<cl_int> input(big_tiles * tile);
  splitmix64 r{0x7a6};
  for (auto& x : input)
    x = static_cast<cl_int>(r.next());
  const std::vector<cl_int> inclusive =
      clscan_reference::scan(input, clscan::scan_kind::inclusive, clscan::op::sum);
  cl::Buffer in(context, CL_MEM_READ_ONLY, input.size() * sizeof(cl_int));
  cl::Buffer out(context, CL_MEM_READ_WRITE, batch * stride * sizeof(cl_int));
  REQUIRE(queue.enqueueWriteBuffer(in, CL_TRUE, 0, input.size() * sizeof(cl_int), input.data()) ==
          CL_SUCCESS);

  const cl_int poison = poison_value<cl_int>();
  std::vector<cl_int> got(batch * stride);
  std::size_t wrong = 0, elements = 0;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t first = 0; first < launches; first += batch) {
    const std::size_t count_here = std::min(batch, launches - first);
    REQUIRE(queue.enqueueFillBuffer(out, poison, 0, got.size() * sizeof(cl_int)) == CL_SUCCESS);
    for (std::size_t b = 0; b < count_here; ++b) {
      const std::size_t i = first + b;
      if (i == 1) silent_tile.emplace("CLSCAN_BUILD_OPTIONS", std::string("-DCLSCAN_TEST_SILENT_TILE=5"));
      // The same bits either way: only the program differs.
      const auto launch = [&](auto element) {
        using T = decltype(element);
        clscan::options<T> opts;
        opts.algorithm = clscan::algorithm::single_pass;
        opts.initial = static_cast<T>(i * 2654435761u);
        opts.out_offset = b * stride;
        if (i % 2)
          clscan::exclusive(queue, in, out, size_of_launch(i), opts);
        else
          clscan::inclusive(queue, in, out, size_of_launch(i), opts);
      };
      if (after_clear(i))
        launch(cl_uint{});
      else
        launch(cl_int{});
    }
    REQUIRE(queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(cl_int), got.data()) == CL_SUCCESS);
    for (std::size_t b = 0; b < batch; ++b) {
      const std::size_t i = first + b;
      const std::size_t n = b < count_here ? size_of_launch(i) : 0;
      const cl_int initial = static_cast<cl_int>(i * 2654435761u);
      std::size_t differences = 0, first_difference = 0;
      for (std::size_t j = 0; j < stride; ++j) {
        cl_int expected = poison;
        if (j < n) {
          if (i % 2)
            expected = j == 0 ? initial : guarded::wrapping_sum(initial, inclusive[j - 1]);
          else
            expected = guarded::wrapping_sum(initial, inclusive[j]);
        }
        if (got[b * stride + j] != expected && differences++ == 0) first_difference = j;
      }
      elements += n;
      if (differences) {
        if (++wrong <= 20)
          std::cout << "problem: launch " << i << " (tag " << i % tag_period + 1 << ", n " << n << ", "
                    << (after_clear(i) ? "cl_uint with the silent tile 5, " : "")
                    << (i % 2 ? "exclusive" : "inclusive") << "): " << differences
                    << " elements differ, the first at " << first_difference << std::endl;
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "launches: " << launches << ", elements checked: " << elements << ", wrong launches: " << wrong
            << ", " << seconds << " s" << std::endl;
  child_verdict(wrong == 0);
}

TEST_CASE("faults: 16-bit status tags wrap around and the status words are cleared (CLSCAN_NARROW_STATUS=1)",
          "[faults]") {
  // More than twice 65535 launches of three to eight 32-element tiles on one queue, so the tags of
  // the 32-bit status layout wrap twice; every result is compared, and the launch after each clear
  // has a tile that never publishes, in place of which only a word the clear missed could be taken
  // (see "faults child: narrow status tags wrap around").
  temp_dir work;
  child_spec spec = faults_child("faults child: narrow status tags wrap around");
  spec.env["CLSCAN_NARROW_STATUS"] = std::string("1");
  spec.env["CLSCAN_TUNING"] = std::string("wg=4,items=8,vec=4,lookback=2");
  spec.env["CLSCAN_SPIN_LIMIT"] = std::string("4");
  spec.env["CLSCAN_BUILD_OPTIONS"] = std::nullopt;
  spec.env["CLSCAN_NO_CACHE"] = std::string("1"); // so that the log shows each program's options
  // Its cl_uint program has a silent tile on purpose (in place wrong), which the qualification of
  // that build would catch and refuse.
  spec.env["CLSCAN_QUALIFY"] = std::string("0");
  const std::size_t launches = 2 * 65535 + 2000;
  spec.env["CLSCAN_FAULTS_TAG_LAUNCHES"] = std::to_string(launches);
  const child_result child =
      finish_child(start_child(spec, work.path() / "tags.out"), std::chrono::seconds(600));
  INFO("child output (exit code " << child.exit_code << "):\n" << child.output);
  CHECK(child.ok());
  CHECK(child.has("tile 32 elements"));
  CHECK(child.has("launches: " + std::to_string(launches) + ","));
  CHECK(child.has("wrong launches: 0"));
  // Two programs: the cl_int one as usual, the cl_uint one with the silent tile.
  std::size_t plain = 0, silent = 0;
  std::istringstream lines(child.output);
  for (std::string line; std::getline(lines, line);)
    if (line.find("built program from source") != std::string::npos)
      ++(line.find("-DCLSCAN_TEST_SILENT_TILE=5") != std::string::npos ? silent : plain);
  CHECK(plain >= 1);
  CHECK(silent >= 1);
  std::cout << "faults: " << [&] {
    const auto at = child.output.find("launches: " + std::to_string(launches));
    return at == std::string::npos ? std::string("tag wrap-around child gave no summary")
                                   : child.output.substr(at, child.output.find('\n', at) - at);
  }() << std::endl;
}
