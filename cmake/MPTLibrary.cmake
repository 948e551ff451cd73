# add_mpt_library(name sources... [DEPENDS ...] [LINK_LIBS ...])
# A static library built with MLIR's conventions but installed into mpt's own
# CMake package (MPTTargets) rather than MLIR's export set.
function(add_mpt_library name)
  add_mlir_library(${name} ${ARGN} DISABLE_INSTALL EXCLUDE_FROM_LIBMLIR)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  set_property(GLOBAL APPEND PROPERTY MPT_LIBRARIES ${name})
endfunction()

# mpt_embed_files(target file...)
# Turns each file (relative to the current source directory) into
# ${CMAKE_CURRENT_BINARY_DIR}/<file>.inc, a C++ raw string literal, at build
# time (cmake/EmbedFile.cmake), and adds `target` that builds them all: add it
# to the library's DEPENDS and #include "<file>.inc" where the text is needed.
function(mpt_embed_files target)
  set(outputs)
  foreach(input ${ARGN})
    set(output ${CMAKE_CURRENT_BINARY_DIR}/${input}.inc)
    add_custom_command(OUTPUT ${output}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${CMAKE_CURRENT_SOURCE_DIR}/${input}
              -DOUTPUT=${output} -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${input}
              ${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake
      COMMENT "Embedding ${input}"
      VERBATIM)
    list(APPEND outputs ${output})
  endforeach()
  add_custom_target(${target} DEPENDS ${outputs})
endfunction()
