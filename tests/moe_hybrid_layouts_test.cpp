// The tensor layouts of src/core/engines/moe_layouts.cpp (ERNIE 4.5 MoE, Llama 4, MiMo-V2-Flash,
// Step-3.5-Flash), Gemma 3n and 4 and the Jamba, Falcon-H1 and Phi-4-mini ones, each summed by hand
// from the model's dims as llama.cpp's src/models/<arch>.cpp loads them; the accuracy harness
// (docs/ACCURACY.md) found llama.cpp's own llama_model_size() equal to these layouts' bytes.

#include <array>
#include <map>

#include "canitrun/gguf_file_size.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

std::map<std::string, std::array<std::uint64_t, 4>> shapes(const TensorLayout& layout) {
    std::map<std::string, std::array<std::uint64_t, 4>> out;
    for (const auto& t : layout.tensors) out[t.name.str()] = t.ne;
    return out;
}

// The KV cache llama.cpp's profile gives the model at 32768 tokens, f16, ubatch 512.
Bytes kv_at_32k(const Model& m, FlashAttn fa) {
    LlamaCppOptions o;
    o.context = 32768;
    o.flash_attn = fa;
    return estimate_llamacpp(m, test::quant("Q4_K_M"), o).value().term(TermKind::kv_cache);
}

}  // namespace

TEST_CASE("ERNIE 4.5 21B-A3B: one dense layer, then routed experts with a bias and shared ones") {
    // h 2560, tied vocab 103424, 28 layers of q (20 x 128) / k, v (4 x 128) / o and two norms;
    // layer 0 a 12288-wide SwiGLU, layers 1-27 a router (64), 64 experts of 1536, the bias (64)
    // and the shared experts (3072): 103424 x 2560 + 2560 + 28 x (2 x 2560 x 2560 + 2 x 2560 x
    // 512 + 2 x 2560) + 3 x 2560 x 12288 + 27 x (2560 x 64 + 3 x 2560 x 1536 x 64 + 64 + 3 x
    // 2560 x 3072) = 21,825,437,888.
    const TensorLayout layout = tensor_layout(test::model("ernie-4.5-21b-a3b")).value();
    CHECK(layout.arch == "ernie4_5-moe");
    CHECK(layout.elements() == 21825437888ULL);
    auto s = shapes(layout);
    CHECK(s["blk.0.ffn_up.weight"][1] == 12288);
    CHECK(s["blk.1.exp_probs_b.bias"][0] == 64);
    CHECK(s["blk.1.ffn_up_shexp.weight"][1] == 3072);
    CHECK_FALSE(s.contains("output.weight"));  // tied
}

TEST_CASE("Llama 4: every layer MoE in Scout, every other one in Maverick, a shared expert") {
    // Both: h 5120, vocab 202048 untied, 48 layers of q/o (40 x 128) and k/v (8 x 128).
    // Scout: 16 experts of 8192 and a shared one of 8192 on every layer, its llama3 rope_freqs
    // (64): 2 x 202048 x 5120 + 5120 + 64 + 48 x (attention 62,914,560 + norms 10,240 +
    // router 81,920 + experts 2,013,265,920 + shared 125,829,120) = 107,769,861,184.
    const TensorLayout scout = tensor_layout(test::model("llama-4-scout-17b-16e")).value();
    CHECK(scout.arch == "llama4");
    CHECK(scout.elements() == 107769861184ULL);
    // Maverick: 128 experts on the odd layers, a 16384-wide SwiGLU on the even ones, no
    // rope_freqs (its rope_scaling is null): 2,068,976,640 + 48 x 62,924,800 + 24 x
    // (655,360 + 16,106,127,360 + 125,829,120) + 24 x 251,658,240 = 400,711,848,960.
    const TensorLayout mav = tensor_layout(test::model("llama-4-maverick-17b-128e")).value();
    CHECK(mav.elements() == 400711848960ULL);
    auto s = shapes(mav);
    CHECK(s["blk.0.ffn_up.weight"][1] == 16384);
    CHECK(s["blk.1.ffn_up_exps.weight"] == std::array<std::uint64_t, 4>{5120, 8192, 128, 1});
    CHECK_FALSE(s.contains("rope_freqs.weight"));
}

