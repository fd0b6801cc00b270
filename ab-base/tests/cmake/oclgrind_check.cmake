# Runs one program under Oclgrind and judges the run by what Oclgrind reports (the oclgrind tests of
# tests/cmake/reliability.cmake):
#
#   cmake -DOCLGRIND=<oclgrind> -DLOG=<file> [-DEXPECT=<regex>] [-DTIMEOUT=<s>] -P oclgrind_check.cmake
#         -- <oclgrind options> <program> <arguments>
#
# Oclgrind exits with the program's status whatever it reports, and its reports take many forms
# ("Invalid write", "... not aligned to the pointed type", "Unaligned address on atomic_add", ...), so
# matching its output against a list of words misses some. It writes every report to stderr, and the
# programs run here write only to stdout (the library prints nothing): any byte on stderr is a
# finding. The driver captures stderr and writes it to LOG for a look afterwards.
#
# Not `oclgrind --log <file>`: Oclgrind 21.10 opens (and truncates) that file once per OpenCL context,
# so a program with several contexts, such as clscan-oclgrind-runner, keeps only the last one's
# reports (the oclgrind-canary-two-contexts test fails that way).
#
# Without EXPECT: fails unless the program exits 0 and nothing was reported.
# With EXPECT (the canaries, whose kernels have a deliberate fault): fails unless the program exits 0
# (it ran, on Oclgrind's device) and the reports are non-empty and match EXPECT. A canary therefore
# fails when Oclgrind is missing, when its check is off, and when reports stop reaching the driver.

if(NOT DEFINED OCLGRIND OR NOT LOG)
  message(FATAL_ERROR "oclgrind_check.cmake needs -DOCLGRIND=<program> and -DLOG=<file>")
endif()
if(NOT OCLGRIND OR NOT EXISTS "${OCLGRIND}")
  message(FATAL_ERROR "oclgrind not found ('${OCLGRIND}'): install it (Debian/Ubuntu package 'oclgrind') "
                      "and re-run cmake")
endif()

# The command follows "--" (cmake -P passes later arguments through as CMAKE_ARGV<n>).
set(command)
set(in_command FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(in_command)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(in_command TRUE)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "oclgrind_check.cmake: no command after --")
endif()
if(NOT TIMEOUT)
  set(TIMEOUT 600)
endif()

# A log left by an earlier run must not be mistaken for this one's.
get_filename_component(log_dir "${LOG}" DIRECTORY)
file(MAKE_DIRECTORY "${log_dir}")
file(REMOVE "${LOG}")
# stdout passes straight through to ctest (and its FAIL_REGULAR_EXPRESSION, the second net).
execute_process(COMMAND "${OCLGRIND}" ${command} RESULT_VARIABLE status ERROR_VARIABLE reports
                TIMEOUT ${TIMEOUT})
file(WRITE "${LOG}" "${reports}")

if(DEFINED EXPECT)
  if(NOT status STREQUAL "0")
    message(FATAL_ERROR "canary: the program under Oclgrind exited with '${status}', so its fault was "
                        "not exercised\n${reports}")
  endif()
  if(reports STREQUAL "")
    message(FATAL_ERROR "canary: Oclgrind reported nothing; the fault went undetected")
  endif()
  if(NOT reports MATCHES "${EXPECT}")
    message(FATAL_ERROR "canary: Oclgrind's reports do not match '${EXPECT}':\n${reports}")
  endif()
  message(STATUS "canary: Oclgrind reported the fault, as it must (${LOG})")
  return()
endif()

if(NOT reports STREQUAL "")
  message(FATAL_ERROR "Oclgrind reported problems (also in ${LOG}):\n${reports}")
endif()
if(NOT status STREQUAL "0")
  message(FATAL_ERROR "the program under Oclgrind exited with '${status}'")
endif()
message(STATUS "Oclgrind: nothing reported")
