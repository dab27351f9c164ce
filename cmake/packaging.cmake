# SPDX-License-Identifier: MIT
# Debian packages through CPack (`cpack -G DEB` in the build directory): `shaderbake` (the
# install's cli component: the tool, its man pages and bash completion) and `libshaderbake-dev` (dev: the
# headers, the CMake package and pkg-config files), both under /usr.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME shaderbake)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "shaderbake maintainers <maintainers@shaderbake.org>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)  # every install path is relative: the packages install under /usr
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/shaderbake/shaderbake")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME shaderbake)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_CLI_PACKAGE_SHLIBDEPS ON)
set(CPACK_COMPONENT_CLI_DESCRIPTION
    "bakes captured GPU states into ready shader bundles
shaderbake reads guest GPU state traces captured from real play (JSON),
deduplicates specialization keys, generates and validates SPIR-V for every
exact variant and for generic fallback shaders, and writes one compressed
bundle that a renderer maps at startup, so no draw waits for a shader
compile. Guest models: the NV2A register combiners of the original Xbox and
shaders with Vulkan specialization constants.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libshaderbake-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libzstd-dev, libxxhash-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "libvulkan-dev, pkg-config")
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "runtime headers for shaderbake bundles
The C99 headers a renderer includes to open a shaderbake bundle, look up a
ready pipeline by key (exact, then fallback, then an explicit miss), fill
Vulkan create-infos from its recipe and run the runtime router, with the
CMake package (find_package(shaderbake CONFIG)) and pkg-config files.")

# Each package's copyright and changelog (Debian policy: /usr/share/doc/PACKAGE, the changelog gzipped).
find_program(SHADERBAKE_GZIP gzip)
if(SHADERBAKE_GZIP)
  execute_process(COMMAND ${SHADERBAKE_GZIP} -9nc ${PROJECT_SOURCE_DIR}/cmake/debian/changelog
                  OUTPUT_FILE ${PROJECT_BINARY_DIR}/changelog.Debian.gz)
  foreach(component_package cli:shaderbake dev:libshaderbake-dev)
    string(REPLACE ":" ";" pair ${component_package})
    list(GET pair 0 component)
    list(GET pair 1 package)
    install(FILES ${PROJECT_SOURCE_DIR}/cmake/debian/copyright ${PROJECT_BINARY_DIR}/changelog.Debian.gz
            DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component})
  endforeach()
endif()
include(CPack)
