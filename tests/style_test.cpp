#include "style.hpp"
#include "catch.hpp"

using namespace canitrun::cli;

TEST_CASE("colour: NO_COLOR wins and CLICOLOR_FORCE forces") {
    CHECK(want_color(true, nullptr, nullptr));
    CHECK_FALSE(want_color(false, nullptr, nullptr));
    CHECK_FALSE(want_color(true, "1", nullptr));
    CHECK_FALSE(want_color(true, "1", "1"));
    CHECK(want_color(false, nullptr, "1"));
    CHECK_FALSE(want_color(false, nullptr, "0"));
    CHECK(want_color(true, "", nullptr));  // an empty NO_COLOR does not count (no-color.org)
}

TEST_CASE("markdownify keeps tables and fences indented commands") {
    const std::string md = markdownify("### T\n  prose line\n| a |\n    cmd \\\n      --flag\n");
    CHECK(md == "### T\nprose line  \n| a |\n```\ncmd \\\n  --flag\n```\n");
}

TEST_CASE("style: the answer's stream carries its style, any other stream the plain one") {
    StyledStream styled(Style{Format::markdown, false, ChartChoice{true, false, 120}});
    CHECK(format_of(styled) == Format::markdown);
    CHECK(chart_of(styled).draw);
    CHECK_FALSE(chart_of(styled).unicode);
    CHECK(chart_of(styled).width == 120);
    // Colour is a terminal table's alone: asked with CSV, it is dropped.
    StyledStream csv(Style{Format::csv, true, {}});
    CHECK_FALSE(color_of(csv));
    StyledStream table(Style{Format::table, true, {}});
    CHECK(color_of(table));
    std::ostringstream plain;
    CHECK(format_of(plain) == Format::table);
    CHECK_FALSE(color_of(plain));
    CHECK_FALSE(chart_of(plain).draw);
}
