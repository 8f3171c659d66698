// The tied flag against published files' sizes (tests/fixtures/published-sizes.json's rows with
// 'bytes', exact, or 'gb', a model card's rounded figure): a file is its header and then its
// tensors' data, so it weighs at least the layout's tensors and at most those and the largest
// header it could carry (published_flags.hpp). A publisher's files that all weigh as one flag's
// layout, one at least outside the other flag's window, show that flag:
// published_headers_test.cpp counts the flags they confirm with the headers'.

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "catch.hpp"
#include "published_flags.hpp"
#include "test_support.hpp"

using namespace canitrun;

// published-headers.json's 'sizes' rows are published-sizes.json's kind of row: a file on the
// Hub, its exact bytes, where they were read, and why the row is not in published-sizes.json.
TEST_CASE("published flags: every 'sizes' row names its file, its bytes, its source and a model") {
    std::ifstream in(CANITRUN_SOURCE_DIR "/tests/fixtures/published-headers.json");
    REQUIRE(in);
    const auto rows = nlohmann::json::parse(in).at("sizes");
    REQUIRE(!rows.empty());
    for (const auto& row : rows) {
        INFO(row.dump());
        CHECK(test::database().find_model(row.at("model").get<std::string>()));
        CHECK(test::database().find_quant(row.at("quant").get<std::string>()));
        CHECK(row.at("bytes").get<std::uint64_t>() > 0);
        CHECK(row.at("source").get<std::string>() ==
              "https://huggingface.co/" + row.at("repo").get<std::string>() + "/blob/main/" +
                  row.at("file").get<std::string>());
        CHECK(!row.at("size_from").get<std::string>().empty());
        CHECK(!row.at("copy").get<std::string>().empty());
        CHECK(!row.at("why_here").get<std::string>().empty());
    }
}

// Mistral Small 3.2's bound by hand: its tied layout holds 362 tensors (40 layers of 9, the
// embedding and the output norm), its vocabulary 131,072 tokens. 24 + 31 fixed and padding,
// 362 x 151 = 54,662 of tensor infos and padding, 131,072 x 1,024 = 134,217,728 of tokenizer,
// 16,777,216 of other keys: 151,049,661 bytes. Its output head at Q4_K_M (q6_K, 6.5625 bits a
// weight) weighs 131,072 x 5,120 x 6.5625 / 8 = 550,502,400 bytes, 3.6 times the bound.
TEST_CASE("published flags: the largest header, worked by hand for one model") {
    const Model& m = test::model("mistral-small-3.2-24b");
    CHECK(m.arch.vocab_size == 131072);
    CHECK(test::tensors_with_tied(m, true) == 40 * 9 + 2);
    CHECK(test::largest_header_bytes(m, 362) == 151049661);
}

// A model card's size by hand: "14.33" GB is 14,330,000,000 bytes give or take 5,000,000, so the
// file weighs 14,325,000,000 to 14,335,000,000 bytes. For Mistral Small 3.2 at Q4_K_M that span
// meets the untied window (its tensors, 14,326,026,240 bytes, Mesh-LLM's estimated_model_bytes of
// Unsloth's file) and lies wholly above the tied one (13,948,538,880 + 151,049,661 =
// 14,099,588,541): it shows the head. "14.10" GB (14,095,000,000 to 14,105,000,000) reaches into
// the tied window by 4,588,541 bytes and lies under the untied tensors: it would show no head.
// "14.2" GB (14,150,000,000 to 14,250,000,000) meets neither window. Exact bytes carry no rounding.
TEST_CASE("published flags: a rounded card size, worked by hand for one model") {
    const auto card = test::published_file_size({{"gb", "14.33"}});
    CHECK(card.bytes == 14330000000ULL);
    CHECK(card.half_unit == 5000000);
    CHECK(test::published_file_size({{"gb", "14.2"}}).half_unit == 50000000);
    CHECK(test::published_file_size({{"bytes", 14333922848ULL}}).half_unit == 0);
    const Model& m = test::model("mistral-small-3.2-24b");
    const nlohmann::json row = {{"quant", "Q4_K_M"}};
    CHECK(test::tensor_bytes_with_tied(m, false, row) == 14326026240ULL);
    CHECK(test::tensor_bytes_with_tied(m, true, row) == 13948538880ULL);
    CHECK(test::weighs_as_layout(m, false, row, card));
    CHECK(!test::weighs_as_layout(m, true, row, card));
    const auto low = test::published_file_size({{"gb", "14.10"}});
    CHECK(test::weighs_as_layout(m, true, row, low));
    CHECK(!test::weighs_as_layout(m, false, row, low));
    const auto between = test::published_file_size({{"gb", "14.2"}});
    CHECK(!test::weighs_as_layout(m, true, row, between));
    CHECK(!test::weighs_as_layout(m, false, row, between));
}

