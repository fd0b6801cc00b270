# The functional suite on PoCL with clscan believing less of the device than it reports
# (CLSCAN_DEVICE_LIMITS, include/clscan/device.hpp), so that the limits of phone and integrated GPUs
# are exercised on the device at hand (label "constrained"): GPU launch shapes (tiles in local
# memory), 16 KiB of local memory, 32-bit single-pass status words, no fp64 (cl_double scans must
# throw unsupported_error), no out-of-order queues;
#   phone        at most 64 work-items, and the OpenCL 1.2 fence protocol (no release/acquire atomics)
#   integrated   at most 256 work-items, release/acquire atomics where PoCL has them
set(CLSCAN_CONSTRAINED_phone "gpu,wg=64,local=16384,no_int64_atomics,no_fp64,no_out_of_order,no_acq_rel")
set(CLSCAN_CONSTRAINED_integrated "gpu,wg=256,local=16384,no_int64_atomics,no_fp64,no_out_of_order")
foreach(profile phone integrated)
  foreach(area scan types errors reduce)
    add_test(NAME constrained-${profile}-${area} COMMAND clscan-tests "[${area}]")
    set_tests_properties(constrained-${profile}-${area} PROPERTIES LABELS "constrained" TIMEOUT 900
        ENVIRONMENT "CLSCAN_DEVICE_LIMITS=${CLSCAN_CONSTRAINED_${profile}};CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-constrained-${profile}")
  endforeach()
endforeach()
