#include "canitrun/tensor_split.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>

#include "canitrun/layer_kinds.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/quantize_rules.hpp"

namespace canitrun {
namespace {

// How llama_meta_device_get_split_state cuts one tensor: along `axis` (-1: whole on every GPU)
// in segments of (elements, repeats), each rounded to its granularity.
struct TensorCut {
    int axis = -1;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> segments;  // (ne_s, nr_s)
    std::vector<std::uint64_t> granularity;
};

// A layer's attention as the cuts read it (hparams' n_gqa, n_embd_head_k).
struct CutDims {
    std::uint64_t heads = 0;
    std::uint64_t kv_heads = 0;
    std::uint64_t head_dim = 0;
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

// get_tensor_config's and get_split_granularity's choice for a tensor of an attention-only
// layer (the names of the regular-attention and FFN branches; everything else MIRRORED).
// `attn_block`: the block size of the layer's attn_output type; `ffn_block`: of its FFN down's.
TensorCut tensor_cut_of(const TensorInfo& t, const CutDims& d, std::uint64_t attn_block,
                        std::uint64_t ffn_block, std::uint64_t gpus) {
    const std::string_view s = tensor_name_suffix(t.name);
    const auto [g_q, g_kv] = cut_attention_granularity(d, attn_block, gpus);
    const std::uint64_t g_ffn = std::lcm(ffn_block, std::uint64_t{128});
    const std::uint64_t n_embd_gqa = d.kv_heads * d.head_dim;
    if (s == "attn_q.weight") return cut_one(1, t.ne[1], g_q);
    if (s == "attn_k.weight" || s == "attn_v.weight") return cut_one(1, t.ne[1], g_kv);
    if (s == "attn_q.bias") return cut_one(0, t.ne[0], g_q);
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

Result<bool> tensor_split_applies(const Model& model, const Hardware& hardware) {
    if (hardware.gpus.size() < 2) {
        return fail(ErrorKind::bad_input, "--split-mode tensor cuts every weight over several GPUs",
                    "give two or more GPUs, or leave --split-mode out");
    }
    for (const GpuDevice& g : hardware.gpus) {
        if (g.unified || backend_for(g) != backend_for(hardware.gpus.front())) {
            return fail(
                ErrorKind::bad_input,
                "--split-mode tensor is planned on discrete GPUs of cut_one backend (cut_one "
                "Meta device over them), and " +
                    g.name + " is not cut_one beside " + hardware.gpus.front().name,
                "leave --split-mode out (layer)");
        }
    }
    const Attention& a = model.arch.attention;
    for (const LayerGroup& g : model.arch.layer_groups) {
        const AttentionDims d = attention_dims(model, g);
        const bool attention = g.kind == LayerKind::full || g.kind == LayerKind::sliding;
        if (!attention || g.index_head_dim > 0 || d.k_dim != d.v_dim) {
            return fail(ErrorKind::bad_input,
                        "--split-mode tensor is planned for attention-only layers with K and V "
                        "of cut_one head size, and " +
                            model.id + " has " + layer_kind_name(g.kind) + " layers",
                        "use --split-mode layer (the default) or row");
        }
    }
    if (a.output_gate) {
        return fail(ErrorKind::bad_input,
                    "--split-mode tensor is not planned for gated attention (its Q gate has a "
                    "cut of its own in llama.cpp)",
                    "use --split-mode layer (the default) or row");
    }
    return true;
}

// Each layer's attention, as the cuts read it.
std::vector<CutDims> cut_layer_dims(const Model& model) {
    const std::vector<std::size_t> order = layer_group_order(model);
    const Attention& a = model.arch.attention;
    std::vector<CutDims> dims;
    for (const std::size_t gi : order) {
        const LayerGroup& g = model.arch.layer_groups[gi];
        const AttentionDims d = attention_dims(model, g);
        dims.push_back(CutDims{g.heads > 0 ? g.heads : a.heads, d.kv_heads, d.k_dim});
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

// What the cut puts on each GPU: the weights and the K and V caches.
struct TensorSlices {
    std::vector<Bytes> weights;
    std::vector<Bytes> kv;
};

Result<TensorSlices> tensor_slices_of(const Model& model, const Quant& quant,
                                      const ModelParts& parts,
                                      const std::vector<std::uint64_t>& split, std::size_t n) {
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    CANITRUN_TRY_ASSIGN(const auto typed, llamacpp_tensor_bytes(prepared, quant));
    CANITRUN_TRY_ASSIGN(const auto tensors, llamacpp_tensors(model, quant));
    TensorTypeBlocks blocks;
    for (const TypedTensor& t : tensors) blocks.by_name[t.tensor.name] = t.type.block_elements;
    const std::vector<CutDims> dims = cut_layer_dims(model);
    const std::vector<std::size_t> turns = cut_layer_turns(model, n);
    const std::size_t outside = dims.size() % n;  // hparams.n_layer() % GPUs
    TensorSlices out{std::vector<Bytes>(n, 0), std::vector<Bytes>(n, 0)};
    const auto add = [&](std::vector<Bytes>& to, Bytes bytes,
                         const std::vector<std::uint64_t>& held, std::uint64_t ne) {
        for (std::size_t j = 0; j < n; ++j) {
            to[j] = checked::add(to[j], checked::mul_div_floor(bytes, held[j], ne));
        }
    };
    const auto& all = prepared->layout.tensors;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const TensorInfo& t = all[i];
        if (prepared->host_input[i]) continue;
        if (t.layer >= 0 && static_cast<std::size_t>(t.layer) >= dims.size()) continue;  // MTP
        const std::size_t il = t.layer < 0 ? 0 : static_cast<std::size_t>(t.layer);
        const TensorCut c =
            tensor_cut_of(t, dims[std::min(il, dims.size() - 1)],
                          blocks.of(t.layer, "attn_output.weight", "attn_output.weight"),
                          blocks.of(t.layer, "ffn_down.weight", "ffn_down_exps.weight"), n);
        if (c.axis < 0) {  // MIRRORED: whole on every GPU
            for (auto& w : out.weights) w = checked::add(w, (*typed)[i]);
            continue;
        }
        add(out.weights, (*typed)[i],
            tensor_cut_counts(c, split, n, t.layer < 0 ? outside : turns[il]),
            t.ne[static_cast<std::size_t>(c.axis)]);
    }
    // The K and V caches (cache_k_l / cache_v_l): along axis 0, n_embd_k_gqa, at K's granularity.
    for (std::size_t il = 0; il < parts.layers.size() && il < dims.size(); ++il) {
        const CutDims& d = dims[il];
        const std::uint64_t ne = d.kv_heads * d.head_dim;
        if (ne == 0 || parts.layers[il].kv_cache == 0) continue;
        const std::uint64_t block =
            blocks.of(static_cast<int>(il), "attn_output.weight", "attn_output.weight");
        const std::uint64_t g = cut_attention_granularity(d, block, n).second;
        add(out.kv, parts.layers[il].kv_cache, tensor_split_counts(ne, g, split, n, turns[il]), ne);
    }
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
    for (std::size_t j = 0; j < n; ++j) {
        active = checked::add(active, p.gpus[j].active_weights);
        held_weights = checked::add(held_weights, weights[j]);
    }
    for (std::size_t j = 0; j < n; ++j) {
        Share& g = p.gpus[j];
        g.weights = checked::add(weights[j], duplicate);  // a tied head's copy: MIRRORED
        g.kv_cache = slices.kv[j];
        g.compute = compute;
        g.layers = parts.layers.size();
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
