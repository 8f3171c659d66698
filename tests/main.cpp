#if __has_include(<catch2/catch_all.hpp>)
// Catch2 v3 brings its own main (Catch2::Catch2WithMain).
#else
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
