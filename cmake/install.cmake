# SPDX-License-Identifier: MIT
# `cmake --install`: the shaderbake tool, the runtime headers under include/shaderbake/, the CMake package
# (find_package(shaderbake CONFIG) -> shaderbake::runtime) and the pkg-config files shaderbake.pc and
# shaderbake-vulkan.pc. Components: cli (the tool) and dev (headers, package files).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS shaderbake RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(FILES runtime_loader/shaderbake.h runtime_loader/shaderbake_nv2a.h runtime_loader/shaderbake_specconst.h
              runtime_loader/shaderbake_spirv.h runtime_loader/shaderbake_vulkan.h runtime_loader/shaderbake_router.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/shaderbake COMPONENT dev)

set(package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/shaderbake)
configure_package_config_file(cmake/shaderbakeConfig.cmake.in ${PROJECT_BINARY_DIR}/shaderbakeConfig.cmake
                              INSTALL_DESTINATION ${package_dir} PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a minor version may change the headers' API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/shaderbakeConfigVersion.cmake COMPATIBILITY SameMinorVersion
                                 ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/shaderbakeConfig.cmake ${PROJECT_BINARY_DIR}/shaderbakeConfigVersion.cmake
        DESTINATION ${package_dir} COMPONENT dev)

# Relocatable: the prefix is found from where the .pc file lies (an install with --prefix, a package in /usr).
file(RELATIVE_PATH SHADERBAKE_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" SHADERBAKE_PC_TO_PREFIX "${SHADERBAKE_PC_TO_PREFIX}")
configure_file(cmake/shaderbake.pc.in ${PROJECT_BINARY_DIR}/shaderbake.pc @ONLY)
configure_file(cmake/shaderbake-vulkan.pc.in ${PROJECT_BINARY_DIR}/shaderbake-vulkan.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/shaderbake.pc ${PROJECT_BINARY_DIR}/shaderbake-vulkan.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