TEST_CASE("MiMo-V2-Flash: KV heads per layer, sinks on the sliding layers, V padded without FA") {
    // 64 query heads of 192 (v 128) on every layer; 4 KV heads on the 9 full layers, 8 on the
    // 39 sliding ones (and their 64 sinks); layer 0 a 16384-wide SwiGLU, layers 1-47 256
    // experts of 2048 with the routing bias: 2 x 152576 x 4096 + 4096 + 9 x 89,128,960 + 39 x
    // (94,371,840 + 64) + 48 x 8192 + 201,326,592 + 47 x 6,443,499,776 = 308,778,780,864.
    const Model& m = test::model("mimo-v2-flash");
    const TensorLayout layout = tensor_layout(m).value();
    CHECK(layout.arch == "mimo2");
    CHECK(layout.elements() == 308778780864ULL);
    auto s = shapes(layout);
    CHECK(s["blk.0.attn_k.weight"][1] == 4ULL * 192);  // layer 0 is full
    CHECK(s["blk.1.attn_k.weight"][1] == 8ULL * 192);
    CHECK(s.contains("blk.1.attn_sinks.weight"));
    CHECK_FALSE(s.contains("blk.5.attn_sinks.weight"));  // layer 5 is full
    // At 32768 tokens, f16: the full layers 32768 cells x (768 + 512) x 2 B, the sliding ones
    // pad(128 + 512) = 768 cells x (1536 + 1024) x 2 B: 9 x 83,886,080 + 39 x 3,932,160 =
    // 908,328,960 B (866.25 MiB, as llama.cpp logs). Without flash attention every V row is the
    // widest, 1024: 9 x 32768 x 1792 x 2 + 39 x 768 x 2560 x 2 = 1,210,318,848 B (1154.25 MiB).
    CHECK(kv_at_32k(m, FlashAttn::on) == 908328960ULL);
    // llama.cpp sizes the cache with flash attention on when it is left to choose
    CHECK(kv_at_32k(m, FlashAttn::automatic) == 908328960ULL);
    CHECK(kv_at_32k(m, FlashAttn::off) == 1210318848ULL);
}

TEST_CASE("MiMo-V2.6-Flash-RL: V2-Flash's shapes with one fused attn_qkv a layer") {
    // qkv_proj rows [Q | K | V]: a full layer 64 x 192 + 4 x 192 + 4 x 128 = 13,568, a sliding
    // one 64 x 192 + 8 x 192 + 8 x 128 = 14,848 (the rows of the serving fixture the entry
    // cites); fusing moves no weight, so the elements are V2-Flash's 308,778,780,864 and the
    // KV cache at 32768 tokens its 908,328,960 B.
    const Model& m = test::model("mimo-v2.6-flash-rl");
    const TensorLayout layout = tensor_layout(m).value();
    CHECK(layout.arch == "mimo2");
    CHECK(layout.elements() == 308778780864ULL);
    auto s = shapes(layout);
    CHECK(s["blk.0.attn_qkv.weight"] == std::array<std::uint64_t, 4>{4096, 13568, 1, 1});
    CHECK(s["blk.1.attn_qkv.weight"] == std::array<std::uint64_t, 4>{4096, 14848, 1, 1});
    CHECK(s["blk.1.attn_output.weight"] ==
          std::array<std::uint64_t, 4>{64ull * 128ull, 4096, 1, 1});
    CHECK_FALSE(s.contains("blk.0.attn_q.weight"));
    CHECK(s.contains("blk.1.attn_sinks.weight"));
    CHECK(kv_at_32k(m, FlashAttn::on) == 908328960ULL);
}

