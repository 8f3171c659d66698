// Sparse-attention indexers that keep a cache of their own, as the pinned llama.cpp allocates
// them: MiniMax-M3's MSA (llama_kv_cache_msa: a one-head key and an unused V beside the layer's
// K/V, on the layers after the dense lead), GLM-5.2's IndexShare (llama_kv_cache_dsa's key
// only on the 21 "full" indexer layers) and DeepSeek V4's compressed attention
// (llama_kv_cache_dsv4: a raw window on every layer, compressed entries and their indexer). Figures
// by hand from the configs (data/models/ minimax.json, glm.json) and llama.cpp's rules; the
// accuracy harness (docs/ACCURACY.md) found llama.cpp's own KV buffers and model sizes equal to
// these.

#include <string>

#include "canitrun/gguf.hpp"
#include "canitrun/gguf_file_size.hpp"
#include "canitrun/gguf_model.hpp"
#include "canitrun/hf_files.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "support/model_gguf.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

const KvType& kv(const char* id) {
    static const KvType f16 = *parse_kv_type("f16");
    static const KvType q8 = *parse_kv_type("q8_0");
    return std::string(id) == "f16" ? f16 : q8;
}

Bytes llama_kv(const Model& m, std::uint64_t context, FlashAttn fa, const char* type = "f16") {
    LlamaCppOptions o;
    o.context = context;
    o.flash_attn = fa;
    o.cache_type_k = o.cache_type_v = type;
    return estimate_llamacpp(m, test::quant("Q4_K_M"), o).value().term(TermKind::kv_cache);
}

std::uint64_t elements_matching(const TensorLayout& l, const std::string& part) {
    std::uint64_t n = 0;
    for (const auto& t : l.tensors) {
        if (t.name.find(part) != std::string::npos) n += t.elements();
    }
    return n;
}

bool has_tensor(const TensorLayout& l, const std::string& name) {
    for (const auto& t : l.tensors) {
        if (t.name == name) return true;
    }
    return false;
}

// The indexer layers of GLM-5.2: 0, 1, 2, then every fourth from 6 (config.json's
// indexer_types; llama.cpp's GLM_5_2_DEFAULT_INDEXER_TYPES).
bool glm52_indexer_layer(std::size_t il) {
    return il < 3 || il % 4 == 2;
}

}  // namespace

TEST_CASE("MiniMax-M3: K/V on 60 layers, an indexer key and unused V on the 57 after the lead") {
    const Model& m = test::model("minimax-m3");
    // per token at f16: 60 x 4 heads x (128 + 128) x 2 = 122,880 for the layers' K/V, and
    // 57 x (128 + 128) x 2 = 29,184 for the indexer cache's K and V: 152,064 bytes
    CHECK(kv_cache_bytes(m, 1000, kv("f16")) == 152064000ULL);
    // q8_0 rows: 512 values = 16 blocks of 34 bytes = 544; 128 values = 136
    CHECK(kv_cache_bytes(m, 1024, kv("q8_0")) == (60ULL * 2 * 544 + 57ULL * 2 * 136) * 1024);
    // llama.cpp: 594 MiB at 4096 and 19,008 MiB at 131072, with flash attention on or off (every
    // V row is as wide, so no padding without it)
    CHECK(llama_kv(m, 4096, FlashAttn::on) == 594ULL << 20);
    CHECK(llama_kv(m, 131072, FlashAttn::off) == 19008ULL << 20);
    const auto order = layer_group_order(m);
    REQUIRE(order.size() == 60);
    for (std::size_t il = 0; il < order.size(); ++il) {
        INFO(il);
        CHECK(m.arch.layer_groups[order[il]].index_head_dim == (il < 3 ? 0U : 128U));
    }
}

