#include <algorithm>
#include <map>

#include "canitrun/ggml_type.hpp"
#include "canitrun/gguf_model.hpp"

namespace canitrun {
namespace {

// What llama.cpp keeps per layer, before grouping equal layers.
struct LayerInfo {
    LayerKind kind = LayerKind::full;
    bool present = true;  // false: an MLP-only layer (Nemotron-H) that caches nothing
    std::uint64_t kv_heads = 0, k_dim = 0, v_dim = 0, window = 0;
};

bool operator<(const LayerInfo& a, const LayerInfo& b) {
    return std::tie(a.kind, a.kv_heads, a.k_dim, a.v_dim, a.window) <
           std::tie(b.kind, b.kv_heads, b.k_dim, b.v_dim, b.window);
}

// Sliding-window period llama.cpp assumes when the file has no sliding_window_pattern key
// (load_arch_hparams of each model in src/models/). Architectures not listed ignore
// sliding_window unless the pattern key is present.
std::uint64_t default_swa_period(const std::string& arch) {
    static const std::map<std::string, std::uint64_t> periods = {
        {"gemma2", 2},     {"gemma3", 6},  {"gemma3n", 5},      {"cohere2", 4},
        {"cohere2moe", 4}, {"gpt-oss", 2}, {"llama4", 4},       {"olmo2", 4},
        {"exaone4", 4},    {"afmoe", 4},   {"smallthinker", 4}, {"plamo3", 8},
    };
    const auto it = periods.find(arch);
    return it == periods.end() ? 0 : it->second;
}

bool is_gated_delta_net(const std::string& arch) {
    return arch == "qwen3next" || arch == "qwen35" || arch == "qwen35moe";
}

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

std::string ggml_name(std::uint32_t id) {
    const auto t = find_ggml_type(id);
    return t ? std::string(t->name) : std::to_string(id);
}

}  // namespace

std::uint64_t llama_padded_context(std::uint64_t context) {
    return checked::mul((checked::add(context, kLlamaCachePad - 1)) / kLlamaCachePad,
                        kLlamaCachePad);
}

Model llama_cache_model(const Model& model, std::uint64_t context, std::uint64_t n_ubatch) {
    Model out = model;
    const std::uint64_t n_ctx = llama_padded_context(context);
    for (auto& g : out.arch.layer_groups) {
        if (g.kind != LayerKind::sliding) continue;
        g.window = llama_padded_context(std::min(n_ctx, checked::add(g.window, n_ubatch)));
    }
    return out;
}

Result<GgufModel> gguf_to_model(const std::vector<GgufFile>& parts) {
    if (parts.empty()) return fail(ErrorKind::bad_input, "no GGUF file to read");
    const GgufFile& f = parts.front();
    const auto arch_name = f.get_string("general.architecture");
    if (!arch_name) {
        return fail(ErrorKind::bad_input, "the GGUF file has no general.architecture key",
                    "is it a model file? (a vision projector goes with --mmproj)");
    }
    const std::string P = *arch_name + ".";
    const auto u = [&](const std::string& key) { return f.get_uint(P + key); };
    const auto u_or = [&](const std::string& key, std::uint64_t d) { return u(key).value_or(d); };

    GgufModel out;
    out.architecture = *arch_name;
    out.parts = parts.size();
    out.version = f.version;
    Model& m = out.model;
    Architecture& a = m.arch;
    m.id = f.get_string("general.basename").value_or(*arch_name);
    m.name = f.get_string("general.name").value_or(*arch_name);
    m.family = *arch_name;
    m.source = "GGUF header";

    const auto blocks = u("block_count");
    if (!blocks || *blocks == 0 || *blocks > 4096) {
        return fail(ErrorKind::bad_input, "the GGUF file has no usable " + P + "block_count",
                    "canitrun reads llama.cpp model files");
    }
    const std::uint64_t nextn = std::min(u_or("nextn_predict_layers", 0), *blocks);
    const std::uint64_t n_layer = *blocks - nextn;  // llama.cpp's n_layer(): no MTP layers
    a.layers = n_layer;
    a.hidden_size = u_or("embedding_length", 0);
    a.intermediate_size = u_or("feed_forward_length", 0);

    // Per-layer head counts; head_count_kv defaults to head_count (llama-model.cpp).
    const PerLayer heads{f.find(P + "attention.head_count"), 0};
    const PerLayer kv_heads{f.find(P + "attention.head_count_kv"), 0};
    const PerLayer ff{f.find(P + "feed_forward_length"), 0};
    std::uint64_t max_heads = 0, max_kv = 0;
    std::vector<std::uint64_t> h(n_layer), kv(n_layer), ffn(n_layer);
    for (std::uint64_t il = 0; il < n_layer; ++il) {
        auto hv = heads.at(il, P + "attention.head_count");
        if (!hv) return std::unexpected(hv.error());
        h[il] = *hv;
        if (kv_heads.value == nullptr) {
            kv[il] = h[il];
        } else {
            auto kvv = kv_heads.at(il, P + "attention.head_count_kv");
            if (!kvv) return std::unexpected(kvv.error());
            kv[il] = *kvv;
        }
        auto fv = ff.at(il, P + "feed_forward_length");
        if (!fv) return std::unexpected(fv.error());
        ffn[il] = *fv;
        max_heads = std::max(max_heads, h[il]);
        max_kv = std::max(max_kv, kv[il]);
    }
    a.attention.heads = max_heads;
    a.attention.kv_heads = max_kv;
    const std::uint64_t default_head = max_heads ? a.hidden_size / max_heads : 0;
    a.attention.head_dim = u_or("attention.key_length", default_head);
    a.attention.v_head_dim = u_or("attention.value_length", a.attention.head_dim);
    a.attention.head_dim_explicit = u("attention.key_length").has_value();
    // Qwen3-Next and Qwen 3.5 attention is always gated: q_proj also yields a sigmoid gate
    // (llama.cpp builds attn_q at twice the heads for these architectures; no key says so).
    a.attention.output_gate =
        *arch_name == "qwen3next" || *arch_name == "qwen35" || *arch_name == "qwen35moe";
    const std::uint64_t k_swa = u_or("attention.key_length_swa", a.attention.head_dim);
    const std::uint64_t v_swa = u_or("attention.value_length_swa", a.attention.v_head_dim);
    if (const auto ffl = std::max_element(ffn.begin(), ffn.end()); ffl != ffn.end()) {
        a.intermediate_size = *ffl;
    }

    // Sliding window: the window, and which layers use it.
    std::uint64_t window = u_or("attention.sliding_window", 0);
    // llama.cpp's defaults when the key is absent: gemma2 4096, llama4 chunks of 8192.
    if (*arch_name == "gemma2" && !u("attention.sliding_window")) window = 4096;
    if (*arch_name == "llama4" && !u("attention.sliding_window")) window = 8192;
    const GgufValue* pattern = f.find(P + "attention.sliding_window_pattern");
    std::uint64_t period = default_swa_period(*arch_name);
    const bool swa = window > 0 && (pattern != nullptr || period > 0);
    if (pattern != nullptr && pattern->type != GgufType::array)
        period = pattern->as_uint().value_or(0);
    const auto is_swa = [&](std::uint64_t il) -> bool {
        if (!swa) return false;
        if (pattern != nullptr && pattern->type == GgufType::array) {
            return pattern->uint_at(il).value_or(0) != 0;
        }
        // llama_hparams::set_swa_pattern: period 0 = every layer, else the last of each period
        // is dense.
        return period == 0 || il % period < period - 1;
    };

    // Recurrent layers.
    const GgufValue* recurrent_arr = f.find(P + "attention.recurrent_layers");
    const std::uint64_t interval = u_or("full_attention_interval", 4);
    const auto is_recurrent = [&](std::uint64_t il) -> bool {
        if (recurrent_arr != nullptr && recurrent_arr->type == GgufType::array) {
            return recurrent_arr->uint_at(il).value_or(0) != 0;
        }
        if (is_pure_recurrent(*arch_name)) return true;
        if (is_gated_delta_net(*arch_name)) {
            // A per-layer head_count_kv array marks them with 0; else every interval-th layer
            // is attention (llama_model_qwen35moe::load_arch_hparams).
            if (kv_heads.value != nullptr && kv_heads.value->type == GgufType::array) {
                return kv[il] == 0;
            }
            return interval == 0 || (il + 1) % interval != 0;
        }
        if (*arch_name == "jamba" || *arch_name == "granitehybrid" || *arch_name == "lfm2" ||
            *arch_name == "lfm2moe" || *arch_name == "nemotron_h" ||
            *arch_name == "nemotron_h_moe") {
            return kv[il] == 0;
        }
        return false;
    };

    // SSM / linear-attention dims.
    const std::uint64_t conv = u_or("ssm.conv_kernel", 0);
    const std::uint64_t inner = u_or("ssm.inner_size", 0);
    const std::uint64_t state = u_or("ssm.state_size", 0);
    const std::uint64_t groups = u_or("ssm.group_count", 0);
    const std::uint64_t dt_rank = u_or("ssm.time_step_rank", 0);
    // llama.cpp keeps (d_conv - 1) conv columns, none when d_conv is 0: a kernel of 1 says so.
    const std::uint64_t conv_kernel = std::max<std::uint64_t>(conv, 1);
    LayerGroup recurrent;
    if (is_gated_delta_net(*arch_name)) {
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
        recurrent.ssm_heads = dt_rank;
    }

    // MLA (DeepSeek-V2/V3, Kimi K2, GLM-4.7-Flash...): one latent + the rope key per token.
    const std::uint64_t kv_lora = u_or("attention.kv_lora_rank", 0);
    LayerGroup mla;
    mla.kind = LayerKind::mla;
    mla.kv_lora_rank = kv_lora;
    mla.q_lora_rank = u_or("attention.q_lora_rank", 0);
    mla.qk_rope_head_dim = u_or("rope.dimension_count", 0);
    const std::uint64_t k_mla = u_or("attention.key_length_mla", 0);
    mla.qk_nope_head_dim = k_mla > mla.qk_rope_head_dim ? k_mla - mla.qk_rope_head_dim : 0;
    mla.v_head_dim = u_or("attention.value_length_mla", 0);

    std::vector<LayerInfo> layers(n_layer);
    for (std::uint64_t il = 0; il < n_layer; ++il) {
        LayerInfo& li = layers[il];
        if (is_recurrent(il)) {
            li.kind = recurrent.kind;
            if (*arch_name == "nemotron_h" || *arch_name == "nemotron_h_moe") {
                li.present = ffn[il] == 0;  // attention-free MLP layers cache nothing
            }
            continue;
        }
        if (kv_lora > 0) {
            li.kind = LayerKind::mla;
            continue;
        }
        li.kv_heads = kv[il];
        if (is_swa(il)) {
            li.kind = LayerKind::sliding;
            li.k_dim = k_swa;
            li.v_dim = v_swa;
            li.window = window;
        } else {
            li.kind = LayerKind::full;
            li.k_dim = a.attention.head_dim;
            li.v_dim = a.attention.v_head_dim;
        }
    }
    // Falcon-H1 runs attention and an SSM side by side in every layer.
    const bool parallel_ssm = *arch_name == "falcon-h1";
    std::map<LayerInfo, std::uint64_t> counts;
    std::vector<LayerInfo> order;
    for (const auto& li : layers) {
        if (!li.present) continue;
        if (counts[li]++ == 0) order.push_back(li);
    }
    for (const auto& li : order) {
        LayerGroup g;
        if (li.kind == LayerKind::linear || li.kind == LayerKind::ssm) {
            g = recurrent;
        } else if (li.kind == LayerKind::mla) {
            g = mla;
        } else {
            g.kind = li.kind;
            g.kv_heads = li.kv_heads;
            g.head_dim = li.k_dim;
            g.v_head_dim = li.v_dim;
            g.window = li.window;
        }
        g.count = counts[li];
        a.layer_groups.push_back(g);
    }
    if (parallel_ssm) {
        recurrent.count = n_layer;
        a.layer_groups.push_back(recurrent);
    }
    std::string pattern_text;
    for (const auto& g : a.layer_groups) {
        pattern_text += (pattern_text.empty() ? "" : " + ") + std::to_string(g.count) + " " +
                        layer_kind_name(g.kind);
    }
    a.pattern = pattern_text;

    // Layers past llama.cpp's n_layer_kv_from_start read an earlier layer's cache: gemma4 reads
    // attention.shared_kv_layers (gemma3n's converter writes it as a float, and llama.cpp
    // hard-codes 20 cache layers for gemma3n instead).
    std::uint64_t shared = 0;
    if (const GgufValue* v = f.find(P + "attention.shared_kv_layers")) {
        if (const auto n = v->as_uint()) {
            shared = *n;
        } else if ((v->type == GgufType::f32 || v->type == GgufType::f64) && v->f >= 0 &&
                   v->f < static_cast<double>(n_layer)) {
            shared = static_cast<std::uint64_t>(v->f);
        }
    }
    if (*arch_name == "gemma3n") shared = n_layer > 20 ? n_layer - 20 : 0;
    a.shared_kv_layers = shared < n_layer ? shared : 0;

    // MoE.
    if (const auto experts = u("expert_count"); experts && *experts > 0) {
        MoE moe;
        moe.experts = *experts;
        moe.experts_per_token = u_or("expert_used_count", 0);
        moe.shared_experts = u_or("expert_shared_count", 0);
        moe.expert_intermediate_size = u_or("expert_feed_forward_length", 0);
        moe.shared_expert_intermediate_size = u_or("expert_shared_feed_forward_length", 0);
        const std::uint64_t dense = std::min(u_or("leading_dense_block_count", 0), n_layer);
        moe.moe_layers = n_layer - dense;
        a.moe = moe;
    }

    // Vocabulary: <arch>.vocab_size, else the tokenizer's token list, else token_embd's shape.
    std::uint64_t vocab = u_or("vocab_size", 0);
    if (vocab == 0) {
        if (const GgufValue* tokens = f.find("tokenizer.ggml.tokens");
            tokens != nullptr && tokens->type == GgufType::array) {
            vocab = tokens->length;
        }
    }
    bool has_output = false;
    for (const auto& part : parts) {
        for (const auto& t : part.tensors) {
            if (t.name == "token_embd.weight" && vocab == 0 && t.dims.size() >= 2)
                vocab = t.dims[1];
            if (t.name == "output.weight") has_output = true;
        }
    }
    a.vocab_size = vocab;
    a.tied_embeddings = !has_output;
    m.context_native = u_or("context_length", 0);

    // Weights, parameters and the quantization mix, over every part.
    std::map<std::uint32_t, QuantMixEntry> mix;
    std::uint64_t params = 0, expert_params = 0;
    try {
        for (const auto& part : parts) {
            for (const auto& t : part.tensors) {
                out.weights_bytes = checked::add(out.weights_bytes, t.bytes);
                ++out.tensor_count;
                QuantMixEntry& e = mix[t.type];
                e.type_id = t.type;
                e.type = ggml_name(t.type);
                ++e.tensors;
                e.bytes = checked::add(e.bytes, t.bytes);
                const std::uint64_t n = t.elements();
                params = checked::add(params, n);
                if (t.name.find("_exps.") != std::string::npos) {
                    expert_params = checked::add(expert_params, n);
                }
            }
        }
    } catch (const OverflowError&) {
        return fail(ErrorKind::bad_input, "the GGUF file's tensors add up to more than 2^64 bytes",
                    "the file is corrupt");
    }
    for (auto& [id, e] : mix) out.mix.push_back(e);
    std::stable_sort(
        out.mix.begin(), out.mix.end(),
        [](const QuantMixEntry& x, const QuantMixEntry& y) { return x.bytes > y.bytes; });
    m.params_total = params;
    m.params_rounding = 1;
    m.params_active = params;
    if (a.moe && a.moe->experts > 0) {
        // Routed experts: only experts_per_token of every expert tensor run per token.
        const std::uint64_t idle = checked::mul_div_floor(
            expert_params, a.moe->experts - std::min(a.moe->experts_per_token, a.moe->experts),
            a.moe->experts);
        m.params_active = params - idle;
    }
    return out;
}

}  // namespace canitrun
