# Reliability tests (included from tests/CMakeLists.txt; sources in tests/reliability/):
#
#   fuzz         differential fuzzing against a CPU reference: the scans (tests/reliability/fuzz.cpp;
#                CLSCAN_FUZZ_SEED, CLSCAN_FUZZ_CASES, CLSCAN_FUZZ_REPLAY: see there) and the selections and
#                scans by key (tests/reliability/fuzz_primitives.cpp; also CLSCAN_FUZZ_PRIMITIVE_CASES), and
#                the segmented calls over offsets (tests/reliability/fuzz_segmented.cpp;
#                CLSCAN_FUZZ_SEGMENTED_CASES)
#   concurrency  scans from many host threads: own queues, one shared queue, own contexts
#                (tests/reliability/concurrency.cpp)
#   faults       allocation failure, full disk, concurrent processes on an empty cache, resource
#                growth, look-back fallback (tests/reliability/faults_*.cpp)
#   oclgrind     every kernel variant on tiny inputs under Oclgrind's memory, uninitialized-value,
#                data-race and API checks (tests/reliability/oclgrind_runner.cpp; the sort's through
#                clscan-tests "[sort-oclgrind]"), and canaries that show those
#                checks catch faults (tests/reliability/oclgrind_canary.cl); needs the `oclgrind` program (Debian
#                package oclgrind) and fails, rather than skips, without it
target_sources(clscan-tests PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/reliability/fuzz.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/reliability/fuzz_primitives.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/reliability/fuzz_segmented.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/reliability/concurrency.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/reliability/faults_resources.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/reliability/faults_cache.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/reliability/faults_lookback.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/reliability/faults_status_tags.cpp)

# fuzz and concurrency build the functional areas' programs (tests/CMakeLists.txt: their shared cache);
# faults damages caches and keeps its own.
foreach(area fuzz concurrency faults)
  add_test(NAME ${area} COMMAND clscan-tests "[${area}]")
  set(cache_environment "${CLSCAN_TEST_SHARED_CACHE}")
  if(area STREQUAL "faults")
    set(cache_environment "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-${area}")
  endif()
  set_tests_properties(${area} PROPERTIES LABELS "${area}" TIMEOUT 900 ENVIRONMENT "${cache_environment}")
endforeach()

add_executable(clscan-oclgrind-runner reliability/oclgrind_runner.cpp)
target_link_libraries(clscan-oclgrind-runner PRIVATE clscan::clscan)
target_include_directories(clscan-oclgrind-runner PRIVATE ${PROJECT_SOURCE_DIR}/tools)
add_executable(clscan-oclgrind-canary reliability/oclgrind_canary.cpp)
target_link_libraries(clscan-oclgrind-canary PRIVATE OpenCL::OpenCL)
# The OpenCL 1.2 API, as clscan itself (include/clscan/config.hpp).
target_compile_definitions(clscan-oclgrind-canary PRIVATE CL_TARGET_OPENCL_VERSION=120)
foreach(program clscan-oclgrind-runner clscan-oclgrind-canary)
  target_compile_features(${program} PRIVATE cxx_std_17)
  target_compile_options(${program} PRIVATE
      $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>
      $<$<AND:$<BOOL:${CLSCAN_WARNINGS_AS_ERRORS}>,$<CXX_COMPILER_ID:GNU,Clang>>:-Werror>)
  add_dependencies(clscan-tests ${program})
endforeach()

# Every oclgrind test runs through tests/cmake/oclgrind_check.cmake, which judges the run by Oclgrind's
# stderr, where its reports go (any byte fails the run; the programs write only to stdout), and the
# program's exit status, rather than by Oclgrind's exit status (always the program's) or words in its
# output (reports take too many forms). The captured reports are kept in oclgrind-logs/<test>.log.
# When oclgrind is missing the driver fails every one of them, canaries included: they fail, rather
# than skip.
find_program(CLSCAN_OCLGRIND oclgrind)
if(NOT CLSCAN_OCLGRIND)
  message(WARNING "oclgrind not found: the oclgrind tests will fail until it is installed "
                  "(Debian/Ubuntu: apt-get install oclgrind)")