TEST_CASE("MiMo-V2.6-Pro-RL: 70 layers, 10 full, fused attn_qkv, 384 experts") {
    // The config the entry cites: h 6144, vocab 152576 untied, 128 q heads on every layer and 8
    // KV heads on the full and the sliding ones, q/k 192, v 128. qkv rows 128 x 192 + 8 x 192 +
    // 8 x 128 = 27,136 on every layer. Per layer: 2 norms 12,288 + qkv 6144 x 27136
    // 166,723,584 + o 16384 x 6144 100,663,296 = 267,399,168; 60 sliding layers add 128 sinks;
    // layer 0 dense 3 x 6144 x 16384 = 301,989,888; 69 MoE layers of router 6144 x 384 +
    // experts 3 x 6144 x 2048 x 384 + bias 384 = 14,497,874,304; embeddings and head 2 x 6144 x
    // 152576 + output_norm 6144 = 1,874,860,032. Total 1,874,860,032 + 70 x 267,399,168 + 60 x
    // 128 + 301,989,888 + 69 x 14,497,874,304 = 1,021,248,126,336 (the card's 1.02T).
    const Model& m = test::model("mimo-v2.6-pro-rl");
    const TensorLayout layout = tensor_layout(m).value();
    CHECK(layout.arch == "mimo2");
    CHECK(layout.elements() == 1021248126336ULL);
    auto s = shapes(layout);
    CHECK(s["blk.0.attn_qkv.weight"] == std::array<std::uint64_t, 4>{6144, 27136, 1, 1});
    CHECK(s["blk.1.attn_qkv.weight"] == std::array<std::uint64_t, 4>{6144, 27136, 1, 1});
    CHECK_FALSE(s.contains("blk.7.attn_sinks.weight"));  // layer 7 is full
    CHECK(s.contains("blk.8.attn_sinks.weight"));
    CHECK_FALSE(s.contains("blk.62.attn_sinks.weight"));  // and 62, then 69
    CHECK(s.contains("blk.68.attn_sinks.weight"));
    CHECK(s["blk.69.ffn_gate_exps.weight"] == std::array<std::uint64_t, 4>{6144, 2048, 384, 1});
    // At 32768 tokens, f16, flash attention: the 10 full layers 32768 cells x (8 x 192 + 8 x 128)
    // x 2 B = 167,772,160 each, the 60 sliding ones pad(128 + 512) = 768 cells x 2560 x 2 B =
    // 3,932,160 each: 1,677,721,600 + 235,929,600 = 1,913,651,200 B (51,200 B a token on the
    // full layers).
    CHECK(kv_at_32k(m, FlashAttn::on) == 1913651200ULL);
}

TEST_CASE("MiMo V2.6 Pro and Flash: the MXFP4 downloads match the published files") {
    // Published totals of the main-model shards (a recommendation tool's frozen Hub manifests,
    // 2026-10-06): pcuenq/MiMo-V2.6-Pro-RL-GGUF MXFP4 554,211,765,568 B, ggml-org/MiMo-V2.6-
    // Flash-RL-GGUF MXFP4 167,369,465,152 B. Both files are a little larger, by less than 5 MB
    // (the tokenizer's strings and the shards' headers, which the size counts at a floor): one
    // MoE layer's experts more or less would be 7.7 GB (Pro) and 3.4 GB (Flash) at MXFP4.
    const auto mxfp4 = quantize_request(test::quant("MXFP4"));
    const Bytes pro = gguf_file_bytes(test::model("mimo-v2.6-pro-rl"), mxfp4).value();
    const Bytes flash = gguf_file_bytes(test::model("mimo-v2.6-flash-rl"), mxfp4).value();
    CHECK(pro < 554211765568ULL);
    CHECK(554211765568ULL - pro < 5000000ULL);
    CHECK(flash < 167369465152ULL);
    CHECK(167369465152ULL - flash < 5000000ULL);
}

TEST_CASE("MiMo-V2.6-Distill-Qwen-9B: Qwen 3.5 9B's architecture") {
    // An SFT of Qwen3.5-9B whose config the sources call the same field by field: the layout and
    // the KV cache are Qwen 3.5 9B's (8 full layers x 32768 x 4 x 256 x 2 x 2 B at 32768 tokens).
    const Model& m = test::model("mimo-v2.6-distill-qwen-9b");
    const TensorLayout layout = tensor_layout(m).value();
    CHECK(layout.arch == "qwen35");
    CHECK(layout.elements() == tensor_layout(test::model("qwen3.5-9b")).value().elements());
    CHECK(kv_at_32k(m, FlashAttn::on) == 8ULL * 32768 * 4 * 256 * 2 * 2);
}

TEST_CASE("Jamba 1.5 Mini: Mamba-1 layers around every 8th attention layer, MoE every other") {
    // h 4096, vocab 65536 untied; a Mamba-1 layer (inner 8192, state 16, conv 4, dt rank 256):
    // in 4096 x 16384 + conv 4 x 8192 + 8192 + x 8192 x 288 + dt norm 256 + dt 256 x 8192 +
    // 8192 + b/c norms 32 + A 16 x 8192 + D 8192 + out 8192 x 4096 = 105,308,448; 4 attention
    // layers of 41,943,040; 16 MoE FFNs of 4096 x 16 + 3 x 4096 x 14336 x 16 and 16 dense ones
    // of 3 x 4096 x 14336; 64 norms: 536,875,008 + 262,144 + 28 x 105,308,448 + 4 x 41,943,040
    // + 16 x 2,818,637,824 + 16 x 176,160,768 = 51,570,323,328.
    const TensorLayout layout = tensor_layout(test::model("jamba-1.5-mini")).value();
    CHECK(layout.arch == "jamba");
    CHECK(layout.elements() == 51570323328ULL);
    auto s = shapes(layout);
    CHECK(s.contains("blk.4.attn_q.weight"));  // attn_layer_offset 4, period 8
    CHECK(s.contains("blk.3.ssm_x.weight"));
    CHECK(s.contains("blk.1.ffn_gate_inp.weight"));  // expert_layer_offset 1, period 2
    CHECK(s.contains("blk.4.ffn_up.weight"));
}

