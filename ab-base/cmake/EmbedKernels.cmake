# Embeds OpenCL C kernel files into a generated C++ source, so the library carries its kernels and
# compiles them at run time. The generated file is rebuilt whenever one of the .cl files changes.
#
# clscan_embed_kernels(OUTPUT <generated.cpp> SOURCES <file.cl>...)
set(CLSCAN_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_kernels_script.cmake)

function(clscan_embed_kernels)
  cmake_parse_arguments(ARG "" "OUTPUT" "SOURCES" ${ARGN})
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${ARG_OUTPUT} "-DSOURCES=${ARG_SOURCES}" -P ${CLSCAN_EMBED_SCRIPT}
    DEPENDS ${ARG_SOURCES} ${CLSCAN_EMBED_SCRIPT}
    COMMENT "Embedding OpenCL kernels"
    VERBATIM)
endfunction()
