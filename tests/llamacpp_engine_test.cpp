// The llama.cpp profile against what llama.cpp itself reports: tests/fixtures/
// llamacpp-cpu-buffers.json holds the buffer sizes the prebuilt libllama of
// node-llama-cpp@3.21.1 (llama.cpp 5b4ebc5) logged when it loaded full-size GGUF files of four
// database models on its CPU backend (n_seq 1, n_ubatch 512, f16 cache). Tolerances from the
// issue: weights 0.5 %, KV and recurrent state 0.01 MiB, compute 5 %.

#include <array>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

nlohmann::json fixture() {
    std::ifstream in(std::string(CANITRUN_FIXTURES) + "/llamacpp-cpu-buffers.json");
    std::stringstream s;
    s << in.rdbuf();
    return nlohmann::json::parse(s.str());
}

double rel(double got, double want) {
    return std::fabs(got - want) / want;
}

std::string upper(std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return s;
}

LlamaCppOptions cpu_options(std::uint64_t ctx, FlashAttn fa) {
    LlamaCppOptions o;
    o.context = ctx;
    o.backend = Backend::cpu;
    o.flash_attn = fa;
    return o;
}

}  // namespace

TEST_CASE("tensor layouts sum to llama.cpp's parameter counts for the measured models") {
    const auto data = fixture();
    for (const auto& m : data["models"]) {
        const std::string id = m["model"];
        INFO(id);
        const auto layout = tensor_layout(test::model(id));
        REQUIRE(layout.has_value());
        CHECK(layout->arch == m["arch"].get<std::string>());
        CHECK(layout->tensors.size() == m["n_tensors"].get<std::size_t>());
        CHECK(layout->elements() == m["n_params"].get<std::uint64_t>());
    }
}

TEST_CASE("llama-quantize's Q4_K_M types reproduce the measured files per ggml type") {
    const auto data = fixture();
    for (const auto& m : data["models"]) {
        const std::string id = m["model"];
        INFO(id);
        // the harness's files are llama-quantize's own mix (tools/accuracy/make_gguf.cpp)
        const auto layout = tensor_layout(test::model_in_repo(id, ""));
        REQUIRE(layout.has_value());
        const auto tensors = quantize_tensors(*layout, m["ftype"]);
        REQUIRE(tensors.has_value());
        std::map<std::string, std::uint64_t> by_type;
        for (const auto& t : *tensors) by_type[upper(std::string(t.type.name))] += t.bytes;
        for (const auto& [type, bytes] : m["tensor_bytes_by_type"].items()) {
            INFO(type);
            CHECK(by_type[type] == bytes.get<std::uint64_t>());
        }
        const auto total = static_cast<double>(tensor_bytes(*tensors));
        CHECK(rel(total, m["tensor_data_bytes"].get<double>()) < 0.005);
    }
}

TEST_CASE("the llama.cpp profile reproduces llama.cpp's CPU buffers at every context") {
    const auto data = fixture();
    for (const auto& m : data["models"]) {
        const std::string id = m["model"];
        const Quant& q = test::quant(m["ftype"]);
        for (const auto& c : m["contexts"]) {
            const std::uint64_t ctx = c["n_ctx"];
            INFO(id << " at " << ctx);
            for (const FlashAttn fa : {FlashAttn::on, FlashAttn::off}) {
                const char* key = fa == FlashAttn::on ? "compute_bytes_cpu_flash_attn_on"
                                                      : "compute_bytes_cpu_flash_attn_off";
                if (!c.contains(key)) continue;
                INFO(key);
                const auto e =
                    estimate_llamacpp(test::model_in_repo(id, ""), q, cpu_options(ctx, fa));
                REQUIRE(e.has_value());
                const auto weights =
                    static_cast<double>(e->term(TermKind::weights) + e->term(TermKind::token_embd));
                CHECK(rel(weights, m["tensor_data_bytes"].get<double>()) < 0.005);
                CHECK(std::fabs(static_cast<double>(e->term(TermKind::kv_cache)) -
                                c["kv_cache_bytes"].get<double>()) <=
                      0.01 * static_cast<double>(kMiB));
                CHECK(std::fabs(static_cast<double>(e->term(TermKind::recurrent_state)) -
                                c["recurrent_state_bytes"].get<double>()) <=
                      0.01 * static_cast<double>(kMiB));
                CHECK(rel(static_cast<double>(e->term(TermKind::compute)), c[key].get<double>()) <
                      0.05);
                // the log prints the output buffer to 0.01 MiB
                CHECK(std::fabs(static_cast<double>(e->term(TermKind::output)) -
                                c["output_bytes"].get<double>()) <=
                      0.005 * static_cast<double>(kMiB));
                CHECK(e->term(TermKind::runtime) == 0);
            }
        }
    }
}

