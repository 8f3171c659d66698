// The examples of issue "One plan, one answer", through the binary: each question answered
// once, the same way in every command, under the default rule (llama.cpp's allocation).

#include <fstream>
#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_cli;
using nlohmann::json;

namespace {

json json_of(const std::vector<std::string>& args) {
    const Outcome o = run_cli(args);
    INFO(o.err);
    REQUIRE((o.code == 0 || o.code == 1));
    return json::parse(o.out);
}

// weights + token_embd: the GGUF file's tensor bytes.
double file_gb(const json& doc) {
    std::uint64_t sum = 0;
    for (const auto& t : doc["estimate"]["terms"]) {
        if (t["name"] == "weights" || t["name"] == "token_embd")
            sum += t["bytes"].get<std::uint64_t>();
    }
    return static_cast<double>(sum) / 1e9;
}

}  // namespace

TEST_CASE("plan: --gpu, the page's FAQ, gpus and --vram agree on the RTX 4090") {
    const json page = json_of({"qwen3.5-35b-a3b", "--gpu", "RTX 4090", "--vram", "24", "--json"});
    CHECK(page["hardware"]["selected"]["plan"] == "native");
    // "Can it run on a 24 GB GPU?": the same plan on a 24 GB card.
    REQUIRE(page["card_answers"].size() == 2);
    CHECK(page["card_answers"][1]["gb"] == 24);
    CHECK(page["card_answers"][1]["fits"] == true);
    CHECK(page["vram_query"]["fits_recommended"] == true);
    // --vram 24 and --gpu "RTX 4090" (24 GiB, CUDA) pick the same best quantization.
    CHECK(page["vram_query"]["best_quant"] == page["hardware"]["best"]["quant"]);
    bool listed_native = false;
    for (const auto& g : page["gpus"]["native"]) listed_native |= g["id"] == "rtx-4090";
    CHECK(listed_native);
}

TEST_CASE("plan: an 8 GB card runs the MoE model with experts in RAM, in every view") {
    // --gpu "RTX 4060": the routed experts of some layers stay in RAM (llama.cpp --n-cpu-moe).
    CHECK(run_cli({"qwen3.5-35b-a3b", "--gpu", "RTX 4060", "--quiet"}).out == "expert_offload\n");
    const json page = json_of({"qwen3.5-35b-a3b", "--vram", "8", "--json"});
    bool listed_offload = false;
    for (const auto& g : page["gpus"]["offload"]) listed_offload |= g["id"] == "rtx-4060";
    CHECK(listed_offload);
    // --vram 8: nothing runs whole, but a quantization runs with offload.
    CHECK(page["vram_query"]["best"].is_null());
    CHECK_FALSE(page["vram_query"]["best_with_offload"].is_null());
}

TEST_CASE("plan: Llama 3.3 70B on 2x RTX 3090 runs whole at 12k, one layer short at 16k") {
    // llama.cpp puts it at about 48 GB against 2 x 24 GiB (issue "One plan, one answer"). Each
    // card keeps 1 GiB free and the measured CUDA runtime (672 MiB, validation/cuda-h200/);
    // 80 layers of about 0.52 GB, 16k cells of KV (80 x 16384 x 8 x 128 x 2 x 2 bytes = 5.37
    // GB) and the 1.1 GB output head leave the second card 0.4 GB short at 16k, so one layer
    // goes to RAM (-ngl 80); at 12k the KV is 1.34 GB smaller and it runs whole.
    const json at16 = json_of({"llama-3.3-70b", "--gpu", "2x3090", "--ctx", "16k", "--json"});
    CHECK(at16["hardware"]["selected"]["plan"] == "layer_offload");
    CHECK(at16["hardware"]["selected"]["gpu_layers"] == 80);
    const json doc = json_of({"llama-3.3-70b", "--gpu", "2x3090", "--ctx", "12k", "--json"});
    CHECK(doc["hardware"]["selected"]["plan"] == "native");
    const auto gpu_bytes = doc["hardware"]["selected"]["gpu_total_bytes"].get<std::uint64_t>();
    CHECK(gpu_bytes > 46000000000ULL);
    CHECK(gpu_bytes <= 2 * ((24ULL << 30) - (1ULL << 30)));  // 2 x (24 GiB - 1 GiB margin)
}

