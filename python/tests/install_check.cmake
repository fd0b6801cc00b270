# The python-install test: `cmake --install` of the python component into a scratch prefix, then an import
# of the clscan package with only that prefix's package directory on PYTHONPATH (the module must load
# from there, with the library it links).
# Usage: cmake -DBUILD_DIR=<build> -DPREFIX=<scratch prefix> -DPACKAGE_DIR=<CLSCAN_PYTHON_INSTALL_DIR>
#              -DPYTHON=<interpreter> -DCONFIG=<config> -P install_check.cmake
if(IS_ABSOLUTE "${PACKAGE_DIR}")
  message("python-install: skipped: CLSCAN_PYTHON_INSTALL_DIR (${PACKAGE_DIR}) is absolute, outside any prefix")
  return()
endif()
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" --component python
                        --config "${CONFIG}"
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "cmake --install --component python failed (${result})")
endif()
set(package "${PREFIX}/${PACKAGE_DIR}")
foreach(file __init__.py _errors.py)
  if(NOT EXISTS "${package}/clscan/${file}")
    message(FATAL_ERROR "not installed: ${package}/clscan/${file}")
  endif()
endforeach()
execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${package}"
            "${PYTHON}" -c "import clscan, clscan._native as n; print(clscan.__version__, clscan.__file__, n.__file__)"
    WORKING_DIRECTORY "${PREFIX}" # python -c puts the working directory first on sys.path
    OUTPUT_VARIABLE imported OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE result)
string(FIND "${imported}" " ${package}/clscan/__init__.py ${package}/clscan/_native" at)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the installed package does not import (${result})")
elseif(at EQUAL -1)
  message(FATAL_ERROR "clscan was imported from elsewhere than ${package}: ${imported}")
endif()
message(STATUS "python-install: ${imported}")
