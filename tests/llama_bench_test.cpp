// llama-bench outputs: the recorded tables and the 2023 json/csv in tests/fixtures/llama-bench/
// (SOURCES.txt there says where each comes from), one illustrative run in all four formats,
// and text that is no llama-bench output. Expected figures are read off the fixture text.

#include <cmath>
#include <fstream>
#include <sstream>

#include "canitrun/llama_bench.hpp"
#include "canitrun/speed_check.hpp"
#include "catch.hpp"
#include "run_binary.hpp"
#include "test_support.hpp"

using namespace canitrun;

using canitrun::test::mib100;

namespace {

std::string read_fixture(const std::string& name) {
    return canitrun::test::read_file(std::string(CANITRUN_FIXTURES) + "/" + name);
}

LlamaBenchOutput parse_fixture(const std::string& name) {
    auto out = parse_llama_bench(read_fixture("llama-bench/" + name));
    if (!out) FAIL(out.error().message);
    return *out;
}

Bytes gib100(std::uint64_t hundredths) {  // "x.yy GiB" as llama-bench prints it, in bytes
    return (hundredths * (1ULL << 30) + 50) / 100;
}

std::string error_of(std::string_view text) {
    const auto out = parse_llama_bench(text);
    REQUIRE_FALSE(out);
    CHECK_FALSE(out.error().message.empty());
    CHECK(out.error().kind == ErrorKind::bad_input);
    return out.error().message;
}

constexpr const char* kHeader =
    "| model                          |       size |     params | backend    | ngl |            "
    "test |                  t/s |\n"
    "| ------------------------------ | ---------: | ---------: | ---------- | --: | "
    "--------------: | -------------------: |\n";

// One table row (the first row of a100-pcie-cuda-b2836.md) with `test` in its test cell.
std::string table_row(const std::string& test) {
    return std::string(kHeader) + "| llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B | CUDA | 99 | " +
           test + " | 1.00 ± 0.00 |\n";
}

}  // namespace

TEST_CASE("llama bench: the 2024 table, pp 512 spelling", "[llama_bench]") {
    const auto out = parse_fixture("a100-pcie-cuda-b2836.md");
    CHECK(out.format == "markdown");
    CHECK(out.skipped_lines == 0);
    REQUIRE(out.rows.size() == 6);
    // | llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B | CUDA | 99 | pp 512 | 5981.04 ± 24.41 |
    const auto& r = out.rows[0];
    CHECK(r.model == "llama 8B Q4_K - Medium");
    CHECK(r.size == gib100(458));
    CHECK(r.params == 8030000000ULL);
    CHECK(r.backend == "CUDA");
    CHECK(r.ngl == 99);
    CHECK(r.test == "pp512");
    CHECK(r.n_prompt == 512);
    CHECK(r.n_gen == 0);
    CHECK(r.n_depth == 0);
    CHECK(r.tokens_per_second == 5981.04);
    CHECK(r.stddev == 24.41);
    CHECK_FALSE(r.flash_attn.has_value());
    CHECK_FALSE(r.n_ubatch.has_value());
    CHECK(r.gpu_info == "NVIDIA A100 80GB PCIe");  // "  Device 0: NVIDIA A100 80GB PCIe, ..."
    CHECK(r.build == "8c570c94 (2836)");
    CHECK(out.rows[1].test == "tg512");  // "tg 512"
    CHECK(out.rows[1].n_gen == 512);
    CHECK(out.rows[1].tokens_per_second == 140.62);
    CHECK(out.rows[4].model == "llama 70B Q4_K - Medium");
    CHECK(out.rows[4].size == gib100(3959));
    CHECK(out.rows[4].params == 70550000000ULL);
    CHECK(out.rows[5].stddev == 0.06);
}

