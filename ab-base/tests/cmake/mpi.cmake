# clscan::mpi across ranks (label "mpi"): tests/mpi/mpi_scan_test.cpp under mpirun on 1 to 4 ranks
# (mpi-np1 ... mpi-np4), oversubscribed on CI's two cores, and on 2 ranks under Mesa's rusticl
# (mpi-rusticl-np2). Included from tests/CMakeLists.txt.
#
# The ranks of a test share one disk cache, and every test the cache of mpi-np1, which the others run
# after: on PoCL the first run compiles the kernels, the others load them. Where clscan::mpi is not
# built or there is no mpirun, every one of these reports skipped.
set(CLSCAN_MPI_TESTS mpi-np1 mpi-np2 mpi-np3 mpi-np4 mpi-rusticl-np2)
set(CLSCAN_MPI_SKIPPED "mpi: skipped: ")

set(_clscan_mpi_missing "")
if(NOT TARGET clscan_mpi)
  set(_clscan_mpi_missing "clscan::mpi is not built (CLSCAN_MPI=${CLSCAN_MPI}; needs MPI, Debian: libopenmpi-dev)")
elseif(NOT MPIEXEC_EXECUTABLE)
  set(_clscan_mpi_missing "no mpirun found (Debian: openmpi-bin)")
endif()
if(_clscan_mpi_missing)
  foreach(test IN LISTS CLSCAN_MPI_TESTS)
    add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -E echo "${CLSCAN_MPI_SKIPPED}${_clscan_mpi_missing}")
    set_tests_properties(${test} PROPERTIES LABELS "mpi" SKIP_REGULAR_EXPRESSION "${CLSCAN_MPI_SKIPPED}")
  endforeach()
  return()
endif()

add_executable(clscan-mpi-test mpi/mpi_scan_test.cpp)
target_link_libraries(clscan-mpi-test PRIVATE clscan::mpi)
# <common/reference.hpp> (the host reference scans) and lib/mpi/rank_records.hpp, whose decisions the
# program checks with counts past 2^32.
target_include_directories(clscan-mpi-test PRIVATE ${PROJECT_SOURCE_DIR}/tools ${PROJECT_SOURCE_DIR}/lib/mpi)
target_compile_options(clscan-mpi-test PRIVATE
    $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>
    $<$<AND:$<BOOL:${CLSCAN_WARNINGS_AS_ERRORS}>,$<CXX_COMPILER_ID:GNU,Clang>>:-Werror>)

# Open MPI refuses to run as root (CI runs as root) and to start more ranks than cores without these.
# Its shared-memory transport's single-copy mechanism (CMA) needs ptrace rights that containers often
# lack; the ranks exchange a few bytes, so copying through the shared segment costs nothing.
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _clscan_mpiexec_version
                ERROR_QUIET RESULT_VARIABLE _clscan_mpiexec_result)
set(CLSCAN_MPIEXEC_FLAGS "")
set(CLSCAN_MPI_ENV "")
if(_clscan_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(CLSCAN_MPIEXEC_FLAGS --oversubscribe --allow-run-as-root)
  set(CLSCAN_MPI_ENV "OMPI_MCA_btl_vader_single_copy_mechanism=none")
endif()

set(CLSCAN_MPI_CACHE "CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-mpi")
foreach(ranks 1 2 3 4)
  add_test(NAME mpi-np${ranks}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${CLSCAN_MPIEXEC_FLAGS}
                   ${MPIEXEC_PREFLAGS} $<TARGET_FILE:clscan-mpi-test> ${MPIEXEC_POSTFLAGS})
  set_tests_properties(mpi-np${ranks} PROPERTIES LABELS "mpi" TIMEOUT 120
      FAIL_REGULAR_EXPRESSION "FAIL"
      ENVIRONMENT "${CLSCAN_MPI_ENV};${CLSCAN_MPI_CACHE}")
  if(NOT ranks EQUAL 1)
    set_tests_properties(mpi-np${ranks} PROPERTIES DEPENDS mpi-np1)
  endif()
endforeach()

add_test(NAME mpi-rusticl-np2
         COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${CLSCAN_MPIEXEC_FLAGS}
                 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:clscan-mpi-test> ${MPIEXEC_POSTFLAGS})
set_tests_properties(mpi-rusticl-np2 PROPERTIES LABELS "mpi;rusticl" TIMEOUT 300
    FAIL_REGULAR_EXPRESSION "FAIL"
    SKIP_REGULAR_EXPRESSION "${CLSCAN_RUSTICL_MISSING}"
    ENVIRONMENT "${CLSCAN_MPI_ENV};${CLSCAN_RUSTICL_ENV};CLSCAN_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-mpi-rusticl")
