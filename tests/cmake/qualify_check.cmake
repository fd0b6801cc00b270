# Checks the single-pass qualification (lib/dispatch/qualify.cpp) through clscan-info, for one scenario
# (tests/CMakeLists.txt, label "qualify").
#
#   cmake -DINFO=<clscan-info> -DMODE=<mode> -DWORK=<scratch dir> -P qualify_check.cmake
#
# Modes:
#   stored       a first listing qualifies (the row gives the time) and stores the verdict beside the
#                disk cache; a second process reads it ("stored verdict"); CLSCAN_QUALIFY=1 checks
#                again, CLSCAN_QUALIFY=0 skips the check, anything else is an error naming the text
#   wrong-kernel a single-pass kernel that is wrong beyond its first tile (-DCLSCAN_TEST_WRONG_LOOKBACK)
#                is disqualified on every device: the plan falls back to three_stage, the automatic
#                self-test passes, a forced single_pass reports the disqualification
#   fifo         a FIFO with the name of the verdict file and one with the tuning file's name: the
#                listing and a self-test complete (they are refused, never waited on; the old reader
#                blocked in open() forever) and the verdict replaces its FIFO
#   old-rusticl  on rusticl, the kernel as it was before it walked runs in chunks (-DCLSCAN_RUN_CHUNK=1)
#                and the one-work-item shape: the qualification rejects that shape with the elements
#                it got wrong, qualifies the 64-wide one, and every self-test scan is exact. Prints
#                "qualify: skipped:" where no rusticl platform exists.
#
# The selected device (CLSCAN_PLATFORM, CLSCAN_DEVICE) is the caller's, except in old-rusticl.
cmake_minimum_required(VERSION 3.19)

set(CHECK_NAME qualify_check)
set(INFO_TIMEOUT 400)
include(${CMAKE_CURRENT_LIST_DIR}/info_run.cmake)
info_check_prepare(CLSCAN_NO_CACHE CLSCAN_TUNING CLSCAN_BUILD_OPTIONS CLSCAN_SPIN_LIMIT CLSCAN_NARROW_STATUS CLSCAN_LOG CLSCAN_QUALIFY)

# The verdict file `path` holds text that matches `regex`.
function(expect_verdict path regex)
  file(READ "${path}" stored)
  if(NOT stored MATCHES "${regex}")
    fail("the verdict file holds '${stored}'")
  endif()
endfunction()

# The listing's row for the selected device.
set(row "\n      single pass +")

if(MODE STREQUAL "stored")
  run_info(--selected)
  expect_rc(0)
  expect_match("${row}qualified \\(wg=[0-9]+,items=[0-9]+[^\n]*; [0-9]+ ms, [0-9]+ ms of it making a context\\)\n")
  file(GLOB verdicts "${WORK}/cache/qualified-*.txt")
  list(LENGTH verdicts count)
  if(NOT count EQUAL 1)
    fail("expected one verdict file in ${WORK}/cache, found '${verdicts}'")
  endif()
  expect_verdict("${verdicts}" "^size=4 shape=wg=[0-9]+,items=[0-9]+,vec=[0-9]+,lookback=[0-9]+ candidate=[01] passed ")
  run_info(--selected)
  expect_rc(0)
  expect_match("${row}qualified \\([^\n]*; stored verdict\\)\n")
  set(ENV{CLSCAN_QUALIFY} 1)
  run_info(--selected)
  expect_rc(0)
  expect_match("${row}qualified \\([^\n]*; [0-9]+ ms, [0-9]+ ms of it making a context\\)\n")
  set(ENV{CLSCAN_QUALIFY} 0)
  run_info(--selected)
  expect_rc(0)
  expect_match("${row}not checked \\(CLSCAN_QUALIFY=0\\)\n")
  set(ENV{CLSCAN_QUALIFY} yes)
  run_info(--selected)
  expect_match("CLSCAN_QUALIFY='yes' must be 0 or 1")
  run_info(--self-test --selected)
  if(info_rc EQUAL 0)
    fail("a self-test with CLSCAN_QUALIFY=yes passed")
  endif()
elseif(MODE STREQUAL "wrong-kernel")
  set(ENV{CLSCAN_BUILD_OPTIONS} -DCLSCAN_TEST_WRONG_LOOKBACK)
  run_info(--selected)
  expect_rc(0)
  expect_match("\n      large sizes use +three_stage\n")
  expect_match("${row}disqualified \\([^\n]*elements wrong")
  run_info(--self-test --selected --algorithm automatic --calls scans)
  expect_rc(0)
  expect_match("algorithm automatic: PASS")
  run_info(--self-test --selected --algorithm single_pass --calls scans)
  expect_rc(1)
  expect_match("algorithm::single_pass was disqualified on device")
  file(GLOB verdicts "${WORK}/cache/qualified-*.txt")
  if(verdicts)
    fail("a verdict reached with CLSCAN_BUILD_OPTIONS was stored: ${verdicts}")
  endif()
elseif(MODE STREQUAL "fifo")
  run_info(--selected)
  expect_rc(0)
  file(GLOB verdicts RELATIVE "${WORK}/cache" "${WORK}/cache/qualified-*.txt")
  if(NOT verdicts)
    fail("no verdict file in ${WORK}/cache")
  endif()
  string(REGEX REPLACE "^qualified-([0-9a-f]+)\\.txt$" "\\1" stem "${verdicts}")
  file(REMOVE "${WORK}/cache/${verdicts}")
  foreach(name "qualified-${stem}.txt" "tuning-${stem}.txt")
    execute_process(COMMAND mkfifo "${WORK}/cache/${name}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      fail("mkfifo ${name} failed: ${rc}")
    endif()
  endforeach()
  set(ENV{CLSCAN_LOG} stderr)
  run_info(--selected --self-test --calls scans)
  expect_rc(0)
  if(NOT info_err MATCHES "ignoring (tuning|qualification) file [^\n]*a FIFO, not a regular file")
    fail("the FIFOs were not reported on stderr")
  endif()
  # test -f: a regular file (reading a FIFO here would block this script).
  execute_process(COMMAND test -f "${WORK}/cache/qualified-${stem}.txt" RESULT_VARIABLE regular)
  if(NOT regular EQUAL 0)
    fail("the verdict did not replace its FIFO")
  endif()
  expect_verdict("${WORK}/cache/qualified-${stem}.txt" "^size=4 ")
elseif(MODE STREQUAL "old-rusticl")
  set(ENV{RUSTICL_ENABLE} llvmpipe)
  set(ENV{CLSCAN_PLATFORM} rusticl)
  unset(ENV{CLSCAN_DEVICE})
  set(ENV{CLSCAN_BUILD_OPTIONS} -DCLSCAN_RUN_CHUNK=1)
  run_info(--selected)
  if(info_out MATCHES "no OpenCL device matches" OR info_err MATCHES "no OpenCL device matches")
    message("qualify: skipped: no rusticl platform (Debian package mesa-opencl-icd)")
    return()
  endif()
  expect_rc(0)
  expect_match("${row}qualified \\(wg=64,[^\n]*; wg=1,items=[0-9]+[^\n;]*: [^\n;]*elements wrong")
  run_info(--self-test --selected --algorithm all --calls scans)
  expect_rc(0)
  expect_match("self-test: 3 passed, 0 failed")
else()
  message(FATAL_ERROR "qualify_check: unknown MODE '${MODE}'")
endif()
