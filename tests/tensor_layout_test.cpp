// Tensor layouts of database models, counted by hand from llama.cpp 5b4ebc5's
// src/models/<arch>.cpp (load_arch_tensors).

#include <array>
#include <map>
#include <stdexcept>
#include <string>

#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

const TensorInfo* find(const TensorLayout& layout, const std::string& name) {
    for (const auto& t : layout.tensors) {
        if (t.name == name) return &t;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("llama 3.1 8B: token_embd - output - rope_freqs - nine tensors a layer") {
    const TensorLayout l = tensor_layout(test::model("llama-3.1-8b")).value();
    CHECK(l.arch == "llama");
    // token_embd, output_norm, output, rope_freqs + 32 x (attn_norm q k v o ffn_norm gate up down)
    CHECK(l.tensors.size() == 4 + 32 * 9);
    const TensorInfo* k = find(l, "blk.0.attn_k.weight");
    REQUIRE(k != nullptr);
    CHECK(k->ne[0] == 4096);  // rows are n_embd long
    CHECK(k->ne[1] == 8ULL * 128);
    CHECK(find(l, "rope_freqs.weight")->ne[0] == 64);  // head_dim / 2
    CHECK(l.n_gqa == 4);
    CHECK_FALSE(l.is_70b);
}

// One rule for rope_freqs in the llama-like, exaone4, llama4 and step35 layouts: the tensor is
// there exactly where config.json's rope scaling is llama3 (conversion/llama.py, exaone.py and
// step3.py write its factors for that type alone), never by the model's name. Gemma 4 writes one
// for its proportional RoPE whatever the datum (gemma_layouts.cpp), so it is not counted here.
TEST_CASE("rope_freqs: exactly the models whose rope scaling is llama3") {
    int with = 0;
    for (const Model& m : test::database().models) {
        const auto layout = tensor_layout(m);
        REQUIRE(layout);
        if (layout->arch == "gemma4") continue;
        INFO(m.id);
        const TensorInfo* t = find(*layout, "rope_freqs.weight");
        CHECK((t != nullptr) == (m.arch.attention.rope_scaling == "llama3"));
        if (t != nullptr) {
            CHECK(t->ne[0] == m.arch.attention.head_dim / 2);
            ++with;
        }
    }
    // Llama 3.1 / 3.2 / 3.3 (6), the two R1 distills of Llama, Llama 4 Scout, Step-3.5-Flash and
    // EXAONE 4.0 1.2B / 32B
    CHECK(with == 12);
}

TEST_CASE("a tensor name holds ggml's 63 bytes in place and refuses a 64th") {
    // GGML_MAX_NAME is 64 with the NUL (ggml.h); gguf.cpp refuses a name of 64 bytes or more.
    const std::string longest(63, 'x');
    CHECK(TensorName(longest) == longest);
    CHECK(TensorName(longest).size() == 63);
    CHECK_THROWS_AS(TensorName(std::string(64, 'x')), std::length_error);
    CHECK(TensorName("blk.7.attn_q.weight").starts_with("blk.7."));
    CHECK(TensorName("a") < TensorName("b"));
    // A layer's tensor (LLM_TN: "blk.%d.%s"): "blk.12." is 7 bytes, so a suffix of 56 fills 63.
    CHECK(TensorName::of_layer(12, "attn_q.weight") == "blk.12.attn_q.weight");
    CHECK(TensorName::of_layer(0, "ffn_up_exps.weight").size() == 24);
    CHECK(TensorName::of_layer(12, std::string(56, 'x')).size() == 63);
    CHECK_THROWS_AS(TensorName::of_layer(12, std::string(57, 'x')), std::length_error);
    CHECK_THROWS_AS(TensorName::of_layer(5, std::string(64, 'x')), std::length_error);
}

TEST_CASE("tied embeddings have no output tensor") {
    const TensorLayout l = tensor_layout(test::model("gemma-3-27b")).value();
    CHECK(find(l, "output.weight") == nullptr);
    CHECK(find(l, "token_embd.weight") != nullptr);
}

TEST_CASE("Qwen 3.5: gated attention doubles attn_q - linear layers are Gated DeltaNet") {
    const TensorLayout l = tensor_layout(test::model("qwen3.5-35b-a3b")).value();
    CHECK(l.arch == "qwen35moe");
    // layer 3 is the first full-attention layer (full_attention_interval 4)
    const TensorInfo* q = find(l, "blk.3.attn_q.weight");
    REQUIRE(q != nullptr);
    CHECK(q->ne[1] == 2ULL * 16 * 256);
    CHECK(find(l, "blk.0.attn_q.weight") == nullptr);
    // conv over q, k (16 heads x 128 each) and v (32 x 128): 2 x 2048 + 4096
    const TensorInfo* conv = find(l, "blk.0.ssm_conv1d.weight");
    REQUIRE(conv != nullptr);
    CHECK(conv->ne[0] == 4);
    CHECK(conv->ne[1] == 8192);
    const TensorInfo* exps = find(l, "blk.0.ffn_down_exps.weight");
    REQUIRE(exps != nullptr);
    CHECK(exps->n_dims == 3);
    CHECK(exps->ne[0] == 512);
    CHECK(exps->ne[2] == 256);
}

TEST_CASE("DeepSeek V3: MLA with split k_b and v_b - three dense layers first") {
    const TensorLayout l = tensor_layout(test::model("deepseek-v3")).value();
    CHECK(l.arch == "deepseek2");
    const TensorInfo* mqa = find(l, "blk.0.attn_kv_a_mqa.weight");
    REQUIRE(mqa != nullptr);
    CHECK(mqa->ne[1] == 512 + 64);  // kv_lora_rank + rope head dim
    CHECK(find(l, "blk.2.ffn_down.weight") != nullptr);
    CHECK(find(l, "blk.3.ffn_down_exps.weight") != nullptr);
    CHECK(find(l, "blk.3.exp_probs_b.bias") != nullptr);
}

TEST_CASE("GLM-5 is glm-dsa and Mistral Large 3 is deepseek2 without the routing bias") {
    // llama.cpp: GLM-5 loads as glm-dsa with deepseek32's indexer tensors and exp_probs_b;
    // Mistral Large 3's params.json converts to deepseek2 (conversion/mistral.py, softmax
    // routing, no topk_method), so its MoE layers have no exp_probs_b.
    const TensorLayout glm = tensor_layout(test::model("glm-5")).value();
    CHECK(glm.arch == "glm-dsa");
    const TensorInfo* q_b = find(glm, "blk.0.indexer.attn_q_b.weight");
    REQUIRE(q_b != nullptr);
    CHECK(q_b->ne[0] == 2048);         // q_lora_rank
    CHECK(q_b->ne[1] == 32ULL * 128);  // index heads x index head dim
    CHECK(find(glm, "blk.3.exp_probs_b.bias") != nullptr);
    const TensorLayout mistral = tensor_layout(test::model("mistral-large-3-675b")).value();
    CHECK(mistral.arch == "deepseek2");
    CHECK(find(mistral, "blk.3.ffn_down_exps.weight") != nullptr);
    CHECK(find(mistral, "blk.3.exp_probs_b.bias") == nullptr);
    CHECK(find(mistral, "blk.0.indexer.attn_k.weight") == nullptr);
    CHECK(tensor_layout(test::model("granite-4.1-8b")).value().arch == "granite");
}

TEST_CASE("an architecture the engine does not model is a bad-input error") {
    // Every database model has a layout; a family llama.cpp's profile does not know has none.
    Model m = test::model("qwen3-8b");
    m.family = "rwkv7";
    const auto l = tensor_layout(m);
    REQUIRE_FALSE(l.has_value());
    CHECK(l.error().kind == ErrorKind::bad_input);
    CHECK(l.error().hint == "use --engine quick");
}

TEST_CASE(
    "gpt-oss and DeepSeek 2 without their experts have no layout, not one read from nothing") {
    // A header can say deepseek2 or gpt-oss and carry no expert keys (a fuzzed llama.cpp log
    // did: the builder then read the missing experts' sizes from uninitialised memory).
    for (const char* id : {"deepseek-v3", "gpt-oss-20b"}) {
        INFO(id);
        Model m = test::model(id);
        m.arch.moe.reset();
        const auto l = tensor_layout(m);
        REQUIRE_FALSE(l.has_value());
        CHECK(l.error().kind == ErrorKind::bad_input);
        CHECK(l.error().message.find("without its experts") != std::string::npos);
    }
    Model more = test::model("deepseek-v3");  // more expert layers than layers
    more.arch.moe->moe_layers = more.arch.layers + 1;
    CHECK_FALSE(tensor_layout(more).has_value());
}

TEST_CASE("Seed-OSS, EXAONE 4, GLM-4-0414, OLMo 3 and Llama 2 have llama.cpp layouts") {
    // Llama 2 7B: embeddings 2 x 32000 x 4096, 32 layers of q/k/v/o (4 x 4096^2), SwiGLU
    // (3 x 4096 x 11008) and two norms, the output norm: llama.cpp's 6,738,415,616.
    CHECK(tensor_layout(test::model("llama-2-7b")).value().elements() == 6738415616ULL);
    const auto names = [](const std::string& id) {
        std::map<std::string, std::array<std::uint64_t, 4>> shape;
        const TensorLayout layout = tensor_layout(test::model(id)).value();
        for (const auto& t : layout.tensors) shape[t.name.str()] = t.ne;
        return shape;
    };
    auto seed = names("seed-oss-36b");  // seed-oss.cpp: q/k/v biases, attn_post_norm
    CHECK(seed["blk.0.attn_q.bias"][0] == 80ULL * 128);
    CHECK(seed.contains("blk.0.post_attention_norm.weight"));
    CHECK_FALSE(seed.contains("blk.0.ffn_norm.weight"));
    auto exaone = names("exaone-4.0-32b");  // exaone4.cpp: post norms only, q/k norms
    CHECK_FALSE(exaone.contains("blk.0.attn_norm.weight"));
    CHECK(exaone["blk.0.attn_k_norm.weight"][0] == 128);
    CHECK(exaone.contains("blk.0.post_ffw_norm.weight"));
    // EXAONE 4.0's llama3 rope scaling: the converter writes its factors (conversion/exaone.py),
    // head_dim / 2 of them; the 1.2B's 30 layers of 11, tied: LG's Q8_0 holds 333 tensors.
    CHECK(exaone["rope_freqs.weight"][0] == 64);
    const TensorLayout small = tensor_layout(test::model("exaone-4.0-1.2b")).value();
    CHECK(small.tensors.size() == 30 * 11 + 3);
    auto glm = names("glm-4-9b-0414");  // glm4.cpp: gate and up in one tensor
    CHECK(glm["blk.0.ffn_up.weight"][1] == 2ULL * 13696);
    CHECK_FALSE(glm.contains("blk.0.ffn_gate.weight"));
    CHECK(tensor_layout(test::model("olmo-3-7b")).value().arch == "olmo2");
}

TEST_CASE("MiniMax-M2, Hunyuan-A13B and Phi-3.5-MoE have llama.cpp layouts") {
    std::map<std::string, std::array<std::uint64_t, 4>> shape;
    const TensorLayout mm = tensor_layout(test::model("minimax-m2")).value();
    CHECK(mm.arch == "minimax-m2");
    for (const auto& t : mm.tensors) shape[t.name.str()] = t.ne;
    // minimax-m2.cpp: the q norm spans all 48 heads of 128, the k norm the 8 KV heads
    CHECK(shape["blk.0.attn_q_norm.weight"][0] == 48ULL * 128);
    CHECK(shape["blk.0.attn_k_norm.weight"][0] == 8ULL * 128);
    CHECK(shape["blk.61.ffn_gate_exps.weight"] == std::array<std::uint64_t, 4>{3072, 1536, 256, 1});
    const TensorLayout hy = tensor_layout(test::model("hunyuan-a13b")).value();
    CHECK(hy.arch == "hunyuan-moe");
    shape.clear();
    for (const auto& t : hy.tensors) shape[t.name.str()] = t.ne;
    CHECK(shape["blk.0.ffn_up_shexp.weight"][1] == 3072);
    CHECK(shape["blk.0.attn_q_norm.weight"][0] == 128);
    const TensorLayout phi = tensor_layout(test::model("phi-3.5-moe")).value();
    CHECK(phi.arch == "phimoe");
    shape.clear();
    for (const auto& t : phi.tensors) shape[t.name.str()] = t.ne;
    CHECK(shape["output.bias"][0] == 32064);
    CHECK(shape["rope_factors_long.weight"][0] == 64);
    CHECK(shape["blk.0.attn_q.bias"][0] == 4096);
}

TEST_CASE("GLM-4.5 Air: glm4moe's dense lead, routed and shared experts, biases, no q/k norms") {
    const TensorLayout layout = tensor_layout(test::model("glm-4.5-air")).value();
    CHECK(layout.arch == "glm4moe");
    CHECK(layout.n_layer == 46);  // the MTP layer is not loaded, so not laid out
    std::map<std::string, std::array<std::uint64_t, 4>> shape;
    for (const auto& t : layout.tensors) shape[t.name.str()] = t.ne;
    CHECK(shape["blk.0.ffn_up.weight"][1] == 10944);  // first_k_dense_replace 1
    CHECK_FALSE(shape.contains("blk.0.ffn_up_exps.weight"));
    CHECK(shape["blk.1.ffn_up_exps.weight"] == std::array<std::uint64_t, 4>{4096, 1408, 128, 1});
    CHECK(shape["blk.1.ffn_up_shexp.weight"][1] == 1408);
    CHECK(shape.contains("blk.1.exp_probs_b.bias"));
    CHECK(shape["blk.1.attn_k.bias"][0] == 8ULL * 128);
    // use_qk_norm false: published files hold 803 tensors, 780 of them the 46 layers' without
    // attn_q_norm / attn_k_norm (ggml-org/llama.cpp PR #14939; published_headers_test.cpp)
    CHECK_FALSE(shape.contains("blk.1.attn_q_norm.weight"));
    CHECK_FALSE(shape.contains("blk.1.attn_k_norm.weight"));
    CHECK_FALSE(shape.contains("blk.1.ffn_norm.weight"));  // attn_post_norm precedes the FFN
}