TEST_CASE("plan: gpt-oss keeps its MXFP4 experts in every GGUF, as the published files do") {
    // Published sizes: gpt-oss-120b Q8_0 63.4 GB, as its MXFP4 file (AlexsJones/llmfit PR #1059,
    // quoting the released GGUFs); gpt-oss-20b F16 about 12.5 and the smaller types about 11
    // (GiB; llama.cpp issue #15117). Not the 124 GB that Q8_0 of 117B parameters would be.
    CHECK(file_gb(json_of({"gpt-oss-120b", "--quant", "Q8_0", "--json"})) ==
          Approx(63.4).epsilon(0.015));
    CHECK(file_gb(json_of({"gpt-oss-120b", "--quant", "MXFP4", "--json"})) ==
          Approx(63.4).epsilon(0.015));
    const double q4 = file_gb(json_of({"gpt-oss-120b", "--quant", "Q4_K_M", "--json"}));
    CHECK(q4 > 59);
    CHECK(q4 < 64);
    const double f16_gib =
        file_gb(json_of({"gpt-oss-20b", "--quant", "FP16", "--json"})) * 1e9 / (1ULL << 30);
    CHECK(f16_gib == Approx(12.5).epsilon(0.04));
    const double q4_gib =
        file_gb(json_of({"gpt-oss-20b", "--quant", "Q4_K_M", "--json"})) * 1e9 / (1ULL << 30);
    CHECK(q4_gib == Approx(11.0).epsilon(0.04));
}

// Issue #33: Ollama's FAQ lists f16, q8_0 and q4_0 for OLLAMA_KV_CACHE_TYPE
// (tests/fixtures/runtime-flags/ollama.json, kv_cache_types): a q5_1 plan's Ollama line runs
// f16, and it says so instead of claiming the cache planned above.
TEST_CASE("plan: an Ollama line that cannot run the planned cache says so") {
    const Outcome o = run_cli({"llama-3.1-8b", "--kv-type", "q5_1"});
    CHECK(has(o.out, "-ctk q5_1 -ctv q5_1"));
    CHECK(has(o.out, "Ollama (the context planned above;"));
    CHECK(has(o.out, "this line runs f16, not the cache planned above"));
    CHECK_FALSE(has(o.out, "OLLAMA_KV_CACHE_TYPE="));
}

// Issue #33: Qwen3-30B-A3B-2507 reaches about 1M tokens only with Dual Chunk Attention (its
// card, config_1m.json), which llama.cpp lacks: past the 262,144-token window its line runs
// plain RoPE, and the page says so rather than print it as the plan.
TEST_CASE("plan: a llama.cpp line past a window only DCA reaches says it runs plain RoPE") {
    const Outcome o = run_cli({"qwen3-30b-a3b-instruct-2507", "--ctx", "1000000"});
    CHECK(has(o.out, "llama.cpp has no Dual Chunk Attention"));
    CHECK(has(o.out, "past the native 262144-token window the lines above run plain RoPE"));
    // It names the card's route without sending the user to --engine vllm, whose plan stops at
    // the native window too (vllm_layout's context_capped) and names the route it leaves out.
    CHECK(has(o.out, "The model card's route to 1010000 tokens is its own vLLM setup"));
    CHECK_FALSE(has(o.out, "vLLM runs the extension"));
    const Outcome v = run_cli(
        {"qwen3-30b-a3b-instruct-2507", "--engine", "vllm", "--gpu", "h200", "--ctx", "512k"});
    CHECK(has(v.out,
              "--max-model-len is the model's window, 262,144 tokens (asked 524,288); the "
              "card's Dual Chunk Attention"));
    CHECK(has(v.out, "reaches 1,010,000, not planned here"));
}