TEST_CASE("Falcon-H1: attention and a Mamba-2 mixer in every layer, KV and state both kept") {
    // 1.5B: h 2048, vocab 65537 untied, 24 layers; the mixer (inner 3072, state 256, 1 group,
    // 48 heads, conv 4): in 2048 x 6704 + conv 4 x 3584 + 3584 + dt/A/D 3 x 48 + out 3072 x
    // 2048 = 20,039,312; attention (8 heads, 2 KV heads of 128) 2 x 2048 x 1024 + 2 x 2048 x
    // 256 = 5,242,880; norms 4096; SwiGLU 3 x 2048 x 4608 = 28,311,552; its config's
    // mamba_rms_norm: the gated norm's ssm_norm {3072 / 1, 1}: 2 x 65537 x 2048 + 2048 + 24 x
    // 53,600,912 = 1,554,863,488. TII's Q8_0 holds 24 x 17 + 3 = 411 tensors (published headers).
    const Model& m = test::model("falcon-h1-1.5b");
    const TensorLayout layout = tensor_layout(m).value();
    CHECK(layout.arch == "falcon-h1");
    CHECK(layout.elements() == 1554863488ULL);
    CHECK(layout.tensors.size() == 411);
    auto s = shapes(layout);
    CHECK(s.contains("blk.0.ffn_norm"));  // no ".weight": the converter's FFN_PRE_NORM name
    CHECK(s["blk.23.ssm_norm.weight"][0] == 3072);
    CHECK(s["blk.23.ssm_norm.weight"][1] == 1);
    // The 0.5B's mamba_rms_norm is false: no ssm_norm, 36 x 16 + 3 tensors.
    const TensorLayout small = tensor_layout(test::model("falcon-h1-0.5b")).value();
    CHECK_FALSE(shapes(small).contains("blk.0.ssm_norm.weight"));
    CHECK(small.tensors.size() == 36 * 16 + 3);
    // The state per sequence, f32: 24 x ((4 - 1) x (3072 + 2 x 256) + 256 x 3072) x 4 =
    // 76,529,664 B (72.98 MiB, as llama.cpp logs), beside a KV cache on all 24 layers.
    CHECK(recurrent_state_bytes(m) == 76529664ULL);
    CHECK(kv_cache_bytes(m, 4096, KvType{}) == 24ULL * 4096 * 2 * 2 * 128 * 2);
}

TEST_CASE("Phi-4-mini: phi3 with LongRoPE factors for its rotated three quarters") {
    // partial_rotary_factor 0.75 of 128: n_rot 96, factors of 48 each; tied vocab 200064, 32
    // layers of qkv (3072 x 5120), o (3072^2), gate+up (3072 x 16384), down (8192 x 3072) and two
    // norms: 200064 x 3072 + 3072 + 96 + 32 x 100,669,440 = 3,836,021,856.
    const TensorLayout layout = tensor_layout(test::model("phi-4-mini")).value();
    CHECK(layout.arch == "phi3");
    CHECK(layout.elements() == 3836021856ULL);
    CHECK(shapes(layout)["rope_factors_long.weight"][0] == 48);
}

