# Every dependency comes from Debian's packages. A missing one fails configure with the
# package to install.

macro(canitrun_require package target debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT TARGET ${target})
    message(FATAL_ERROR
      "canitrun needs ${package} (CMake target ${target}). Install it with:\n"
      "  apt-get install ${debian_package}")
  endif()
endmacro()

canitrun_require(fmt fmt::fmt-header-only libfmt-dev)
canitrun_require(nlohmann_json nlohmann_json::nlohmann_json nlohmann-json3-dev)
canitrun_require(CLI11 CLI11::CLI11 libcli11-dev)
canitrun_require(CURL CURL::libcurl libcurl4-openssl-dev)
find_package(Threads REQUIRED)
if(CANITRUN_BUILD_TESTS)
  find_package(Catch2 3 QUIET)
  if(NOT TARGET Catch2::Catch2)
    find_package(Catch2 2 QUIET)
  endif()
  if(NOT TARGET Catch2::Catch2)
    message(FATAL_ERROR "canitrun's tests need Catch2. Install it with:\n  apt-get install catch2\n"
                        "or configure with -DCANITRUN_BUILD_TESTS=OFF")
  endif()
endif()