// Every file recorded to the byte weighs the layout's tensors with the database's flag and a
// header no larger than the bound: the bound is never below a header measured this way (the file
// less its tensors). A wrong flag fails here in both directions: a tied flag on a file that holds
// a head weighs more than the bound allows, an untied flag on one without is heavier than the file.
TEST_CASE(
    "published flags: every exact-size file weighs its tensors and at most the largest "
    "header") {
    std::size_t checked = 0;
    for (const auto& row : test::exact_size_rows()) {
        INFO(row.at("file").get<std::string>()
             << " (" << row.at("model").get<std::string>() << ")");
        const Model& m = test::model(row.at("model").get<std::string>());
        const auto bytes = row.at("bytes").get<std::uint64_t>();
        const auto tensors = test::tensor_bytes_with_tied(m, m.arch.tied_embeddings, row);
        REQUIRE(tensors <= bytes);
        CHECK(bytes - tensors <=
              test::largest_header_bytes(
                  m, test::file_tensors_with_tied(m, m.arch.tied_embeddings, row)));
        ++checked;
    }
    CHECK(checked >= 30);
}

// The flags the published sizes decide, by model and direction (a publisher's files of the model,
// exact or rounded, all in one flag's window and one at least outside the other's): flipping a
// model's database flag fails here, and for exact files the case above too. The tied ones weigh
// less than their untied layout's tensors (Spark-X2.5 4B's Q4_K_M 2,600,224,352 bytes against
// 2,783,580,160); Mistral Small 3.2 is untied: Unsloth's Q4_K_M, 14,333,922,848 bytes, outweighs
// the tied tensors (13,948,538,880) and the 151,049,661-byte bound by 234,334,307 (the untied
// tensors are 14,326,026,240, the bytes Mesh-LLM's list records as the file's
// estimated_model_bytes).
TEST_CASE("published flags: the exact sizes decide these models' flags") {
    const std::map<std::string, bool> tied_by_size = {
        {"granite-4.1-3b", true},
        {"qwen3-0.6b", true},
        {"gemma-4-12b", true},
        {"mistral-small-3.2-24b", false},
        {"granite-4.0-h-350m", true},
        {"granite-4.0-micro", true},
        {"lfm2-350m", true},
        {"spark-x2.5-4b", true},
        {"qwen3-embedding-0.6b", true},
        {"lfm2-700m", true},
        {"lfm2-2.6b", true},
        {"lfm2-8b-a1b", true},
        {"granite-4.0-1b", true},
        {"granite-4.0-h-1b", true},
        {"granite-4.0-350m", true},
        {"nemotron-nano-9b-v2", false},
        {"seed-oss-36b", false},
        {"llama-4-scout-17b-16e", false},
        {"gemma-3n-e2b", true},
        {"gemma-3n-e4b", true},
        {"lfm2-1.2b", true},
        {"ministral-3-3b", true},
        {"falcon-h1-1.5b", false},
        {"ministral-3-8b", false},
        {"ministral-3-14b", false},
        {"falcon-h1-7b", false},
        {"falcon3-10b", false},
        {"granite-4.1-30b", true},
        {"granite-4.1-8b", false},
        {"qwen3-vl-2b", true},
        {"qwen3-vl-4b", true},
        {"qwen3-vl-8b", false},
        {"qwen3-vl-32b", false},
        {"nemotron-h-8b", false},
        {"nemotron-h-47b", false},
        {"exaone-4.5-33b", false},
        {"qwen2.5-vl-72b", false},
        {"qwen3.5-9b", false},
        {"qwen3.5-397b-a17b", false},
        {"qwen3.5-122b-a10b", false},
        {"qwen3.5-27b", false},
        {"qwen3.5-35b-a3b", false},
        {"qwen3.6-35b-a3b", false},
        // LM Studio's Q4_K_M (13,670 MiB) and Mistral's own four files: Mistral Small 3.2's
        // untied stack with its head
        {"magistral-small-1.2-24b", false},
        // TII's eleven plain files, each 12.1 MB over the untied tensors
        {"falcon-h1-34b", false},
        // bartowski's model cards, every plain file of each within its rounding
        {"gemma-2-2b", true},
        {"gemma-2-9b", true},
        {"gemma-2-27b", true},
        {"llama-3.2-1b", true},
        {"llama-3.2-3b", true},
        {"llama-3.1-8b", false},
        {"llama-3.1-70b", false},
        {"olmo-2-13b", false},
        {"phi-3.5-mini", false},
        {"phi-4-14b", false},
        {"phi-4-reasoning-14b", false},
        {"qwen2.5-14b", false},
        {"qwen2.5-32b", false},
        {"qwen2.5-72b", false},
        {"qwen2.5-coder-7b", false},
        {"qwen3-4b", true},
        {"qwen3-8b", false},
        {"qwen3-14b", false},
        {"qwen3-30b-a3b", false},
        {"qwen3-32b", false},
    };
    std::set<std::string> decided;
    for (const auto& d : test::flags_decided_by_file_sizes()) {
        INFO(d.repo << "'s " << d.files << " files of " << d.model);
        const auto expected = tied_by_size.find(d.model);
        REQUIRE(expected != tied_by_size.end());
        CHECK(d.tied == expected->second);
        CHECK(test::model(d.model).arch.tied_embeddings == expected->second);
        decided.insert(d.model);
    }
    std::set<std::string> expected;
    for (const auto& [id, tied] : tied_by_size) expected.insert(id);
    CHECK(decided == expected);
}

