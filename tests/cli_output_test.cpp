// End to end: output formats, --quiet and colour.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::run_cli;

// The page's Q4_K_M row, worked out by hand in reference_page_test.cpp:
// 21,319,375,000 + 167,772,160 + 2,578,457,659 = 24,065,604,819. The quick rule puts it all on
// the GPU (gpu_bytes, the page's headline) and nothing in RAM (host_bytes); file_bytes (the GGUF
// download) is download_size_cli_test.cpp's.
TEST_CASE("cli: --format csv prints raw bytes per quantization") {
    const auto o = run_cli({"qwen3.5-35b-a3b", "--format", "csv", "--engine", "quick"});
    REQUIRE(o.code == 0);
    CHECK(o.out.rfind("model,quant,context,kv_type,weights_bytes,kv_cache_bytes,overhead_bytes,"
                      "total_bytes,recommended,gpu_bytes,host_bytes,file_bytes\r\n",
                      0) == 0);
    CHECK(has(o.out,
              "qwen3.5-35b-a3b,Q4_K_M,8192,f16,21319375000,167772160,2578457659,24065604819,"
              "true,24065604819,0,"));
}

// Under llama.cpp's rule the page's headline is VRAM on the GPU, and the CSV has it: gemma-3-27b
// at Q4_K_M keeps token_embd (1,156,337,280 bytes, download_size_cli_test.cpp) and the graph's
// inputs in RAM, the rest on the GPU, so gpu_bytes + host_bytes = total_bytes.
TEST_CASE("cli: --format csv carries the page's VRAM on the GPU and what stays in RAM") {
    const auto o = run_cli({"gemma-3-27b", "--format", "csv"});
    REQUIRE(o.code == 0);
    const auto at = o.out.find("gemma-3-27b,Q4_K_M,");
    REQUIRE(at != std::string::npos);
    std::vector<std::string> f;
    std::string line = o.out.substr(at, o.out.find("\r\n", at) - at);
    for (std::size_t p = 0; p != std::string::npos;) {
        const auto next = line.find(',', p);
        f.push_back(line.substr(p, next == std::string::npos ? next : next - p));
        p = next == std::string::npos ? next : next + 1;
    }
    REQUIRE(f.size() == 12);
    CHECK(std::stoull(f[9]) + std::stoull(f[10]) == std::stoull(f[7]));
    CHECK(std::stoull(f[10]) > 1156337280ULL);  // token_embd and the graph's inputs
    CHECK(std::stoull(f[10]) < 1156337280ULL + 100000000ULL);
}

// --gpu's answer is the placement: one row per GPU and one for RAM, as the terminal's table.
// An RTX 4090 holds 24 GiB = 25,769,803,776 bytes, less llama.cpp's 1 GiB margin:
// 24,696,061,952; the system RAM is --ram's 32 GB.
TEST_CASE("cli: --gpu --format csv writes the placement") {
    const auto o = run_cli({"gemma-3-27b", "--gpu", "rtx-4090", "--format", "csv"});
    REQUIRE(o.code == 0);
    CHECK(o.out.rfind("model,quant,context,plan,device,name,layers,output,weights_bytes,", 0) == 0);
    CHECK(has(o.out, "\r\ngemma-3-27b,Q4_K_M,8192,native,gpu0,rtx-4090,62,true,"));
    CHECK(has(o.out, ",24696061952,true\r\n"));
    CHECK(has(o.out, "\r\ngemma-3-27b,Q4_K_M,8192,native,ram,system RAM,0,false,1156337280,"));
    CHECK(has(o.out, ",32000000000,true\r\n"));
}

TEST_CASE("cli: --format csv quotes fields with commas") {
    const auto o = run_cli({"gpu-list", "--vendor", "nvidia", "--format", "csv"});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "rtx-3090,NVIDIA GeForce RTX 3090,nvidia,24,25769803776,936,"));
}

TEST_CASE("cli: --format markdown renders tables and headings") {
    const auto o = run_cli({"qwen3.5-35b-a3b", "--format", "markdown", "--engine", "quick"});
    REQUIRE(o.code == 0);
    CHECK(o.out.rfind("### Qwen 3.5 35B-A3B (MoE)\n", 0) == 0);
    CHECK(has(o.out,
              "| Quant | Download | Weights | KV cache | Total |\n"
              "| --- | ---: | ---: | ---: | ---: |\n"));
    CHECK(has(o.out, " | 21.3 GB | 0.17 GB | 24.1 GB |"));
    CHECK(has(o.out, "```\n./llama-server \\\n"));  // run commands as code blocks
}