TEST_CASE("MiniMax-M3: the indexer's F32 projections and the tensors sum to 426.17B") {
    const Model& m = test::model("minimax-m3");
    const TensorLayout l = tensor_layout(m).value();
    CHECK(l.arch == "minimax-m3");
    CHECK_FALSE(has_tensor(l, "blk.2.indexer.q_proj.weight"));
    CHECK(has_tensor(l, "blk.3.indexer.q_proj.weight"));
    CHECK(has_tensor(l, "blk.2.ffn_down.weight"));
    CHECK(has_tensor(l, "blk.3.ffn_down_exps.weight"));
    CHECK(has_tensor(l, "blk.3.ffn_down_shexp.weight"));
    // per MoE layer q_proj 6144 x (4 x 128) + k_proj 6144 x 128 + two 128-wide norms
    CHECK(elements_matching(l, ".indexer.") == 57ULL * (6144 * 512 + 6144 * 128 + 2 * 128));
    // 2 x 6144 x 200064 (untied) + 6144 + 60 x (2 x 6144 x 8192 + 2 x 6144 x 512 + 2 x 6144
    // + 2 x 128) + 3 x 3 x 6144 x 12288 + 57 x (3 x 6144 x 3072 x 128 + 3 x 6144 x 3072 +
    // 6144 x 128 + 128 + 3,932,416)
    std::uint64_t total = 0;
    for (const auto& t : l.tensors) total += t.elements();
    CHECK(total == 426174572928ULL);
    // the database's count (the architecture, the indexer by param_count's rule, none of it in
    // params.extra) leaves out the norms (60 x (2 x 6144 + 2 x 128) + 6144) and the routing
    // biases (57 x 128)
    CHECK(m.params_extra == 0);
    CHECK(sparse_attention_extra_params(m) == 57ULL * 3932416);
    CHECK(count_params(m).total == 426174572928ULL - (60 * (2 * 6144 + 2 * 128) + 6144 + 57 * 128));
    // llama-quantize leaves the indexer projections in the converter's F32
    const auto tensors = quantize_tensors(l, "Q4_K_M", std::nullopt).value();
    for (const auto& t : tensors) {
        if (t.tensor.name == "blk.3.indexer.q_proj.weight")
            CHECK(std::string(t.type.name) == "f32");
        if (t.tensor.name == "blk.3.ffn_down_exps.weight") CHECK(std::string(t.type.name) != "f32");
    }
}

TEST_CASE("GLM-5.2: the indexer and its key cache on 21 of 78 layers (IndexShare)") {
    const Model& m = test::model("glm-5.2");
    // per token at f16: 78 x 576 x 2 = 89,856 of latent, 21 x 128 x 2 = 5,376 of indexer keys
    CHECK(kv_cache_bytes(m, 1000, kv("f16")) == 95232000ULL);
    // 93 GiB at its full 1,048,576 tokens; q8_0: 78 x 612 + 21 x 136 = 50,592 per token
    CHECK(llama_kv(m, 1048576, FlashAttn::on) == 93ULL << 30);
    CHECK(llama_kv(m, 4096, FlashAttn::on, "q8_0") == 50592ULL * 4096);
    const auto order = layer_group_order(m);
    REQUIRE(order.size() == 78);
    for (std::size_t il = 0; il < order.size(); ++il) {
        INFO(il);
        CHECK(m.arch.layer_groups[order[il]].index_head_dim ==
              (glm52_indexer_layer(il) ? 128U : 0U));
    }
    // The files as llama.cpp's converter writes them (the checkpoint's tensors): the indexer's
    // five tensors only on those 21 layers. 3 globals, 3 dense layers of 10 attention and norm
    // tensors + 5 indexer + 3 FFN = 18, 18 MoE layers with an indexer (10 + 5 + 8 = 23), 57
    // without (18): 3 + 54 + 414 + 1026 = 1497 tensors
    Model converted = m;
    converted.run.gguf_indexer_every_layer = false;
    const TensorLayout l = tensor_layout(converted).value();
    CHECK(l.arch == "glm-dsa");
    CHECK(l.tensors.size() == 1497);
    for (std::size_t il = 0; il < order.size(); ++il) {
        INFO(il);
        const bool own = glm52_indexer_layer(il);
        CHECK(has_tensor(l, "blk." + std::to_string(il) + ".indexer.attn_k.weight") == own);
    }
    // 21 x (2048 x 4096 + 6144 x 128 + 6144 x 32 + 2 x 128) = 196,809,984, the parameter
    // count's (from the layer groups, none in params.extra)
    CHECK(elements_matching(l, ".indexer.") == 196809984ULL);
    CHECK(sparse_attention_extra_params(m) == 196809984ULL);
    CHECK(m.params_extra == 0);
    // GLM-5.1's 743,911,218,432 less 57 indexers of 9,371,904
    std::uint64_t total = 0;
    for (const auto& t : l.tensors) total += t.elements();
    CHECK(total == 743911218432ULL - 57ULL * 9371904);
}

