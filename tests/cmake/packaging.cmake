# Packaging tests (label "packaging"): clscan as other projects use it. Like fmt's, they build small
# consumer projects with `ctest --build-and-test` and run them.
#
#   packaging-install           cmake --install of this build tree into ${CMAKE_BINARY_DIR}/test-install
#                               (after packaging-clean empties it): the fixture the next test needs
#   packaging-find-package      tests/package/consumer: find_package(clscan CONFIG REQUIRED) against
#                               that prefix only, links clscan::clscan, runs and verifies scans; and
#                               clscan::mpi (COMPONENTS mpi) where clscan was built with MPI
#   packaging-installed-programs  the programs README.md shows are in the prefix's bin directory
#   packaging-add-subdirectory  tests/package/subdir: add_subdirectory(<clscan source>) and the same
#                               program
#
# Both consumers fail to compile if clscan's private headers (lib/) are visible to them, and the
# find_package consumer checks that the installed package names no path of this source or build tree.
# The install tests exist only when clscan generates install rules (CLSCAN_INSTALL).

set(CLSCAN_TEST_INSTALL_PREFIX ${CMAKE_BINARY_DIR}/test-install)
set(CLSCAN_PACKAGE_BUILD_DIR ${CMAKE_CURRENT_BINARY_DIR}/package)

# Options every consumer build gets: this build's compiler, generator and configuration.
set(CLSCAN_PACKAGE_BUILD_ARGS
    --build-generator ${CMAKE_GENERATOR}
    --build-makeprogram ${CMAKE_MAKE_PROGRAM})
if(CMAKE_GENERATOR_PLATFORM)
  list(APPEND CLSCAN_PACKAGE_BUILD_ARGS --build-generator-platform ${CMAKE_GENERATOR_PLATFORM})
endif()
if(CMAKE_GENERATOR_TOOLSET)
  list(APPEND CLSCAN_PACKAGE_BUILD_ARGS --build-generator-toolset ${CMAKE_GENERATOR_TOOLSET})
endif()
set(CLSCAN_PACKAGE_COMMON_OPTIONS
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DCMAKE_BUILD_TYPE=$<CONFIG>
    -DCLSCAN_EXPECTED_VERSION=${PROJECT_VERSION}
    -DCLSCAN_FORBIDDEN_INCLUDE_DIR=${PROJECT_SOURCE_DIR}/lib)

if(CLSCAN_INSTALL)
  add_test(NAME packaging-clean
           COMMAND ${CMAKE_COMMAND} -E remove_directory ${CLSCAN_TEST_INSTALL_PREFIX})
  add_test(NAME packaging-clean-consumer
           COMMAND ${CMAKE_COMMAND} -E remove_directory ${CLSCAN_PACKAGE_BUILD_DIR}/consumer)

  add_test(NAME packaging-install
           COMMAND ${CMAKE_COMMAND} --install ${PROJECT_BINARY_DIR} --prefix ${CLSCAN_TEST_INSTALL_PREFIX}
                   --config $<CONFIG>)

  add_test(NAME packaging-find-package
           COMMAND ${CMAKE_CTEST_COMMAND} -C $<CONFIG>
                   --build-and-test ${CMAKE_CURRENT_SOURCE_DIR}/package/consumer
                                    ${CLSCAN_PACKAGE_BUILD_DIR}/consumer
                   ${CLSCAN_PACKAGE_BUILD_ARGS}
                   --build-options ${CLSCAN_PACKAGE_COMMON_OPTIONS}
                                   -DCMAKE_PREFIX_PATH=${CLSCAN_TEST_INSTALL_PREFIX}
                                   -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
                                   -DCLSCAN_EXPECTED_PREFIX=${CLSCAN_TEST_INSTALL_PREFIX}
                                   -DCLSCAN_EXPECT_MPI=${CLSCAN_MPI_BUILT}
                                   "-DCLSCAN_FORBIDDEN_PATHS=${PROJECT_SOURCE_DIR}/include|${PROJECT_SOURCE_DIR}/lib|${PROJECT_BINARY_DIR}/include|${PROJECT_BINARY_DIR}/lib"
                   --test-command ${CMAKE_CTEST_COMMAND} -C $<CONFIG> --output-on-failure)
  set_tests_properties(packaging-clean packaging-clean-consumer PROPERTIES
      LABELS packaging FIXTURES_SETUP clscan-install-clean)
  set_tests_properties(packaging-install PROPERTIES
      LABELS packaging FIXTURES_REQUIRED clscan-install-clean FIXTURES_SETUP clscan-installed)
  # The programs README.md shows (the quick start runs clscan-info and clscan-demo from the build tree;
  # "Tools" clscan-bench and clscan-tune), where the tools are built.
  if(TARGET clscan-demo)
    add_test(NAME packaging-installed-programs
             COMMAND ${CMAKE_COMMAND} -DPREFIX=${CLSCAN_TEST_INSTALL_PREFIX} -DBINDIR=${CMAKE_INSTALL_BINDIR}
                     "-DPROGRAMS=clscan-info|clscan-demo|clscan-bench|clscan-tune"
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/installed_programs_check.cmake)
    set_tests_properties(packaging-installed-programs PROPERTIES
        LABELS packaging FIXTURES_REQUIRED clscan-installed)
  endif()
  set_tests_properties(packaging-find-package PROPERTIES
      LABELS packaging FIXTURES_REQUIRED clscan-installed TIMEOUT 600
      ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-packaging")
endif()

# Reuses its build directory between runs, so that only the first run compiles all of clscan.
add_test(NAME packaging-add-subdirectory
         COMMAND ${CMAKE_CTEST_COMMAND} -C $<CONFIG>
                 --build-and-test ${CMAKE_CURRENT_SOURCE_DIR}/package/subdir
                                  ${CLSCAN_PACKAGE_BUILD_DIR}/subdir
                 ${CLSCAN_PACKAGE_BUILD_ARGS}
                 --build-options ${CLSCAN_PACKAGE_COMMON_OPTIONS}
                                 -DCLSCAN_SOURCE_DIR=${PROJECT_SOURCE_DIR}
                                 # The library compiled without optimization, in about half the
                                 # time: the subject is the embedding, not the build type.
                                 -DCMAKE_BUILD_TYPE=Debug
                 --test-command ${CMAKE_CTEST_COMMAND} -C $<CONFIG> --output-on-failure)

set_tests_properties(packaging-add-subdirectory PROPERTIES
    LABELS packaging TIMEOUT 900
    ENVIRONMENT "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-packaging")