// published-headers.json's 'parameters' rows: a tool's parameter count of a published file, its
// source and how it was read: gguf-parser's PARAMETERS, a keras-hub preset's, the Hub's,
// llama.cpp's, a checkpoint index's total or transformers' count of the loaded checkpoint.
TEST_CASE("published flags: every 'parameters' row names its file, its count, its tool") {
    const auto rows = test::parameter_count_rows();
    REQUIRE(!rows.empty());
    for (const auto& row : rows) {
        INFO(row.dump());
        CHECK(test::database().find_model(row.at("model").get<std::string>()));
        CHECK(!row.at("file").get<std::string>().empty());
        CHECK(!row.at("publisher").get<std::string>().empty());
        // gguf-parser prints to 0.01 B (scalar.go); the others count exactly
        const auto tool = row.at("tool").get<std::string>();
        // a count of a checkpoint's weights: the Hub's, its index's or transformers'
        const bool checkpoint =
            tool == "hub" || tool == "safetensors-index" || tool == "transformers";
        CHECK((tool == "gguf-parser" || tool == "keras-hub" || tool == "llama.cpp" || checkpoint));
        CHECK(row.at("parameters").get<std::uint64_t>() > 0);
        CHECK(row.at("unit").get<std::uint64_t>() == (tool == "gguf-parser" ? 10000000 : 1));
        // a checkpoint's count is of the repository it names, llama.cpp's of the file it names,
        // each read in a public file ('copy')
        const auto source = row.at("source").get<std::string>();
        const auto repo = "https://huggingface.co/" + row.at("publisher").get<std::string>();
        if (checkpoint || tool == "llama.cpp") {
            CHECK(source ==
                  (checkpoint ? repo : repo + "/blob/main/" + row.at("file").get<std::string>()));
            CHECK(!row.at("copy").get<std::string>().empty());
        } else {
            CHECK(source.starts_with("https://github.com/"));
        }
        CHECK(!row.at("read_from").get<std::string>().empty());
        // weights the count holds beside the layout's are a Hub count's only, and say whence
        if (row.contains("outside_layout")) {
            CHECK(tool == "hub");
            CHECK(row.at("outside_layout").get<std::uint64_t>() <
                  row.at("parameters").get<std::uint64_t>());
            CHECK(!row.at("outside_layout_from").get<std::string>().empty());
        }
        // a tensor the converter computes, which no checkpoint stores, is the layout's own
        if (row.contains("converter_generated")) {
            CHECK(checkpoint);
            const Model& m = test::model(row.at("model").get<std::string>());
            CHECK(row.at("converter_generated").get<std::uint64_t>() ==
                  test::layout_elements_named(
                      m, row.at("converter_generated_tensor").get<std::string>()));
            CHECK(row.at("converter_generated").get<std::uint64_t>() > 0);
            CHECK(!row.at("converter_generated_from").get<std::string>().empty());
        }
    }
}

