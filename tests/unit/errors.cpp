// Error paths: every bad call throws a clear clscan exception before anything is enqueued, and the
// user's buffers keep exactly the data they held before the call.
#include "support/environment.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using Catch::Matchers::Contains;
using clscan_test::env;
using clscan_test::make_buffer;
using clscan_test::read_buffer;

using clscan_test::scoped_env;
using clscan_test::temp_dir;

namespace {

// Known contents that no scan of them reproduces.
std::vector<cl_int> known_data(std::size_t count, cl_int salt = 0) {
  std::vector<cl_int> data(count);
  for (std::size_t i = 0; i < count; ++i)
    data[i] = static_cast<cl_int>(i * 7 + 3) ^ salt;
  return data;
}

// The message of the clscan::invalid_argument that `call` throws (fails the test when it throws
// nothing or something else).
template <typename Call> std::string invalid_argument_message(Call&& call) {
  try {
    call();
  } catch (const clscan::invalid_argument& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("expected clscan::invalid_argument, got another exception: " << e.what());
  }
  FAIL("expected clscan::invalid_argument, nothing was thrown");
  return {};
}

} // namespace

TEST_CASE("n larger than an in-place buffer holds is rejected and the buffer is untouched", "[errors]") {
  auto& e = env();
  const auto data = known_data(100);
  cl::Buffer buffer = make_buffer(data);

  SECTION("inclusive") {
    const std::string message = invalid_argument_message([&] { clscan::inclusive(e.queue, buffer, 101); });
    CHECK_THAT(message, Contains("holds 100 elements"));
    CHECK_THAT(message, Contains("n 101"));
  }
  SECTION("exclusive") {
    const std::string message = invalid_argument_message([&] { clscan::exclusive(e.queue, buffer, 1000); });
    CHECK_THAT(message, Contains("holds 100 elements"));
  }
  SECTION("with an offset") {
    clscan::options<cl_int> opts;
    opts.in_offset = opts.out_offset = 40;
    const std::string message =
        invalid_argument_message([&] { clscan::inclusive(e.queue, buffer, 61, opts); });
    CHECK_THAT(message, Contains("offset 40"));
    CHECK_THAT(message, Contains("n 61"));
  }
  SECTION("offset past the end") {
    clscan::options<cl_int> opts;
    opts.in_offset = opts.out_offset = 101;
    CHECK_THAT(invalid_argument_message([&] { clscan::inclusive(e.queue, buffer, 0, opts); }),
               Contains("offset 101"));
  }
  SECTION("sizes that overflow size_t") {
    clscan::options<cl_int> opts;
    opts.in_offset = opts.out_offset = SIZE_MAX - 1;
    CHECK_THROWS_AS(clscan::inclusive(e.queue, buffer, 5, opts), clscan::invalid_argument);
    CHECK_THROWS_AS(clscan::inclusive(e.queue, buffer, SIZE_MAX), clscan::invalid_argument);
  }
  SECTION("64-bit elements: the same bytes hold half as many") {
    // 400 bytes hold 50 cl_long elements.
    const std::string message =
        invalid_argument_message([&] { clscan::inclusive<cl_long>(e.queue, buffer, 51); });
    CHECK_THAT(message, Contains("holds 50 elements of 8 bytes"));
  }
  CHECK(read_buffer<cl_int>(buffer, data.size()) == data);
}

TEST_CASE("out-of-place scans reject an input or output that is too small", "[errors]") {
  auto& e = env();
  const auto in_data = known_data(100, 0x11);
  const auto out_data = known_data(200, 0x22);
  cl::Buffer in = make_buffer(in_data);
  cl::Buffer out = make_buffer(out_data);

  SECTION("input too small") {
    const std::string message = invalid_argument_message([&] { clscan::inclusive(e.queue, in, out, 150); });
    CHECK_THAT(message, Contains("input buffer"));
    CHECK_THAT(message, Contains("holds 100 elements"));
  }
  SECTION("output too small") {
    const std::string message = invalid_argument_message([&] { clscan::exclusive(e.queue, out, in, 150); });
    CHECK_THAT(message, Contains("output buffer"));
    CHECK_THAT(message, Contains("holds 100 elements"));
  }
  SECTION("input offset pushes the range past the end") {
    clscan::options<cl_int> opts;
    opts.in_offset = 60;
    const std::string message =
        invalid_argument_message([&] { clscan::inclusive(e.queue, in, out, 50, opts); });
    CHECK_THAT(message, Contains("input buffer"));
    CHECK_THAT(message, Contains("offset 60"));
  }
  SECTION("output offset pushes the range past the end") {
    clscan::options<cl_int> opts;
    opts.out_offset = 160;
    const std::string message =
        invalid_argument_message([&] { clscan::exclusive(e.queue, in, out, 50, opts); });
    CHECK_THAT(message, Contains("output buffer"));
    CHECK_THAT(message, Contains("offset 160"));
  }
  CHECK(read_buffer<cl_int>(in, in_data.size()) == in_data);
  CHECK(read_buffer<cl_int>(out, out_data.size()) == out_data);
}

