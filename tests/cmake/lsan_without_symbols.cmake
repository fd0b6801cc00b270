# Checks that tests/cmake/lsan.supp holds where glibc has no symbols: a fresh Debian has neither its
# debug symbols (libc6-dbg) nor llvm-symbolizer, so LeakSanitizer names only glibc's exported
# functions there, and an entry for an internal one (_dlerror_run) matches nothing. The ICD loader's
# first clGetPlatformIDs leaves a dlerror() text behind (lsan.supp says why that is no leak of
# clscan's); a small AddressSanitizer program makes that call and runs as the sanitizer runs do
# (OCL_ICD_VENDORS, use_tls=0, fast_unwind_on_malloc=0), with a copy of libc.so.6 that has no link
# to its debug symbols and a PATH without llvm-symbolizer:
#   - without the suppressions it must report the leak from "dlsym (libc.so.6+0x...)", no frame
#     named _dlerror_run (else this machine is not showing the case this test is about);
#   - with them it must report nothing.
# Reports "lsan-without-symbols: skipped: <why>" where that case cannot be made here (no ASan
# runtime, no objcopy, no leak to suppress with this glibc).
# Usage: cmake -DCXX_COMPILER=... -DOBJCOPY=... -DOPENCL_INCLUDE_DIRS=... -DOPENCL_LIBRARY=...
#              -DSUPPRESSIONS=.../lsan.supp -DVENDORS=... -DWORK=... -P lsan_without_symbols.cmake
cmake_minimum_required(VERSION 3.16)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/libs" "${WORK}/bin")
file(WRITE "${WORK}/first_call.cpp" "#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
int main(void) {
  cl_uint platforms = 0;
  const cl_int status = clGetPlatformIDs(0, NULL, &platforms);
  printf(\"clGetPlatformIDs: %d, %u platforms\\n\", (int)status, (unsigned)platforms);
  return 0;
}
")
set(includes "")
foreach(dir IN LISTS OPENCL_INCLUDE_DIRS)
  list(APPEND includes "-I${dir}")
endforeach()
execute_process(COMMAND "${CXX_COMPILER}" -fsanitize=address -g ${includes} "${WORK}/first_call.cpp"
                        -o "${WORK}/first_call" "${OPENCL_LIBRARY}"
                RESULT_VARIABLE failed OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(failed)
  message("lsan-without-symbols: skipped: no AddressSanitizer program could be built:\n${output}")
  return()
endif()
if(NOT OBJCOPY)
  message("lsan-without-symbols: skipped: no objcopy (Debian: binutils)")
  return()
endif()
execute_process(COMMAND ldd "${WORK}/first_call" OUTPUT_VARIABLE libraries RESULT_VARIABLE failed)
if(failed OR NOT libraries MATCHES "libc\\.so\\.6 => ([^ ]+)")
  message("lsan-without-symbols: skipped: ldd does not show libc.so.6:\n${libraries}")
  return()
endif()
set(libc "${CMAKE_MATCH_1}")
execute_process(COMMAND "${OBJCOPY}" --remove-section=.gnu_debuglink --remove-section=.note.gnu.build-id
                        "${libc}" "${WORK}/libs/libc.so.6"
                RESULT_VARIABLE failed OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(failed)
  message(FATAL_ERROR "objcopy of ${libc} failed:\n${output}")
endif()

set(ENV{PATH} "${WORK}/bin")
set(ENV{LD_LIBRARY_PATH} "${WORK}/libs")
set(ENV{OCL_ICD_VENDORS} "${VENDORS}")
set(ENV{ASAN_OPTIONS} "detect_leaks=1:fast_unwind_on_malloc=0:halt_on_error=1")
unset(ENV{ASAN_SYMBOLIZER_PATH})
unset(ENV{LSAN_SYMBOLIZER_PATH})
function(run out_rc out_text lsan_options)
  set(ENV{LSAN_OPTIONS} "${lsan_options}")
  execute_process(COMMAND "${WORK}/first_call" RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
  set(${out_rc} "${rc}" PARENT_SCOPE)
  set(${out_text} "${text}" PARENT_SCOPE)
endfunction()

run(rc text "use_tls=0")
if(rc EQUAL 0)
  message("lsan-without-symbols: skipped: no leak to suppress with this glibc and ICD loader:\n${text}")
  return()
endif()
if(NOT text MATCHES "in dlsym \\([^)]*libc\\.so\\.6\\+0x")
  message(FATAL_ERROR "without the suppressions, expected a leak from dlsym (libc.so.6+0x...):\n${text}")
endif()
if(text MATCHES "_dlerror_run")
  message(FATAL_ERROR "glibc's internal frames still have names: not the case of a machine without "
                      "symbols:\n${text}")
endif()
run(rc text "use_tls=0:suppressions=${SUPPRESSIONS}:print_suppressions=0")
if(NOT rc EQUAL 0 OR text MATCHES "LeakSanitizer")
  message(FATAL_ERROR "${SUPPRESSIONS} does not hold without glibc's symbols (exit ${rc}):\n${text}")
endif()
message(STATUS "without glibc's symbols, ${SUPPRESSIONS} suppresses the ICD loader's dlerror text:\n${text}")