TEST_CASE("sliding layers: pad256(min(ctx per sequence - window + ubatch)) cells per sequence") {
    // Gemma 3 27B, 4 sequences at 32768: n_ctx_seq = 8192 per stream. Full layers: 10 x 8192
    // cells x 4 streams x (16 kv heads x 128 x 2 (K, V) x 2 bytes = 8192 B). Sliding layers
    // (window 1024): pad256(min(8192, 1024 + 512)) = 1536 cells x 4 streams x 8192 B x 52.
    LlamaCppOptions o;
    o.context = 32768;
    o.n_seq = 4;
    o.backend = Backend::cpu;
    const auto e = estimate_llamacpp(test::model("gemma-3-27b"), test::quant("Q4_K_M"), o).value();
    CHECK(e.term(TermKind::kv_cache) == 10ULL * 8192 * 4 * 8192 + 52ULL * 1536 * 4 * 8192);
    CHECK(e.term(TermKind::output) == 262208ULL * 4 * 4);  // n_vocab floats per sequence
}

TEST_CASE("q8_0 cache: 34 bytes per 32 values of a row") {
    // Llama 3.1 8B at 32768: K row 8 x 128 = 1024 values = 32 blocks x 34 = 1088 bytes; K + V
    // for 32 layers and 32768 cells.
    LlamaCppOptions o;
    o.context = 32768;
    o.cache_type_k = "q8_0";
    o.cache_type_v = "q8_0";
    const auto e = estimate_llamacpp(test::model("llama-3.1-8b"), test::quant("Q4_K_M"), o).value();
    CHECK(e.term(TermKind::kv_cache) == 2ULL * 1088 * 32768 * 32);
}

TEST_CASE("MLA caches K only: the latent plus the rope key") {
    // DeepSeek-V2-Lite: 27 layers x (512 + 64) f16 values x 4096 cells = 127,401,984 B.
    LlamaCppOptions o;
    o.context = 4096;
    const auto e =
        estimate_llamacpp(test::model("deepseek-v2-lite"), test::quant("Q4_K_M"), o).value();
    CHECK(e.term(TermKind::kv_cache) == 27ULL * 576 * 2 * 4096);
}

TEST_CASE("MLA caches no V without flash attention either") {
    // The pinned build allocates no V for MLA whatever flash attention is (llama-kv-cache.cpp:
    // has_v = !is_mla); builds before llama.cpp PR #19067 added 27 x 512 x 2 B x 4096 =
    // 113,246,208 B of V, which this figure must not hold.
    LlamaCppOptions o;
    o.context = 4096;
    o.flash_attn = FlashAttn::off;
    const auto e =
        estimate_llamacpp(test::model("deepseek-v2-lite"), test::quant("Q4_K_M"), o).value();
    CHECK(e.term(TermKind::kv_cache) == 27ULL * 576 * 2 * 4096);
}

TEST_CASE("DeepSeek V3.2: a second K-only cache of one indexer key per cell") {
    // llama-kv-cache-dsa.cpp: the latent cache (576 values) and the indexer's (128), both in
    // the K type, both over the padded context's cells, in each of the 61 layers.
    LlamaCppOptions o;
    o.context = 8192;
    const auto e =
        estimate_llamacpp(test::model("deepseek-v3.2"), test::quant("Q4_K_M"), o).value();
    CHECK(e.term(TermKind::kv_cache) == 61ULL * (576 + 128) * 2 * 8192);
    // The layout: deepseek32.cpp's five indexer tensors in each layer, 13,959,424 values.
    const TensorLayout layout = tensor_layout(test::model("deepseek-v3.2")).value();
    CHECK(layout.arch == "deepseek32");
    std::uint64_t indexer = 0;
    for (const auto& t : layout.tensors) {
        if (t.name.find(".indexer.") != std::string::npos) indexer += t.elements();
    }
    CHECK(indexer == 61ULL * (1536 * 8192 + 7168 * 128 + 7168 * 64 + 2 * 128));
}