TEST_CASE("buffers from another context than the queue's are rejected", "[errors]") {
  auto& e = env();
  cl::Context other_context(e.device);
  cl::CommandQueue other_queue(other_context, e.device);
  const auto foreign_data = known_data(64, 0x33);
  const auto own_data = known_data(64, 0x44);
  cl::Buffer foreign(other_context, CL_MEM_READ_WRITE, foreign_data.size() * sizeof(cl_int));
  REQUIRE(other_queue.enqueueWriteBuffer(foreign, CL_TRUE, 0, foreign_data.size() * sizeof(cl_int),
                                         foreign_data.data()) == CL_SUCCESS);
  cl::Buffer own = make_buffer(own_data);

  SECTION("in place") {
    CHECK_THAT(invalid_argument_message([&] { clscan::inclusive(e.queue, foreign, 64); }),
               Contains("another context"));
  }
  SECTION("foreign input") {
    const std::string message =
        invalid_argument_message([&] { clscan::inclusive(e.queue, foreign, own, 64); });
    CHECK_THAT(message, Contains("input buffer"));
    CHECK_THAT(message, Contains("another context"));
  }
  SECTION("foreign output") {
    const std::string message =
        invalid_argument_message([&] { clscan::exclusive(e.queue, own, foreign, 64); });
    CHECK_THAT(message, Contains("output buffer"));
    CHECK_THAT(message, Contains("another context"));
  }
  SECTION("buffers right, queue from the other context") {
    CHECK_THAT(invalid_argument_message([&] { clscan::inclusive(other_queue, own, 64); }),
               Contains("another context"));
  }
  std::vector<cl_int> foreign_after(foreign_data.size());
  REQUIRE(other_queue.enqueueReadBuffer(foreign, CL_TRUE, 0, foreign_after.size() * sizeof(cl_int),
                                        foreign_after.data()) == CL_SUCCESS);
  CHECK(foreign_after == foreign_data);
  CHECK(read_buffer<cl_int>(own, own_data.size()) == own_data);
}

TEST_CASE("null buffers and a null queue are rejected", "[errors]") {
  auto& e = env();
  const auto data = known_data(32);
  cl::Buffer buffer = make_buffer(data);
  const cl::Buffer null_buffer;

  SECTION("null in-place buffer") {
    const std::string message = invalid_argument_message([&] { clscan::inclusive(e.queue, null_buffer, 8); });
    CHECK_THAT(message, Contains("null"));
  }
  SECTION("null input") {
    const std::string message =
        invalid_argument_message([&] { clscan::inclusive(e.queue, null_buffer, buffer, 8); });
    CHECK_THAT(message, Contains("input buffer is null"));
  }
  SECTION("null output") {
    const std::string message =
        invalid_argument_message([&] { clscan::exclusive(e.queue, buffer, null_buffer, 8); });
    CHECK_THAT(message, Contains("output buffer is null"));
  }
  SECTION("null buffer with n == 0") {
    CHECK_THROWS_AS(clscan::inclusive(e.queue, null_buffer, 0), clscan::invalid_argument);
  }
  SECTION("null queue") {
    const cl::CommandQueue null_queue;
    const std::string message = invalid_argument_message([&] { clscan::inclusive(null_queue, buffer, 8); });
    CHECK_THAT(message, Contains("command queue is null"));
  }
  CHECK(read_buffer<cl_int>(buffer, data.size()) == data);
}

TEST_CASE("overlapping input and output ranges in one buffer are rejected", "[errors]") {
  auto& e = env();
  const auto data = known_data(100);
  cl::Buffer buffer = make_buffer(data);
  clscan::options<cl_int> opts;

  SECTION("output starts inside the input") {
    opts.in_offset = 0;
    opts.out_offset = 10;
    CHECK_THAT(invalid_argument_message([&] { clscan::inclusive(e.queue, buffer, buffer, 50, opts); }),
               Contains("overlap"));
  }
  SECTION("input starts inside the output") {
    opts.in_offset = 49;
    opts.out_offset = 0;
    CHECK_THAT(invalid_argument_message([&] { clscan::exclusive(e.queue, buffer, buffer, 50, opts); }),
               Contains("overlap"));
  }
  CHECK(read_buffer<cl_int>(buffer, data.size()) == data);

  SECTION("adjacent ranges in one buffer are fine") {
    opts.in_offset = 0;
    opts.out_offset = 50;
    clscan::inclusive(e.queue, buffer, buffer, 50, opts).wait();
    const auto after = read_buffer<cl_int>(buffer, data.size());
    std::vector<cl_int> expected(data.begin(), data.begin() + 50);
    std::inclusive_scan(expected.begin(), expected.end(), expected.begin());
    CHECK(std::vector<cl_int>(after.begin(), after.begin() + 50) ==
          std::vector<cl_int>(data.begin(), data.begin() + 50));
    CHECK(std::vector<cl_int>(after.begin() + 50, after.end()) == expected);
  }
}