TEST_CASE("Step-3.5-Flash: 96 query heads on the sliding layers, 64 on the full ones") {
    // h 4096, vocab 128896 untied, rope_freqs 64; a layer: norms 2 x 4096, q/o 2 x 4096 x H x 128,
    // k/v 2 x 4096 x 1024, q/k norms 256, the head-wise gate 4096 x H: 75,768,064 at H = 64 (the
    // 12 full layers), 109,453,568 at H = 96 (the 33 sliding ones); layers 0-2 a SwiGLU of
    // 11264, layers 3-44 288 experts of 1280, the bias and a shared expert of 1280
    // (4,546,756,896 each): 1,055,920,128 + 64 + 12 x 75,768,064 + 33 x 109,453,568 + 3 x
    // 138,412,032 + 42 x 4,546,756,896 = 196,956,130,432.
    const Model& m = test::model("step-3.5-flash");
    const TensorLayout layout = tensor_layout(m).value();
    CHECK(layout.arch == "step35");
    CHECK(layout.elements() == 196956130432ULL);
    auto s = shapes(layout);
    CHECK(s["blk.0.attn_q.weight"][1] == 64ULL * 128);  // layer 0 is full
    CHECK(s["blk.1.attn_q.weight"][1] == 96ULL * 128);
    CHECK(s["blk.1.attn_gate.weight"][1] == 96);
    // config.json's window, 512: at 32768 tokens (ubatch 512), f16, 12 full layers x 32768 cells
    // and 33 sliding ones x pad(512 + 512) = 1024 cells, each 2 x 1024 values x 2 B:
    // 1,610,612,736 + 138,412,032 = 1,749,024,768 B.
    CHECK(kv_at_32k(m, FlashAttn::automatic) == 1749024768ULL);
}

TEST_CASE("Gemma 4 31B: 512-wide global heads whose keys double as values") {
    // h 5376, tied vocab 262144, rope_freqs 256 (the global head dim / 2); a sliding layer: q/o
    // 2 x 5376 x 32 x 256, k/v 2 x 5376 x 16 x 256, four norms, q/k norms 2 x 256, the layer
    // scale 1, SwiGLU 3 x 5376 x 21504: 478,959,105; a global one: q/o 2 x 5376 x 32 x 512, k
    // 5376 x 4 x 512 and no v (k_eq_v), q/k norms 2 x 512: 534,009,857. 262144 x 5376 + 5376 +
    // 256 + 50 x 478,959,105 + 10 x 534,009,857 = 30,697,345,596 (the card's 30.7B).
    const TensorLayout layout = tensor_layout(test::model("gemma-4-31b")).value();
    CHECK(layout.arch == "gemma4");
    CHECK(layout.elements() == 30697345596ULL);
    auto s = shapes(layout);
    CHECK(s["blk.5.attn_k.weight"][1] == 4ULL * 512);  // layer 5 is global
    CHECK_FALSE(s.contains("blk.5.attn_v.weight"));
    CHECK(s["blk.0.attn_v.weight"][1] == 16ULL * 256);
}

TEST_CASE("Gemma 4 E2B: per-layer inputs on the host, K and V in the KV-sharing layers too") {
    const Model& m = test::model("gemma-4-e2b");
    const TensorLayout layout = tensor_layout(m).value();
    auto s = shapes(layout);
    // 256 per layer x 35 layers for each of the 262144 tokens
    CHECK(s["per_layer_token_embd.weight"] == std::array<std::uint64_t, 4>{8960, 262144, 1, 1});
    CHECK(s.contains("blk.14.attn_k.weight"));  // the last of the 15 layers that cache
    // The sharing layers carry k, k norm and v as well, which llama.cpp loads though their cache
    // is another layer's: Unsloth's E2B file holds 601 tensors (validation/llama-logs/metal-004)
    // = 6 outside the blocks + 15 x 17 + 20 x 17 (the 14 a sharing layer needs and those 3).
    // Layer 15 slides (4 sliding : 1 full): 1 KV head of 256, from the 1536-wide state.
    CHECK(s["blk.15.attn_k.weight"] == std::array<std::uint64_t, 4>{1536, 256, 1, 1});
    CHECK(s["blk.15.attn_v.weight"] == std::array<std::uint64_t, 4>{1536, 256, 1, 1});
    CHECK(layout.tensors.size() == 601);
    CHECK(s["blk.15.ffn_up.weight"][1] == 12288);  // use_double_wide_mlp in the sharing layers
    CHECK(s["blk.14.ffn_up.weight"][1] == 6144);
    // llama.cpp keeps per_layer_token_embd in host memory beside token_embd: the estimate's
    // host term holds both, and only token_embd is copied as the tied output head. At FP16:
    // (1536 + 8960) x 262144 x 2 B = 5,502,926,848.
    LlamaCppOptions o;
    o.backend = Backend::cpu;
    const Estimate e = estimate_llamacpp(m, test::quant("FP16"), o).value();
    CHECK(e.term(TermKind::token_embd) == 5502926848ULL);
}

