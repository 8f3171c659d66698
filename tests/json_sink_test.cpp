// JsonText (src/cli/json_sink.hpp) writes the bytes nlohmann's dump(2) writes for the tree
// JsonTree builds from the same calls: --json's model page is printed by the one and the
// commands that take parts of it use the other.

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "catch.hpp"
#include "json_sink.hpp"

using canitrun::cli::JsonSink;
using canitrun::cli::JsonText;
using canitrun::cli::JsonTree;

namespace {

// Members out of name order, nested empties, escapes, UTF-8, and numbers of every kind.
void write_sample(JsonSink& w) {
    w.begin_object();
    w.field("zeta", std::string("last by name, first written"));
    w.key("list");
    w.begin_array();
    for (int i = 0; i < 3; ++i) {
        w.begin_object();
        w.field("y", i);
        w.field("x", i % 2 == 0);
        w.key("empty_object");
        w.begin_object();
        w.end_object();
        w.key("empty_array");
        w.begin_array();
        w.end_array();
        w.end_object();
    }
    w.end_array();
    w.field("escapes", std::string("q\"b\\s/\b\f\n\r\t\x01\x1f\x7f end"));
    w.field("utf8", std::string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    w.field("B_upper_sorts_first", nullptr);
    w.field("\xc3\xa9_after_ascii", 1);
    w.field("doubles", std::vector<double>{0.1, 63.9, 24.0, 1e300, 5e-324, -0.0, 123456789.125,
                                           std::numeric_limits<double>::quiet_NaN(),
                                           std::numeric_limits<double>::infinity()});
    w.field("float", 0.1F);
    w.field("ints", std::vector<std::int64_t>{0, -1, std::numeric_limits<std::int64_t>::min()});
    w.field("max", std::numeric_limits<std::uint64_t>::max());
    w.field("maybe", std::optional<int>());
    w.field("some", std::optional<int>(7));
    w.end_object();
}

}  // namespace

TEST_CASE("json sink: the text is dump(2) of the tree") {
    JsonTree tree;
    write_sample(tree);
    JsonText text;
    write_sample(text);
    const auto written = text.take();
    REQUIRE(written.has_value());
    CHECK(*written == tree.take().dump(2));
}

TEST_CASE("json sink: members by name, two spaces a level, escapes as nlohmann's") {
    JsonText w;
    w.begin_object();
    w.field("b", 1);
    w.key("a");
    w.begin_array();
    w.value(true);
    w.null();
    w.value("x\"\n\x01\xc3\xa9");
    w.end_array();
    w.key("d");
    w.begin_array();
    w.end_array();
    w.key("c");
    w.begin_object();
    w.end_object();
    w.end_object();
    // By hand: "a" < "b" < "c" < "d"; \u0001 in lower-case hex; é as its two bytes.
    CHECK(*w.take() ==
          "{\n  \"a\": [\n    true,\n    null,\n    \"x\\\"\\n\\u0001\xc3\xa9\"\n  ],\n"
          "  \"b\": 1,\n  \"c\": {},\n  \"d\": []\n}");
}

TEST_CASE("json sink: names read back from the text and an escaped one sort together") {
    // A plain name is read back where it was written (an inner object sorted meanwhile moves
    // only its own text); a name to escape is kept apart, and sorts among them by its bytes.
    JsonText w;
    w.begin_object();
    w.field("a", 1);
    w.key("b");
    w.begin_object();
    w.field("y", 1);
    w.field("x", 2);
    w.end_object();
    w.field("z", 3);
    w.field("c", 4);
    w.field("m\"k", 5);
    w.end_object();
    // By hand: a < b < c < m"k < z (0x61, 0x62, 0x63, 0x6d, 0x7a); inside b, x < y.
    CHECK(*w.take() ==
          "{\n  \"a\": 1,\n  \"b\": {\n    \"x\": 2,\n    \"y\": 1\n  },\n  \"c\": 4,\n"
          "  \"m\\\"k\": 5,\n  \"z\": 3\n}");
}

TEST_CASE("json sink: a string that is not UTF-8 leaves the text to the tree, which refuses it") {
    for (const std::string bad : {"\xff", "\xc3", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80"}) {
        JsonText text;
        JsonTree tree;
        for (JsonSink* w : {static_cast<JsonSink*>(&text), static_cast<JsonSink*>(&tree)}) {
            w->begin_object();
            w->field("name", bad);
            w->end_object();
        }
        CHECK_FALSE(text.take().has_value());
        CHECK_THROWS_AS(tree.take().dump(2), nlohmann::json::type_error);
    }
}

TEST_CASE("json sink: a name given twice in one object is a bug") {
    JsonText w;
    w.begin_object();
    w.field("b", 1);
    w.field("a", 2);
    w.field("b", 3);
    CHECK_THROWS_AS(w.end_object(), std::logic_error);
}

TEST_CASE("json sink: past 31 levels and with names to escape, still dump(2) of the tree") {
    // The text's lines come from a fixed run of 31 levels' indents; deeper ones are written
    // space by space, and a name to escape goes the long way too.
    const auto deep = [](JsonSink& w) {
        w.begin_array();
        for (int level = 0; level < 40; ++level) {
            w.begin_object();
            w.field("z\"q", level);
            w.field("a", std::string("caf\xc3\xa9\n"));
            w.key("next");
            w.begin_array();
            w.value(level % 2 == 0);
        }
        for (int level = 0; level < 40; ++level) {
            w.end_array();
            w.end_object();
        }
        w.value(std::string());
        w.end_array();
    };
    JsonTree tree;
    deep(tree);
    JsonText text;
    deep(text);
    const auto written = text.take();
    REQUIRE(written.has_value());
    CHECK(*written == tree.take().dump(2));
}
