// Data is code: every entry of the built-in database is checked against what it claims.

#include <cmath>
#include <set>

#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/strings.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

// Within max(3 %, half the published precision) of the published figure.
bool close_to_published(std::uint64_t computed, std::uint64_t published, std::uint64_t rounding) {
    const double diff = std::fabs(static_cast<double>(computed) - static_cast<double>(published));
    const double allowed =
        std::max(0.03 * static_cast<double>(published), static_cast<double>(rounding) / 2);
    return diff <= allowed;
}

}  // namespace

TEST_CASE("quality ranks are a strict order across every quantization") {
    std::set<std::uint64_t> ranks;
    for (const Quant& q : test::database().quants) ranks.insert(q.quality_rank);
    CHECK(ranks.size() == test::database().quants.size());
    // Mixes that spend more bits rank better than their smaller siblings.
    CHECK(test::quant("Q5_K_M").quality_rank < test::quant("Q5_K_S").quality_rank);
    CHECK(test::quant("Q4_K_M").quality_rank < test::quant("Q4_K_S").quality_rank);
    CHECK(test::quant("Q3_K_M").quality_rank < test::quant("Q3_K_S").quality_rank);
    CHECK(test::quant("Q8_0").quality_rank < test::quant("Q6_K").quality_rank);
}

TEST_CASE("a GPU's name says A100 exactly when it is an A100, as vLLM's defaults read it") {
    // vLLM picks its scheduler defaults by `"a100" in the device name` (vllm_layout.cpp): the
    // database names must carry the model's name as CUDA reports it ("NVIDIA A100-SXM4-80GB").
    std::size_t a100s = 0;
    for (const Gpu& g : test::database().gpus) {
        INFO(g.id);
        const bool is_a100 = g.id.starts_with("a100");
        a100s += is_a100 ? 1 : 0;
        CHECK((to_lower(g.name).find("a100") != std::string::npos) == is_a100);
    }
    CHECK(a100s >= 4);  // 40 and 80 GB, PCIe and SXM
}

TEST_CASE("the built-in database has what the page needs") {
    const Database& db = test::database();
    CHECK(db.models.size() >= 12);
    CHECK(db.gpus.size() >= 40);
    for (const char* id :
         {"FP32", "BF16", "FP16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q3_K_M", "Q2_K", "NVFP4"}) {
        INFO(id);
        CHECK(db.find_quant(id).has_value());
    }
}

TEST_CASE("every model's parameter count follows from its architecture") {
    for (const Model& m : test::database().models) {
        const ParamCount p = count_params(m);
        INFO(m.id << ": computed " << p.total << " total, " << p.active << " active; published "
                  << m.params_total << " / " << m.params_active);
        CHECK(close_to_published(p.total, m.params_total, m.params_rounding));
        if (m.is_moe()) {
            const auto close = [&](std::uint64_t computed) {
                return close_to_published(computed, m.params_active, m.params_rounding);
            };
            CHECK((close(p.active) || close(p.active_without_input_embedding) ||
                   close(p.active_without_embeddings)));
        } else {
            CHECK(m.params_active == m.params_total);
        }
    }
}

TEST_CASE("every model's attention is plausible") {
    for (const Model& m : test::database().models) {
        INFO(m.id);
        const Attention& a = m.arch.attention;
        CHECK(a.heads % a.kv_heads == 0);  // GQA groups divide evenly
        CHECK(m.context_native >= 2048);
        if (m.context_extended != 0) CHECK(m.context_extended >= m.context_native);
        for (const auto& g : m.arch.layer_groups) {
            if (g.kind == LayerKind::sliding) CHECK(g.window < m.context_native * 2);
        }
        CHECK_FALSE(m.source.empty());
    }
}

// The fields the late-2026 cache rules read, where they belong (data/SCHEMA.md): an indexer only
// on MLA, full and ratio-4 compressed groups, with its heads; DeepSeek V4's architecture fields
// exactly on the models with compressed layers; a layer_order that names every group.
TEST_CASE("every sparse-attention indexer and compressed layer is stated whole") {
    std::size_t compressed_models = 0, indexed_groups = 0;
    for (const Model& m : test::database().models) {
        INFO(m.id);
        bool compressed = false;
        for (const auto& g : m.arch.layer_groups) {
            compressed = compressed || g.kind == LayerKind::compressed;
            if (g.index_head_dim > 0) {
                ++indexed_groups;
                CHECK(g.index_heads > 0);
                CHECK((g.kind == LayerKind::mla || g.kind == LayerKind::full ||
                       (g.kind == LayerKind::compressed && g.compress_ratio == 4)));
            }
            if (g.kind == LayerKind::compressed) {
                CHECK(g.window > 0);
                CHECK(g.q_lora_rank > 0);
                CHECK((g.compress_ratio == 4) == (g.index_head_dim > 0));
            }
        }
        const Architecture& a = m.arch;
        // DeepSeek V4's full-rank hyper-connections; qwen4exp's low-rank ones go without, and
        // Hy4's (hy_v4) sit on MLA layers
        const bool full_rank_hc = a.hyper_connections > 0 && a.hyper_connection_rank == 0;
        CHECK(compressed == (full_rank_hc && m.family != "hy4"));
        CHECK(compressed == (a.output_groups > 0 && a.output_lora_rank > 0));
        if (!a.layer_order.empty()) CHECK(stated_group_order(a).size() == a.layers);
        compressed_models += compressed ? 1 : 0;
    }
    CHECK(compressed_models == 5);  // DeepSeek-V4 Flash and Pro, previews, 0731 / 0813, Vision
    CHECK(indexed_groups >= 6);     // V3.2, GLM-5 / 5.1 / 5.2 / 5.3, MiniMax-M3, the V4s
}

