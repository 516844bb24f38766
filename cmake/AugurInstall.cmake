# Install rules and the package config that makes find_package(augur) work from
# both the build tree and an install prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS augur EXPORT augurTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/jit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(AUGUR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/augur)
install(EXPORT augurTargets NAMESPACE augur:: DESTINATION ${AUGUR_CMAKE_DIR})
export(EXPORT augurTargets NAMESPACE augur:: FILE ${PROJECT_BINARY_DIR}/augurTargets.cmake)

configure_package_config_file(cmake/augurConfig.cmake.in
  ${PROJECT_BINARY_DIR}/augurConfig.cmake INSTALL_DESTINATION ${AUGUR_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/augurConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/augurConfig.cmake ${PROJECT_BINARY_DIR}/augurConfigVersion.cmake
  DESTINATION ${AUGUR_CMAKE_DIR})
