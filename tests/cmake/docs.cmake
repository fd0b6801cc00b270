# Label docs: the documentation's generated tables and its voice.
# docs-tables: every table of docs/PERFORMANCE.md and docs/SCALING.md is what docs/data/tables.py makes
# of its CSV in docs/data. docs-story: no file of the checkout tells the story of its making
# (tests/cmake/story_check.cmake).
find_program(CLSCAN_PYTHON3 NAMES python3)
if(CLSCAN_PYTHON3)
  add_test(NAME docs-tables COMMAND ${CLSCAN_PYTHON3} ${PROJECT_SOURCE_DIR}/docs/data/tables.py --check)
else()
  add_test(NAME docs-tables COMMAND ${CMAKE_COMMAND} -E echo "docs-tables: skipped: no python3")
endif()
set_tests_properties(docs-tables PROPERTIES LABELS "docs" TIMEOUT 60 SKIP_REGULAR_EXPRESSION "docs-tables: skipped:")
add_test(NAME docs-story COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                                 -P ${CMAKE_CURRENT_LIST_DIR}/story_check.cmake)
set_tests_properties(docs-story PROPERTIES LABELS "docs" TIMEOUT 60)
