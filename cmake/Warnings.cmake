# Warnings are errors. The sanitizer build (CANITRUN_SANITIZE) adds ASan and UBSan.

function(canitrun_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wsign-conversion -Wnon-virtual-dtor -Werror)
  # GCC 12 at -O3 (Release) reports a false -Wrestrict inside std::string's operator+
  # (GCC bug 105329); it is not a defect in canitrun, and -Werror would stop the build.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(CANITRUN_SANITIZE)
    target_compile_options(${target} PUBLIC -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all)
    target_link_options(${target} PUBLIC -fsanitize=address,undefined)
  endif()
endfunction()