endif()
# --uniform-writes: also report work-items writing the same value to one word, which Oclgrind
# otherwise lets pass as a race; the kernels have none.
set(CLSCAN_OCLGRIND_OPTIONS --data-races --uniform-writes --uninitialized --check-api --max-errors 100)
set(CLSCAN_OCLGRIND_LOGS ${CMAKE_CURRENT_BINARY_DIR}/oclgrind-logs)
# A second net over the output, should a report reach stdout (the driver prints stderr when it fails
# anyway).
set(CLSCAN_OCLGRIND_FAILURE
    "[Ii]nvalid|[Uu]ninitiali[sz]ed|[Dd]ata race|[Dd]ivergence|[Uu]naligned|not aligned|runtime error|[Ee]rror|[Ww]arning|FATAL|FAILED|WRONG")

# The kernels: suites of tests/reliability/oclgrind_runner.cpp (see there for the shapes, types and operators).
# Each runs the scans and the select and by-key calls (select_if, select_flagged, partition_if, unique,
# inclusive_by_key, exclusive_by_key: kernels/select.cl, kernels/by_key.cl), the look-back fallback
# (CLSCAN_SPIN_LIMIT=0) included.
#   oclgrind               single-pass GPU variant (tile in local memory), the three-stage kernels,
#                          every type and operator
#   oclgrind-cpu-variant   single-pass CPU variant (CLSCAN_REREAD=1, work-groups of one work-item
#                          among them), the three-stage kernels, every type and operator
#   oclgrind-narrow-status single-pass with the 32-bit status words of devices without 64-bit atomics;
#                          selections with the 64-bit tile counts of inputs of 2^32 elements or more
#   oclgrind-copied-runs   the one-pass selections with CLSCAN_SELECT_COMPACT_RUNS=0 (kernels/select.cl:
#                          each run copied to private memory, not the default) and 64-bit tile counts,
#                          select calls only
foreach(suite local-tile reread narrow copied-runs)
  if(suite STREQUAL "local-tile")
    set(name oclgrind)
  elseif(suite STREQUAL "reread")
    set(name oclgrind-cpu-variant)
  elseif(suite STREQUAL "narrow")
    set(name oclgrind-narrow-status)
  else()
    set(name oclgrind-${suite})
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DOCLGRIND=${CLSCAN_OCLGRIND} -DLOG=${CLSCAN_OCLGRIND_LOGS}/${name}.log
                   -DTIMEOUT=850 -P ${CMAKE_CURRENT_LIST_DIR}/oclgrind_check.cmake
                   -- ${CLSCAN_OCLGRIND_OPTIONS} $<TARGET_FILE:clscan-oclgrind-runner> ${suite})
  # Two work-groups at a time whatever the machine (Oclgrind's default is one per core): look-backs
  # then meet predecessors that are still running, on one-core machines too.
  set_tests_properties(${name} PROPERTIES LABELS "oclgrind" TIMEOUT 900 ENVIRONMENT "OCLGRIND_NUM_THREADS=2"
      FAIL_REGULAR_EXPRESSION "${CLSCAN_OCLGRIND_FAILURE}")
endforeach()
set_tests_properties(oclgrind-narrow-status PROPERTIES
    ENVIRONMENT "OCLGRIND_NUM_THREADS=2;CLSCAN_NARROW_STATUS=1")

