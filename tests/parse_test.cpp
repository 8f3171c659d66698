#include "canitrun/parse.hpp"
#include "catch.hpp"

using namespace canitrun;

TEST_CASE("context lengths as users write them") {
    CHECK(parse_context("262144").value() == 262144);
    CHECK(parse_context("256k").value() == 262144);
    CHECK(parse_context("32K").value() == 32768);
    CHECK(parse_context("1M").value() == 1048576);
    CHECK(parse_context("128,000").value() == 128000);
    CHECK(parse_context("1.5k").value() == 1536);
}

TEST_CASE("bad context lengths are refused with a hint") {
    for (const char* bad : {"", "abc", "12q", "-5", "0", "1.2.3", "k"}) {
        INFO(bad);
        const auto r = parse_context(bad);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == ErrorKind::bad_input);
    }
    // 10^15 tokens: absurd, refused rather than overflowed.
    CHECK_FALSE(parse_context("1000000000000000").has_value());
    CHECK_FALSE(parse_context("99999999999999999999999").has_value());
    CHECK(parse_context("1048576k").value() == (1ULL << 30));
    CHECK_FALSE(parse_context("1048577k").has_value());
}

TEST_CASE("sizes in GB") {
    CHECK(parse_gb("24").value() == 24000000000ULL);
    CHECK(parse_gb("24GB").value() == 24000000000ULL);
    CHECK(parse_gb("24 gb").value() == 24000000000ULL);
    CHECK(parse_gb("11.5").value() == 11500000000ULL);
    for (const char* bad : {"", "0", "-1", "lots", "2e9", "10000000"}) {
        INFO(bad);
        CHECK_FALSE(parse_gb(bad).has_value());
    }
}

TEST_CASE("parse_count takes whole numbers within range") {
    CHECK(parse_count("33", "-ngl", 1000) == std::uint64_t{33});
    CHECK(parse_count("0", "-ngl", 1000) == std::uint64_t{0});
    CHECK_FALSE(parse_count("3.5", "-ngl", 1000));
    CHECK_FALSE(parse_count("-1", "-ngl", 1000));
    CHECK_FALSE(parse_count("1001", "-ngl", 1000));
    CHECK(parse_count("x", "--n-cpu-moe", 10).error().message == "invalid --n-cpu-moe 'x'");
}

TEST_CASE("parse_bandwidth reads GB per second") {
    CHECK(parse_bandwidth("76.8") == 76.8);
    CHECK(parse_bandwidth("100GB/s") == 100.0);
    CHECK_FALSE(parse_bandwidth("0"));
    CHECK_FALSE(parse_bandwidth("fast"));
}
