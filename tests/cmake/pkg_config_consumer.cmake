# Builds a C program against an installed clscan the way a project without CMake does, and runs it:
#   cc SOURCE -o BUILD_DIR/c_consumer $(pkg-config --cflags --libs clscan)
# with PKG_CONFIG_PATH pointing at PREFIX/LIBDIR/pkgconfig. Checks that the .pc file found is the
# installed one and names no path of clscan's source or build tree (FORBIDDEN_PATHS, "|"-separated).
# Checks too that --cflags carries every definition the CMake target clscan::clscan gives its users
# (DEFINITIONS, "|"-separated NAME=VALUE: the OpenCL versions), so that a C program that does not
# define them itself compiles as a CMake user's does: a program made here checks each with #error,
# and both programs must compile without a single line of output (<CL/cl.h> says "Defaulting to 300"
# through #pragma message, which -Werror does not turn into an error).
# Usage: cmake -DPKG_CONFIG=... -DC_COMPILER=... -DPREFIX=... -DLIBDIR=... -DSOURCE=... -DBUILD_DIR=...
#              -DFORBIDDEN_PATHS=... -DDEFINITIONS=... -P pkg_config_consumer.cmake
cmake_minimum_required(VERSION 3.16)
if(NOT PKG_CONFIG)
  message("packaging-pkg-config: skipped: no pkg-config program found (Debian: pkgconf)")
  return()
endif()
if(IS_ABSOLUTE "${LIBDIR}")
  set(pc_dir "${LIBDIR}/pkgconfig")
else()
  set(pc_dir "${PREFIX}/${LIBDIR}/pkgconfig")
endif()
if(NOT EXISTS "${pc_dir}/clscan.pc")
  message(FATAL_ERROR "clscan.pc is not installed in ${pc_dir}")
endif()
set(ENV{PKG_CONFIG_PATH} "${pc_dir}")

function(pkg_config out)
  execute_process(COMMAND "${PKG_CONFIG}" ${ARGN} clscan RESULT_VARIABLE failed OUTPUT_VARIABLE text
                  ERROR_VARIABLE error OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(failed)
    message(FATAL_ERROR "pkg-config ${ARGN} clscan failed:\n${error}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

pkg_config(prefix --variable=prefix)
get_filename_component(prefix "${prefix}" REALPATH)
get_filename_component(expected_prefix "${PREFIX}" REALPATH)
if(NOT prefix STREQUAL expected_prefix)
  message(FATAL_ERROR "clscan.pc has prefix ${prefix}, not the install prefix ${expected_prefix}")
endif()
pkg_config(flags --cflags --libs)
message(STATUS "pkg-config --cflags --libs clscan: ${flags}")
file(READ "${pc_dir}/clscan.pc" pc_text)
string(REPLACE "|" ";" forbidden "${FORBIDDEN_PATHS}")
foreach(path IN LISTS forbidden)
  string(FIND "${pc_text}" "${path}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "clscan.pc names ${path}, a path of clscan's source or build tree:\n${pc_text}")
  endif()
endforeach()

file(MAKE_DIRECTORY "${BUILD_DIR}")
separate_arguments(flag_list UNIX_COMMAND "${flags}")

pkg_config(cflags --cflags)
string(REPLACE "|" ";" definitions "${DEFINITIONS}")
if(NOT definitions)
  message(FATAL_ERROR "no DEFINITIONS given: expected the public definitions of clscan::clscan")
endif()
set(probe_source "/* Made by pkg_config_consumer.cmake: no #define of its own. */\n")
foreach(definition IN LISTS definitions)
  separate_arguments(cflag_list UNIX_COMMAND "${cflags}")
  if(NOT "-D${definition}" IN_LIST cflag_list)
    message(FATAL_ERROR "pkg-config --cflags clscan lacks -D${definition}, which clscan::clscan gives "
                        "CMake users: ${cflags}")
  endif()
  string(REGEX MATCH "^([A-Za-z_][A-Za-z0-9_]*)=(.*)$" pair "${definition}")
  if(NOT pair)
    message(FATAL_ERROR "DEFINITIONS: expected NAME=VALUE, got ${definition}")
  endif()
  string(APPEND probe_source "#if !defined(${CMAKE_MATCH_1}) || ${CMAKE_MATCH_1} != ${CMAKE_MATCH_2}\n"
                             "#error ${CMAKE_MATCH_1} is not ${CMAKE_MATCH_2}\n#endif\n")
endforeach()
string(APPEND probe_source "#include <clscan/clscan.h>\nint main(void) { return 0; }\n")
file(WRITE "${BUILD_DIR}/definitions_probe.c" "${probe_source}")

# Compiles SOURCE into PROGRAM with the flags of pkg-config; any compiler output fails.
function(compile source program)
  file(REMOVE "${program}")
  execute_process(COMMAND "${C_COMPILER}" -std=c99 -Wall -Wextra -pedantic -Werror "${source}" -o "${program}"
                          ${flag_list}
                  RESULT_VARIABLE failed OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(failed)
    message(FATAL_ERROR "${source} did not build with ${C_COMPILER} ... ${flags}:\n${output}")
  endif()
  if(NOT output STREQUAL "")
    message(FATAL_ERROR "${source} built with output from ${C_COMPILER} ... ${flags}:\n${output}")
  endif()
endfunction()
compile("${BUILD_DIR}/definitions_probe.c" "${BUILD_DIR}/definitions_probe")
set(program "${BUILD_DIR}/c_consumer")
compile("${SOURCE}" "${program}")

# A shared libclscan is found through LD_LIBRARY_PATH (pkg-config sets no run path); a static one is
# inside the program already.
get_filename_component(lib_dir "${pc_dir}" DIRECTORY)
set(ENV{LD_LIBRARY_PATH} "${lib_dir}")
execute_process(COMMAND "${program}" RESULT_VARIABLE failed OUTPUT_VARIABLE output ERROR_VARIABLE output)
message(STATUS "c_consumer: ${output}")
if(failed OR NOT output MATCHES "both scans match a host loop")
  message(FATAL_ERROR "the C consumer failed (${failed}):\n${output}")
endif()
