// End to end: the real binary, argv in, stdout / stderr / exit code out.

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "json_rows.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::row_where;
using canitrun::test::run_cli;

TEST_CASE("cli: the model page shows the reference page's figures") {
    const Outcome o = run_cli({"qwen3.5-35b-a3b", "--engine", "quick"});
    CHECK(o.code == 0);
    CHECK(o.err.empty());
    CHECK(has(o.out, "Qwen 3.5 35B-A3B (MoE)"));
    CHECK(has(o.out, "needs roughly 24.1 GB VRAM at Q4_K_M (78.6 GB at FP16)"));
    CHECK(has(o.out, "NVIDIA RTX 5090, at Q4_K_M"));
    CHECK(has(o.out, "10 of 40 layers cache"));
    // Weights, KV cache, Total after the Download column (download_size_cli_test.cpp); NVFP4 is
    // no GGUF file, so it has no download size.
    CHECK(has(o.out, "  Q4_K_M (rec)  "));
    CHECK(has(o.out, "   21.3 GB   0.17 GB   24.1 GB\n"));
    CHECK(has(o.out, "NVFP4 (CUDA only)         -   17.5 GB   0.17 GB   19.8 GB"));
    CHECK(has(o.out, "29.9 GB"));
    CHECK(has(o.out, "47.9 GB"));
    CHECK(has(o.out, "Highest-quality quantization that fits in 24 GB: NVFP4, 19.8 GB."));
    CHECK(has(o.out, "-hf unsloth/Qwen3.5-35B-A3B-GGUF:Q4_K_M"));
    CHECK(has(o.out, "ollama run qwen3.5:35b-a3b"));
}