// Qwen2.5-72B by hand (config.json: hidden 8192, 80 layers, 64 / 8 heads of 128, FFN 29,568,
// vocabulary 152,064, biased q / k / v). A layer: q 8192 x 8192 + 8192, k and v 8192 x 1024 +
// 1024 each, o 8192 x 8192, gate / up / down 3 x 8192 x 29,568, two norms of 8192: 877,684,736;
// 80 of them 70,214,778,880. The embedding and the head 152,064 x 8192 = 1,245,708,288 each, the
// output norm 8192: 72,706,203,648 untied, 71,460,495,360 tied. gguf-parser prints bartowski's
// Q4_K_M as 72.71 B: the untied count rounds to it, the tied one (71.46 B) is 125 units away.
TEST_CASE("published flags: a parameter count shows the head, worked by hand for Qwen2.5-72B") {
    const Model& m = test::model("qwen2.5-72b");
    CHECK(test::layout_elements_with_tied(m, false) == 72706203648ULL);
    CHECK(test::layout_elements_with_tied(m, true) == 71460495360ULL);
    const nlohmann::json printed = {{"parameters", 72710000000ULL}, {"unit", 10000000}};
    CHECK(test::counts_as_layout(m, false, printed));
    CHECK(!test::counts_as_layout(m, true, printed));
}

namespace {

// A model's 'parameters' row whose count holds `outside` weights beside the layout (a vision
// tower): the row says so, and the count less them is the untied layout's, not the tied one's.
void check_untied_beside(const Model& m, std::uint64_t outside) {
    bool found = false;
    for (const auto& row : test::parameter_count_rows()) {
        if (row.at("model").get<std::string>() != m.id) continue;
        found = true;
        CHECK(row.at("outside_layout").get<std::uint64_t>() == outside);
        CHECK(test::counts_as_layout(m, false, row));
        CHECK(!test::counts_as_layout(m, true, row));
    }
    CHECK(found);
}

}  // namespace