TEST_CASE("plan: printed commands carry the plan's context, cache types and offload") {
    const Outcome o =
        run_cli({"qwen3.5-35b-a3b", "--gpu", "RTX 4080", "--ctx", "32k", "--kv-type", "q8_0"});
    // The 4080 (16 GiB) needs some layers' experts in RAM: the printed lines say how many.
    CHECK(has(o.out, "-c 32768 -ngl 99 --n-cpu-moe"));
    CHECK(has(o.out, "-ctk q8_0 -ctv q8_0"));
    CHECK(has(o.out,
              "OLLAMA_CONTEXT_LENGTH=32768 OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0"));
    CHECK(has(o.out, "set its context length to 32768"));
    const json doc = json_of(
        {"qwen3.5-35b-a3b", "--gpu", "RTX 4080", "--ctx", "32k", "--kv-type", "q8_0", "--json"});
    const std::string cmd = doc["hardware"]["llama_cpp_command"];
    CHECK(has(cmd, "-c 32768"));
    CHECK(has(cmd, "-ctk q8_0 -ctv q8_0"));
    CHECK(has(cmd, "--n-cpu-moe " +
                       std::to_string(doc["hardware"]["selected"]["cpu_moe_layers"].get<int>())));
    // Without a quantized cache, no cache flags; the page's own context, not a fixed 32k.
    const Outcome plain = run_cli({"llama-3.1-8b", "--ctx", "4096"});
    CHECK(has(plain.out, "-c 4096 -ngl 99"));
    CHECK_FALSE(has(plain.out, "-ctk"));
    // One sequence planned, one slot said: llama-server's --parallel defaults to -1 (auto: 4
    // slots in one unified stream; common/arg.cpp and tools/server/server.cpp at 0ad4a86), so
    // the line that leaves it out runs four sequences, four recurrent states in Qwen 3.5.
    CHECK(has(plain.out, "-c 4096 -ngl 99 --parallel 1"));
    CHECK(has(cmd, " --parallel 1"));
}

TEST_CASE("plan: flags are honoured or refused, never silently replaced") {
    // --n-cpu-moe 0 given means none in RAM (before, 0 meant "choose for me").
    const json doc =
        json_of({"qwen3.5-35b-a3b", "--gpu", "RTX 4060", "--n-cpu-moe", "0", "--json"});
    CHECK(doc["hardware"]["selected"]["cpu_moe_layers"] == 0);
    CHECK(doc["hardware"]["selected"]["plan"] == "none");
    const auto refused = [](const std::vector<std::string>& args, const std::string& message) {
        const Outcome o = run_cli(args);
        INFO(o.err);
        CHECK(o.code == 2);
        CHECK(o.out.empty());
        CHECK(has(o.err, message));
    };
    refused({"llama-3.1-8b", "--gpu", "RTX 4090", "--n-cpu-moe", "4"}, "is a dense model");
    refused({"llama-3.1-8b", "--engine", "quick", "--flash-attn", "on"},
            "--flash-attn is a llama.cpp setting");
    refused({"llama-3.1-8b", "--backend", "cpu"}, "--backend is chosen per device");
    refused({"qwen3.5-35b-a3b", "--quant", "NVFP4"}, "llama.cpp does not load NVFP4 files");
}

