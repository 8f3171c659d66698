// Tencent Hy4 preview as the pinned llama.cpp (0ad4a86) runs it, architecture hy_v4: the tensors
// of src/models/hy-v4.cpp's load_arch_tensors and the KV cache of llama-model.cpp's
// LLM_ARCH_HY_V4 case (llama_kv_cache_dsa: the MLA latent on every layer, the indexer key only on
// the layers whose indexer_types entry is "full"). Figures by hand from the config values in
// data/models/hunyuan.json (hidden 6144, vocab 120,832, 78 layers, 64 heads, q_lora 2048,
// kv_lora 512, qk 192 + 64, v 256, indexer 32 x 128 on layers 0, 1, 5, ..., 77, hc_mult 4,
// layer 0 dense 18432, 77 MoE layers of 256 experts of 2048, 8 active, one shared expert).

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "canitrun/hf_config.hpp"
#include "canitrun/hf_files.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "support/model_gguf.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

// indexer_types "full": layer 0, then every fourth from 1 (21 of 78)
bool hy4_indexer_layer(std::size_t il) {
    return il == 0 || il % 4 == 1;
}

const TensorInfo* hy4_tensor(const TensorLayout& l, const std::string& name) {
    for (const auto& t : l.tensors) {
        if (t.name == name) return &t;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("Hy4: the KV cache is the MLA latent on 78 layers and the indexer key on 21") {
    const Model& m = test::model("hy4-preview");
    const KvType f16 = *parse_kv_type("f16");
    // per token at f16: 78 x (512 + 64) x 2 = 89,856 of latent, 21 x 128 x 2 = 5,376 of keys
    CHECK(kv_cache_bytes(m, 1000, f16) == 95232000ULL);
    LlamaCppOptions o;
    o.context = 1048576;
    o.flash_attn = FlashAttn::on;
    o.cache_type_k = o.cache_type_v = "f16";
    const auto e = estimate_llamacpp(m, test::quant("Q4_K_M"), o);
    REQUIRE(e);
    CHECK(e->term(TermKind::kv_cache) == 95232ULL * 1048576);  // 93 GiB
    const auto order = layer_group_order(m);
    REQUIRE(order.size() == 78);
    for (std::size_t il = 0; il < order.size(); ++il) {
        INFO(il);
        CHECK(m.arch.layer_groups[order[il]].index_head_dim == (hy4_indexer_layer(il) ? 128U : 0U));
    }
}

// The compute buffer on the CPU backend at ubatch 512 (llamacpp_engine.cpp mla_layer_floats,
// dsa_bytes): the MLA layer's floats with the rows an iHC layer keeps, inp_embd, the residual's
// 4 streams and the normed input (hy-v4.cpp:518-540: hc_init / each build_hc_post's output
// stays the residual until the next; attn_norm is read again by the gate, :486), 6 x 6144, plus
// 64 heads x (2 x (512 + 64) + 192 + 256), 4 B each: 557,056 B a token (GLM-5.2's one stream
// counts 4 rows: 507,904); each of the 78 layers' f32 top-k leaf, 78 x 2048 x 4 = 638,976 (the
// 57 shared layers build theirs too, llama-graph.cpp build_attn with top_k); per cell the two
// f16 masks and the f32 indexer score, 8 B. llama.cpp 0ad4a86 reserved 1100.01 MiB at 131072
// cells (llama_probe on the harness's file); this is 1096.00 (4 rows read 1072.00). Without
// flash attention at 32768 cells: KQ over 64 heads and the f32 mask (4 B each), the indexer's
// f16 mask (2 B a cell) beside the same leaves and layer floats: 4776.00 (llama.cpp 4784.01).
TEST_CASE("Hy4 on the CPU: the iHC layer's rows, the top-k leaves and the masks, by hand") {
    LlamaCppOptions o;
    o.backend = Backend::cpu;
    o.flash_attn = FlashAttn::on;
    o.context = 131072;
    const auto compute = [&] {
        return estimate_llamacpp(test::model("hy4-preview"), test::quant("Q2_K"), o)
            ->term(TermKind::compute);
    };
    const std::uint64_t layer = 4ULL * (6 * 6144 + 64 * (2 * 576 + 192 + 256));
    const std::uint64_t leaves = 78ULL * 2048 * 4;
    CHECK(compute() == 512ULL * (layer + leaves + 8ULL * 131072));
    o.flash_attn = FlashAttn::off;
    o.context = 32768;
    CHECK(compute() == 512ULL * (4ULL * (64ULL * 32768 + 32768) + layer + leaves + 2ULL * 32768));
}

TEST_CASE("Hy4: hy_v4's tensors, with sinks, the MLA gate, iHC and 21 indexers") {
    const Model& m = test::model("hy4-preview");
    const TensorLayout l = tensor_layout(m).value();
    CHECK(l.arch == "hy_v4");
    // 6 globals (token_embd, output_norm, output, output_hc_fn / base / scale); a layer has 11
    // attention tensors (norm, sinks, q_a, q_a_norm, q_b, kv_a_mqa, kv_a_norm, k_b, v_b, output,
    // gate), 6 hyper-connection and ffn_norm: 18; + 3 dense FFN or 8 MoE (router, bias, 3
    // experts, 3 shared); + 5 indexer on 21 layers: 6 + 26 + 20 x 31 + 57 x 26 = 2134
    CHECK(l.tensors.size() == 2134);
    const TensorInfo* gate = hy4_tensor(l, "blk.7.attn_gate.weight");
    REQUIRE(gate != nullptr);
    CHECK(gate->ne[0] == 6144);
    CHECK(gate->ne[1] == 64ULL * 256);
    const TensorInfo* hc = hy4_tensor(l, "blk.7.hc_attn_fn.weight");
    REQUIRE(hc != nullptr);
    CHECK(hc->ne[0] == 4ULL * 6144);
    CHECK(hc->ne[1] == 8);  // pre and post, no combination term (DeepSeek V4 has 24)
    CHECK(hy4_tensor(l, "blk.7.hc_ffn_scale.weight")->ne[0] == 2);
    CHECK(hy4_tensor(l, "output_hc_fn.weight")->ne[1] == 4);
    for (std::size_t il = 0; il < 78; ++il) {
        INFO(il);
        const std::string p = "blk." + std::to_string(il) + ".";
        CHECK((hy4_tensor(l, p + "indexer.attn_q_b.weight") != nullptr) == hy4_indexer_layer(il));
        CHECK((hy4_tensor(l, p + "ffn_gate_exps.weight") != nullptr) == (il > 0));
    }
    // By hand (tensor by tensor, hy-v4.cpp): embeddings 2 x 120,832 x 6144 = 1,484,783,616;
    // output_norm and head 6144 + 98,304 + 4 + 1; per layer attention 265,691,712 (q_a
    // 12,582,912, q_b 33,554,432, kv_a_mqa 3,538,944, k_b 6,291,456, v_b 8,388,608, output and
    // gate 100,663,296 each, norms 6144 + 2048 + 512, sinks 64), iHC 393,236, ffn_norm 6144;
    // 21 indexers of 9,371,904; the dense FFN 339,738,624; 77 MoE layers of 9,703,000,576
    // (experts 9,663,676,416, shared 37,748,736, router 1,572,864, bias 256):
    // 769,907,408,797 -- the "770B" of the card
    CHECK(l.elements() == 769907408797ULL);
    // the database's count: the same less the norms, sinks and routing biases it leaves out
    // (78 x 14,912 + 6144 + 77 x 256 = 1,188,992); the indexers and iHC are counted from the
    // architecture (param_count's rule), the data records none of them in params.extra
    CHECK(m.params_extra == 0);
    CHECK(count_params(m).total == 769907408797ULL - 1188992ULL);
    // that rule: 21 x 9,371,904 of indexers and the iHC's 78 x 2 x (24,576 x 8 + 8 + 2) +
    // 24,576 x 4 + 4 + 1 = 30,770,717, by hand
    CHECK(sparse_attention_extra_params(m) == 21ULL * 9371904 + 30770717ULL);
    // GLM-5.2: the same 21 indexers, no hyper-connections; DeepSeek V3.2: 61 x (1536 x 64 x
    // 128 + 7168 x 128 + 2 x 128 + 7168 x 64) = 851,524,864; none of them in params.extra
    CHECK(sparse_attention_extra_params(test::model("glm-5.2")) == 196809984ULL);
    CHECK(sparse_attention_extra_params(test::model("deepseek-v3.2")) == 851524864ULL);
    for (const char* id : {"glm-5.2", "deepseek-v3.2"}) CHECK(test::model(id).params_extra == 0);
}

TEST_CASE("Hy4: a hy_v4 GGUF file reads back with its layers, gate and KV in place") {
    const Model& m = test::model("hy4-preview");
    const auto g = test::read_back(m);
    REQUIRE(g);
    CHECK(g->model.family == "hy_v4");
    CHECK(g->model.arch.hyper_connections == 4);
    CHECK(g->model.arch.attention.output_gate);
    CHECK(layer_group_order(g->model) == layer_group_order(m));
    const KvType f16 = *parse_kv_type("f16");
    CHECK(kv_cache_bytes(g->model, 4096, f16) == 95232ULL * 4096);
    const TensorLayout back = tensor_layout(g->model).value();
    CHECK(back.tensors.size() == 2134);
    CHECK(back.elements() == 769907408797ULL);
}

// tests/fixtures/hf/hy4-preview/config.json: the keys of tencent/Hy4-preview's config.json that
// canitrun reads, with the values the sources in data/models/hunyuan.json record (the fixture's
// README.md names them). The model from it is the database's: the same layers in the same order,
// and the figures above, by hand, for its tensors and its KV cache.
TEST_CASE("Hy4: its config.json plans the database's layers, tensors and KV cache") {
    const std::string dir = std::string(CANITRUN_FIXTURES) + "/hf/hy4-preview";
    for (const std::string& path : {dir, dir + "/config.json"}) {
        INFO(path);
        const auto hf = read_hf_model(path);
        REQUIRE(hf);
        const Model& m = hf->model;
        const Model& db = test::model("hy4-preview");
        CHECK(m.family == "hy_v4");
        CHECK(m.arch.hyper_connections == 4);  // hc_mult
        CHECK(m.arch.attention.output_gate);   // gated_mla
        REQUIRE(m.arch.moe);
        CHECK(m.arch.moe->moe_layers == 77);  // mlp_layer_types: "dense", then 77 "sparse"
        CHECK(m.arch.intermediate_size == 18432);
        const auto order = layer_group_order(m);
        REQUIRE(order.size() == 78);
        for (std::size_t il = 0; il < order.size(); ++il) {
            INFO(il);
            CHECK(m.arch.layer_groups[order[il]].index_head_dim ==
                  (hy4_indexer_layer(il) ? 128U : 0U));
        }
        CHECK(order == layer_group_order(db));
        // 78 x (512 + 64) x 2 + 21 x 128 x 2 = 95,232 bytes a token at f16
        const KvType f16 = *parse_kv_type("f16");
        CHECK(kv_cache_bytes(m, 1000, f16) == 95232000ULL);
        CHECK(kv_cache_bytes(m, 1048576, f16) == 95232ULL * 1048576);
        const TensorLayout l = tensor_layout(m).value();
        CHECK(l.arch == "hy_v4");
        CHECK(l.tensors.size() == 2134);
        CHECK(l.elements() == 769907408797ULL);
        // the parameter line: the database's count, indexers and iHC included by the same rule
        // (769.9B, not the 769.7B of the layers alone)
        CHECK(m.params_extra == 0);
        CHECK(m.params_total == count_params(db).total);
        CHECK(m.params_total == 769907408797ULL - 1188992ULL);
        // llama.cpp's weights from those tensors: the database entry's, at any type
        LlamaCppOptions o;
        o.context = 8192;
        for (const char* q : {"Q4_K_M", "Q8_0"}) {
            INFO(q);
            const auto from_config = estimate_llamacpp(m, test::quant(q), o);
            const auto from_db = estimate_llamacpp(db, test::quant(q), o);
            REQUIRE(from_config);
            REQUIRE(from_db);
            CHECK(from_config->term(TermKind::weights) == from_db->term(TermKind::weights));
            CHECK(from_config->term(TermKind::kv_cache) == 95232ULL * 8192);
        }
    }
}

// layer_types, where a Hy4 config.json has it, names the DSA layers "deepseek_sparse_attention"
// (vLLM's HYV4Config, vllm-project/vllm vllm/transformers_utils/configs/hy_v4.py at 67aa4a3d,
// which also folds in "sparse_attention") or "indexed_attention" (transformers' HYV4Config,
// huggingface/transformers src/transformers/models/hy_v4/configuration_hy_v4.py at 0e666bff):
// with a latent (kv_lora_rank) those are the MLA layers, not full attention. transformers'
// HYV4Config gates the MLA output without a gated_mla key.
TEST_CASE("Hy4: its DSA layer_types are the MLA layers, and no gated_mla still gates") {
    std::ifstream in(std::string(CANITRUN_FIXTURES) + "/hf/hy4-preview/config.json");
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json c = nlohmann::json::parse(text.str());
    const Model plain = parse_hf_config(c.dump(), "hy4").value();
    const KvType f16 = *parse_kv_type("f16");
    for (const char* type :
         {"deepseek_sparse_attention", "sparse_attention", "indexed_attention"}) {
        INFO(type);
        c["layer_types"] = std::vector<std::string>(78, type);
        const Model typed = parse_hf_config(c.dump(), "hy4").value();
        CHECK(layer_group_order(typed) == layer_group_order(plain));
        REQUIRE(typed.arch.layer_groups.size() == 2);
        for (const auto& g : typed.arch.layer_groups) CHECK(g.kind == LayerKind::mla);
        CHECK(kv_cache_bytes(typed, 1000, f16) == 95232000ULL);
    }
    c.erase("gated_mla");
    CHECK(parse_hf_config(c.dump(), "hy4").value().arch.attention.output_gate);
    c["gated_mla"] = false;
    CHECK_FALSE(parse_hf_config(c.dump(), "hy4").value().arch.attention.output_gate);
    // without a latent the same name is full attention, as before
    c.erase("kv_lora_rank");
    const Model no_latent = parse_hf_config(c.dump(), "hy4").value();
    REQUIRE(no_latent.arch.layer_groups.size() == 1);
    CHECK(no_latent.arch.layer_groups[0].kind == LayerKind::full);
}
