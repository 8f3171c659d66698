// llama-quantize's type choice (llama.cpp 5b4ebc5 src/llama-quant.cpp), checked on hand-made
// layouts and on counts derived by hand.

#include "canitrun/quantize_rules.hpp"

#include <utility>

#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

TensorInfo tensor(const std::string& name, std::uint64_t ne0, std::uint64_t ne1, int layer) {
    TensorInfo t;
    t.name = name;
    t.ne = {ne0, ne1, 1, 1};
    t.n_dims = ne1 > 1 ? 2 : 1;
    t.layer = layer;
    return t;
}

std::string type_of(const std::vector<TypedTensor>& ts, const std::string& name) {
    for (const auto& t : ts) {
        if (t.tensor.name == name) return std::string(t.type.name);
    }
    return "";
}

}  // namespace

TEST_CASE("Q4_K_M: output Q6_K - norms f32 - use_more_bits layers of attn_v and ffn_down Q6_K") {
    const TensorLayout l = tensor_layout(test::model("llama-3.1-8b")).value();
    const auto ts = quantize_tensors(l, "Q4_K_M").value();
    CHECK(type_of(ts, "output.weight") == "q6_K");
    CHECK(type_of(ts, "token_embd.weight") == "q4_K");  // untied: the default type
    CHECK(type_of(ts, "blk.0.attn_norm.weight") == "f32");
    CHECK(type_of(ts, "rope_freqs.weight") == "f32");
    // use_more_bits(i, 32): i < 4, i >= 28, or (i - 4) % 3 == 2
    CHECK(type_of(ts, "blk.3.attn_v.weight") == "q6_K");
    CHECK(type_of(ts, "blk.4.attn_v.weight") == "q4_K");
    CHECK(type_of(ts, "blk.6.attn_v.weight") == "q6_K");
    CHECK(type_of(ts, "blk.6.ffn_down.weight") == "q6_K");
    CHECK(type_of(ts, "blk.7.ffn_down.weight") == "q4_K");
    CHECK(type_of(ts, "blk.7.attn_q.weight") == "q4_K");
    int q6 = 0;
    for (const auto& t : ts) q6 += t.type.name == "q6_K" ? 1 : 0;
    // 4 + 4 + 8 (i = 6, 9, ..., 27) = 16 layers, for attn_v and ffn_down, plus output
    CHECK(q6 == 33);
}

TEST_CASE("rows not a whole number of 256-blocks fall back: q4_K to q5_0 - q6_K to q8_0") {
    TensorLayout l;
    l.n_layer = 1;
    l.tensors = {tensor("token_embd.weight", 2880, 100, -1), tensor("output.weight", 2880, 100, -1),
                 tensor("blk.0.attn_output.weight", 2880, 64, 0),
                 tensor("blk.0.attn_q.weight", 2816, 64, 0)};
    const auto ts = quantize_tensors(l, "Q4_K_M").value();
    CHECK(type_of(ts, "output.weight") == "q8_0");  // nx % 256 != 0 -> q8_0 for the output
    CHECK(type_of(ts, "token_embd.weight") == "q5_0");
    CHECK(type_of(ts, "blk.0.attn_output.weight") == "q5_0");
    CHECK(type_of(ts, "blk.0.attn_q.weight") == "q4_K");  // 2816 = 11 x 256: no fallback
}

TEST_CASE("tied embeddings take the output rule - Q8_0 keeps q8_0 - FP16 leaves norms in f32") {
    const TensorLayout l = tensor_layout(test::model("gemma-3-27b")).value();
    CHECK(type_of(quantize_tensors(l, "Q4_K_M").value(), "token_embd.weight") == "q6_K");
    const auto q8 = quantize_tensors(l, "Q8_0").value();
    CHECK(type_of(q8, "token_embd.weight") == "q8_0");
    CHECK(type_of(q8, "blk.0.ffn_down.weight") == "q8_0");
    const auto f16 = quantize_tensors(l, "FP16").value();
    CHECK(type_of(f16, "blk.0.ffn_down.weight") == "f16");
    CHECK(type_of(f16, "blk.0.attn_norm.weight") == "f32");
}

