// The loader refuses malformed or absurd data with one message naming the file, the entry and
// the field.

#include <nlohmann/json.hpp>

#include "canitrun/database.hpp"
#include "canitrun/layer_kinds.hpp"
#include "catch.hpp"

using namespace canitrun;
using nlohmann::json;

namespace {

json valid_model() {
    return json::parse(R"({
      "id": "tiny-1b", "name": "Tiny 1B", "family": "tiny", "vendor": "Test",
      "source": "hand-written test entry",
      "params": {"total": 1000000000},
      "context": {"native": 4096},
      "architecture": {
        "hidden_size": 2048, "vocab_size": 32000, "layers": 16,
        "attention": {"heads": 16, "kv_heads": 4, "head_dim": 128},
        "ffn": {"intermediate_size": 8192},
        "layer_groups": [{"kind": "full", "count": 16}]
      }
    })");
}

json valid_gpu() {
    return json::parse(R"({
      "id": "card-24", "name": "Test Card 24", "vendor": "nvidia", "class": "consumer",
      "vram_gb": 24, "vram_bytes": 25769803776, "bandwidth_gbps": 1000,
      "backends": ["cuda"], "source": "hand-written test entry"
    })");
}

DatabaseFiles files_with(const json& model, const json& gpu) {
    return {
        {"models/test.json", json::array({model}).dump()},
        {"gpus/test.json", json::array({gpu}).dump()},
        {"quants.json", R"([{"id": "Q4_K_M", "bits_per_weight": 4.873, "quality_rank": 1,
                            "recommended": true, "derivation": "test", "source": "test"}])"},
        {"card_classes.json", R"([{"gb": 24, "class": "consumer"}])"},
    };
}

std::string error_of(const DatabaseFiles& files) {
    const auto r = parse_database(files);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::bad_database);
    return r.error().message;
}

bool mentions(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a minimal valid database parses") {
    const auto db = parse_database(files_with(valid_model(), valid_gpu()));
    REQUIRE(db.has_value());
    CHECK(db->models.at(0).arch.layers == 16);
    CHECK(db->gpus.at(0).vram_gb == 24);
    CHECK(db->quants.at(0).bpw_e4 == 48730);
}

TEST_CASE("malformed and truncated JSON") {
    auto files = files_with(valid_model(), valid_gpu());
    files["gpus/test.json"] = R"([{"id": "x",)";
    CHECK(mentions(error_of(files), "malformed JSON in gpus/test.json"));
    files = files_with(valid_model(), valid_gpu());
    files["models/test.json"] = R"({"not": "an array"})";
    CHECK(mentions(error_of(files), "expected a JSON array"));
}

TEST_CASE("missing and absurd fields are named") {
    json m = valid_model();
    m.erase("source");
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "missing field 'source'"));

    m = valid_model();
    m["architecture"]["layers"] = -3;
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "'layers' = -3 must not be negative"));

    m = valid_model();
    m["context"]["native"] = 1000000000000000ULL;  // 10^15 tokens
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "field 'native'"));

    m = valid_model();
    m["architecture"]["layer_groups"][0]["count"] = 15;
    CHECK(mentions(error_of(files_with(m, valid_gpu())),
                   "layer_groups count 15 layers, but layers = 16"));

    m = valid_model();
    m["architecture"]["layer_groups"][0]["kind"] = "quantum";
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "unknown layer kind 'quantum'"));

    m = valid_model();
    m["architecture"]["attention"]["kv_heads"] = 32;  // more KV heads than heads
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "'kv_heads'"));

    json g = valid_gpu();
    g["bandwidth_gbps"] = 0;
    CHECK(mentions(error_of(files_with(valid_model(), g)), "'bandwidth_gbps'"));

    g = valid_gpu();
    g["fp16_tflops"] = 364247;  // RTX 6000 Ada's 364.2 TFLOPS written in GFLOPS
    CHECK(mentions(error_of(files_with(valid_model(), g)), "'fp16_tflops'"));

    g = valid_gpu();
    g["class"] = "gaming";
    CHECK(mentions(error_of(files_with(valid_model(), g)), "unknown class 'gaming'"));

    g = valid_gpu();
    g["class"] = "unified";
    CHECK(mentions(error_of(files_with(valid_model(), g)), "unified_gpu_share_percent"));

    // A PCI id as sysfs writes it ("0x56a0"), read as the number detection compares.
    g = valid_gpu();
    g["pci_ids"] = json::array({"0x56a0"});
    const auto parsed = parse_database(files_with(valid_model(), g));
    REQUIRE(parsed.has_value());
    CHECK(parsed->gpus[0].pci_ids == std::vector<std::uint64_t>{0x56a0});
    for (const char* bad : {"56a0", "0x56A0", "0x56a", "0x56a0f", "0x56g0"}) {
        g["pci_ids"] = json::array({bad});
        CHECK(mentions(error_of(files_with(valid_model(), g)), "PCI id '" + std::string(bad)));
    }
}

