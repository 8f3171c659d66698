// Mistral Small 4 119B (issue #38, data/models/mistral.json): llama.cpp's mistral4, deepseek2's
// loader under its own name, with the router's missing bias and the checkpoint's stacked
// gate_up experts. Figures by hand from transformers' Mistral4Config (h 4096, 36 layers, 32
// heads, q LoRA 1024, KV latent 256 + 64 RoPE, v 128, 128 experts of 2048 with 4 active and 1
// shared, vocab 131,072, untied) and from the published BF16 file's size the entry cites.

#include <string>

#include "canitrun/gguf_file_size.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "support/model_gguf.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

const TensorInfo* small4_tensor(const TensorLayout& l, const std::string& name) {
    for (const auto& t : l.tensors) {
        if (t.name.view() == name) return &t;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("Mistral Small 4: mistral4's tensors, MLA and stacked experts without a routing bias") {
    const TensorLayout l = tensor_layout(test::model("mistral-small-4-119b")).value();
    CHECK(l.arch == "mistral4");
    // A layer: q_a 4096 x 1024 + its norm 1024 + q_b 1024 x 32 x 128 + kv_a 4096 x 320 + its
    // norm 256 + k_b 64 x 256 x 32 + v_b 256 x 128 x 32 + o 4096 x 4096 = 28,050,688; the router
    // 128 x 4096 = 524,288; the experts 128 x 3 x 4096 x 2048 = 3,221,225,472; the shared expert
    // 3 x 4096 x 2048 = 25,165,824; two norms 8,192: 3,274,974,464. x 36 = 117,899,080,704, with
    // token_embd and output 2 x 131,072 x 4096 = 1,073,741,824 and the output norm 4,096:
    CHECK(l.elements() == 118972826624ULL);
    // token_embd, output_norm, output and 16 a layer
    CHECK(l.tensors.size() == 3 + 36 * 16);
    const TensorInfo* gate_up = small4_tensor(l, "blk.0.ffn_gate_up_exps.weight");
    REQUIRE(gate_up != nullptr);
    CHECK(gate_up->ne[0] == 4096);
    CHECK(gate_up->ne[1] == 4096);  // gate and up, 2 x 2048 each expert
    CHECK(gate_up->ne[2] == 128);
    CHECK(small4_tensor(l, "blk.0.ffn_gate_exps.weight") == nullptr);
    CHECK(small4_tensor(l, "blk.0.exp_probs_b.bias") ==
          nullptr);  // Mistral4TopkRouter: a weight only
    CHECK(small4_tensor(l, "blk.35.ffn_down_shexp.weight") != nullptr);
    CHECK(small4_tensor(l, "blk.0.ffn_gate.weight") == nullptr);  // first_k_dense_replace 0
}

TEST_CASE("Mistral Small 4: the BF16 file's 221.64 GiB and an MLA cache of 320 a layer") {
    // alexanderkyng's table gives Unsloth's BF16 as 221.64 GiB at 16.00 BPW, llama.cpp's "file
    // size" line (the tensors' bytes). By hand: the norms (36 x (4096 + 4096 + 1024 + 256) +
    // 4096 = 345,088) and routers (36 x 524,288 = 18,874,368) stay F32, the rest is BF16:
    // (118,972,826,624 - 19,219,456) x 2 + 19,219,456 x 4 = 237,984,092,160 B = 221.640 GiB.
    const Model& m = test::model("mistral-small-4-119b");
    const std::uint64_t bf16 = gguf_tensor_bytes(m, quantize_request(test::quant("BF16"))).value();
    CHECK(bf16 == 237984092160ULL);
    CHECK((bf16 * 100 + (1ULL << 29)) / (1ULL << 30) == 22164);  // 221.64 GiB to two places
    // deepseek2's cache keeps the latent and the RoPE key: 36 x (256 + 64) x 2 B = 23,040 B a
    // token at f16 (test-backend-ops' "Mistral4 MLA" case is head size 320)
    CHECK(kv_cache_bytes(m, 1000, *parse_kv_type("f16")) == 23040000ULL);
}

TEST_CASE("Mistral Small 4: its GGUF reads back as the same mistral4 model") {
    const Model& m = test::model("mistral-small-4-119b");
    const auto g = test::read_back(m, "Q4_K_M");
    REQUIRE(g);
    CHECK(g->model.family == "mistral4");
    const TensorLayout back = tensor_layout(g->model).value();
    const TensorLayout mine = tensor_layout(m).value();
    CHECK(back.arch == "mistral4");
    CHECK(back.elements() == mine.elements());
    CHECK(back.tensors.size() == mine.tensors.size());
    const KvType f16 = *parse_kv_type("f16");
    CHECK(kv_cache_bytes(g->model, 4096, f16) == kv_cache_bytes(m, 4096, f16));
}
