# The functional suite again on Mesa's rusticl (Debian package mesa-opencl-icd, device llvmpipe): an
# independent OpenCL implementation and compiler stack, run in CI beside PoCL (docs/RELIABILITY.md,
# "What each device runs"). Where no rusticl platform is present, every one of these reports skipped.
#
# Not run here: the disk-cache case that plants a binary the driver must reject (rusticl 22.3 aborts
# the process in clCreateProgramWithBinary on a binary it does not know, "panicked at 'unknown
# version'", which no library can catch), and the faults, concurrency and sanitizer runs, which PoCL
# covers (their subject is clscan's host side, not the device).
set(CLSCAN_RUSTICL_ENV RUSTICL_ENABLE=llvmpipe CLSCAN_PLATFORM=rusticl)
set(CLSCAN_RUSTICL_MISSING "no OpenCL device matches CLSCAN_PLATFORM='rusticl'")

# Fuzzing: as many cases as on PoCL (300 scans, 150 selections and by-key scans), a seed of its own each run.
foreach(area scan types errors fuzz select by_key reduce parts sort)
  add_test(NAME rusticl-${area} COMMAND clscan-tests "[${area}]")
  set_tests_properties(rusticl-${area} PROPERTIES LABELS "rusticl" TIMEOUT 900
      SKIP_REGULAR_EXPRESSION "${CLSCAN_RUSTICL_MISSING}"
      ENVIRONMENT "${CLSCAN_RUSTICL_ENV};CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-${area}")
endforeach()
# A failed wait-list event reaching every part: on its own, as on PoCL (tests/CMakeLists.txt).
add_test(NAME rusticl-parts-failed-wait COMMAND clscan-tests "[parts-failed-wait]")
set_tests_properties(rusticl-parts-failed-wait PROPERTIES LABELS "rusticl" TIMEOUT 300
    SKIP_REGULAR_EXPRESSION "${CLSCAN_RUSTICL_MISSING};parts-failed-wait: skipped: "
    ENVIRONMENT "${CLSCAN_RUSTICL_ENV};CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-parts-failed-wait")
# Scans and every other call kind whose wait list fails after the call (rusticl runs an in-order
# queue's commands behind a failed one unless they wait for its event themselves).
add_test(NAME rusticl-failed-wait-calls COMMAND clscan-tests "[failed-wait],[failed-wait-chain],[failed-wait-calls]")
set_tests_properties(rusticl-failed-wait-calls PROPERTIES LABELS "rusticl" TIMEOUT 600
    SKIP_REGULAR_EXPRESSION "${CLSCAN_RUSTICL_MISSING};robustness: skipped:"
    ENVIRONMENT "${CLSCAN_RUSTICL_ENV};CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-failed-wait-calls")
# The one-pass selections and scans by key on the fixed tree, which GPUs take at mid sizes
# (lib/dispatch/tuning.cpp fixed_order_tiles) and no CPU device reaches by itself: GPU layouts, every program
# built with CLSCAN_FIXED_ORDER (scans: single_pass-tree on PoCL). The tree is the single-pass
# look-back's (kernels/tile_prefix.cl), so only the automatic algorithm's half of the suites runs
# (CLSCAN_TEST_ALGORITHMS, tests/unit/select.cpp): every size, type and pattern, single-pass from a
# tile up; the three-stage half runs the same kernels as rusticl-select and rusticl-by_key.
add_test(NAME rusticl-tree COMMAND clscan-tests "[select],[by_key]")
set_tests_properties(rusticl-tree PROPERTIES LABELS "rusticl" TIMEOUT 900
    SKIP_REGULAR_EXPRESSION "${CLSCAN_RUSTICL_MISSING}"
    ENVIRONMENT "${CLSCAN_RUSTICL_ENV};CLSCAN_DEVICE_LIMITS=gpu;CLSCAN_BUILD_OPTIONS=-DCLSCAN_FIXED_ORDER=1;CLSCAN_TEST_ALGORITHMS=automatic;CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-tree")
# The sort's GPU tile shape (lib/dispatch/tuning.cpp sort_tuning), which llvmpipe, a CPU device, does not take.
add_test(NAME rusticl-sort-gpu-shape COMMAND clscan-tests "[sort]")
set_tests_properties(rusticl-sort-gpu-shape PROPERTIES LABELS "rusticl" TIMEOUT 900
    SKIP_REGULAR_EXPRESSION "${CLSCAN_RUSTICL_MISSING}"
    ENVIRONMENT "${CLSCAN_RUSTICL_ENV};CLSCAN_DEVICE_LIMITS=gpu;CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-sort-gpu-shape")
# Every kind of call first in a process (llvmpipe's qualification rejects the preferred CPU shape), and
# the reference counts of the caller's buffers (a rusticl kernel keeps its last arguments referenced).
foreach(area first-call references)
  add_test(NAME rusticl-${area} COMMAND clscan-tests "[${area}]")
  set_tests_properties(rusticl-${area} PROPERTIES LABELS "rusticl" TIMEOUT 900
      SKIP_REGULAR_EXPRESSION "${CLSCAN_RUSTICL_MISSING}"
      ENVIRONMENT "${CLSCAN_RUSTICL_ENV};CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-${area}")
endforeach()
add_test(NAME rusticl-cache COMMAND clscan-tests "[cache]~[driver-rejects-binary]")
set_tests_properties(rusticl-cache PROPERTIES LABELS "rusticl" TIMEOUT 900
    SKIP_REGULAR_EXPRESSION "${CLSCAN_RUSTICL_MISSING}"
    ENVIRONMENT "${CLSCAN_RUSTICL_ENV};CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-cache")

# Every algorithm through the self-test, qualifying single-pass again (CLSCAN_QUALIFY=1), where the
# tools are built.
if(NOT TARGET clscan-info)
  return()
endif()
add_test(NAME rusticl-self-test
    COMMAND ${CMAKE_COMMAND} -E env ${CLSCAN_RUSTICL_ENV}
            CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-self-test CLSCAN_QUALIFY=1
            $<TARGET_FILE:clscan-info> --self-test --selected --algorithm all)
set_tests_properties(rusticl-self-test PROPERTIES LABELS "rusticl" TIMEOUT 300
    SKIP_REGULAR_EXPRESSION "${CLSCAN_RUSTICL_MISSING}"
    FAIL_REGULAR_EXPRESSION "FAIL:")
# The same variants built with -Werror (kernel-warnings, tests/cmake/tools.cmake).
add_test(NAME rusticl-kernel-warnings
    COMMAND ${CMAKE_COMMAND} -E env ${CLSCAN_RUSTICL_ENV} CLSCAN_BUILD_OPTIONS=-Werror CLSCAN_QUALIFY=1
            CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-kernel-warnings
            $<TARGET_FILE:clscan-info> --self-test --selected --algorithm all)
set_tests_properties(rusticl-kernel-warnings PROPERTIES LABELS "rusticl" TIMEOUT 600
    SKIP_REGULAR_EXPRESSION "${CLSCAN_RUSTICL_MISSING}"
    FAIL_REGULAR_EXPRESSION "FAIL|error")
