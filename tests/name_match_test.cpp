#include "canitrun/name_match.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

TEST_CASE("names match case-insensitively - ignoring spaces - dashes and underscores") {
    CHECK(normalize_name("Qwen3.5 35B-A3B") == "qwen3.535ba3b");
    CHECK(normalize_name("RTX_4090") == normalize_name("rtx 4090"));
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