TEST_CASE("MXFP4: experts mxfp4 - everything else q8_0") {
    const TensorLayout l = tensor_layout(test::model("gpt-oss-20b")).value();
    const auto ts = quantize_tensors(l, "MXFP4").value();
    CHECK(type_of(ts, "blk.0.ffn_up_exps.weight") == "mxfp4");
    CHECK(type_of(ts, "blk.0.attn_q.weight") == "q8_0");
    CHECK(type_of(ts, "output.weight") == "q8_0");
    CHECK(type_of(ts, "blk.0.ffn_gate_inp.weight") == "f32");
}

TEST_CASE("bytes: whole blocks of each type") {
    TensorLayout l;
    l.n_layer = 1;
    l.tensors = {tensor("blk.0.attn_q.weight", 4096, 4096, 0)};
    const auto ts = quantize_tensors(l, "Q8_0").value();
    // 4096 / 32 blocks x 34 bytes x 4096 rows
    CHECK(tensor_bytes(ts) == 4096ULL / 32 * 34 * 4096);
}

TEST_CASE("a non-GGUF quantization is refused") {
    const TensorLayout l = tensor_layout(test::model("llama-3.1-8b")).value();
    const auto r = quantize_tensors(l, "NVFP4");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::bad_input);
    CHECK(is_llama_file_type("q4_k_m"));
    CHECK_FALSE(is_llama_file_type("AWQ"));
}

TEST_CASE("70B llama: attn_v upgraded from q4_K to q5_K (LLM_TYPE_70B rule)") {
    const TensorLayout l = tensor_layout(test::model("llama-3.3-70b")).value();
    CHECK(l.is_70b);
    const auto ts = quantize_tensors(l, "Q4_K_M").value();
    // use_more_bits(20, 80) is false ((20 - 10) % 3 == 1): q4_K, then the 70B rule -> q5_K
    CHECK(type_of(ts, "blk.20.attn_v.weight") == "q5_K");
    CHECK(type_of(ts, "blk.0.attn_v.weight") == "q6_K");  // i < n / 8: q6_K stays
}

TEST_CASE("8 experts: attn_v and attn_k q8_0 and attn_output q5_K at Q4_K_M") {
    const TensorLayout l = tensor_layout(test::model("mixtral-8x7b")).value();
    CHECK(l.n_expert == 8);
    const auto ts = quantize_tensors(l, "Q4_K_M").value();
    CHECK(type_of(ts, "blk.5.attn_v.weight") == "q8_0");
    CHECK(type_of(ts, "blk.5.attn_k.weight") == "q8_0");
    CHECK(type_of(ts, "blk.5.attn_output.weight") == "q5_K");
    CHECK(type_of(ts, "blk.5.attn_q.weight") == "q4_K");
    // MoE: ffn_down's layer comes from the name; use_more_bits(0, 32) -> q6_K
    CHECK(type_of(ts, "blk.0.ffn_down_exps.weight") == "q6_K");
    CHECK(type_of(ts, "blk.5.ffn_down_exps.weight") == "q4_K");
}

TEST_CASE("Q3_K_M and Q2_K upgrades") {
    const TensorLayout l = tensor_layout(test::model("llama-3.1-8b")).value();
    const auto q3 = quantize_tensors(l, "Q3_K_M").value();
    CHECK(type_of(q3, "blk.0.attn_v.weight") == "q5_K");  // i_attention_wv < 2
    CHECK(type_of(q3, "blk.2.attn_v.weight") == "q4_K");
    CHECK(type_of(q3, "blk.1.ffn_down.weight") == "q5_K");  // i < n / 16 = 2
    CHECK(type_of(q3, "blk.2.ffn_down.weight") == "q4_K");
    CHECK(type_of(q3, "blk.2.attn_output.weight") == "q4_K");
    CHECK(type_of(q3, "blk.2.attn_q.weight") == "q3_K");
    const auto q2 = quantize_tensors(l, "Q2_K").value();
    CHECK(type_of(q2, "blk.2.attn_v.weight") == "q4_K");  // n_gqa = 4
    CHECK(type_of(q2, "blk.2.ffn_down.weight") == "q3_K");
    CHECK(type_of(q2, "blk.2.attn_output.weight") == "q3_K");
    CHECK(type_of(q2, "blk.2.ffn_up.weight") == "q2_K");
}