TEST_CASE("Gemma 3n E4B: AltUp and LAuReL around Gemma 3's layer, kept in 16 bits") {
    const TensorLayout layout = tensor_layout(test::model("gemma-3n-e4b")).value();
    CHECK(layout.arch == "gemma3n");
    const auto typed = quantize_tensors(layout, "Q4_K_M").value();
    for (const auto& t : typed) {
        INFO(t.tensor.name);
        // llama-quantize leaves them as the converter wrote them: 16-bit, the coefficient
        // matrices in F32 (conversion/base.py)
        if (t.tensor.name.find("laurel_l") != std::string::npos ||
            t.tensor.name == "altup_proj.weight" || t.tensor.name == "per_layer_model_proj.weight")
            CHECK(std::string(t.type.name) == "f16");
        if (t.tensor.name.find("altup_correct_coef") != std::string::npos)
            CHECK(std::string(t.type.name) == "f32");
    }
}

TEST_CASE("OLMo 3 32B: olmo2's layout with GQA sums to the published exact count") {
    // h 5120, vocab 100278 untied, 64 layers of q/o (2 x 5120^2), k/v (2 x 5120 x 1024),
    // whole-projection q/k norms (5120 + 1024), two norms and a 27648-wide SwiGLU: 487,604,224
    // each; 2 x 100278 x 5120 + 5120 + 64 x 487,604,224 = 32,233,522,176, the count published
    // for Olmo-3-1125-32B (the entry's params.source).
    const TensorLayout layout = tensor_layout(test::model("olmo-3-32b")).value();
    CHECK(layout.arch == "olmo2");
    CHECK(layout.elements() == 32233522176ULL);
}

namespace {

// The CPU backend's compute buffer at ubatch 2048 and 32768 cells with flash attention, the
// setting where the output phase sets it.
Bytes cpu_compute_at_2048(const char* id, const char* quant) {
    LlamaCppOptions o;
    o.backend = Backend::cpu;
    o.flash_attn = FlashAttn::on;
    o.context = 32768;
    o.ubatch = 2048;
    return estimate_llamacpp(test::model(id), test::quant(quant), o)->term(TermKind::compute);
}

}  // namespace

// The rows under the logits in the CPU backend's output phase (llama.cpp 0ad4a86, ggml-alloc's
// allocation of the reserved graph, read with tools/accuracy/galloc_replay.py), at ubatch 2048
// and 32768 cells with flash attention, where that phase sets the buffer: 2048 x 4 x (vocab +
// rows x n_embd) B. llama.cpp reserved 8192 B more in each (its tensors' alignment).
TEST_CASE("MoE and Gemma 4 on the CPU: a third row under the logits, by hand") {
    const auto compute = [](const char* id) { return cpu_compute_at_2048(id, "Q4_K_M"); };
    // GLM-4.5-Air (n_embd 4096, vocab 151552; 8 of 128 experts of width 1408, so ffn_moe_down's
    // 8 x 4096 do not fit in gate and up's 2 x 8 x 1408; a shared expert after them): the
    // routed sum lands where the router's logits were, above ffn_norm, which the shared expert
    // still reads: inp_embd, ffn_norm, result_norm. 2048 x 4 x (151552 + 3 x 4096) =
    // 1,342,177,280 (llama.cpp 1,342,185,472).
    CHECK(compute("glm-4.5-air") == 1342177280ULL);
    // Llama 4 Scout (5120, vocab 202048; one expert a token, so the output is a CONT of down's
    // view; a shared expert): 2048 x 4 x (202048 + 3 x 5120) = 1,781,006,336 (1,781,014,528).
    CHECK(compute("llama-4-scout-17b-16e") == 1781006336ULL);
    // Gemma 4 31B (dense, 5376, vocab 262144) picks the output rows after the output norm:
    // result_norm is a GET_ROWS beside h_nextn. 2048 x 4 x (262144 + 3 x 5376) = 2,279,604,224
    // (llama.cpp 2174.01 MiB).
    CHECK(compute("gemma-4-31b") == 2279604224ULL);
    // Qwen3.5-35B-A3B has both (picks last, a shared expert after 8 of 256 experts of 512): one
    // row, not two, since result_norm takes ffn_norm's freed place. 2048 x 4 x (248320 + 3 x
    // 2048) = 2,084,569,088 (llama.cpp 2,084,577,280).
    CHECK(compute("qwen3.5-35b-a3b") == 2084569088ULL);
}