TEST_CASE("per-field sources must cite a field the entry has") {
    json g = valid_gpu();
    g["sources"] = {{"bandwidth_gbps", "https://example.com/datasheet.pdf"}};
    CHECK(parse_database(files_with(valid_model(), g)).has_value());

    json m = valid_model();
    m["sources"] = {{"architecture.attention", "config.json"}};
    CHECK(parse_database(files_with(m, valid_gpu())).has_value());

    g["sources"] = {{"fp16_tflops", "https://example.com"}};  // the entry has no fp16_tflops
    CHECK(mentions(error_of(files_with(valid_model(), g)), "cites field 'fp16_tflops'"));

    g["sources"] = {{"bandwidth_gbps", ""}};
    CHECK(mentions(error_of(files_with(valid_model(), g)), "'sources.bandwidth_gbps'"));

    g["sources"] = json::array({"https://example.com"});
    CHECK(mentions(error_of(files_with(valid_model(), g)), "field 'sources' must map"));
}

TEST_CASE("duplicate ids and aliases are refused - however they are spelled") {
    json a = valid_model();
    json b = valid_model();
    b["id"] = "tiny-2b";
    b["aliases"] = json::array({"Tiny 1B"});  // normalizes to a's id
    auto files = files_with(a, valid_gpu());
    files["models/test.json"] = json::array({a, b}).dump();
    CHECK(mentions(error_of(files), "is already used by 'tiny-1b'"));
}

TEST_CASE("a name memory variants share needs the variants, and names no other entry") {
    json chosen = valid_gpu();
    chosen["variant_names"] = json::array({"test card"});
    CHECK(mentions(error_of(files_with(valid_model(), chosen)),
                   "'variant_names' and 'other_variants' go together"));
    chosen["other_variants"] = json::array({"card-12"});
    CHECK(mentions(error_of(files_with(valid_model(), chosen)),
                   "lists other variant 'card-12', which is not another GPU's id"));
    json other = valid_gpu();
    other["id"] = "card-12";
    other["name"] = "Test Card 12";
    other["aliases"] = json::array({"Test-Card"});  // the shared name, spelled otherwise
    auto files = files_with(valid_model(), chosen);
    files["gpus/test.json"] = json::array({chosen, other}).dump();
    CHECK(mentions(error_of(files), "is already used by"));
    other["aliases"] = json::array();
    files["gpus/test.json"] = json::array({chosen, other}).dump();
    const auto db = parse_database(files);
    REQUIRE(db);
    CHECK(db->find_gpu("TEST CARD").value()->id == "card-24");
    const auto note = variant_note(*db, db->gpus[0], "TEST CARD");
    REQUIRE(note);
    CHECK(*note ==
          "'TEST CARD' names 2 cards and is planned as the Test Card 24; name card-12 "
          "for the Test Card 12");
    CHECK_FALSE(variant_note(*db, db->gpus[0], "card-24"));
}

TEST_CASE("files that are not part of a database are refused") {
    auto files = files_with(valid_model(), valid_gpu());
    files["stray.json"] = "[]";
    CHECK(mentions(error_of(files), "stray.json: not a database file"));
}

TEST_CASE("layer_order must name every layer with the groups' kinds and counts") {
    json m = valid_model();
    m["architecture"]["layer_groups"] =
        json::parse(R"([{"kind": "full", "count": 4}, {"kind": "ffn", "count": 12}])");
    m["architecture"]["layer_order"] = "*---*---*---*---";
    const auto db = parse_database(files_with(m, valid_gpu()));
    REQUIRE(db.has_value());
    CHECK(db->models.at(0).arch.layer_order == "*---*---*---*---");

    m["architecture"]["layer_order"] = "*---*---*---*--";  // 15 letters for 16 layers
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "layer_order has 15 letters"));
    m["architecture"]["layer_order"] = "**--*---*---*---";  // 5 attention layers, group of 4
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "layer_order gives 5 full layers"));
    m["architecture"]["layer_order"] = "*---*---*---*--?";
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "names no layer kind"));
}

