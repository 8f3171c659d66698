#include "layout_builder.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>

#include "canitrun/checked.hpp"

// Tensor names and shapes follow the pinned llama.cpp (src/models/<arch>.cpp, load_arch_tensors,
// and src/llama-arch.cpp's LLM_TENSOR_NAMES).

namespace canitrun::layout {

void Builder::add(TensorName name, std::initializer_list<std::uint64_t> dims, int layer) {
    std::array<std::uint64_t, 4> ne{1, 1, 1, 1};
    std::copy(dims.begin(), dims.end(), ne.begin());
    // Made in place: a default tensor assigned field by field wrote its name twice.
    layout.tensors.emplace_back(name, TensorInfo::kNoRepeat, ne,
                                static_cast<std::uint32_t>(dims.size()), layer);
}

void Builder::lay(int il, std::string_view suffix, const char* literal,
                  std::initializer_list<std::uint64_t> dims) {
    if (il != at_layer_) {
        last_layer_.swap(this_layer_);
        this_layer_.clear();
        at_layer_ = il;
    }
    const std::size_t place = this_layer_.size();
    add(TensorName::of_layer(il, suffix), dims, il);
    const std::size_t index = layout.tensors.size() - 1;
    if (index >= TensorInfo::kNoRepeat) return;  // no index for it
    this_layer_.push_back({literal, static_cast<std::uint32_t>(index)});
    if (literal == nullptr || place >= last_layer_.size()) return;
    const Place& last = last_layer_[place];
    if (last.literal != literal) return;
    // Compared field by field: std::equal and the arrays' == call memcmp.
    TensorInfo& t = layout.tensors[index];
    const TensorInfo& before = layout.tensors[last.index];
    if (before.n_dims == t.n_dims && before.ne[0] == t.ne[0] && before.ne[1] == t.ne[1] &&
        before.ne[2] == t.ne[2] && before.ne[3] == t.ne[3]) {
        t.repeats = last.index;
    }
}

}  // namespace canitrun::layout

namespace canitrun {

TensorName TensorName::of_layer(int il, std::string_view suffix) {
    // Written in place, no string between. A name longer than ggml's goes to the constructor
    // whole, which refuses it.
    TensorName n;
    char* const first = n.chars_.data();
    char* end = std::copy_n("blk.", 4, first);
    end = std::to_chars(end, first + 15, il).ptr;
    *end++ = '.';
    const auto used = static_cast<std::size_t>(end - first);
    if (suffix.size() > kMaxSize - used) {
        return {std::string(first, used) + std::string(suffix)};
    }
    end = std::copy(suffix.begin(), suffix.end(), end);
    n.size_ = static_cast<std::uint8_t>(end - first);
    return n;
}

}  // namespace canitrun

