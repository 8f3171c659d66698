// `canitrun verify` on llama-bench output, through the binary: every format it writes, each row
// beside the speed model's prediction for the GPU named with --gpu.
#include <nlohmann/json.hpp>
#include <string>

#include "catch.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::run_cli;
using nlohmann::json;

namespace {

constexpr const char* kDir = CANITRUN_FIXTURES "/llama-bench/";

json verify_json(const std::string& file, const std::string& gpu) {
    std::vector<std::string> args = {"verify", std::string(kDir) + file, "--json"};
    if (!gpu.empty()) args.insert(args.end(), {"--gpu", gpu});
    const auto o = run_cli(args);
    REQUIRE(o.code == 0);
    return json::parse(o.out);
}

}  // namespace

// a100-pcie-cuda-b2836.md is XiongjieDai's A100 PCIe table (its source in SOURCES.txt): its first
// row, "| llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B | CUDA | 99 | pp 512 | 5981.04 ± 24.41 |".
TEST_CASE("verify reads a llama-bench table and predicts each row on the GPU given") {
    const json doc = verify_json("a100-pcie-cuda-b2836.md", "a100-80gb-pcie");
    CHECK(doc["format"] == "markdown");
    REQUIRE(doc["rows"].size() == 6);
    const json& first = doc["rows"][0];
    CHECK(first["model_id"] == "llama-3.1-8b");
    CHECK(first["quant"] == "Q4_K_M");
    CHECK(first["test"] == "pp512");
    CHECK(first["measured_tokens_per_s"].get<double>() == Approx(5981.04));
    REQUIRE(first["predicted_tokens_per_s"].is_number());
    const double predicted = first["predicted_tokens_per_s"].get<double>();
    CHECK(first["error"].get<double>() == Approx(predicted / 5981.04 - 1));
    CHECK(first["band"].is_number());
}

// The same run written as a table, -o json, -o jsonl and -o csv reads the same.
TEST_CASE("verify gives the same rows for every llama-bench output format") {
    const json md = verify_json("llama-3.1-8b-rtx4090-depth.md", "rtx 4090");
    for (const char* other : {"llama-3.1-8b-rtx4090-depth.json", "llama-3.1-8b-rtx4090-depth.jsonl",
                              "llama-3.1-8b-rtx4090-depth.csv"}) {
        INFO(other);
        const json doc = verify_json(other, "rtx 4090");
        REQUIRE(doc["rows"].size() == md["rows"].size());
        for (std::size_t i = 0; i < md["rows"].size(); ++i) {
            CHECK(doc["rows"][i]["test"] == md["rows"][i]["test"]);
            CHECK(doc["rows"][i]["measured_tokens_per_s"].get<double>() ==
                  Approx(md["rows"][i]["measured_tokens_per_s"].get<double>()).epsilon(1e-3));
            CHECK(doc["rows"][i]["predicted_tokens_per_s"].get<double>() ==
                  Approx(md["rows"][i]["predicted_tokens_per_s"].get<double>()).epsilon(1e-3));
        }
    }
}

TEST_CASE("verify says which llama-bench rows it cannot predict, and why") {
    const json doc = verify_json("gpt-oss-120b-rocm-b9187.md", "");
    REQUIRE_FALSE(doc["rows"].empty());
    CHECK(doc["rows"][0]["predicted_tokens_per_s"].is_null());
    CHECK(has(doc["rows"][0]["why"].get<std::string>(), "--gpu"));
    const auto text = run_cli({"verify", std::string(kDir) + "gpt-oss-120b-rocm-b9187.md"});
    CHECK(text.code == 0);
    CHECK(has(text.out, "name it with --gpu"));
}
