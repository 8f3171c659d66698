#include "canitrun/tensor_layout.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "canitrun/checked.hpp"
#include "canitrun/layer_kinds.hpp"
#include "layout_builder.hpp"

// Tensor names and shapes follow llama.cpp 0ad4a86, as read at 5b4ebc5 (src/models/<arch>.cpp,
// load_arch_tensors, and src/llama-arch.cpp's LLM_TENSOR_NAMES): llama.cpp, qwen2.cpp, qwen3.cpp,
// qwen3moe.cpp, qwen35.cpp, qwen35moe.cpp, qwen3next.cpp, gemma2.cpp, gemma3.cpp, openai-moe.cpp
// (gpt-oss), deepseek2.cpp, smollm3.cpp, olmo2.cpp, seed-oss.cpp, exaone4.cpp, glm4.cpp,
// minimax-m2.cpp, hunyuan-moe.cpp, phimoe.cpp, command-r.cpp, cohere2.cpp, phi3.cpp, granite.cpp,
// qwen2vl.cpp, qwen3vl.cpp, qwen3vlmoe.cpp; the hybrid ones (granite-hybrid.cpp, nemotron-h.cpp,
// kimi-linear.cpp, lfm2.cpp) in hybrid_layouts.cpp. Optional
// tensors are listed only where the converter writes them for the models the database describes
// (qwen2's q/k/v biases, a llama3 rope scaling's rope_freqs).

namespace canitrun {
namespace {

using namespace layout;

// The first llama.cpp release with #19770 ("llama-quant : fail early on missing imatrix,
// refactor type selection", commit 1dab5f5a4, 2026-03-10), the rules canitrun transcribes;
// a file made before it was typed by the older rules (quantize_rules.cpp says which).
constexpr std::uint64_t kB8275 = 8275;

void build_llama_like(Builder& b, const Model& m, bool qkv_bias, bool qk_norms) {
    embeddings(b, m);
    const auto& a = m.arch;
    rope_freqs(b, m);  // Llama 3.1+ and its distills: their llama3 rope scaling
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        attention(b, m, il, 1, qkv_bias);
        if (qk_norms) qk_norm(b, m, il);
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        if (m.is_moe()) {
            moe_ffn(b, m, il);
        } else {
            dense_ffn(b, m, il);
        }
    }
}

// Gemma 2 / 3's layer: norms before and after attention and FFN. Muse Glimmer (muse-glimmer.cpp)
// is the same with q/k norms and a sigmoid gate on the attention output of its own (attn_gate).
void build_gemma(Builder& b, const Model& m, bool qk_norms) {
    embeddings(b, m);
    const auto& a = m.arch;
    const std::uint64_t q_dim = checked::mul(
        a.attention.heads, attention_dims(m, group_or_empty(m, LayerKind::full)).k_dim);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        attention(b, m, il, 1, false);
        b.blk(il, "post_attention_norm.weight", {a.hidden_size});
        if (qk_norms) qk_norm(b, m, il);
        if (a.attention.output_gate) b.blk(il, "attn_gate.weight", {a.hidden_size, q_dim});
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        dense_ffn(b, m, il);
        b.blk(il, "post_ffw_norm.weight", {a.hidden_size});
    }
}

void build_gpt_oss(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const MoE& e = *a.moe;
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        b.blk(il, "post_attention_norm.weight", {a.hidden_size});
        attention(b, m, il, 1, true);
        b.blk(il, "attn_sinks.weight", {a.attention.heads});
        b.blk(il, "attn_output.bias", {a.hidden_size});
        moe_ffn(b, m, il);
        b.blk(il, "ffn_gate_inp.bias", {e.experts});
        b.blk(il, "ffn_gate_exps.bias", {e.expert_intermediate_size, e.experts});
        b.blk(il, "ffn_up_exps.bias", {e.expert_intermediate_size, e.experts});
        b.blk(il, "ffn_down_exps.bias", {a.hidden_size, e.experts});
    }
}