// An MLA model's last layer keeps ffn_inp under its routed output beside ffn_norm (llama.cpp
// 0ad4a86, ggml-alloc on the reserved graph at ubatch 2048 and 32768 cells with flash attention,
// read with tools/accuracy/galloc_replay.py --trace): the freed KQ mask's hole above inp_embd
// takes the attention's MLA products, its two GET_ROWS and ffn_inp.
TEST_CASE("MLA on the CPU: ffn_inp stays under the routed output, by hand") {
    const auto compute = [](const char* id) { return cpu_compute_at_2048(id, "Q2_K"); };
    // Kimi K2.6 (n_embd 7168, vocab 163840, a shared expert after 8 of 384 of width 2048):
    // inp_embd at 0.01 MiB, ffn_inp at 56.01, ffn_norm at 112.01, the sum and result_norm at
    // 168.01, the logits at 224.01: 2048 x 4 x (163840 + 4 x 7168) = 1,577,058,304 B (llama.cpp
    // 1,577,068,790).
    CHECK(compute("kimi-k2.6") == 1577058304ULL);
    // Kimi-Linear (2304, vocab 163840; its KDA layers' third row): inp_embd at 0.01, ffn_norm at
    // 18.01, ffn_inp at 164.03, result_norm at 182.03: 2048 x 4 x (163840 + 4 x 2304) =
    // 1,417,674,752 B. llama.cpp reserved 1480.03 MiB: 128 MiB more, the mask's hole, which the
    // routed sum's best fit (ggml-alloc.c:208-252) leaves under it by 0.02 MiB; not counted.
    CHECK(compute("kimi-linear-48b-a3b") == 1417674752ULL);
}

TEST_CASE("Kimi K3: K3's KDA gate, gated MLA, latent experts and residual scores (kimi-k3.cpp)") {
    // h 7168, vocab 163840 untied: 2 x 1,174,405,120 + output_norm + output_res_score. Each of
    // the 93 layers: attn_norm, ffn_norm, attn_res_score, ffn_res_score (4 x 7168). A KDA layer
    // (96 x 128 = 12288 wide): 3 convs of 4 x 12288, q/k/v 3 x 7168 x 12288, f_a 7168 x 128,
    // f_b 128 x 12288, beta 7168 x 96, A 96, dt 12288, ssm_g 7168 x 12288, norm 128, out 12288 x
    // 7168 = 443,740,384. An MLA layer: q_a_norm 1536, q_a 7168 x 1536, q_b 1536 x 96 x 192,
    // kv_a_norm 512, kv_a_mqa 7168 x 576, k_b 128 x 512 x 96, v_b 512 x 128 x 96, out 96 x 128 x
    // 7168, attn_gate 7168 x 12288 = 232,196,096. Layer 0's SwiGLU 3 x 7168 x 33792; a MoE layer:
    // router 7168 x 896, bias 896, experts 3 x 3584 x 3072 x 896, shared 3 x 7168 x 6144,
    // routed_down/up 2 x 7168 x 3584, the latent's norm 3584 = 29,784,936,832. 2,348,824,576 +
    // 93 x 28,672 + 69 x 443,740,384 + 24 x 232,196,096 + 726,663,168 + 92 x 29,784,936,832 =
    // 2,779,483,135,584 (2.8T with the 401M vision tower).
    const Model& m = test::model("kimi-k3");
    const TensorLayout layout = tensor_layout(m).value();
    CHECK(layout.arch == "kimi-k3");
    CHECK(layout.elements() == 2779483135584ULL);
    auto s = shapes(layout);
    CHECK(s["blk.0.ssm_g.weight"] == std::array<std::uint64_t, 4>{7168, 12288, 1, 1});
    CHECK_FALSE(s.contains("blk.0.ssm_g_a.weight"));
    CHECK(s["blk.0.ffn_up.weight"][1] == 33792);  // first_k_dense_replace 1
    CHECK(s["blk.3.attn_gate.weight"] == std::array<std::uint64_t, 4>{7168, 12288, 1, 1});
    CHECK(s.contains("blk.92.attn_kv_a_mqa.weight"));  // full_attn_layers ..., 93
    CHECK(s["blk.1.ffn_gate_exps.weight"] == std::array<std::uint64_t, 4>{3584, 3072, 896, 1});
    CHECK(s["blk.1.ffn_routed_down.weight"] == std::array<std::uint64_t, 4>{7168, 3584, 1, 1});
    CHECK(s.contains("output_res_score.weight"));
    // K only on the 24 MLA layers, 512 + 64 values a cell; per sequence, in f32, each of the 69
    // KDA layers' 3 x (4 - 1) x 12288 conv values and 96 x 128 x 128 state values.
    LlamaCppOptions o;
    o.context = 8192;
    const auto e = estimate_llamacpp(m, test::quant("Q2_K"), o).value();
    CHECK(e.term(TermKind::kv_cache) == 24ULL * 576 * 2 * 8192);
    CHECK(e.term(TermKind::recurrent_state) == 69ULL * (110592 + 1572864) * 4);
}