TEST_CASE("buffers whose access flags the kernels cannot use are rejected", "[errors]") {
  auto& e = env();
  const auto data = known_data(1000, 0x33);
  const std::size_t bytes = data.size() * sizeof(cl_int);
  cl::Buffer read_write = make_buffer(data);
  // Flags restrict the kernels, not the host, so the test can fill and read these buffers.
  auto flagged = [&](cl_mem_flags flags) {
    cl::Buffer buffer(e.context, flags, bytes);
    REQUIRE(e.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, data.data()) == CL_SUCCESS);
    return buffer;
  };
  cl::Buffer write_only = flagged(CL_MEM_WRITE_ONLY);
  cl::Buffer read_only = flagged(CL_MEM_READ_ONLY);

  SECTION("write-only input") {
    const std::string message =
        invalid_argument_message([&] { clscan::inclusive(e.queue, write_only, read_write, data.size()); });
    CHECK_THAT(message, Contains("input buffer was created CL_MEM_WRITE_ONLY"));
  }
  SECTION("write-only output: the three-stage scan reads its output back") {
    const std::string message =
        invalid_argument_message([&] { clscan::exclusive(e.queue, read_write, write_only, data.size()); });
    CHECK_THAT(message, Contains("output buffer was created CL_MEM_WRITE_ONLY"));
  }
  SECTION("read-only output") {
    const std::string message =
        invalid_argument_message([&] { clscan::inclusive(e.queue, read_write, read_only, data.size()); });
    CHECK_THAT(message, Contains("output buffer was created CL_MEM_READ_ONLY"));
  }
  SECTION("read-only buffer in place") {
    const std::string message =
        invalid_argument_message([&] { clscan::inclusive(e.queue, read_only, data.size()); });
    CHECK_THAT(message, Contains("CL_MEM_READ_ONLY"));
  }
  SECTION("a read-only input out of place is fine") {
    cl::Buffer out = make_buffer(std::vector<cl_int>(data.size(), -1));
    clscan::inclusive(e.queue, read_only, out, data.size()).wait();
    std::vector<cl_int> expected(data.size());
    std::inclusive_scan(data.begin(), data.end(), expected.begin());
    CHECK(read_buffer<cl_int>(out, data.size()) == expected);
  }
  CHECK(read_buffer<cl_int>(read_write, data.size()) == data);
  CHECK(read_buffer<cl_int>(write_only, data.size()) == data);
  CHECK(read_buffer<cl_int>(read_only, data.size()) == data);
}

TEST_CASE("a log handler that throws does not change the scan", "[errors]") {
  auto& e = env();
  std::size_t calls = 0;
  clscan::set_log_handler([&](clscan::log_level, const std::string&) {
    ++calls;
    throw std::runtime_error("handler failure");
  });
  // A fresh context: its first scan builds or loads a program, which is logged.
  cl::Context context(e.device);
  cl::CommandQueue queue(context, e.device);
  const auto data = known_data(5000, 0x44);
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, data.size() * sizeof(cl_int));
  REQUIRE(queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, data.size() * sizeof(cl_int), data.data()) ==
          CL_SUCCESS);
  CHECK_NOTHROW(clscan::inclusive(queue, buffer, data.size()).wait());
  clscan::set_log_handler({});
  CHECK(calls > 0);
  std::vector<cl_int> expected(data.size()), result(data.size());
  std::inclusive_scan(data.begin(), data.end(), expected.begin());
  REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, data.size() * sizeof(cl_int), result.data()) ==
          CL_SUCCESS);
  CHECK(result == expected);
}