// DeepSeek V2/V3 (and Kimi K2) as deepseek2.cpp loads a current GGUF, and V3.2 as
// deepseek32.cpp does (the same, with an indexer in each layer; GLM-5.2's glm-dsa.cpp in the
// layers that keep their own): MLA with the kv_b projection split into attn_k_b / attn_v_b, q
// through a LoRA when q_lora_rank > 0, the first (layers - moe_layers) layers dense, then routed
// + shared experts with exp_probs_b (V3).
void build_deepseek2(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const auto order = layer_group_order(m);
    // V2 routes by softmax and Mistral Large 3 sets no topk_method: no bias tensor.
    const bool routing_bias = m.family != "deepseek-v2" && m.family != "mistral-large3";
    embeddings(b, m);
    // GLM-5.2's layers reusing an earlier choice: no indexer unless the files copy it in
    const LayerGroup& copied = indexer_group(m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        const LayerGroup* own = mla_group_at(m, order, il);
        const LayerGroup& g = own != nullptr ? *own : group_or_empty(m, LayerKind::mla);
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        mla_attention(b, m, g, il);
        if (g.index_head_dim > 0 || (m.run.gguf_indexer_every_layer && copied.index_head_dim > 0))
            indexer(b, m, g.index_head_dim > 0 ? g : copied, il);
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        dense_lead_ffn(b, m, il, routing_bias);
    }
}

// OLMo 2: q/k norms over the whole projection, norms after attention and FFN only.
void build_olmo2(Builder& b, const Model& m) {
    const auto& a = m.arch;
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        attention(b, m, il, 1, false);
        qk_norm_whole(b, m, il);
        b.blk(il, "post_attention_norm.weight", {a.hidden_size});
        dense_ffn(b, m, il);
        b.blk(il, "post_ffw_norm.weight", {a.hidden_size});
    }
}

// Seed-OSS (seed-oss.cpp): q/k/v with biases, the norm before the FFN named attn_post_norm.
void build_seed_oss(Builder& b, const Model& m) {
    const auto& a = m.arch;
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        attention(b, m, il, 1, true);
        b.blk(il, "post_attention_norm.weight", {a.hidden_size});
        dense_ffn(b, m, il);
    }
}

// EXAONE 4 (exaone4.cpp): norms after attention and FFN only, per-head q/k norms, and the
// rope_freqs of a llama3 rope scaling (conversion/exaone.py's Exaone4Model; EXAONE 4.0's
// configs have one).
void build_exaone4(Builder& b, const Model& m) {
    const auto& a = m.arch;
    embeddings(b, m);
    rope_freqs(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        attention(b, m, il, 1, false);
        b.blk(il, "post_attention_norm.weight", {a.hidden_size});
        qk_norm(b, m, il);
        dense_ffn(b, m, il);
        b.blk(il, "post_ffw_norm.weight", {a.hidden_size});
    }
}

// GLM-4-0414 (glm4.cpp): q/k/v with biases, norms before and after attention and FFN, and
// gate and up in one ffn_up of twice the width.
void build_glm4(Builder& b, const Model& m) {
    const auto& a = m.arch;
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        attention(b, m, il, 1, true);
        b.blk(il, "post_attention_norm.weight", {a.hidden_size});
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        b.blk(il, "ffn_down.weight", {a.intermediate_size, a.hidden_size});
        b.blk(il, "ffn_up.weight", {a.hidden_size, checked::mul(2, a.intermediate_size)});
        b.blk(il, "post_ffw_norm.weight", {a.hidden_size});
    }
}

// GLM-4.5 / 4.6 / 4.7 (glm4-moe.cpp): q/k/v with biases and per-head q/k norms where the
// checkpoint has them (use_qk_norm: GLM-4.5-Air has none), the norm before the FFN named
// attn_post_norm, the first (layers - moe_layers) FFNs dense, then routed experts with a bias and
// a shared expert. The checkpoint's MTP layer is left out: llama.cpp skips it unless asked to
// load it.
void build_glm4moe(Builder& b, const Model& m) {
    const auto& a = m.arch;
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        attention(b, m, il, 1, true);
        if (a.attention.qk_norm) qk_norm(b, m, il);
        b.blk(il, "post_attention_norm.weight", {a.hidden_size});
        dense_lead_ffn(b, m, il, true);
    }
}

// MiniMax-M2 (minimax-m2.cpp): q/k norms over all heads, experts routed with a bias, no
// shared expert or dense layer.
void build_minimax_m2(Builder& b, const Model& m) {
    const auto& a = m.arch;
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        attention(b, m, il, 1, false);
        qk_norm_whole(b, m, il);
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        moe_ffn(b, m, il);
        b.blk(il, "exp_probs_b.bias", {a.moe->experts});
    }
}