TEST_CASE("cli: --json is one JSON document with integer bytes") {
    const Outcome o = run_cli({"qwen3.5-35b-a3b", "--json", "--engine", "quick"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    CHECK(doc["model"]["id"] == "qwen3.5-35b-a3b");
    CHECK(doc["context"] == 8192);
    CHECK(doc["kv_type"] == "f16");
    REQUIRE(doc["quants"].size() == 10);
    const auto& q4 = row_where(doc["quants"], "quant", "Q4_K_M");
    CHECK(q4["recommended"] == true);
    // Worked by hand in reference_page_test.cpp.
    CHECK(q4["weights_bytes"].get<std::uint64_t>() == 21319375000ULL);
    CHECK(q4["kv_cache_bytes"].get<std::uint64_t>() == 167772160ULL);
    CHECK(q4["overhead_bytes"].get<std::uint64_t>() == 2578457659ULL);
    CHECK(q4["total_bytes"].get<std::uint64_t>() == 24065604819ULL);
    CHECK(doc["smallest_gpu"]["id"] == "rtx-5090");
    CHECK(doc["smallest_gpu"]["vram_bytes"].get<std::uint64_t>() == 32ULL << 30);
    CHECK(!doc["gpus"]["native"].empty());
    CHECK(!doc["gpus"]["offload"].empty());
}

TEST_CASE("cli: --ctx and --quant change the answer") {
    const Outcome o = run_cli(
        {"qwen3.5-35b-a3b", "--quant", "q4_k_m", "--ctx", "256k", "--json", "--engine", "quick"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    CHECK(doc["context"] == 262144);
    // 10 x 2048 bytes x 262144
    CHECK(row_where(doc["estimate"]["terms"], "name", "kv_cache")["bytes"].get<std::uint64_t>() ==
          5368709120ULL);
}

TEST_CASE("cli: --vram answers the budget question") {
    const Outcome o = run_cli({"qwen3.5-35b-a3b", "--vram", "24", "--json", "--engine", "quick"});
    REQUIRE(o.code == 0);
    const auto doc = nlohmann::json::parse(o.out);
    CHECK(doc["vram_query"]["fits_recommended"] == false);
    CHECK(doc["vram_query"]["best_quant"] == "NVFP4");
}

// Q4_K_M at 8k totals 24,065,604,819 B: within the RTX 4090's real 24 GiB (25,769,803,776 B),
// beyond the RTX 4080's 16 GiB, which runs it with experts in RAM (placement_test.cpp: 13 layers).
TEST_CASE("cli: --gpu exits 1 when it does not fit the GPU and 0 when it does") {
    const Outcome no = run_cli({"qwen3.5-35b-a3b", "--gpu", "RTX 4080", "--engine", "quick"});
    CHECK(no.code == 1);
    CHECK(has(no.out, "--n-cpu-moe 13"));
    const Outcome yes = run_cli({"qwen3.5-35b-a3b", "--gpu", "rtx 4090", "--engine", "quick"});
    CHECK(yes.code == 0);
    CHECK(has(yes.out, "Fits on the GPU: 24.1 GB of 25.8 GB."));
}

// The llama.cpp rule keeps 1 GiB free per GPU: the RTX 4090's 24 GiB = 25,769,803,776 B less
// 1,073,741,824 B = 24,696,061,952 B usable (24.7 GB), the figure the plan is measured against,
// which the sentence, the table's Usable column and the JSON all name as usable, beside the
// card's 25.8 GB. Two 4090s with --margin 2048 (2 GiB = 2,147,483,648 B each): 2 x
// 23,622,320,128 = 47,244,640,256 B usable (47.2 GB) of 2 x 25,769,803,776 = 51,539,607,552 B.
TEST_CASE("cli: --gpu says which figure is the card's memory and which is usable") {
    const Outcome one = run_cli({"qwen3.5-35b-a3b", "--gpu", "rtx 4090"});
    REQUIRE(one.code == 0);
    CHECK(has(one.out, " GB of 24.7 GB usable (25.8 GB less 1 GiB kept free)."));
    CHECK(has(one.out, "Total   Usable"));
    CHECK_FALSE(has(one.out, "of 25.8 GB."));
    const Outcome js = run_cli({"qwen3.5-35b-a3b", "--gpu", "rtx 4090", "--json"});
    REQUIRE(js.code == 0);
    const auto hw = nlohmann::json::parse(js.out)["hardware"];
    CHECK(hw["hardware"]["gpus"][0]["memory_bytes"] == 25769803776ULL);
    CHECK(hw["selected"]["gpus"][0]["capacity_bytes"] == 24696061952ULL);
    CHECK(hw["selected"]["gpu_usable_bytes"] == 24696061952ULL);
    const Outcome two = run_cli({"qwen3.5-35b-a3b", "--gpu", "2x4090", "--margin", "2048"});
    CHECK(has(two.out, " GB of 47.2 GB usable (51.5 GB less 2 GiB kept free on each GPU)"));
}

TEST_CASE("cli: gpus - models - gpu-list and quants") {
    const Outcome gpus = run_cli({"gpus", "qwen3.5-35b-a3b", "--engine", "quick"});
    CHECK(gpus.code == 0);
    CHECK(has(gpus.out, "Run it natively"));
    CHECK(has(gpus.out, "NVIDIA RTX 5090"));
    const Outcome models = run_cli({"models", "--family", "qwen", "--json"});
    CHECK(models.code == 0);
    const auto list = nlohmann::json::parse(models.out);
    CHECK(list.size() > 1);
    for (const auto& m : list) CHECK(has(m["family"].get<std::string>(), "qwen"));
    const Outcome amd = run_cli({"gpu-list", "--vendor", "amd", "--min-vram", "24", "--json"});
    CHECK(amd.code == 0);
    for (const auto& g : nlohmann::json::parse(amd.out)) {
        CHECK(g["vendor"] == "amd");
        CHECK(g["vram_gb"].get<int>() >= 24);
    }
    const Outcome quants = run_cli({"quants"});
    CHECK(quants.code == 0);
    CHECK(has(quants.out, "Q4_K_M (rec)"));
}

TEST_CASE("cli: bad input gets one clear line - a suggestion - exit 2 and empty stdout") {
    struct Case {
        std::vector<std::string> args;
        const char* message;
    };
    const Case cases[] = {
        {{"qwen3.5-35b-a3x"},
         "canitrun: error: unknown model 'qwen3.5-35b-a3x'; did you mean 'qwen3.5-35b-a3b'"},
        {{"qwen3.5-35b-a3b", "--ctx", "lots"}, "canitrun: error: invalid context length 'lots'"},
        {{"qwen3.5-35b-a3b", "--quant", "Q4_K_X"},
         "canitrun: error: unknown quantization 'Q4_K_X'; did you mean"},
        {{"qwen3.5-35b-a3b", "--gpu", "RTX 9999 Ti"}, "canitrun: error: unknown GPU 'RTX 9999 Ti'"},
        {{"qwen3.5-35b-a3b", "--kv-type", "q3"}, "canitrun: error: unknown KV cache type 'q3'"},
        {{"qwen3.5-35b-a3b", "--vram", "-4"}, "canitrun: error: invalid size '-4'"},
        {{"qwen3.5-35b-a3b", "--data", "/nonexistent/canitrun"},
         "canitrun: error: cannot read database folder"},
        {{"qwen3.5-35b-a3b", "--bogus"}, "canitrun: error:"},
        {{}, "canitrun: error: name a model"},
    };
    for (const auto& c : cases) {
        const Outcome o = run_cli(c.args);
        INFO(o.err);
        CHECK(o.code == 2);
        CHECK(o.out.empty());
        CHECK(o.err.rfind(c.message, 0) == 0);
    }
}

TEST_CASE("cli: --data loads a database folder - and a malformed one is refused") {
    const Outcome ok = run_cli({"--data", CANITRUN_DATA_DIR, "qwen3.5-35b-a3b", "--json"});
    CHECK(ok.code == 0);
    const Outcome bad = run_cli({"--data", CANITRUN_FIXTURES "/bad-database", "qwen3.5-35b-a3b"});
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(has(bad.err, "malformed JSON in models/broken.json"));
}

TEST_CASE("cli: --help and --version answer on stdout with exit 0") {
    const Outcome help = run_cli({"--help"});
    CHECK(help.code == 0);
    CHECK(has(help.out, "Examples:"));
    const Outcome version = run_cli({"--version"});
    CHECK(version.code == 0);
    CHECK(has(version.out, "canitrun "));
}

TEST_CASE("cli: models --since keeps the models released on or after a month or day") {
    // Qwen 3.5 35B-A3B was released 2026-02-24, Llama 3.1 8B 2024-07-23 (their data entries).
    const Outcome feb = run_cli({"models", "--since", "2026-02", "--json"});
    REQUIRE(feb.code == 0);
    const auto doc = nlohmann::json::parse(feb.out);
    bool qwen = false, llama = false;
    for (const auto& m : doc) {
        CHECK(m["released"].get<std::string>() >= "2026-02");
        qwen |= m["id"] == "qwen3.5-35b-a3b";
        llama |= m["id"] == "llama-3.1-8b";
    }
    CHECK(qwen);
    CHECK_FALSE(llama);
    // The day counts: 2026-02-25 is after Qwen 3.5's release.
    CHECK_FALSE(
        has(run_cli({"models", "--since", "2026-02-25", "--names"}).out, "qwen3.5-35b-a3b\n"));
    const Outcome bad = run_cli({"models", "--since", "2026-13"});
    CHECK(bad.code == 2);
    CHECK(has(bad.err, "invalid date '2026-13'"));
}

TEST_CASE("cli: a published recipe is accepted by --quant, -hf only where the repo publishes it") {
    // issue #38: "--quant UD-Q4_K_XL" was an unknown quantization
    const Outcome ud = run_cli({"qwen3-8b", "--quant", "UD-Q4_K_XL"});
    CHECK(ud.code == 0);
    CHECK(has(ud.out, "-hf unsloth/Qwen3-8B-GGUF:UD-Q4_K_XL"));
    // bartowski's Q4_K_L is his recipe: unsloth/Qwen3-8B-GGUF holds no such file
    const Outcome other = run_cli({"qwen3-8b", "--quant", "Q4_K_L"});
    CHECK(other.code == 0);
    CHECK(has(other.out, "-m qwen3-8b-Q4_K_L.gguf"));
    CHECK_FALSE(has(other.out, "-hf unsloth/Qwen3-8B-GGUF:Q4_K_L"));
    const Outcome his = run_cli({"llama-3.1-8b", "--quant", "q4_k_l"});
    CHECK(his.code == 0);
    CHECK(has(his.out, "-hf bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_L"));
}
