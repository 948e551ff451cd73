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