TEST_CASE("layer_order: digits name groups, for two groups of one kind that interleave") {
    json m = valid_model();
    // 16 layers: group 0 (full, 4 layers) and group 1 (full, 12): the first of every four in 0
    m["architecture"]["layer_groups"] =
        json::parse(R"([{"kind": "full", "count": 4}, {"kind": "full", "count": 12}])");
    m["architecture"]["layer_order"] = "0111011101110111";
    const auto db = parse_database(files_with(m, valid_gpu()));
    REQUIRE(db.has_value());
    CHECK(layer_group_order(db->models.at(0)) ==
          std::vector<std::size_t>{0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1});
    m["architecture"]["layer_order"] = "0111011101110112";  // there is no group 2
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "'2', which names no layer group"));
    m["architecture"]["layer_order"] = "0011011101110111";  // group 0 named 5 times
    CHECK(mentions(error_of(files_with(m, valid_gpu())),
                   "layer_order names a group more often than it has layers"));
    // letters fill the two groups in turn: the first 4 layers are group 0
    m["architecture"]["layer_order"] = std::string(16, '*');
    const auto filled = parse_database(files_with(m, valid_gpu()));
    REQUIRE(filled.has_value());
    CHECK(layer_group_order(filled->models.at(0))[3] == 0);
    CHECK(layer_group_order(filled->models.at(0))[4] == 1);
}

TEST_CASE("FFN-only layers need a layer_order") {
    json m = valid_model();
    m["architecture"]["layer_groups"] =
        json::parse(R"([{"kind": "full", "count": 4}, {"kind": "ffn", "count": 12}])");
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "FFN-only layers need a layer_order"));
}

// run.gguf_quantized_before names a llama.cpp build ("b8275") and needs its source.
TEST_CASE("run.gguf_quantized_before is a llama.cpp build with a source") {
    json m = valid_model();
    m["run"] = {{"gguf_quantized_before", "b3751"}, {"gguf_quantized_before_source", "a card"}};
    const auto db = parse_database(files_with(m, valid_gpu()));
    REQUIRE(db.has_value());
    CHECK(db->models.at(0).run.gguf_quantized_before == 3751);

    for (const char* bad : {"3751", "b", "bx12", "b0", "b12345678"}) {
        INFO(bad);
        m["run"]["gguf_quantized_before"] = bad;
        CHECK(mentions(error_of(files_with(m, valid_gpu())), "must be a llama.cpp build"));
    }
    m["run"] = {{"gguf_quantized_before", "b3751"}};
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "needs run.gguf_quantized_before_source"));
}

