// What a start of the binary loads: no network library. libcurl and its ~30 libraries cost
// about as much as a whole query to load (bench/RESULTS.md), so they are opened on the first
// HTTP request (src/net/curl_library.cpp) and a plain query never pays for them. The dynamic
// loader lists what it would load (LD_TRACE_LOADED_OBJECTS, as ldd does) without running main.

#include "catch.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::run_canitrun;

TEST_CASE("startup: the binary loads libc and no libcurl until a remote model is read") {
    const auto traced = run_canitrun({"--version"}, {"LD_TRACE_LOADED_OBJECTS=1"});
    REQUIRE(traced.code == 0);
    CHECK(has(traced.out, "libc.so"));  // the loader did list the libraries
    CHECK_FALSE(has(traced.out, "libcurl"));
    CHECK_FALSE(has(traced.out, "libssl"));
}
