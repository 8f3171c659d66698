// The page's Download column (QuantRow::file_bytes, gguf_download_bytes): the GGUF file one
// downloads, beside what the runtime allocates, through the binary in each format.

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "json_rows.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::row_where;
using canitrun::test::run_cli;
using nlohmann::json;

namespace {

json download_q4_row(const std::string& model) {
    const auto o = run_cli({model, "--format", "json"});
    REQUIRE(o.code == 0);
    return row_where(json::parse(o.out).at("quants"), "quant", "Q4_K_M");
}

std::uint64_t download_term(const json& row, const std::string& name) {
    return row_where(row.at("terms"), "name", name).at("bytes").get<std::uint64_t>();
}

}  // namespace

// Gemma 3 27B ties its output head to token_embd (262,208 x 5,376). At Q4_K_M llama-quantize
// types that tensor as the output, Q6_K: 210 bytes a block of 256, 262,208 x 5,376 / 256 x 210 =
// 1,156,337,280 bytes. The file holds it once; llama.cpp holds it in RAM (token_embd) and again
// on the GPU as the output head, so the GPU's weights are every tensor of the file. The file is
// those tensors plus its header: 24 fixed bytes and the tokenizer, which for a vocabulary we
// have not measured is at least 12 bytes a token (262,208 x 12 = 3,146,496), plus one tensor
// info per tensor and the alignment (808 tensors, under 100 KB).
TEST_CASE("download: gemma-3-27b's file is its tensors once plus the header") {
    const json row = download_q4_row("gemma-3-27b");
    const auto file = row.at("file_bytes").get<std::uint64_t>();
    CHECK(download_term(row, "token_embd") == 1156337280ULL);
    const std::uint64_t header = file - download_term(row, "weights");
    CHECK(header >= 24 + 3146496);
    CHECK(header <= 24 + 3146496 + 100000);
    // so the runtime's weights (17.70 GB) are token_embd (1.16 GB) more than the file (16.54 GB)
    const std::uint64_t allocated =
        download_term(row, "weights") + download_term(row, "token_embd");
    CHECK(allocated - file == 1156337280ULL - header);
}

// bartowski's gemma-2-27b-it-Q4_K_M.gguf is 16.65 GB on its model card
// (tests/fixtures/published-sizes.json); the page's Download is within 1 % of it.
TEST_CASE("download: gemma-2-27b Q4_K_M within 1 % of the published 16.65 GB") {
    const auto file = download_q4_row("gemma-2-27b").at("file_bytes").get<double>();
    CHECK(file >= 16.65e9 * 0.99);
    CHECK(file <= 16.65e9 * 1.01);
}

TEST_CASE("download: the terminal table shows the file beside the weights") {
    const auto o = run_cli({"gemma-3-27b"});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "  Quant         Download   Weights  KV cache      VRAM     RAM\n"));
    // 16.54 GB file, 17.70 GB allocated (above)
    CHECK(has(o.out, "  Q4_K_M (rec)   16.5 GB   17.7 GB"));
    CHECK(has(o.out, "Download = the GGUF file (tensors, header and tokenizer)"));
}

TEST_CASE("download: csv and html carry the file size") {
    const auto csv = run_cli({"gemma-3-27b", "--format", "csv"});
    REQUIRE(csv.code == 0);
    CHECK(has(csv.out, ",recommended,gpu_bytes,host_bytes,file_bytes\r\n"));
    const auto file = download_q4_row("gemma-3-27b").at("file_bytes").get<std::uint64_t>();
    CHECK(has(csv.out, "," + std::to_string(file) + "\r\n"));
    const auto html = run_cli({"gemma-3-27b", "--format", "html"});
    REQUIRE(html.code == 0);
    CHECK(has(html.out, "<th>Download</th>"));
    CHECK(has(html.out, "<td>16.5 GB</td><td>17.7 GB</td>"));
}

// A format llama.cpp does not write has no GGUF file: null in JSON.
TEST_CASE("download: a format that is not GGUF has no file size") {
    const auto o =
        run_cli({"qwen3.5-35b-a3b", "--quant", "NVFP4", "--engine", "quick", "--format", "json"});
    REQUIRE(o.code == 0);
    CHECK(row_where(json::parse(o.out).at("quants"), "quant", "NVFP4").at("file_bytes").is_null());
}

// Unsloth's Qwen3.5-35B-A3B-Q4_K_M.gguf, the file `-hf unsloth/Qwen3.5-35B-A3B-GGUF:Q4_K_M`
// fetches, is 22,016,023,168 bytes, and the same repo's Q8_0 15,296 bytes over canitrun's Q8_0
// (the metadata canitrun does not measure; tests/fixtures/published-sizes.json): the page's
// Q4_K_M row is that file less the same 15,296, and says whose mix it is, in every format.
TEST_CASE("download: the page's Q4_K_M of Qwen 3.5 35B-A3B is Unsloth's file of that name") {
    const json row = download_q4_row("qwen3.5-35b-a3b");
    CHECK(row.at("file_bytes").get<std::uint64_t>() == 22016023168ULL - 15296);
    CHECK(row.at("publisher_mix") == "UD-Q4_K_M");
    const auto text = run_cli({"qwen3.5-35b-a3b"});
    REQUIRE(text.code == 0);
    CHECK(has(text.out,
              "In unsloth/Qwen3.5-35B-A3B-GGUF, Q4_K_M (its UD-Q4_K_M recipe) is "
              "unsloth's own mix, not llama-quantize's"));
    const auto html = run_cli({"qwen3.5-35b-a3b", "--format", "html"});
    REQUIRE(html.code == 0);
    CHECK(has(html.out, "Q4_K_M (its UD-Q4_K_M recipe) is unsloth&#39;s own mix"));
    // another publisher's repo names llama-quantize's own Q4_K_M: no such row field
    CHECK_FALSE(download_q4_row("qwen3.5-9b").contains("publisher_mix"));
}
