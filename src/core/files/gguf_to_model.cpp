#include <algorithm>
#include <map>
#include <optional>

#include "canitrun/ggml_type.hpp"
#include "canitrun/gguf_model.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/strings.hpp"
#include "gguf_arch_keys.hpp"
#include "gguf_outputs.hpp"
#include "gguf_weights.hpp"

namespace canitrun {
namespace {

// What llama.cpp keeps per layer, before grouping equal layers.
struct LayerInfo {
    LayerKind kind = LayerKind::full;
    // heads: an attention layer's query heads where they differ from the model's (step35's
    // head_count array), else 0
    std::uint64_t heads = 0, kv_heads = 0, k_dim = 0, v_dim = 0, window = 0;
    std::uint64_t index_head_dim = 0;  // the layer's own sparse-attention indexer key, if any
    std::uint64_t compress_ratio = 0;  // deepseek4
};

bool operator<(const LayerInfo& a, const LayerInfo& b) {
    return std::tie(a.kind, a.heads, a.kv_heads, a.k_dim, a.v_dim, a.window, a.index_head_dim,
                    a.compress_ratio) < std::tie(b.kind, b.heads, b.kv_heads, b.k_dim, b.v_dim,
                                                 b.window, b.index_head_dim, b.compress_ratio);
}

// Sliding-window period llama.cpp assumes when the file has no sliding_window_pattern key
// (load_arch_hparams of each model in src/models/). Architectures not listed ignore
// sliding_window unless the pattern key is present.
bool is_pure_recurrent(const std::string& arch) {
    return arch == "mamba" || arch == "mamba2";
}

// head_count-like keys: a scalar for every layer or one value per layer.
struct PerLayer {
    const GgufValue* value = nullptr;
    std::uint64_t fallback = 0;
    Result<std::uint64_t> at(std::uint64_t il, const std::string& key) const {
        if (value == nullptr) return fallback;
        if (value->type != GgufType::array) {
            const auto u = value->as_uint();
            if (!u) return fail(ErrorKind::bad_input, key + " is not an integer");
            return *u;
        }
        const auto u = value->uint_at(il);
        if (!u) {
            return fail(ErrorKind::bad_input,
                        key + " has " + std::to_string(value->length) + " entries, fewer than " +
                            "the block count",
                        "the file is corrupt");
        }
        return *u;
    }
};

// llama.cpp's n_layer(): the blocks less the MTP (nextn) layers.
Result<std::uint64_t> read_gguf_layer_count(const GgufArchKeys& keys) {
    const auto blocks = keys.uint("block_count");
    if (!blocks || *blocks == 0 || *blocks > 4096) {
        return fail(ErrorKind::bad_input,
                    "the GGUF file has no usable " + keys.prefix + "block_count",
                    "canitrun reads llama.cpp model files");
    }
    const std::uint64_t nextn = std::min(keys.uint_or("nextn_predict_layers", 0), *blocks);
    return *blocks - nextn;
}

// Per-layer head counts and FFN widths, one entry per layer.
struct GgufHeadCounts {
    std::vector<std::uint64_t> heads, kv_heads, ffn;
    std::uint64_t max_heads = 0, max_kv = 0;
    bool kv_per_layer = false;  // head_count_kv is an array (a 0 in it marks a recurrent layer)
};

// head_count_kv defaults to head_count (llama-model.cpp).
Result<GgufHeadCounts> read_gguf_head_counts(const GgufArchKeys& keys, std::uint64_t n_layer) {
    const PerLayer heads{keys.find("attention.head_count"), 0};
    const PerLayer kv_heads{keys.find("attention.head_count_kv"), 0};
    const PerLayer ff{keys.find("feed_forward_length"), 0};
    GgufHeadCounts out;
    out.heads.resize(n_layer);
    out.kv_heads.resize(n_layer);
    out.ffn.resize(n_layer);
    out.kv_per_layer = kv_heads.value != nullptr && kv_heads.value->type == GgufType::array;
    for (std::uint64_t il = 0; il < n_layer; ++il) {
        CANITRUN_TRY_ASSIGN(out.heads[il], heads.at(il, keys.prefix + "attention.head_count"));
        if (kv_heads.value == nullptr) {
            out.kv_heads[il] = out.heads[il];
        } else {
            CANITRUN_TRY_ASSIGN(out.kv_heads[il],
                                kv_heads.at(il, keys.prefix + "attention.head_count_kv"));
        }
        CANITRUN_TRY_ASSIGN(out.ffn[il], ff.at(il, keys.prefix + "feed_forward_length"));
        out.max_heads = std::max(out.max_heads, out.heads[il]);
        out.max_kv = std::max(out.max_kv, out.kv_heads[il]);
    }
    return out;
}

// The model-wide attention sizes: the largest layer's heads; the FFN width of the widest layer.
void read_gguf_attention(const GgufArchKeys& keys, const GgufHeadCounts& counts,
                         const std::string& arch, Architecture& a) {
    a.attention.heads = counts.max_heads;
    a.attention.kv_heads = counts.max_kv;
    const std::uint64_t default_head = counts.max_heads ? a.hidden_size / counts.max_heads : 0;
    // An MLA file converted for llama.cpp's absorbed attention gives key_length / value_length
    // as the latent's (576 / 512 for DeepSeek V3: kv_lora_rank + rope, kv_lora_rank) and a
    // head's own sizes in key_length_mla / value_length_mla (192 / 128), which are the sizes a
    // database model's attention holds and attn_q_b / attn_v_b / attn_output are made of.
    a.attention.head_dim = keys.uint_or("attention.key_length_mla",
                                        keys.uint_or("attention.key_length", default_head));
    a.attention.v_head_dim = keys.uint_or(
        "attention.value_length_mla", keys.uint_or("attention.value_length", a.attention.head_dim));
    a.attention.head_dim_explicit = keys.uint("attention.key_length").has_value();
    // no key says so: the gated-delta-net hybrids' q gate; Hy4's and Muse Glimmer's attn_gate
    a.attention.output_gate =
        llama_gated_delta_net(arch) || arch == "hy_v4" || arch == "muse-glimmer";

    if (const auto ffl = std::max_element(counts.ffn.begin(), counts.ffn.end());
        ffl != counts.ffn.end()) {
        a.intermediate_size = *ffl;
    }
}

// Sliding window: the window, its key / value dims, and which layers use it.
struct GgufSlidingWindow {
    std::uint64_t window = 0;
    std::uint64_t k_dim = 0, v_dim = 0;
    const GgufValue* pattern = nullptr;  // attention.sliding_window_pattern
    std::uint64_t period = 0;
    bool any = false;

