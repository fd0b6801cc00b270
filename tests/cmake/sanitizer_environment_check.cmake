# Checks that the ICD vendor list the sanitizer runs give the OpenCL loader (OCL_ICD_VENDORS, VENDORS)
# is one that every user can read: the cache tests run the probe as user nobody, and a list that user
# cannot read leaves it without any OpenCL platform. A path inside this checkout or its build tree
# (TREES, "|"-separated) is refused whatever its mode bits are here: a clone under /root (0700) puts it
# out of that user's reach. The *SAN_OPTIONS files (suppressions) are in the checkout on purpose: the
# tests that start a child as another user copy them (tests/unit/cache_directory.cpp).
# Usage: cmake -DVENDORS=... -DTREES=... -P sanitizer_environment_check.cmake
cmake_minimum_required(VERSION 3.16)
if(VENDORS STREQUAL "")
  message(FATAL_ERROR "OCL_ICD_VENDORS is empty: the loader would see every installed implementation")
endif()
# ocl-icd's rules: a name without a slash that ends in .icd is a file of the vendor directory.
if(NOT VENDORS MATCHES "/")
  if(DEFINED ENV{OPENCL_VENDOR_PATH} AND NOT "$ENV{OPENCL_VENDOR_PATH}" STREQUAL "")
    set(path "$ENV{OPENCL_VENDOR_PATH}/${VENDORS}")
  else()
    set(path "/etc/OpenCL/vendors/${VENDORS}")
  endif()
else()
  set(path "${VENDORS}")
endif()
message(STATUS "OCL_ICD_VENDORS=${VENDORS}: ${path}")
get_filename_component(real "${path}" REALPATH)
string(REPLACE "|" ";" trees "${TREES}")
foreach(tree IN LISTS trees)
  get_filename_component(tree "${tree}" REALPATH)
  string(FIND "${real}/" "${tree}/" at)
  if(at EQUAL 0)
    message(FATAL_ERROR "OCL_ICD_VENDORS names ${real}, inside ${tree}: user nobody cannot read it "
                        "where the checkout is under a directory of mode 0700 (/root)")
  endif()
endforeach()
if(NOT EXISTS "${real}")
  message(FATAL_ERROR "${path} does not exist: the sanitizer runs would find no OpenCL platform "
                      "(Debian: pocl-opencl-icd)")
endif()
# Every directory above it must let others through, and the file (or directory) let them read.
set(at "${real}")
set(need "r")
while(TRUE)
  execute_process(COMMAND stat -L -c %A "${at}" OUTPUT_VARIABLE mode OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "stat ${at} failed")
  endif()
  string(SUBSTRING "${mode}" 7 3 others)
  if(need STREQUAL "r" AND NOT others MATCHES "^r")
    message(FATAL_ERROR "${at} is not readable by other users (${mode})")
  endif()
  if(IS_DIRECTORY "${at}" AND NOT others MATCHES "^..x")
    message(FATAL_ERROR "${at} cannot be entered by other users (${mode}), so ${real} cannot be read")
  endif()
  if(at STREQUAL "/")
    break()
  endif()
  get_filename_component(at "${at}" DIRECTORY)
  set(need "x")
endwhile()
message(STATUS "${real}: readable by every user")