// unsloth's GLM-5.2 files copy the indexer into all 78 layers (run.gguf_indexer_every_layer:
// ggml-org/llama.cpp PR #25407, ikawrakow/ik_llama.cpp PR #2093), and their UD-Q2_K_XL holds
// 1809 tensors, 27 of them in blk.78 (kmbandy/llama.cpp
// docs/dev/2026-07-29-late-brief-cross-machine-split.md at 0284ea9): 3 + 3 x 18 + 75 x 23 =
// 1782 in the stack, GLM-5.1's 743,911,218,432 weights, and the MTP block an MoE layer with its
// own indexer (23) + eh_proj, enorm, hnorm, shared_head_norm, no embedding or head: 27. Its
// weights are the checkpoint's model.layers.78, 9,952,920,576 (GLM-5.3's shards, the test
// below). The 57 copies at Q8_0 (34 B per 32 weights; the key norm's weight and bias stay f32):
// 2 x 128 x 4 + (6144 x 32 + 6144 x 128 + 2048 x 4096) / 32 x 34 = 9,958,400 B a layer,
// 567,628,800 B in all. The indexer key cache is unchanged (the test above). unsloth's GLM-5.3
// files are made the same way: "It declares indexer.* on ALL 79 blocks while the source
// checkpoint ships them on 22", 1809 tensors in the UD-IQ1_S at 346b3591 (mudler/vllm.cpp
// src/vllm/model_executor/models/glm_moe_dsa_loader.cpp at 0e4d8619), the same count.
TEST_CASE("GLM-5.2 and 5.3: unsloth's files hold the indexer in every layer, the MTP its own") {
    for (const char* id : {"glm-5.2", "glm-5.3"}) {
        INFO(id);
        const Model& m = test::model(id);
        CHECK(m.run.gguf_indexer_every_layer);
        const TensorLayout l = tensor_layout(m).value();
        CHECK(l.tensors.size() == 1782);
        for (int il = 0; il < 78; ++il) {
            CHECK(has_tensor(l, "blk." + std::to_string(il) + ".indexer.attn_q_b.weight"));
        }
        CHECK(elements_matching(l, ".indexer.") == 78ULL * 9371904);
        std::uint64_t total = 0;
        for (const auto& t : l.tensors) total += t.elements();
        CHECK(total == 743911218432ULL);
        CHECK(kv_cache_bytes(m, 1000, kv("f16")) == 95232000ULL);

        Model converted = m;
        converted.run.gguf_indexer_every_layer = false;
        for (const Model* each : {&m, static_cast<const Model*>(&converted)}) {
            const auto block = llamacpp_mtp_block(*each, test::quant("Q8_0")).value();
            CHECK(block.size() == 27);
            std::uint64_t weights = 0;
            for (const auto& t : block) weights += t.tensor.elements();
            CHECK(weights == 9952920576ULL);
            CHECK(l.tensors.size() + block.size() == 1809);
        }
        QuantizeRequest q8;
        q8.file_type = "Q8_0";
        const Bytes copies =
            gguf_tensor_bytes(m, q8).value() - gguf_tensor_bytes(converted, q8).value();
        CHECK(copies ==
              57ULL * (2ULL * 128 * 4 + (6144ULL * 32 + 6144ULL * 128 + 2048ULL * 4096) / 32 * 34));
        CHECK(copies == 567628800ULL);
    }
}