TEST_CASE("operators that do not fit the request are rejected", "[errors]") {
  auto& e = env();
  std::vector<cl_float> floats(64);
  for (std::size_t i = 0; i < floats.size(); ++i)
    floats[i] = static_cast<cl_float>(i) * 0.5f + 1.0f;
  cl::Buffer float_buffer = make_buffer(floats);
  const auto ints = known_data(64);
  cl::Buffer int_buffer = make_buffer(ints);

  SECTION("bitwise operators on float") {
    for (clscan::op operation : {clscan::op::bit_and, clscan::op::bit_or, clscan::op::bit_xor}) {
      clscan::options<cl_float> opts;
      opts.operation = operation;
      try {
        clscan::inclusive(e.queue, float_buffer, floats.size(), opts);
        FAIL("a bitwise scan of cl_float did not throw");
      } catch (const clscan::invalid_argument& error) {
        CHECK_THAT(std::string(error.what()), Contains("bitwise") && Contains("float"));
      }
    }
  }
  SECTION("bitwise operators on double") {
    if (!clscan::capabilities(e.device).fp64) {
      clscan::options<cl_double> opts;
      CHECK_THROWS_AS(clscan::inclusive(e.queue, float_buffer, 8, opts), clscan::unsupported_error);
    } else {
      clscan::options<cl_double> opts;
      opts.operation = clscan::op::bit_xor;
      CHECK_THROWS_AS(clscan::exclusive(e.queue, float_buffer, 8, opts), clscan::invalid_argument);
    }
  }
  SECTION("op::custom with a NUL character or of an absurd size") {
    clscan::options<cl_int> opts;
    opts.operation = clscan::op::custom;
    opts.custom_op = std::string("a + b") + '\0' + "garbage";
    std::string message =
        invalid_argument_message([&] { clscan::inclusive(e.queue, int_buffer, ints.size(), opts); });
    CHECK_THAT(message, Contains("custom_op") && Contains("NUL"));
    // 16 MiB used to be built and stored in the disk cache, where every later process rejected it.
    opts.custom_op = "a + b" + std::string(16u << 20, ' ');
    message = invalid_argument_message([&] { clscan::inclusive(e.queue, int_buffer, ints.size(), opts); });
    CHECK_THAT(message, Contains("custom_op") && Contains("at most 65536"));
  }
  SECTION("deterministic with a forced single-pass scan") {
    // Accepted since the single-pass scan has a fixed order (types: "deterministic ..." checks the
    // floats' bits); integers are exact in any order: the same options on cl_int scan (if the device
    // qualifies).
    clscan::options<cl_int> int_opts;
    int_opts.deterministic = true;
    int_opts.algorithm = clscan::algorithm::single_pass;
    if (clscan::qualify_single_pass(e.device).passed) {
      cl::Buffer out = make_buffer(ints);
      clscan::inclusive(e.queue, int_buffer, out, ints.size(), int_opts).wait();
      std::vector<cl_int> expected(ints.size());
      std::inclusive_scan(ints.begin(), ints.end(), expected.begin());
      CHECK(read_buffer<cl_int>(out, ints.size()) == expected);
    }
  }
  SECTION("op::custom without an expression") {
    clscan::options<cl_int> opts;
    opts.operation = clscan::op::custom;
    const std::string message =
        invalid_argument_message([&] { clscan::inclusive(e.queue, int_buffer, ints.size(), opts); });
    CHECK_THAT(message, Contains("custom_op"));
  }
  CHECK(read_buffer<cl_float>(float_buffer, floats.size()) == floats);
  CHECK(read_buffer<cl_int>(int_buffer, ints.size()) == ints);
}

TEST_CASE("a custom operator that does not compile throws build_error with the build log", "[errors]") {
  auto& e = env();
  const auto data = known_data(300);
  cl::Buffer buffer = make_buffer(data);
  cl::Buffer out = make_buffer(known_data(300, 0x55));
  const auto out_before = read_buffer<cl_int>(out, 300);

  clscan::options<cl_int> opts;
  opts.operation = clscan::op::custom;
  opts.custom_op = "a + clscan_no_such_identifier(b)";
  try {
    clscan::inclusive(e.queue, buffer, out, data.size(), opts);
    FAIL("a custom operator that does not compile did not throw");
  } catch (const clscan::build_error& error) {
    const std::string what = error.what();
    CHECK_THAT(what, Contains("clBuildProgram"));
    CHECK_THAT(what, Contains("CL_BUILD_PROGRAM_FAILURE"));
    CHECK(error.status() == CL_BUILD_PROGRAM_FAILURE);
    CHECK(error.call() == "clBuildProgram");
    CHECK_FALSE(error.build_log().empty());
    CHECK_THAT(error.build_log(), Contains("clscan_no_such_identifier"));
    CHECK_FALSE(error.options().empty());
    CHECK_THAT(error.options(), Contains("-DCLSCAN_WG="));
    CHECK(error.device_name() == e.device_name);
    CHECK_THAT(what, Contains(e.device_name));
  }
  CHECK(read_buffer<cl_int>(buffer, data.size()) == data);
  CHECK(read_buffer<cl_int>(out, out_before.size()) == out_before);

  SECTION("the same call keeps failing the same way") {
    CHECK_THROWS_AS(clscan::inclusive(e.queue, buffer, out, data.size(), opts), clscan::build_error);
  }
  SECTION("and a valid scan on the same queue still works") {
    clscan::inclusive(e.queue, buffer, out, data.size()).wait();
    std::vector<cl_int> expected(data.size());
    std::inclusive_scan(data.begin(), data.end(), expected.begin());
    CHECK(read_buffer<cl_int>(out, expected.size()) == expected);
  }
}

