// The KV rule of each layer kind, against byte counts worked out by hand, and against what
// llama.cpp itself allocated (tests/fixtures/llamacpp-cpu-buffers.json, commit 5b4ebc5).

#include "canitrun/kv_cache.hpp"
#include "canitrun/plan_settings.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

KvType type(const char* id) {
    return parse_kv_type(id).value();
}

LayerGroup group(LayerKind kind, std::uint64_t count) {
    LayerGroup g;
    g.kind = kind;
    g.count = count;
    return g;
}

}  // namespace

TEST_CASE("full attention: 2 x KV heads x head dim x context x element size - per layer") {
    // One layer, 8 KV heads of 128: 2 x 8 x 128 x 2 bytes = 4096 bytes per token.
    const Model m = test::model_with({group(LayerKind::full, 1)}, 8, 128);
    CHECK(kv_cache_bytes(m, 1000, type("f16")) == 4096000);
    CHECK(kv_cache_bytes(m, 1000, type("f32")) == 8192000);
}

TEST_CASE("full attention matches llama.cpp's KV buffer for Llama 3.1 8B and Qwen3-30B-A3B") {
    // llama-3.1-8b: 32 layers x 2 x 8 x 128 x 2 bytes = 131072 bytes per token;
    // llama.cpp reported 536870912 bytes at n_ctx 4096 and 17179869184 at 131072.
    const Model& llama = test::model("llama-3.1-8b");
    CHECK(kv_cache_bytes(llama, 4096, type("f16")) == 536870912ULL);
    CHECK(kv_cache_bytes(llama, 131072, type("f16")) == 17179869184ULL);
    // qwen3-30b-a3b: 48 layers x 2 x 4 x 128 x 2 = 98304 bytes per token; llama.cpp: 402653184
    // at 4096.
    CHECK(kv_cache_bytes(test::model("qwen3-30b-a3b"), 4096, type("f16")) == 402653184ULL);
}

TEST_CASE("sliding window: capped at the window") {
    LayerGroup g = group(LayerKind::sliding, 1);
    g.window = 4096;
    const Model m = test::model_with({g}, 8, 128);
    // Below the window every token is kept: 4096 bytes x 1000.
    CHECK(kv_cache_bytes(m, 1000, type("f16")) == 4096000);
    // Above it, 4096 tokens: 4096 x 4096 = 16777216, at 8k and at 128k alike.
    CHECK(kv_cache_bytes(m, 8192, type("f16")) == 16777216);
    CHECK(kv_cache_bytes(m, 131072, type("f16")) == 16777216);
}

TEST_CASE("linear attention and SSM layers keep no KV cache - only a fixed state") {
    LayerGroup linear = group(LayerKind::linear, 30);
    linear.conv_kernel = 4;
    linear.key_heads = 16;
    linear.value_heads = 32;
    linear.key_head_dim = 128;
    linear.value_head_dim = 128;
    const Model m = test::model_with({linear, group(LayerKind::full, 10)}, 2, 256);
    // Only the 10 attention layers: 10 x 2 x 2 x 256 x 2 = 20480 bytes per token.
    CHECK(kv_cache_bytes(m, 8192, type("f16")) == 167772160ULL);
    // State per linear layer, f32: conv (4 - 1) x (2 x 16 x 128 + 32 x 128) = 24576 values,
    // recurrent 32 x 128 x 128 = 524288 values; 30 x 548864 x 4 bytes = 65863680.
    // llama.cpp logged 62.81 MiB (65861059 bytes after rounding) for qwen3.5-35b-a3b.
    CHECK(recurrent_state_bytes(m) == 65863680ULL);
    CHECK(recurrent_state_bytes(test::model("qwen3.5-35b-a3b")) == 65863680ULL);
    const double mib = static_cast<double>(recurrent_state_bytes(m)) / 1048576.0;
    CHECK(mib == Approx(62.81).margin(0.01));
}