TEST_CASE("llama bench: fa and mmap columns, depth tests, Vulkan", "[llama_bench]") {
    const auto out = parse_fixture("gpt-oss-120b-vulkan-d32768-b9187.md");
    REQUIRE(out.rows.size() == 2);
    const auto& pp = out.rows[0];
    CHECK(pp.model == "gpt-oss 120B MXFP4 MoE");
    CHECK(pp.size == gib100(5902));
    CHECK(pp.params == 116830000000ULL);
    CHECK(pp.backend == "Vulkan");
    CHECK(pp.flash_attn == true);
    CHECK(pp.test == "pp2048 @ d32768");
    CHECK(pp.n_prompt == 2048);
    CHECK(pp.n_depth == 32768);
    CHECK(pp.tokens_per_second == 307.50);
    CHECK(pp.gpu_info.empty());  // the ggml_vulkan lines are not read
    CHECK(pp.build == "0253fb21f (9187)");
    CHECK(out.rows[1].test == "tg32 @ d32768");
    CHECK(out.rows[1].n_gen == 32);
    CHECK(out.rows[1].n_depth == 32768);
    CHECK(out.rows[1].stddev == 0.04);

    const auto plain = parse_fixture("gpt-oss-120b-vulkan-b9187.md");
    REQUIRE(plain.rows.size() == 2);
    CHECK(plain.rows[0].test == "pp512");
    CHECK(plain.rows[0].tokens_per_second == 719.91);
    CHECK(plain.rows[1].test == "tg128");
    CHECK(plain.rows[1].n_gen == 128);
}

TEST_CASE("llama bench: ROCm, Metal,BLAS and CUDA,RPC tables", "[llama_bench]") {
    const auto rocm = parse_fixture("gpt-oss-120b-rocm-b9187.md");
    REQUIRE(rocm.rows.size() == 2);
    CHECK(rocm.rows[0].backend == "ROCm");
    CHECK(rocm.rows[0].tokens_per_second == 625.58);
    CHECK(rocm.rows[0].stddev == 109.36);  // wider than the column: the row is still read
    CHECK(rocm.rows[0].gpu_info == "AMD Radeon Graphics");

    const auto metal = parse_fixture("qwen2-1.5b-metal-blas-b4229.md");
    REQUIRE(metal.rows.size() == 2);
    const auto& m = metal.rows[0];
    CHECK(m.backend == "Metal,BLAS");
    CHECK_FALSE(m.ngl.has_value());  // a CPU-like backend: threads instead of ngl
    CHECK(m.size == mib100(88597));  // "885.97 MiB"
    CHECK(m.params == 1540000000ULL);
    CHECK(m.tokens_per_second == 5765.41);
    CHECK(m.build == "3e0ba0e60 (4229)");

    const auto rpc = parse_fixture("qwen2-32b-cuda-rpc-b5293.md");
    REQUIRE(rpc.rows.size() == 2);
    CHECK(rpc.rows[0].backend == "CUDA,RPC");
    CHECK(rpc.rows[0].gpu_info == "Tesla P40");
    CHECK(rpc.rows[1].tokens_per_second == 9.48);
    CHECK(rpc.rows[1].stddev == 0.0);
    CHECK(rpc.rows[1].build == "1e333d5b (5293)");
}

TEST_CASE("llama bench: -o json", "[llama_bench]") {
    const auto out = parse_fixture("llama-3.1-8b-rtx4090-depth.json");
    CHECK(out.format == "json");
    CHECK(out.skipped_lines == 0);
    REQUIRE(out.rows.size() == 6);
    const auto& r = out.rows[0];
    CHECK(r.model == "llama 8B Q4_K - Medium");
    CHECK(r.size == 4912898304ULL);
    CHECK(r.params == 8030261248ULL);
    CHECK(r.backend == "CUDA");
    CHECK(r.ngl == 99);
    CHECK(r.flash_attn == true);
    CHECK(r.n_ubatch == 1024);
    CHECK(r.n_batch == 2048);
    CHECK(r.type_k == "f16");
    CHECK(r.type_v == "f16");
    CHECK(r.test == "pp512");
    CHECK(r.tokens_per_second == 11780.406414);
    CHECK(r.stddev == 52.100882);
    CHECK(r.gpu_info == "NVIDIA GeForce RTX 4090");
    CHECK(r.build == "1234abcd (5678)");
    CHECK(out.rows[2].test == "pp512+tg128");
    CHECK(out.rows[2].n_prompt == 512);
    CHECK(out.rows[2].n_gen == 128);
    CHECK(out.rows[3].test == "pp512 @ d4096");
    CHECK(out.rows[3].n_depth == 4096);
    CHECK(out.rows[5].test == "pp512+tg128 @ d4096");
}