TEST_CASE("GLM-5.3's layers hold what zai-org's released shards hold") {
    // zai-org/GLM-5.3 at revision aca966e4 as github.com/GianluigiVitale/glm-tpu inventories it
    // (docs/release/GLM53_MIGRATION.md at fd5e8a74): the BF16 checkpoint is 282 shards of
    // 1,506,667,387,408 bytes. GLM-5.2's layout (IndexShare: the indexer on 21 layers) is
    // 743,377,019,904 parameters (the test above); the checkpoint adds the MTP block, an MoE
    // layer with its own indexer plus enorm, hnorm, eh_proj (12288 x 6144) and shared_head.norm:
    // 9,952,920,576 by hand, and GLM-5.2's 753,329,940,480 on the Hub with it.
    // The checkpoint's tensors: the converter's file, without unsloth's indexer copies.
    Model m = test::model("glm-5.3");
    m.run.gguf_indexer_every_layer = false;
    const TensorLayout l = tensor_layout(m).value();
    std::uint64_t total = 0;
    for (const auto& t : l.tensors) total += t.elements();
    CHECK(total == 743377019904ULL);
    CHECK(total + 9952920576ULL == 753329940480ULL);
    CHECK(elements_matching(l, ".indexer.") == 196809984ULL);  // 21 x 9,371,904
    // the database's count: those tensors less the norms and routing biases it leaves out, 78 x
    // (2 x 6144 + 2048 + 512) + 6144 (output_norm) + 75 x 256 = 1,183,488; the indexers are in
    // it by param_count's rule, none in params.extra
    CHECK(m.params_extra == 0);
    CHECK(count_params(m).total == total - (78ULL * (2 * 6144 + 2048 + 512) + 6144 + 75ULL * 256));
    CHECK(count_params(test::model("glm-5.2")).total == count_params(m).total);
    // GLM-5 and 5.1: the indexer on all 78 layers, GLM-5.1's 743,911,218,432 tensors (the test
    // of unsloth's files above) less the same norms and biases
    for (const char* id : {"glm-5", "glm-5.1"}) {
        INFO(id);
        CHECK(test::model(id).params_extra == 0);
        CHECK(count_params(test::model(id)).total ==
              743911218432ULL - (78ULL * (2 * 6144 + 2048 + 512) + 6144 + 75ULL * 256));
    }
    // Two bytes a parameter, two more for each of the 76 f32 score-correction biases (256
    // each): 1,506,659,919,872 bytes; the shards' other 7,467,536 bytes are their 282 JSON
    // headers, 125.3 bytes for each of the 59,585 tensors. An indexer on every layer would add
    // 1,068,397,056 bytes, 1,060,929,520 past the shards' total.
    const std::uint64_t bf16 = 2 * (total + 9952920576ULL) + 76ULL * 256 * 2;
    CHECK(bf16 == 1506659919872ULL);
    CHECK(1506667387408ULL - bf16 == 7467536ULL);
    CHECK(bf16 + 2 * 57ULL * 9371904 > 1506667387408ULL);
}

TEST_CASE("sparse attention: a GGUF file reads back with its indexer layers in place") {
    // The file make_gguf writes (the keys llama.cpp's converters write): GLM-5.2's has no
    // indexer.types key, as unsloth's files do not, so the 1M-token context picks llama.cpp's
    // GLM-5.2 table; MiniMax-M3's dense lead says where its indexers start.
    for (const char* id : {"glm-5.2", "minimax-m3", "glm-5.1", "deepseek-v3.2", "deepseek-v4-flash",
                           "deepseek-v4-pro"}) {
        INFO(id);
        const Model& m = test::model(id);
        const auto g = test::read_back(m);
        REQUIRE(g);
        CHECK(g->model.arch.layer_groups.size() == m.arch.layer_groups.size());
        CHECK(layer_group_order(g->model) == layer_group_order(m));
        for (const std::uint64_t context : {4096ULL, 131072ULL}) {
            CHECK(kv_cache_bytes(g->model, context, kv("f16")) ==
                  kv_cache_bytes(m, context, kv("f16")));
        }
    }
}