TEST_CASE("Mamba-2 SSM state: conv (k - 1) x (inner + 2 x groups x state) + state x inner") {
    LayerGroup ssm = group(LayerKind::ssm, 1);
    ssm.conv_kernel = 4;
    ssm.inner_size = 8192;
    ssm.state_size = 128;
    ssm.groups = 8;
    const Model m = test::model_with({ssm}, 8, 128);
    // conv 3 x 10240 = 30720, state 128 x 8192 = 1048576; x 4 bytes = 4317184.
    CHECK(recurrent_state_bytes(m) == 4317184);
    CHECK(kv_cache_bytes(m, 100000, type("f16")) == 0);
}

TEST_CASE("MLA caches one latent plus the rope key per token") {
    LayerGroup mla = group(LayerKind::mla, 61);
    mla.kv_lora_rank = 512;
    mla.qk_rope_head_dim = 64;
    mla.qk_nope_head_dim = 128;
    mla.v_head_dim = 128;
    const Model m = test::model_with({mla}, 128, 192);
    // 61 x (512 + 64) x 2 bytes = 70272 bytes per token.
    CHECK(kv_cache_bytes(m, 1000, type("f16")) == 70272000);
}

TEST_CASE("kv: DeepSeek V3.2 caches the sparse-attention indexer's key beside the latent") {
    // llama.cpp's deepseek32 (llama_kv_cache_dsa): 61 layers x (512 + 64 + 128) f16 values =
    // 85888 bytes per token; q8_0 rows: 576 / 32 x 34 + 128 / 32 x 34 = 612 + 136 bytes.
    const Model m = test::model("deepseek-v3.2");
    CHECK(kv_cache_bytes(m, 1000, type("f16")) == 85888000);
    CHECK(kv_cache_bytes(m, 163840, type("f16")) == 61ULL * 704 * 2 * 163840);
    CHECK(kv_cache_bytes(m, 1024, type("q8_0")) == 61ULL * (612 + 136) * 1024);
}

TEST_CASE(
    "kv: GLM-5's 78 layers cache the latent and the indexer key, Mistral Large 3 the latent") {
    // glm-dsa: 78 x (512 + 64 + 128) x 2 = 109824 bytes per token at f16; Mistral Large 3 as
    // deepseek2: 61 x (512 + 64) x 2 = 70272.
    CHECK(kv_cache_bytes(test::model("glm-5"), 1000, type("f16")) == 109824000);
    CHECK(kv_cache_bytes(test::model("mistral-large-3-675b"), 1000, type("f16")) == 70272000);
}

TEST_CASE("quantized KV types use ggml's block sizes") {
    const Model m = test::model_with({group(LayerKind::full, 1)}, 8, 128);
    // 2048 values per token x 1024 tokens = 2097152 values.
    CHECK(kv_cache_bytes(m, 1024, type("q8_0")) == 2097152ULL / 32 * 34);
    CHECK(kv_cache_bytes(m, 1024, type("q4_0")) == 2097152ULL / 32 * 18);
    CHECK(kv_cache_bytes(m, 1024, type("turboquant")) == 2097152ULL / 16 * 7);
    CHECK(kv_cache_bytes(m, 1024, type("Q8_0")) == 2228224);
}

TEST_CASE("unknown KV types are refused with the list") {
    const auto r = parse_kv_type("q3");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message == "unknown KV cache type 'q3'");
    CHECK(r.error().hint.find("q8_0") != std::string::npos);
}

TEST_CASE("find_kv_type takes any case and gives nullptr for an unknown type") {
    REQUIRE(find_kv_type("Q8_0") != nullptr);
    // ggml's block_q8_0: 32 values in 2 (the f16 scale) + 32 bytes
    CHECK(find_kv_type("Q8_0")->id == "q8_0");
    CHECK(find_kv_type("Q8_0")->block_bytes == 34);
    CHECK(find_kv_type("IQ4_NL")->id == "iq4_nl");
    CHECK(find_kv_type("q3") == nullptr);
    CHECK(find_kv_type("q8_") == nullptr);
}

TEST_CASE("all-attention comparison treats every layer as full attention") {
    LayerGroup g = group(LayerKind::sliding, 3);
    g.window = 512;
    const Model m = test::model_with({g, group(LayerKind::full, 1)}, 8, 128);
    CHECK(all_attention_kv_cache_bytes(m, 2048, type("f16")) == 4ULL * 4096 * 2048);
    CHECK(kv_cache_bytes(m, 2048, type("f16")) == 3ULL * 4096 * 512 + 4096ULL * 2048);
}