    bool at(std::uint64_t il) const {
        if (!any) return false;
        if (pattern != nullptr && pattern->type == GgufType::array) {
            return pattern->uint_at(il).value_or(0) != 0;
        }
        // llama_hparams::set_swa_pattern: period 0 = every layer, else the last of each period
        // is dense.
        return period == 0 || il % period < period - 1;
    }
};

GgufSlidingWindow read_gguf_sliding_window(const GgufArchKeys& keys, const std::string& arch,
                                           const Attention& attention) {
    GgufSlidingWindow s;
    s.k_dim = keys.uint_or("attention.key_length_swa", attention.head_dim);
    s.v_dim = keys.uint_or("attention.value_length_swa", attention.v_head_dim);
    s.window = keys.uint_or("attention.sliding_window", 0);
    // llama.cpp's defaults when the key is absent: gemma2 4096, llama4 chunks of 8192.
    if (arch == "gemma2" && !keys.uint("attention.sliding_window")) s.window = 4096;
    if (arch == "llama4" && !keys.uint("attention.sliding_window")) s.window = 8192;
    s.pattern = keys.find("attention.sliding_window_pattern");
    s.period = llama_default_swa_period(arch);
    // Whether any layer slides is decided by the default period, before a scalar pattern key
    // replaces it.
    s.any = s.window > 0 && (s.pattern != nullptr || s.period > 0);
    if (s.pattern != nullptr && s.pattern->type != GgufType::array)
        s.period = s.pattern->as_uint().value_or(0);
    return s;
}

// Which layers are recurrent (SSM or linear attention) rather than attention.
struct GgufRecurrentLayers {
    std::string arch;
    const GgufValue* listed = nullptr;  // attention.recurrent_layers
    std::uint64_t interval = 4;         // full_attention_interval

