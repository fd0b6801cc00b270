# The single-pass qualification (lib/dispatch/qualify.cpp), through clscan-info (tests/cmake/qualify_check.cmake);
# only where the tools are built (the TSan build has none).
if(NOT TARGET clscan-info)
  return()
endif()
foreach(mode stored wrong-kernel fifo old-rusticl)
  add_test(NAME qualify-${mode}
           COMMAND ${CMAKE_COMMAND} -DINFO=$<TARGET_FILE:clscan-info> -DMODE=${mode}
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/qualify-check/${mode}
                   -P ${CMAKE_CURRENT_LIST_DIR}/qualify_check.cmake)
  set_tests_properties(qualify-${mode} PROPERTIES LABELS "qualify" TIMEOUT 600
      SKIP_REGULAR_EXPRESSION "qualify: skipped:")
endforeach()
set_tests_properties(qualify-old-rusticl PROPERTIES LABELS "qualify;rusticl")