TEST_CASE("llama bench: -o jsonl after stderr lines", "[llama_bench]") {
    const auto out = parse_fixture("llama-3.1-8b-rtx4090-depth.jsonl");
    CHECK(out.format == "jsonl");
    CHECK(out.skipped_lines == 0);  // ggml_cuda_init / load_backend lines are not results
    REQUIRE(out.rows.size() == 6);
    CHECK(out.rows[4].test == "tg128 @ d4096");
    CHECK(out.rows[4].tokens_per_second == 134.389762);
}

TEST_CASE("llama bench: -o csv", "[llama_bench]") {
    const auto out = parse_fixture("llama-3.1-8b-rtx4090-depth.csv");
    CHECK(out.format == "csv");
    REQUIRE(out.rows.size() == 6);
    CHECK(out.rows[1].test == "tg128");
    CHECK(out.rows[1].tokens_per_second == 150.773315);
    CHECK(out.rows[1].stddev == 0.226935);
    CHECK(out.rows[1].flash_attn == true);
    CHECK(out.rows[1].build == "1234abcd (5678)");
}

TEST_CASE("llama bench: one run in md, json, jsonl and csv gives the same rows", "[llama_bench]") {
    const auto md = parse_fixture("llama-3.1-8b-rtx4090-depth.md");
    const auto doc_json = parse_fixture("llama-3.1-8b-rtx4090-depth.json");
    for (const auto* other : {"llama-3.1-8b-rtx4090-depth.jsonl", "llama-3.1-8b-rtx4090-depth.csv",
                              "llama-3.1-8b-rtx4090-depth.json"}) {
        const auto o = parse_fixture(other);
        REQUIRE(md.rows.size() == o.rows.size());
        for (std::size_t i = 0; i < md.rows.size(); ++i) {
            const auto& a = md.rows[i];
            const auto& b = o.rows[i];
            CHECK(a.model == b.model);
            CHECK(a.backend == b.backend);
            CHECK(a.ngl == b.ngl);
            CHECK(a.flash_attn == b.flash_attn);
            CHECK(a.n_ubatch == b.n_ubatch);
            CHECK(a.test == b.test);
            CHECK(a.n_prompt == b.n_prompt);
            CHECK(a.n_gen == b.n_gen);
            CHECK(a.n_depth == b.n_depth);
            CHECK(a.gpu_info == b.gpu_info);
            CHECK(a.build == b.build);
            // The table rounds to two decimals; the other formats keep six.
            CHECK(std::abs(a.tokens_per_second - b.tokens_per_second) <= 0.005);
            CHECK(std::abs(*a.stddev - *b.stddev) <= 0.005);
            CHECK(*a.size > *b.size - (1ULL << 30) / 200);  // "4.58 GiB" is 0.005 GiB off at most
            CHECK(*a.size < *b.size + (1ULL << 30) / 200);
            CHECK(*a.params > *b.params - 5000000);
            CHECK(*a.params < *b.params + 5000000);
        }
    }
    CHECK(doc_json.rows[0].tokens_per_second == 11780.406414);
    CHECK(md.rows[0].tokens_per_second == 11780.41);
}

TEST_CASE("llama bench: 2023 json and csv, backend flags and no n_depth", "[llama_bench]") {
    const auto doc_json = parse_fixture("llama-7b-rtx3090ti-b1275.json");
    REQUIRE(doc_json.rows.size() == 2);
    const auto& r = doc_json.rows[0];
    CHECK(r.model == "llama 7B mostly Q4_0");
    CHECK(r.backend == "CUDA");  // "cuda": true, no "backends"
    CHECK(r.size == 3825065984ULL);
    CHECK(r.params == 6738415616ULL);
    CHECK(r.n_depth == 0);
    CHECK(r.n_batch == 512);
    CHECK_FALSE(r.n_ubatch.has_value());
    CHECK_FALSE(r.flash_attn.has_value());
    CHECK(r.tokens_per_second == 2410.974041);
    CHECK(r.build == "3469684 (1275)");
    CHECK(doc_json.rows[1].test == "tg128");

    const auto csv = parse_fixture("llama-7b-rtx3090ti-b1275.csv");
    REQUIRE(csv.rows.size() == 2);
    CHECK(csv.rows[0].backend == "CUDA");
    CHECK(csv.rows[0].gpu_info == "NVIDIA GeForce RTX 3090 Ti");
    CHECK(csv.rows[0].tokens_per_second == 2413.341687);
    CHECK(csv.rows[1].n_gen == 128);
    CHECK(csv.rows[1].stddev == 0.371342);
}

