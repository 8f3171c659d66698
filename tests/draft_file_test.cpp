// --draft FILE (#37): a local GGUF file as llama-server's draft model, planned by its own
// tensors with the terms a database draft gets. A file whose tensors are llama-3.2-1b's at
// Q4_K_M (tests/support/model_gguf, the file llama-quantize would write) is the independent
// path: the same draft bytes on every device, and the same plan, as --draft llama-3.2-1b:Q4_K_M.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_binary.hpp"
#include "scratch_dir.hpp"
#include "support/model_gguf.hpp"
#include "test_support.hpp"

using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_cli;
using nlohmann::json;
namespace fs = std::filesystem;

namespace canitrun {
namespace {

// One folder per process, with a space in its name (the printed line must quote the path).
const test::ScratchDir& draft_dir() {
    static const test::ScratchDir dir("canitrun draft_file_test ");
    return dir;
}

// llama-3.2-1b at Q4_K_M as a sparse file (its header and a data section of zeros), once.
std::string draft_file() {
    static const std::string path = [] {
        const fs::path p = draft_dir().path / "llama-3.2-1b-Q4_K_M.gguf";
        auto writer = test::model_gguf(**test::database().find_model("llama-3.2-1b"), "Q4_K_M");
        REQUIRE(writer);
        writer->write_sparse_file(p.string());
        return p.string();
    }();
    return path;
}

json plan_json(const std::string& draft) {
    const Outcome o = run_cli({"llama-3.3-70b", "--gpu", "2x3090", "--draft", draft, "--json"});
    INFO(draft);
    INFO(o.err);
    REQUIRE(o.code == 0);
    return json::parse(o.out)["hardware"]["selected"];
}

// The draft's term on a device (its resident row named draft:...).
json draft_row(const json& device) {
    for (const auto& r : device["resident"]) {
        if (r["name"].get<std::string>().starts_with("draft:")) return r;
    }
    return json{};
}

}  // namespace

TEST_CASE("draft file: a file of a database model's tensors is that model's draft") {
    const json db = plan_json("llama-3.2-1b:Q4_K_M");
    const json file = plan_json(draft_file());
    REQUIRE(db["gpus"].size() == 2);
    REQUIRE(file["gpus"].size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        INFO("GPU " << i);
        const json a = draft_row(db["gpus"][i]);
        const json b = draft_row(file["gpus"][i]);
        REQUIRE(a.is_object());
        REQUIRE(b.is_object());
        CHECK(a["load_bytes"].get<Bytes>() > 0);
        CHECK(a["load_bytes"] == b["load_bytes"]);
        CHECK(a["most_bytes"] == b["most_bytes"]);
        CHECK(db["gpus"][i]["total_bytes"] == file["gpus"][i]["total_bytes"]);
        CHECK(db["gpus"][i]["layers"] == file["gpus"][i]["layers"]);
    }
    CHECK(draft_row(db["ram"])["load_bytes"] == draft_row(file["ram"])["load_bytes"]);
    CHECK(draft_row(file["gpus"][0])["name"] == "draft:llama-3.2-1b-Q4_K_M.gguf");
    CHECK(db["plan"] == file["plan"]);
    CHECK(db["gpu_total_bytes"] == file["gpu_total_bytes"]);
    CHECK(db["ram"]["total_bytes"] == file["ram"]["total_bytes"]);
    CHECK(db["tensor_split"] == file["tensor_split"]);
    // The speed with the draft: the same target, and the same draft speed, the file's read at
    // the type it was written as (general.file_type Q4_K_M), as the database draft's is (#37).
    CHECK(db["speculative"]["target_tokens_per_s"] == file["speculative"]["target_tokens_per_s"]);
    CHECK(file["speculative"]["draft_tokens_per_s"].get<double>() > 0);
    CHECK(db["speculative"]["draft_tokens_per_s"] == file["speculative"]["draft_tokens_per_s"]);
    CHECK(db["speculative"]["tokens_per_s"] == file["speculative"]["tokens_per_s"]);
}

// The other way round: a GGUF main model with a database draft. The draft is planned by its own
// layout, never by the main file's tensors: the same draft as beside the database model the
// file equals.
TEST_CASE("draft file: a database draft beside a GGUF main model is its own") {
    const auto draft_of = [](const std::vector<std::string>& main) {
        std::vector<std::string> args = main;
        for (const char* a : {"--gpu", "RTX 4090", "--draft", "qwen3-0.6b:Q8_0", "--json"}) {
            args.emplace_back(a);
        }
        const Outcome o = run_cli(args);
        INFO(o.err);
        REQUIRE(o.code == 0);
        return draft_row(json::parse(o.out)["hardware"]["selected"]["gpus"][0]);
    };
    const json db = draft_of({"llama-3.2-1b", "--quant", "Q4_K_M"});
    const json file = draft_of({draft_file()});
    CHECK(db["name"] == "draft:qwen3-0.6b");
    CHECK(db["load_bytes"].get<Bytes>() > 0);
    CHECK(db == file);
}

TEST_CASE("draft file: the line loads the file with -md and quotes its path") {
    const Outcome o = run_cli({"llama-3.3-70b", "--gpu", "2x3090", "--draft", draft_file()});
    REQUIRE(o.code == 0);
    // The folder's name holds spaces: the shell reads the path back from single quotes.
    CHECK(has(o.out, "-md '" + draft_file() + "' -ngld 99 --spec-type draft-simple"));
    CHECK_FALSE(has(o.out, "-hfd"));
    CHECK(has(o.out, "draft model llama-3.2-1b-Q4_K_M.gguf"));
}

TEST_CASE("draft file: a missing or non-GGUF file is bad input") {
    const std::string missing = (draft_dir().path / "none.gguf").string();
    const Outcome gone = run_cli({"llama-3.3-70b", "--draft", missing});
    CHECK(gone.code == 2);
    CHECK(gone.out.empty());
    CHECK(has(gone.err, "canitrun: error: "));
    const std::string text = (draft_dir().path / "notes.txt").string();
    std::ofstream(text) << "not a model\n";
    const Outcome junk = run_cli({"llama-3.3-70b", "--draft", text});
    CHECK(junk.code == 2);
    CHECK(junk.out.empty());
    CHECK(has(junk.err, "canitrun: error: "));
}

}  // namespace canitrun
