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

# rusticl_test(<name> <filter> <timeout> [SKIP <regex>...] [ENV <name=value>...]): clscan-tests
# <filter> as the test rusticl-<name>, skipped where no rusticl platform is present (or on the SKIP
# expressions), with the ENV settings. A test with ENV settings (other devices limits or build
# options), or whose subject is a first call or the cache, has a cache directory of its own; the others
# share one, as the functional areas on PoCL do (tests/CMakeLists.txt, CLSCAN_TEST_SHARED_CACHE):
# llvmpipe's compiles took half of a suite's time on an empty cache (types: 14.6 s, 6.4 s warm).
function(rusticl_test name filter timeout)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "" "SKIP;ENV")
  set(skip "${CLSCAN_RUSTICL_MISSING}" ${arg_SKIP})
  set(cache CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-shared CLSCAN_CACHE_MAX_BYTES=4294967296)
  if(arg_ENV OR name MATCHES "^(cache|first-call|references)$")
    set(cache CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-${name})
  endif()
  set(environment ${CLSCAN_RUSTICL_ENV} ${arg_ENV} ${cache})
  add_test(NAME rusticl-${name} COMMAND clscan-tests "${filter}")
  set_tests_properties(rusticl-${name} PROPERTIES LABELS "rusticl" TIMEOUT ${timeout}
      SKIP_REGULAR_EXPRESSION "${skip}" ENVIRONMENT "${environment}")
endfunction()

# Fuzzing: as many cases as on PoCL (300 scans, 150 selections and by-key scans), a seed of its own each run.
foreach(area scan types errors fuzz select by_key segmented reduce parts sort parameters)
  rusticl_test(${area} "[${area}]" 900)
endforeach()
# The runs calls: every case but the four further key and value type pairs, whose programs are the
# same kernels for other element types (the int/int and long/int pairs run here, all six on PoCL).
rusticl_test(runs "[runs]~\"runs: the same for other key and value types\"" 900)
# The one-pass calls on runs under CLSCAN_SPIN_LIMIT=0, every tile reducing every tile before it itself
# (runs-one-pass-fallback on PoCL), in llvmpipe's work-groups of 64.
rusticl_test(runs-one-pass-fallback "[runs-one-pass]" 600 ENV CLSCAN_SPIN_LIMIT=0)
# ... and in the GPU layout (keys as run-head bits, values through local memory), which llvmpipe, a CPU
# device, does not take by itself.
rusticl_test(runs-gpu-shape "[runs-one-pass]" 600 ENV CLSCAN_DEVICE_LIMITS=gpu)
# A failed wait-list event reaching every part: on its own, as on PoCL (tests/CMakeLists.txt).
rusticl_test(parts-failed-wait "[parts-failed-wait]" 300 SKIP "parts-failed-wait: skipped: ")
# Scans and every other call kind whose wait list fails after the call (rusticl runs an in-order
# queue's commands behind a failed one unless they wait for its event themselves).
rusticl_test(failed-wait-calls "[failed-wait],[failed-wait-chain],[failed-wait-calls]" 600 SKIP "robustness: skipped:")
# The one-pass selections and scans by key on the fixed tree, which GPUs take at mid sizes
# (lib/dispatch/tuning.cpp fixed_order_tiles) and no CPU device reaches by itself: GPU layouts, every program
# built with CLSCAN_FIXED_ORDER (scans: single_pass-tree on PoCL). The tree is the single-pass
# look-back's (kernels/tile_prefix.cl), so only the automatic algorithm's half of the suites runs
# (CLSCAN_TEST_ALGORITHMS, tests/unit/select.cpp): every size, type and pattern, single-pass from a
# tile up; the three-stage half runs the same kernels as rusticl-select and rusticl-by_key.
rusticl_test(tree "[select],[by_key]" 900
    ENV CLSCAN_DEVICE_LIMITS=gpu CLSCAN_BUILD_OPTIONS=-DCLSCAN_FIXED_ORDER=1 CLSCAN_TEST_ALGORITHMS=automatic)
# Deterministic scans on the fixed tree in work-groups of 5, narrower than llvmpipe's SIMD width, which
# it once miscompiled (tests/unit/types.cpp "[deterministic-tree]").
rusticl_test(deterministic-narrow "[deterministic-tree]" 600 SKIP "deterministic-tree: skipped: "
    ENV CLSCAN_DEVICE_LIMITS=gpu CLSCAN_TUNING=wg=5,items=4,vec=2)
# The sort's GPU tile shape (lib/dispatch/tuning.cpp sort_tuning), which llvmpipe, a CPU device, does not take.
# Bit ranges are the same kernels with other pass arguments (rusticl-sort and sort-gpu-shape run them):
# left out here, where they took a third of the longest rusticl run. The one-pass sort only: its tiles
# are ranked and scattered as the three-stage sort's (sort-gpu-shape runs both on PoCL).
rusticl_test(sort-gpu-shape "[sort]~\"sort: bit ranges*\"" 900
    ENV CLSCAN_DEVICE_LIMITS=gpu CLSCAN_TEST_ALGORITHMS=single_pass)
# The one-pass sort's fallback there (sort-gpu-shape-fallback on PoCL).
rusticl_test(sort-gpu-shape-fallback "[sort-fallback]" 600 ENV CLSCAN_DEVICE_LIMITS=gpu CLSCAN_SPIN_LIMIT=0)
# Every kind of call first in a process (llvmpipe's qualification rejects the preferred CPU shape), and
# the reference counts of the caller's buffers (a rusticl kernel keeps its last arguments referenced).
foreach(area first-call references)
  rusticl_test(${area} "[${area}]" 900)
endforeach()
# The disk and program caches where the driver takes part (binaries stored, loaded, damaged and
# rebuilt; processes sharing the cache; programs kept per context); the cases of the cache directory's
# file system, the environment and the tuning file are host code only, which PoCL's run covers.
rusticl_test(cache "[cache]~[driver-rejects-binary]~\"a FIFO*\"~\"CLSCAN_NO_CACHE*\"~\"a read-only*\"~\"a cache directory that*\"~\"garbage in the tuning*\"~\"CLSCAN_LOG*\"~\"cache_directory()*\"~\"an installed log*\"" 900)

# Every algorithm through the self-test, qualifying single-pass again (CLSCAN_QUALIFY=1), every variant
# built with -Werror (as kernel-warnings, tests/cmake/tools.cmake), where the tools are built.
if(NOT TARGET clscan-info)
  return()
endif()
add_test(NAME rusticl-self-test
    COMMAND ${CMAKE_COMMAND} -E env ${CLSCAN_RUSTICL_ENV} CLSCAN_BUILD_OPTIONS=-Werror CLSCAN_QUALIFY=1
            CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-rusticl-self-test
            $<TARGET_FILE:clscan-info> --self-test --selected --algorithm all)
set_tests_properties(rusticl-self-test PROPERTIES LABELS "rusticl" TIMEOUT 600
    SKIP_REGULAR_EXPRESSION "${CLSCAN_RUSTICL_MISSING}"
    FAIL_REGULAR_EXPRESSION "FAIL|error")