TEST_CASE(
    "a recipe types its named tensors by hand: bartowski's Q4_K_L is Q4_K_M with Q8_0 "
    "embeddings and output") {
    // his cards: "Uses Q8_0 for embed and output weights"; every other tensor as Q4_K_M types it
    const TensorLayout l = tensor_layout(test::model("llama-3.1-8b")).value();
    const auto ts = quantize_tensors(l, quantize_request(test::quant("Q4_K_L"))).value();
    CHECK(type_of(ts, "token_embd.weight") == "q8_0");
    CHECK(type_of(ts, "output.weight") == "q8_0");
    CHECK(type_of(ts, "blk.3.attn_v.weight") == "q6_K");
    CHECK(type_of(ts, "blk.4.attn_v.weight") == "q4_K");
    CHECK(is_llama_file_type(test::quant("Q4_K_L")));
    // a tied model has one table, the embeddings' rule types it
    const TensorLayout tied = tensor_layout(test::model("llama-3.2-1b")).value();
    const auto tt = quantize_tensors(tied, quantize_request(test::quant("Q4_K_L"))).value();
    CHECK(type_of(tt, "token_embd.weight") == "q8_0");
    CHECK(type_of(tt, "output.weight").empty());
}

TEST_CASE("a tensor rule names a whole tensor or that tensor of every layer") {
    const TensorLayout l = tensor_layout(test::model("llama-3.1-8b")).value();
    QuantizeRequest r{"Q4_K_M", std::nullopt, {{"ffn_down.weight", "q8_0", "", "", ""}}};
    const auto ts = quantize_tensors(l, r).value();
    CHECK(type_of(ts, "blk.7.ffn_down.weight") == "q8_0");
    CHECK(type_of(ts, "blk.7.ffn_up.weight") == "q4_K");
    r.tensor_types = {{"ffn_down.weight", "q9_9", "", "", ""}};
    CHECK_FALSE(quantize_tensors(l, r));
}

// A publisher's per-model choice (Unsloth's dynamic upcasts) holds for its architecture, family
// and model only; other models keep llama-quantize's type (Q4_K_M's ffn_up: q4_K).
TEST_CASE("a tensor rule with arch family or model holds for those models only") {
    const TensorLayout l = tensor_layout(test::model("llama-3.1-8b")).value();
    REQUIRE(l.arch == "llama");
    REQUIRE(l.family == "llama3.1");
    const auto up_type = [&](TensorTypeRule rule) {
        const QuantizeRequest r{"Q4_K_M", std::nullopt, {std::move(rule)}};
        return type_of(quantize_tensors(l, r).value(), "blk.7.ffn_up.weight");
    };
    CHECK(up_type({"ffn_up.weight", "q8_0", "llama", "", ""}) == "q8_0");
    CHECK(up_type({"ffn_up.weight", "q8_0", "qwen35moe", "", ""}) == "q4_K");
    CHECK(up_type({"ffn_up.weight", "q8_0", "llama", "llama3.1", ""}) == "q8_0");
    CHECK(up_type({"ffn_up.weight", "q8_0", "llama", "qwen3.6", ""}) == "q4_K");
    CHECK(up_type({"ffn_up.weight", "q8_0", "llama", "", "llama-3.1-8b"}) == "q8_0");
    CHECK(up_type({"ffn_up.weight", "q8_0", "llama", "", "llama-3.1-70b"}) == "q4_K");
}

