# SPDX-License-Identifier: MIT
# `cmake --install`: the shaderbake tool, the runtime headers under include/shaderbake/, the CMake package
# (find_package(shaderbake CONFIG) -> shaderbake::runtime) and the pkg-config files shaderbake.pc and
# shaderbake-vulkan.pc, both under share/. Components: cli (the tool) and dev (headers, package files).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS shaderbake RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(FILES runtime_loader/shaderbake.h runtime_loader/shaderbake_nv2a.h runtime_loader/shaderbake_specconst.h
              runtime_loader/shaderbake_spirv.h runtime_loader/shaderbake_vulkan.h runtime_loader/shaderbake_router.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/shaderbake COMPONENT dev)

foreach(dir CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_DATADIR)
  if(IS_ABSOLUTE "${${dir}}")
    message(FATAL_ERROR "${dir} must be relative to the prefix (the package files find the prefix from where they lie)")
  endif()
endforeach()
# The package files are the same on every architecture (headers only; the libraries are found where the
# consumer builds): under share/, where find_package and pkg-config look too, and libshaderbake-dev is
# Architecture: all.
set(package_dir ${CMAKE_INSTALL_DATADIR}/cmake/shaderbake)
configure_package_config_file(cmake/shaderbakeConfig.cmake.in ${PROJECT_BINARY_DIR}/shaderbakeConfig.cmake
                              INSTALL_DESTINATION ${package_dir} PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a minor version may change the headers' API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/shaderbakeConfigVersion.cmake COMPATIBILITY SameMinorVersion
                                 ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/shaderbakeConfig.cmake ${PROJECT_BINARY_DIR}/shaderbakeConfigVersion.cmake
        DESTINATION ${package_dir} COMPONENT dev)

# Relocatable: the prefix is found from where the .pc file lies (an install with --prefix, a package in /usr).
file(RELATIVE_PATH SHADERBAKE_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_DATADIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" SHADERBAKE_PC_TO_PREFIX "${SHADERBAKE_PC_TO_PREFIX}")
configure_file(cmake/shaderbake.pc.in ${PROJECT_BINARY_DIR}/shaderbake.pc @ONLY)
configure_file(cmake/shaderbake-vulkan.pc.in ${PROJECT_BINARY_DIR}/shaderbake-vulkan.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/shaderbake.pc ${PROJECT_BINARY_DIR}/shaderbake-vulkan.pc
        DESTINATION ${CMAKE_INSTALL_DATADIR}/pkgconfig COMPONENT dev)

# Man pages (help2man over the tool's own --help: shaderbake(1) and shaderbake-COMMAND(1), gzipped as Debian
# installs them) and the bash completion (its commands and options read from the same help), with the tool.
# Dated by the last commit, so the same sources give the same pages.
find_program(SHADERBAKE_HELP2MAN help2man)
find_program(SHADERBAKE_GZIP gzip)  # generate_man_pages.sh gzips the pages
find_package(Python3 COMPONENTS Interpreter)
execute_process(COMMAND git -C ${PROJECT_SOURCE_DIR} log -1 --format=%ct OUTPUT_VARIABLE shaderbake_source_date
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT shaderbake_source_date)
  set(shaderbake_source_date 0)
endif()
set(man_dir ${PROJECT_BINARY_DIR}/man)
if(SHADERBAKE_HELP2MAN AND SHADERBAKE_GZIP)
  add_custom_command(
    OUTPUT ${man_dir}/shaderbake.1.gz
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${man_dir}
    COMMAND ${CMAKE_COMMAND} -E env SOURCE_DATE_EPOCH=${shaderbake_source_date}
            ${PROJECT_SOURCE_DIR}/cmake/generate_man_pages.sh $<TARGET_FILE:shaderbake> ${man_dir} ${PROJECT_VERSION}
    DEPENDS shaderbake ${PROJECT_SOURCE_DIR}/cmake/generate_man_pages.sh
    COMMENT "Man pages from shaderbake --help")
  add_custom_target(shaderbake_man_pages ALL DEPENDS ${man_dir}/shaderbake.1.gz)
  install(DIRECTORY ${man_dir}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli FILES_MATCHING PATTERN "*.1.gz")
else()
  message(STATUS "help2man or gzip not found: no man pages (scripts/setup installs help2man)")
endif()
if(Python3_Interpreter_FOUND)
  add_custom_command(
    OUTPUT ${PROJECT_BINARY_DIR}/completion/shaderbake
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/completion
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/generate_completion.py $<TARGET_FILE:shaderbake>
            ${PROJECT_BINARY_DIR}/completion/shaderbake
    DEPENDS shaderbake ${PROJECT_SOURCE_DIR}/cmake/generate_completion.py
    COMMENT "bash completion from shaderbake --help")
  add_custom_target(shaderbake_completion ALL DEPENDS ${PROJECT_BINARY_DIR}/completion/shaderbake)
  install(FILES ${PROJECT_BINARY_DIR}/completion/shaderbake DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          COMPONENT cli)
endif()
