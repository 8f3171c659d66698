// Tensor layouts of database models, counted by hand from llama.cpp 5b4ebc5's
// src/models/<arch>.cpp (load_arch_tensors).

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
