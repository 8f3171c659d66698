// dots studio's dots3-note Preview (issue #38 item 5) as the pinned llama.cpp (0ad4a86) runs it,
// architecture dots3note: src/models/dots3note.cpp's load_arch_tensors (DeepSeek V3.2's absorbed
// MLA in two shapes, an RMSNorm on the shared rope key, a head-wise output gate, the DSA indexer
// on the full layers) and llama_kv_cache_dsa_iswa (src/llama-kv-cache-dsa-iswa.cpp). Figures by
// hand from data/models/dots.json's config values (hidden 5120, vocab 152,064 untied, 46 layers:
// 13 full MLA of 128 heads, latent 512, nope 128, rope 64, v 128, indexer 64 x 128; 33 sliding
// MLA of 64 heads, latent 1024, nope 192, window 513; q LoRA 1024; layer 0 dense FFN 13824,
// 45 MoE of 256 x 1536 + 1 shared) and the README's 280B / 16B.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "run_binary.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

const TensorInfo* dots3_tensor(const TensorLayout& l, std::string_view name) {
    const auto it =
        std::ranges::find(l.tensors, name, [](const TensorInfo& t) { return t.name.view(); });
    return it == l.tensors.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("dots3-note Preview: dots3note's tensors, layer by layer") {
    const Model& m = test::model("dots3-note-prev");
    const TensorLayout l = tensor_layout(m).value();
    CHECK(l.arch == "dots3note");
    // token_embd, output_norm, output; a full layer: attn_norm, q_a_norm, q_a, q_b, kv_a_norm,
    // kv_a_mqa, k_b, v_b, output, k_norm, gate, 5 indexer tensors, ffn_norm = 17; a sliding one
    // the same without the indexer = 12; FFN 3 dense (layer 0) or 8 MoE (router, 3 experts,
    // exp_probs_b, 3 shared): 3 + (17 + 3) + 12 x (17 + 8) + 33 x (12 + 8) = 983
    CHECK(l.tensors.size() == 983);
    // layer 1 is full (DSA), layer 2 sliding
    const TensorInfo* q_b_full = dots3_tensor(l, "blk.1.attn_q_b.weight");
    const TensorInfo* q_b_swa = dots3_tensor(l, "blk.2.attn_q_b.weight");
    REQUIRE(q_b_full != nullptr);
    REQUIRE(q_b_swa != nullptr);
    CHECK(q_b_full->ne[1] == 128ULL * (128 + 64));
    CHECK(q_b_swa->ne[1] == 64ULL * (192 + 64));
    const TensorInfo* kv_a_swa = dots3_tensor(l, "blk.2.attn_kv_a_mqa.weight");
    REQUIRE(kv_a_swa != nullptr);
    CHECK(kv_a_swa->ne[1] == 1024 + 64);
    const TensorInfo* k_b_swa = dots3_tensor(l, "blk.2.attn_k_b.weight");
    REQUIRE(k_b_swa != nullptr);
    CHECK(k_b_swa->ne[0] == 192);
    CHECK(k_b_swa->ne[1] == 1024);
    CHECK(k_b_swa->ne[2] == 64);
    const TensorInfo* gate = dots3_tensor(l, "blk.2.attn_gate.weight");
    REQUIRE(gate != nullptr);
    CHECK(gate->ne[1] == 64);  // one sigmoid gate a head
    const TensorInfo* k_norm = dots3_tensor(l, "blk.2.attn_k_norm.weight");
    REQUIRE(k_norm != nullptr);
    CHECK(k_norm->ne[0] == 64);  // the shared rope key's norm
    CHECK(dots3_tensor(l, "blk.5.indexer.attn_q_b.weight") != nullptr);
    CHECK(dots3_tensor(l, "blk.6.indexer.attn_q_b.weight") == nullptr);
    CHECK(dots3_tensor(l, "blk.0.ffn_gate.weight") != nullptr);
    CHECK(dots3_tensor(l, "blk.1.ffn_gate_exps.weight") != nullptr);
}

TEST_CASE("dots3-note Preview: the weights by hand, and the README's 280B / 16B") {
    const Model& m = test::model("dots3-note-prev");
    // full layer: q_a 5120 x 1024 = 5,242,880; q_b 1024 x 128 x 192 = 25,165,824; kv_a 5120 x
    // 576 = 2,949,120; k_b + v_b 2 x 128 x 512 x 128 = 16,777,216; output 16,384 x 5120 =
    // 83,886,080: 134,021,120; gate 5120 x 128 = 655,360; indexer 1024 x 8192 + 5120 x 128 +
    // 5120 x 64 + 2 x 128 = 9,371,904; norms 5120 + 1024 + 512 + 64 + 5120 = 11,840
    // sliding layer: q_a 5,242,880; q_b 1024 x 64 x 256 = 16,777,216; kv_a 5120 x 1088 =
    // 5,570,560; k_b 192 x 1024 x 64 = 12,582,912; v_b 1024 x 128 x 64 = 8,388,608; output
    // 8192 x 5120 = 41,943,040: 90,505,216; gate 327,680; norms 5120 + 1024 + 1024 + 64 + 5120
    // MoE FFN: 256 x 3 x 5120 x 1536 + 3 x 5120 x 1536 + 5120 x 256 + 256 = 6,064,701,696;
    // dense: 3 x 5120 x 13824 = 212,336,640; embeddings 2 x 152,064 x 5120 = 1,557,135,360
    const std::uint64_t full = 134021120ULL + 655360 + 9371904 + 11840;
    const std::uint64_t swa = 90505216ULL + 327680 + 12352;
    const std::uint64_t weights =
        1557135360ULL + 5120 + 13 * full + 33 * swa + 45 * 6064701696ULL + 212336640ULL;
    CHECK(weights == 279551729536ULL);
    CHECK(tensor_layout(m).value().elements() == weights);
    // the architecture's count leaves the norms and the routing bias out (13 x 11,840 + 33 x
    // 12,352 + 5120 + 45 x 256 = 578,176) and takes the gate from params.extra
    const ParamCount p = count_params(m);
    CHECK(p.total == weights - 578176);
    // the README: 280B total, 16B activated (8 routed + the shared expert a token)
    CHECK(p.total > 279000000000ULL);
    CHECK(p.total < 280000000000ULL);
    CHECK(p.active > 16000000000ULL);
    CHECK(p.active < 16500000000ULL);
}

TEST_CASE("dots3-note Preview: the DSA cache grows, the sliding MLA cache keeps its window") {
    const Model& m = test::model("dots3-note-prev");
    const std::vector<LayerKind> kinds = layer_kinds(m);
    REQUIRE(kinds.size() == 46);
    const auto order = layer_group_order(m);
    for (std::size_t il = 0; il < order.size(); ++il) {
        INFO(il);
        CHECK(kinds[il] == LayerKind::mla);
        const bool full = il < 2 || il % 4 == 1;  // transformers' layer_types default
        CHECK((order[il] == 0) == full);
    }
    CHECK(count_growing_layers(m) == 13);
    CHECK(!is_all_attention(m));
    const KvType f16 = *parse_kv_type("f16");
    // quick rule: a full layer's latent 512 + 64 and indexer key 128 = 704 values a token, a
    // sliding layer's 1024 + 64 = 1088 for at most 513 tokens; f16
    CHECK(kv_cache_bytes(m, 32768, f16) == 13ULL * 32768 * 704 * 2 + 33ULL * 513 * 1088 * 2);
    LlamaCppOptions o;
    o.context = 131072;
    o.cache_type_k = o.cache_type_v = "f16";
    const auto e = estimate_llamacpp(m, test::quant("Q4_K_M"), o);
    REQUIRE(e);
    // llama_kv_cache_dsa_iswa: the DSA cache 131072 cells x 704 on 13 layers, K only
    // (2,399,141,888 B); the SWA cache GGML_PAD(min(131072, 513 + 512), 256) = 1280 cells x
    // 1088 on 33 layers (91,914,240 B)
    CHECK(e->term(TermKind::kv_cache) == 2399141888ULL + 91914240ULL);
    o.ubatch = 2048;  // 513 + 2048 = 2561 cells, padded to 2816
    const auto wide = estimate_llamacpp(m, test::quant("Q4_K_M"), o);
    REQUIRE(wide);
    CHECK(wide->term(TermKind::kv_cache) == 2399141888ULL + 33ULL * 2816 * 1088 * 2);
}

TEST_CASE("dots3-note Preview: the page, an RTX 4090 plan and the GPU lists through the binary") {
    const auto page = test::run_canitrun({"dots3-note-prev"});
    CHECK(page.code == 0);
    CHECK(page.out.find("dots3-note Preview") != std::string::npos);
    CHECK(page.out.find("sliding-window latent-attention (MLA)") != std::string::npos);
    // 8k context: 13 x 8192 x 704 x 2 + 33 x 1280 x 1088 x 2 = 241,860,608 B of KV cache
    const auto plan = test::run_canitrun({"dots3-note-prev", "--gpu", "RTX 4090", "--ram", "256"});
    // exit status 1 (docs/canitrun.1): 280B at Q4_K_M (4.5+ bits a weight, 150+ GB) cannot
    // fit a 24 GB GPU whole, so the plan offloads routed experts to the 256 GB of RAM
    CHECK(plan.code == 1);
    CHECK(plan.out.find("On NVIDIA RTX 4090 + 256.0 GB RAM") != std::string::npos);
    CHECK(plan.out.find("--n-cpu-moe") != std::string::npos);
    CHECK(plan.out.find("0.24 GB") != std::string::npos);
    CHECK(plan.out.find("llama-server -m dots3-note-prev-Q4_K_M.gguf") != std::string::npos);
    const auto gpus = test::run_canitrun({"gpus", "dots3-note-prev"});
    CHECK(gpus.code == 0);
    CHECK(gpus.out.find("Run it natively") != std::string::npos);
}
