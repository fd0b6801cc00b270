# Sanitizer builds (label "sanitizers") and clang-tidy (label "hygiene"). Included from
# tests/CMakeLists.txt; present when clscan is the top-level project (options CLSCAN_SANITIZER_TESTS
# and CLSCAN_CLANG_TIDY_TEST).
#
#   sanitizers-asan  clscan built again, with its tests and tools, by `ctest --build-and-test` into
#                    ${CMAKE_BINARY_DIR}/asan: CLSCAN_SANITIZE=address,undefined, Debug, with
#                    _GLIBCXX_ASSERTIONS; then every test of that build but the labels in
#                    CLSCAN_ASAN_EXCLUDED_LABELS and the tests in CLSCAN_ASAN_EXCLUDED_TESTS below
#                    (a run of every host path, not of every size, type and operator). Any
#                    AddressSanitizer, LeakSanitizer or UndefinedBehaviorSanitizer report ends the
#                    test process and fails the test.
#   sanitizers-tsan  the library and clscan-tests again, into ${CMAKE_BINARY_DIR}/tsan:
#                    CLSCAN_SANITIZE=thread, Debug at -O1; then the tests labelled concurrency (host
#                    threads sharing contexts and queues) and parts, the only ones that build compiles
#                    and registers (tests/CMakeLists.txt). Any ThreadSanitizer report fails the test.
#   sanitizers-environment  the vendor list both give the OpenCL loader is readable by every user.
#   lsan-without-symbols    lsan.supp holds where glibc has no symbols (tests/cmake/lsan_without_symbols.cmake).
#   clang-tidy       tools/run-clang-tidy.sh: clang-tidy with the checks of .clang-tidy over lib/*.cpp
#                    (the script checks tools/*.cpp too when run by hand), with this build's
#                    compile_commands.json; fails on any finding, and
#                    fails (says so) where clang-tidy is not installed (Debian: clang-tidy).
#   clang-format     tools/check-format.sh: every .cpp, .hpp, .c, .h and .cl file formatted by .clang-format;
#                    fails (says so) where clang-format is not installed (Debian: clang-format).
#
# The sanitizer build directories are kept between runs, so only the first run compiles everything;
# e.g. `ctest -L sanitizers --output-on-failure`, then read the report in the output. To reproduce
# by hand, run the tests in build/asan or build/tsan with the environment below.
#
# Both sanitizer builds are Debug, so lib's assertions are live. ASan+UBSan at -O0 compiles in a
# quarter of the time RelWithDebInfo takes and its suite runs about as long either way; TSan at -O1
# runs the scan tests' host-side reference loops a third faster than at -O0 (215 s -> 150 s on 2
# cores) for 15 s more compiling. The project's -Werror is off in both: GCC's instrumentation makes
# -Wmaybe-uninitialized report false positives in libstdc++ (<regex>, via Catch2) when optimizing,
# and warnings are the normal build's business.
#
# The ASan test's LeakSanitizer also reports OpenCL objects that are never released (a leaked
# cl_mem shows as a leak from libpocl.so under the clscan frame that created it).
#
# PoCL, LLVM (inside PoCL) and the OpenCL ICD loader are not instrumented: ASan checks only the
# accesses of clscan and the tests themselves (it still sees every malloc, PoCL's too), TSan only
# their accesses (PoCL's threads synchronise through pthread calls, which TSan sees).
# tests/cmake/lsan.supp and tests/cmake/tsan.supp hold the suppressions for those libraries, and only for them
# (one PoCL compiler function today): never suppress a leak or race in memory clscan allocates.

if(NOT CLSCAN_SANITIZER_TESTS AND NOT CLSCAN_CLANG_TIDY_TEST)
  return()
endif()

# ---- sanitizer builds --------------------------------------------------------------------------------