// DeepSeek Sparse Attention's compute buffer on the CPU backend (llama-graph.cpp build_attn
// with top_k; ggml-alloc allocates every leaf first): the MLA layer's floats, 4 x (4 x 7168 +
// 128 x (2 x 576 + 128 + 128)) = 835,584 B a token, plus each of the 61 layers' zero-filled
// f32 top-k leaf, 61 x 2048 x 4 = 499,712, plus per cell the two f16 masks and, with flash
// attention, the f32 indexer score (8 B), without it the indexer's f16 mask beside KQ
// (128 heads x 4 B) and the f32 mask (2 + 512 + 4 B). llama.cpp 0ad4a86 logged 1164.08 and
// 1688.08 MiB (llama_probe on the harness's file); these are 1164.00 and 1688.00.
TEST_CASE("DeepSeek V3.2 on the CPU: every layer's top-k leaf and the indexer score, by hand") {
    LlamaCppOptions o;
    o.backend = Backend::cpu;
    o.flash_attn = FlashAttn::on;
    o.context = 131072;
    const auto compute = [&](const char* id) {
        return estimate_llamacpp(test::model(id), test::quant("Q4_K_M"), o)
            ->term(TermKind::compute);
    };
    CHECK(compute("deepseek-v3.2") == 512ULL * (835584 + 61 * 2048 * 4 + 8 * 131072));
    // GLM-5.2's 57 IndexShare layers still build their own leaf (78). Its MoE layer's peak, the
    // routed experts' 3 x 8 x 2048 widths and their 8 down products of 6144 that do not fit the
    // freed gate and up (the shared expert's 2048 runs after them: moe_ffn_floats), 4 x (4 x 6144
    // + 3 x 8 x 2048 + 8 x 6144) = 491,520 B, is under the MLA layer's 4 x (4 x 6144 + 64 x (2 x
    // 576 + 192 + 256)) = 507,904 (llama.cpp: 1040.08 MiB).
    CHECK(compute("glm-5.2") == 512ULL * (507904 + 78 * 2048 * 4 + 8 * 131072));
    o.flash_attn = FlashAttn::off;
    o.context = 4096;
    CHECK(compute("deepseek-v3.2") == 512ULL * (835584 + 61 * 2048 * 4 + (2 + 512 + 4) * 4096));
}

// Qwen Sparse Attention (qwen4exp.cpp at 0ad4a86, build_qsa_top_k :542-693 and build_attn_qsa
// :695-771) at ubatch 512 on the CPU, its first QSA layer's peak (ggml-alloc's best fit replayed
// by tools/accuracy/galloc_replay.py; qsa_phase.cpp). Qwen3.8-Flash-Next: 2560 wide, 4 streams
// through rank 320, 24 x 256 query heads and their gate, 2 x 256 KV heads, 12 QSA layers, an
// indexer over blocks of 4 cells keeping the top 2048. Per token, f32: the layer's rows,
// inp_embd 2560, two residuals of 4 x 2560, the mixer's down, gate and mixed stream 320 + 10240
// + 2560 (the normed query's 6144 fits there) and the query with its gate 12288 = 48,448; the
// 12 layers' zero-filled top-k leaves of min(n_kv, 2048 + 4 - 1) = 2051; per cell the mask (2
// B with flash attention, 4 without), per block of 4 the bias and the two summed-score copies
// under the expansion (3 x 4 B), and the expansion with its permuted copy (8 B). Without flash
// attention also KQ (24 heads x 4 B a cell) and the transposed V's i64 indices (8 x 512). Per
// cell, once: cell_blk, blk_cells and blk_pos, i32, 3 x 4 B. llama.cpp 0ad4a86 logged 976.25
// MiB at 131072 cells (this: 976.20) and 1907.50 without flash attention at 32768 (1921.07:
// its peak is at a later QSA layer, whose earlier leaves are freed and whose holes hold part).
TEST_CASE("Qwen3.8-Flash-Next on the CPU: the QSA indexer's scores over every cell, by hand") {
    LlamaCppOptions o;
    o.backend = Backend::cpu;
    o.flash_attn = FlashAttn::on;
    o.context = 131072;
    const auto compute = [&] {
        return estimate_llamacpp(test::model("qwen3.8-flash-next"), test::quant("Q2_K"), o)
            ->term(TermKind::compute);
    };
    const std::uint64_t leaves = 12ULL * 2051 * 4;
    CHECK(compute() ==
          512ULL * (4ULL * 48448 + leaves + 2ULL * 131072 + 12ULL * 32768 + 8ULL * 131072) +
              12ULL * 131072);
    o.flash_attn = FlashAttn::off;
    o.context = 32768;
    CHECK(compute() == 512ULL * (4ULL * 48448 + leaves + 4ULL * 32768 + 12ULL * 8192 +
                                 8ULL * 32768 + 24ULL * 4 * 32768 + 8ULL * 512) +
                           12ULL * 32768);
    // At 32768 cells with flash attention the scores (351 MiB) stay under the logits' phase,
    // 512 x 4 x (248320 + 3 x 2560) B = 500 MiB.
    o.flash_attn = FlashAttn::on;
    CHECK(compute() == 512ULL * 4 * (248320 + 3 * 2560));
}

