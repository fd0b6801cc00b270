# The functional suite on PoCL with clscan believing less of the device than it reports
# (CLSCAN_DEVICE_LIMITS, include/clscan/device.hpp), so that the limits of phone and integrated GPUs
# are exercised on the device at hand (label "constrained"): GPU launch shapes (tiles in local
# memory), 16 KiB of local memory, 32-bit single-pass status words, no fp64 (cl_double scans must
# throw unsupported_error), no out-of-order queues;
#   phone        at most 64 work-items, and the OpenCL 1.2 fence protocol (no release/acquire atomics)
#   integrated   at most 256 work-items, release/acquire atomics where PoCL has them
set(CLSCAN_CONSTRAINED_phone "gpu,wg=64,local=16384,no_int64_atomics,no_fp64,no_out_of_order,no_acq_rel")
set(CLSCAN_CONSTRAINED_integrated "gpu,wg=256,local=16384,no_int64_atomics,no_fp64,no_out_of_order")
# What each profile runs (Catch2 test specs). The two differ in work-group size and in how the
# single-pass look-back publishes (fences or release/acquire), so both run the scan suite, whose
# subject that protocol is. The rest runs once, under one profile or split between them: nothing
# else in these suites depends on which of the two limits applies, and running it twice doubled
# the time of the runs (the types suite under each profile was the longest test of CI after the
# sanitizers). The types suite is split by element size: the 8-byte types (and cl_double, which
# must throw) under phone, whose fences and 32-bit status words are the hardest case for a value
# wider than its flag; the 4-byte types under integrated. errors and reduce run under phone, the
# smaller work-groups.
# The phone profile's scan leaves out the sizes around tile^2: at its tile of 1024 they are scans of a
# million elements in work-groups of 64, the longest part of CI's run; scan-recursion below runs them.
set(CLSCAN_CONSTRAINED_phone_TESTS
    scan "[scan]~\"scan: sizes around tile^2*\""
    types-8-byte "[types]*cl_long,[types]*cl_ulong,[types]*cl_double"
    errors "[errors]"
    reduce "[reduce]")
set(CLSCAN_CONSTRAINED_integrated_TESTS
    scan "[scan]"
    types-4-byte "[types]*cl_int,[types]*cl_uint,[types]*cl_float")
foreach(profile phone integrated)
  set(tests ${CLSCAN_CONSTRAINED_${profile}_TESTS})
  while(tests)
    list(POP_FRONT tests name spec)
    add_test(NAME constrained-${profile}-${name} COMMAND clscan-tests "${spec}")
    set_tests_properties(constrained-${profile}-${name} PROPERTIES LABELS "constrained" TIMEOUT 900
        ENVIRONMENT "CLSCAN_DEVICE_LIMITS=${CLSCAN_CONSTRAINED_${profile}};CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-constrained-${profile}")
  endwhile()
endforeach()

# The three-stage recursion's three levels (sizes around tile^2, tests/unit/scan.cpp), which only a small
# tile reaches within the suite's memory budget: the phone profile with tiles of 512 elements
# (CLSCAN_TUNING), so that tile^2 is 262144 and tile^3 is over the budget.
add_test(NAME constrained-phone-scan-recursion COMMAND clscan-tests "\"scan: sizes around tile^2*\"")
set_tests_properties(constrained-phone-scan-recursion PROPERTIES LABELS "constrained" TIMEOUT 900
    ENVIRONMENT "CLSCAN_DEVICE_LIMITS=${CLSCAN_CONSTRAINED_phone};CLSCAN_TUNING=wg=64,items=8,vec=4;CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-constrained-phone-recursion")