// Llama 4 Maverick's vision tower by hand, the weights its Hub count holds beside the text stack
// (config.json's vision_config: 34 layers of 1,408, FFN 5,632, 14-pixel patches of 336-pixel
// tiles, a 4,096-wide adapter and projector into the text's 5,120; the per-module table of Llama 4,
// whose vision config Scout and Maverick share, gives each tensor below). A layer: q / k / v / o
// 4 x (1,408 x 1,408 + 1,408), fc1 1,408 x 5,632 + 5,632, fc2 5,632 x 1,408 + 1,408, two layer
// norms with biases 4 x 1,408: 23,807,872; 34 of them 809,467,648. The class embedding 1,408,
// positions (24 x 24 + 1) x 1,408 = 812,416, the patch embedding 3 x 14 x 14 x 1,408 = 827,904,
// the pre and post norms 4 x 1,408, the adapter 5,632 x 4,096 + 4,096 x 4,096 and the projector
// 4,096 x 5,120: 871,932,416 in all. The Hub's 401,583,781,376 less it is 400,711,848,960, the
// untied text stack; the tied one is a 202,048 x 5,120 head (1,034,485,760) short of it.
TEST_CASE("published flags: Llama 4 Maverick's vision tower, worked by hand") {
    const std::uint64_t layer = 4 * (1408ULL * 1408 + 1408) + (1408ULL * 5632 + 5632) +
                                (5632ULL * 1408 + 1408) + 4ULL * 1408;
    CHECK(layer == 23807872);
    const std::uint64_t vision = 34 * layer + 1408 + (24ULL * 24 + 1) * 1408 +
                                 3ULL * 14 * 14 * 1408 + 4ULL * 1408 + 5632ULL * 4096 +
                                 4096ULL * 4096 + 4096ULL * 5120;
    CHECK(vision == 871932416);
    const Model& m = test::model("llama-4-maverick-17b-128e");
    CHECK(test::layout_elements_with_tied(m, false) == 401583781376ULL - vision);
    CHECK(test::layout_elements_with_tied(m, false) - test::layout_elements_with_tied(m, true) ==
          202048ULL * 5120);
    check_untied_beside(m, vision);
}

// MiMo-V2.6-Distill-Qwen-9B's vision tower by hand, the weights its Hub count holds beside the text
// stack (Qwen 3.5 9B's vision_config: 27 blocks of 1,152, MLP 4,304, 16-pixel patches two frames
// deep, 2,304 position embeddings, a 2 x 2 merger into the text's 4,096). A block: two layer norms
// with biases 4 x 1,152, qkv 1,152 x 3,456 + 3,456, proj 1,152 x 1,152 + 1,152, fc1 1,152 x
// 4,304 + 4,304, fc2 4,304 x 1,152 + 1,152: 15,239,504; 27 of them 411,466,608. The patch
// embedding 3 x 2 x 16 x 16 x 1,152 + 1,152, the positions 2,304 x 1,152, the merger's norm
// 2 x 1,152, fc1 4,608 x 4,608 + 4,608 and fc2 4,608 x 4,096 + 4,096: 456,010,480 in all. The
// Hub's 9,409,813,744 less it is 8,953,803,264, the untied text stack (no MTP layer: the
// checkpoint ships none); the tied one is a 248,320 x 4,096 head (1,017,118,720) short of it.
TEST_CASE("published flags: MiMo-V2.6-Distill-Qwen-9B's vision tower, worked by hand") {
    const std::uint64_t block = 4ULL * 1152 + (1152ULL * 3456 + 3456) + (1152ULL * 1152 + 1152) +
                                (1152ULL * 4304 + 4304) + (4304ULL * 1152 + 1152);
    CHECK(block == 15239504);
    const std::uint64_t vision = 27 * block + (3ULL * 2 * 16 * 16 * 1152 + 1152) + 2304ULL * 1152 +
                                 2ULL * 1152 + (4608ULL * 4608 + 4608) + (4608ULL * 4096 + 4096);
    CHECK(vision == 456010480);
    const Model& m = test::model("mimo-v2.6-distill-qwen-9b");
    CHECK(test::layout_elements_with_tied(m, false) == 9409813744ULL - vision);
    CHECK(test::layout_elements_with_tied(m, false) - test::layout_elements_with_tied(m, true) ==
          248320ULL * 4096);
    check_untied_beside(m, vision);
}