// The routed experts' sum above ffn_moe_down on the CPU backend (build_moe_ffn's ADDs of
// views, a shared expert after the routed ones keeping ffn_norm and ffn_inp alive; ggml-alloc
// of the reserved graph, tools/accuracy/galloc_replay.py): the last layer's output, and with it
// result_norm, sits above inp_embd, ffn_inp, ffn_norm, the router's probabilities and top-k
// (n_expert f32 each) and the n_used expert rows, the logits above that. Hunyuan-A13B
// (n_embd 4096, 8 of 64 experts of width 3072, one shared expert, vocab 128167) at ubatch
// 2048: 2048 x 4 x (128167 + 4096 + (3 + 8) x 4096 + 2 x 64) B = 1,453,658,112; llama.cpp
// 0ad4a86 reserved 1,453,654,016 (the harness's file, llama_probe). DeepSeek-V2-Lite (2048,
// 6 of 64 of width 1408, shared experts, vocab 102400) at ubatch 512: 512 x 4 x (102400 +
// 2048 + 9 x 2048 + 128) = 251,920,384 B = 240.25 MiB; llama.cpp 240.26. Qwen3-30B-A3B has
// no shared expert: the sum takes ffn_norm's freed row, and the buffer stays the logits and
// two rows, 2048 x 4 x (151936 + 2 x 2048) B (llama.cpp 1219.01 MiB).
TEST_CASE("MoE on the CPU: the experts' sum above their outputs lifts the logits, by hand") {
    const auto compute = [](const char* id, std::uint64_t ubatch) {
        LlamaCppOptions o = cpu_options(32768, FlashAttn::on);
        o.ubatch = ubatch;
        return estimate_llamacpp(test::model(id), test::quant("Q4_K_M"), o)
            ->term(TermKind::compute);
    };
    CHECK(compute("hunyuan-a13b", 2048) == 2048ULL * 4 * (128167 + 4096 + 11 * 4096 + 2 * 64));
    CHECK(compute("deepseek-v2-lite", 512) == 251920384ULL);
    CHECK(compute("qwen3-30b-a3b", 2048) == 2048ULL * 4 * (151936 + 2 * 2048));
}

TEST_CASE("context pads to 256 cells - recurrent state is per sequence") {
    LlamaCppOptions o;
    o.context = 1000;  // -> 1024 cells
    o.n_seq = 2;       // 512 cells per stream, 2 streams
    const auto e =
        estimate_llamacpp(test::model("qwen3.5-35b-a3b"), test::quant("Q4_K_M"), o).value();
    // 10 full layers x 2 kv heads x 256 x 2 (K, V) x 2 bytes = 2048 B per cell
    CHECK(e.term(TermKind::kv_cache) == 10ULL * 2048 * 512 * 2);
    // per sequence: 30 layers x ((4 - 1) x 8192 conv + 32 x 128 x 128 state) x 4 bytes
    CHECK(e.term(TermKind::recurrent_state) == 2ULL * 30 * (3 * 8192 + 32 * 128 * 128) * 4);
}

TEST_CASE("on a GPU: token_embd stays on the host - a tied output head is copied to the device") {
    LlamaCppOptions cpu;
    cpu.backend = Backend::cpu;
    LlamaCppOptions gpu;
    gpu.backend = Backend::cuda;
    const Model& m = test::model("gemma-3-27b");
    const auto c = estimate_llamacpp(m, test::quant("Q4_K_M"), cpu).value();
    const auto g = estimate_llamacpp(m, test::quant("Q4_K_M"), gpu).value();
    CHECK(g.term(TermKind::weights) == c.term(TermKind::weights) + c.term(TermKind::token_embd));
    CHECK(g.term(TermKind::token_embd) == c.term(TermKind::token_embd));
    CHECK(g.term(TermKind::runtime) == runtime_overhead_bytes(Backend::cuda));
    for (const auto& t : g.terms) {
        const bool host = t.kind == TermKind::token_embd || t.kind == TermKind::output ||
                          t.kind == TermKind::host_compute;
        CHECK((t.device == Device::cpu) == host);
    }
}