namespace {

Bytes bytes_of(const std::vector<TypedTensor>& ts, const std::string& name) {
    for (const auto& t : ts) {
        if (t.tensor.name == name) return t.bytes;
    }
    return 0;
}

}  // namespace

// Unsloth's per-model rules that a published log's buffers fix. rocm-007 (Qwen2.5-VL-7B-Instruct
// UD-Q6_K_XL) prints 'CPU_Mapped model buffer size = 552.23 MiB', the host's tensor, token_embd:
// 152064 x 3584 = 544,997,376 weights in q8_0 (34 B a block of 32) = 579,059,712 B = 552.234 MiB
// (q6_K, Q6_K's own type: 210 B a 256, 447,068,160 B = 426.36 MiB). rocm-009 (Granite-4.1-8B
// UD-Q8_K_XL, --no-mmap) prints 'ROCm_Host model buffer size = 784.00 MiB': 100352 x 4096 =
// 411,041,792 weights in f16 = 822,083,584 B (q8_0: 436,731,904 B = 416.50 MiB).
TEST_CASE("Unsloth's UD rules read from a log's buffers hold for that model only") {
    const auto typed = [](const std::string& model, const std::string& quant) {
        const TensorLayout l = tensor_layout(test::model(model)).value();
        return quantize_tensors(l, quantize_request(test::quant(quant))).value();
    };
    const auto vl = typed("qwen2.5-vl-7b", "UD-Q6_K_XL");
    CHECK(type_of(vl, "token_embd.weight") == "q8_0");
    CHECK(bytes_of(vl, "token_embd.weight") == 579059712U);
    // ROCm0's 6078.75 MiB holds output in q8_0: 544,997,376 x (34/32 - 210/256) B = 125.88 MiB
    // more than q6_K; no set of the other tensors makes up the bytes without it
    CHECK(type_of(vl, "output.weight") == "q8_0");
    CHECK(bytes_of(vl, "output.weight") == 579059712U);
    CHECK(type_of(vl, "blk.5.ffn_up.weight") == "q6_K");  // the unplaced keep the base type
    const auto granite = typed("granite-4.1-8b", "UD-Q8_K_XL");
    CHECK(type_of(granite, "token_embd.weight") == "f16");
    CHECK(bytes_of(granite, "token_embd.weight") == 822083584U);
    CHECK(type_of(granite, "output.weight") == "q8_0");
    // the rules name the model: Granite 4.1 30B's file keeps the base type
    CHECK(type_of(typed("granite-4.1-30b", "UD-Q8_K_XL"), "token_embd.weight") == "q8_0");
}

namespace {

Bytes total_bytes(const std::vector<TypedTensor>& ts) {
    Bytes sum = 0;
    for (const auto& t : ts) sum = checked::add(sum, t.bytes);
    return sum;
}

// A recipe's tensors beside its base file type's, in bytes: what its rules add to the file.
std::int64_t recipe_over_base(const std::string& model, const std::string& recipe) {
    const TensorLayout l = tensor_layout(test::model(model)).value();
    const Quant& q = test::quant(recipe);
    const auto with = quantize_tensors(l, quantize_request(q)).value();
    const auto base = quantize_tensors(l, q.recipe_base).value();
    return static_cast<std::int64_t>(total_bytes(with)) -
           static_cast<std::int64_t>(total_bytes(base));
}

}  // namespace