// A model with MTP layers says whether its GGUF files carry them (run.gguf_mtp), with a
// source; the field without MTP layers, or without a source, is refused. Whether their MTP
// block keeps its own embedding and head (run.gguf_mtp_embedding, default true) needs a source
// and files that carry the block. run.pooling is one of
// llama.h's pooling types, with a source.
TEST_CASE("run.gguf_mtp goes with mtp_layers, run.pooling with a type, each with a source") {
    json m = valid_model();
    m["architecture"]["mtp_layers"] = 1;
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "needs run.gguf_mtp"));
    m["run"] = {{"gguf_mtp", true}};
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "needs run.gguf_mtp_source"));
    m["run"] = {{"gguf_mtp", true}, {"gguf_mtp_source", "the converter"}};
    const auto db = parse_database(files_with(m, valid_gpu()));
    REQUIRE(db.has_value());
    CHECK(db->models.at(0).run.gguf_mtp);
    CHECK(db->models.at(0).run.gguf_mtp_embedding);
    m["run"]["gguf_mtp_embedding"] = false;
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "needs run.gguf_mtp_embedding_source"));
    m["run"]["gguf_mtp_embedding_source"] = "a header";
    const auto without_head = parse_database(files_with(m, valid_gpu()));
    REQUIRE(without_head.has_value());
    CHECK_FALSE(without_head->models.at(0).run.gguf_mtp_embedding);
    m["run"]["gguf_mtp"] = false;
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "needs run.gguf_mtp true"));
    m["run"] = {{"gguf_mtp", true}, {"gguf_mtp_source", "the converter"}};
    // indexer copies need MLA layers with an indexer and layers without one
    m["run"]["gguf_indexer_every_layer"] = true;
    CHECK(mentions(error_of(files_with(m, valid_gpu())),
                   "needs run.gguf_indexer_every_layer_source"));
    m["run"]["gguf_indexer_every_layer_source"] = "a header";
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "an indexer and without one"));
    m["run"].erase("gguf_indexer_every_layer");
    m["run"].erase("gguf_indexer_every_layer_source");
    m["architecture"].erase("mtp_layers");
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "needs architecture.mtp_layers"));

    m["run"] = {{"pooling", "last"}, {"pooling_source", "a log"}};
    const auto pooled = parse_database(files_with(m, valid_gpu()));
    REQUIRE(pooled.has_value());
    CHECK(pooled->models.at(0).run.pooling == "last");
    m["run"] = {{"pooling", "max"}, {"pooling_source", "a log"}};
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "run.pooling must be"));
    m["run"] = {{"pooling", "cls"}};
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "needs run.pooling_source"));

    // run.checkpoints: only the formats vLLM does not make itself, one per quantization.
    const json awq = {{"quant", "AWQ"}, {"repo", "o/n-AWQ"}, {"format", "awq"}, {"source", "s"}};
    m["run"] = {{"checkpoints", {awq}}};
    const auto served = parse_database(files_with(m, valid_gpu()));
    REQUIRE(served.has_value());
    CHECK(served->models.at(0).run.checkpoints.at(0).repo == "o/n-AWQ");
    m["run"] = {{"checkpoints", {awq, awq}}};
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "a second AWQ checkpoint"));
    json fp8 = awq;
    fp8["quant"] = "FP8";
    m["run"] = {{"checkpoints", {fp8}}};
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "quant must be AWQ, GPTQ or NVFP4"));
}

// A recipe's rule for some models only (Unsloth's per-model upcasts) is read from a published
// file, so it must cite it; a family or model without the architecture selects nothing sure.
TEST_CASE("a recipe rule for some models names its architecture and its source") {
    const auto with_rule = [](const std::string& rule) {
        auto files = files_with(valid_model(), valid_gpu());
        files["quants.json"] = R"([{"id": "UD-Q4_K_XL", "bits_per_weight": 5.0,
            "quality_rank": 1, "recommended": true, "derivation": "test", "source": "test",
            "recipe": {"publisher": "unsloth", "base": "Q4_K_M", "tensors": [)" +
                               rule + "]}}]";
        return files;
    };
    const auto db = parse_database(with_rule(
        R"({"tensor": "ssm_out.weight", "type": "q8_0", "arch": "qwen35moe",
            "family": "qwen3.6", "source": "a published log"})"));
    REQUIRE(db.has_value());
    const TensorTypeRule& r = db->quants.at(0).recipe_tensors.at(0);
    CHECK(r.arch == "qwen35moe");
    CHECK(r.family == "qwen3.6");
    CHECK(r.model.empty());
    CHECK(mentions(
        error_of(with_rule(R"({"tensor": "ssm_out.weight", "type": "q8_0", "arch": "qwen35"})")),
        "source"));
    CHECK(mentions(
        error_of(with_rule(R"({"tensor": "ssm_out.weight", "type": "q8_0", "model": "tiny-1b"})")),
        "needs 'arch'"));
}

// An editorial claim names the words it is about; words the editorial does not have could never
// be marked, so the loader refuses them.
TEST_CASE("database: an editorial claim must quote the editorial") {
    json m = valid_model();
    m["editorial"] = json::parse(R"({"verdict": "A 24 GB card runs it.", "source": "a person",
        "claims": [{"text": "A 16 GB card runs it.", "quant": "Q4_K_M", "card_gb": 16,
                    "fits": true}]})");
    CHECK(mentions(error_of(files_with(m, valid_gpu())), "is not in the editorial"));
    m["editorial"]["claims"][0]["text"] = "A 24 GB card runs it.";
    CHECK(parse_database(files_with(m, valid_gpu())).has_value());
}

