#pragma once
// Debian 12 ships Catch2 v2 (one header); newer systems ship v3. Tests include this.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
