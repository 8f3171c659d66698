// `canitrun compare` through the binary: the same planner as the model page, every format,
// model files as operands, and its refusals.

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "refusal.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_cli;
using nlohmann::json;

TEST_CASE("compare: side by side, with the reference page's figures under its rule") {
    const Outcome o = run_cli({"compare", "qwen3.5-35b-a3b", "llama-3.1-8b", "--engine", "quick"});
    INFO(o.err);
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "Qwen 3.5 35B-A3B"));
    CHECK(has(o.out, "Llama 3.1 8B"));
    CHECK(has(o.out, "35B (3B active)"));
    CHECK(has(o.out, "40: 30 Gated DeltaNet + 10 Gated Attention"));
    CHECK(has(o.out, "24.1 GB"));                  // the page's Q4_K_M total
    CHECK(has(o.out, "NVIDIA RTX 5090 (32 GB)"));  // the page's smallest GPU
    // KV at the full window: 5.4 GB (page); Llama 3.1 8B: 32 x 2 x 8 x 128 x 2 bytes x 131,072.
    CHECK(has(o.out, "5.4 GB"));
    CHECK(has(o.out, "17.2 GB"));
}

TEST_CASE("compare: the same answer as each model's own page, in JSON") {
    const Outcome c = run_cli({"compare", "qwen3.5-35b-a3b", "gpt-oss-20b", "--json"});
    REQUIRE(c.code == 0);
    const json doc = json::parse(c.out);
    REQUIRE(doc["models"].size() == 2);
    for (const auto& m : doc["models"]) {
        const Outcome page = run_cli({m["id"].get<std::string>(), "--json"});
        REQUIRE(page.code == 0);
        const json p = json::parse(page.out);
        CHECK(m["gpu_bytes"] == p["estimate"]["gpu_bytes"]);
        CHECK(m["kv_full_context_bytes"] == p["kv_comparison"]["kv_cache_bytes"]);
        CHECK(m["smallest_gpu"] == p["smallest_gpu"]["id"]);
        CHECK(m["rule"] == "llama.cpp");
    }
    CHECK(doc["models"][0]["kv_full_context_bytes"] == 5368709120ULL);
    CHECK(doc["models"][0]["layer_kinds"]["linear"] == 30);
    CHECK(doc["models"][0]["layer_kinds"]["full"] == 10);
}

TEST_CASE("compare: with --gpu, the plan, speed and best quantization of each") {
    const Outcome o = run_cli(
        {"compare", "qwen3.5-35b-a3b", "llama-3.1-8b", "--gpu", "RTX 4090", "--format", "csv"});
    REQUIRE(o.code == 0);
    const auto lines = canitrun::test::lines_of(o.out);
    REQUIRE(lines.size() == 3);
    CHECK(has(lines[0], "plan,decode_tokens_per_s,best_quant,max_context"));
    CHECK(has(lines[1], "qwen3.5-35b-a3b,"));
    CHECK(has(lines[2], "llama-3.1-8b,"));
    CHECK(has(lines[2], ",native,"));
    const Outcome md = run_cli({"compare", "qwen3.5-35b-a3b", "llama-3.1-8b", "--gpu", "RTX 4090",
                                "--format", "markdown"});
    REQUIRE(md.code == 0);
    CHECK(has(md.out, "| Decode speed"));
    CHECK(has(md.out, "| Best quantization that fits"));
}

TEST_CASE("compare: a config.json folder is an operand like a database model") {
    const Outcome o =
        run_cli({"compare", "qwen3.5-35b-a3b", std::string(CANITRUN_FIXTURES) + "/hf/qwen3-next"});
    INFO(o.err);
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "Gated DeltaNet"));
}

TEST_CASE("compare: refusals are one line and exit 2") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"compare", "qwen3.5-35b-a3b"}, "two or more models"},
        {{"compare", "qwen3.5-35b-a3b", "qwen3.5-35b-a3x"}, "did you mean"},
        {{"compare", "qwen3.5-35b-a3b", "llama-3.1-8b", "--engine", "vllm"},
         "llama.cpp's rule or the quick rule"},
        {{"compare", "qwen3.5-35b-a3b", "llama-3.1-8b", "--format", "html"}, "--format html"},
        {{"compare", "qwen3.5-35b-a3b", "llama-3.1-8b", "--chart"}, "--chart"},
    };
    for (const auto& [args, message] : cases) {
        canitrun::test::check_refusal(run_cli(args), args, message);
    }
}