# The radix sort's kernels (kernels/sort.cl) on small inputs, checked against std::stable_sort:
# `clscan-tests "[sort-oclgrind]"` (tests/unit/sort.cpp, which says why each call runs in a context of
# its own). Oclgrind's device reports every device type, so the library takes the GPU tile shape
# (ranked in local memory); CLSCAN_DEVICE_LIMITS=cpu gives the CPU shape (one work-item per tile).
# Both algorithms in each: the GPU shape runs sort_onepass for single_pass, with atomic status reads (plain
# volatile ones are races to Oclgrind) and no qualification, as the runner's suites.
#   oclgrind-sort       GPU shape
#   oclgrind-sort-cpu   CPU shape
foreach(shape gpu cpu)
  set(name oclgrind-sort)
  set(limits "")
  if(shape STREQUAL "cpu")
    set(name oclgrind-sort-cpu)
    set(limits ";CLSCAN_DEVICE_LIMITS=cpu")
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DOCLGRIND=${CLSCAN_OCLGRIND} -DLOG=${CLSCAN_OCLGRIND_LOGS}/${name}.log
                   -DTIMEOUT=850 -P ${CMAKE_CURRENT_LIST_DIR}/oclgrind_check.cmake
                   -- ${CLSCAN_OCLGRIND_OPTIONS} $<TARGET_FILE:clscan-tests> "[sort-oclgrind]")
  set_tests_properties(${name} PROPERTIES LABELS "oclgrind" TIMEOUT 900
      FAIL_REGULAR_EXPRESSION "${CLSCAN_OCLGRIND_FAILURE}"
      ENVIRONMENT "OCLGRIND_NUM_THREADS=2;CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-${name}${limits};CLSCAN_BUILD_OPTIONS=-DCLSCAN_PLAIN_STATUS_READS=0;CLSCAN_QUALIFY=0")
endforeach()

# reduce_by_key, unique_by_key and run_length_encode (the one-pass kernel, kernels/runs.cl; the
# selections by another buffer's keys, kernels/select.cl) on small inputs in the GPU layout:
# `clscan-tests "[runs-oclgrind]"` (tests/unit/runs.cpp).
# As the runner's suites: atomic status reads (plain volatile ones are races to Oclgrind), no qualification.
add_test(NAME oclgrind-runs
         COMMAND ${CMAKE_COMMAND} -DOCLGRIND=${CLSCAN_OCLGRIND} -DLOG=${CLSCAN_OCLGRIND_LOGS}/oclgrind-runs.log
                 -DTIMEOUT=850 -P ${CMAKE_CURRENT_LIST_DIR}/oclgrind_check.cmake
                 -- ${CLSCAN_OCLGRIND_OPTIONS} $<TARGET_FILE:clscan-tests> "[runs-oclgrind]")
set_tests_properties(oclgrind-runs PROPERTIES LABELS "oclgrind" TIMEOUT 900
    FAIL_REGULAR_EXPRESSION "${CLSCAN_OCLGRIND_FAILURE}"
    ENVIRONMENT "OCLGRIND_NUM_THREADS=2;CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-oclgrind-runs;CLSCAN_BUILD_OPTIONS=-DCLSCAN_PLAIN_STATUS_READS=0;CLSCAN_QUALIFY=0")
# The same under CLSCAN_SPIN_LIMIT=0: the one-pass kernel's second tile reduces the first itself.
add_test(NAME oclgrind-runs-fallback
         COMMAND ${CMAKE_COMMAND} -DOCLGRIND=${CLSCAN_OCLGRIND} -DLOG=${CLSCAN_OCLGRIND_LOGS}/oclgrind-runs-fallback.log
                 -DTIMEOUT=850 -P ${CMAKE_CURRENT_LIST_DIR}/oclgrind_check.cmake
                 -- ${CLSCAN_OCLGRIND_OPTIONS} $<TARGET_FILE:clscan-tests> "[runs-oclgrind]")
set_tests_properties(oclgrind-runs-fallback PROPERTIES LABELS "oclgrind" TIMEOUT 900
    FAIL_REGULAR_EXPRESSION "${CLSCAN_OCLGRIND_FAILURE}"
    ENVIRONMENT "OCLGRIND_NUM_THREADS=2;CLSCAN_SPIN_LIMIT=0;CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-oclgrind-runs-fallback;CLSCAN_BUILD_OPTIONS=-DCLSCAN_PLAIN_STATUS_READS=0;CLSCAN_QUALIFY=0")

# The segmented calls over offsets (kernels/segmented.cl: head flags written atomically, cleared by the
# call; the scan by key over them; kernels/segment_reduce.cl's chunk totals) on small inputs in the GPU
# layout: `clscan-tests "[segmented-oclgrind]"` (tests/unit/segmented.cpp), with the options of
# oclgrind-runs.
add_test(NAME oclgrind-segmented
         COMMAND ${CMAKE_COMMAND} -DOCLGRIND=${CLSCAN_OCLGRIND} -DLOG=${CLSCAN_OCLGRIND_LOGS}/oclgrind-segmented.log
                 -DTIMEOUT=850 -P ${CMAKE_CURRENT_LIST_DIR}/oclgrind_check.cmake
                 -- ${CLSCAN_OCLGRIND_OPTIONS} $<TARGET_FILE:clscan-tests> "[segmented-oclgrind]")