TEST_CASE("exceptions form one hierarchy under clscan::error", "[errors]") {
  const clscan::build_error built(CL_BUILD_PROGRAM_FAILURE, "dev", "-DX", "log");
  const clscan::opencl_error& as_opencl = built;
  const clscan::error& as_error = built;
  const std::runtime_error& as_runtime = built;
  CHECK(as_opencl.status() == CL_BUILD_PROGRAM_FAILURE);
  CHECK(std::string(as_error.what()) == as_runtime.what());
  CHECK(dynamic_cast<const clscan::error*>(
            &static_cast<const std::exception&>(clscan::invalid_argument("x"))) != nullptr);
  CHECK(dynamic_cast<const clscan::error*>(
            &static_cast<const std::exception&>(clscan::unsupported_error("x"))) != nullptr);
}

TEST_CASE("an invalid CLSCAN_TUNING is rejected with invalid_argument", "[errors]") {
  auto& e = env();
  const auto data = known_data(500);
  const char* bad_value = GENERATE(as<const char*>{}, "wg=0", "vec=3", "items=6,vec=4", "items=0",
                                   "lookback=0", "wg=1,items=1,vec=1",
                                   "wg=16,items=131072", // 8 MiB tiles in private memory
                                   // Signs, overflow and trailing text are refused, not wrapped or cut:
                                   "wg=-1", "lookback=-1", "wg=+16", "wg= 16", "items=16x",
                                   "wg=99999999999999999999", "wg=18446744073709551617", "wg=2147483648",
                                   // A field given twice is a typo, not "the last one wins":
                                   "wg=16,wg=32", "items=8 lanes=1 items=16");
  // The tuning is read once per workspace (context and device): a fresh context reads it again.
  cl::Context context(e.device);
  cl::CommandQueue queue(context, e.device);
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, data.size() * sizeof(cl_int));
  REQUIRE(queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, data.size() * sizeof(cl_int), data.data()) ==
          CL_SUCCESS);
  {
    scoped_env tuning("CLSCAN_TUNING", bad_value);
    INFO("CLSCAN_TUNING=" << bad_value);
    const std::string message =
        invalid_argument_message([&] { clscan::inclusive(queue, buffer, data.size()); });
    CHECK_THAT(message, Contains("CLSCAN_TUNING"));
    CHECK_THAT(message, Contains(bad_value));
    CHECK_THROWS_AS(clscan::plan_for(e.device), clscan::invalid_argument);
  }
  std::vector<cl_int> after(data.size());
  REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, after.size() * sizeof(cl_int), after.data()) ==
          CL_SUCCESS);
  CHECK(after == data);

  // With the variable gone the same context works.
  clscan::inclusive(queue, buffer, data.size()).wait();
  std::vector<cl_int> expected(data.size());
  std::inclusive_scan(data.begin(), data.end(), expected.begin());
  REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, after.size() * sizeof(cl_int), after.data()) ==
          CL_SUCCESS);
  CHECK(after == expected);
}

TEST_CASE("CLSCAN_SPIN_LIMIT and CLSCAN_QUALIFY accept only what they document", "[errors]") {
  auto& e = env();
  for (const char* bad : {"-1", "99999999999999999999", "2147483648", "12abc", " 5", "+5", "0x10"}) {
    INFO("CLSCAN_SPIN_LIMIT=" << bad);
    scoped_env spin("CLSCAN_SPIN_LIMIT", bad);
    const std::string message = invalid_argument_message([&] { clscan::plan_for(e.device); });
    CHECK_THAT(message, Contains("CLSCAN_SPIN_LIMIT") && Contains(bad));
  }
  {
    scoped_env spin("CLSCAN_SPIN_LIMIT", "2147483647");
    CHECK(clscan::plan_for(e.device).single_pass.spin_limit == 2147483647u);
  }
  for (const char* bad : {"2", "yes", "-1", "00"}) {
    INFO("CLSCAN_QUALIFY=" << bad);
    scoped_env qualify("CLSCAN_QUALIFY", bad); // read on every call, before any stored verdict
    const std::string message =
        invalid_argument_message([&] { clscan::qualify_single_pass(e.device, clscan::element_type::int32); });
    CHECK_THAT(message, Contains("CLSCAN_QUALIFY"));
  }
}

