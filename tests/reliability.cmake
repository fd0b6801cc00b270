# Reliability tests (included from tests/CMakeLists.txt):
#
#   fuzz         differential fuzzing against a CPU reference (tests/test_fuzz.cpp; CLSCAN_FUZZ_SEED,
#                CLSCAN_FUZZ_CASES, CLSCAN_FUZZ_REPLAY: see there)
#   concurrency  scans from many host threads: own queues, one shared queue, own contexts
#                (tests/test_concurrency.cpp)
#   faults       allocation failure, full disk, concurrent processes on an empty cache, resource
#                growth, look-back fallback (tests/test_faults.cpp)
#   oclgrind     every kernel on tiny inputs under Oclgrind's memory, uninitialized-value, data-race
#                and API checks (tests/oclgrind_runner.cpp); needs the `oclgrind` program (Debian
#                package oclgrind) and fails, rather than skips, without it
target_sources(clscan-tests PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/test_fuzz.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/test_concurrency.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/test_faults.cpp)

foreach(area fuzz concurrency faults)
  add_test(NAME ${area} COMMAND clscan-tests "[${area}]")
  set_tests_properties(${area} PROPERTIES LABELS "${area}" TIMEOUT 900
      ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-${area}")
endforeach()

add_executable(clscan-oclgrind-runner oclgrind_runner.cpp)
target_link_libraries(clscan-oclgrind-runner PRIVATE clscan::clscan)
target_compile_options(clscan-oclgrind-runner PRIVATE
    $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>
    $<$<AND:$<BOOL:${CLSCAN_WARNINGS_AS_ERRORS}>,$<CXX_COMPILER_ID:GNU,Clang>>:-Werror>)
add_dependencies(clscan-tests clscan-oclgrind-runner)

find_program(CLSCAN_OCLGRIND oclgrind)
# Anything Oclgrind reports fails the test: invalid (out-of-bounds) accesses, uninitialized values,
# data races, work-group divergence, API errors (--check-api), and any other error line.
set(CLSCAN_OCLGRIND_FAILURE
    "Invalid (read|write)|[Uu]ninitiali[sz]ed|data race|divergence|Oclgrind - OpenCL runtime error|[Ee]rror|FAILED|WRONG")
if(CLSCAN_OCLGRIND)
  # The runner is the only OpenCL program Oclgrind sees; its disk cache is off, so every kernel is
  # compiled by Oclgrind itself. -DCLSCAN_PLAIN_STATUS_READS=0: atomic reads of the single-pass status
  # words instead of plain volatile loads, which Oclgrind reports as races with the atomic writes
  # (see tests/oclgrind_runner.cpp).
  add_test(NAME oclgrind
           COMMAND ${CLSCAN_OCLGRIND} --data-races --uninitialized --check-api --max-errors 100
                   --build-options -DCLSCAN_PLAIN_STATUS_READS=0
                   $<TARGET_FILE:clscan-oclgrind-runner>)
  set_tests_properties(oclgrind PROPERTIES LABELS "oclgrind" TIMEOUT 900
      ENVIRONMENT "CLSCAN_NO_CACHE=1"
      FAIL_REGULAR_EXPRESSION "${CLSCAN_OCLGRIND_FAILURE}")
  # Oclgrind's device reports itself as a GPU, so dispatch picks the GPU variant of the single-pass
  # kernel above (tiles in local memory); this run forces the CPU variant (each work-item rereads
  # its run from global memory).
  add_test(NAME oclgrind-cpu-variant
           COMMAND ${CLSCAN_OCLGRIND} --data-races --uninitialized --check-api --max-errors 100
                   --build-options "-DCLSCAN_PLAIN_STATUS_READS=0 -DCLSCAN_REREAD=1"
                   $<TARGET_FILE:clscan-oclgrind-runner>)
  set_tests_properties(oclgrind-cpu-variant PROPERTIES LABELS "oclgrind" TIMEOUT 900
      ENVIRONMENT "CLSCAN_NO_CACHE=1"
      FAIL_REGULAR_EXPRESSION "${CLSCAN_OCLGRIND_FAILURE}")
else()
  message(WARNING "oclgrind not found: the 'oclgrind' test will fail until it is installed "
                  "(Debian/Ubuntu: apt-get install oclgrind)")
  add_test(NAME oclgrind
           COMMAND ${CMAKE_COMMAND} -E echo
                   "oclgrind not found when this build was configured: install it (Debian/Ubuntu package 'oclgrind') and re-run cmake")
  set_tests_properties(oclgrind PROPERTIES LABELS "oclgrind" FAIL_REGULAR_EXPRESSION "oclgrind not found")
endif()
