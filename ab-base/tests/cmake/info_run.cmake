# Running clscan-info from a check script, and failing with everything a reader needs to see why.
# Included by info_check.cmake and qualify_check.cmake, which set beforehand:
#   CHECK_NAME    the script's name, for the messages
#   INFO_TIMEOUT  seconds one run of clscan-info may take
# info_check_prepare(<variables>) checks -DINFO, -DMODE and -DWORK, empties WORK, unsets the given
# environment variables and points CLSCAN_CACHE_DIR at WORK/cache.
# run_info() sets info_args, info_out, info_err and info_rc in the caller's scope; the expect_*
# functions check them and fail() with the command, its environment, status and output.

macro(info_check_prepare)
  foreach(required INFO MODE WORK)
    if(NOT DEFINED ${required})
      message(FATAL_ERROR "${CHECK_NAME}: -D${required}=... is required")
    endif()
  endforeach()
  file(REMOVE_RECURSE "${WORK}")
  file(MAKE_DIRECTORY "${WORK}")
  foreach(name ${ARGN})
    unset(ENV{${name}})
  endforeach()
  set(ENV{CLSCAN_CACHE_DIR} "${WORK}/cache")
endmacro()

function(fail what)
  set(environment "")
  foreach(name CLSCAN_CACHE_DIR CLSCAN_NO_CACHE CLSCAN_TUNING CLSCAN_BUILD_OPTIONS CLSCAN_QUALIFY CLSCAN_PLATFORM
               CLSCAN_DEVICE)
    if(DEFINED ENV{${name}})
      string(APPEND environment " ${name}=$ENV{${name}}")
    endif()
  endforeach()
  message(FATAL_ERROR "${CHECK_NAME} (${MODE}): ${what}\n"
                      "--- command:${environment} clscan-info ${info_args}\n--- exit status: ${info_rc}\n"
                      "--- stdout:\n${info_out}\n--- stderr:\n${info_err}")
endfunction()

function(run_info)
  execute_process(COMMAND "${INFO}" ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                  TIMEOUT ${INFO_TIMEOUT})
  set(info_args "${ARGN}" PARENT_SCOPE)
  set(info_out "${out}" PARENT_SCOPE)
  set(info_err "${err}" PARENT_SCOPE)
  set(info_rc "${rc}" PARENT_SCOPE)
endfunction()

# An exact status: a crash gives a text ("Child aborted", "Segmentation fault") or a signal number.
function(expect_rc expected)
  if(NOT info_rc STREQUAL "${expected}")
    fail("exit status '${info_rc}', expected ${expected}")
  endif()
  if(info_err MATCHES "terminate called|Aborted|Segmentation fault|AddressSanitizer")
    fail("a crash on stderr")
  endif()
endfunction()

function(expect_match regex)
  if(NOT info_out MATCHES "${regex}")
    fail("stdout does not match /${regex}/")
  endif()
endfunction()

function(expect_no_match regex)
  if(info_out MATCHES "${regex}")
    fail("stdout matches /${regex}/")
  endif()
endfunction()

# `text` literally (paths hold characters that regular expressions would read).
function(expect_text text)
  string(FIND "${info_out}" "${text}" at)
  if(at EQUAL -1)
    fail("stdout lacks '${text}'")
  endif()
endfunction()

# Number of matches of `regex` in stdout; regexes here never match a ';', which would split a match.
function(count_matches var regex)
  string(REGEX MATCHALL "${regex}" matches "${info_out}")
  list(LENGTH matches n)
  set(${var} ${n} PARENT_SCOPE)
endfunction()

function(expect_count regex expected)
  count_matches(n "${regex}")
  if(NOT n EQUAL expected)
    fail("${n} matches of /${regex}/, expected ${expected}")
  endif()
endfunction()