    bool at(std::uint64_t il, const GgufHeadCounts& counts) const {
        if (listed != nullptr && listed->type == GgufType::array) {
            return listed->uint_at(il).value_or(0) != 0;
        }
        if (is_pure_recurrent(arch)) return true;
        if (llama_gated_delta_net(arch)) {
            // A per-layer head_count_kv array marks them with 0; else every interval-th layer
            // is attention (llama_model_qwen35moe::load_arch_hparams).
            if (counts.kv_per_layer) return counts.kv_heads[il] == 0;
            return interval == 0 || (il + 1) % interval != 0;
        }
        if (arch == "jamba" || arch == "granitehybrid" || arch == "lfm2" || arch == "lfm2moe" ||
            arch == "nemotron_h" || arch == "nemotron_h_moe" || arch == "kimi-linear" ||
            arch == "kimi-k3") {
            return counts.kv_heads[il] == 0;
        }
        return false;
    }
};

// The state a recurrent layer keeps: SSM / linear-attention dims.
LayerGroup read_gguf_recurrent_group(const GgufArchKeys& keys, const std::string& arch) {
    const std::uint64_t conv = keys.uint_or("ssm.conv_kernel", 0);
    const std::uint64_t inner = keys.uint_or("ssm.inner_size", 0);
    const std::uint64_t state = keys.uint_or("ssm.state_size", 0);
    const std::uint64_t groups = keys.uint_or("ssm.group_count", 0);
    const std::uint64_t dt_rank = keys.uint_or("ssm.time_step_rank", 0);
    // llama.cpp keeps (d_conv - 1) conv columns, none when d_conv is 0: a kernel of 1 says so.
    const std::uint64_t conv_kernel = std::max<std::uint64_t>(conv, 1);
    LayerGroup recurrent;
    if (arch == "kimi-linear" || arch == "kimi-k3") {
        // Kimi Delta Attention (kimi-linear.cpp, kimi-k3.cpp): head_count heads of kda.head_dim
        // for q, k and v alike; n_embd_r / n_embd_s have the Gated DeltaNet state's shape.
        const std::uint64_t head = keys.uint_or("kda.head_dim", 0);
        const std::uint64_t heads = keys.uint_or("attention.head_count", 0);
        recurrent.kind = LayerKind::linear;
        recurrent.conv_kernel = conv_kernel;
        recurrent.key_heads = recurrent.value_heads = heads;
        recurrent.key_head_dim = recurrent.value_head_dim = head;
    } else if (arch == "lfm2" || arch == "lfm2moe") {
        // LFM2's short convolution (lfm2.cpp): shortconv.l_cache taps over every dimension
        recurrent.kind = LayerKind::conv;
        recurrent.conv_kernel = std::max<std::uint64_t>(keys.uint_or("shortconv.l_cache", 0), 1);
        recurrent.inner_size = keys.uint_or("embedding_length", 0);
    } else if (llama_gated_delta_net(arch)) {
        // Gated DeltaNet (convert_hf_to_gguf.py, Qwen3NextModel): state_size = key head dim,
        // group_count = key heads, time_step_rank = value heads, inner_size = value dim.
        recurrent.kind = LayerKind::linear;
        recurrent.conv_kernel = conv_kernel;
        recurrent.key_heads = groups;
        recurrent.key_head_dim = state;
        recurrent.value_heads = dt_rank;
        recurrent.value_head_dim = dt_rank ? inner / dt_rank : 0;
    } else {
        recurrent.kind = LayerKind::ssm;
        recurrent.conv_kernel = conv_kernel;
        recurrent.inner_size = inner;
        recurrent.state_size = state;
        recurrent.groups = groups;
        // time_step_rank: Mamba-2's heads; Mamba-1's (no groups: jamba, mamba) dt rank, which
        // the layer kinds' state and parameter rules do not take as heads
        recurrent.ssm_heads = groups > 0 ? dt_rank : 0;
    }
    return recurrent;
}

// MLA (DeepSeek-V2/V3, Kimi K2, GLM-4.7-Flash...): one latent + the rope key per token.
LayerGroup read_gguf_mla_group(const GgufArchKeys& keys) {
    LayerGroup mla;
    mla.kind = LayerKind::mla;
    mla.kv_lora_rank = keys.uint_or("attention.kv_lora_rank", 0);
    mla.q_lora_rank = keys.uint_or("attention.q_lora_rank", 0);
    mla.qk_rope_head_dim = keys.uint_or("rope.dimension_count", 0);
    const std::uint64_t k_mla = keys.uint_or("attention.key_length_mla", 0);
    mla.qk_nope_head_dim = k_mla > mla.qk_rope_head_dim ? k_mla - mla.qk_rope_head_dim : 0;
    mla.v_head_dim = keys.uint_or("attention.value_length_mla", 0);
    // the sparse-attention indexer (deepseek32 / glm-dsa) is per layer: GgufIndexerLayers
    return mla;
}

// dots3note's sliding MLA layers: their own latent and head sizes (conversion/dots3.py's
// kv_lora_rank_swa, key_length_mla_swa, value_length_mla_swa); an empty group elsewhere.
LayerGroup read_gguf_mla_swa_group(const GgufArchKeys& keys) {
    LayerGroup swa = read_gguf_mla_group(keys);
    swa.kv_lora_rank = keys.uint_or("attention.kv_lora_rank_swa", 0);
    const std::uint64_t k_mla = keys.uint_or("attention.key_length_mla_swa", 0);
    swa.qk_nope_head_dim = k_mla > swa.qk_rope_head_dim ? k_mla - swa.qk_rope_head_dim : 0;
    swa.v_head_dim = keys.uint_or("attention.value_length_mla_swa", 0);
    return swa.kv_lora_rank > 0 ? swa : LayerGroup{};
}

// Which layers keep a sparse-attention indexer of their own (and its key cache):
// - glm-dsa: attention.indexer.types, one flag per layer; without it every layer of GLM-5 /
//   5.1 and GLM-5.2's default pattern (glm-dsa.cpp: the first two layers and the first of
//   every four after them; a file trained for 1M tokens is 5.2's);
// - minimax-m3: the layers after the leading dense ones (llama-model.cpp's filter_idx);
// - deepseek32: every layer.
struct GgufIndexerLayers {
    std::string arch;
    const GgufValue* types = nullptr;
    std::uint64_t dense_lead = 0;
    bool glm52 = false;

