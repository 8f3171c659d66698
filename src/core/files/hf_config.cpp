#include "canitrun/hf_config.hpp"

#include "canitrun/llamacpp_rules.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "canitrun/bounded_file.hpp"
#include "canitrun/checked.hpp"
#include "canitrun/json_bounds.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/limits.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/parse.hpp"
#include "hf_sparse_attention.hpp"

namespace canitrun {
namespace {

using nlohmann::json;

// A count or a size that is a number but not a whole one in range (47.5 layers, -4 heads, a
// vocabulary of 2^64): thrown from deep in the readers, caught once in parse_hf_config and
// turned into its error, as checked.hpp's OverflowError is.
struct BadHfNumber {
    std::string message;
};

// The first of `keys` that holds a number, which must be a non-negative whole number (a float
// such as 4096.0 counts when it is exact and below 2^53).
std::optional<std::uint64_t> get_uint(const json& c, std::initializer_list<const char*> keys) {
    for (const char* k : keys) {
        const auto it = c.find(k);
        if (it == c.end() || !it->is_number()) continue;
        if (it->is_number_unsigned()) return it->get<std::uint64_t>();
        if (it->is_number_integer()) {
            throw BadHfNumber{std::string(k) + " " + it->dump() + " is negative"};
        }
        const double v = it->get<double>();
        if (v < 0 || v > 9007199254740992.0 || std::isnan(v) ||
            v != static_cast<double>(static_cast<std::uint64_t>(v))) {
            throw BadHfNumber{std::string(k) + " " + it->dump() +
                              " is not a whole number in range"};
        }
        return static_cast<std::uint64_t>(v);
    }
    return std::nullopt;
}

std::uint64_t uint_or(const json& c, std::initializer_list<const char*> keys, std::uint64_t d) {
    return get_uint(c, keys).value_or(d);
}

std::string string_or(const json& c, const char* key, const std::string& d) {
    const auto it = c.find(key);
    return it != c.end() && it->is_string() ? it->get<std::string>() : d;
}

bool bool_or(const json& c, const char* key, bool d) {
    const auto it = c.find(key);
    return it != c.end() && it->is_boolean() ? it->get<bool>() : d;
}

// A ratio in (0, 16], else the default: a config's absurd or missing factor changes nothing.
double ratio_or(const json& c, const char* key, double d) {
    const auto it = c.find(key);
    if (it == c.end() || !it->is_number()) return d;
    const double v = it->get<double>();
    return v > 0 && v <= 16 ? v : d;
}

// Sliding-window period (last layer of each period is global) for model types whose config
// states sliding_window without a per-layer list; llama.cpp's converter writes the same.
// llama.cpp's name for a config's model_type, where the two differ, for llama.cpp's rules.
std::string hf_llama_arch(const std::string& model_type) {
    if (model_type == "gemma3_text") return "gemma3";
    if (model_type == "gpt_oss") return "gpt-oss";
    return model_type;
}

bool is_llama4(const std::string& model_type) {
    return model_type.rfind("llama4", 0) == 0;
}

// How many of layers 0 .. n-1 satisfy i % period == offset.
std::uint64_t every_nth(std::uint64_t n, std::uint64_t period, std::uint64_t offset) {
    if (offset >= n || offset >= period) return 0;
    return (n - offset + period - 1) / period;
}

// `mla`: the config has an MLA latent (kv_lora_rank), whose DeepSeek Sparse Attention layers
// are MLA layers: "deepseek_sparse_attention" or "sparse_attention" (vLLM's HYV4Config), or
// "indexed_attention" (transformers' HYV4Config at 0e666bff).
LayerKind kind_from_layer_type(const std::string& t, bool mla) {
    if (mla &&
        (t == "deepseek_sparse_attention" || t == "sparse_attention" || t == "indexed_attention")) {
        return LayerKind::mla;
    }
    if (t.find("sliding") != std::string::npos || t == "chunked_attention")
        return LayerKind::sliding;
    if (t.find("linear") != std::string::npos) return LayerKind::linear;
    if (t == "conv") return LayerKind::conv;  // LFM2's gated short convolution
    if (t.find("mamba") != std::string::npos || t == "ssm") return LayerKind::ssm;
    return LayerKind::full;
}

// The first number in `fields` past its bound, named, so an absurd config is refused before any
// loop runs over its layers or any product of its sizes is taken.
struct Bounded {
    const char* field;
    std::uint64_t value;
    std::uint64_t limit;
};
Result<void> check_hf_bounds(const std::string& name, std::initializer_list<Bounded> fields) {
    for (const auto& f : fields) {
        if (f.value > f.limit) {
            return fail(ErrorKind::bad_input,
                        name + ": config.json's " + f.field + " " + std::to_string(f.value) +
                            " is past " + std::to_string(f.limit),
                        "no real model is that large; check the file");
        }
    }
    return {};
}

// Identity and the model-wide sizes; refuses a config with no layers or an absurd layer count
// before anything loops over its layers. Returns the block count.
Result<std::uint64_t> read_hf_dimensions(const json& root, const json& c, const std::string& name,
                                         const std::string& model_type, Model& m) {
    m.id = name;
    m.name = name;
    m.family = model_type;
    m.source = "config.json";
    Architecture& a = m.arch;
    a.hidden_size = uint_or(c, {"hidden_size", "n_embd", "d_model"}, 0);
    const std::uint64_t blocks = uint_or(c, {"num_hidden_layers", "n_layer", "num_layers"}, 0);
    if (a.hidden_size == 0 || blocks == 0) {
        return fail(ErrorKind::bad_input,
                    name + ": config.json has no hidden_size / num_hidden_layers",
                    "canitrun reads the config.json of decoder-only language models");
    }
    CANITRUN_TRY(check_hf_bounds(name, {{"num_hidden_layers", blocks, kMaxLayers},
                                        {"hidden_size", a.hidden_size, kMaxDim}}));
    a.vocab_size = get_uint(c, {"vocab_size"}).value_or(uint_or(root, {"vocab_size"}, 0));
    a.tied_embeddings =
        bool_or(c, "tie_word_embeddings",
                bool_or(root, "tie_word_embeddings",
                        // LFM2 ties unless told (transformers' Lfm2Config default)
                        bool_or(c, "tie_embedding", model_type.rfind("lfm2", 0) == 0)));
    a.attention.heads = uint_or(c, {"num_attention_heads", "n_head"}, 0);
    a.attention.kv_heads = uint_or(c, {"num_key_value_heads", "num_kv_heads"}, a.attention.heads);
    const auto head_dim = get_uint(c, {"head_dim"});
    a.attention.head_dim_explicit = head_dim.has_value();
    a.attention.head_dim =
        head_dim.value_or(a.attention.heads ? a.hidden_size / a.attention.heads : 0);
    // Hy4's gated_mla, a sigmoid gate on the MLA output: vLLM's HYV4Config reads it, and
    // transformers' (0e666bff) gates without a key
    a.attention.output_gate =
        bool_or(c, "attn_output_gate",
                bool_or(c, "gated_mla",
                        model_type.rfind("qwen3_next", 0) == 0 ||
                            model_type.rfind("qwen3_5", 0) == 0 || model_type == "hy_v4"));
    // GLM-4.5's use_qk_norm (transformers' Glm4MoeConfig: false unless stated); true elsewhere,
    // where no layout reads it
    a.attention.qk_norm = bool_or(c, "use_qk_norm", model_type != "glm4_moe");
    // A llama3 rope scaling is what makes the converter write rope_freqs (conversion/llama.py,
    // exaone.py); transformers spells its kind rope_type, older configs type.
    const auto scaling = c.find("rope_scaling");
    if (scaling != c.end() && scaling->is_object() &&
        string_or(*scaling, "rope_type", string_or(*scaling, "type", "")) == "llama3") {
        a.attention.rope_scaling = "llama3";
    }
    a.intermediate_size = uint_or(c, {"intermediate_size", "ffn_hidden_size", "block_ff_dim"}, 0);
    if (bool_or(c, "block_auto_adjust_ff_dim", false) && a.intermediate_size <= kMaxDim) {
        // LFM2 (transformers' Lfm2MLP, llama.cpp's conversion/lfm2.py): two thirds of the
        // width, times the multiplier, rounded up to a multiple of block_multiple_of
        const std::uint64_t multiple =
            std::max<std::uint64_t>(1, uint_or(c, {"block_multiple_of"}, 256));
        const double factor = ratio_or(c, "block_ffn_dim_multiplier", 1.0);
        const std::uint64_t two_thirds = checked::mul(2, a.intermediate_size) / 3;  // int()
        const auto scaled = static_cast<std::uint64_t>(factor * static_cast<double>(two_thirds));
        a.intermediate_size = checked::mul(checked::add(scaled, multiple - 1) / multiple, multiple);
    }
    m.context_native = uint_or(c, {"max_position_embeddings", "n_positions"}, 0);
    return blocks;
}

// Llama 4 (iRoPE): RoPE layers attend within chunks of attention_chunk_size, which caps their
// cache like a sliding window; NoPE layers are global. no_rope_layers lists 1 for a RoPE layer;
// when it is empty every no_rope_layer_interval-th layer is NoPE (transformers'
// Llama4TextConfig).
std::vector<LayerKind> hf_llama4_layer_kinds(const json& c, std::uint64_t blocks) {
    std::vector<LayerKind> kinds;
    const auto listed = c.find("no_rope_layers");
    const bool use_list = listed != c.end() && listed->is_array() && listed->size() == blocks;
    const std::uint64_t nope_every =
        std::max<std::uint64_t>(1, uint_or(c, {"no_rope_layer_interval"}, 4));
    for (std::uint64_t il = 0; il < blocks; ++il) {
        const bool rope = use_list ? (*listed)[il] != 0 : (il + 1) % nope_every != 0;
        kinds.push_back(rope ? LayerKind::sliding : LayerKind::full);
    }
    return kinds;
}

// Sliding window every layer but the last of each period, when the config has a window.
std::vector<LayerKind> hf_sliding_layer_kinds(const json& c, const std::string& model_type,
                                              std::uint64_t blocks) {
    std::vector<LayerKind> kinds;
    const std::uint64_t window = uint_or(c, {"sliding_window"}, 0);
    const std::uint64_t period =
        uint_or(c, {"sliding_window_pattern"}, llama_default_swa_period(hf_llama_arch(model_type)));
    const bool use = window > 0 && period > 0 && bool_or(c, "use_sliding_window", true);
    for (std::uint64_t il = 0; il < blocks; ++il) {
        kinds.push_back(use && il % period < period - 1 ? LayerKind::sliding : LayerKind::full);
    }
    return kinds;
}

// Each layer's kind, from the first of the configs' ways of saying it: a per-layer list, a
// hybrid pattern string, Jamba's attention period, Llama 4's chunks, an attention interval,
// MLA, or a sliding window.
Result<std::vector<LayerKind>> read_hf_layer_kinds(const json& c, const std::string& name,
                                                   const std::string& model_type,
                                                   std::uint64_t blocks) {
    std::vector<LayerKind> kinds;
    const auto types = c.find("layer_types");
    const auto hybrid = c.find("hybrid_override_pattern");
    const std::uint64_t interval = uint_or(c, {"full_attention_interval"}, 0);
    const auto kv_lora = get_uint(c, {"kv_lora_rank"});
    const std::uint64_t listed_layers = types != c.end() && types->is_array() ? types->size()
                                        : hybrid != c.end() && hybrid->is_string()
                                            ? hybrid->get_ref<const std::string&>().size()
                                            : 0;
    CANITRUN_TRY(check_hf_bounds(name, {{"layer list", listed_layers, kMaxLayers}}));
    if (types != c.end() && types->is_array() && !types->empty()) {
        for (const auto& t : *types)
            kinds.push_back(kind_from_layer_type(t.is_string() ? t.get<std::string>() : "",
                                                 kv_lora.value_or(0) > 0));
    } else if (const auto r = c.find("compress_ratios"); r != c.end() && r->is_array()) {
        // DeepSeek V4: every layer its compressed attention (split by ratio later)
        kinds.assign(blocks, LayerKind::compressed);
    } else if (hybrid != c.end() && hybrid->is_string()) {
        // Nemotron-H: 'M' Mamba-2, '*' attention, '-' MLP and 'E' MoE blocks, each a layer of
        // llama.cpp's (nemotron-h.cpp); the FFN-only blocks cache nothing.
        for (char ch : hybrid->get<std::string>()) {
            if (ch == 'M') kinds.push_back(LayerKind::ssm);
            if (ch == '*') kinds.push_back(LayerKind::full);
            if (ch == '-' || ch == 'E') kinds.push_back(LayerKind::ffn);
        }
    } else if (const auto idxs = c.find("full_attn_idxs"); idxs != c.end() && idxs->is_array()) {
        // LFM2's first configs: the attention layers listed, the others short convolutions
        kinds.assign(blocks, LayerKind::conv);
        for (const auto& i : *idxs) {
            if (i.is_number_unsigned() && i.get<std::uint64_t>() < blocks)
                kinds[i.get<std::size_t>()] = LayerKind::full;
        }
    } else if (const std::uint64_t attn_period = uint_or(c, {"attn_layer_period"}, 0);
               attn_period > 0) {
        // Jamba: layer i is attention when i % attn_layer_period == attn_layer_offset, else a
        // Mamba layer (transformers' JambaConfig.layers_block_type).
        const std::uint64_t offset = uint_or(c, {"attn_layer_offset"}, 0);
        for (std::uint64_t il = 0; il < blocks; ++il) {
            kinds.push_back(il % attn_period == offset ? LayerKind::full : LayerKind::ssm);
        }
    } else if (is_llama4(model_type) && uint_or(c, {"attention_chunk_size"}, 0) > 0) {
        kinds = hf_llama4_layer_kinds(c, blocks);
    } else if (interval > 0) {
        for (std::uint64_t il = 0; il < blocks; ++il) {
            kinds.push_back((il + 1) % interval == 0 ? LayerKind::full : LayerKind::linear);
        }
    } else if (kv_lora && *kv_lora > 0) {
        kinds.assign(blocks, LayerKind::mla);
    } else {
        kinds = hf_sliding_layer_kinds(c, model_type, blocks);
    }
    return kinds;
}

// What one layer of each kind keeps, from the config's keys for that kind.
struct HfLayerShapes {
    LayerGroup linear, ssm, conv, mla, sliding;
};

HfLayerShapes read_hf_layer_shapes(const json& c, std::uint64_t hidden_size) {
    HfLayerShapes s;
    s.linear.kind = LayerKind::linear;
    s.linear.conv_kernel = uint_or(c, {"linear_conv_kernel_dim"}, 4);
    s.linear.key_heads = uint_or(c, {"linear_num_key_heads"}, 0);
    s.linear.value_heads = uint_or(c, {"linear_num_value_heads"}, 0);
    s.linear.key_head_dim = uint_or(c, {"linear_key_head_dim"}, 0);
    s.linear.value_head_dim = uint_or(c, {"linear_value_head_dim"}, 0);

    LayerGroup& ssm = s.ssm;
    ssm.kind = LayerKind::ssm;
    ssm.conv_kernel = uint_or(c, {"conv_kernel", "mamba_d_conv", "mamba_conv_kernel", "d_conv"}, 4);
    ssm.state_size = uint_or(c, {"ssm_state_size", "mamba_d_state", "state_size", "d_state"}, 0);
    ssm.groups = uint_or(c, {"n_groups", "mamba_n_groups"}, 0);
    ssm.ssm_heads = uint_or(c, {"mamba_num_heads", "mamba_n_heads"}, 0);
    const std::uint64_t mamba_head_dim = uint_or(c, {"mamba_head_dim", "mamba_d_head"}, 0);
    const std::uint64_t expand = uint_or(c, {"mamba_expand", "expand"}, 2);
    ssm.inner_size =
        ssm.ssm_heads && mamba_head_dim
            ? checked::mul(ssm.ssm_heads, mamba_head_dim)
            : uint_or(c, {"intermediate_size_mamba", "d_inner"}, checked::mul(expand, hidden_size));

    // LFM2: a depthwise convolution of conv_L_cache taps over every hidden dimension
    s.conv.kind = LayerKind::conv;
    s.conv.conv_kernel = uint_or(c, {"conv_L_cache"}, 3);
    s.conv.inner_size = hidden_size;

    s.mla.kind = LayerKind::mla;
    s.mla.kv_lora_rank = uint_or(c, {"kv_lora_rank"}, 0);
    s.mla.q_lora_rank = uint_or(c, {"q_lora_rank"}, 0);
    s.mla.qk_nope_head_dim = uint_or(c, {"qk_nope_head_dim"}, 0);
    s.mla.qk_rope_head_dim = uint_or(c, {"qk_rope_head_dim"}, 0);
    s.mla.v_head_dim = uint_or(c, {"v_head_dim"}, 0);
    // DeepSeek V3.2's lightning indexer (DeepSeek Sparse Attention): one cached key per token
    s.mla.index_head_dim = uint_or(c, {"index_head_dim"}, 0);
    s.mla.index_heads = uint_or(c, {"index_n_heads"}, 0);
    s.mla.index_top_k = uint_or(c, {"index_topk"}, 0);

    s.sliding.kind = LayerKind::sliding;
    s.sliding.window = uint_or(c, {"sliding_window", "attention_chunk_size"}, 0);
    return s;
}

// One group per kind present, in a fixed order: linear, ssm, conv, mla, sliding, full, ffn,
// compressed.
std::vector<LayerGroup> group_hf_layers(const std::vector<LayerKind>& kinds,
                                        const HfLayerShapes& shapes) {
    std::vector<LayerGroup> groups;
    for (LayerKind kind :
         {LayerKind::linear, LayerKind::ssm, LayerKind::conv, LayerKind::mla, LayerKind::sliding,
          LayerKind::full, LayerKind::ffn, LayerKind::compressed}) {
        const auto n = static_cast<std::uint64_t>(std::count(kinds.begin(), kinds.end(), kind));
        if (n == 0) continue;
        LayerGroup g;
        g.kind = kind;
        if (kind == LayerKind::linear) g = shapes.linear;
        if (kind == LayerKind::ssm) g = shapes.ssm;
        if (kind == LayerKind::conv) g = shapes.conv;
        if (kind == LayerKind::mla) g = shapes.mla;
        if (kind == LayerKind::sliding) g = shapes.sliding;
        g.count = n;
        groups.push_back(g);
    }
    return groups;
}

// The experts, when the config has any; Llama 4 also narrows the dense layers' FFN, so this
// may change a.intermediate_size.
void read_hf_moe(const json& c, const std::string& model_type, Architecture& a) {
    const std::uint64_t experts =
        uint_or(c, {"num_experts", "num_local_experts", "n_routed_experts"}, 0);
    if (experts == 0) return;
    MoE moe;
    moe.experts = experts;
    moe.experts_per_token = uint_or(c, {"num_experts_per_tok", "num_experts_per_token"}, 0);
    moe.shared_experts = uint_or(c, {"n_shared_experts", "num_shared_experts"}, 0);
    moe.expert_intermediate_size = uint_or(c, {"moe_intermediate_size"}, a.intermediate_size);
    moe.shared_expert_intermediate_size =
        uint_or(c, {"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"},
                checked::mul(moe.shared_experts, moe.expert_intermediate_size));
    moe.gated = a.gated_ffn;
    // The FFN-only blocks are the MoE layers where a model has them (Nemotron 3's 'E').
    const std::uint64_t ffn_layers = ffn_layer_count(a);
    const std::uint64_t dense =
        std::min(uint_or(c, {"first_k_dense_replace", "num_dense_layers"}, 0), ffn_layers);
    moe.moe_layers = ffn_layers - dense;
    if (const auto t = c.find("mlp_layer_types"); t != c.end() && t->is_array()) {
        // Hy4: "dense" or "sparse" (MoE) per layer, the dense ones leading
        moe.moe_layers = std::min<std::uint64_t>(
            static_cast<std::uint64_t>(std::count(t->begin(), t->end(), "sparse")), ffn_layers);
    }
    if (const auto f = c.find("moe_layer_freq"); f != c.end() && f->is_array()) {
        // MiniMax-M3: 0 for a dense layer, 1 for an MoE one; the dense ones are
        // dense_intermediate_size wide (llama.cpp's leading_dense_block_count)
        std::uint64_t moe_layers = 0;
        for (const auto& v : *f) moe_layers += v.is_number() && v.get<double>() != 0 ? 1U : 0U;
        moe.moe_layers = std::min(moe_layers, ffn_layers);
        a.intermediate_size = uint_or(c, {"dense_intermediate_size"}, a.intermediate_size);
        moe.shared_expert_intermediate_size =
            uint_or(c, {"shared_intermediate_size"}, moe.shared_expert_intermediate_size);
    }
    if (const std::uint64_t period = uint_or(c, {"expert_layer_period"}, 0); period > 0) {
        // Jamba: MoE where i % expert_layer_period == expert_layer_offset.
        moe.moe_layers = every_nth(a.layers, period, uint_or(c, {"expert_layer_offset"}, 0));
    }
    if (is_llama4(model_type)) {
        // Llama 4: each MoE layer has one shared expert besides the routed ones, both
        // intermediate_size wide; dense layers are intermediate_size_mlp wide; MoE every
        // interleave_moe_layer_step-th layer, starting at step - 1.
        const std::uint64_t step =
            std::max<std::uint64_t>(1, uint_or(c, {"interleave_moe_layer_step"}, 1));
        moe.shared_experts = 1;
        moe.expert_intermediate_size = a.intermediate_size;
        moe.shared_expert_intermediate_size = a.intermediate_size;
        moe.moe_layers = every_nth(a.layers, step, step - 1);
        a.intermediate_size = uint_or(c, {"intermediate_size_mlp"}, a.intermediate_size);
    }
    a.moe = moe;
}

// The sizes the estimate multiplies, each against its bound.
Result<void> check_hf_sizes(const std::string& name, const Model& m, std::uint64_t window) {
    const Architecture& a = m.arch;
    const MoE no_moe;
    const MoE& moe = a.moe ? *a.moe : no_moe;
    CANITRUN_TRY(check_hf_bounds(
        name, {{"vocab_size", a.vocab_size, kMaxVocab},
               {"num_attention_heads", a.attention.heads, kMaxDim},
               {"num_key_value_heads", a.attention.kv_heads, kMaxDim},
               {"head_dim", a.attention.head_dim, kMaxDim},
               {"v_head_dim", a.attention.v_head_dim, kMaxDim},
               {"intermediate_size", a.intermediate_size, kMaxDim},
               {"max_position_embeddings", m.context_native, kMaxContext},
               {"hc_mult", a.hyper_connections, kMaxHyperConnections},
               {"sliding_window", window, kMaxContext},
               {"num_experts", moe.experts, kMaxExperts},
               {"num_experts_per_tok", moe.experts_per_token, kMaxExperts},
               {"n_shared_experts", moe.shared_experts, kMaxExperts},
               {"moe_intermediate_size", moe.expert_intermediate_size, kMaxDim},
               {"shared_expert_intermediate_size", moe.shared_expert_intermediate_size, kMaxDim}}));
    // Only the groups the model has: a dense model's unused SSM defaults are not its sizes.
    for (const auto& g : a.layer_groups) {
        const std::uint64_t widest =
            std::max({g.key_heads, g.value_heads, g.key_head_dim, g.value_head_dim, g.conv_kernel,
                      g.inner_size, g.state_size, g.groups, g.ssm_heads, g.kv_lora_rank,
                      g.q_lora_rank, g.qk_nope_head_dim, g.qk_rope_head_dim, g.v_head_dim});
        CANITRUN_TRY(check_hf_bounds(name, {{"layer size", widest, kMaxDim}}));
    }
    // Nothing is computed from a model without a vocabulary, or with attention layers and no
    // heads to attend with.
    bool attention = false;
    for (const auto& g : a.layer_groups) {
        attention = attention || g.kind == LayerKind::full || g.kind == LayerKind::sliding;
    }
    if (a.vocab_size == 0 || (attention && a.attention.heads == 0)) {
        return fail(ErrorKind::bad_input,
                    name + ": config.json's " +
                        (a.vocab_size == 0 ? "vocab_size" : "num_attention_heads") +
                        " is missing or 0",
                    "a model has a vocabulary and, with attention layers, heads; check the file");
    }
    return {};
}

Result<Model> build_model(const json& root, const std::string& name) {
    const auto tc = root.find("text_config");
    const json& c = (tc != root.end() && tc->is_object()) ? *tc : root;
    const std::string model_type = string_or(c, "model_type", string_or(root, "model_type", ""));

    Model m;
    Architecture& a = m.arch;
    CANITRUN_TRY_ASSIGN(const std::uint64_t blocks,
                        read_hf_dimensions(root, c, name, model_type, m));
    CANITRUN_TRY_ASSIGN(const std::vector<LayerKind> kinds,
                        read_hf_layer_kinds(c, name, model_type, blocks));
    a.layers = kinds.size();

    const HfLayerShapes shapes = read_hf_layer_shapes(c, a.hidden_size);
    if (shapes.mla.kv_lora_rank > 0) {
        a.attention.head_dim = shapes.mla.qk_nope_head_dim + shapes.mla.qk_rope_head_dim;
        a.attention.v_head_dim = shapes.mla.v_head_dim;
    }
    a.layer_groups = group_hf_layers(kinds, shapes);
    std::vector<std::size_t> order;
    for (const LayerKind k : kinds) {
        std::size_t g = 0;
        while (g + 1 < a.layer_groups.size() && a.layer_groups[g].kind != k) ++g;
        order.push_back(g);
    }
    order = split_indexer_groups(c, a, std::move(order));
    order = split_compressed_groups(c, a, std::move(order));
    a.pattern = layer_groups_text(a.layer_groups) + " (from config.json)";
    // The order as the config gives it, where the groups' counts alone would place it elsewhere.
    if (layer_group_order(m) != order) a.layer_order = layer_order_text(a, order);
    // Squared-ReLU MLPs (Nemotron-H's relu2) have two matrices, not three.
    a.gated_ffn = string_or(c, "mlp_hidden_act", string_or(c, "hidden_act", "")) != "relu2";
    // Gemma 3n / Gemma 4: the last num_kv_shared_layers layers reuse an earlier layer's cache.
    const std::uint64_t shared = uint_or(c, {"num_kv_shared_layers"}, 0);
    a.shared_kv_layers = shared < a.layers ? shared : 0;
    // DeepSeek V4's and Hy4's hyper-connections: hc_mult residual streams
    a.hyper_connections = uint_or(c, {"hc_mult"}, 0);
    read_hf_moe(c, model_type, a);

    CANITRUN_TRY(check_hf_sizes(name, m, shapes.sliding.window));
    const ParamCount p = count_params(m);
    m.params_total = p.total;
    m.params_active = p.active;
    return m;
}

}  // namespace

Result<Model> parse_hf_config(const std::string& config_json, const std::string& name) {
    CANITRUN_TRY(check_json_bounds(config_json, name + ": config.json",
                                   JsonBounds{.max_bytes = kMaxConfigFileBytes}));
    const json root = json::parse(config_json, nullptr, false);
    if (root.is_discarded() || !root.is_object()) {
        return fail(ErrorKind::bad_input, name + ": config.json is not valid JSON");
    }
    try {
        return catch_overflow([&]() -> Result<Model> { return build_model(root, name); },
                              [&] {
                                  return fail(ErrorKind::bad_input,
                                              name + ": config.json's sizes overflow 64 bits",
                                              "no real model is that large; check the file");
                              });
    } catch (const BadHfNumber& bad) {
        return fail(ErrorKind::bad_input, name + ": config.json's " + bad.message,
                    "counts and sizes are whole numbers; check the file");
    }
}

std::optional<std::uint64_t> params_from_safetensors_index(const std::string& index_json,
                                                           const std::string& torch_dtype) {
    if (!check_json_bounds(index_json, "model.safetensors.index.json",
                           JsonBounds{.max_bytes = kMaxConfigFileBytes})) {
        return std::nullopt;
    }
    const json j = json::parse(index_json, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    const auto meta = j.find("metadata");
    if (meta == j.end() || !meta->is_object()) return std::nullopt;
    const auto total = get_uint(*meta, {"total_size"});
    if (!total) return std::nullopt;
    std::uint64_t bytes_per = 0;
    if (torch_dtype == "bfloat16" || torch_dtype == "float16") bytes_per = 2;
    if (torch_dtype == "float32") bytes_per = 4;
    if (torch_dtype.rfind("float8", 0) == 0) bytes_per = 1;
    if (bytes_per == 0) return std::nullopt;
    return *total / bytes_per;
}

Result<std::uint64_t> safetensors_header_length(const std::string& first8,
                                                std::uint64_t file_size) {
    if (first8.size() < 8)
        return fail(ErrorKind::bad_input, "safetensors file shorter than 8 bytes");
    std::uint64_t n = 0;
    for (int k = 7; k >= 0; --k)
        n = (n << 8) | static_cast<unsigned char>(first8[static_cast<std::size_t>(k)]);
    if (n > kMaxSafetensorsHeader || n > file_size - 8) {
        return fail(ErrorKind::bad_input,
                    "safetensors header length " + std::to_string(n) + " is impossible",
                    "the file is corrupt or truncated");
    }
    return n;
}

Result<std::uint64_t> params_from_safetensors_header(const std::string& header_json) {
    CANITRUN_TRY(check_json_bounds(header_json, "a safetensors header",
                                   JsonBounds{.max_bytes = kMaxSafetensorsHeader}));
    const json j = json::parse(header_json, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        return fail(ErrorKind::bad_input, "safetensors header is not valid JSON");
    }
    return catch_overflow(
        [&]() -> Result<std::uint64_t> {
            std::uint64_t total = 0;
            for (const auto& [key, t] : j.items()) {
                if (key == "__metadata__" || !t.is_object()) continue;
                const auto shape = t.find("shape");
                if (shape == t.end() || !shape->is_array()) continue;
                std::uint64_t n = 1;
                for (const auto& d : *shape) {
                    if (!d.is_number_unsigned())
                        return fail(ErrorKind::bad_input,
                                    "safetensors shape is not a list of sizes");
                    n = checked::mul(n, d.get<std::uint64_t>());
                }
                total = checked::add(total, n);
            }
            return total;
        },
        [] { return fail(ErrorKind::bad_input, "safetensors shapes overflow 64 bits"); });
}

std::string hf_torch_dtype(const std::string& config_json) {
    if (!check_json_bounds(config_json, "config.json",
                           JsonBounds{.max_bytes = kMaxConfigFileBytes})) {
        return "";
    }
    const json root = json::parse(config_json, nullptr, false);
    if (root.is_discarded() || !root.is_object()) return "";
    std::string d = string_or(root, "torch_dtype", string_or(root, "dtype", ""));
    const auto tc = root.find("text_config");
    if (d.empty() && tc != root.end() && tc->is_object()) d = string_or(*tc, "torch_dtype", "");
    return d;
}

}  // namespace canitrun
