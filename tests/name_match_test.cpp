#include "canitrun/name_match.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

TEST_CASE("names match case-insensitively - ignoring spaces - dashes and underscores") {
    CHECK(normalize_name("Qwen3.5 35B-A3B") == "qwen3.535ba3b");
    CHECK(normalize_name("RTX_4090") == normalize_name("rtx 4090"));
}

TEST_CASE("normalized_equals is normalize_name then equality without the copy") {
    // "Qwen3.5 35B-A3B" less ' ', '-', '_' and lowercased is "qwen3.535ba3b" (above)
    CHECK(normalized_equals("Qwen3.5 35B-A3B", "qwen3.535ba3b"));
    CHECK(normalized_equals("--__  ", ""));
    CHECK_FALSE(normalized_equals("Qwen3.5 35B-A3B", "qwen3.535ba3"));    // key shorter
    CHECK_FALSE(normalized_equals("Qwen3.5 35B-A3", "qwen3.535ba3b"));    // name shorter
    CHECK_FALSE(normalized_equals("Qwen3.5 35B-A3B", "qwen3.5 35ba3b"));  // the key is normalized
}

TEST_CASE("edit distance") {
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("", "abc") == 3);
    CHECK(edit_distance("same", "same") == 0);
    // Bounded: past the limit it stops early and says limit + 1.
    CHECK(edit_distance("kitten", "sitting", 1) == 2);
    CHECK(edit_distance("kitten", "sitting", 3) == 3);
    CHECK(edit_distance("kitten", "sitting", 10) == 3);
    CHECK(edit_distance("abcdefgh", "zzzzzzzzzzzz", 2) == 3);
}

TEST_CASE("did you mean: close names first") {
    const std::vector<std::string> names = {"qwen3.5-35b-a3b", "qwen3-30b-a3b", "llama-3.1-8b"};
    const auto s = suggest("qwen3.5-35b-a3x", names);
    REQUIRE_FALSE(s.empty());
    CHECK(s[0] == "qwen3.5-35b-a3b");
    CHECK(suggest("zzzzzzzzzzzz", names).empty());
    // Without the dot a user may leave out, the 3.5 model still comes first.
    CHECK(suggest("qwen35", names).at(0) == "qwen3.5-35b-a3b");
}

// Apple sells the M4 Max with 36, 48, 64 or 128 GB; a suggestion that stops at three would
// leave out the one LLM users ask about.
TEST_CASE("did you mean: a family the typed name covers is listed whole") {
    const auto m4 = test::database().find_gpu("m4 max");
    REQUIRE_FALSE(m4);
    CHECK(m4.error().message == "unknown GPU 'm4 max'");
    CHECK(m4.error().hint ==
          "did you mean 'm4-max-36gb', 'm4-max-48gb', 'm4-max-64gb' or 'm4-max-128gb'?");
    // More than six that contain the text are no family: the nearest three, as before.
    const std::vector<std::string> many = {"abc-1", "abc-2", "abc-3", "abc-4",
                                           "abc-5", "abc-6", "abc-7"};
    CHECK(suggest("abc", many).size() == 3);
}

// "m4mux" is one substitution from "m4max", the start of every M4 Max id: the family typed with
// a typo is listed whole, as it is typed right. "m4max" is also one from "m3max" (the M3 Max
// ids), which must not join when the text names the M4 family exactly.
TEST_CASE("did you mean: a family typed with one typo is listed whole") {
    const auto m4 = test::database().find_gpu("m4 mux");
    REQUIRE_FALSE(m4);
    CHECK(m4.error().message == "unknown GPU 'm4 mux'");
    CHECK(m4.error().hint ==
          "did you mean 'm4-max-36gb', 'm4-max-48gb', 'm4-max-64gb' or 'm4-max-128gb'?");
    const std::vector<std::string> ids = {"m3-max-36gb", "m4-max-36gb", "m4-max-48gb"};
    CHECK(suggest("m4 max", ids) ==
          std::vector<std::string>{"m4-max-36gb", "m4-max-48gb", "m3-max-36gb"});
    // Three characters name no family: "m4x" is no near start of anything here.
    CHECK(suggest("m4x", {"m4-max-36gb-and-more"}).empty());
}

TEST_CASE("the database finds models and GPUs by id - alias and spelling") {
    const Database& db = test::database();
    CHECK(db.find_model("Qwen3.5-35B-A3B").value()->id == "qwen3.5-35b-a3b");
    CHECK(db.find_model("qwen3.5:35b-a3b").value()->id == "qwen3.5-35b-a3b");
    CHECK(db.find_gpu("RTX 5090").value()->id == "rtx-5090");
    CHECK(db.find_quant("q4_k_m").value()->id == "Q4_K_M");
    const auto missing = db.find_model("qwen3.5-35b-a3x");
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error().message == "unknown model 'qwen3.5-35b-a3x'");
    CHECK(missing.error().hint.rfind("did you mean 'qwen3.5-35b-a3b'", 0) == 0);
}
