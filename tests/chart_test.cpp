// The terminal chart: its axis step, its size, and its two forms (Braille and ASCII).

#include "chart.hpp"

#include "catch.hpp"

using namespace canitrun;
using namespace canitrun::cli;

namespace {

std::vector<KvCurvePoint> line(std::uint64_t window, Bytes own_per_token, Bytes twin_per_token) {
    std::vector<KvCurvePoint> out;
    for (const auto c : kv_curve_contexts(window)) {
        out.push_back({c, own_per_token * c, twin_per_token * c, 0, 0});
    }
    return out;
}

// Display columns of a UTF-8 line (every character here is one column wide).
std::size_t columns(const std::string& s) {
    std::size_t n = 0;
    for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    return n;
}

}  // namespace

TEST_CASE("chart: the y step is the reference page's for its chart") {
    // The page's chart of 21.5 GB at most is labelled 0, 6, 12, 18, 24 GB.
    CHECK(chart_step(21474836480.0) == Approx(6e9));
    // 5.4 GB over four steps is 1.34 GB a step; the next nice step is 2 GB (0 to 8 GB).
    CHECK(chart_step(5368709120.0) == Approx(2e9));
    CHECK(chart_step(100e9) == Approx(25e9));
    CHECK(chart_step(0) == 1);
}

TEST_CASE("chart: Braille at the terminal's width, both series labelled at their ends") {
    const auto curve = line(262144, 20480, 81920);
    for (const std::size_t width : {std::size_t{80}, std::size_t{120}, std::size_t{200}}) {
        const auto lines = kv_chart_lines(curve, "this model", "all attention", {width, true});
        // 12 rows, the axis, its labels, the legend (on two lines when one is too wide)
        REQUIRE(lines.size() >= 15);
        REQUIRE(lines.size() <= 16);
        for (const auto& l : lines) {
            INFO(l);
            CHECK(columns(l) <= width);
        }
        std::string all;
        for (const auto& l : lines) all += l + "\n";
        CHECK(all.find("5.4 GB") != std::string::npos);
        CHECK(all.find("21.5 GB") != std::string::npos);
        CHECK(all.find("24 GB") != std::string::npos);
        CHECK(all.find("256k") != std::string::npos);
        CHECK(all.find("128k") != std::string::npos);
        CHECK(all.find("\xE2\xA0") != std::string::npos);  // U+28xx Braille
    }
}

TEST_CASE("chart: the ASCII form holds no byte past 0x7F") {
    const auto lines = kv_chart_lines(line(131072, 1000, 4000), "a", "b", {80, false});
    for (const auto& l : lines) {
        for (const char c : l) CHECK(static_cast<unsigned char>(c) < 0x80);
    }
    std::string all;
    for (const auto& l : lines) all += l;
    CHECK(all.find('*') != std::string::npos);
    CHECK(all.find('o') != std::string::npos);
}

TEST_CASE("chart: one series when there is no twin") {
    const auto lines = kv_chart_lines(line(131072, 1000, 1000), "only", "", {80, false});
    CHECK(lines.back().find("only") != std::string::npos);
    CHECK(lines.back().find("oo") == std::string::npos);
}