TEST_CASE("head dim x heads agrees with the hidden size unless the config states head_dim") {
    for (const Model& m : test::database().models) {
        INFO(m.id);
        const Attention& a = m.arch.attention;
        bool mla = false;
        for (const auto& g : m.arch.layer_groups) {
            if (g.kind != LayerKind::mla) continue;
            mla = true;
            // MLA's query/key head is the no-rope part plus the rope part; a group with heads of
            // its own (dots3-note's sliding MLA: 64 heads of 192 + 64) is its own shape, and the
            // model's attention describes the other group's.
            if (g.heads != 0) continue;
            CHECK(a.head_dim == g.qk_nope_head_dim + g.qk_rope_head_dim);
        }
        if (!mla && !a.head_dim_explicit) CHECK(a.heads * a.head_dim == m.arch.hidden_size);
    }
}

TEST_CASE("every GPU's byte size agrees with its marketed size") {
    std::set<std::string> vendors;
    for (const Gpu& g : test::database().gpus) {
        INFO(g.id);
        vendors.insert(g.vendor);
        // The real capacity lies between the marketed GB and the same number of GiB, give or take
        // what the vendor reserves (H100's 80 GB is 80 GiB; 180 GB B200 exposes less than 192).
        CHECK(static_cast<double>(g.vram_bytes) >= 0.9 * static_cast<double>(g.vram_gb) * 1e9);
        CHECK(static_cast<double>(g.vram_bytes) <=
              1.1 * static_cast<double>(g.vram_gb) * 1073741824.0);
        CHECK(g.bandwidth_gbps > 0);
        CHECK_FALSE(g.source.empty());
        CHECK_FALSE(g.backends.empty());
    }
    CHECK(vendors.count("nvidia") == 1);
    CHECK(vendors.count("amd") == 1);
    CHECK(vendors.count("apple") == 1);
}

TEST_CASE("every GPU's tensor throughput is in TFLOPS and ordered by precision") {
    for (const Gpu& g : test::database().gpus) {
        INFO(g.id << ": fp16 " << g.fp16_tflops << ", fp8 " << g.fp8_tflops << ", fp4 "
                  << g.fp4_tflops);
        // The fastest single devices (MI355X 2516.6, B300 2250 dense FP16 TFLOPS) stay far below
        // 5000; more means GFLOPS or a sparse figure slipped in (the Ada workstation cards once
        // read 364247 for 364.2).
        CHECK(g.fp16_tflops <= 5000);
        // Each halving of the width at most doubles the rate twice over: 2x on datacenter and
        // workstation datasheets, 4x where a GeForce card's FP8 figure is the half-rate
        // FP32-accumulate one (RTX 5090: 419 FP8, 1676 FP4); 4.01 allows for rounding (RTX
        // 5050: 52.62 and 210.5).
        const double slack = 4.01;
        if (g.fp16_tflops > 0 && g.fp8_tflops > 0) {
            CHECK(g.fp8_tflops >= g.fp16_tflops);
            CHECK(g.fp8_tflops <= slack * g.fp16_tflops);
        }
        if (g.fp8_tflops > 0 && g.fp4_tflops > 0) {
            CHECK(g.fp4_tflops >= g.fp8_tflops);
            CHECK(g.fp4_tflops <= slack * g.fp8_tflops);
        }
    }
}

TEST_CASE("quantization bits per weight agree with ggml's block layouts") {
    // Effective rates sit at or just above the block rate (mixes upgrade some tensors), and below
    // the next format's rate. Block rates from ggml-common.h: bytes per 256-weight super-block.
    struct Bound {
        const char* id;
        double block_bpw;
        double upper;
    };
    const Bound bounds[] = {{"Q8_0", 34.0 * 8 / 32, 8.6},     {"Q6_K", 210.0 * 8 / 256, 6.7},
                            {"Q5_K_M", 176.0 * 8 / 256, 5.9}, {"Q4_K_M", 144.0 * 8 / 256, 5.0},
                            {"Q3_K_M", 110.0 * 8 / 256, 4.0}, {"Q2_K", 84.0 * 8 / 256, 3.2}};
    for (const auto& b : std::initializer_list<Bound>{{"Q4_0", 18.0 * 8 / 32, 4.8},
                                                      {"Q5_0", 22.0 * 8 / 32, 5.8},
                                                      {"IQ4_XS", 136.0 * 8 / 256, 4.6},
                                                      {"Q4_K_S", 144.0 * 8 / 256, 4.8}}) {
        INFO(b.id);
        const double bpw =
            static_cast<double>(test::quant(b.id).bpw_e4) / static_cast<double>(kBpwScale);
        CHECK(bpw >= b.block_bpw);
        CHECK(bpw < b.upper);
    }
    for (const auto& b : bounds) {
        INFO(b.id);
        const double bpw =
            static_cast<double>(test::quant(b.id).bpw_e4) / static_cast<double>(kBpwScale);
        CHECK(bpw >= b.block_bpw);
        CHECK(bpw < b.upper);
    }
}