// Hunyuan-A13B (hunyuan-moe.cpp): per-head q/k norms, routed experts and a shared expert.
void build_hunyuan_moe(Builder& b, const Model& m) {
    const auto& a = m.arch;
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        attention(b, m, il, 1, false);
        qk_norm(b, m, il);
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        moe_ffn(b, m, il);
        shared_expert(b, m, il, false);
    }
}

// Phi-3.5-MoE (phimoe.cpp): LayerNorms with biases, biased q/k/v/o and output, LongRoPE's
// factors, 16 experts.
void build_phimoe(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const AttentionDims d = attention_dims(m, group_or_empty(m, LayerKind::full));
    b.add("token_embd.weight", {a.hidden_size, a.vocab_size});
    b.add("output_norm.weight", {a.hidden_size});
    b.add("output_norm.bias", {a.hidden_size});
    b.add("output.weight", {a.hidden_size, a.vocab_size});
    b.add("output.bias", {a.vocab_size});
    b.add("rope_factors_long.weight", {d.k_dim / 2});
    b.add("rope_factors_short.weight", {d.k_dim / 2});
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        b.blk(il, "attn_norm.bias", {a.hidden_size});
        attention(b, m, il, 1, true);
        b.blk(il, "attn_output.bias", {a.hidden_size});
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        b.blk(il, "ffn_norm.bias", {a.hidden_size});
        moe_ffn(b, m, il);
    }
}

// Command R: parallel attention + FFN under one norm, tied embeddings, per-head q/k norms
// from 64 layers on.
void build_command_r(Builder& b, const Model& m) {
    const auto& a = m.arch;
    const AttentionDims d = attention_dims(m, group_or_empty(m, LayerKind::full));
    embeddings(b, m);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        if (b.layout.arch == "command-r" && a.layers >= 64) {
            b.blk(il, "attn_q_norm.weight", {d.k_dim, a.attention.heads});
            b.blk(il, "attn_k_norm.weight", {d.k_dim, d.kv_heads});
        }
        attention(b, m, il, 1, false);
        dense_ffn(b, m, il);
    }
}

// Phi-3 / Phi-4: fused attn_qkv and fused gate+up (ffn_up of width 2 x n_ff).
void build_phi3(Builder& b, const Model& m) {
    const auto& a = m.arch;
    // Phi-3 mini/medium 4k record a sliding window that llama.cpp ignores (models/phi3.cpp).
    const LayerGroup* g = group_of(m, LayerKind::full);
    if (g == nullptr) g = group_of(m, LayerKind::sliding);
    if (g == nullptr) return;  // the loader refuses a model without attention layers
    const AttentionDims d = attention_dims(m, *g);
    const std::uint64_t q_dim = checked::mul(a.attention.heads, d.k_dim);
    const std::uint64_t kv_dim = checked::mul(d.kv_heads, d.k_dim);
    embeddings(b, m);
    if (m.context_extension.starts_with("LongRoPE")) {
        // LongRoPE's per-dimension factors, n_rot / 2 each. Phi-4-mini rotates 3/4 of each head
        // (config.json's partial_rotary_factor 0.75: the converter writes rope.dimension_count
        // 96 and checks the factors' length against it, conversion/phi.py).
        const std::uint64_t n_rot = m.family == "phi4-mini" ? d.k_dim * 3 / 4 : d.k_dim;
        b.add("rope_factors_long.weight", {n_rot / 2});
        b.add("rope_factors_short.weight", {n_rot / 2});
    }
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        b.blk(il, "attn_norm.weight", {a.hidden_size});
        b.blk(il, "attn_qkv.weight", {a.hidden_size, checked::add(q_dim, checked::mul(2, kv_dim))});
        b.blk(il, "attn_output.weight", {q_dim, a.hidden_size});
        b.blk(il, "ffn_norm.weight", {a.hidden_size});
        b.blk(il, "ffn_up.weight", {a.hidden_size, checked::mul(2, a.intermediate_size)});
        b.blk(il, "ffn_down.weight", {a.intermediate_size, a.hidden_size});
    }
}

using BuildFn = void (*)(Builder&, const Model&);