# A build that is itself sanitized never builds itself again (CLSCAN_SANITIZER_TESTS is OFF there too).
if(CLSCAN_SANITIZER_TESTS AND NOT CLSCAN_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "^(GNU|Clang)$")
    message(STATUS "clscan: no sanitizer tests with ${CMAKE_CXX_COMPILER_ID} (GCC or Clang only)")
  else()
    # --build-noclean: keep what an earlier run compiled.
    set(CLSCAN_SANITIZER_BUILD_ARGS
        --build-noclean
        --build-generator ${CMAKE_GENERATOR}
        --build-makeprogram ${CMAKE_MAKE_PROGRAM})
    if(CMAKE_GENERATOR_PLATFORM)
      list(APPEND CLSCAN_SANITIZER_BUILD_ARGS --build-generator-platform ${CMAKE_GENERATOR_PLATFORM})
    endif()
    if(CMAKE_GENERATOR_TOOLSET)
      list(APPEND CLSCAN_SANITIZER_BUILD_ARGS --build-generator-toolset ${CMAKE_GENERATOR_TOOLSET})
    endif()
    # Options of both sanitizer builds: this build's compiler; no nested sanitizer or tidy tests, no
    # install rules (so no packaging-install tests either). No clscan::mpi: Open MPI allocates in
    # MPI_Init what it never frees (about 120 KB per rank, which LeakSanitizer reports from its
    # uninstrumented libraries). So lib/mpi/ itself is not sanitized; the scans and reductions it calls are.
    # Line tables only (-g1): a report's stack still names file and line, and the builds compile and
    # link faster than with full debug information.
    set(CLSCAN_SANITIZER_COMMON_OPTIONS
        -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
        -DCMAKE_BUILD_TYPE=Debug
        -DCMAKE_CXX_FLAGS_DEBUG=-g1
        -DCMAKE_C_FLAGS_DEBUG=-g1
        -DCLSCAN_SANITIZER_TESTS=OFF
        -DCLSCAN_CLANG_TIDY_TEST=OFF
        -DCLSCAN_INSTALL=OFF
        -DCLSCAN_MPI=OFF
        -DCLSCAN_WARNINGS_AS_ERRORS=OFF)
    # A compiler launcher (ccache) of this build serves the sanitizer builds too.
    foreach(_clscan_lang C CXX)
      list(LENGTH CMAKE_${_clscan_lang}_COMPILER_LAUNCHER _clscan_launcher_words)
      if(_clscan_launcher_words EQUAL 1)
        list(APPEND CLSCAN_SANITIZER_COMMON_OPTIONS
             "-DCMAKE_${_clscan_lang}_COMPILER_LAUNCHER=${CMAKE_${_clscan_lang}_COMPILER_LAUNCHER}")
      endif()
    endforeach()

    cmake_host_system_information(RESULT CLSCAN_SANITIZER_JOBS QUERY NUMBER_OF_LOGICAL_CORES)
    if(NOT CLSCAN_SANITIZER_JOBS OR CLSCAN_SANITIZER_JOBS LESS 2)
      set(CLSCAN_SANITIZER_JOBS 2)
    endif()

    # What the sanitizer builds run. Their subject is clscan's host side (argument checks, workspaces,
    # caches, events, threads, error paths): the kernels run inside PoCL, which is not instrumented,
    # so a suite that repeats the same host path for more sizes, types, operators or launch shapes
    # finds nothing more under a sanitizer and only costs CI time (the second Quick start command
    # stays within 30 minutes on 2 cores). Every host path runs at least once in each build:
    #
    # Labels the ASan+UBSan build does not run:
    #   packaging   its consumer projects are not sanitized, so they cannot link the instrumented library
    #   large       more than 2^32 elements: two 17 GiB host vectors plus ASan's shadow and quarantine
    #   oclgrind    Oclgrind preloads its own OpenCL runtime, which ASan's runtime must precede
    #   sanitizers, hygiene   not defined in the nested build; listed so that it can never recurse
    #   rusticl     Mesa's rusticl: the sanitizers look at clscan's host side, which PoCL exercises
    #   constrained the functional suite again under smaller device limits: the same host code
    #   scan, types, single_pass   every scan kind for every size around the tiles, type and
    #               operator: one host path per call kind, which errors (every argument check), fuzz
    #               (random kinds, types, operators, offsets and sizes), hot-path, c-api, concurrency
    #               and robustness take with far fewer scans
    #   select, by_key   the same for the selections and scans by key (each size around a CPU tile of a
    #               MiB of elements, per type and pattern): fuzz's primitive cases take every call
    #               kind, and select-arguments below their argument checks
    #   sort, parts every key and value type, bit range and pattern; every part type and operator: the
    #               sanitized builds run each call's host paths once instead (sort-host-paths and
    #               parts-host-paths in tests/CMakeLists.txt), and TSan runs parts but its type matrix
    #   runs        reduce_by_key, unique_by_key and run_length_encode for every type pair and run shape:
    #               runs-host-paths runs each call's host paths once
    #   segmented   the segmented calls for every value type, offset type and pattern: segmented-host-paths
    #               runs each call's host paths once (and fuzz's segmented cases take random ones)
    set(CLSCAN_ASAN_EXCLUDED_LABELS
        "packaging|large|oclgrind|rusticl|constrained|sanitizers|hygiene|scan|types|single_pass|select|by_key|sort|parts|runs|segmented")
    # Labels the TSan build runs (see the top of this file); "concurrency" is tests/cmake/reliability.cmake's.
    # The scan suite left it to keep CI within 30 minutes: it calls clscan from one host thread, so only
    # the implementation's own threads could race with it, and ASan runs it in full. "parts": a thread
    # of each parts call opens the later parts' gates (lib/api/parts.cpp watch_reads).
    set(CLSCAN_TSAN_LABELS "concurrency|parts")
    # The tools' longest runs measure and self-test the kernels; their host code is the CLI tests'
    # (cli-*, info-*, demo, bench-smoke-automatic, bench-smoke-transform, bench-checks,
    # parts-bench-bad-flag and -too-large, qualify-* stay). bench-smoke-runs and -segmented time the
    # runs and segmented calls, whose host paths runs-host-paths and segmented-host-paths take.
    # hot-path-size-classes builds GPU-layout kernels for six shapes; its host code is hot-path's.
    # reduce-shapes repeats reduce for tiles of a few elements: kernel shapes, one host path.
    # kernel-warnings compiles every kernel variant (PoCL's compiler, not instrumented; its host path is
    # every call's build); docs-* run Python over the docs; mpi-* only report skipped there (no MPI).
    # robustness-first-call runs every kind of call first in a child process of its own, each qualifying
    # the device afresh (85 s under ASan): the qualification's host paths are the qualify-* tests', and
    # each call's are those of the suites ASan runs.
    # faults: faults-host-paths runs its host-code cases (tests/CMakeLists.txt); the look-back cases test
    # kernels, and eight processes compiling on an empty cache took minutes under ASan's slow unwinder.
    # few-events: the same calls as reduce and robustness-references, with fewer events.
    # info-cache-states: clscan-info over five states of the disk cache, whose host code the cache
    # suite runs (2.5 minutes under ASan).
    set(CLSCAN_ASAN_EXCLUDED_TESTS
        "^(faults|few-events|info-self-test|info-cache-states|robustness-first-call|info-selected|tune-dry-run|hot-path-size-classes|reduce-shapes|bench-smoke-(three-stage|single-pass|exclusive-long-max|primitives|runs|segmented)|bench-primitive-.*|bench-progress|parts-bench|kernel-warnings|docs-.*|mpi-.*)$")

    # The suppression files are read from the checkout. A test that runs a child as another user
    # (tests/unit/cache*.cpp: the probe as user nobody) must not hand it these paths, which that user
    # cannot read in a checkout under /root (0700): it copies them to a world-readable temporary
    # directory and rewrites suppressions= in the child's *SAN_OPTIONS.
    set(CLSCAN_SANITIZER_SUPPRESSIONS ${CMAKE_CURRENT_LIST_DIR})
    # halt_on_error: the first report ends the process (for UBSan together with the build's
    # -fno-sanitize-recover=all). allocator_may_return_null: an impossible allocation request returns
    # null as without ASan (the fault tests provoke allocation failures) instead of aborting.
    # fast_unwind_on_malloc=0: allocation stacks through PoCL and the dynamic loader (built without frame
    # pointers) reach the frames the suppressions name (lsan.supp) and the clscan frames that called
    # them, so a leaked OpenCL object shows who created it. It makes each allocation about three times
    # as slow ([program-cache]: 39.5 s with the fast unwinder, 112.8 s without), but with the fast
    # unwinder the stacks of the loader's and PoCL's own allocations stop before those frames and every
    # test reports them as leaks.
    # use_tls=0: LeakSanitizer's exit-time tracer (GCC 12) crashed with signal 11 while reading the
    # main thread's thread-local storage in the errors test, depending on memory layout (the cache
    # directory's path length); thread-local storage is then not a root, which can only add reports.
    # The ICD loader of the sanitized runs sees PoCL only: every process that asks for platforms loads
    # every installed implementation, and Mesa's (mesa-opencl-icd: Clover and rusticl) allocate at
    # load what they never free, which LeakSanitizer would report in every test. An OCL_ICD_VENDORS
    # without a slash that ends in .icd names one file of the system's vendor directory
    # (/etc/OpenCL/vendors, world-readable), so a test's child running as another user (the cache
    # probe as user nobody) reads it too: a copy in the build tree is out of that user's reach in a
    # checkout under /root (0700), and the child then finds no platform at all.
    set(CLSCAN_SANITIZER_VENDORS pocl.icd)
    # The fuzzers' cases test the kernels, which the normal run covers in full (300 scans, 150
    # selections and by-key scans); under AddressSanitizer a tenth of them exercise the host side.
    # The concurrency tests' threads (1000 scans each in the normal run) draw from 27 kinds of scan:
    # 50 each still run nearly every kind on every thread, against each other (TSan runs 100).
    set(CLSCAN_ASAN_ENVIRONMENT
        "OCL_ICD_VENDORS=${CLSCAN_SANITIZER_VENDORS}"
        "CLSCAN_FUZZ_CASES=30" "CLSCAN_FUZZ_PRIMITIVE_CASES=15" "CLSCAN_CONCURRENCY_SCANS=50"
        "ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:allocator_may_return_null=1:fast_unwind_on_malloc=0:print_summary=1"
        "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:report_error_type=1"
        "LSAN_OPTIONS=suppressions=${CLSCAN_SANITIZER_SUPPRESSIONS}/lsan.supp:print_suppressions=0:use_tls=0")
    # ThreadSanitizer: 100 scans per thread, a tenth of the normal run's (800 at a time on one context
    # in the busiest case), still run nearly every one of the 27 kinds on every thread next to every other.
    set(CLSCAN_TSAN_ENVIRONMENT
        "OCL_ICD_VENDORS=${CLSCAN_SANITIZER_VENDORS}" "CLSCAN_CONCURRENCY_SCANS=100"
        "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=${CLSCAN_SANITIZER_SUPPRESSIONS}/tsan.supp:print_suppressions=0")

    add_test(NAME sanitizers-asan
             COMMAND ${CMAKE_CTEST_COMMAND} -C Debug
                     --build-and-test ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/asan
                     ${CLSCAN_SANITIZER_BUILD_ARGS}
                     --build-options ${CLSCAN_SANITIZER_COMMON_OPTIONS}
                                     -DCLSCAN_SANITIZE=address,undefined
                                     -DCLSCAN_BUILD_TOOLS=ON
                                     -DCMAKE_CXX_FLAGS=-D_GLIBCXX_ASSERTIONS
                     --test-command ${CMAKE_CTEST_COMMAND} -C Debug --output-on-failure --no-tests=error
                                    -j${CLSCAN_SANITIZER_JOBS} -LE "${CLSCAN_ASAN_EXCLUDED_LABELS}"
                                    -E "${CLSCAN_ASAN_EXCLUDED_TESTS}")
    add_test(NAME sanitizers-tsan
             COMMAND ${CMAKE_CTEST_COMMAND} -C Debug
                     --build-and-test ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/tsan
                     ${CLSCAN_SANITIZER_BUILD_ARGS}
                     --build-options ${CLSCAN_SANITIZER_COMMON_OPTIONS}
                                     -DCLSCAN_SANITIZE=thread
                                     -DCLSCAN_BUILD_TOOLS=OFF
                                     -DCMAKE_CXX_FLAGS=-O1
                     --build-target clscan-tests
                     --test-command ${CMAKE_CTEST_COMMAND} -C Debug --output-on-failure --no-tests=error
                                    -j${CLSCAN_SANITIZER_JOBS} -L "${CLSCAN_TSAN_LABELS}")
    # The vendor list above stays readable by the user the cache tests' probe runs as.
    add_test(NAME sanitizers-environment
             COMMAND ${CMAKE_COMMAND} -DVENDORS=${CLSCAN_SANITIZER_VENDORS}
                     "-DTREES=${PROJECT_SOURCE_DIR}|${CMAKE_BINARY_DIR}"
                     -P ${CMAKE_CURRENT_LIST_DIR}/sanitizer_environment_check.cmake)
    set_tests_properties(sanitizers-environment PROPERTIES LABELS sanitizers)
    # The suppressions hold on a machine without glibc's symbols (a fresh Debian).
    add_test(NAME lsan-without-symbols
             COMMAND ${CMAKE_COMMAND} -DCXX_COMPILER=${CMAKE_CXX_COMPILER} -DOBJCOPY=${CMAKE_OBJCOPY}
                     "-DOPENCL_INCLUDE_DIRS=${OpenCL_INCLUDE_DIRS}" -DOPENCL_LIBRARY=${OpenCL_LIBRARY}
                     -DSUPPRESSIONS=${CLSCAN_SANITIZER_SUPPRESSIONS}/lsan.supp
                     -DVENDORS=${CLSCAN_SANITIZER_VENDORS} -DWORK=${CMAKE_BINARY_DIR}/lsan-without-symbols
                     -P ${CMAKE_CURRENT_LIST_DIR}/lsan_without_symbols.cmake)
    set_tests_properties(lsan-without-symbols PROPERTIES LABELS sanitizers TIMEOUT 120
        SKIP_REGULAR_EXPRESSION "lsan-without-symbols: skipped: ")
    # Each compiles on every core and then runs tests that use every core (PoCL): PROCESSORS keeps
    # `ctest -jN` from starting more next to them than the machine has cores.
    set_tests_properties(sanitizers-asan PROPERTIES
        LABELS sanitizers TIMEOUT 2400 PROCESSORS 2 ENVIRONMENT "${CLSCAN_ASAN_ENVIRONMENT}")
    set_tests_properties(sanitizers-tsan PROPERTIES
        LABELS sanitizers TIMEOUT 2400 PROCESSORS 2 ENVIRONMENT "${CLSCAN_TSAN_ENVIRONMENT}")
  endif()