// fp32_tflops is there only to stand in for a crippled or missing FP16 figure; a GPU whose FP16
// rate is a sliver of a TFLOPS (Pascal's 1/64) must have it, or prefill comes out 64x too slow.
TEST_CASE("an FP32 figure is given exactly where it beats the FP16 one") {
    for (const Gpu& g : test::database().gpus) {
        INFO(g.id << ": fp16 " << g.fp16_tflops << ", fp32 " << g.fp32_tflops);
        if (g.fp32_tflops > 0) CHECK(g.fp32_tflops > g.fp16_tflops);
        if (g.fp16_tflops > 0 && g.fp16_tflops < 1) CHECK(g.fp32_tflops > 0);
        CHECK(g.fp32_tflops <= 1000);
    }
}

// int8_dot_tops stands for the dp4a path of GPUs without matrix units (Pascal GP102/GP104, Vega
// 20), whose 4-way int8 dot product runs at 4x the FP32 rate; a GPU with matrix units keeps its
// tensor figure (matrix_tflops), which an int8 figure would replace in quantized prefill.
TEST_CASE("an INT8 dot figure is given only to GPUs without matrix units, at 4x FP32") {
    for (const Gpu& g : test::database().gpus) {
        if (g.int8_dot_tops <= 0) continue;
        INFO(g.id);
        CHECK((g.architecture == "Pascal" || g.architecture == "GCN5.1"));
        // FP32: the stored figure (Pascal), or half the packed-FP16 one (Vega 20: 26.5 of 13.25)
        const double fp32 = g.fp32_tflops > 0 ? g.fp32_tflops : g.fp16_tflops / 2;
        CHECK(g.int8_dot_tops == Approx(4 * fp32).epsilon(0.02));
    }
}

TEST_CASE("a checkpoint's linear rate gives its whole-file rate on Llama 3 8B") {
    // Llama-3-8B: 8.03e9 parameters, 2 x 128256 x 4096 = 1.05e9 of them in the embedding
    // tables (BF16 in FP8, AWQ and GPTQ checkpoints), the rest in quantized Linear layers.
    const double embedding = 2.0 * 128256 * 4096;
    const double body = 8.03e9 - embedding;
    for (const char* id : {"FP8", "AWQ", "GPTQ"}) {
        const Quant& q = test::quant(id);
        INFO(id);
        REQUIRE(q.linear_bpw_e4 > 0);
        const double linear = static_cast<double>(q.linear_bpw_e4) / kBpwScale;
        const double whole = (body * linear + embedding * 16) / 8.03e9;
        // GPTQ's whole-file rate also counts g_idx (32 / out_features, about 0.005 bpw)
        CHECK(whole == Approx(static_cast<double>(q.bpw_e4) / kBpwScale).margin(0.01));
    }
    // NVFP4's whole-file rate is the page's 4.0 (scales left out); vLLM holds the scales.
    CHECK(test::quant("NVFP4").linear_bpw_e4 == 45000);
}

// An editorial claim is checked by planning its quantization: one we do not know would never be
// checked (report.cpp skips it), so every claim names a quantization of the database.
TEST_CASE("every editorial claim names a quantization of the database") {
    for (const Model& m : test::database().models) {
        for (const auto& c : m.editorial.claims) {
            INFO(m.id << ": " << c.quant);
            CHECK(test::database().find_quant(c.quant));
        }
    }
}

// data/publishers.json: each publisher entry names its Hub organisation and cites what says how
// its files are made; the built-in database gives that recipe, with that source, to every model
// whose gguf_repo it owns (bartowski's and Unsloth's both say their files use an imatrix), and
// none to a model of an unlisted owner.
TEST_CASE("every GGUF publisher's recipe has a source and reaches its models") {
    std::size_t bartowski = 0, unsloth = 0;
    for (const Model& m : test::database().models) {
        INFO(m.id << " " << m.run.gguf_repo);
        CHECK(m.run.gguf_imatrix == !m.run.gguf_imatrix_source.empty());
        const std::string owner = to_lower(m.run.gguf_repo.substr(0, m.run.gguf_repo.find('/')));
        if (owner == "bartowski" || owner == "unsloth") {
            CHECK(m.run.gguf_imatrix);
            CHECK(m.run.gguf_imatrix_source.starts_with("https://"));
            ++(owner == "bartowski" ? bartowski : unsloth);
        } else {
            CHECK_FALSE(m.run.gguf_imatrix);
        }
    }
    CHECK(bartowski > 0);
    CHECK(unsloth > 0);
}