// What tensor_layout checks or sets by architecture, beside the builder.
enum ArchTrait : unsigned {
    kNone = 0,
    // Built around its experts: a file of it without them (a corrupt or hand-made header) has
    // no layout, rather than one read from nothing.
    kNeedsExperts = 1U << 0,
    // Mamba layers whose ssm_norm is {d_inner / n_group, n_group}: 0 groups is a broken file.
    kSsmGroups = 1U << 1,
    // Recurrent layers store 0 KV heads; llama-quantize asks hparams.n_gqa() of layer 0, which
    // is 0 when layer 0 is not full attention.
    kRecurrent = 1U << 2,
};

struct ArchEntry {
    const char* arch;
    BuildFn build;
    unsigned traits = kNone;
};

constexpr unsigned kMamba = kSsmGroups | kRecurrent;

// llama.cpp's architecture -> the builder of its tensors and its traits.
const ArchEntry* arch_entry(const std::string& arch) {
    static constexpr ArchEntry kBuilders[] = {
        {"llama", [](Builder& b, const Model& m) { build_llama_like(b, m, false, false); }},
        {"smollm3", [](Builder& b, const Model& m) { build_llama_like(b, m, false, false); }},
        {"granite", [](Builder& b, const Model& m) { build_llama_like(b, m, false, false); }},
        {"qwen2", [](Builder& b, const Model& m) { build_llama_like(b, m, true, false); }},
        {"qwen2vl", [](Builder& b, const Model& m) { build_llama_like(b, m, true, false); }},
        {"qwen3", [](Builder& b, const Model& m) { build_llama_like(b, m, false, true); }},
        {"qwen3moe", [](Builder& b, const Model& m) { build_llama_like(b, m, false, true); }},
        {"qwen3vl", [](Builder& b, const Model& m) { build_llama_like(b, m, false, true); }},
        {"qwen3vlmoe", [](Builder& b, const Model& m) { build_llama_like(b, m, false, true); }},
        {"qwen35", [](Builder& b, const Model& m) { build_qwen_hybrid(b, m, false); }},
        {"qwen35moe", [](Builder& b, const Model& m) { build_qwen_hybrid(b, m, false); }},
        {"qwen3next", [](Builder& b, const Model& m) { build_qwen_hybrid(b, m, true); }},
        {"gemma3", [](Builder& b, const Model& m) { build_gemma(b, m, true); }},
        {"gemma2", [](Builder& b, const Model& m) { build_gemma(b, m, false); }},
        {"gemma-embedding", [](Builder& b, const Model& m) { build_gemma(b, m, true); }},
        {"muse-glimmer", [](Builder& b, const Model& m) { build_gemma(b, m, true); }},
        {"bert", [](Builder& b, const Model& m) { build_bert(b, m, false); }},
        {"nomic-bert", [](Builder& b, const Model& m) { build_bert(b, m, true); }},
        {"gpt-oss", build_gpt_oss, kNeedsExperts},
        {"deepseek2", build_deepseek2, kNeedsExperts},
        {"deepseek32", build_deepseek2, kNeedsExperts},
        {"glm-dsa", build_deepseek2, kNeedsExperts},
        {"dots3note", build_dots3note, kNeedsExperts},
        {"mistral4", build_mistral4, kNeedsExperts},
        {"olmo2", build_olmo2},
        {"seed_oss", build_seed_oss},
        {"exaone4", build_exaone4},
        {"glm4", build_glm4},
        {"glm4moe", build_glm4moe, kNeedsExperts},
        {"minimax-m2", build_minimax_m2, kNeedsExperts},
        {"minimax-m3", build_minimax_m3, kNeedsExperts},
        {"deepseek4", build_deepseek4, kNeedsExperts},
        {"hy_v4", build_hy_v4, kNeedsExperts},
        {"hunyuan-moe", build_hunyuan_moe, kNeedsExperts},
        {"phimoe", build_phimoe, kNeedsExperts},
        {"command-r", build_command_r},
        {"cohere2", build_command_r},
        {"phi3", build_phi3},
        {"granitehybrid", build_granite_hybrid, kMamba},
        {"nemotron_h", build_nemotron_h, kMamba},
        {"nemotron_h_moe", build_nemotron_h, kMamba},
        {"kimi-linear", build_kimi_linear, kRecurrent},
        {"kimi-k3", build_kimi_k3, kRecurrent},
        {"qwen4exp", build_qwen4exp},
        {"lfm2", build_lfm2, kRecurrent},
        {"lfm2moe", build_lfm2, kRecurrent},
        {"jamba", build_jamba, kRecurrent},
        {"falcon-h1", build_falcon_h1},
        {"ernie4_5-moe", build_ernie45_moe, kNeedsExperts},
        {"llama4", build_llama4, kNeedsExperts},
        {"mimo2", build_mimo2, kNeedsExperts},
        {"step35", build_step35, kNeedsExperts},
        {"gemma3n", build_gemma3n},
        {"gemma4", build_gemma4},
        {"spark2_5", build_spark2_5},
    };
    for (const auto& e : kBuilders) {
        if (arch == e.arch) return &e;
    }
    return nullptr;
}