// The host's compute buffer beside a GPU: the KQ masks and two copies of the input embeddings,
// ubatch x (mask bytes x (n_kv + n_kv_swa) + 4 x 2 n_embd) (llama-graph.cpp's inputs). The
// masks are f16 under flash attention at the pinned build (build_attn_inp_kq_mask), f32 in a
// build before PR #23764 (f32_mask) and without flash attention.
TEST_CASE("on a GPU: the host's compute buffer holds the graph's inputs, by hand") {
    LlamaCppOptions o;
    o.backend = Backend::cuda;
    o.context = 32768;
    o.ubatch = 512;
    const auto host = [&] {
        return estimate_llamacpp(test::model("llama-3.1-8b"), test::quant("Q4_K_M"), o)
            ->term(TermKind::host_compute);
    };
    // Llama 3.1 8B: full attention only, n_embd 4096: 512 x (2 x 32768 + 4 x 8192) = 48 MiB,
    // the CUDA_Host buffer the H200 measured (48.01 MiB, validation/cuda-h200/run1).
    CHECK(host() == 48ULL << 20);
    // An older build's f32 masks: 512 x 4 x (32768 + 8192) = 80 MiB; so without flash attention.
    o.f32_mask = true;
    CHECK(host() == 80ULL << 20);
    o.f32_mask = false;
    o.flash_attn = FlashAttn::off;
    CHECK(host() == 80ULL << 20);
    o.flash_attn = FlashAttn::automatic;
    // Several sequences, each its own stream: the mask spans one sequence's 8192 cells.
    o.n_seq = 4;
    CHECK(host() == 512ULL * (2 * 8192 + 4 * 8192));
    // A unified cache: one stream that every sequence's attention spans.
    o.kv_unified = true;
    CHECK(host() == 48ULL << 20);
    // On the CPU backend the inputs are part of its one compute buffer: no separate term.
    o.backend = Backend::cpu;
    CHECK(host() == 0);
}

// On a GPU that holds every layer and the head the buffer is the larger of the logits batch
// (the logits and the normed rows, f32) and the layers' phase, which in builds before PR #23764
// (f32_mask) holds on CUDA and Vulkan a device copy of the f32 KQ mask; Metal and ROCm keep
// none (docs/ACCURACY-GPU.md), and the pinned build none anywhere. Llama 3.1 8B at 32768
// cells, ubatch 512, flash attention: the logits batch 512 x 4 x (128256 + 4096) = 271,056,896
// bytes, 258.50 MiB, as the H200 measured it (validation/cuda-h200/run1); the layers' phase
// 512 x (2 x 32768 + 4 x (3 x 4096 + 3 x 14336)) = 146,800,640 plus the f32 copy 512 x 4 x
// 32768 = 67,108,864 is below it. The CPU backend's buffer holds one more row: 279,445,504.
TEST_CASE("on a GPU the compute buffer is the logits batch or the layers with the masks' copy") {
    LlamaCppOptions o;
    o.context = 32768;
    o.ubatch = 512;
    const auto compute = [&](Backend b) {
        o.backend = b;
        return estimate_llamacpp(test::model("llama-3.1-8b"), test::quant("Q4_K_M"), o)
            ->term(TermKind::compute);
    };
    CHECK(compute(Backend::cpu) == 512ULL * 4 * (128256 + 2 * 4096));
    for (const Backend b : {Backend::cuda, Backend::vulkan, Backend::metal, Backend::rocm}) {
        CHECK(compute(b) == 512ULL * 4 * (128256 + 4096));
    }
    // At 131072 cells an older build's layers' phase is the larger on CUDA: 512 x (2 x 131072 +
    // 221184) + 512 x 4 x 131072, 221184 = 4 x (3 x 4096 + 3 x 14336); Metal's, without the
    // mask's copy, is still below the logits.
    o.context = 131072;
    o.f32_mask = true;
    CHECK(compute(Backend::cuda) == 512ULL * (2 * 131072 + 221184) + 512ULL * 4 * 131072);
    CHECK(compute(Backend::metal) == 512ULL * 4 * (128256 + 4096));
    // The pinned build: the layers' phase 512 x (2 x 131072 + 221184) = 247,463,936 stays below
    // the logits batch, 258.50 MiB, as the H200 measured at 131072 cells.
    o.f32_mask = false;
    CHECK(compute(Backend::cuda) == 512ULL * 4 * (128256 + 4096));
}

