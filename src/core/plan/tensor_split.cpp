#include "canitrun/tensor_split.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>

#include "canitrun/layer_kinds.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"

namespace canitrun {
namespace {

// How llama_meta_device_get_split_state cuts one tensor: along `axis` (-1: whole on every GPU)
// in segments of (elements, repeats), each rounded to its granularity.
struct TensorCut {
    int axis = -1;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> segments;  // (ne_s, nr_s)
    std::vector<std::uint64_t> granularity;
};

// A layer as the cuts read it: its attention (hparams' n_gqa, n_embd_head_k), or where it is
// recurrent (hparams.is_recr) its Gated DeltaNet (ssm_n_group key heads, ssm_dt_rank value
// heads, ssm_d_state wide each, ssm_d_conv taps).
struct CutDims {
    std::uint64_t heads = 0;
    std::uint64_t kv_heads = 0;
    std::uint64_t head_dim = 0;
    bool recurrent = false;
    std::uint64_t key_heads = 0;
    std::uint64_t value_heads = 0;
    std::uint64_t state = 0;
    std::uint64_t conv_kernel = 0;
};

// The architecture's own cases in llama_meta_device_get_split_state: Qwen3-Next's and Qwen
// 3.5's Q gate ([TAG_SPLIT_QGATE_QWEN]) and Gated DeltaNet segments, and LFM2's short
// convolutions, whose state is MIRRORED.
struct CutRules {
    bool qwen = false;       // qwen3next, qwen35, qwen35moe
    bool qwen3next = false;  // its V heads follow its K heads: a segment of its own
    bool lfm2 = false;       // lfm2, lfm2moe
};

std::string_view tensor_name_suffix(std::string_view name) {
    if (!name.starts_with("blk.")) return name;
    const auto dot = name.find('.', 4);
    return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

// The granularities of the regular-attention branch of get_split_granularity: Q's
// (lcm(n_gqa x head_dim, the block size doubled while under 128 and while GPUs x it stays
// under n_gqa x head_dim)), and K's, V's and the caches' (Q's / n_gqa).
std::pair<std::uint64_t, std::uint64_t> cut_attention_granularity(const CutDims& d,
                                                                  std::uint64_t block,
                                                                  std::uint64_t gpus) {
    const std::uint64_t n_gqa =
        std::max<std::uint64_t>(d.heads / std::max<std::uint64_t>(d.kv_heads, 1), 1);
    const std::uint64_t n_embd_q = n_gqa * d.head_dim;
    std::uint64_t perf = block;
    while (perf < 128 && perf * gpus < n_embd_q) perf *= 2;
    const std::uint64_t q = std::lcm(n_embd_q, perf);
    return {q, q / n_gqa};
}

TensorCut cut_one(int axis, std::uint64_t ne, std::uint64_t granularity) {
    return TensorCut{axis, {{ne, 1}}, {granularity}};
}

// The block sizes get_split_granularity reads: the layer's attn_output type's (ssm_out's in a
// recurrent layer: tensor_axis_0 falls back to it) and its FFN down's.
struct CutBlocks {
    std::uint64_t mixer = 1;
    std::uint64_t ffn = 1;
};

// [TAG_SPLIT_QGATE_QWEN]: Q carries its gate, so its granularity is lcm(2 x n_gqa x head_dim,
// the block size as doubled for Q's own).
std::uint64_t gated_q_granularity(const CutDims& d, std::uint64_t block, std::uint64_t gpus) {
    const std::uint64_t n_gqa =
        std::max<std::uint64_t>(d.heads / std::max<std::uint64_t>(d.kv_heads, 1), 1);
    const std::uint64_t n_embd_q = n_gqa * d.head_dim;
    std::uint64_t perf = block;
    while (perf < 128 && perf * gpus < n_embd_q) perf *= 2;
    return std::lcm(2 * n_embd_q, perf);
}

// The linear-attention branch of get_split_granularity (granularity_qkv = lcm(lcm(block, 128),
// ssm_d_state), per head for the per-head tensors) with get_split_segments' Gated DeltaNet
// segments: Qwen 3.5 repeats the key width 2 + n_v / n_k times over QKV (n_v / n_k over the
// gate, ssm_out and the per-head tensors), Qwen3-Next keeps Q and K (twice) and V apart. Not a
// tensor of the branch: axis -1.
TensorCut recurrent_cut_of(std::string_view s, const TensorInfo& t, const CutDims& d,
                           const CutRules& rules, std::uint64_t block) {
    if (!rules.qwen || d.state == 0) return TensorCut{};
    const std::uint64_t g = std::lcm(std::lcm(block, std::uint64_t{128}), d.state);
    const std::uint64_t per_head = g / d.state;
    const std::uint64_t key_dim = d.key_heads * d.state;
    const std::uint64_t ratio = d.value_heads / std::max<std::uint64_t>(d.key_heads, 1);
    if (s == "attn_qkv.weight" || s == "ssm_conv1d.weight") {
        if (rules.qwen3next)
            return TensorCut{1, {{key_dim, 2}, {d.value_heads * d.state, 1}}, {g, g}};
        return TensorCut{1, {{key_dim, 2 + ratio}}, {g}};
    }
    const auto by_key = [&](int axis, std::uint64_t ne, std::uint64_t unit, std::uint64_t gran) {
        return rules.qwen3next ? cut_one(axis, ne, gran) : TensorCut{axis, {{unit, ratio}}, {gran}};
    };
    if (s == "attn_gate.weight") return by_key(1, t.ne[1], key_dim, g);
    if (s == "ssm_out.weight") return by_key(0, t.ne[0], key_dim, g);
    if (s == "ssm_dt.bias" || s == "ssm_a") return by_key(0, t.ne[0], d.key_heads, per_head);
    if (s == "ssm_alpha.weight" || s == "ssm_beta.weight") {
        return by_key(1, t.ne[1], d.key_heads, per_head);
    }
    if (s == "ssm_ba.weight") return cut_one(1, t.ne[1], 2 * per_head);
    return TensorCut{};
}

// The recurrent state's two caches as the same branch cuts them along axis 0: cache_r_l (the
// last d_conv - 1 inputs of the QKV convolution, segmented as QKV) at granularity_qkv x
// (d_conv - 1), cache_s_l (a state_size x state_size matrix per value head) at granularity_qkv
// x state_size; LFM2's short-convolution state whole on every GPU.
struct StateCuts {
    TensorCut conv;
    TensorCut state;
    std::uint64_t conv_elements = 0, state_elements = 0;
};

StateCuts state_cuts_of(const CutDims& d, const CutRules& rules, std::uint64_t block) {
    StateCuts c;
    if (!rules.qwen || d.state == 0 || d.conv_kernel < 2) return c;
    const std::uint64_t g = std::lcm(std::lcm(block, std::uint64_t{128}), d.state);
    const std::uint64_t taps = d.conv_kernel - 1;
    const std::uint64_t key = d.key_heads * d.state * taps, value = d.value_heads * d.state * taps;
    const std::uint64_t ratio = d.value_heads / std::max<std::uint64_t>(d.key_heads, 1);
    c.conv = rules.qwen3next ? TensorCut{0, {{key, 2}, {value, 1}}, {g * taps, g * taps}}
                             : TensorCut{0, {{key, 2 + ratio}}, {g * taps}};
    c.conv_elements = 2 * key + value;
    const std::uint64_t matrix = d.state * d.state;
    c.state_elements = d.value_heads * matrix;
    c.state = rules.qwen3next ? cut_one(0, c.state_elements, g * d.state)
                              : TensorCut{0, {{d.key_heads * matrix, ratio}}, {g * d.state}};
    return c;
}

// The FFN branch (every layer kind) and the output head; everything else MIRRORED.
TensorCut ffn_cut_of(std::string_view s, const TensorInfo& t, std::uint64_t g_ffn) {
    const bool up = s == "ffn_up.weight" || s == "ffn_up_exps.weight";
    if (up || s == "ffn_gate.weight" || s == "ffn_gate_exps.weight")
        return cut_one(1, t.ne[1], g_ffn);
    if (s == "ffn_up.bias" || s == "ffn_up_exps.bias" || s == "ffn_gate.bias" ||
        s == "ffn_gate_exps.bias") {
        return cut_one(0, t.ne[0], g_ffn);
    }
    if (s == "ffn_gate_up_exps.weight" || s == "ffn_gate_up.weight") {
        return TensorCut{1, {{t.ne[1] / 2, 2}}, {g_ffn}};
    }
    if (s == "ffn_down.weight" || s == "ffn_down_exps.weight") return cut_one(0, t.ne[0], g_ffn);
    if (s == "output.weight") return cut_one(1, t.ne[1], 1);
    if (s == "output.bias") return cut_one(0, t.ne[0], 1);
    // ffn_down_exps.bias is PARTIAL (each GPU's partial sums, whole); the rest MIRRORED
    return TensorCut{};
}

// get_tensor_config's and get_split_granularity's choice for a tensor of a layer (the names of
// the regular-attention, linear-attention and FFN branches; everything else MIRRORED).
TensorCut tensor_cut_of(const TensorInfo& t, const CutDims& d, const CutRules& rules,
                        const CutBlocks& blocks, std::uint64_t gpus) {
    const std::string_view s = tensor_name_suffix(t.name);
    const std::uint64_t g_ffn = std::lcm(blocks.ffn, std::uint64_t{128});
    if (d.recurrent) {
        TensorCut c = recurrent_cut_of(s, t, d, rules, blocks.mixer);
        if (c.axis >= 0) return c;
        return ffn_cut_of(s, t, g_ffn);
    }
    const auto [g_q, g_kv] = cut_attention_granularity(d, blocks.mixer, gpus);
    const std::uint64_t n_embd_gqa = d.kv_heads * d.head_dim;
    if (s == "attn_q.weight" || s == "attn_q.bias") {
        // Q and its gate in one tensor: twice n_gqa x head_dim a group
        const std::uint64_t g = rules.qwen ? gated_q_granularity(d, blocks.mixer, gpus) : g_q;
        return cut_one(s == "attn_q.weight" ? 1 : 0, t.ne[s == "attn_q.weight" ? 1 : 0], g);
    }
    if (s == "attn_k.weight" || s == "attn_v.weight") return cut_one(1, t.ne[1], g_kv);
    if (s == "attn_k.bias" || s == "attn_v.bias") return cut_one(0, t.ne[0], g_kv);
    if (s == "attn_qkv.weight" || s == "attn_qkv.bias") {
        const int axis = s == "attn_qkv.weight" ? 1 : 0;
        return TensorCut{axis, {{d.heads * d.head_dim, 1}, {n_embd_gqa, 2}}, {g_q, g_kv}};
    }
    if ((s == "attn_q_norm.weight" || s == "attn_k_norm.weight") && t.ne[1] > 1) {
        return cut_one(1, t.ne[1], 1);
    }
    if (s == "attn_sinks.weight")
        return cut_one(0, t.ne[0], g_q / std::max<std::uint64_t>(d.head_dim, 1));
    if (s == "attn_output.weight") return cut_one(0, t.ne[0], g_q);
    return ffn_cut_of(s, t, g_ffn);
}

// Each GPU's elements along the cut axis, over the cut's segments (nr_s repeats each).
std::vector<std::uint64_t> tensor_cut_counts(const TensorCut& c,
                                             const std::vector<std::uint64_t>& split,
                                             std::size_t gpus, std::size_t rotation) {
    std::vector<std::uint64_t> held(gpus, 0);
    for (std::size_t s = 0; s < c.segments.size(); ++s) {
        const auto counts =
            tensor_split_counts(c.segments[s].first, c.granularity[s], split, gpus, rotation);
        for (std::size_t j = 0; j < gpus; ++j) {
            held[j] = checked::add(held[j], checked::mul(counts[j], c.segments[s].second));
        }
    }
    return held;
}

CutRules cut_rules_of(const Model& model) {
    const auto arch = llama_arch(model);
    if (!arch) return CutRules{};
    return CutRules{llama_gated_delta_net(*arch), *arch == "qwen3next",
                    *arch == "lfm2" || *arch == "lfm2moe"};
}

Result<bool> tensor_split_applies(const Model& model, const Hardware& hardware) {
    if (hardware.gpus.size() < 2) {
        return fail(ErrorKind::bad_input, "--split-mode tensor cuts every weight over several GPUs",
                    "give two or more GPUs, or leave --split-mode out");
    }
    for (const GpuDevice& g : hardware.gpus) {
        if (g.unified || backend_for(g) != backend_for(hardware.gpus.front())) {
            return fail(ErrorKind::bad_input,
                        "--split-mode tensor is planned on discrete GPUs of one backend (one Meta "
                        "device over them), and " +
                            g.name + " is not one beside " + hardware.gpus.front().name,
                        "leave --split-mode out (layer)");
        }
    }
    const CutRules rules = cut_rules_of(model);
    for (const LayerGroup& g : model.arch.layer_groups) {
        const AttentionDims d = attention_dims(model, g);
        const bool attention = (g.kind == LayerKind::full || g.kind == LayerKind::sliding) &&
                               g.index_head_dim == 0 && d.k_dim == d.v_dim;
        // Gated DeltaNet as llama.cpp reads it: one ssm_d_state for the key and value heads
        const bool delta_net =
            g.kind == LayerKind::linear && rules.qwen && g.key_head_dim == g.value_head_dim;
        const bool conv = g.kind == LayerKind::conv && rules.lfm2;
        if (!attention && !delta_net && !conv) {
            return fail(ErrorKind::bad_input,
                        "--split-mode tensor is planned for attention with K and V of one head "
                        "size, Qwen3-Next's and Qwen 3.5's Gated DeltaNet and LFM2's short "
                        "convolutions, and " +
                            model.id + "'s " + layer_kind_name(g.kind) +
                            " layers are none of these (not planned yet)",
                        "use --split-mode layer (the default) or row");
        }
    }
    // A Q gate of its own tensor (attn_gate beside attention) is cut as llama.cpp cuts it for
    // no architecture canitrun lays out; Qwen's gate rides in attn_q, cut with it.
    if (model.arch.attention.output_gate && !rules.qwen) {
        return fail(ErrorKind::bad_input,
                    "--split-mode tensor is not planned for " + model.id +
                        "'s gated attention (only Qwen's, whose gate is part of attn_q)",
                    "use --split-mode layer (the default) or row");
    }
    return true;
}

// Each layer's attention or Gated DeltaNet, as the cuts read it.
std::vector<CutDims> cut_layer_dims(const Model& model) {
    const std::vector<std::size_t> order = layer_group_order(model);
    const Attention& a = model.arch.attention;
    std::vector<CutDims> dims;
    for (const std::size_t gi : order) {
        const LayerGroup& g = model.arch.layer_groups[gi];
        const AttentionDims d = attention_dims(model, g);
        CutDims c{g.heads > 0 ? g.heads : a.heads, d.kv_heads, d.k_dim};
        c.recurrent = is_recurrent(g.kind);
        c.key_heads = g.key_heads;
        c.value_heads = g.value_heads;
        c.state = g.key_head_dim;
        c.conv_kernel = g.conv_kernel;
        dims.push_back(c);
    }
    if (order.empty()) {
        dims.assign(model.arch.layers, CutDims{a.heads, a.kv_heads, a.head_dim});
    }
    return dims;
}

// Each layer's turn (get_il_eff % GPUs): the earlier layers of its kind.
std::vector<std::size_t> cut_layer_turns(const Model& model, std::size_t gpus) {
    const std::vector<LayerKind> kinds = layer_kinds(model);
    std::vector<std::size_t> turns;
    std::map<LayerKind, std::size_t> seen;
    for (const LayerKind k : kinds) turns.push_back(seen[k]++ % gpus);
    return turns;
}

}  // namespace

std::uint64_t meta_reduce_steps(std::size_t gpus) {
    std::uint64_t steps = 0;
    while ((std::uint64_t{1} << steps) < gpus) ++steps;
    return steps;
}

std::vector<std::uint64_t> tensor_split_counts(std::uint64_t ne, std::uint64_t granularity,
                                               const std::vector<std::uint64_t>& split,
                                               std::size_t gpus, std::size_t rotation) {
    std::vector<std::uint64_t> held(gpus, 0);
    if (gpus == 0) return held;
    // tensor_split_scan: the proportions from the rotated GPU on, summed, in float
    std::vector<float> scan(gpus, 0.0f);
    for (std::size_t j = 0; j < gpus; ++j) {
        const std::size_t at = (j + rotation) % gpus;
        scan[j] = (at < split.size() ? static_cast<float>(split[at]) : 0.0f) +
                  (j > 0 ? scan[j - 1] : 0.0f);
    }
    const std::uint64_t g = std::max<std::uint64_t>(granularity, 1);
    std::uint64_t low = 0;
    for (std::size_t j = 0; j + 1 < gpus; ++j) {
        std::uint64_t high =
            scan.back() == 0.0f
                ? ne * (j + 1) / gpus
                : static_cast<std::uint64_t>(static_cast<float>(ne) * scan[j] / scan.back());
        high = std::max(high - high % g, low);
        held[(j + rotation) % gpus] = high - low;
        low = high;
    }
    held[(gpus - 1 + rotation) % gpus] = ne - std::min(low, ne);
    return held;
}

namespace {

// Each tensor's type's block size, by name (get_split_granularity reads attn_output's and the
// FFN down's).
struct TensorTypeBlocks {
    std::map<std::string, std::uint64_t, std::less<>> by_name;
    std::uint64_t of(int layer, std::string_view a, std::string_view b) const {
        const std::string prefix = "blk." + std::to_string(layer) + ".";
        for (const auto name : {a, b}) {
            const auto it = by_name.find(prefix + std::string(name));
            if (it != by_name.end()) return it->second;
        }
        return 1;
    }
};

// What the cut puts on each GPU: the weights, the K and V caches and the recurrent state.
struct TensorSlices {
    std::vector<Bytes> weights;
    std::vector<Bytes> kv;
    std::vector<Bytes> state;
};

// Each GPU's part of `bytes` when it holds held[j] of the cut axis's `ne` elements.
void add_slices(std::vector<Bytes>& to, Bytes bytes, const std::vector<std::uint64_t>& held,
                std::uint64_t ne) {
    for (std::size_t j = 0; j < to.size(); ++j) {
        to[j] = checked::add(to[j], checked::mul_div_floor(bytes, held[j], ne));
    }
}

// The caches, each layer's cut as its weights are: K and V (cache_k_l / cache_v_l) along
// axis 0, n_embd_k_gqa, at K's granularity; a Gated DeltaNet layer's conv and state caches
// (state_cuts_of), which LayerPart::recurrent_state holds together in proportion to their
// elements (both f32, one each per sequence); LFM2's convolution state whole on every GPU.
void add_cache_slices(const Model& model, const ModelParts& parts, const TensorTypeBlocks& blocks,
                      const std::vector<std::size_t>& turns,
                      const std::vector<std::uint64_t>& split, TensorSlices& out) {
    const std::vector<CutDims> dims = cut_layer_dims(model);
    const CutRules rules = cut_rules_of(model);
    const std::size_t n = out.kv.size();
    for (std::size_t il = 0; il < parts.layers.size() && il < dims.size(); ++il) {
        const CutDims& d = dims[il];
        const LayerPart& l = parts.layers[il];
        const int layer = static_cast<int>(il);
        const std::uint64_t ne = d.kv_heads * d.head_dim;
        if (ne > 0 && l.kv_cache > 0) {
            const std::uint64_t block = blocks.of(layer, "attn_output.weight", "ssm_out.weight");
            const std::uint64_t g = cut_attention_granularity(d, block, n).second;
            add_slices(out.kv, l.kv_cache, tensor_split_counts(ne, g, split, n, turns[il]), ne);
        }
        if (l.recurrent_state == 0) continue;
        const StateCuts c = state_cuts_of(d, rules, blocks.of(layer, "ssm_out.weight", ""));
        const std::uint64_t elements = c.conv_elements + c.state_elements;
        if (elements == 0) {  // MIRRORED
            for (auto& b : out.state) b = checked::add(b, l.recurrent_state);
            continue;
        }
        const Bytes conv = checked::mul_div_floor(l.recurrent_state, c.conv_elements, elements);
        add_slices(out.state, conv, tensor_cut_counts(c.conv, split, n, turns[il]),
                   c.conv_elements);
        add_slices(out.state, l.recurrent_state - conv,
                   tensor_cut_counts(c.state, split, n, turns[il]), c.state_elements);
    }
}

Result<TensorSlices> tensor_slices_of(const Model& model, const Quant& quant,
                                      const ModelParts& parts,
                                      const std::vector<std::uint64_t>& split, std::size_t n) {
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    CANITRUN_TRY_ASSIGN(const auto typed, llamacpp_tensor_bytes(prepared, quant));
    CANITRUN_TRY_ASSIGN(const auto tensors, llamacpp_tensors(model, quant));
    TensorTypeBlocks blocks;
    for (const TypedTensor& t : tensors)
        blocks.by_name[t.tensor.name.str()] = t.type.block_elements;
    const std::vector<CutDims> dims = cut_layer_dims(model);
    const CutRules rules = cut_rules_of(model);
    const std::vector<std::size_t> turns = cut_layer_turns(model, n);
    const std::size_t outside = dims.size() % n;  // hparams.n_layer() % GPUs
    TensorSlices out{std::vector<Bytes>(n, 0), std::vector<Bytes>(n, 0), std::vector<Bytes>(n, 0)};
    const auto& all = prepared->layout.tensors;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const TensorInfo& t = all[i];
        if (prepared->host_input[i]) continue;
        if (t.layer >= 0 && static_cast<std::size_t>(t.layer) >= dims.size()) continue;  // MTP
        const std::size_t il = t.layer < 0 ? 0 : static_cast<std::size_t>(t.layer);
        const CutBlocks b{blocks.of(t.layer, "attn_output.weight", "ssm_out.weight"),
                          blocks.of(t.layer, "ffn_down.weight", "ffn_down_exps.weight")};
        const TensorCut c = tensor_cut_of(t, dims[std::min(il, dims.size() - 1)], rules, b, n);
        if (c.axis < 0) {  // MIRRORED: whole on every GPU
            for (auto& w : out.weights) w = checked::add(w, (*typed)[i]);
            continue;
        }
        add_slices(out.weights, (*typed)[i],
                   tensor_cut_counts(c, split, n, t.layer < 0 ? outside : turns[il]),
                   t.ne[static_cast<std::size_t>(c.axis)]);
    }
    add_cache_slices(model, parts, blocks, turns, split, out);
    return out;
}

// The weights and KV cache each GPU holds under the split (`split` as llama.cpp reads -ts).
Result<Placement> tensor_cut_over(const Model& model, const Quant& quant, const ModelParts& parts,
                                  Placement p, const std::vector<std::uint64_t>& split) {
    const std::size_t n = p.gpus.size();
    CANITRUN_TRY_ASSIGN(const TensorSlices slices, tensor_slices_of(model, quant, parts, split, n));
    const std::vector<Bytes>& weights = slices.weights;
    // Every GPU runs the whole graph: the compute buffer of the GPU that held the output head.
    Bytes compute = 0;
    for (const Share& g : p.gpus) compute = g.output ? g.compute : compute;
    const Bytes duplicate = parts.output_weights == 0 ? parts.buffers->output_duplicate : 0;
    // What a token reads: the active weights cut as the weights are (each GPU reads its
    // slices), and its own KV cache.
    Bytes active = 0, held_weights = 0;
    std::uint64_t moe_layers = 0;
    for (const LayerPart& l : parts.layers) moe_layers += l.routed_experts > 0 ? 1 : 0;
    for (std::size_t j = 0; j < n; ++j) {
        active = checked::add(active, p.gpus[j].active_weights);
        held_weights = checked::add(held_weights, weights[j]);
    }
    const Bytes reduce = checked::mul(meta_reduce_steps(n), parts.buffers->partial_sum);
    for (std::size_t j = 0; j < n; ++j) {
        Share& g = p.gpus[j];
        if (reduce > 0) g.resident.push_back(ResidentTerm{kMetaReduceTerm, reduce, reduce});
        g.weights = checked::add(weights[j], duplicate);  // a tied head's copy: MIRRORED
        g.kv_cache = slices.kv[j];
        g.recurrent_state = slices.state[j];
        g.compute = compute;
        g.layers = parts.layers.size();
        g.moe_layers = moe_layers;  // every GPU routes every MoE layer
        g.output = true;
        g.active_weights =
            held_weights == 0 ? 0 : checked::mul_div_floor(active, weights[j], held_weights);
        g.read_per_token = checked::add(g.active_weights, g.kv_cache);
    }
    p.tensor_split = split;
    p.tensor_parallel = true;
    return p;
}

}  // namespace

Result<Placement> tensor_split_placement(const Model& model, const Quant& quant,
                                         const ModelParts& parts, const Hardware& hardware,
                                         const PlacementOptions& options) {
    CANITRUN_TRY(tensor_split_applies(model, hardware));
    return catch_overflow(
        [&]() -> Result<Placement> {
            // The layer placement by memory gives each GPU its runtime, and the host its share.
            PlacementOptions by_memory = options;
            by_memory.tensor_split.clear();
            CANITRUN_TRY_ASSIGN(auto layered, place(parts, hardware, by_memory));
            for (std::size_t d = 0; d < layered.gpus.size(); ++d) {
                Share& g = layered.gpus[d];
                if (g.runtime == 0 && d < options.gpu_runtime.size()) {
                    g.runtime = options.gpu_runtime[d];
                }
            }
            if (!options.tensor_split.empty()) {
                return tensor_cut_over(model, quant, parts, layered, options.tensor_split);
            }
            // llama.cpp's own default (-ts all zero): even, printed as -ts 1,1,...
            const std::vector<std::uint64_t> even(hardware.gpus.size(), 1);
            CANITRUN_TRY_ASSIGN(auto p, tensor_cut_over(model, quant, parts, layered, even));
            if (p.fits()) return p;
            std::vector<std::uint64_t> memory;
            for (const GpuDevice& d : hardware.gpus) memory.push_back(d.memory / kGiB);
            CANITRUN_TRY_ASSIGN(auto q, tensor_cut_over(model, quant, parts, layered, memory));
            return q.fits() ? q : p;
        },
        [&] { return overflow_error("the tensor split of " + model.id, "lower --ctx"); });
}

}  // namespace canitrun
