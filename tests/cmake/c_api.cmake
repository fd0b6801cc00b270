# The C API (label "c-api"): tests/c/c_api_test.c, a plain C99 program (no test framework) built with
# -Wall -Wextra -pedantic (-Werror with CLSCAN_WARNINGS_AS_ERRORS), run once for everything and once
# per failure that needs an environment of its own; and (labels "packaging;c-api")
# tests/package/c_consumer/main.c, the README's C example, built against the test install with
# `cc ... $(pkg-config --cflags --libs clscan)` and run.
enable_language(C)

add_executable(clscan-c-api-test c/c_api_test.c)
target_link_libraries(clscan-c-api-test PRIVATE clscan::clscan Threads::Threads)
set_target_properties(clscan-c-api-test PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(clscan-c-api-test PRIVATE
    $<$<C_COMPILER_ID:GNU,Clang>:-Wall -Wextra -pedantic>
    $<$<AND:$<BOOL:${CLSCAN_WARNINGS_AS_ERRORS}>,$<C_COMPILER_ID:GNU,Clang>>:-Werror>)

set(CLSCAN_C_API_CACHE "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-c-api")
add_test(NAME c-api COMMAND clscan-c-api-test)
set_tests_properties(c-api PROPERTIES ENVIRONMENT "${CLSCAN_C_API_CACHE}")
# CLSCAN_DEVICE_LIMITS (include/clscan/device.hpp) takes fp64 away, so CLSCAN_UNSUPPORTED shows on any device.
add_test(NAME c-api-unsupported COMMAND clscan-c-api-test unsupported)
set_tests_properties(c-api-unsupported PROPERTIES
    ENVIRONMENT "${CLSCAN_C_API_CACHE};CLSCAN_DEVICE_LIMITS=no_fp64")
# Two-element tiles and PoCL's smallest memory limit put the temporaries past the allocation limit
# (tests/reliability/faults_resources.cpp does the same in C++); elsewhere the data would be too large
# and the test reports itself skipped.
add_test(NAME c-api-opencl-error COMMAND clscan-c-api-test opencl-error)
set_tests_properties(c-api-opencl-error PROPERTIES SKIP_REGULAR_EXPRESSION "c-api: skipped:"
    ENVIRONMENT "${CLSCAN_C_API_CACHE};CLSCAN_TUNING=wg=1,items=2,vec=1;POCL_MEMORY_LIMIT=1;CLSCAN_QUALIFY=0")
add_test(NAME c-api-no-device COMMAND clscan-c-api-test no-device)
set_tests_properties(c-api-no-device PROPERTIES
    ENVIRONMENT "${CLSCAN_C_API_CACHE};CLSCAN_PLATFORM=no platform has this name")
# The sorts, in a process of their own: their kernels are others than the scans'.
add_test(NAME c-api-sort COMMAND clscan-c-api-test sort)
set_tests_properties(c-api-sort PROPERTIES ENVIRONMENT "${CLSCAN_C_API_CACHE}")
set_tests_properties(c-api c-api-sort c-api-unsupported c-api-opencl-error c-api-no-device PROPERTIES
    LABELS "c-api" TIMEOUT 300)
# After the tests whose kernels PoCL then finds in its own cache (~/.cache/pocl): the scans' (types)
# and, as c_api_test.c's selections, scans by key and reduces are chosen to build the same programs,
# those of select, by_key and reduce. c-api then takes a few seconds instead of about a minute on two cores (compiling
# work-group functions dominates a cold run).
set_tests_properties(c-api PROPERTIES DEPENDS "types;select;by_key;reduce")
set_tests_properties(c-api-unsupported PROPERTIES DEPENDS types)

if(CLSCAN_INSTALL)
  find_program(CLSCAN_PKG_CONFIG NAMES pkg-config pkgconf)
  add_test(NAME packaging-pkg-config
           COMMAND ${CMAKE_COMMAND} -DPKG_CONFIG=${CLSCAN_PKG_CONFIG} -DC_COMPILER=${CMAKE_C_COMPILER}
                   -DPREFIX=${CLSCAN_TEST_INSTALL_PREFIX} -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
                   -DSOURCE=${CMAKE_CURRENT_SOURCE_DIR}/package/c_consumer/main.c
                   -DBUILD_DIR=${CLSCAN_PACKAGE_BUILD_DIR}/c_consumer
                   "-DFORBIDDEN_PATHS=${PROJECT_SOURCE_DIR}/include|${PROJECT_SOURCE_DIR}/lib|${PROJECT_BINARY_DIR}/include|${PROJECT_BINARY_DIR}/lib"
                   "-DDEFINITIONS=$<JOIN:$<TARGET_PROPERTY:clscan,INTERFACE_COMPILE_DEFINITIONS>,|>"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/pkg_config_consumer.cmake)
  set_tests_properties(packaging-pkg-config PROPERTIES
      LABELS "packaging;c-api" FIXTURES_REQUIRED clscan-installed TIMEOUT 300
      SKIP_REGULAR_EXPRESSION "packaging-pkg-config: skipped:"
      ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-packaging")
endif()
