#pragma once
// The pieces the tensor layouts are built from (tensor_layout.cpp for the attention-only
// architectures, hybrid_layouts.cpp for the hybrid ones): a builder of llama.cpp's tensor names
// and shapes, and the tensors several architectures share. Private to src/core/engines.

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/tensor_layout.hpp"

namespace canitrun::layout {

struct Builder {
    TensorLayout layout;

    void add(TensorName name, std::initializer_list<std::uint64_t> dims, int layer = -1);
    // blk.<il>.<suffix>
    void blk(int il, std::string_view suffix, std::initializer_list<std::uint64_t> dims) {
        lay(il, suffix, nullptr, dims);
    }
    // The same with a string literal (an array is taken for one: static, never written), which
    // is known by its address: where the tensor at the same place of the previous layer laid
    // out has this suffix and shape, the tensor repeats it (TensorInfo::repeats). Comparing the
    // names instead cost more than the repeats spare (bench/RESULTS.md, nineteenth).
    template <std::size_t N>
    void blk(int il, const char (&suffix)[N], std::initializer_list<std::uint64_t> dims) {
        lay(il, std::string_view(suffix, N - 1), suffix, dims);
    }

  private:
    void lay(int il, std::string_view suffix, const char* literal,
             std::initializer_list<std::uint64_t> dims);
    // The tensors blk() laid out for the last layer and for this one, by place: each one's
    // index and its suffix literal (nullptr: not one).
    struct Place {
        const char* literal;
        std::uint32_t index;
    };
    std::vector<Place> last_layer_, this_layer_;
    int at_layer_ = -1;
};

// An architecture tensor_layout has a builder for (llama.cpp's name).
bool has_layout_builder(const std::string& arch);

const LayerGroup* group_of(const Model& model, LayerKind kind);

// The model's group of this kind, or an empty one (every dimension 0, so the model's own
// attention values apply) when a model read from a file header or a log has none: the builder
// for its architecture then lays out what the header gives instead of dereferencing nothing.
const LayerGroup& group_or_empty(const Model& model, LayerKind kind);
// The first MLA group with a DSA indexer (DeepSeek V3.2, GLM-5), else group_or_empty's.
const LayerGroup& indexer_group(const Model& model);
// Layer il's group where it is an MLA group (`order`: layer_group_order(model)), else nullptr.
const LayerGroup* mla_group_at(const Model& model, const std::vector<std::size_t>& order, int il);

bool has_kind(const Model& model, LayerKind kind);

// token_embd, output_norm, and output unless the embeddings are tied
void embeddings(Builder& b, const Model& m);
// One rope_freqs of head_dim / 2 where config.json's rope scaling is llama3
// (Attention::rope_scaling): the converters write its frequency factors as that tensor
// (conversion/llama.py, exaone.py, step3.py's generate_extra_tensors), for no other scaling.
void rope_freqs(Builder& b, const Model& m);
// q/k/v/o of a full or sliding layer; `q_factor` 2 for gated attention (the query projection
// also yields the gate).
void attention(Builder& b, const Model& m, int il, std::uint64_t q_factor, bool qkv_bias);
// The same with this group's heads and K/V dims: layers whose groups differ in KV heads
// (mimo2.cpp's head_count_kv per layer) or query heads (step35.cpp's head_count per layer).
void attention(Builder& b, const Model& m, const LayerGroup& g, int il, std::uint64_t q_factor,
               bool qkv_bias);
void qk_norm(Builder& b, const Model& m, int il);
// q/k norms over the whole projections (all query heads, all KV heads): olmo2.cpp, minimax-m2.cpp.
void qk_norm_whole(Builder& b, const Model& m, int il);
// MLA as deepseek2.cpp loads a current GGUF: kv_b split into attn_k_b / attn_v_b, q through a
// LoRA when q_lora_rank > 0.
void mla_attention(Builder& b, const Model& m, const LayerGroup& g, int il);
// A Mamba-2 mixer as granite-hybrid.cpp and nemotron-h.cpp load it (ssm_in = z, x, B, C, dt).
void mamba2_mixer(Builder& b, const Model& m, int il);
// The same with this group's dimensions; `norm`: the grouped ssm_norm, {d_inner / n_group,
// n_group} (Falcon-H1's converter writes it where the checkpoint has mamba.norm, which
// transformers creates only for mamba_rms_norm: LayerGroup::ssm_rms_norm).
void mamba2_mixer(Builder& b, const Model& m, const LayerGroup& g, int il, bool norm);
void dense_ffn(Builder& b, const Model& m, int il);
void moe_ffn(Builder& b, const Model& m, int il);
void shared_expert(Builder& b, const Model& m, int il, bool gate_inp);
// Layer il's FFN where the first (layers - moe_layers) are dense and the rest routed experts,
// with the routing bias (exp_probs_b) if `routing_bias`, and the shared expert where the
// model has one (deepseek2, glm4moe, kimi-linear, lfm2moe).
void dense_lead_ffn(Builder& b, const Model& m, int il, bool routing_bias);
// DeepSeek Sparse Attention's lightning indexer of MLA layer il (deepseek32.cpp, glm-dsa.cpp,
// hy-v4.cpp): q through the q LoRA, one key head, the per-head weights and the key's LayerNorm.
void indexer(Builder& b, const Model& m, const LayerGroup& g, int il);
// Every layer MoE with its shared expert (gated by ffn_gate_inp_shexp if `shared_gate`), or
// every layer dense (qwen35moe / qwen3next, granitehybrid).
void moe_or_dense_ffn(Builder& b, const Model& m, int il, bool shared_gate);

void build_qwen_hybrid(Builder& b, const Model& m, bool fused_ba);
void build_granite_hybrid(Builder& b, const Model& m);
void build_nemotron_h(Builder& b, const Model& m);
void build_kimi_linear(Builder& b, const Model& m);
void build_kimi_k3(Builder& b, const Model& m);
void build_qwen4exp(Builder& b, const Model& m);
void build_lfm2(Builder& b, const Model& m);
void build_jamba(Builder& b, const Model& m);
void build_falcon_h1(Builder& b, const Model& m);
void build_ernie45_moe(Builder& b, const Model& m);
void build_llama4(Builder& b, const Model& m);
void build_mimo2(Builder& b, const Model& m);
void build_step35(Builder& b, const Model& m);
void build_minimax_m3(Builder& b, const Model& m);
void build_deepseek4(Builder& b, const Model& m);
void build_hy_v4(Builder& b, const Model& m);
void build_mistral4(Builder& b, const Model& m);
void build_gemma3n(Builder& b, const Model& m);
void build_gemma4(Builder& b, const Model& m);
// Spark-X2.5, spark_layout.cpp.
void build_spark2_5(Builder& b, const Model& m);
// Dots 3 Note Preview, dots3_layout.cpp.
void build_dots3note(Builder& b, const Model& m);
// BERT (bge-m3's XLM-RoBERTa) and nomic-bert (`nomic`), encoder_layouts.cpp.
void build_bert(Builder& b, const Model& m, bool nomic);

}  // namespace canitrun::layout