endif()

# ---- clang-tidy and clang-format ----------------------------------------------------------------------

# A hygiene test that runs `script` with the environment variable `env_var` naming `tool` (found here;
# the script looks again at run time, so installing the tool later needs no new cmake run).
function(clscan_hygiene_test tool env_var timeout script)
  string(MAKE_C_IDENTIFIER "CLSCAN_${tool}" variable)
  string(TOUPPER "${variable}" variable)
  find_program(${variable} NAMES ${tool}-14 ${tool} DOC "${tool} for the ${tool} test (${script})")
  set(program "${${variable}}")
  if(NOT program)
    message(WARNING "${tool} not found: the '${tool}' test will fail until it is installed "
                    "(Debian/Ubuntu: apt-get install ${tool})")
    set(program "")
  endif()
  add_test(NAME ${tool} COMMAND ${CMAKE_COMMAND} -E env "${env_var}=${program}"
                                ${PROJECT_SOURCE_DIR}/${script} ${ARGN})
  set_tests_properties(${tool} PROPERTIES LABELS hygiene TIMEOUT ${timeout})
endfunction()

if(CLSCAN_CLANG_TIDY_TEST)
  # The library's sources: the tools' (22 files, a third of clang-tidy's time in CI) are checked by
  # `tools/run-clang-tidy.sh build` without arguments after the build directory.
  clscan_hygiene_test(clang-tidy CLANG_TIDY 900 tools/run-clang-tidy.sh ${CMAKE_BINARY_DIR} lib)
  set_tests_properties(clang-tidy PROPERTIES PROCESSORS 2)
  # The sources and kernels are formatted by .clang-format (tools/check-format.sh --fix applies it).
  clscan_hygiene_test(clang-format CLANG_FORMAT 300 tools/check-format.sh)
endif()