// Issue #33: notes sat in fenced blocks with the commands. Now each way to run is a "####"
// heading, only what is typed is fenced, and a note (LM Studio's advice, the runs behind a
// speed) is a list item. Meta's one sampling mode, Ollama and LM Studio: three headings, two
// fenced commands (the llama-server lines, Ollama's line) in the run section.
TEST_CASE("cli: Markdown fences only commands, notes are list items, each way to run a heading") {
    const auto o = run_cli({"llama-3.1-8b", "--gpu", "RTX 4090", "--format", "markdown"});
    REQUIRE(o.code == 0);
    const std::size_t run = o.out.find("### How to run it locally");
    REQUIRE(run != std::string::npos);
    const std::string section = o.out.substr(run, o.out.find("### Why", run) - run);
    std::size_t headings = 0;
    std::size_t fences = 0;
    for (std::size_t at = section.find("\n#### "); at != std::string::npos;
         at = section.find("\n#### ", at + 1)) {
        ++headings;
    }
    for (std::size_t at = section.find("```"); at != std::string::npos;
         at = section.find("```", at + 1)) {
        ++fences;
    }
    CHECK(headings == 3);
    CHECK(fences == 4);  // two blocks, each opened and closed
    CHECK(has(section, "#### LM Studio\n- Search for 'Llama 3.1 8B Instruct'"));
    CHECK(has(section, "```\nOLLAMA_CONTEXT_LENGTH=8192 ollama serve"));
    // The speed's note under its line: a list item, not a fenced block.
    CHECK(has(o.out, "reading the prompt  \n- "));
    CHECK_FALSE(has(o.out, "```\n163 published"));
}

TEST_CASE("cli: --quiet prints just the answer") {
    // Ids, as every list prints them and --gpu takes them back: the reference page's smallest
    // GPU is the RTX 5090 (32 GB for 24.1 GB).
    CHECK(run_cli({"qwen3.5-35b-a3b", "--quiet", "--engine", "quick"}).out == "rtx-5090\n");
    CHECK(run_cli({"gpus", "qwen3.5-35b-a3b", "--quiet", "--engine", "quick"})
              .out.rfind("rtx-5090\n", 0) == 0);
    // 24 GB budget: NVFP4 at 19.8 GB is the best of the page's ten that fits.
    CHECK(run_cli({"qwen3.5-35b-a3b", "--vram", "24", "--quiet", "--engine", "quick"}).out ==
          "NVFP4\n");
    const auto plan =
        run_cli({"qwen3.5-35b-a3b", "--gpu", "RTX 4080", "--quiet", "--engine", "quick"});
    CHECK(plan.out == "expert_offload\n");
    CHECK(plan.code == 1);
    const auto quants = run_cli({"quants", "--quiet"});
    CHECK(quants.out.rfind("FP32\nBF16\nFP16\nQ8_0\n", 0) == 0);
}

TEST_CASE("cli: system --quiet names each device as --gpu takes it or none") {
    const auto probe = [](const std::string& name) {
        return std::vector<std::string>{canitrun::test::probe_recording(name)};
    };
    CHECK(run_cli({"system", "--quiet"}, probe("nvidia-2x3090")).out == "rtx-3090\nrtx-3090\n");
    CHECK(run_cli({"system", "--quiet"}, probe("no-gpu")).out == "none\n");
    // What was tried and not found is said where nothing was found, not beside an NVIDIA card.
    CHECK_FALSE(has(run_cli({"system"}, probe("nvidia-2x3090")).out, "amdgpu"));
    CHECK(has(run_cli({"system"}, probe("no-gpu")).out, "no amdgpu device"));
    // A MIG slice is not the whole A100: its name as nvidia-smi -L gives it.
    CHECK(run_cli({"system", "--quiet"}, probe("nvidia-a100-mig")).out ==
          "NVIDIA A100-SXM4-80GB MIG 3g.40gb\nNVIDIA A100-SXM4-80GB MIG 2g.20gb\n"
          "NVIDIA A100-SXM4-80GB MIG 1g.10gb\n");
}