TEST_CASE("sparse attention: GLM-5.2's and MiniMax-M3's config.json give the database's layers") {
    for (const auto& [dir, id] : std::vector<std::pair<std::string, std::string>>{
             {"glm-5.2", "glm-5.2"},
             {"minimax-m3", "minimax-m3"},
             {"deepseek-v4-flash", "deepseek-v4-flash"}}) {
        INFO(dir);
        const auto hf = read_hf_model(std::string(CANITRUN_FIXTURES) + "/hf/" + dir);
        REQUIRE(hf);
        const Model& db = test::model(id);
        CHECK(layer_group_order(hf->model) == layer_group_order(db));
        for (const std::uint64_t context : {4096ULL, 1048576ULL}) {
            CHECK(kv_cache_bytes(hf->model, context, kv("f16")) ==
                  kv_cache_bytes(db, context, kv("f16")));
        }
        REQUIRE(hf->model.arch.moe);
        CHECK(hf->model.arch.moe->moe_layers == db.arch.moe->moe_layers);
        CHECK(hf->model.arch.intermediate_size == db.arch.intermediate_size);
        CHECK(hf->model.arch.moe->shared_expert_intermediate_size ==
              db.arch.moe->shared_expert_intermediate_size);
        // the parameter line: the database's count, the indexers by the same rule (MiniMax-M3's
        // 426,174,572,928 tensors less its norms and routing biases, the test above; its
        // config.json read 224,147,712 fewer while the data kept the indexer by hand)
        CHECK(hf->model.params_total == count_params(db).total);
    }
}

TEST_CASE("layer_order: digits name groups where two groups of one kind interleave") {
    Model m = test::model("glm-5.2");
    // the data states GLM-5.2's order in digits: group 0 (indexer) and 1 (shared)
    CHECK(m.arch.layer_order.substr(0, 8) == "00011101");
    // letters would fill the groups in turn: 21 indexer layers first, then 57 without
    Architecture letters = m.arch;
    letters.layer_order = std::string(78, 'A');
    const auto filled = stated_group_order(letters);
    REQUIRE(filled.size() == 78);
    CHECK(filled[20] == 0);
    CHECK(filled[21] == 1);
    // layer_order_text writes digits only where letters cannot say it
    CHECK(layer_order_text(m.arch, layer_group_order(m)) == m.arch.layer_order);
    CHECK(layer_order_text(letters, filled) == letters.layer_order);
    // a digit past the groups, or a group named more often than it has layers: no order
    Architecture bad = m.arch;
    bad.layer_order[0] = '2';
    CHECK(stated_group_order(bad).empty());
    bad.layer_order = std::string(78, '0');
    CHECK(stated_group_order(bad).empty());
}

// DeepSeek-V4-Flash at f16, one sequence, ubatch 512 (llama-kv-cache-dsv4.cpp): every layer
// 512 x 2 = 1,024 bytes per raw cell over pad256(min(C, 128 + 512)) = 768 cells; 21 ratio-4
// layers (512 + 128) x 2 = 1,280 bytes per entry over pad256(ceil(C / 4)) entries; 20 ratio-128
// layers 1,024 bytes per entry over pad256(ceil(C / 128)); the compressor state in f32:
// ratio 4: 2 x 8 x (2 x 512 + 2 x 128) x 4 = 81,920, ratio 128: 2 x 128 x 512 x 4 = 524,288.
TEST_CASE(
    "DeepSeek-V4-Flash: a raw window on 43 layers, compressed entries on 41, an indexer on 21") {
    const Model& m = test::model("deepseek-v4-flash");
    LlamaCppOptions o;
    o.context = 131072;
    const auto e = estimate_llamacpp(m, test::quant("Q4_K_M"), o).value();
    // 43 x 1,024 x 768 + 21 x 1,280 x 32,768 + 20 x 1,024 x 1,024
    CHECK(e.term(TermKind::kv_cache) ==
          43ULL * 1024 * 768 + 21ULL * 1280 * 32768 + 20ULL * 1024 * 1024);
    CHECK(e.term(TermKind::recurrent_state) == 21ULL * 81920 + 20ULL * 524288);
    // their sum is the 947,798,016 bytes (903.89 MiB) llama.cpp allocates at 128k
    CHECK(e.term(TermKind::kv_cache) + e.term(TermKind::recurrent_state) == 947798016ULL);
    // at 4096: the 1,024 ratio-4 entries and 256 (padded) ratio-128 ones, 78,790,656 in all
    o.context = 4096;
    const auto small = estimate_llamacpp(m, test::quant("Q4_K_M"), o).value();
    CHECK(small.term(TermKind::kv_cache) + small.term(TermKind::recurrent_state) == 78790656ULL);
    // four sequences: four streams of everything, whatever the cells per stream
    o.context = 4ULL * 4096;
    o.n_seq = 4;
    const auto four = estimate_llamacpp(m, test::quant("Q4_K_M"), o).value();
    CHECK(four.term(TermKind::kv_cache) + four.term(TermKind::recurrent_state) == 4 * 78790656ULL);
    // the page's rule: no padding, the raw window capped at 128 tokens
    CHECK(kv_cache_bytes(m, 4096, kv("f16")) ==
          (43ULL * 512 * 128 + 21ULL * 640 * 1024 + 20ULL * 512 * 32) * 2);
}