TEST_CASE("llama bench: blank cells repeat the row above", "[llama_bench]") {
    // The layout of llama.cpp PR #10140, which printed a value equal to the one above as blank.
    const std::string text =
        std::string(kHeader) +
        "| llama 7B F16 | 12.55 GiB | 6.74 B | CUDA | 99 | pp128 | 4258.54 ± 11.35 |\n"
        "|              |           |        |      |    | pp512 | 5613.05 ± 15.36 |\n"
        "| llama 7B Q4_0 | 3.56 GiB |        |      |    | pp512 | 7133.11 ± 9.10 |\n";
    const auto out = parse_llama_bench(text);
    REQUIRE(out);
    REQUIRE(out->rows.size() == 3);
    CHECK(out->rows[1].model == "llama 7B F16");
    CHECK(out->rows[1].size == gib100(1255));
    CHECK(out->rows[1].ngl == 99);
    CHECK(out->rows[1].test == "pp512");
    CHECK(out->rows[2].model == "llama 7B Q4_0");
    CHECK(out->rows[2].params == 6740000000ULL);
    CHECK(out->rows[2].backend == "CUDA");
}

TEST_CASE("llama bench: a tensor override with | in its regex", "[llama_bench]") {
    const std::string text =
        "| model | size | params | backend | ngl | ot | test | t/s |\n"
        "| --- | ---: | ---: | --- | --: | --- | ---: | ---: |\n"
        "| qwen3moe 30B.A3B Q4_K - Medium | 17.28 GiB | 30.53 B | CUDA | 99 | "
        "ffn_(up|down)_exps=CPU | tg128 | 31.20 ± 0.11 |\n";
    const auto out = parse_llama_bench(text);
    REQUIRE(out);
    REQUIRE(out->rows.size() == 1);
    CHECK(out->rows[0].ngl == 99);
    CHECK(out->rows[0].test == "tg128");
    CHECK(out->rows[0].tokens_per_second == 31.20);
}

TEST_CASE("llama bench: stderr inside the table and the json array", "[llama_bench]") {
    // --progress lines go to stderr between the rows; with 2>&1 they land inside the output.
    std::string md = read_fixture("llama-bench/a100-pcie-cuda-b2836.md");
    md.insert(md.find("| llama 8B F16"), "llama-bench: benchmark 3/6: starting\n");
    const auto table = parse_llama_bench(md);
    REQUIRE(table);
    CHECK(table->rows.size() == 6);
    CHECK(table->skipped_lines == 0);

    std::string doc_json = read_fixture("llama-bench/llama-3.1-8b-rtx4090-depth.json");
    doc_json.insert(doc_json.find("  {\n", 10), "llama-bench: benchmark 2/6: starting\n");
    doc_json += "main: done\n";
    const auto array = parse_llama_bench(doc_json);
    REQUIRE(array);
    CHECK(array->rows.size() == 6);
    CHECK(array->skipped_lines == 1);
}

TEST_CASE("llama bench: a 1 MiB line is skipped", "[llama_bench]") {
    std::string md = read_fixture("llama-bench/a100-pcie-cuda-b2836.md");
    md.insert(md.find("| llama 8B F16"), "|" + std::string(1 << 20, '9') + "\n");
    md.insert(0, std::string(1 << 20, 'x') + "\n");
    const auto out = parse_llama_bench(md);
    REQUIRE(out);
    CHECK(out->rows.size() == 6);
    CHECK(out->skipped_lines == 2);

    const auto alone = parse_llama_bench(std::string(1 << 20, '|'));
    REQUIRE_FALSE(alone);
}

TEST_CASE("llama bench: text that holds no result is an error", "[llama_bench]") {
    CHECK(error_of("") == "no llama-bench results in this text");
    CHECK(error_of(" \n\t\n") == "no llama-bench results in this text");
    CHECK(error_of(read_fixture("logs/llama-3.1-8b-Q4_K_M-cpu.log")) ==
          "no llama-bench results in this text");
    CHECK(error_of(std::string(kHeader) + "\nbuild: 8c570c94 (2836)\n") ==
          "the llama-bench table has a header but no result rows");
    CHECK(error_of("[\n]\n").find("no llama-bench result in this json output") == 0);
    CHECK(error_of("[\n  {\n    \"avg_ts\": 1.0,\n") ==
          "this llama-bench JSON output does not parse");
    CHECK(error_of("[ {}, 1, \"x\", [], null ]\n").find("(5 lines skipped)") != std::string::npos);
}

