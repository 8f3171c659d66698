# `cmake --install`: the canitrun binary, its shell completions and man page (component `cli`),
# and the core library with its headers as a CMake package (component `dev`):
#   find_package(canitrun CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE canitrun::core)       # or canitrun::snapshot, which
#                                                           # adds the built-in database snapshot
# CPack builds a Debian package of the `cli` component: `cpack -G DEB` in the build folder.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS canitrun RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(FILES ${CMAKE_SOURCE_DIR}/completions/canitrun.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME canitrun COMPONENT cli)
install(FILES ${CMAKE_SOURCE_DIR}/completions/_canitrun
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions COMPONENT cli)
install(FILES ${CMAKE_SOURCE_DIR}/completions/canitrun.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d COMPONENT cli)
install(FILES ${CMAKE_SOURCE_DIR}/docs/canitrun.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli)

set(CANITRUN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/canitrun)
set_target_properties(canitrun_core PROPERTIES EXPORT_NAME core)
set_target_properties(canitrun_snapshot PROPERTIES EXPORT_NAME snapshot)
install(TARGETS canitrun_core canitrun_snapshot EXPORT canitrunTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/canitrun
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.hpp")
install(EXPORT canitrunTargets NAMESPACE canitrun:: DESTINATION ${CANITRUN_CMAKE_DIR}
        COMPONENT dev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/canitrunConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/canitrunConfig.cmake
                              INSTALL_DESTINATION ${CANITRUN_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/canitrunConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/canitrunConfig.cmake
              ${CMAKE_BINARY_DIR}/canitrunConfigVersion.cmake
        DESTINATION ${CANITRUN_CMAKE_DIR} COMPONENT dev)

# The .deb: the command line tool only (binary, completions, man page).
set(CPACK_PACKAGE_NAME canitrun)
set(CPACK_PACKAGE_VENDOR canitrun)
set(CPACK_PACKAGE_CONTACT "canitrun maintainers <canitrun@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "can my GPU run this LLM, at which quantization and context length")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME canitrun)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/canitrun/canitrun")
# fmt is compiled in (header-only) and, by default, the C++ runtime too (CMakeLists.txt says
# why); libcurl is opened by its ABI name on the first HTTP request, so either Debian package
# that carries libcurl.so.4 serves.
if(CANITRUN_STATIC_CXX_RUNTIME AND NOT CANITRUN_SANITIZE AND NOT CANITRUN_FUZZ)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libcurl4 (>= 7.85) | libcurl4t64")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libc6 (>= 2.34), libstdc++6 (>= 12), libgcc-s1, libcurl4 (>= 7.85) | libcurl4t64")
endif()
# canitrun-serve (when built) links Debian's cpp-httplib and the shared C++ runtime it was built
# against; canitrun itself does not, so only `canitrun serve` needs them.
if(TARGET canitrun-serve)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libcpp-httplib0.11, libstdc++6 (>= 12)")
endif()
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
include(CPack)