TEST_CASE("DeepSeek-V4: the layout sums to the published totals, hash-routed first layers") {
    const TensorLayout flash = tensor_layout(test::model("deepseek-v4-flash")).value();
    CHECK(flash.arch == "deepseek4");
    CHECK(flash.tensors.size() == 1328);  // 6 + 43 x 24 + 41 x 4 + 21 x 6
    std::uint64_t total = 0;
    for (const auto& t : flash.tensors) total += t.elements();
    CHECK(total == 284334567511ULL);  // the card's 284B, without the MTP block
    CHECK(has_tensor(flash, "blk.2.ffn_gate_tid2eid.weight"));
    CHECK_FALSE(has_tensor(flash, "blk.3.ffn_gate_tid2eid.weight"));
    CHECK(has_tensor(flash, "blk.3.exp_probs_b.bias"));
    CHECK_FALSE(has_tensor(flash, "blk.1.attn_compressor_kv.weight"));  // ratio 0
    CHECK(has_tensor(flash, "blk.2.indexer.attn_q_b.weight"));          // ratio 4
    CHECK_FALSE(has_tensor(flash, "blk.3.indexer.attn_q_b.weight"));    // ratio 128
    const TensorLayout pro = tensor_layout(test::model("deepseek-v4-pro")).value();
    total = 0;
    for (const auto& t : pro.tensors) total += t.elements();
    CHECK(total == 1572999528803ULL);
    // the token-id table stays i32 under every file type
    const auto typed = quantize_tensors(flash, "Q4_K_M", std::nullopt).value();
    for (const auto& t : typed) {
        if (t.tensor.name == "blk.0.ffn_gate_tid2eid.weight") {
            CHECK(std::string(t.type.name) == "i32");
        }
    }
}

TEST_CASE("DeepSeek-V4-Pro-0813's layers hold what its released safetensors index holds") {
    // OpenTallas's inventory of deepseek-ai/DeepSeek-V4-Pro-0813's index at revision 72e1d323
    // (data/inventory/deepseek-v4-pro-0813.json): 13,476,298,752 bytes of routed experts on
    // every layer, FP4 with one E8M0 scale per 32 weights (17 bytes a block, MXFP4's layout);
    // the indexer's larger layers are 2, 4, ..., 60, the ratio-4 ones.
    const TensorLayout pro = tensor_layout(test::model("deepseek-v4-pro-0813")).value();
    for (const int il : {0, 2, 59, 60}) {
        std::uint64_t routed = 0;
        for (const char* name : {"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"}) {
            const std::string full = "blk." + std::to_string(il) + "." + name + ".weight";
            for (const auto& t : pro.tensors) {
                if (t.name == full) routed += t.elements();
            }
        }
        CHECK(routed / 32 * 17 == 13476298752ULL);
        const bool ratio4 = il >= 2 && il % 2 == 0;
        const std::string indexer = "blk." + std::to_string(il) + ".indexer.attn_q_b.weight";
        CHECK(has_tensor(pro, indexer) == ratio4);
    }
}