// A GPU's layers' phase holds 3 n_embd rows a token beside three FFN widths, one row fewer than
// the CPU backend's 4 (llamacpp_engine.cpp, kGpuEmbdRows), where it sets the buffer: flash
// attention, ubatch 512, the pinned build's f16 masks (512 x 2 B a cell) and no f32 copy.
// - Llama 3.3 70B at 131072 cells (n_embd 8192, n_ff 28672): 512 x 2 x 131072 + 512 x 4 x
//   (3 x 8192 + 3 x 28672) = 134,217,728 + 226,492,416 = 360,710,144 B = 344.00 MiB, above its
//   logits batch 512 x 4 x (128256 + 8192) = 279,445,504; the H200 measured 344.01 MiB
//   (validation/cuda-h200/run1), where 4 rows read 360.
// - Mixtral 8x7B at 32768 cells (n_embd 4096, two experts of 14336): 512 x 2 x 32768 + 512 x 4
//   x (3 x 4096 + 3 x 28672) = 33,554,432 + 201,326,592 = 234,881,024 B = 224.00 MiB (224.01
//   measured, 232 by 4 rows).
TEST_CASE("on a GPU the layers' phase holds three hidden rows a token, by hand") {
    LlamaCppOptions o;
    o.ubatch = 512;
    o.backend = Backend::cuda;
    o.context = 131072;
    const auto compute = [&](const char* id) {
        return estimate_llamacpp(test::model(id), test::quant("Q4_K_M"), o)
            ->term(TermKind::compute);
    };
    CHECK(compute("llama-3.3-70b") == 360710144ULL);
    o.context = 32768;
    CHECK(compute("mixtral-8x7b") == 234881024ULL);
}

TEST_CASE("bad llama.cpp options are bad input") {
    const Model& m = test::model("llama-3.1-8b");
    const Quant& q = test::quant("Q4_K_M");
    LlamaCppOptions o;
    o.cache_type_k = "q3_k";
    CHECK(estimate_llamacpp(m, q, o).error().kind == ErrorKind::bad_input);
    o = {};
    o.context = 256;
    o.n_seq = 512;
    CHECK_FALSE(estimate_llamacpp(m, q, o).has_value());
    o = {};
    CHECK_FALSE(estimate_llamacpp(m, test::quant("NVFP4"), o).has_value());
    Model unknown = test::model("qwen3-8b");
    unknown.family = "rwkv7";  // no layout for an architecture the profile does not know
    CHECK_FALSE(estimate_llamacpp(unknown, q, o).has_value());
    o = {};
    o.cache_type_v = "q8_0";
    o.flash_attn = FlashAttn::off;  // llama.cpp: quantized V cache requires flash attention
    CHECK_FALSE(estimate_llamacpp(m, q, o).has_value());
    o.flash_attn = FlashAttn::automatic;
    CHECK(estimate_llamacpp(m, q, o).has_value());
    o = {};
    o.cache_type_k = "q8_0";  // MLA: K and V cache types must match
    CHECK_FALSE(estimate_llamacpp(test::model("deepseek-v2-lite"), q, o).has_value());
    CHECK(parse_flash_attn("AUTO").value() == FlashAttn::automatic);
    CHECK_FALSE(parse_flash_attn("maybe").has_value());
    CHECK(parse_backend("hip").value() == Backend::rocm);
    CHECK_FALSE(parse_cache_type("q6_k").has_value());
}