TEST_CASE(
    "Qwen3.8-Flash-Next: hyper-connections, QSA indexer and the n-gram table (qwen4exp.cpp)") {
    // From config.json (h 2560, vocab 248320 untied, hc 4 x rank 320, 36 GDN + 12 QSA layers,
    // 512 experts of 640 + a shared one, indexer 4 x 128, ple on layer 1) and the table's
    // 320,001,536 rows of 160. Globals: token_embd and output 2 x 2560 x 248320, output_hc_norm
    // 10240, output_hc_down / up 2 x 10240 x 320, per_layer_token_embd 160 x 320,001,536 =
    // 52,478,208,000. Every layer's two mixers: norm 10240, down and up 2 x 10240 x 320, inject
    // 10240 x 4 = 2 x 6,604,800. A GDN layer: qkv 2560 x 10240, gate 2560 x 6144, conv 4 x
    // 10240, dt and A 2 x 48, beta and alpha 2 x 2560 x 48, norm 128, out 6144 x 2560 =
    // 57,958,624. A QSA layer: q (with its gate) 2560 x 12288, k and v 2 x 2560 x 512, out 6144
    // x 2560, q/k norms 2 x 256, indexer q 2560 x 512, k 2560 x 128, norms 2 x 128 = 51,446,528.
    // MoE: router 2560 x 512, experts 3 x 2560 x 640 x 512, shared gate 2560, shared 3 x 2560 x
    // 640 = 2,522,810,880. Layer 1's n-gram module: key 2560 x 10240, value 2560 x 2560, norms
    // 3 x 10240, conv 4 x 10240 = 32,839,680. 52,478,208,000 + 48 x 13,209,600 + 36 x
    // 57,958,624 + 12 x 51,446,528 + 48 x 2,522,810,880 + 32,839,680 = 176,943,899,520.
    const Model& m = test::model("qwen3.8-flash-next");
    const TensorLayout layout = tensor_layout(m).value();
    CHECK(layout.arch == "qwen4exp");
    CHECK(layout.elements() == 176943899520ULL);
    auto s = shapes(layout);
    CHECK(s["per_layer_token_embd.weight"] == std::array<std::uint64_t, 4>{160, 320001536, 1, 1});
    CHECK(s["blk.0.hc_attn_down.weight"] == std::array<std::uint64_t, 4>{10240, 320, 1, 1});
    CHECK(s["blk.3.indexer.q_proj.weight"] == std::array<std::uint64_t, 4>{2560, 512, 1, 1});
    CHECK(s["blk.1.ple_conv1d.weight"] == std::array<std::uint64_t, 4>{4, 10240, 1, 1});
    CHECK_FALSE(s.contains("blk.0.ple_key.weight"));
    CHECK_FALSE(s.contains("output_norm.weight"));  // the head's mixer is the final norm
    CHECK_FALSE(s.contains("blk.0.attn_norm.weight"));
    // The params the vendor counts (125B): the same less the table (51,200,245,760) and the
    // vectors the count leaves out (a GDN layer's dt, A and norm 224, q/k norms 512, the shared
    // expert's gate 2560).
    CHECK(count_params(m).total ==
          176943899520ULL - 51200245760ULL - 36ULL * 224 - 12ULL * 512 - 48ULL * 2560);
    // Per cell on the 12 QSA layers: K and V 2 x 2 x 256 and the indexer's key 128, f16, no V
    // beside it. Per sequence, f32: each GDN layer's 3 x 10240 conv and 48 x 128 x 128 state,
    // and layer 1's n-gram history, (4 - 1) x 3 columns of 4 x 2560 streams.
    LlamaCppOptions o;
    o.context = 8192;
    const auto e = estimate_llamacpp(m, test::quant("Q4_K_M"), o).value();
    CHECK(e.term(TermKind::kv_cache) == 12ULL * (1024 + 128) * 2 * 8192);
    CHECK(e.term(TermKind::recurrent_state) == (36ULL * (30720 + 786432) + 92160) * 4);
}