// Unsloth's UD-Q4_K_XL of a Qwen3 MoE (cudax-010: Qwen3-30B-A3B, 11 q6_K where Q4_K_M writes 49;
// vulkan-004: Qwen3-Coder-30B-A3B) and of Qwen3-Next (vulkan-001: 43 q6_K where Q4_K_M writes
// 73) leaves room in its bytes for at most 19 / 17 routed-expert tensors above q4_K: ffn_down_exps
// stays q4_K in the 24 use_more_bits layers where Q4_K_M writes q6_K (66 B more a 256 weights).
// Qwen3-30B-A3B: 24 x 2048 x 768 x 128 = 4,831,838,208 weights, 24 x 51,904,512 = 1,245,708,288 B;
// Qwen3-Next-80B-A3B: 24 x 2048 x 512 x 512, 24 x 138,412,032 = 3,321,888,768 B.
TEST_CASE("Unsloth's UD-Q4_K_XL of Qwen3 MoE and Qwen3-Next keeps ffn_down_exps in q4_K") {
    const TensorLayout l = tensor_layout(test::model("qwen3-30b-a3b")).value();
    const auto ud = quantize_tensors(l, quantize_request(test::quant("UD-Q4_K_XL"))).value();
    CHECK(type_of(ud, "blk.0.ffn_down_exps.weight") == "q4_K");
    CHECK(type_of(quantize_tensors(l, "Q4_K_M").value(), "blk.0.ffn_down_exps.weight") == "q6_K");
    CHECK(type_of(ud, "blk.0.attn_v.weight") == "q6_K");  // the counts do not place attn_v
    CHECK(type_of(ud, "token_embd.weight") == "q4_K");    // cudax-010's CPU buffer: 166.92 MiB
    CHECK(recipe_over_base("qwen3-30b-a3b", "UD-Q4_K_XL") == -1245708288);
    CHECK(recipe_over_base("qwen3-coder-30b-a3b", "UD-Q4_K_XL") == -1245708288);
    CHECK(recipe_over_base("qwen3-next-80b-a3b", "UD-Q4_K_XL") == -3321888768);
    // Qwen3.5's MoE (qwen35moe) keeps its own rule: ffn_down_exps q5_K
    const TensorLayout q35 = tensor_layout(test::model("qwen3.5-35b-a3b")).value();
    CHECK(type_of(quantize_tensors(q35, quantize_request(test::quant("UD-Q4_K_XL"))).value(),
                  "blk.0.ffn_down_exps.weight") == "q5_K");
}

// Unsloth's Granite 4.1 3B UD-Q8_K_XL is 664,780,800 B over its Q8_0 (published exact sizes):
// token_embd in f16 as in the 8B's file, 100352 x 2560 = 256,901,120 weights at 2 B instead of
// q8_0's 34 B a 32 = 240,844,800 B of it.
TEST_CASE("Unsloth's Granite 4.1 3B UD-Q8_K_XL keeps token_embd in f16") {
    const TensorLayout l = tensor_layout(test::model("granite-4.1-3b")).value();
    const auto ud = quantize_tensors(l, quantize_request(test::quant("UD-Q8_K_XL"))).value();
    CHECK(type_of(ud, "token_embd.weight") == "f16");
    CHECK(type_of(ud, "blk.0.attn_k.weight") == "q8_0");  // the other f16 tensors: not placed
    CHECK(recipe_over_base("granite-4.1-3b", "UD-Q8_K_XL") == 240844800);
}

TEST_CASE(
    "Q4_0 and Q5_0 with an importance matrix keep the first eighth of ffn_down in "
    "q4_1 / q5_1") {
    // llama-quant.cpp: "Guard against craziness in the first few ffn_down layers that can happen
    // even with imatrix for Q4_0/Q5_0"; only with an imatrix, i_layer < n_layer / 8 (32 / 8 = 4)
    const TensorLayout l = tensor_layout(test::model("llama-3.1-8b")).value();
    const auto plain = quantize_tensors(l, "Q4_0", false).value();
    CHECK(type_of(plain, "blk.0.ffn_down.weight") == "q4_0");
    const auto with = quantize_tensors(l, "Q4_0", true).value();
    CHECK(type_of(with, "blk.3.ffn_down.weight") == "q4_1");
    CHECK(type_of(with, "blk.4.ffn_down.weight") == "q4_0");
    CHECK(type_of(quantize_tensors(l, "Q5_0", true).value(), "blk.0.ffn_down.weight") == "q5_1");
}