TEST_CASE("cli: colour only when forced or on a terminal and never with NO_COLOR") {
    const std::string bold = "\033[1m";
    CHECK_FALSE(has(run_cli({"qwen3.5-35b-a3b", "--engine", "quick"}).out,
                    bold));  // a pipe is not a terminal
    CHECK(has(run_cli({"qwen3.5-35b-a3b", "--engine", "quick"}, {"CLICOLOR_FORCE=1"}).out, bold));
    CHECK_FALSE(has(
        run_cli({"qwen3.5-35b-a3b", "--engine", "quick"}, {"CLICOLOR_FORCE=1", "NO_COLOR=1"}).out,
        bold));
    CHECK_FALSE(
        has(run_cli({"qwen3.5-35b-a3b", "--json", "--engine", "quick"}, {"CLICOLOR_FORCE=1"}).out,
            bold));
}

TEST_CASE("cli: an unknown --format is bad input") {
    const auto o = run_cli({"qwen3.5-35b-a3b", "--format", "yaml", "--engine", "quick"});
    CHECK(o.code == 2);
    CHECK(o.out.empty());
    CHECK(has(o.err, "canitrun: error: unknown format 'yaml'"));
}

TEST_CASE("cli: Markdown tables name their columns") {
    // GitHub-flavoured Markdown needs a header row; an empty one ("|  |  |  |") renders as a
    // blank bar above the table. The page's facts and a file's facts name theirs.
    const auto empty_header = [](const std::string& text) {
        for (const auto& line : canitrun::test::lines_of(text)) {
            if (line.starts_with("|") && line.find_first_not_of("| ") == std::string::npos) {
                return true;
            }
        }
        return false;
    };
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"qwen3.5-35b-a3b", "--format", "markdown"},
             {"qwen3.5-35b-a3b", "--gpu", "RTX 4090", "--format", "markdown"},
             {"compare", "qwen3-30b-a3b", "llama-3.1-8b", "--format", "markdown"}}) {
        const Outcome o = run_cli(args);
        REQUIRE(o.code <= 1);
        CHECK(has(o.out, "| --- |"));
        CHECK_FALSE(empty_header(o.out));
    }
    CHECK(
        has(run_cli({"qwen3.5-35b-a3b", "--format", "markdown"}).out, "| Figure | Size | Note |"));
}

// Issue #38 item 1: the recipes --quant accepts are listed as what they are, a publisher's
// files over a llama-quantize type. bartowski's Q4_K_L is his Q4_K_M made with an importance
// matrix, its embeddings and output at Q8_0 (his model cards' "Embed/output weights" column):
// at least those two tensor rules. Unsloth's UD-Q4_K_XL starts from Q4_K_M. Q4_K_M itself is
// llama-quantize's own type, no recipe.
TEST_CASE("cli: quants names each recipe's publisher and the type it starts from") {
    const auto text = run_cli({"quants"});
    REQUIRE(text.code == 0);
    CHECK(has(text.out, "Recipe"));
    CHECK(has(text.out, "bartowski: Q4_K_M, imatrix, "));
    CHECK(has(text.out, "unsloth: Q4_K_M"));
    const auto doc = nlohmann::json::parse(run_cli({"quants", "--json"}).out);
    const auto find = [&doc](const std::string& id) {
        for (const auto& q : doc) {
            if (q["id"] == id) return q;
        }
        FAIL("no " << id);
        return nlohmann::json();
    };
    const auto l = find("Q4_K_L")["recipe"];
    CHECK(l["publisher"] == "bartowski");
    CHECK(l["base"] == "Q4_K_M");
    CHECK(l["imatrix"] == true);
    CHECK(l["tensor_rules"].get<int>() >= 2);
    CHECK(find("UD-Q4_K_XL")["recipe"]["publisher"] == "unsloth");
    CHECK(find("UD-Q4_K_XL")["recipe"]["base"] == "Q4_K_M");
    CHECK(find("Q4_K_M")["recipe"].is_null());
    const auto csv = run_cli({"quants", "--format", "csv"});
    CHECK(csv.out.rfind("quant,bits_per_weight,quality_rank,format,requires_backend,"
                        "recipe_publisher,recipe_base\r\n",
                        0) == 0);
}