// publishers.json gives each model whose gguf_repo the publisher owns its recipe (whether its
// plain files are made with an importance matrix) and the source that says so; an owner not
// listed gets none. An entry without a source, or a publisher listed twice, is refused.
TEST_CASE("a publisher's imatrix recipe reaches the models of its repos, with its source") {
    json m = valid_model();
    m["run"] = {{"gguf_repo", "Bartowski/Tiny-1B-GGUF"}};
    json other = valid_model();
    other["id"] = "tiny-2b";
    other["name"] = "Tiny 2B";
    other["run"] = {{"gguf_repo", "someone/Tiny-2B-GGUF"}};
    auto files = files_with(m, valid_gpu());
    files["models/test.json"] = json::array({m, other}).dump();
    files["publishers.json"] = R"([{"name": "bartowski", "imatrix": true, "source": "his cards"}])";
    const auto db = parse_database(files);
    REQUIRE(db.has_value());
    CHECK(db->models.at(0).run.gguf_imatrix);  // Hub owners are case-insensitive
    CHECK(db->models.at(0).run.gguf_imatrix_source == "his cards");
    CHECK_FALSE(db->models.at(1).run.gguf_imatrix);
    CHECK(db->models.at(1).run.gguf_imatrix_source.empty());

    files["publishers.json"] = R"([{"name": "bartowski", "imatrix": true}])";
    CHECK(mentions(error_of(files), "source"));
    files["publishers.json"] = R"([{"name": "bartowski", "imatrix": true, "source": "a"},
                              {"name": "BARTOWSKI", "imatrix": false, "source": "b"}])";
    CHECK(mentions(error_of(files), "listed twice"));
}

// A publisher's plain-named file made by one of its recipes (publishers.json plain_files) reaches
// the models of its repos with the recipe's rules; the recipe must be that publisher's, over that
// very file type, and the entry must cite what shows it.
TEST_CASE("a publisher's plain-named recipe reaches the models of its repos, checked") {
    json m = valid_model();
    m["run"] = {{"gguf_repo", "unsloth/Tiny-1B-GGUF"}};
    auto files = files_with(m, valid_gpu());
    const std::string recipe = R"({"id": "UD-Q4_K_M", "bits_per_weight": 5.0, "quality_rank": 1,
        "recommended": true, "derivation": "test", "source": "test", "recipe": {"publisher":
        "unsloth", "base": "Q4_K_M", "tensors": [{"tensor": "ssm_out.weight", "type": "q8_0"}]}})";
    files["quants.json"] = "[" + recipe + "]";
    const auto with_plain = [&](const std::string& plain) {
        auto f = files;
        f["publishers.json"] = R"([{"name": "unsloth", "imatrix": true, "source": "a card",
            "plain_files": [)" +
                               plain + "]}]";
        return f;
    };
    const auto db = parse_database(with_plain(
        R"({"quant": "Q4_K_M", "recipe": "UD-Q4_K_M", "arch": "qwen35moe", "family": "qwen3.5",
            "source": "the files' sizes"})"));
    REQUIRE(db.has_value());
    const auto& plain = db->models.at(0).run.gguf_plain_recipes;
    REQUIRE(plain.size() == 1);
    CHECK(plain.at(0).file_type == "Q4_K_M");
    CHECK(plain.at(0).arch == "qwen35moe");
    CHECK(plain.at(0).family == "qwen3.5");
    REQUIRE(plain.at(0).tensors.size() == 1);
    CHECK(plain.at(0).tensors.at(0).tensor == "ssm_out.weight");
    CHECK(mentions(error_of(with_plain(R"({"quant": "Q5_K_M", "recipe": "UD-Q4_K_M",
        "arch": "qwen35moe", "source": "s"})")),
                   "not a recipe of unsloth over Q5_K_M"));
    CHECK(mentions(error_of(with_plain(R"({"quant": "Q4_K_M", "recipe": "UD-Q9",
        "arch": "qwen35moe", "source": "s"})")),
                   "no such quantization"));
    CHECK(mentions(error_of(with_plain(R"({"quant": "Q4_K_M", "recipe": "UD-Q4_K_M",
        "source": "s"})")),
                   "arch"));
    CHECK(mentions(error_of(with_plain(R"({"quant": "Q4_K_M", "recipe": "UD-Q4_K_M",
        "arch": "qwen35moe"})")),
                   "source"));
}