TEST_CASE("llama.cpp's cache types: every ggml KV type, and not TurboQuant") {
    // common/arg.cpp's kv_cache_types: f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1.
    for (const char* t : {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"}) {
        CHECK(parse_cache_type(t).has_value());
    }
    const auto tq = parse_cache_type("turboquant");
    REQUIRE_FALSE(tq.has_value());
    CHECK(tq.error().message == "llama.cpp has no KV cache type 'turboquant'");
    CHECK(tq.error().hint == "use one of: f16, bf16, f32, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl");
    CHECK(kDefaultKvType == "f16");  // common.h: cache_type_k = GGML_TYPE_F16
}

TEST_CASE("Nemotron-H: every block is a layer - a Mamba-2, an attention or an MLP alone") {
    // nemotron-h.cpp: 52 blocks for Nemotron-H 8B's hybrid_override_pattern, each with its
    // attn_norm and one of: a Mamba-2 mixer (d_inner 8192, 8 groups of state 128, 128 heads),
    // GQA attention (32 x 128 queries, 8 KV heads) or a squared-ReLU MLP (up, down) of 21504.
    const Model& m = test::model("nemotron-h-8b");
    const TensorLayout layout = tensor_layout(m).value();
    CHECK(layout.arch == "nemotron_h");
    CHECK(layout.n_layer == 52);
    std::map<std::string, std::array<std::uint64_t, 4>> shape;
    std::map<int, int> per_layer;
    for (const auto& t : layout.tensors) {
        shape[t.name.str()] = t.ne;
        ++per_layer[t.layer];
    }
    // ssm_in: z and x (2 x 8192), B and C (2 x 8 x 128), dt (128)
    CHECK(shape["blk.0.ssm_in.weight"][1] == 2 * 8192 + 2 * 8 * 128 + 128);
    CHECK(per_layer[1] == 3);  // attn_norm, ffn_down, ffn_up
    CHECK(shape["blk.1.ffn_up.weight"][1] == 21504);
    CHECK(shape.contains("blk.7.attn_q.weight"));  // "M-M-M-M*": the 8th block attends
    CHECK_FALSE(shape.contains("blk.7.ffn_up.weight"));
    // embeddings 2 x 131072 x 4096 + output_norm; per Mamba block 109,640,064 values (norm,
    // ssm_in, conv and its bias, dt, A, D, the grouped norm, ssm_out); per attention block
    // 41,947,136; per MLP block 176,164,864
    CHECK(layout.elements() ==
          2ULL * 131072 * 4096 + 4096 + 24ULL * 109640064 + 4ULL * 41947136 + 24ULL * 176164864);

    // Only the 4 attention blocks cache K and V; the 24 Mamba blocks keep their state:
    // (4 - 1) x (8192 + 2 x 8 x 128) conv values and 128 x 8192 state values, in f32.
    LlamaCppOptions o;
    o.context = 8192;
    const auto e = estimate_llamacpp(m, test::quant("Q8_0"), o).value();
    CHECK(e.term(TermKind::kv_cache) == 4ULL * 8 * (128 + 128) * 2 * 8192);
    CHECK(e.term(TermKind::recurrent_state) == 24ULL * (3 * 10240 + 128 * 8192) * 4);
}

TEST_CASE("Nemotron 3 Nano: its E blocks are the MoE layers of nemotron_h_moe") {
    // 52 blocks: 23 Mamba-2, 6 attention, 23 MoE blocks of 128 squared-ReLU experts of 1856
    // (up and down only), a routing bias and one shared expert of 3712.
    const TensorLayout layout = tensor_layout(test::model("nemotron-3-nano-30b-a3b")).value();
    CHECK(layout.arch == "nemotron_h_moe");
    CHECK(layout.n_layer == 52);
    CHECK(layout.n_expert == 128);
    std::map<std::string, std::array<std::uint64_t, 4>> shape;
    for (const auto& t : layout.tensors) shape[t.name.str()] = t.ne;
    // "MEMEM*...": block 1 is an MoE block
    CHECK(shape["blk.1.ffn_up_exps.weight"] == std::array<std::uint64_t, 4>{2688, 1856, 128, 1});
    CHECK(shape["blk.1.ffn_down_shexp.weight"] == std::array<std::uint64_t, 4>{3712, 2688, 1, 1});
    CHECK(shape.contains("blk.1.exp_probs_b.bias"));
    CHECK_FALSE(shape.contains("blk.1.ffn_gate_exps.weight"));
    CHECK(shape.contains("blk.5.attn_k.weight"));
}

TEST_CASE("Kimi Linear: KDA and MLA layers as kimi-linear.cpp loads and caches them") {
    const Model& m = test::model("kimi-linear-48b-a3b");
    const TensorLayout layout = tensor_layout(m).value();
    CHECK(layout.arch == "kimi-linear");
    // The checkpoint's 20,493 tensors hold 49,122,681,728 values (its model report's tensor
    // inventory); llama.cpp's tensors are the same values, kv_b split into k_b and v_b.
    CHECK(layout.elements() == 49122681728ULL);
    std::map<std::string, std::array<std::uint64_t, 4>> shape;
    for (const auto& t : layout.tensors) shape[t.name.str()] = t.ne;
    CHECK(shape["blk.0.ssm_conv1d_q.weight"] == std::array<std::uint64_t, 4>{4, 1, 4096, 1});
    CHECK(shape.contains("blk.0.ffn_gate.weight"));       // first_k_dense_replace 1
    CHECK(shape.contains("blk.3.attn_kv_a_mqa.weight"));  // full_attn_layers [4, 8, ...]
    CHECK(shape.contains("blk.26.attn_k_b.weight"));      // ... and 27 (1-based)
    CHECK(shape.contains("blk.25.ssm_f_a.weight"));

    // K only on the 7 MLA layers: 512 + 64 values per cell; per sequence, in f32, each of the
    // 20 KDA layers keeps 3 x (4 - 1) x 4096 conv values and 32 x 128 x 128 state values.
    LlamaCppOptions o;
    o.context = 8192;
    const auto e = estimate_llamacpp(m, test::quant("Q4_K_M"), o).value();
    CHECK(e.term(TermKind::kv_cache) == 7ULL * 576 * 2 * 8192);
    CHECK(e.term(TermKind::recurrent_state) == 20ULL * (36864 + 524288) * 4);
}

TEST_CASE("LFM2: short convolutions keep 2 x n_embd floats, the layout is the card's count") {
    // lfm2.cpp: every tensor of LFM2 1.2B, norms included (token_embd_norm is the final norm),
    // sums to the model card's exact 1,170,340,608 parameters.
    const Model& m = test::model("lfm2-1.2b");
    const TensorLayout layout = tensor_layout(m).value();
    CHECK(layout.arch == "lfm2");
    CHECK(layout.elements() == 1170340608ULL);
    // The 8B-A1B: 2 dense layers of 7168, 22 MoE layers of 32 experts of 1792 with a routing
    // bias: 8,339,930,560, llama-bench's "8.34 B"
    const TensorLayout moe = tensor_layout(test::model("lfm2-8b-a1b")).value();
    CHECK(moe.arch == "lfm2moe");
    CHECK(moe.elements() == 8339930560ULL);

    // K and V on the 6 attention layers (8 KV heads x 64); per sequence, in f32, (3 - 1) x 2048
    // conv values on each of the 10 convolution layers (n_embd_r)
    LlamaCppOptions o;
    o.context = 8192;
    const auto e = estimate_llamacpp(m, test::quant("Q8_0"), o).value();
    CHECK(e.term(TermKind::kv_cache) == 6ULL * 8 * (64 + 64) * 2 * 8192);
    CHECK(e.term(TermKind::recurrent_state) == 10ULL * 2 * 2048 * 4);
}

// Several sequences in one KV stream (-np 4 -kvu; llama-server's -np auto): the cells are the
// same, but every sequence's attention spans the whole cache, so the compute buffer sees
// n_kv = n_ctx rather than n_ctx / 4 (llama-context.cpp). Llama 3.1 8B at 262,144 cells, flash
// attention, ubatch 512, CPU backend: the logits phase is 512 x 4 x (128,256 + 2 x 4,096) =
// 279,445,504 bytes; the attention phase 512 x (2 x n_kv + 4 x (4 x 4,096 + 3 x 14,336)).
TEST_CASE("llama.cpp: -np 4 -kvu spans the whole cache in the compute buffer, by hand") {
    LlamaCppOptions o;
    o.backend = Backend::cpu;
    o.context = 262144;
    o.n_seq = 4;
    o.flash_attn = FlashAttn::on;
    const Model& m = test::model("llama-3.1-8b");
    const auto split = estimate_llamacpp(m, test::quant("Q4_K_M"), o).value();
    // Four streams of 65,536 cells: attention 512 x (131,072 + 237,568) is below the logits.
    CHECK(split.term(TermKind::compute) == 279445504ULL);
    o.kv_unified = true;
    const auto unified = estimate_llamacpp(m, test::quant("Q4_K_M"), o).value();
    CHECK(unified.term(TermKind::compute) == 512ULL * (2 * 262144 + 237568));
    // The cache holds the same cells either way: 262,144 x 32 layers x 8 x 128 x (K + V) x 2.
    CHECK(split.term(TermKind::kv_cache) == 262144ULL * 32 * 8 * 128 * 2 * 2);
    CHECK(unified.term(TermKind::kv_cache) == split.term(TermKind::kv_cache));
}

// A 128k context on CUDA at the pinned build: the layers' phase, 512 x (2 x 131,072 + 4 x (3 x
// 4,096 + 3 x 14,336)) = 512 x (262,144 + 221,184) = 247,463,936 bytes with the f16 KQ mask
// flash attention reads (a GPU's three hidden rows, kGpuEmbdRows), is below the logits batch,
// 512 x 4 x (128,256 + 4,096) = 271,056,896: the 258.50 MiB the H200 measured
// (validation/cuda-h200/run1, 80fb11a). The host keeps the f16 mask and two embedding copies,
// 512 x (2 x 131,072 + 4 x 8,192) = 144 MiB (measured 144.01). A build before PR #23764 keeps
// the f32 mask on both (f32_mask): 512 x 4 x 131,072 more on the GPU, twice the mask on the host.
TEST_CASE("llama.cpp: a 128k context on CUDA, by hand") {
    LlamaCppOptions o;
    o.backend = Backend::cuda;
    o.context = 131072;
    o.flash_attn = FlashAttn::on;
    const auto e = estimate_llamacpp(test::model("llama-3.1-8b"), test::quant("Q4_K_M"), o).value();
    CHECK(e.term(TermKind::compute) == 271056896ULL);
    CHECK(e.term(TermKind::host_compute) == 512ULL * (2 * 131072 + 4 * 8192));
    o.f32_mask = true;
    const auto old =
        estimate_llamacpp(test::model("llama-3.1-8b"), test::quant("Q4_K_M"), o).value();
    CHECK(old.term(TermKind::compute) == 512ULL * (2 * 131072 + 221184) + 512ULL * 4 * 131072);
    CHECK(old.term(TermKind::host_compute) == 512ULL * 4 * (131072 + 8192));
}
