# `cmake --install` yields a CMake package: find_package(MPT CONFIG) gives the
# targets MPT::MPTIR, MPT::MPTAnalysis, ... and MPT::MPTRegistration, plus the
# headers (source and generated) and mpt-opt.
include(CMakePackageConfigHelpers)
get_property(mpt_libs GLOBAL PROPERTY MPT_LIBRARIES)
install(TARGETS ${mpt_libs} EXPORT MPTTargets
  ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
install(DIRECTORY include/mpt DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td" PATTERN "CMakeLists.txt" EXCLUDE)
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/mpt DESTINATION include
  FILES_MATCHING PATTERN "*.inc" PATTERN "*.h" PATTERN "CMakeFiles" EXCLUDE)
install(EXPORT MPTTargets NAMESPACE MPT:: DESTINATION lib/cmake/mpt)
configure_package_config_file(cmake/MPTConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lib/cmake/mpt/MPTConfig.cmake
  INSTALL_DESTINATION lib/cmake/mpt)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/lib/cmake/mpt/MPTConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lib/cmake/mpt/MPTConfig.cmake
  ${PROJECT_BINARY_DIR}/lib/cmake/mpt/MPTConfigVersion.cmake
  DESTINATION lib/cmake/mpt)
