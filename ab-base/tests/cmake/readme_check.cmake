# Checks that README.md shows what the project really runs (label hygiene):
#   - its Usage code block is tools/clscan_demo.cpp word for word;
#   - its C API code block is tests/package/c_consumer/main.c word for word;
#   - its ```python block is python/example.py word for word;
#   - its second quick-start command is the command in .ci/run.
# Usage: cmake -DSOURCE_DIR=<clscan checkout> -P readme_check.cmake
file(READ "${SOURCE_DIR}/README.md" readme)
file(READ "${SOURCE_DIR}/tools/clscan_demo.cpp" demo)
string(FIND "${readme}" "```cpp\n${demo}```\n" demo_at)
if(demo_at EQUAL -1)
  message(FATAL_ERROR "README.md has no ```cpp block equal to tools/clscan_demo.cpp; copy the file into "
                      "the Usage section again")
endif()

file(READ "${SOURCE_DIR}/tests/package/c_consumer/main.c" c_example)
string(FIND "${readme}" "```c\n${c_example}```\n" c_example_at)
if(c_example_at EQUAL -1)
  message(FATAL_ERROR "README.md has no ```c block equal to tests/package/c_consumer/main.c; copy the file "
                      "into the C API section again")
endif()

file(READ "${SOURCE_DIR}/python/example.py" python_example)
string(FIND "${readme}" "```python\n${python_example}```\n" python_example_at)
if(python_example_at EQUAL -1)
  message(FATAL_ERROR "README.md has no ```python block equal to python/example.py; copy the file into "
                      "the Python section again")
endif()

file(STRINGS "${SOURCE_DIR}/.ci/run" ci_lines REGEX "^apt-get ")
list(LENGTH ci_lines ci_count)
if(NOT ci_count EQUAL 1)
  message(FATAL_ERROR ".ci/run should hold exactly one command line starting with apt-get, found ${ci_count}")
endif()
string(FIND "${readme}" "   ${ci_lines}\n" ci_at)
if(ci_at EQUAL -1)
  message(FATAL_ERROR "README.md's quick start does not hold .ci/run's command:\n${ci_lines}")
endif()
message(STATUS "README.md: the Usage block is tools/clscan_demo.cpp, the C API block "
               "tests/package/c_consumer/main.c, the Python block python/example.py, and the quick start "
               "holds .ci/run")
