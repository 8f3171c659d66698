// The quality floor of every choice among quantizations (--min-quant, PlanSettings::
// min_quality_rank): the best quantization, fit and --vram never pick a type below it, a
// quantization named with --quant is planned whatever its rank, and a page that makes no
// choice refuses the flag.

#include <array>
#include <nlohmann/json.hpp>

#include "canitrun/plan_settings.hpp"
#include "catch.hpp"
#include "run_binary.hpp"
#include "test_support.hpp"

using canitrun::test::has;
using canitrun::test::run_cli;
using nlohmann::json;

namespace canitrun {
namespace {

const Quant& quant(const std::string& id) {
    return **test::database().find_quant(id);
}

// data/quants.json: the types ranked below Q2_K, the default floor.
constexpr std::array<const char*, 7> kBelowQ2K = {"IQ2_S", "IQ2_XS", "IQ2_XXS", "IQ1_M",
                                                  "IQ1_S", "TQ2_0",  "TQ1_0"};

}  // namespace

TEST_CASE("quality floor: a rule offers nothing ranked below the floor") {
    PlanSettings s;
    s.min_quality_rank = quant(kDefaultMinQuant).quality_rank;
    REQUIRE(s.min_quality_rank == quant("Q2_K").quality_rank);
    CHECK(*rule_offers(s, quant("Q2_K")));
    CHECK(*rule_offers(s, quant("IQ2_M")));  // ranked above Q2_K
    CHECK(*rule_offers(s, quant("Q4_K_M")));
    for (const auto& id : kBelowQ2K) {
        INFO(id);
        CHECK_FALSE(*rule_offers(s, quant(id)));
    }
    // The floor is the rule's only addition: llama.cpp loads no AWQ file at any floor.
    CHECK_FALSE(*rule_offers(s, quant("AWQ")));
    s.min_quality_rank = 0;  // no floor
    CHECK(*rule_offers(s, quant("IQ1_S")));
    const PlanSettings quick = quick_settings();
    CHECK(*rule_offers(quick, quant("AWQ")));
}

TEST_CASE("quality floor: fit picks nothing below Q2_K unless --min-quant lowers it") {
    // Llama 3.3 70B (70e9 params in the data) under the quick rule on an RTX 4090 (24 GiB =
    // 25,769,803,776 B): KV 80 layers x 8 KV heads x 128 x 2 x 2 B x 8192 = 2,684,354,560 B, so
    // weights must stay under 25,769,803,776 / 1.12 - 2,684,354,560 = 20,324,398,811 B, 2.3228
    // bits per weight. Q2_K (3.042) is over it: by default the model is not listed at all.
    const auto listed = [](const std::vector<std::string>& extra) {
        std::vector<std::string> args = {"fit", "--gpu", "RTX 4090", "--json", "--engine", "quick"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto o = run_cli(args);
        INFO(o.err);
        REQUIRE(o.code == 0);
        const json doc = json::parse(o.out);
        std::map<std::string, std::string> quant_of;
        for (const auto& m : doc["models"]) quant_of[m["model"]] = m["quant"];
        REQUIRE_FALSE(quant_of.empty());
        return quant_of;
    };
    const auto floor = listed({});
    CHECK(floor.count("llama-3.3-70b") == 0);
    for (const auto& [model, q] : floor) {
        INFO(model << " at " << q);
        CHECK(quant(q).quality_rank <= quant("Q2_K").quality_rank);
    }
    // --min-quant IQ1_S: IQ1_M (2.146 bpw, rank 45) is the best-ranked GGUF type under 2.3228
    // (IQ2_XXS is 2.3824).
    const auto any = listed({"--min-quant", "IQ1_S"});
    REQUIRE(any.count("llama-3.3-70b") == 1);
    CHECK(any.at("llama-3.3-70b") == "IQ1_M");
    CHECK(any.size() > floor.size());
}

TEST_CASE("quality floor: the best quantization on a GPU stays at or above the floor") {
    // Qwen 3.5 35B-A3B on an 8 GB card: its Q2_K file is about 35e9 x 3.042 / 8 = 13.3 GB, so
    // nothing at or above the floor fits whole; the best is an offload plan at or above it.
    const auto o = run_cli({"qwen3.5-35b-a3b", "--gpu", "RTX 4060", "--json"});
    INFO(o.err);
    REQUIRE(o.code == 1);  // not native: exit 1
    const json best = json::parse(o.out)["hardware"]["best"];
    REQUIRE(best.is_object());
    CHECK(quant(best["quant"]).quality_rank <= quant("Q2_K").quality_rank);
    CHECK(best["plan"] != "native");
}

TEST_CASE("quality floor: a quantization asked for is planned, in any row or below the floor") {
    // Qwen 3 8B at Q4_K_S, a type the page's table has no row for: about 8.2e9 params x
    // 4.6672 / 8 = 4.8 GB of weights and 36 x 8 x 128 x 2 x 2 B x 8192 = 1.21 GB of KV, far
    // under 24 GB less the 1 GiB margin.
    const auto o = run_cli({"qwen3-8b", "--quant", "Q4_K_S", "--vram", "24", "--json"});
    INFO(o.err);
    REQUIRE(o.code == 0);
    CHECK(json::parse(o.out)["vram_query"]["fits_recommended"] == true);
    // IQ1_S, below the floor, is still planned when named: 8.2e9 x 2.0042 / 8 = 2.05 GB.
    const auto low = run_cli({"qwen3-8b", "--quant", "IQ1_S", "--vram", "24", "--json"});
    REQUIRE(low.code == 0);
    CHECK(json::parse(low.out)["vram_query"]["fits_recommended"] == true);
}

TEST_CASE("quality floor: --min-quant is refused where no choice is made") {
    const auto unknown = run_cli({"fit", "--gpu", "RTX 4090", "--min-quant", "Q2_X"});
    CHECK(unknown.code == 2);
    CHECK(has(unknown.err, "unknown quantization 'Q2_X'"));
    const auto gpus = run_cli({"gpus", "qwen3-8b", "--min-quant", "Q2_K"});
    CHECK(gpus.code == 2);
    CHECK(has(gpus.err, "does not apply to gpus"));
    const auto file = run_cli({"model.gguf", "--min-quant", "Q2_K"});
    CHECK(file.code == 2);
    CHECK(has(file.err, "--min-quant bounds the choice among the database's quantizations"));
    const auto vllm = run_cli({"qwen3-8b", "--engine", "vllm", "--min-quant", "Q2_K"});
    CHECK(vllm.code == 2);
    CHECK(has(vllm.err, "--engine vllm / exo choose none"));
}

}  // namespace canitrun