namespace canitrun::layout {

const LayerGroup* group_of(const Model& model, LayerKind kind) {
    for (const auto& g : model.arch.layer_groups) {
        if (g.kind == kind) return &g;
    }
    return nullptr;
}

const LayerGroup& group_or_empty(const Model& model, LayerKind kind) {
    static const LayerGroup empty{};
    const LayerGroup* g = group_of(model, kind);
    return g != nullptr ? *g : empty;
}

const LayerGroup& indexer_group(const Model& model) {
    const auto& groups = model.arch.layer_groups;
    const auto it = std::find_if(groups.begin(), groups.end(), [](const LayerGroup& g) {
        return g.kind == LayerKind::mla && g.index_head_dim > 0;
    });
    return it != groups.end() ? *it : group_or_empty(model, LayerKind::mla);
}

const LayerGroup* mla_group_at(const Model& model, const std::vector<std::size_t>& order, int il) {
    const auto at = static_cast<std::size_t>(il);
    if (at >= order.size()) return nullptr;
    const LayerGroup& g = model.arch.layer_groups[order[at]];
    return g.kind == LayerKind::mla ? &g : nullptr;
}

bool has_kind(const Model& model, LayerKind kind) {
    return group_of(model, kind) != nullptr;
}

void embeddings(Builder& b, const Model& m) {
    const auto& a = m.arch;
    b.add("token_embd.weight", {a.hidden_size, a.vocab_size});
    b.add("output_norm.weight", {a.hidden_size});
    if (!a.tied_embeddings) b.add("output.weight", {a.hidden_size, a.vocab_size});
}

void rope_freqs(Builder& b, const Model& m) {
    const auto& att = m.arch.attention;
    if (att.rope_scaling == "llama3") b.add("rope_freqs.weight", {att.head_dim / 2});
}

void attention(Builder& b, const Model& m, int il, std::uint64_t q_factor, bool qkv_bias) {
    const LayerGroup* g = group_of(m, LayerKind::full);
    if (g == nullptr) g = group_of(m, LayerKind::sliding);
    attention(b, m, g ? *g : LayerGroup{}, il, q_factor, qkv_bias);
}

void attention(Builder& b, const Model& m, const LayerGroup& g, int il, std::uint64_t q_factor,
               bool qkv_bias) {
    const auto& a = m.arch;
    const AttentionDims d = attention_dims(m, g);
    const std::uint64_t heads = d.heads;
    const std::uint64_t q_dim = checked::mul(heads, d.k_dim);
    const std::uint64_t o_in = checked::mul(heads, d.v_dim);
    b.blk(il, "attn_q.weight", {a.hidden_size, checked::mul(q_dim, q_factor)});
    b.blk(il, "attn_k.weight", {a.hidden_size, checked::mul(d.kv_heads, d.k_dim)});
    b.blk(il, "attn_v.weight", {a.hidden_size, checked::mul(d.kv_heads, d.v_dim)});
    if (qkv_bias) {
        b.blk(il, "attn_q.bias", {q_dim});
        b.blk(il, "attn_k.bias", {checked::mul(d.kv_heads, d.k_dim)});
        b.blk(il, "attn_v.bias", {checked::mul(d.kv_heads, d.v_dim)});
    }
    b.blk(il, "attn_output.weight", {o_in, a.hidden_size});
}

void qk_norm(Builder& b, const Model& m, int il) {
    const LayerGroup* g = group_of(m, LayerKind::full);
    if (g == nullptr) g = group_of(m, LayerKind::sliding);
    const AttentionDims d = attention_dims(m, g ? *g : LayerGroup{});
    b.blk(il, "attn_q_norm.weight", {d.k_dim});
    b.blk(il, "attn_k_norm.weight", {d.k_dim});
}

void qk_norm_whole(Builder& b, const Model& m, int il) {
    const LayerGroup* g = group_of(m, LayerKind::full);
    if (g == nullptr) g = group_of(m, LayerKind::sliding);
    const AttentionDims d = attention_dims(m, g ? *g : LayerGroup{});
    b.blk(il, "attn_q_norm.weight", {checked::mul(m.arch.attention.heads, d.k_dim)});
    b.blk(il, "attn_k_norm.weight", {checked::mul(d.kv_heads, d.k_dim)});
}

void dense_ffn(Builder& b, const Model& m, int il) {
    const auto& a = m.arch;
    b.blk(il, "ffn_gate.weight", {a.hidden_size, a.intermediate_size});
    b.blk(il, "ffn_up.weight", {a.hidden_size, a.intermediate_size});
    b.blk(il, "ffn_down.weight", {a.intermediate_size, a.hidden_size});
}

void moe_ffn(Builder& b, const Model& m, int il) {
    const auto& a = m.arch;
    const MoE& e = *a.moe;
    const std::uint64_t w = routed_expert_width(m);
    b.blk(il, "ffn_gate_inp.weight", {a.hidden_size, e.experts});
    b.blk(il, "ffn_gate_exps.weight", {w, e.expert_intermediate_size, e.experts});
    b.blk(il, "ffn_up_exps.weight", {w, e.expert_intermediate_size, e.experts});
    b.blk(il, "ffn_down_exps.weight", {e.expert_intermediate_size, w, e.experts});
}

void shared_expert(Builder& b, const Model& m, int il, bool gate_inp) {
    const auto& a = m.arch;
    const std::uint64_t ff = a.moe->shared_expert_intermediate_size;
    if (ff == 0) return;
    if (gate_inp) b.blk(il, "ffn_gate_inp_shexp.weight", {a.hidden_size});
    b.blk(il, "ffn_gate_shexp.weight", {a.hidden_size, ff});
    b.blk(il, "ffn_up_shexp.weight", {a.hidden_size, ff});
    b.blk(il, "ffn_down_shexp.weight", {ff, a.hidden_size});
}

void dense_lead_ffn(Builder& b, const Model& m, int il, bool routing_bias) {
    const auto& a = m.arch;
    const std::uint64_t dense_layers = m.is_moe() ? a.layers - a.moe->moe_layers : a.layers;
    if (static_cast<std::uint64_t>(il) < dense_layers) {
        dense_ffn(b, m, il);
        return;
    }
    moe_ffn(b, m, il);
    if (routing_bias) b.blk(il, "exp_probs_b.bias", {a.moe->experts});
    shared_expert(b, m, il, false);
}

void moe_or_dense_ffn(Builder& b, const Model& m, int il, bool shared_gate) {
    if (!m.is_moe()) {
        dense_ffn(b, m, il);
        return;
    }
    moe_ffn(b, m, il);
    shared_expert(b, m, il, shared_gate);
}

void mla_attention(Builder& b, const Model& m, const LayerGroup& g, int il) {
    const auto& a = m.arch;
    const std::uint64_t heads = mla_heads(a, g);
    const std::uint64_t qk_head = checked::add(g.qk_nope_head_dim, g.qk_rope_head_dim);
    const std::uint64_t v_head = mla_v_head_dim(a, g);
    if (g.q_lora_rank > 0) {
        b.blk(il, "attn_q_a_norm.weight", {g.q_lora_rank});
        b.blk(il, "attn_q_a.weight", {a.hidden_size, g.q_lora_rank});
        b.blk(il, "attn_q_b.weight", {g.q_lora_rank, checked::mul(heads, qk_head)});
    } else {
        b.blk(il, "attn_q.weight", {a.hidden_size, checked::mul(heads, qk_head)});
    }
    b.blk(il, "attn_kv_a_norm.weight", {g.kv_lora_rank});
    b.blk(il, "attn_kv_a_mqa.weight",
          {a.hidden_size, checked::add(g.kv_lora_rank, g.qk_rope_head_dim)});
    b.blk(il, "attn_k_b.weight", {g.qk_nope_head_dim, g.kv_lora_rank, heads});
    b.blk(il, "attn_v_b.weight", {g.kv_lora_rank, v_head, heads});
    b.blk(il, "attn_output.weight", {checked::mul(heads, v_head), a.hidden_size});
}

// DeepSeek Sparse Attention's lightning indexer, as deepseek32.cpp loads it: a query through
// the q LoRA, one key head, a per-head weight projection and a LayerNorm on the key.
void indexer(Builder& b, const Model& m, const LayerGroup& g, int il) {
    const std::uint64_t hidden = m.arch.hidden_size;
    b.blk(il, "indexer.k_norm.weight", {g.index_head_dim});
    b.blk(il, "indexer.k_norm.bias", {g.index_head_dim});
    b.blk(il, "indexer.proj.weight", {hidden, g.index_heads});
    b.blk(il, "indexer.attn_k.weight", {hidden, g.index_head_dim});
    b.blk(il, "indexer.attn_q_b.weight",
          {g.q_lora_rank, checked::mul(g.index_heads, g.index_head_dim)});
}

void mamba2_mixer(Builder& b, const Model& m, int il) {
    mamba2_mixer(b, m, group_or_empty(m, LayerKind::ssm), il, true);
}

void mamba2_mixer(Builder& b, const Model& m, const LayerGroup& g, int il, bool norm) {
    const auto& a = m.arch;
    const std::uint64_t bc = checked::mul(2, checked::mul(g.groups, g.state_size));
    const std::uint64_t in_proj =
        checked::add(checked::add(checked::mul(2, g.inner_size), bc), g.ssm_heads);
    const std::uint64_t conv_dim = checked::add(g.inner_size, bc);
    b.blk(il, "ssm_in.weight", {a.hidden_size, in_proj});
    b.blk(il, "ssm_conv1d.weight", {g.conv_kernel, conv_dim});
    b.blk(il, "ssm_conv1d.bias", {conv_dim});
    b.blk(il, "ssm_dt.bias", {g.ssm_heads});
    b.blk(il, "ssm_a", {1, g.ssm_heads});
    b.blk(il, "ssm_d", {1, g.ssm_heads});
    if (norm) b.blk(il, "ssm_norm.weight", {g.inner_size / g.groups, g.groups});
    b.blk(il, "ssm_out.weight", {g.inner_size, a.hidden_size});
}

}  // namespace canitrun::layout