// Gemma 3n has no output.weight, so llama-quantize from b8275 (llama.cpp #19770) types its
// per_layer_token_embd as the tied output: q6_K at Q2_K (the output branch: not q8_0, so q6_K).
// The published files (unsloth/gemma-3n-*-GGUF, mid-2025, run.gguf_quantized_before b8275) were
// made before, when only token_embd.weight took the output branch: per_layer_token_embd kept the
// file type, q2_K. token_embd itself takes the output's q6_K in both.
TEST_CASE("per_layer_token_embd: the tied output's type from b8275, the file type before") {
    Model before = test::model("gemma-3n-e4b");
    REQUIRE(before.run.gguf_quantized_before == 8275);
    Model after = before;
    after.run.gguf_quantized_before = 0;  // a file made today
    for (const auto& [m, per_layer] : {std::pair{before, "q2_K"}, std::pair{after, "q6_K"}}) {
        const auto layout = tensor_layout(m);
        REQUIRE(layout);
        const auto typed = quantize_tensors(*layout, "Q2_K");
        REQUIRE(typed);
        CHECK(type_of(*typed, "per_layer_token_embd.weight") == per_layer);
        CHECK(type_of(*typed, "token_embd.weight") == "q6_K");
    }
}

// Phi-3.5-mini's fused attn_qkv (32 layers, 32 heads of 32 KV: n_gqa 1). From b8275 it is
// attn_v-like: q3_K at Q2_K (n_gqa < 4), and at Q5_K_M q6_K on use_more_bits' layers only (0-3,
// 6, 9, ..., 27, 28-31: 16 of 32). Before, its own branch: the file type at Q2_K, q6_K on every
// layer at Q5_K_M. bartowski's files were made with b3751 (run.gguf_quantized_before).
TEST_CASE("attn_qkv: attn_v's rules from b8275, its own branch before") {
    Model before = test::model("phi-3.5-mini");
    REQUIRE(before.run.gguf_quantized_before == 8275);
    Model after = before;
    after.run.gguf_quantized_before = 0;  // a file made today
    const auto count = [](const Model& m, const std::string& quant, std::string_view type) {
        const auto layout = tensor_layout(m);
        REQUIRE(layout);
        const auto typed = quantize_tensors(*layout, quant);
        REQUIRE(typed);
        int n = 0;
        for (const auto& t : *typed) {
            if (t.tensor.name.find("attn_qkv") != std::string::npos && t.type.name == type) ++n;
        }
        return n;
    };
    CHECK(count(before, "Q2_K", "q2_K") == 32);
    CHECK(count(after, "Q2_K", "q3_K") == 32);
    CHECK(count(before, "Q5_K_M", "q6_K") == 32);
    CHECK(count(after, "Q5_K_M", "q6_K") == 16);
}

namespace canitrun {

// general.file_type is llama.h's enum llama_ftype (5b4ebc5): LLAMA_FTYPE_ALL_F32 = 0,
// MOSTLY_F16 = 1, MOSTLY_Q4_K_M = 15, MOSTLY_IQ4_XS = 30, MOSTLY_BF16 = 32, MOSTLY_MXFP4_MOE = 38;
// 4 (MOSTLY_Q4_1_SOME_F16) was removed and 1024 is LLAMA_FTYPE_GUESSED, no file type.
TEST_CASE("general.file_type numbers name llama-quantize's file types") {
    CHECK(file_type_of_llama_ftype(0) == "FP32");
    CHECK(file_type_of_llama_ftype(1) == "FP16");
    CHECK(file_type_of_llama_ftype(15) == "Q4_K_M");
    CHECK(file_type_of_llama_ftype(30) == "IQ4_XS");
    CHECK(file_type_of_llama_ftype(32) == "BF16");
    CHECK(file_type_of_llama_ftype(38) == "MXFP4");
    CHECK(file_type_of_llama_ftype(4).empty());
    CHECK(file_type_of_llama_ftype(1024).empty());
}

}  // namespace canitrun