TEST_CASE("llama bench: garbage numbers are refused", "[llama_bench]") {
    const auto row = [](const std::string& size, const std::string& test, const std::string& ts) {
        return std::string(kHeader) + "| llama 8B Q4_K - Medium | " + size +
               " | 8.03 B | CUDA | 99 | " + test + " | " + ts + " |\n";
    };
    CHECK(parse_llama_bench(row("4.58 GiB", "pp512", "5981.04 ± 24.41")));
    for (const auto& ts : {"abc ± 1.00", "-5.00 ± 1.00", "nan ± 1.00", "inf", "1e999 ± 0.00",
                           "5981.04 ± ", "5981.04 ± x", "0x10 ± 1.00", "+5.00 ± 1.00", ""}) {
        CAPTURE(ts);
        CHECK(error_of(row("4.58 GiB", "pp512", ts)).find("1 lines skipped") != std::string::npos);
    }
    for (const auto& test : {"pp", "pp0", "pq512", "pp512 @ 4096", "pp512 @ dx", "tg128+pp512",
                             "pp-1", "pp99999999999999999999"}) {
        CAPTURE(test);
        CHECK_FALSE(parse_llama_bench(row("4.58 GiB", test, "1.00 ± 0.00")));
    }
    for (const auto& size : {"4.58", "4.58 GB", "-4.58 GiB", "1e3 GiB", "4..58 GiB",
                             "9999999999999999 GiB", "99999999999.99 GiB"}) {
        CAPTURE(size);
        CHECK_FALSE(parse_llama_bench(row(size, "pp512", "1.00 ± 0.00")));
    }
    // json: a rate that is not a number, or negative, leaves the entry out.
    CHECK_FALSE(
        parse_llama_bench("[ {\"n_prompt\": 512, \"n_gen\": 0, \"avg_ts\": \"fast\"},\n"
                          "  {\"n_prompt\": 512, \"n_gen\": 0, \"avg_ts\": -3.5} ]\n"));
    CHECK_FALSE(parse_llama_bench("{\"n_prompt\": 0, \"n_gen\": 0, \"avg_ts\": 3.5}\n"));
}

// The table's test cells are read by parse_bench_test, and the json fields pass its limits: a
// row's counts are what parse_bench_test reads from the row's test name, in every format.
TEST_CASE("llama bench: row counts match parse_bench_test of the row's test name",
          "[llama_bench]") {
    struct Counts {
        std::uint64_t n_prompt, n_gen, n_depth;
    };
    // The fixture's test column: pp512, tg128, pp512+tg128, then each at d4096.
    const Counts expected[] = {{512, 0, 0},    {0, 128, 0},    {512, 128, 0},
                               {512, 0, 4096}, {0, 128, 4096}, {512, 128, 4096}};
    for (const char* file : {"llama-3.1-8b-rtx4090-depth.md", "llama-3.1-8b-rtx4090-depth.json"}) {
        CAPTURE(file);
        const auto out = parse_fixture(file);
        REQUIRE(out.rows.size() == 6);
        for (std::size_t i = 0; i < 6; ++i) {
            CAPTURE(out.rows[i].test);
            const auto& row = out.rows[i];
            CHECK(row.n_prompt == expected[i].n_prompt);
            CHECK(row.n_gen == expected[i].n_gen);
            CHECK(row.n_depth == expected[i].n_depth);
            const auto named = parse_bench_test(row.test);
            REQUIRE(named);
            CHECK(named->n_prompt == expected[i].n_prompt);
            CHECK(named->n_gen == expected[i].n_gen);
            CHECK(named->depth == expected[i].n_depth);
        }
    }
    // 2^24 prompt tokens is the most either reads; 2^24 + 1 leaves the json entry out.
    const auto doc_json = [](const std::string& n_prompt) {
        return "{\"n_prompt\": " + n_prompt + ", \"n_gen\": 0, \"avg_ts\": 3.5}\n";
    };
    const auto most = parse_llama_bench(doc_json("16777216"));
    REQUIRE(most);
    REQUIRE(most->rows.size() == 1);
    CHECK(most->rows[0].test == "pp16777216");
    CHECK(parse_bench_test("pp16777216"));
    CHECK_FALSE(parse_llama_bench(doc_json("16777217")));
    CHECK_FALSE(parse_bench_test("pp16777217"));
}