    bool at(std::uint64_t il) const {
        if (types != nullptr && types->type == GgufType::array) {
            return types->uint_at(il).value_or(0) != 0;
        }
        if (arch == "minimax-m3") return il >= dense_lead;
        if (glm52) return il < 2 || (il - 2) % 4 == 0;
        return true;
    }
};

// What decides each layer's kind, and what a recurrent or MLA layer keeps.
struct GgufLayerRules {
    GgufSlidingWindow sliding;
    GgufRecurrentLayers recurrent_layers;
    LayerGroup recurrent;
    LayerGroup mla;
    LayerGroup mla_swa;  // dots3note's sliding MLA layers (kv_lora_rank 0 elsewhere)
    GgufIndexerLayers indexer;
    std::uint64_t index_head_dim = 0;
    std::uint64_t index_heads = 0;
    std::uint64_t index_top_k = 0;
    // deepseek4: each layer's compress ratio (attention.compress_ratios) and raw window
    const GgufValue* compress_ratios = nullptr;
    const GgufValue* qsa_ratios = nullptr;  // qwen4exp: its QSA layers' indexer blocks
    std::uint64_t window = 0;
};

GgufLayerRules read_gguf_layer_rules(const GgufArchKeys& keys, const std::string& arch,
                                     const Attention& attention) {
    GgufLayerRules rules;
    rules.sliding = read_gguf_sliding_window(keys, arch, attention);
    rules.recurrent_layers.arch = arch;
    rules.recurrent_layers.listed = keys.find("attention.recurrent_layers");
    rules.recurrent_layers.interval = keys.uint_or("full_attention_interval", 4);
    rules.recurrent = read_gguf_recurrent_group(keys, arch);
    rules.mla = read_gguf_mla_group(keys);
    rules.mla_swa = read_gguf_mla_swa_group(keys);
    rules.index_head_dim = keys.uint_or("attention.indexer.key_length", 0);
    rules.index_heads = keys.uint_or("attention.indexer.head_count", 0);
    rules.index_top_k = keys.uint_or("attention.indexer.top_k", 0);
    rules.indexer.arch = arch;
    rules.indexer.types = keys.find("attention.indexer.types");
    rules.indexer.dense_lead = keys.uint_or("leading_dense_block_count", 0);
    rules.indexer.glm52 = arch == "glm-dsa" && keys.uint_or("context_length", 0) >= 1048576;
    if (arch == "qwen4exp") rules.qsa_ratios = keys.find("attention.compress_ratios");
    if (arch == "deepseek4") {
        rules.compress_ratios = keys.find("attention.compress_ratios");
        rules.window = keys.uint_or("attention.sliding_window", 0);
    }
    return rules;
}

std::vector<LayerInfo> classify_gguf_layers(const std::string& arch, const GgufHeadCounts& counts,
                                            const GgufLayerRules& rules,
                                            const Attention& attention) {
    const std::uint64_t n_layer = counts.heads.size();
    std::vector<LayerInfo> layers(n_layer);
    for (std::uint64_t il = 0; il < n_layer; ++il) {
        LayerInfo& li = layers[il];
        if (rules.recurrent_layers.at(il, counts)) {
            li.kind = rules.recurrent.kind;
            // Nemotron-H: a block with an FFN and no KV heads is the FFN alone (nemotron-h.cpp)
            if ((arch == "nemotron_h" || arch == "nemotron_h_moe") && counts.ffn[il] != 0) {
                li.kind = LayerKind::ffn;
            }
            continue;
        }
        if (rules.compress_ratios != nullptr) {
            // deepseek4: every layer its raw window and, by its ratio, a compressed cache with
            // the indexer's keys at ratio 4 (llama-kv-cache-dsv4.cpp)
            li.kind = LayerKind::compressed;
            li.compress_ratio = rules.compress_ratios->uint_at(il).value_or(0);
            li.index_head_dim = li.compress_ratio == 4 ? rules.index_head_dim : 0;
            li.kv_heads = counts.kv_heads[il];
            li.k_dim = attention.head_dim;
            li.window = rules.window;
            continue;
        }
        const bool own_indexer = rules.index_head_dim > 0 && rules.indexer.at(il);
        if (rules.mla.kv_lora_rank > 0) {
            li.kind = LayerKind::mla;
            li.index_head_dim = own_indexer ? rules.index_head_dim : 0;
            if (rules.mla_swa.kv_lora_rank > 0 && rules.sliding.at(il)) {
                li.window = rules.sliding.window;  // dots3note: its own heads and latent
                if (counts.heads[il] != attention.heads) li.heads = counts.heads[il];
            }
            continue;
        }
        if (arch == "minimax-m3" && own_indexer) li.index_head_dim = rules.index_head_dim;
        if (arch == "qwen4exp" && rules.index_head_dim > 0) {
            // QSA: the indexer on every attention layer, its blocks by attention.compress_ratios
            li.index_head_dim = rules.index_head_dim;
            li.compress_ratio = rules.qsa_ratios ? rules.qsa_ratios->uint_at(il).value_or(0) : 0;
        }
        li.kv_heads = counts.kv_heads[il];
        if (counts.heads[il] != attention.heads) li.heads = counts.heads[il];
        if (rules.sliding.at(il)) {
            li.kind = LayerKind::sliding;
            li.k_dim = rules.sliding.k_dim;
            li.v_dim = rules.sliding.v_dim;
            li.window = rules.sliding.window;
        } else {
            li.kind = LayerKind::full;
            li.k_dim = attention.head_dim;
            li.v_dim = attention.v_head_dim;
        }
    }
    return layers;
}

// Equal layers as one group each, in the order of their first layer. `parallel_ssm`: Falcon-H1
// runs attention and an SSM side by side in every layer.
std::vector<LayerGroup> group_gguf_layers(const std::vector<LayerInfo>& layers,
                                          const GgufLayerRules& rules, bool parallel_ssm) {
    std::map<LayerInfo, std::uint64_t> counts;
    std::vector<LayerInfo> order;
    for (const auto& li : layers) {
        if (counts[li]++ == 0) order.push_back(li);
    }
    std::vector<LayerGroup> groups;
    for (const auto& li : order) {
        LayerGroup g;
        if (is_recurrent(li.kind)) {
            g = rules.recurrent;
        } else if (li.kind == LayerKind::mla) {
            g = li.window > 0 ? rules.mla_swa : rules.mla;
            g.heads = li.heads;
            g.window = li.window;
        } else if (li.kind == LayerKind::ffn) {
            g.kind = li.kind;
        } else {
            g.kind = li.kind;
            g.heads = li.heads;
            g.kv_heads = li.kv_heads;
            g.head_dim = li.k_dim;
            g.v_head_dim = li.v_dim;
            g.window = li.window;
        }
        g.compress_ratio = li.compress_ratio;  // deepseek4's layers, qwen4exp's QSA
        if (li.kind == LayerKind::compressed) g.q_lora_rank = rules.mla.q_lora_rank;
        g.index_head_dim = li.index_head_dim;
        g.index_heads = li.index_head_dim > 0 ? rules.index_heads : 0;
        g.index_top_k = li.index_head_dim > 0 ? rules.index_top_k : 0;
        g.count = counts[li];
        groups.push_back(g);
    }
    if (parallel_ssm) {
        // Falcon-H1: the Mamba-2 mixer's dimensions on the attention group (has_parallel_ssm)
        for (auto& g : groups) {
            if (g.kind != LayerKind::full) continue;
            g.conv_kernel = rules.recurrent.conv_kernel;
            g.inner_size = rules.recurrent.inner_size;
            g.state_size = rules.recurrent.state_size;
            g.groups = rules.recurrent.groups;
            g.ssm_heads = rules.recurrent.ssm_heads;
        }
    }
    return groups;
}

// Each layer's group index, the groups numbered by their first layer (group_gguf_layers').
std::vector<std::size_t> gguf_group_order(const std::vector<LayerInfo>& layers) {
    std::map<LayerInfo, std::size_t> index;
    std::vector<std::size_t> order;
    for (const auto& li : layers) {
        const auto [it, added] = index.emplace(li, index.size());
        order.push_back(it->second);
    }
    return order;
}

// Layers past llama.cpp's n_layer_kv_from_start read an earlier layer's cache: gemma4 reads
// attention.shared_kv_layers (gemma3n's converter writes it as a float, and llama.cpp
// hard-codes 20 cache layers for gemma3n instead).
std::uint64_t read_gguf_shared_kv_layers(const GgufArchKeys& keys, const std::string& arch,
                                         std::uint64_t n_layer) {
    std::uint64_t shared = 0;
    if (const GgufValue* v = keys.find("attention.shared_kv_layers")) {
        if (const auto n = v->as_uint()) {
            shared = *n;
        } else if ((v->type == GgufType::f32 || v->type == GgufType::f64) && v->f >= 0 &&
                   v->f < static_cast<double>(n_layer)) {
            shared = static_cast<std::uint64_t>(v->f);
        }
    }
    if (arch == "gemma3n") shared = n_layer > 20 ? n_layer - 20 : 0;
    return shared < n_layer ? shared : 0;
}

// qwen4exp's PLE n-gram table (qwen4exp.cpp:64-125, 170-190): the hash's keys, and the rows
// from the table's own shape (the converter pads them).
std::optional<NgramEmbedding> read_gguf_ngram_embedding(const GgufFile& f,
                                                        const GgufArchKeys& keys) {
    const GgufValue* layers = keys.find("ple.layers");
    const auto t = std::ranges::find(f.tensors, "per_layer_token_embd.weight", &GgufTensor::name);
    if (layers == nullptr || t == f.tensors.end() || t->dims.size() != 2) return std::nullopt;
    return NgramEmbedding{layers->uint_at(0).value_or(0),
                          keys.uint_or("ple.ngram_size", 0),
                          keys.uint_or("ple.heads_per_ngram", 0),
                          t->dims[0],
                          t->dims[1],
                          keys.uint_or("ple.conv_kernel", 0)};
}

// Gemma 4 E2B's wider FFN in its KV-sharing layers (use_double_wide_mlp): feed_forward_length
// is one width per layer, the sharing ones (the last shared_kv_layers) another. The model keeps
// the others' width and that one (Architecture::shared_kv_intermediate_size), not the widest
// for every layer.
void read_gguf_shared_kv_ffn(const std::vector<std::uint64_t>& ffn, Architecture& a) {
    const std::size_t own = ffn.size() - std::min<std::size_t>(a.shared_kv_layers, ffn.size());
    if (own == 0 || own == ffn.size()) return;
    const auto same = [&](std::size_t from, std::size_t to) {
        return std::all_of(ffn.begin() + static_cast<std::ptrdiff_t>(from),
                           ffn.begin() + static_cast<std::ptrdiff_t>(to),
                           [&](std::uint64_t w) { return w == ffn[from]; });
    };
    if (ffn[own] == ffn[0] || !same(0, own) || !same(own, ffn.size())) return;
    a.intermediate_size = ffn[0];
    a.shared_kv_intermediate_size = ffn[own];
}

// deepseek4's grouped output, hyper-connections and hash-routed layers; 0 where a key is absent
void read_gguf_deepseek4_keys(const GgufArchKeys& keys, Architecture& a) {
    a.output_groups = keys.uint_or("attention.output_group_count", 0);
    a.output_lora_rank = keys.uint_or("attention.output_lora_rank", 0);
    a.hyper_connections = keys.uint_or("hyper_connection.count", 0);
    a.attention_residual_block = keys.uint_or("attn_res.block_size", 0);
    a.hash_layers = keys.uint_or("hash_layer_count", 0);
    a.hyper_connection_rank = keys.uint_or("hyper_connection.low_rank", 0);
}

}  // namespace

Result<GgufModel> gguf_to_model(const std::vector<GgufFile>& parts) {
    if (parts.empty()) return fail(ErrorKind::bad_input, "no GGUF file to read");
    const GgufFile& f = parts.front();
    const auto arch_name = f.get_string("general.architecture");
    if (!arch_name) {
        return fail(ErrorKind::bad_input, "the GGUF file has no general.architecture key",
                    "is it a model file? (a vision projector goes with --mmproj)");
    }
    const std::string& arch = *arch_name;
    const GgufArchKeys keys{f, arch + "."};

    GgufModel out;
    // What the file names itself is printed: never with the terminal escapes it may hold.
    out.architecture = printable_text(arch);
    out.parts = parts.size();
    out.version = f.version;
    if (const auto ftype = f.get_uint("general.file_type")) {
        out.file_type = file_type_of_llama_ftype(*ftype);
    }
    Model& m = out.model;
    Architecture& a = m.arch;
    m.id = printable_text(f.get_string("general.basename").value_or(arch));
    m.name = printable_text(f.get_string("general.name").value_or(arch));
    m.family = out.architecture;
    m.source = "GGUF header";

    CANITRUN_TRY_ASSIGN(const std::uint64_t n_layer, read_gguf_layer_count(keys));
    a.layers = n_layer;
    // The nextn blocks past the stack (blk.<n_layer>... ): llama.cpp skips their tensors
    // unless asked to draft with them (file_parts.hpp).
    a.mtp_layers = std::min<std::uint64_t>(keys.uint_or("nextn_predict_layers", 0), 8);
    a.hidden_size = keys.uint_or("embedding_length", 0);
    a.intermediate_size = keys.uint_or("feed_forward_length", 0);
    CANITRUN_TRY_ASSIGN(const GgufHeadCounts counts, read_gguf_head_counts(keys, n_layer));
    read_gguf_attention(keys, counts, arch, a);

    const GgufLayerRules rules = read_gguf_layer_rules(keys, arch, a.attention);
    const std::vector<LayerInfo> layers = classify_gguf_layers(arch, counts, rules, a.attention);
    for (const auto& li : layers) out.layer_kinds.push_back(li.kind);
    a.layer_groups = group_gguf_layers(layers, rules, arch == "falcon-h1");
    a.pattern = layer_groups_text(a.layer_groups);
    a.shared_kv_layers = read_gguf_shared_kv_layers(keys, arch, n_layer);
    // Gemma 4's per-layer input embeddings (src/models/gemma4.cpp at 0ad4a86 reads
    // embedding_length_per_layer_input as n_embd_per_layer); 0 where the key is absent.
    a.per_layer_input_size =
        arch == "qwen4exp" ? 0 : keys.uint_or("embedding_length_per_layer_input", 0);
    read_gguf_shared_kv_ffn(counts.ffn, a);
    a.moe = read_gguf_moe(keys, n_layer);
    // nemotron_h_moe's experts are up and down only, relu^2 (src/models/nemotron-h.cpp at
    // 0ad4a86 passes no gate to build_moe_ffn); no key says so, and the compute rule
    // (moe_sum_floats) reads it.
    if (a.moe && arch == "nemotron_h_moe") a.moe->gated = false;
    read_gguf_deepseek4_keys(keys, a);
    a.ngram_embedding = read_gguf_ngram_embedding(f, keys);
    // The file's own order where the groups' counts alone would place the layers elsewhere;
    // FFN-only blocks are the MoE layers of a model that has them.
    if (const auto order = gguf_group_order(layers); order != layer_group_order(m)) {
        a.layer_order = layer_order_text(a, order);
    }
    if (a.moe && count_layers(m, LayerKind::ffn) > 0) {
        a.moe->moe_layers = count_layers(m, LayerKind::ffn);
    }

    const GgufVocab vocab = read_gguf_vocab(parts, arch);
    a.vocab_size = vocab.size;
    a.tied_embeddings = !vocab.has_output;
    // glm4moe's q/k norms (GLM-4.5-Air has none), rope_freqs, ssm_norm: the file holds them or not
    read_gguf_optional_tensors(parts, arch, a);
    m.context_native = keys.uint_or("context_length", 0);
    // An embedding or reranking model's file is served as the database's entry is (llama_serve)
    m.run.pooling = read_gguf_pooling(f, arch);
    if (!m.run.pooling.empty()) m.run.pooling_source = "GGUF " + arch + ".pooling_type";
    // llama-quantize writes quantize.imatrix.file into each file it makes with an importance
    // matrix (tools/quantize/quantize.cpp): a file, or a log's, is typed as it was made
    m.run.gguf_imatrix = f.get_string("quantize.imatrix.file").has_value();
    if (m.run.gguf_imatrix) m.run.gguf_imatrix_source = "GGUF quantize.imatrix.file";
    CANITRUN_TRY(read_gguf_weights(parts, out));
    return out;
}

}  // namespace canitrun
