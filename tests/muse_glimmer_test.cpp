// Meta's Muse Glimmer 30B as the pinned llama.cpp (0ad4a86) runs it, architecture muse-glimmer:
// the tensors of src/models/muse-glimmer.cpp's load_arch_tensors and the sliding-window cache
// it builds (build_attn_inp_kv_iswa, LLAMA_SWA_TYPE_STANDARD, load_swa_pattern(ml, 4)). Figures
// by hand from config values in data/models/muse.json (transformers' MuseGlimmerTextConfig:
// hidden 6656, vocab 202,048, 52 layers, 32 q / 2 KV heads of 128, FFN 19968, window 2048,
// layer_types full where (51 - i) % 4 == 0, untied embeddings).

#include <algorithm>
#include <string_view>
#include <vector>

#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

// The layout's tensor of this name, or nullptr.
const TensorInfo* named(const TensorLayout& l, std::string_view name) {
    const auto it =
        std::ranges::find(l.tensors, name, [](const TensorInfo& t) { return t.name.view(); });
    return it == l.tensors.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("Muse Glimmer: muse-glimmer's tensors, with the attention gate and sandwich norms") {
    const Model& m = test::model("muse-glimmer-30b");
    const TensorLayout l = tensor_layout(m).value();
    CHECK(l.arch == "muse-glimmer");
    // 3 globals (token_embd, output_norm, output); a layer has 4 norms, q, k, v, output, q_norm,
    // k_norm, gate and the FFN's gate, up, down: 14; 3 + 52 x 14 = 731
    CHECK(l.tensors.size() == 731);
    const TensorInfo* gate = named(l, "blk.9.attn_gate.weight");
    REQUIRE(gate != nullptr);
    CHECK(gate->ne[0] == 6656);
    CHECK(gate->ne[1] == 32ULL * 128);
    REQUIRE(named(l, "blk.9.post_attention_norm.weight") != nullptr);
    REQUIRE(named(l, "blk.9.post_ffw_norm.weight") != nullptr);
    CHECK(named(l, "blk.9.attn_q_norm.weight")->ne[0] == 128);
    CHECK(named(l, "blk.9.attn_k.weight")->ne[1] == 2ULL * 128);
    // a layer: q, gate and output 3 x 6656 x 4096 = 81,788,928; k, v 2 x 6656 x 256 =
    // 3,407,872; FFN 3 x 6656 x 19968 = 398,721,024; 4 norms 26,624; q/k norms 256:
    // 483,944,704; 52 of them, the untied embedding and head 2 x 202,048 x 6656 =
    // 2,689,662,976 and the output norm 6656: 27,854,794,240
    CHECK(l.elements() == 27854794240ULL);
}

TEST_CASE("Muse Glimmer: every fourth layer attends fully, the rest slide over 2048 tokens") {
    const Model& m = test::model("muse-glimmer-30b");
    const std::vector<LayerKind> kinds = layer_kinds(m);
    REQUIRE(kinds.size() == 52);
    for (std::size_t il = 0; il < kinds.size(); ++il) {
        INFO(il);
        // configuration_muse_glimmer.py: full where (num_hidden_layers - 1 - i) % 4 == 0
        CHECK((kinds[il] == LayerKind::full) == ((51 - il) % 4 == 0));
    }
    const KvType f16 = *parse_kv_type("f16");
    // a layer keeps 2 KV heads x 128 x (K + V) x 2 B = 1024 B a token; at 32768 tokens the
    // 13 full layers keep them all (436,207,616 B), the 39 sliding ones 2048 (81,788,928 B)
    CHECK(kv_cache_bytes(m, 32768, f16) == 13ULL * 1024 * 32768 + 39ULL * 1024 * 2048);
    LlamaCppOptions o;
    o.context = 32768;
    o.cache_type_k = o.cache_type_v = "f16";
    const auto e = estimate_llamacpp(m, test::quant("Q4_K_M"), o);
    REQUIRE(e);
    // llama_kv_cache_iswa: the sliding cache holds window + n_ubatch (512) cells, padded to 256
    CHECK(e->term(TermKind::kv_cache) == 13ULL * 1024 * 32768 + 39ULL * 1024 * 2560);
}