// --margin sets the memory the llama.cpp rule keeps free on every GPU. The RTX 4090's 24 GiB
// (25,769,803,776 bytes in the database) less 1,024 MiB by default, less nothing with
// --margin 0, less 2,048 MiB with --margin 2048.
TEST_CASE("plan: --margin is the memory kept free on every GPU") {
    const auto capacity = [](const std::vector<std::string>& extra) {
        std::vector<std::string> args = {"qwen3.5-35b-a3b", "--gpu", "RTX 4090", "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto o = canitrun::test::run_cli(args);
        REQUIRE(o.code == 0);
        return nlohmann::json::parse(o.out)["hardware"]["selected"]["gpus"][0]["capacity_bytes"]
            .get<std::uint64_t>();
    };
    CHECK(capacity({}) == 25769803776ULL - 1024ULL * 1048576);
    CHECK(capacity({"--margin", "0"}) == 25769803776ULL);
    CHECK(capacity({"--margin", "2048"}) == 25769803776ULL - 2048ULL * 1048576);
    const auto quick = canitrun::test::run_cli(
        {"qwen3.5-35b-a3b", "--gpu", "RTX 4090", "--engine", "quick", "--margin", "0"});
    CHECK(quick.code == 2);
    CHECK(canitrun::test::has(quick.err, "--margin is a llama.cpp setting"));
    const auto bad = canitrun::test::run_cli({"qwen3.5-35b-a3b", "--margin", "-1"});
    CHECK(bad.code == 2);
    CHECK(canitrun::test::has(bad.err, "bad --margin value"));
}

// Ollama's OLLAMA_CONTEXT_LENGTH is each request's context; its runner gets that times
// OLLAMA_NUM_PARALLEL (tests/fixtures/runtime-flags/ollama.json). 4 users of 16k: 16,384 each;
// --parallel 4 in a 16k cache: 4,096 each. Either way the runner's cache is the plan's.
TEST_CASE("plan: Ollama's context is per request, so the runner's cache is the plan's") {
    const Outcome users =
        run_cli({"llama-3.1-8b", "--gpu", "RTX 4090", "--users", "4", "--ctx", "16k"});
    CHECK(has(users.out, "OLLAMA_CONTEXT_LENGTH=16384 OLLAMA_NUM_PARALLEL=4"));
    const Outcome parallel =
        run_cli({"llama-3.1-8b", "--gpu", "RTX 4090", "--parallel", "4", "--ctx", "16k"});
    CHECK(has(parallel.out, "OLLAMA_CONTEXT_LENGTH=4096 OLLAMA_NUM_PARALLEL=4"));
}

// Every model of the plan resident at once under Ollama too: --also two models makes three,
// which OLLAMA_MAX_LOADED_MODELS keeps loaded (its default lets 3 per GPU stay; past that Ollama
// unloads one: tests/fixtures/runtime-flags/ollama.json). Without --also the default is kept.
TEST_CASE("plan: Ollama keeps every --also model loaded") {
    const Outcome two = run_cli({"qwen3-8b", "--gpu", "RTX 4090", "--also",
                                 "qwen3-embedding-0.6b:Q8_0", "--also", "qwen3-0.6b:Q8_0"});
    REQUIRE(two.code == 0);
    CHECK(has(two.out, "OLLAMA_MAX_LOADED_MODELS=3"));
    const Outcome alone = run_cli({"qwen3-8b", "--gpu", "RTX 4090"});
    REQUIRE(alone.code == 0);
    CHECK(has(alone.out, "OLLAMA_CONTEXT_LENGTH="));
    CHECK_FALSE(has(alone.out, "OLLAMA_MAX_LOADED_MODELS"));
}

// llama.cpp caps the ubatch at the batch, 2048 by default (common/common.h): a larger ubatch
// is printed with a batch as large, or the plan is not what runs.
TEST_CASE("plan: a ubatch past 2048 is printed with -b as large") {
    const Outcome o = run_cli({"llama-3.1-8b", "--gpu", "RTX 4090", "--ubatch", "4096"});
    CHECK(has(o.out, "-ub 4096 -b 4096"));
    const Outcome small = run_cli({"llama-3.1-8b", "--gpu", "RTX 4090", "--ubatch", "1024"});
    CHECK(has(small.out, "-ub 1024"));
    CHECK_FALSE(has(small.out, " -b "));
    // The default the constant stands for, as recorded from llama.cpp's source.
    std::ifstream in(std::string(CANITRUN_FIXTURES) + "/runtime-flags/llama-cpp.json");
    REQUIRE(in);
    const auto flags = nlohmann::json::parse(in);
    CHECK(flags["defaults"]["-b/--batch-size"]["value"] == 2048);
}

// Qwen3's model card: past the native 32,768 tokens llama.cpp needs "--rope-scaling yarn
// --rope-scale 4 --yarn-orig-ctx 32768" for 131,072 (the GGUF's config has no rope_scaling);
// two users of 64k each are 65,536 a sequence, so a factor of 2; inside the window, none.
TEST_CASE("plan: past a YaRN model's native window the llama.cpp line turns YaRN on") {
    const Outcome far = run_cli({"qwen3-30b-a3b", "--gpu", "RTX 4090", "--ctx", "128k"});
    CHECK(has(far.out, "-c 131072 --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768"));
    const Outcome two =
        run_cli({"qwen3-30b-a3b", "--gpu", "RTX 4090", "--ctx", "64k", "--users", "2"});
    CHECK(has(two.out, "--rope-scale 2 --yarn-orig-ctx 32768"));
    const Outcome inside = run_cli({"qwen3-30b-a3b", "--gpu", "RTX 4090", "--ctx", "32k"});
    CHECK_FALSE(has(inside.out, "--rope-scaling"));
}

// DeepSeek V3's published checkpoint is FP8 (its config.json: quantization_config, quant_method
// fp8, 128 x 128 blocks), so `vllm serve deepseek-ai/DeepSeek-V3` loads 671B parameters at one
// byte each, about 0.67 TB, which 8 x H200 (8 x 141 GiB x 0.9) hold; BF16 would be 1.34 TB.
// The line needs no --quantization.
TEST_CASE("plan: vLLM loads a checkpoint in its own dtype") {
    const Outcome v3 = run_cli({"deepseek-v3", "--engine", "vllm", "--gpu", "8xh200-sxm"});
    CHECK(v3.code == 0);
    CHECK(has(v3.out, "DeepSeek-V3 at FP8"));
    CHECK(has(v3.out, "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8"));
    CHECK_FALSE(has(v3.out, "--quantization"));
    const Outcome bf16 = run_cli({"llama-3.1-8b", "--engine", "vllm", "--gpu", "H100"});
    CHECK(has(bf16.out, "Llama 3.1 8B at BF16"));
}

// AWQ, GPTQ and NVFP4 are no on-the-fly formats (vLLM makes only FP8), so the line serves the
// checkpoint the data records (data/models/llama.json: hugging-quants' AWQ-INT4, listed in its
// collection), with no --quantization (its config.json declares quant_method awq, and an
// explicit "awq" would force the slower kernel over awq_marlin); an unconfirmed one is said so
// above the line; with none recorded (Qwen 3.5 35B-A3B has no AWQ by its publisher, NVIDIA or
// Red Hat AI) there is no command, only the line that says so.
TEST_CASE("plan: vLLM's AWQ, GPTQ and NVFP4 lines serve a recorded checkpoint or say none is") {
    const Outcome awq =
        run_cli({"llama-3.1-8b", "--engine", "vllm", "--gpu", "H100", "--quant", "AWQ"});
    CHECK(has(awq.out,
              "vllm serve hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4 "
              "--max-model-len "));
    CHECK_FALSE(has(awq.out, "--quantization"));
    const json doc = json_of(
        {"llama-3.1-8b", "--engine", "vllm", "--gpu", "H100", "--quant", "NVFP4", "--json"});
    REQUIRE(doc["commands"].size() == 1);
    CHECK(doc["commands"][0].get<std::string>().starts_with(
        "vllm serve nvidia/Llama-3.1-8B-Instruct-FP4 "));
    const Outcome gptq =
        run_cli({"qwen2.5-7b", "--engine", "vllm", "--gpu", "H100", "--quant", "GPTQ"});
    CHECK(has(gptq.out, "# Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4 is unconfirmed: "));
    CHECK(has(gptq.out, "vllm serve Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4 "));
    const Outcome none =
        run_cli({"qwen3.5-35b-a3b", "--engine", "vllm", "--gpu", "H100", "--quant", "AWQ"});
    CHECK(has(none.out, "# No AWQ checkpoint of Qwen 3.5 35B-A3B"));
    CHECK_FALSE(has(none.out, "vllm serve"));
}

// Llama 3.1 8B's window is 131,072 tokens (config.json max_position_embeddings); on an H100
// vLLM's pool would hold more, but --max-model-len takes no more than the window.
TEST_CASE("plan: vLLM's longest context stops at the model's window") {
    const Outcome o = run_cli({"llama-3.1-8b", "--engine", "vllm", "--gpu", "H100"});
    CHECK(has(o.out, "Longest context for 1 sequence: 131,072 tokens (the model's window"));
    const json doc = json_of({"llama-3.1-8b", "--engine", "vllm", "--gpu", "H100", "--json"});
    CHECK(doc["longest_context_one_sequence"] == 131072);
    CHECK(doc["max_context_one_sequence"].get<std::uint64_t>() > 131072);
}

// ggml-org/gpt-oss-20b-GGUF publishes one file, gpt-oss-20b-mxfp4.gguf (its listing, recorded as
// run.gguf_quants): the default quantization is MXFP4 and the -hf line names it; a Q4_K_M the
// repo lacks is printed as a local file instead of an -hf tag that does not exist.
TEST_CASE("plan: the default quantization is one the recorded GGUF repo publishes") {
    const Outcome o = run_cli({"gpt-oss-20b", "--gpu", "RTX 4090"});
    CHECK(has(o.out, "MXFP4 at 8,192 tokens"));
    CHECK(has(o.out, "llama-server -hf ggml-org/gpt-oss-20b-GGUF:MXFP4 "));
    const Outcome q4 = run_cli({"gpt-oss-20b", "--gpu", "RTX 4090", "--quant", "Q4_K_M"});
    CHECK(has(q4.out, "llama-server -m gpt-oss-20b-Q4_K_M.gguf"));
    CHECK_FALSE(has(q4.out, "gpt-oss-20b-GGUF:Q4_K_M"));
    // The local file is said to be one to make, and what the repo has instead (#33).
    const std::string said =
        "ggml-org/gpt-oss-20b-GGUF publishes no Q4_K_M file, so the llama.cpp lines load a local "
        "gpt-oss-20b-Q4_K_M.gguf: make it with llama.cpp's convert_hf_to_gguf.py and "
        "llama-quantize (type Q4_K_M). The repo publishes MXFP4 (--quant MXFP4).";
    CHECK(has(q4.out, said));
    const json doc = json_of({"gpt-oss-20b", "--gpu", "RTX 4090", "--quant", "Q4_K_M", "--json"});
    CHECK(doc["run_commands"][0]["note"] == said);
    CHECK_FALSE(has(o.out, "publishes no"));
}

// --vram and the FAQ's cards are GPUs of that size (#33): they choose among what --gpu chooses
// from and are held to what --gpu's card is, its GiB less the margin, which the JSON and the
// sentences say. 24 GiB less 4000 MiB: 25,769,803,776 - 4,194,304,000 = 21,575,499,776 bytes;
// Q4_K_M's 22.4 GB is under 24 x 10^9 bytes, so "more than 24 GB" would be untrue.
TEST_CASE("plan: --vram and the FAQ choose as --gpu does, held to the usable memory") {
    const json doc = json_of({"qwen3.5-35b-a3b", "--vram", "24", "--margin", "4000", "--json"});
    CHECK(doc["vram_query"]["budget_bytes"] == 24000000000ULL);
    CHECK(doc["vram_query"]["usable_bytes"] == 21575499776ULL);
    CHECK(doc["card_answers"][1]["usable_bytes"] == 21575499776ULL);
    CHECK(doc["card_answers"][1]["best"]["quant"] == doc["vram_query"]["best_quant"]);
    const Outcome text = run_cli({"qwen3.5-35b-a3b", "--vram", "24", "--margin", "4000"});
    CHECK(has(text.out, "does not fit the 21.6 GB usable (4000 MiB kept free)."));
    CHECK(has(text.out, "Can it run on a 24 GB GPU? No. At Q4_K_M it needs "));
    CHECK(has(text.out,
              " GB, more than the 21.6 GB a 24 GB card leaves usable (4000 MiB kept "
              "free)."));
    // The default margin, 1 GiB: 16 GiB - 1 GiB = 16,106,127,360 bytes; the FAQ's 16 GB card
    // picks what the 16 GiB RTX 4080 does.
    const json page = json_of({"qwen3.5-35b-a3b", "--gpu", "RTX 4080", "--json"});
    CHECK(page["card_answers"][0]["usable_bytes"] == 16106127360ULL);
    CHECK(page["card_answers"][0]["best"]["quant"] == page["hardware"]["best"]["quant"]);
}