TEST_CASE("a valid CLSCAN_TUNING is applied and reported by plan_for", "[errors]") {
  auto& e = env();
  scoped_env tuning("CLSCAN_TUNING", "wg=4,items=8,vec=2,lookback=3");
  const clscan::dispatch_plan plan = clscan::plan_for(e.device);
  for (const clscan::tuning* shape : {&plan.three_stage, &plan.single_pass}) {
    CHECK(shape->work_group_size == 4);
    CHECK(shape->items_per_thread == 8);
    CHECK(shape->vector_width == 2);
    CHECK(shape->lookback == 3);
    CHECK(shape->origin == "CLSCAN_TUNING");
  }

  cl::Context context(e.device);
  cl::CommandQueue queue(context, e.device);
  std::vector<cl_int> data = known_data(1000); // many 32-element tiles
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, data.size() * sizeof(cl_int));
  REQUIRE(queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, data.size() * sizeof(cl_int), data.data()) ==
          CL_SUCCESS);
  clscan::inclusive(queue, buffer, data.size()).wait();
  std::vector<cl_int> after(data.size());
  REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, after.size() * sizeof(cl_int), after.data()) ==
          CL_SUCCESS);
  std::inclusive_scan(data.begin(), data.end(), data.begin());
  CHECK(after == data);
}

TEST_CASE("n == 0 returns an event that completes and touches nothing", "[errors]") {
  auto& e = env();
  const auto data = known_data(16);
  cl::Buffer buffer = make_buffer(data);
  cl::Buffer out = make_buffer(known_data(16, 0x66));
  const auto out_before = read_buffer<cl_int>(out, 16);

  std::vector<cl::Event> events;
  events.push_back(clscan::inclusive(e.queue, buffer, 0));
  events.push_back(clscan::exclusive(e.queue, buffer, out, 0));
  clscan::options<cl_int> opts;
  opts.in_offset = 16; // an offset at the very end is valid with n == 0
  opts.out_offset = 16;
  events.push_back(clscan::inclusive(e.queue, buffer, out, 0, opts));
  for (cl::Event& event : events) {
    REQUIRE(event() != nullptr);
    REQUIRE(event.wait() == CL_SUCCESS);
    cl_int status = CL_QUEUED;
    REQUIRE(event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status) == CL_SUCCESS);
    CHECK(status == CL_COMPLETE);
  }
  CHECK(read_buffer<cl_int>(buffer, data.size()) == data);
  CHECK(read_buffer<cl_int>(out, out_before.size()) == out_before);
}

TEST_CASE("n == 0 waits for the wait list", "[errors]") {
  auto& e = env();
  cl::Buffer buffer = make_buffer(known_data(4));
  cl_int status = CL_SUCCESS;
  cl::UserEvent gate(e.context, &status);
  REQUIRE(status == CL_SUCCESS);
  clscan::options<cl_int> opts;
  opts.wait_list.push_back(gate);
  cl::Event done = clscan::inclusive(e.queue, buffer, 0, opts);
  cl_int before = CL_COMPLETE;
  REQUIRE(done.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &before) == CL_SUCCESS);
  CHECK(before != CL_COMPLETE);
  REQUIRE(gate.setStatus(CL_COMPLETE) == CL_SUCCESS);
  REQUIRE(done.wait() == CL_SUCCESS);
}

TEST_CASE("a wait list holding an event that has already failed is refused before anything is enqueued",
          "[errors]") {
  // A command gated on a failed event never runs; PoCL 3.1 then never completes the command's own
  // event either, so a call that went ahead returned an event that waiting on blocked forever.
  auto& e = env();
  const auto data = known_data(3000);
  cl::Buffer in = make_buffer(data);
  cl::Buffer out = make_buffer(known_data(3000, 7));
  cl::Buffer count = make_buffer(std::vector<cl_ulong>{99});
  cl_int status = CL_SUCCESS;
  cl::UserEvent failed(e.context, &status);
  REQUIRE(status == CL_SUCCESS);
  REQUIRE(failed.setStatus(CL_OUT_OF_RESOURCES) == CL_SUCCESS);
  cl::UserEvent pending(e.context, &status);
  REQUIRE(status == CL_SUCCESS);
  const auto refused = [&](const std::string& message) {
    CHECK_THAT(message, Contains("wait_list[1] has already failed") && Contains("CL_OUT_OF_RESOURCES") &&
                            Contains("nothing was enqueued"));
  };
  for (std::size_t n : {std::size_t{0}, data.size()}) {
    INFO("n = " << n);
    clscan::options<cl_int> opts;
    opts.wait_list = {pending, failed};
    refused(invalid_argument_message([&] { clscan::inclusive(e.queue, in, out, n, opts); }));
    refused(invalid_argument_message([&] { clscan::reduce(e.queue, in, out, n, opts); }));
    refused(invalid_argument_message([&] { clscan::inclusive_by_key(e.queue, in, in, out, n, opts); }));
    clscan::select_options<cl_int> select;
    select.predicate = "x > 0";
    select.wait_list = {pending, failed};
    refused(invalid_argument_message([&] { clscan::select_if(e.queue, in, out, count, n, select); }));
    refused(invalid_argument_message([&] { clscan::inclusive<cl_int>({{e.queue, out, n, 0}}, opts); }));
  }
  REQUIRE(pending.setStatus(CL_COMPLETE) == CL_SUCCESS);
  CHECK(read_buffer<cl_int>(in, data.size()) == data);
  CHECK(read_buffer<cl_int>(out, data.size()) == known_data(3000, 7));
  CHECK(read_buffer<cl_ulong>(count, 1) == std::vector<cl_ulong>{99});
}