set_tests_properties(oclgrind-segmented PROPERTIES LABELS "oclgrind" TIMEOUT 900
    FAIL_REGULAR_EXPRESSION "${CLSCAN_OCLGRIND_FAILURE}"
    ENVIRONMENT "OCLGRIND_NUM_THREADS=2;CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-oclgrind-segmented;CLSCAN_BUILD_OPTIONS=-DCLSCAN_PLAIN_STATUS_READS=0;CLSCAN_QUALIFY=0")

# Canaries: kernels with one deliberate fault each (tests/reliability/oclgrind_canary.cl), run the same way with
# the same options. Each passes only when Oclgrind reports its fault in a form that matches the
# expression beside it (the driver's EXPECT mode), so each fails when Oclgrind is missing, when the
# check that finds its fault is off, and when reports stop reaching the driver. Entries are
# "<test name suffix>:<kernels, each in a context of its own>:<expected report>". two-contexts runs
# a fault and then a clean kernel in a second context, as the runner does with its many contexts:
# Oclgrind's --log file would keep only the second context's (empty) report.
set(CLSCAN_OCLGRIND_CANARIES
    "out-of-bounds:out_of_bounds:Invalid write of size"
    "misaligned-store:misaligned_store:not aligned to the pointed type"
    "misaligned-atomic:misaligned_atomic:Unaligned address on atomic_add"
    "global-race:global_race:Write-write data race at global memory"
    "local-race:local_race:Read-write data race at local memory"
    "uniform-write:uniform_write:Write-write data race at global memory"
    "uninitialized:uninitialized:Uninitialized value written to global memory"
    "divergent-barrier:divergent_barrier:Work-group divergence detected"
    "api-misuse:api_misuse:OpenCL runtime error detected.*CL_INVALID_ARG_SIZE"
    "two-contexts:out_of_bounds,clean:Invalid write of size")
foreach(canary ${CLSCAN_OCLGRIND_CANARIES})
  string(REGEX REPLACE ":.*" "" suffix "${canary}")
  string(REGEX REPLACE "^[^:]*:([^:]*):.*" "\\1" kernel "${canary}")
  string(REGEX REPLACE "^[^:]*:[^:]*:" "" expected "${canary}")
  set(name oclgrind-canary-${suffix})
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DOCLGRIND=${CLSCAN_OCLGRIND} -DLOG=${CLSCAN_OCLGRIND_LOGS}/${name}.log
                   "-DEXPECT=${expected}" -DTIMEOUT=250 -P ${CMAKE_CURRENT_LIST_DIR}/oclgrind_check.cmake
                   -- ${CLSCAN_OCLGRIND_OPTIONS} $<TARGET_FILE:clscan-oclgrind-canary>
                   ${CMAKE_CURRENT_SOURCE_DIR}/reliability/oclgrind_canary.cl ${kernel})
  set_tests_properties(${name} PROPERTIES LABELS "oclgrind" TIMEOUT 300)
endforeach()
# The control: the same program on a kernel without a fault must leave no report.
add_test(NAME oclgrind-canary-clean
         COMMAND ${CMAKE_COMMAND} -DOCLGRIND=${CLSCAN_OCLGRIND} -DLOG=${CLSCAN_OCLGRIND_LOGS}/oclgrind-canary-clean.log
                 -DTIMEOUT=250 -P ${CMAKE_CURRENT_LIST_DIR}/oclgrind_check.cmake
                 -- ${CLSCAN_OCLGRIND_OPTIONS} $<TARGET_FILE:clscan-oclgrind-canary>
                 ${CMAKE_CURRENT_SOURCE_DIR}/reliability/oclgrind_canary.cl clean)
set_tests_properties(oclgrind-canary-clean PROPERTIES LABELS "oclgrind" TIMEOUT 300
    FAIL_REGULAR_EXPRESSION "${CLSCAN_OCLGRIND_FAILURE}")
