# Smoke tests of the command-line tools (label "tools"). Included from tests/CMakeLists.txt.
#
# clscan-bench --smoke checks scans (or with --primitive the other calls) of small and odd sizes against
# a CPU reference and exits non-zero on a wrong result or an error; "automatic" covers whatever
# dispatch picks.
if(TARGET clscan-bench)
  add_test(NAME bench-smoke-three-stage COMMAND clscan-bench --smoke --algorithm three_stage)
  add_test(NAME bench-smoke-single-pass COMMAND clscan-bench --smoke --algorithm single_pass)
  add_test(NAME bench-smoke-automatic COMMAND clscan-bench --smoke --algorithm automatic)
  add_test(NAME bench-smoke-exclusive-long-max
           COMMAND clscan-bench --smoke --algorithm three_stage --type long --op max --kind exclusive)
  set_tests_properties(bench-smoke-three-stage bench-smoke-single-pass bench-smoke-automatic bench-smoke-exclusive-long-max
      PROPERTIES LABELS "tools" TIMEOUT 300
                 ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
  # --primitive: select, by_key and reduce rows measured and verified (each CSV row must end in
  # ",ok,,<std_us>,<primitive>,," with empty keys/s and transform columns; a wrong result or an error row does not), and a smoke run of the five
  # primitives other than scan, n = 0 included. About 3 s together on PoCL.
  add_test(NAME bench-primitive-select COMMAND clscan-bench --primitive select --sizes 1000,2^16+3 --reps 2 --csv)
  set_tests_properties(bench-primitive-select PROPERTIES
      PASS_REGULAR_EXPRESSION ",1000,int,x > 0,,automatic,[^\n]*,ok,,[0-9.]+,select,,\n[^\n]*,65539,int,x > 0,,automatic,[^\n]*,ok,,[0-9.]+,select,,\n")
  add_test(NAME bench-primitive-by-key COMMAND clscan-bench --primitive by_key --sizes 1000,2^16+3 --reps 2 --csv)
  set_tests_properties(bench-primitive-by-key PROPERTIES
      PASS_REGULAR_EXPRESSION ",1000,int,sum,inclusive,automatic,[^\n]*,ok,,[0-9.]+,by_key,,\n[^\n]*,65539,int,sum,inclusive,automatic,[^\n]*,ok,,[0-9.]+,by_key,,\n")
  add_test(NAME bench-primitive-reduce COMMAND clscan-bench --primitive reduce --sizes 1000,2^16+3 --reps 2 --csv)
  set_tests_properties(bench-primitive-reduce PROPERTIES
      PASS_REGULAR_EXPRESSION ",1000,int,sum,,automatic,[^\n]*,ok,,[0-9.]+,reduce,,\n[^\n]*,65539,int,sum,,automatic,[^\n]*,ok,,[0-9.]+,reduce,,\n")
  add_test(NAME bench-smoke-primitives COMMAND clscan-bench --smoke --primitive select,partition,unique,by_key,reduce)
  set_tests_properties(bench-primitive-select bench-primitive-by-key bench-primitive-reduce bench-smoke-primitives
      PROPERTIES LABELS "tools" TIMEOUT 300
                 ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
  # unique_by_key and run_length_encode rows, and scan and reduce with each --transform over an integer
  # and a floating-point type, measured and verified (the CSV row ends in the primitive, an empty
  # keys/s column and the transform); smoke runs of the calls on runs and of a transform on every
  # algorithm. About 10 s together on PoCL.
  # (run_length_encode's kind field names its lengths' type.)
  foreach(case "unique_by_key;" "run_length_encode;uint lengths")
    list(GET case 0 p)
    list(LENGTH case fields)
    set(kind "")
    if(fields GREATER 1)
      list(GET case 1 kind)
    endif()
    string(REPLACE "_" "-" name ${p})
    add_test(NAME bench-primitive-${name} COMMAND clscan-bench --primitive ${p} --type float --sizes 1000,2^16+3 --reps 2 --csv)
    set_tests_properties(bench-primitive-${name} PROPERTIES
        PASS_REGULAR_EXPRESSION ",1000,float,,${kind},automatic,[^\n]*,ok,,[0-9.]+,${p},,\n[^\n]*,65539,float,,${kind},automatic,[^\n]*,ok,,[0-9.]+,${p},,\n")
  endforeach()
  foreach(case "twice;x * 2;int" "positive;x>0?1:0;double" "even;i % 2 == 0 ? x : 0;ulong")
    list(GET case 0 name)
    list(GET case 1 transform)
    list(GET case 2 type)
    add_test(NAME bench-transform-${name} COMMAND clscan-bench --primitive scan,reduce --transform "${transform}"
                                                  --type ${type} --sizes 1000,2^16+3 --reps 2 --csv)
    # The row names the expression as run_checks.hpp spells it, whatever blanks the flag had.
    string(REPLACE "x>0?1:0" "x > 0 ? 1 : 0" spelled "${transform}")
    string(REPLACE "?" "\\?" spelled "${spelled}")
    string(REPLACE "*" "\\*" spelled "${spelled}")
    set(row "automatic,[^\n]*,ok,,[0-9.]+")
    set_tests_properties(bench-transform-${name} PROPERTIES PASS_REGULAR_EXPRESSION
        ",1000,${type},sum,inclusive,${row},scan,,${spelled}\n[^\n]*,65539,${type},sum,inclusive,${row},scan,,${spelled}\n[^\n]*,1000,${type},sum,,${row},reduce,,${spelled}\n[^\n]*,65539,${type},sum,,${row},reduce,,${spelled}\n")
  endforeach()
  add_test(NAME bench-smoke-runs COMMAND clscan-bench --smoke --algorithm all --type double
                                         --primitive reduce_by_key,unique_by_key,run_length_encode)
  add_test(NAME bench-smoke-transform COMMAND clscan-bench --smoke --algorithm all --type int --op max --kind exclusive
                                              --primitive scan,reduce --transform "i % 2 == 0 ? x : 0")
  set_tests_properties(bench-primitive-unique-by-key bench-primitive-run-length-encode bench-transform-twice
                       bench-transform-positive bench-transform-even bench-smoke-runs bench-smoke-transform
      PROPERTIES LABELS "tools" TIMEOUT 300
                 ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
  # The segmented rows (segments of random lengths around 50), and --segment-length refused when out of range.
  add_test(NAME bench-smoke-segmented COMMAND clscan-bench --smoke --algorithm all --type float
                                             --primitive inclusive_segmented,reduce_segmented --segment-length random:50)
  set_tests_properties(bench-smoke-segmented PROPERTIES LABELS "tools" TIMEOUT 300
                       ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
  # run_length_encode with cl_ulong lengths, and --lengths refused for another primitive.
  add_test(NAME bench-smoke-ulong-lengths COMMAND clscan-bench --smoke --algorithm all --type int
                                                 --primitive run_length_encode --lengths ulong)
  set_tests_properties(bench-smoke-ulong-lengths PROPERTIES LABELS "tools" TIMEOUT 300
                       ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
  add_test(NAME bench-lengths-elsewhere COMMAND clscan-bench --primitive scan --lengths ulong)
  set_tests_properties(bench-lengths-elsewhere PROPERTIES LABELS "tools"
                       PASS_REGULAR_EXPRESSION "clscan-bench: --lengths applies to --primitive run_length_encode only")
  add_test(NAME bench-segment-length-zero COMMAND clscan-bench --primitive reduce_segmented --segment-length 0)
  set_tests_properties(bench-segment-length-zero PROPERTIES LABELS "tools"
                       PASS_REGULAR_EXPRESSION "clscan-bench: --segment-length: '0' is out of range")
  # The checks behind those rows reject wrong results (tests/programs/bench_checks.cpp; no device).
  add_executable(clscan-bench-checks ${CMAKE_CURRENT_SOURCE_DIR}/programs/bench_checks.cpp)
  target_include_directories(clscan-bench-checks PRIVATE ${PROJECT_SOURCE_DIR}/tools)
  target_compile_features(clscan-bench-checks PRIVATE cxx_std_17)
  target_compile_options(clscan-bench-checks PRIVATE
      $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>
      $<$<AND:$<BOOL:${CLSCAN_WARNINGS_AS_ERRORS}>,$<CXX_COMPILER_ID:GNU,Clang>>:-Werror>)
  add_test(NAME bench-checks COMMAND clscan-bench-checks)
  set_tests_properties(bench-checks PROPERTIES LABELS "tools" TIMEOUT 120 PASS_REGULAR_EXPRESSION "bench-checks: passed")
  # clscan-parts-bench checks the parts' result once per size and exits non-zero when it is wrong; a bad
  # flag is a usage error.
  add_test(NAME parts-bench COMMAND clscan-parts-bench --sizes 1000,2^16+3 --parts 3 --reps 1 --json)
  set_tests_properties(parts-bench PROPERTIES LABELS "tools" TIMEOUT 300 FAIL_REGULAR_EXPRESSION "wrong result|clscan-parts-bench:"
      PASS_REGULAR_EXPRESSION "\"n\": 1000, \"parts\": 3[^\n]*\n[^\n]*\"n\": 65539, \"parts\": 3"
      ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
  add_test(NAME parts-bench-bad-flag COMMAND clscan-parts-bench --parts 0)
  set_tests_properties(parts-bench-bad-flag PROPERTIES LABELS "tools" WILL_FAIL TRUE)
  # A size past the device's largest buffer names that limit (the status alone said
  # CL_INVALID_BUFFER_SIZE); the message only comes on the error path, which exits 1.
  add_test(NAME parts-bench-too-large COMMAND clscan-parts-bench --sizes 2^40 --parts 2 --reps 1)
  set_tests_properties(parts-bench-too-large PROPERTIES LABELS "tools" TIMEOUT 120
      PASS_REGULAR_EXPRESSION "clscan-parts-bench: a buffer of [0-9]+ bytes is larger than the device allows \\(CL_DEVICE_MAX_MEM_ALLOC_SIZE [0-9]+ bytes\\)"
      ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
  # --progress reports every phase of a size, down to its verification (the pass expression makes
  # ctest ignore the exit status, so a wrong result or an error is caught by the fail expression).
  add_test(NAME bench-progress COMMAND clscan-bench --sizes 2^12+3 --reps 2 --progress)
  set_tests_properties(bench-progress PROPERTIES LABELS "tools" TIMEOUT 300
      PASS_REGULAR_EXPRESSION "n=4099 int automatic: verified after [0-9.]+ s"
      FAIL_REGULAR_EXPRESSION "FAIL|error"
      ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
endif()

if(TARGET clscan-info)
  add_test(NAME info-self-test COMMAND clscan-info --self-test)
  set_tests_properties(info-self-test PROPERTIES LABELS "tools" TIMEOUT 300
      ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
  # Kernels compile clean: every variant the self-test builds (every call and type, on the algorithm
  # dispatch picks per size; rusticl runs every algorithm), built with -Werror, so that a kernel the
  # compiler warns about fails its build and the self-test. About 80 s of CPU on PoCL from cold.
  # PoCL's and rusticl's compilers are clang (rusticl-self-test, tests/cmake/rusticl.cmake).
  # The disk cache keys entries by source and options and keeps only builds that succeeded, so a run
  # after no kernel changed builds nothing; CLSCAN_QUALIFY=1 qualifies single-pass again, so that a
  # verdict stored while a kernel did not build cannot leave it out.
  add_test(NAME kernel-warnings
      COMMAND ${CMAKE_COMMAND} -E env CLSCAN_BUILD_OPTIONS=-Werror CLSCAN_QUALIFY=1
              CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-kernel-warnings
              $<TARGET_FILE:clscan-info> --self-test --selected)
  set_tests_properties(kernel-warnings PROPERTIES LABELS "tools" TIMEOUT 900
      FAIL_REGULAR_EXPRESSION "FAIL|error")
  # The listing and --json (checked field by field), a device that fails being reported and skipped
  # (an invalid CLSCAN_TUNING; a kernel build that fails), the disk cache states, and --selected.
  # Each mode runs in a scratch directory of its own with its own cache (tests/cmake/info_check.cmake).
  foreach(mode listing json failing-tuning failing-build cache-states selected)
    add_test(NAME info-${mode}
             COMMAND ${CMAKE_COMMAND} -DINFO=$<TARGET_FILE:clscan-info> -DMODE=${mode}
                     -DWORK=${CMAKE_CURRENT_BINARY_DIR}/info-check/${mode}
                     -P ${CMAKE_CURRENT_LIST_DIR}/info_check.cmake)
    set_tests_properties(info-${mode} PROPERTIES LABELS "tools" TIMEOUT 300)
  endforeach()
  # --selected's self-test builds what info-self-test built for the same device: it runs after it, on
  # its disk cache, instead of building every variant again.
  set_property(TEST info-selected APPEND PROPERTY ENVIRONMENT
               "CLSCAN_INFO_SHARED_CACHE=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
  set_tests_properties(info-selected PROPERTIES DEPENDS info-self-test)
endif()

if(TARGET clscan-demo)
  # README.md's usage example, run as the first quick-start command runs it.
  add_test(NAME demo COMMAND clscan-demo)
  set_tests_properties(demo PROPERTIES LABELS "tools" TIMEOUT 300
      PASS_REGULAR_EXPRESSION "both scans match"
      ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
endif()
add_test(NAME readme COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                             -P ${CMAKE_CURRENT_LIST_DIR}/readme_check.cmake)
set_tests_properties(readme PROPERTIES LABELS "hygiene")

if(TARGET clscan-tune)
  # Every candidate shape must build and give the right result; nothing is stored (--dry-run).
  add_test(NAME tune-dry-run COMMAND clscan-tune --dry-run --size 2^16 --reps 2)
  set_tests_properties(tune-dry-run PROPERTIES LABELS "tools" TIMEOUT 600
      ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-tools")
endif()

# Hostile command lines (tests/cmake/cli_check.cmake): numeric flags of every tool validated, with the flag
# and the text in the message and exit status 2; clscan-tune refuses to store a tuning from a size too
# small to mean anything; clscan-bench's error rows fail the run; clscan-demo and clscan-host-cost --help.
foreach(tool clscan-tune clscan-bench clscan-demo clscan-host-cost clscan-info)
  if(TARGET ${tool})
    add_test(NAME cli-${tool}
             COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:${tool}> -DNAME=${tool}
                     -DWORK=${CMAKE_CURRENT_BINARY_DIR}/cli-check/${tool}
                     -P ${CMAKE_CURRENT_LIST_DIR}/cli_check.cmake)
    set_tests_properties(cli-${tool} PROPERTIES LABELS "tools" TIMEOUT 300)
  endif()
endforeach()