TEST_CASE("enumerators outside their enum are refused", "[errors]") {
  auto& e = env();
  const auto data = known_data(100);
  cl::Buffer buffer = make_buffer(data);
  cl::Buffer count = make_buffer(std::vector<cl_ulong>{0});
  clscan::options<cl_int> opts;
  opts.algorithm = static_cast<clscan::algorithm>(7);
  CHECK_THAT(invalid_argument_message([&] { clscan::inclusive(e.queue, buffer, data.size(), opts); }),
             Contains("options::algorithm is 7"));
  clscan::select_options<cl_int> select;
  select.predicate = "x > 0";
  select.algorithm = static_cast<clscan::algorithm>(-1);
  cl::Buffer out = make_buffer(known_data(100, 3));
  CHECK_THAT(
      invalid_argument_message([&] { clscan::select_if(e.queue, buffer, out, count, data.size(), select); }),
      Contains("options::algorithm is -1"));
  opts = {};
  opts.operation = static_cast<clscan::op>(42);
  CHECK_THAT(invalid_argument_message([&] { clscan::inclusive(e.queue, buffer, data.size(), opts); }),
             Contains("options::operation is 42"));
  CHECK(read_buffer<cl_int>(buffer, data.size()) == data);
}

TEST_CASE("opencl_error names the call and the status", "[errors]") {
  SECTION("constructed") {
    const clscan::opencl_error error(CL_INVALID_VALUE, "clEnqueueSomething", "some detail");
    const std::string what = error.what();
    CHECK_THAT(what, Contains("clEnqueueSomething"));
    CHECK_THAT(what, Contains("CL_INVALID_VALUE"));
    CHECK_THAT(what, Contains("-30"));
    CHECK_THAT(what, Contains("some detail"));
    CHECK(error.status() == CL_INVALID_VALUE);
    CHECK(error.call() == "clEnqueueSomething");
  }
  SECTION("thrown by a failing OpenCL call: a null event in the wait list") {
    auto& e = env();
    const auto data = known_data(8);
    cl::Buffer buffer = make_buffer(data);
    clscan::options<cl_int> opts;
    opts.wait_list.push_back(cl::Event());
    try {
      clscan::inclusive(e.queue, buffer, 0, opts);
      FAIL("a null event in the wait list did not throw");
    } catch (const clscan::opencl_error& error) {
      const std::string what = error.what();
      CHECK_THAT(what, Contains(error.call()));
      CHECK_THAT(what, Contains(clscan::status_name(error.status())));
      CHECK_THAT(what, Contains("CL_INVALID_EVENT_WAIT_LIST"));
    } catch (const clscan::invalid_argument& error) {
      // Also acceptable: the library validated the wait list itself.
      CHECK_THAT(std::string(error.what()), Contains("wait"));
    }
    CHECK(read_buffer<cl_int>(buffer, data.size()) == data);
  }
}

TEST_CASE("status_name names OpenCL status codes", "[errors]") {
  CHECK(std::string(clscan::status_name(CL_OUT_OF_RESOURCES)) == "CL_OUT_OF_RESOURCES");
  CHECK(std::string(clscan::status_name(CL_SUCCESS)) == "CL_SUCCESS");
  CHECK(std::string(clscan::status_name(CL_BUILD_PROGRAM_FAILURE)) == "CL_BUILD_PROGRAM_FAILURE");
  CHECK(std::string(clscan::status_name(CL_INVALID_WORK_GROUP_SIZE)) == "CL_INVALID_WORK_GROUP_SIZE");
  CHECK(std::string(clscan::status_name(-12345)) == "CL_UNKNOWN_ERROR");
}