bool has_trait(const ArchEntry* e, unsigned trait) {
    return e != nullptr && (e->traits & trait);
}

}  // namespace

bool layout::has_layout_builder(const std::string& arch) {
    return arch_entry(arch) != nullptr;
}

TensorName::TensorName(std::string_view s) : size_(static_cast<std::uint8_t>(s.size())) {
    if (s.size() > kMaxSize) {
        throw std::length_error("a tensor name of " + std::to_string(s.size()) +
                                " bytes, past ggml's " + std::to_string(kMaxSize) + ": " +
                                std::string(s));
    }
    std::copy(s.begin(), s.end(), chars_.begin());
}

std::ostream& operator<<(std::ostream& out, const TensorName& name) {
    return out << name.view();
}

std::uint64_t TensorInfo::elements() const {
    return checked::mul(checked::mul(ne[0], ne[1]), checked::mul(ne[2], ne[3]));
}

std::uint64_t TensorLayout::elements() const {
    std::uint64_t n = 0;
    for (const auto& t : tensors) n = checked::add(n, t.elements());
    return n;
}

Result<TensorLayout> tensor_layout(const Model& m) {
    CANITRUN_TRY_ASSIGN(auto arch, llama_arch(m));
    const ArchEntry* entry = arch_entry(arch);
    if (has_trait(entry, kNeedsExperts) &&
        (!m.is_moe() || m.arch.moe->moe_layers > m.arch.layers)) {
        return fail(ErrorKind::bad_input, "a " + arch + " model without its experts",
                    "the file's expert_count or expert layers are missing; is the file whole?");
    }
    return catch_overflow(
        [&]() -> Result<TensorLayout> {
            Builder b;
            b.layout.arch = arch;
            b.layout.family = m.family;
            b.layout.model_id = m.id;
            // A few dozen tensors a layer: one allocation for the list instead of a dozen
            // regrowths, each moving every name so far.
            b.layout.tensors.reserve(std::min<std::uint64_t>(m.arch.layers, 1024) * 32 + 16);
            const std::string& a = arch;
            if (has_trait(entry, kSsmGroups)) {
                const LayerGroup& ssm = group_or_empty(m, LayerKind::ssm);
                if (ssm.count > 0 && ssm.groups == 0) {
                    return fail(ErrorKind::bad_input,
                                m.id + " has Mamba layers with 0 groups (ssm.group_count)");
                }
            }
            if (entry != nullptr) entry->build(b, m);
            b.layout.n_layer = m.arch.layers;
            b.layout.n_expert = m.is_moe() ? m.arch.moe->experts : 0;
            const auto& att = m.arch.attention;
            b.layout.n_gqa = att.kv_heads ? att.heads / att.kv_heads : 1;
            if (has_trait(entry, kRecurrent) && layer_kinds(m).front() != LayerKind::full)
                b.layout.n_gqa = 0;
            b.layout.is_70b =
                (a == "llama" || a == "qwen2") && m.arch.layers == 80 && att.heads != att.kv_heads;
            b.layout.quantized_before_b8275 =
                m.run.gguf_quantized_before != 0 && m.run.gguf_quantized_before <= kB8275;
            b.layout.imatrix = m.run.gguf_imatrix;
            b.layout.plain_recipes = m.run.gguf_plain_recipes;
            return std::move(b.layout);
        },
        [&] {
            return fail(ErrorKind::overflow, "the tensor shapes of " + m.id + " overflow 64 bits");
        });
}

}  // namespace canitrun
