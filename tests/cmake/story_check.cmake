# The product speaks of itself only: fails where a text file of the checkout tells the story of
# its making (the word "session" with a number, "in an earlier session") or points at scripts that are
# not in it (the GPU machine's ".gpu/..." helpers, "../shared/..."). A measurement is cited by its
# document section, commit or date instead. Allowed: pytest's scope="session" and MPI's sessions.
#
# Usage: cmake -DSOURCE_DIR=<clscan checkout> -P story_check.cmake
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "story_check: pass -DSOURCE_DIR=<clscan checkout>")
endif()
# The top level and .ci/ alone, then the source folders recursively: build folders and the ignored
# helpers of a GPU machine (.gpu/) are not the product.
file(GLOB files LIST_DIRECTORIES false RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/*.md" "${SOURCE_DIR}/*.txt"
     "${SOURCE_DIR}/.ci/*" "${SOURCE_DIR}/.clang-tidy")
foreach(dir bench cmake docs include kernels lib python tests tools)
  foreach(ext md txt cmake cpp hpp h c cl cu py sh in toml cfg)
    file(GLOB_RECURSE found LIST_DIRECTORIES false RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/${dir}/*.${ext}")
    list(APPEND files ${found})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES files)
list(FILTER files EXCLUDE REGEX "(^|/)build[^/]*/|^tests/cmake/story_check.cmake$")
list(LENGTH files count)
if(count LESS 50)
  message(FATAL_ERROR "story_check: only ${count} files found under ${SOURCE_DIR}: not a clscan checkout?")
endif()

set(found_lines)
foreach(f ${files})
  file(READ "${SOURCE_DIR}/${f}" text)
  string(TOLOWER "${text}" lower)
  if(NOT lower MATCHES "session|\\.gpu/|\\.\\./shared/")
    continue()
  endif()
  # Only the files that match are split into lines (CMake's regular expressions have no case flag).
  # Semicolons, brackets and backslashes would split or join CMake list items: they become spaces.
  string(REGEX REPLACE "[][;\\]" " " text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    string(TOLOWER "${line}" l)
    if(NOT l MATCHES "session|\\.gpu/|\\.\\./shared/")
      continue()
    endif()
    string(REGEX REPLACE "scope *= *[\"']session[\"']" "" l "${l}")
    string(REGEX REPLACE "mpi_session" "" l "${l}")
    if(l MATCHES "(^|[^a-z_])sessions?([^a-z_]|$)|\\.gpu/|\\.\\./shared/")
      list(APPEND found_lines "${f}:${number}: ${line}")
    endif()
  endforeach()
endforeach()

if(found_lines)
  list(LENGTH found_lines n)
  string(REPLACE ";" "\n" shown "${found_lines}")
  message(FATAL_ERROR "story_check: ${n} lines tell how clscan was made or point outside the checkout; cite "
                      "a document section, a commit or a date, and a script in the repository instead:\n${shown}")
endif()
message(STATUS "story_check: ${count} files, none tells the story of its making")
