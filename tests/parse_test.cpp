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

TEST_CASE("parse_positive_count: a count of at least 1, within range") {
    CHECK(parse_positive_count("512", "--ubatch", 1U << 20) == std::uint64_t{512});
    CHECK(parse_positive_count("1", "--parallel", 256) == std::uint64_t{1});
    CHECK(parse_positive_count("256", "--parallel", 256) == std::uint64_t{256});
    CHECK(parse_positive_count("0", "--ubatch", 1U << 20).error().message ==
          "--ubatch 0 is out of range");
    CHECK(parse_positive_count("257", "--parallel", 256).error().message ==
          "--parallel 257 is out of range");
    CHECK(parse_positive_count("x", "--parallel", 256).error().message == "invalid --parallel 'x'");
}

TEST_CASE("parse_margin_mib: MiB kept free, as bytes") {
    CHECK(parse_margin_mib("1024") == std::uint64_t{1073741824});  // 1024 x 2^20
    CHECK(parse_margin_mib("0") == std::uint64_t{0});
    CHECK(parse_margin_mib("1048576") == std::uint64_t{1} << 40);  // 1 TiB, the most
    CHECK(parse_margin_mib("1048577").error().message == "bad --margin value '1048577'");
    CHECK_FALSE(parse_margin_mib("-1"));
    CHECK_FALSE(parse_margin_mib("1.5"));
}

TEST_CASE("parse_utilization_pct: a fraction above 0 and at most 1, as a percentage") {
    CHECK(parse_utilization_pct("0.9") == std::uint64_t{90});
    CHECK(parse_utilization_pct(".85") == std::uint64_t{85});
    CHECK(parse_utilization_pct("1") == std::uint64_t{100});
    CHECK(parse_utilization_pct("1.00") == std::uint64_t{100});
    CHECK(parse_utilization_pct("0.05") == std::uint64_t{5});
    for (const char* bad : {"0", "0.0", "1.01", "2", "0.905", "", ".", "x", "-0.5", "10"}) {
        INFO(bad);
        CHECK_FALSE(parse_utilization_pct(bad));
    }
}