TEST_CASE("a scan that fails to enqueue leaves later scans correct", "[errors]") {
  // An event of another context in the wait list is refused (clscan checks wait lists itself before
  // it enqueues anything, since PoCL 3.1 does not check them and would run the scan). The call fails
  // after dispatch chose and built everything; later scans on the same queue (and the same
  // temporaries) must still be right.
  auto& e = env();
  const clscan::algorithm algo =
      GENERATE(clscan::algorithm::automatic, clscan::algorithm::three_stage, clscan::algorithm::single_pass);
  INFO("algorithm " << clscan::to_string(algo));
  const std::size_t n = 100000; // several tiles on every device
  std::vector<cl_int> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<cl_int>(i % 13) - 6;
  std::vector<cl_int> expected(n);
  std::inclusive_scan(data.begin(), data.end(), expected.begin());
  cl::Buffer in = make_buffer(data);
  cl::Buffer out = make_buffer(std::vector<cl_int>(n, 0));

  clscan::options<cl_int> opts;
  opts.algorithm = algo;
  try {
    clscan::inclusive(e.queue, in, out, n, opts).wait();
  } catch (const clscan::unsupported_error& error) {
    SUCCEED("not available on this device: " << error.what());
    return;
  }
  CHECK(read_buffer<cl_int>(out, n) == expected);

  cl::Context other_context(e.device);
  cl_int status = CL_SUCCESS;
  cl::UserEvent foreign_event(other_context, &status);
  REQUIRE(status == CL_SUCCESS);
  REQUIRE(foreign_event.setStatus(CL_COMPLETE) == CL_SUCCESS);
  clscan::options<cl_int> failing = opts;
  failing.wait_list.push_back(foreign_event);
  REQUIRE(e.queue.enqueueFillBuffer(out, cl_int{0}, 0, n * sizeof(cl_int)) == CL_SUCCESS);
  const auto out_before = read_buffer<cl_int>(out, n);
  try {
    clscan::inclusive(e.queue, in, out, n, failing).wait();
    CHECK(read_buffer<cl_int>(out, n) == expected); // the driver accepted the wait list
  } catch (const clscan::error& error) {
    INFO("threw: " << error.what());
    CHECK(read_buffer<cl_int>(out, n) == out_before);
  }
  CHECK(read_buffer<cl_int>(in, n) == data);

  for (int repeat = 0; repeat < 3; ++repeat) {
    INFO("scan " << repeat << " after the failed one");
    REQUIRE(e.queue.enqueueFillBuffer(out, cl_int{0}, 0, n * sizeof(cl_int)) == CL_SUCCESS);
    clscan::inclusive(e.queue, in, out, n, opts).wait();
    CHECK(read_buffer<cl_int>(out, n) == expected);
  }
}

TEST_CASE("a bad options::initial_on_device is rejected and the buffers are untouched", "[errors]") {
  auto& e = env();
  const auto data = known_data(300);
  cl::Buffer buffer = make_buffer(data);
  const auto seed_data = known_data(4, 0x21);
  cl::Buffer seed = make_buffer(seed_data);
  clscan::options<cl_int> opts;

  SECTION("with options::initial as well") {
    opts.initial = 1;
    opts.initial_on_device = clscan::device_value{seed, 0};
    CHECK_THAT(invalid_argument_message([&] { clscan::inclusive(e.queue, buffer, data.size(), opts); }),
               Contains("initial_on_device") && Contains("both"));
  }
  SECTION("offset past the end of its buffer") {
    opts.initial_on_device = clscan::device_value{seed, 4};
    CHECK_THAT(invalid_argument_message([&] { clscan::exclusive(e.queue, buffer, data.size(), opts); }),
               Contains("initial_on_device"));
  }
  SECTION("a null buffer") {
    opts.initial_on_device = clscan::device_value{};
    CHECK_THAT(invalid_argument_message([&] { clscan::inclusive(e.queue, buffer, data.size(), opts); }),
               Contains("initial_on_device") && Contains("null"));
  }
  SECTION("a buffer of another context") {
    cl::Context other_context(e.device);
    opts.initial_on_device = clscan::device_value{cl::Buffer(other_context, CL_MEM_READ_WRITE, 64), 0};
    CHECK_THAT(invalid_argument_message([&] { clscan::inclusive(e.queue, buffer, data.size(), opts); }),
               Contains("initial_on_device") && Contains("another context"));
  }
  SECTION("inside the output range") {
    opts.initial_on_device = clscan::device_value{buffer, 7};
    CHECK_THAT(invalid_argument_message([&] { clscan::inclusive(e.queue, buffer, data.size(), opts); }),
               Contains("initial_on_device") && Contains("output"));
  }
  SECTION("just past the output range is fine") {
    opts.initial_on_device = clscan::device_value{buffer, 299};
    clscan::inclusive(e.queue, buffer, 299, opts).wait();
    std::vector<cl_int> expected(data.begin(), data.end());
    std::inclusive_scan(expected.begin(), expected.end() - 1, expected.begin(), std::plus<>(), data[299]);
    CHECK(read_buffer<cl_int>(buffer, data.size()) == expected);
    return;
  }
  SECTION("by-key calls do not take it") {
    cl::Buffer keys = make_buffer(known_data(300, 0x7));
    cl::Buffer out = make_buffer(known_data(300, 0x8));
    opts.initial_on_device = clscan::device_value{seed, 0};
    CHECK_THAT(invalid_argument_message(
                   [&] { clscan::inclusive_by_key(e.queue, keys, buffer, out, data.size(), opts); }),
               Contains("initial_on_device"));
  }
  CHECK(read_buffer<cl_int>(buffer, data.size()) == data);
  CHECK(read_buffer<cl_int>(seed, seed_data.size()) == seed_data);
}
