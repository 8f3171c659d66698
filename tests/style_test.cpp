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
