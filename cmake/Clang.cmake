# Building with clang (the fuzz build, and clang-tidy, which parses with clang).
#
# libstdc++ 12 (Debian 12) offers <expected> only when __cpp_concepts >= 202002L. Clang 16
# implements what it needs (P0848, conditionally trivial special members) but still reports
# 201907L, so <expected> would be empty. Raise the macro for clang 16 to 18 with libstdc++;
# clang 14 lacks P0848 and cannot build canitrun. The same two flags are in .clang-tidy.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  if(CMAKE_CXX_COMPILER_VERSION VERSION_LESS 16)
    message(FATAL_ERROR "canitrun needs clang 16 or later (std::expected); "
                        "apt-get install clang-16 and configure with CXX=clang++-16")
  endif()
  if(CMAKE_CXX_COMPILER_VERSION VERSION_LESS 19)
    add_compile_options(-U__cpp_concepts -D__cpp_concepts=202002L)
  endif()
endif()

if(CANITRUN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "CANITRUN_FUZZ needs clang (libFuzzer): apt-get install clang-16 "
                        "libclang-rt-16-dev and configure with CXX=clang++-16")
  endif()
  # The sanitizers on every object. Line tables are what a sanitizer's stack trace needs; full
  # debug info made CI's sanitizer build about 10 % slower to compile and link.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -gline-tables-only)
  add_link_options(-fsanitize=address,undefined)
  # libFuzzer's coverage only where the fuzz targets run code: the core (canitrun_fuzz_coverage)
  # and the targets themselves. The tests and the CLI, which no fuzz target links, compiled
  # about 30 % slower with it (bench/RESULTS.md); in the test binaries the core's coverage
  # hooks are the sanitizer runtime's no-ops.
  set(CANITRUN_FUZZ_COVERAGE -fsanitize=fuzzer-no-link)
endif()
function(canitrun_fuzz_coverage target)
  if(CANITRUN_FUZZ)
    target_compile_options(${target} PRIVATE ${CANITRUN_FUZZ_COVERAGE})
  endif()
endfunction()
