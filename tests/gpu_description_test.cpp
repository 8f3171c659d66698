// --gpu-spec files: a GPU the database lacks, read field by field with every problem named.

#include "canitrun/gpu_description.hpp"

#include "canitrun/bounded_file.hpp"
#include "canitrun/hardware.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

std::string spec_fixture(const std::string& name) {
    const std::string path = std::string(CANITRUN_FIXTURES) + "/gpu-spec/" + name;
    return read_bounded_file(path, kMaxGpuDescriptionBytes, "--gpu-spec file").value();
}

std::vector<std::string> spec_problems(const std::string& text) {
    const auto g = parse_gpu_description(text, "card.json");
    REQUIRE_FALSE(g);
    std::vector<std::string> lines;
    for (const Error& e : g.error()) {
        CHECK(e.kind == ErrorKind::bad_input);
        CHECK_FALSE(e.hint.empty());
        lines.push_back(e.message);
    }
    return lines;
}

bool spec_has(const std::vector<std::string>& lines, const std::string& part) {
    for (const auto& l : lines) {
        if (l.find(part) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

// The MTT S80 as Moore Threads launched it: 16 GB GDDR6 (16 GiB), 448 GB/s, 14.4 TFLOPS.
TEST_CASE("gpu spec file: a described card becomes a GPU the planner takes") {
    const auto g = parse_gpu_description(spec_fixture("mtt-s80.json"), "mtt-s80.json");
    REQUIRE(g);
    CHECK(g->id == "moore-threads-mtt-s80");
    CHECK(g->name == "Moore Threads MTT S80");
    CHECK(g->vendor == "other");
    CHECK(g->vram_bytes == 16ULL << 30);
    CHECK(g->vram_gb == 16);
    CHECK(g->bandwidth_gbps == 448);
    CHECK(g->fp16_tflops == 14.4);
    CHECK(g->gpu_class == GpuClass::consumer);
    CHECK(g->backends == std::vector<std::string>{"vulkan"});
    CHECK(g->source.rfind("--gpu-spec mtt-s80.json: Moore Threads' launch", 0) == 0);
    const GpuDevice d = device_for(*g);
    CHECK(d.name == "Moore Threads MTT S80");  // vendor "other" adds no vendor word
    CHECK(d.memory == 16ULL << 30);
}

TEST_CASE("gpu spec file: the described GPU is named by id or name, with counts") {
    auto g = parse_gpu_description(spec_fixture("mtt-s80.json"), "mtt-s80.json");
    REQUIRE(g);
    const auto db = with_described_gpus(test::database(), {*g});
    REQUIRE(db);
    CHECK(db->gpus.size() == test::database().gpus.size() + 1);
    const auto two = parse_gpu_spec(*db, "2x moore-threads-mtt-s80");
    REQUIRE(two);
    CHECK(two->size() == 2);
    CHECK(parse_gpu_spec(*db, "Moore Threads MTT S80").value()[0]->bandwidth_gbps == 448);
    // A name the database already answers is refused: the database's entry is the one to use.
    g->id = "rtx-4090";
    const auto clash = with_described_gpus(test::database(), {*g});
    REQUIRE_FALSE(clash);
    CHECK(clash.error().message.find("which the database already names: 'rtx-4090'") !=
          std::string::npos);
    CHECK(clash.error().hint.rfind("use --gpu rtx-4090", 0) == 0);
}

TEST_CASE("gpu spec file: every problem has its own line") {
    const auto lines = spec_problems(spec_fixture("three-mistakes.json"));
    REQUIRE(lines.size() == 3);
    CHECK(spec_has(lines, "card.json: unknown field 'bandwith_gbps'"));
    CHECK(spec_has(lines, "card.json: vendor 'moore threads' is not one canitrun plans"));
    CHECK(spec_has(lines, "card.json: field 'bandwidth_gbps' is missing"));
}

TEST_CASE("gpu spec file: memory as GB or bytes, one of them, within bounds") {
    const std::string base =
        R"("name": "Card", "vendor": "nvidia", "bandwidth_gbps": 100, "fp16_tflops": 10)";
    auto exact = parse_gpu_description("{" + base + R"(, "memory_bytes": 12884901888})", "c");
    REQUIRE(exact);
    CHECK(exact->vram_bytes == 12884901888ULL);  // 12 GiB
    CHECK(exact->vram_gb == 12);
    CHECK(spec_has(spec_problems("{" + base + "}"), "field 'memory_gb' is missing"));
    CHECK(spec_has(spec_problems("{" + base + R"(, "memory_gb": 8, "memory_bytes": 8})"),
                   "both memory_gb and memory_bytes are given"));
    CHECK(spec_has(spec_problems("{" + base + R"(, "memory_gb": 0})"),
                   "field 'memory_gb' = 0 is not"));
    CHECK(spec_has(spec_problems("{" + base + R"(, "memory_gb": 1e9})"), "at most 100000"));
    CHECK(
        spec_has(spec_problems("{" + base + R"(, "memory_bytes": -5})"), "whole number of bytes"));
}

TEST_CASE("gpu spec file: unified memory needs the GPU's share, and Apple is unified") {
    const std::string base = R"("name": "Box", "vendor": "amd", "memory_gb": 96,
                                "bandwidth_gbps": 256, "fp16_tflops": 50)";
    const auto box = parse_gpu_description(
        "{" + base + R"(, "unified": true, "unified_gpu_share_percent": 75})", "c");
    REQUIRE(box);
    CHECK(box->gpu_class == GpuClass::unified);
    CHECK(box->unified_gpu_share_permille == 750);
    CHECK(device_for(*box).memory == (96ULL << 30) * 750 / 1000);
    CHECK(spec_has(spec_problems("{" + base + R"(, "unified": true})"),
                   "a unified-memory GPU needs unified_gpu_share_percent"));
    CHECK(spec_has(spec_problems("{" + base + R"(, "unified_gpu_share_percent": 50})"),
                   "unified_gpu_share_percent is for unified memory"));
    CHECK(spec_has(spec_problems(R"({"name": "Mac", "vendor": "apple", "memory_gb": 64,
                              "bandwidth_gbps": 400, "fp16_tflops": 20})"),
                   "an Apple silicon GPU's memory is unified"));
}

TEST_CASE("gpu spec file: what is not a description is refused in one line") {
    CHECK(spec_problems("[1, 2]").size() == 1);
    CHECK(spec_problems("{\"name\": ").size() == 1);
    CHECK(
        spec_has(spec_problems(R"({"name": "", "vendor": "amd"})"), "'name' must be a non-empty"));
    CHECK(
        spec_has(spec_problems(R"({"name": "Card", "id": "Bad Id", "vendor": "amd", "memory_gb": 8,
                              "bandwidth_gbps": 1, "fp16_tflops": 1})"),
                 "id 'Bad Id' is not a GPU id"));
    CHECK(spec_has(spec_problems(R"({"name": "Card", "vendor": "amd", "memory_gb": 8,
                              "bandwidth_gbps": "fast", "fp16_tflops": 1})"),
                   "field 'bandwidth_gbps' = \"fast\" is not a number of GB/s"));
    // A description past its cap is not read.
    const std::string huge = R"({"name": ")" + std::string(kMaxGpuDescriptionBytes, 'x') + R"("})";
    CHECK(spec_problems(huge).size() == 1);
}