// Gemma 3n E4B keeps KV in its first 20 layers only (num_kv_shared_layers 15; llama.cpp's
// n_layer_kv_from_start = 20): with every 5th layer global, 16 sliding + 4 full layers own a
// cache. 2 KV heads x (256 + 256) dims x 2 bytes = 2,048 bytes a token a layer:
// at 4,096 tokens 16 x 512 x 2,048 + 4 x 4,096 x 2,048 = 50,331,648 bytes;
// at 32,768 tokens 16 x 512 x 2,048 + 4 x 32,768 x 2,048 = 285,212,672 (not 35 layers' worth).
TEST_CASE("kv: Gemma 3n's shared-KV layers keep no cache of their own") {
    const Model& m = test::model("gemma-3n-e4b");
    CHECK(m.arch.shared_kv_layers == 15);
    CHECK(kv_owning_layers(m) == 20);
    CHECK(kv_cache_bytes(m, 4096, type("f16")) == 50331648ULL);
    CHECK(kv_cache_bytes(m, 32768, type("f16")) == 285212672ULL);
    const auto owners = kv_owner_counts(m);
    REQUIRE(owners.size() == 2);
    CHECK(owners[0] == 16);  // sliding
    CHECK(owners[1] == 4);   // full
}

// Gemma 4 E4B: 42 layers, every 6th global (head_dim 512), the last 18 sharing: 24 own a cache,
// 20 sliding (2 x 512 dims x 2 bytes = 2,048 a token) and 4 global (2 x 1,024 x 2 = 4,096):
// at 4,096 tokens 20 x 512 x 2,048 + 4 x 4,096 x 4,096 = 88,080,384 bytes.
TEST_CASE("kv: Gemma 4 E4B's 18 shared-KV layers keep no cache of their own") {
    const Model& m = test::model("gemma-4-e4b");
    CHECK(kv_owning_layers(m) == 24);
    CHECK(kv_cache_bytes(m, 4096, type("f16")) == 88080384ULL);
    // The per-layer parts agree with the total: the last 18 layers carry no KV.
    const ModelParts parts = test::parts_of("gemma-4-e4b", "Q4_K_M", 4096);
    CHECK(parts.kv_cache() == 88080384ULL);
    for (std::size_t i = 24; i < parts.layers.size(); ++i) CHECK(parts.layers[i].kv_cache == 0);
}

// Phi-3 mini 4k's config sets sliding_window 2047, which llama.cpp's phi3 ignores: every one of
// its 32 layers caches every position. 32 KV heads x (96 + 96) dims x 2 bytes = 12,288 bytes a
// token a layer: 32 x 4,096 x 12,288 = 1,610,612,736 bytes at 4k, by both rules (the window
// would have given half). Ministral 8B (run by llama.cpp as plain llama, its 32k window unused):
// 36 layers x 8 heads x 256 dims x 2 bytes = 147,456 bytes a token: 9,663,676,416 at 64k.
TEST_CASE("kv: Phi-3 4k and Ministral 8B cache every position, as llama.cpp runs them") {
    const Model& phi = test::model("phi-3-mini-4k");
    CHECK(kv_cache_bytes(phi, 4096, type("f16")) == 1610612736ULL);
    CHECK_FALSE(phi.arch.config_note.empty());
    const Model& ministral = test::model("ministral-8b");
    CHECK(kv_cache_bytes(ministral, 65536, type("f16")) == 9663676416ULL);
    for (const char* id : {"phi-3-mini-4k", "ministral-8b"}) {
        INFO(id);
        PlanSettings s;
        s.estimate.context = std::string(id) == "ministral-8b" ? 65536 : 4096;
        auto parts = plan_parts(test::model(id), test::quant("Q4_K_M"), s);
        REQUIRE(parts);
        CHECK(parts->kv_cache() ==
              kv_cache_bytes(test::model(id), s.estimate.context, type("f16")));
    }
}
