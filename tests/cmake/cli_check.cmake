# Hostile command lines for clscan's tools (tests/cmake/tools.cmake, label "tools"): every numeric flag
# rejects what is not a number in range (text, negative, overflowing, trailing garbage) with a message
# naming the flag and the text as written and exit status 2, never a crash ("terminate called");
# clscan-tune refuses to store a tuning measured at a size too small to mean anything, before it
# measures; clscan-bench's error rows make its exit status 1, and its --primitive names only what it
# knows; clscan-demo and clscan-host-cost have a --help and take no arguments.
#
#   cmake -DTOOL=<program> -DNAME=<clscan-tune|clscan-bench|clscan-demo|clscan-host-cost|clscan-info>
#         -DWORK=<scratch dir>
#         -P cli_check.cmake
#
# WORK is emptied first and is the tool's CLSCAN_CACHE_DIR.
foreach(required TOOL NAME WORK)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "cli_check: -D${required}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/cache")
foreach(name CLSCAN_NO_CACHE CLSCAN_TUNING CLSCAN_BUILD_OPTIONS CLSCAN_LOG)
  unset(ENV{${name}})
endforeach()
set(ENV{CLSCAN_CACHE_DIR} "${WORK}/cache")

function(run)
  execute_process(COMMAND "${TOOL}" ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                  TIMEOUT 240)
  set(args "${ARGN}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
  set(rc "${rc}" PARENT_SCOPE)
endfunction()

# Its own run, fail and expect, not info_run.cmake's: these run every program, not clscan-info, and
# look at stderr.
function(fail what)
  message(FATAL_ERROR "cli_check (${NAME}): ${what}\n--- command: ${NAME} ${args}\n--- exit status: ${rc}\n"
                      "--- stdout:\n${out}\n--- stderr:\n${err}")
endfunction()

# Exit status `expected`, no crash, and `text` (literally) on stderr.
function(expect expected text)
  if(NOT rc STREQUAL "${expected}")
    fail("exit status '${rc}', expected ${expected}")
  endif()
  if(err MATCHES "terminate called|Aborted|Segmentation fault|AddressSanitizer|runtime error")
    fail("a crash on stderr")
  endif()
  string(FIND "${err}" "${text}" at)
  if(at EQUAL -1)
    fail("stderr does not hold '${text}'")
  endif()
endfunction()

# A usage error for `flag` `value`: exit status 2, and the message quotes both, as written.
function(expect_rejected flag value)
  run(${ARGN} ${flag} "${value}")
  expect(2 "${NAME}: ${flag}: '${value}' ")
endfunction()

if(NAME STREQUAL "clscan-tune")
  foreach(flag --size --reps)
    foreach(value abc 2^ 1x -5 " 7" 7.5 0x10 99999999999999999999999 2^99 2^64+1)
      expect_rejected(${flag} "${value}")
    endforeach()
  endforeach()
  expect_rejected(--reps 0)
  expect_rejected(--reps 100001)
  expect_rejected(--size 0)
  expect_rejected(--size 2^20-2^10) # an offset is a plain number
  run(--size)
  expect(2 "${NAME}: --size needs a value")
  run(--type abc)
  expect(2 "${NAME}: --type: unknown 'abc'")
  # Sizes that parse but are far below 4 tiles of the largest shape on any device: refused before
  # anything is measured, and no tuning file is written. (--size 1x used to be read as 1 and stored.)
  # The message shows the size as read, so the same runs check the count syntax: "text=elements".
  foreach(case 1=1 1000=1000 1K=1024 1k=1024 2^10-1=1023 2^9+3=515 0010=10)
    string(REPLACE "=" ";" case "${case}")
    list(GET case 0 size)
    list(GET case 1 elements)
    run(--size ${size} --reps 1)
    expect(2 "${NAME}: not storing a tuning measured at ${elements} elements (--size ${size})")
    if(out MATCHES "fastest|stored in")
      fail("it measured or stored before refusing")
    endif()
    file(GLOB tunings "${WORK}/cache/tuning-*")
    if(tunings)
      fail("a tuning file was written: ${tunings}")
    endif()
  endforeach()

elseif(NAME STREQUAL "clscan-bench")
  foreach(value abc 2^ 1x -5 7.5 99999999999999999999999 99999999999999999999K 2^99 2^49 2^10-2000)
    expect_rejected(--sizes "${value}")
  endforeach()
  # In a list, the message quotes the item that is wrong.
  run(--sizes "1,-5")
  expect(2 "${NAME}: --sizes: '-5' is negative")
  run(--sizes "2^10, 3x ,5")
  expect(2 "${NAME}: --sizes: '3x' is not a count")
  # A flag given twice is refused, not resolved last-wins.
  run(--sizes 2^10 --reps 1 --reps 2)
  expect(2 "${NAME}: --reps is given twice")
  # An empty item is a typo, not a size to skip.
  foreach(value "1,,2" "5," ",5")
    run(--sizes "${value}" --reps 1)
    expect(2 "${NAME}: --sizes: '${value}' has an empty item")
  endforeach()
  foreach(value abc -1 0 5x 100001 1e3)
    expect_rejected(--reps "${value}")
  endforeach()
  # 0 elements has nothing to time (only --smoke takes it).
  run(--sizes 2^10,0)
  expect(2 "${NAME}: --sizes: '2^10,0': a size of 0 elements")
  # --primitive: an unknown name (alone or in a list) and flags that do not apply to the primitives
  # chosen are usage errors, before anything is measured.
  foreach(value bogus "select,bogus" "" Select)
    run(--primitive "${value}" --sizes 1000 --reps 2)
    expect(2 "${NAME}: --primitive: unknown '")
    if(NOT err MATCHES "\\(scan, select, partition, unique, by_key, reduce, sort, sort_by_key, reduce_by_key, all\\)" OR out MATCHES "verified|ok")
      fail("the names offered are missing, or it measured anyway")
    endif()
  endforeach()
  run(--help)
  expect(0 "")
  if(NOT out MATCHES "\n  --primitive P  ")
    fail("--help does not describe --primitive")
  endif()
  run(--primitive select --sizes 1000 --op max)
  expect(2 "${NAME}: --op applies to --primitive scan, by_key, reduce and reduce_by_key only")
  run(--primitive select,unique --sizes 1000 --kind exclusive)
  expect(2 "${NAME}: --kind applies to --primitive scan and by_key only")
  run(--primitive by_key --first-call)
  expect(2 "${NAME}: --first-call measures scans only (--primitive scan)")
  # Flags that --first-call would ignore, and two output formats, are refused rather than dropped.
  foreach(flags "--sizes;2^12" "--reps;3" "--smoke" "--progress")
    run(--first-call ${flags})
    expect(2 "${NAME}: --first-call measures one scan of 2^16 elements: --sizes, --reps, --smoke and --progress do not apply")
  endforeach()
  run(--sizes 1000 --csv --json)
  expect(2 "${NAME}: --csv and --json: one output format only")
  # A size no device can hold in one buffer is an error row, and an error row fails the run.
  run(--sizes 2^40 --reps 1)
  expect(1 "")
  if(NOT out MATCHES "\n0 verified, 0 FAILED, 1 errors\n" OR NOT out MATCHES "\n2\\^40 +int +sum +automatic +error: 2\\^40 elements of int take 4398046511104 bytes, more than")
    fail("no error row for 2^40")
  endif()
  run(--sizes 2^40 --reps 1 --csv)
  expect(1 "clscan-bench: error n=1099511627776 automatic: ")
  run(--primitive by_key --sizes 2^40 --reps 1 --csv)
  expect(1 "clscan-bench: error n=1099511627776 by_key automatic: ")

elseif(NAME STREQUAL "clscan-demo")
  run(--help)
  expect(0 "")
  if(NOT out MATCHES "^usage: clscan-demo" OR out MATCHES "scanned")
    fail("--help did not print the usage alone")
  endif()
  run(--no-such-option)
  expect(2 "clscan-demo: unknown option '--no-such-option'")
  run(extra)
  expect(2 "clscan-demo: unexpected argument 'extra'")
  if(out MATCHES "scanned")
    fail("the demo ran despite a bad command line")
  endif()

elseif(NAME STREQUAL "clscan-host-cost")
  run(--help)
  expect(0 "")
  if(NOT out MATCHES "^usage: clscan-host-cost" OR out MATCHES " us\n")
    fail("--help did not print the usage alone")
  endif()
  run(--bogus)
  expect(2 "clscan-host-cost: unknown option '--bogus'")
  run(extra)
  expect(2 "clscan-host-cost: unexpected argument 'extra'")
  if(out MATCHES " us\n")
    fail("it measured despite a bad command line")
  endif()

elseif(NAME STREQUAL "clscan-info")
  # No numeric flags; options it does not know, or without their value, are refused.
  run(--no-such-option)
  expect(2 "clscan-info: unknown option '--no-such-option'")
  run(--self-test --algorithm)
  expect(2 "clscan-info: --algorithm needs a value")
  run(--self-test --algorithm abc)
  expect(2 "clscan-info: unknown algorithm 'abc'")
  run(--self-test --algorithm single_pass,)
  expect(2 "clscan-info: --algorithm: 'single_pass,' has an empty item")
  run(--self-test --algorithm all --algorithm=single_pass)
  expect(2 "clscan-info: --algorithm is given twice")
  run(--self-test --calls ,scans)
  expect(2 "clscan-info: --calls: ',scans' has an empty item")

else()
  message(FATAL_ERROR "cli_check: unknown NAME '${NAME}'")
endif()
message(STATUS "cli_check (${NAME}): passed")
