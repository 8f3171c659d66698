#include "format.hpp"
#include "catch.hpp"

using namespace canitrun;

TEST_CASE("GB with one decimal - two below 1 GB - halves up") {
    CHECK(format_gb(24065604819ULL) == "24.1 GB");
    CHECK(format_gb(24050000000ULL) == "24.1 GB");
    CHECK(format_gb(24049999999ULL) == "24.0 GB");
    CHECK(format_gb(167772160ULL) == "0.17 GB");
    CHECK(format_gb(140000000000ULL) == "140.0 GB");
    CHECK(format_gb(0) == "0.00 GB");
}

TEST_CASE("GiB says GiB") {
    CHECK(format_gib(1ULL << 30) == "1.00 GiB");
}

TEST_CASE("MiB says MiB, two decimals as llama.cpp logs them") {
    CHECK(format_mib(1ULL << 20) == "1.00 MiB");
    // 1,258,291 bytes = 1.2000 MiB (1.2 x 1,048,576 = 1,258,291.2)
    CHECK(format_mib(1258291ULL) == "1.20 MiB");
    CHECK(format_mib(0) == "0.00 MiB");
}

TEST_CASE("contexts - thousands - params") {
    CHECK(format_context(8192) == "8k");
    CHECK(format_context(262144) == "256k");
    CHECK(format_context(1048576) == "1M");
    CHECK(format_context(1000) == "1,000");
    CHECK(format_thousands(262144) == "262,144");
    CHECK(format_params(35000000000ULL) == "35B");
    CHECK(format_params(3300000000ULL) == "3.3B");
    CHECK(format_params(600000000ULL) == "600M");
}

TEST_CASE("vLLM's fractions: two decimals from a percentage") {
    CHECK(format_fraction(90) == "0.90");
    CHECK(format_fraction(5) == "0.05");
    CHECK(format_fraction(100) == "1.00");
    CHECK(format_fraction(85) == "0.85");
}

TEST_CASE("a plan's context names its sequences") {
    CHECK(canitrun::format_plan_context(32768, 1) == "32k");
    CHECK(canitrun::format_plan_context(262144, 8) == "8 x 32k");
}

TEST_CASE("a or an before a number as it is read aloud") {
    CHECK(article_for("8") == "an");     // eight
    CHECK(article_for("80") == "an");    // eighty
    CHECK(article_for("11") == "an");    // eleven
    CHECK(article_for("18") == "an");    // eighteen
    CHECK(article_for("1100") == "an");  // eleven hundred
    CHECK(article_for("12") == "a");
    CHECK(article_for("24") == "a");
    CHECK(article_for("110") == "a");  // a hundred and ten
    CHECK(article_for("1") == "a");
}