TEST_CASE("llama bench: a test cell reads as parse_bench_test reads the name", "[llama_bench]") {
    struct Case {
        const char* name;
        bool reads;
        std::uint64_t n_prompt = 0, n_gen = 0, n_depth = 0;
    };
    const Case cases[] = {
        {"pp512", true, 512, 0, 0},
        {"pp 512", true, 512, 0, 0},  // builds before mid 2024
        {"tg128 @ d4096", true, 0, 128, 4096},
        {"pp512+tg128 @ d4096", true, 512, 128, 4096},
        {"pp512 + tg128", true, 512, 128, 0},
        {"pp512@d4096", true, 512, 0, 4096},
        {"pp16777216", true, 16777216, 0, 0},       // 2^24 tokens: the most
        {"tg1 @ d67108864", true, 0, 1, 67108864},  // 2^26: the deepest
        {"pp16777217", false},
        {"tg1 @ d67108865", false},
        {"pp0+tg128", false},  // a count of 0 is never printed
        {"pp512+tg0", false},
        {"tg128+pp512", false},  // llama-bench prints the prompt part first
        {"pp  512", false},      // one space at most, as old builds printed
        {"pp512 @ d 4096", false},
        {"pp512\t@ d4096", false},
        {"pp512+", false},
        {"pptg128", false},
        {"pp512 @ d4096 @ d1", false},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        const auto table = parse_llama_bench(table_row(c.name));
        const auto named = parse_bench_test(c.name);
        CHECK(table.has_value() == c.reads);
        CHECK(named.has_value() == c.reads);
        if (!c.reads || !table || !named) continue;
        REQUIRE(table->rows.size() == 1);
        CHECK(table->rows[0].n_prompt == c.n_prompt);
        CHECK(table->rows[0].n_gen == c.n_gen);
        CHECK(table->rows[0].n_depth == c.n_depth);
        CHECK(named->n_prompt == c.n_prompt);
        CHECK(named->n_gen == c.n_gen);
        CHECK(named->depth == c.n_depth);
    }
}

TEST_CASE("llama bench: copied text is bounded", "[llama_bench]") {
    // Blank cells, device lines and the build line are copied into every later row: each is
    // capped, so a short text cannot grow a huge result (llama-bench's model text is < 128).
    std::string devices = "ggml_cuda_init: found 20 CUDA devices:\n";
    for (int i = 0; i < 20; ++i) {
        devices += "  Device " + std::to_string(i) + ": GPU" + std::to_string(i) +
                   ", compute capability 8.9, VMM: yes\n";
    }
    devices += "  Device 20: " + std::string(200, 'G') + ", compute capability 8.9, VMM: yes\n";
    const std::string text =
        devices + kHeader + "| " + std::string(200, 'm') +
        " | 1.00 GiB | 1.00 B | CUDA | 99 | "
        "pp512 | 1.00 ± 0.00 |\n"
        "| llama 8B Q4_0 | 1.00 GiB | 1.00 B | CUDA | 99 | pp512 | 2.00 ± 0.00 |\n"
        "build: " +
        std::string(200, 'b') + "\n";
    const auto out = parse_llama_bench(text);
    REQUIRE(out);
    REQUIRE(out->rows.size() == 1);  // the 200-byte model name does not read
    CHECK(out->skipped_lines == 1);
    CHECK(out->rows[0].gpu_info.starts_with("GPU0, GPU1, "));
    CHECK(out->rows[0].gpu_info.ends_with(", GPU15"));  // 16 devices at most
    CHECK(out->rows[0].build.empty());                  // a 200-byte build is not one
}

TEST_CASE("llama bench: a stray json line does not hide the table", "[llama_bench]") {
    // Each format is tried once, in order of its first line; the first with results wins.
    const std::string text = "{\"tid\": \"1\", \"msg\": \"model loaded\"}\n" +
                             read_fixture("llama-bench/qwen2-32b-cuda-rpc-b5293.md");
    const auto out = parse_llama_bench(text);
    REQUIRE(out);
    CHECK(out->format == "markdown");
    CHECK(out->rows.size() == 2);
    // With no result anywhere, the error is the first format's.
    CHECK(error_of("{\"tid\": \"1\"}\n" + std::string(kHeader)).find("jsonl output") !=
          std::string::npos);
}
