// What one token asks of each device: the bytes it reads and the FLOPs it computes there.
#include <algorithm>

#include "canitrun/checked.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/per_layer_embedding.hpp"
#include "canitrun/speed.hpp"

namespace canitrun {
namespace {

struct ModelFlops {
    double dense = 0;      // per token: 2 x active params other than routed experts
    double expert = 0;     // per token: 2 x active routed-expert params
    double attention = 0;  // per token: QK and PV products against `depth` cached positions
    // A sliding-window layer's cache holds its window and a micro-batch (llama_sliding_cells:
    // 1024 + 2048 cells for Gemma 3 at -ub 2048), and flash attention runs a query over every
    // cell of it, those outside the window masked: per token, the products over the masked cells
    // (attention_skips_masked_cells says which devices skip them).
    double masked_attention = 0;
    double wide_attention = 0;  // of `attention`, the layers' of heads wider than kNarrowHeadDim
};

// Whether a layer group's query attends over a KV cache of its own kind the speed model reads:
// full, sliding-window or MLA (cache_positions and mask_cells count the same layers).
bool attends_over_cache(const LayerGroup& g) {
    return g.kind == LayerKind::full || g.kind == LayerKind::sliding || g.kind == LayerKind::mla;
}

// The cached positions a layer group's query attends to at `depth`: all of them, or a sliding
// window's and `masked` cells more (the one window rule of attention_flops and cache_positions).
double attended_positions(const LayerGroup& g, double depth, double masked) {
    return keeps_window(g) ? std::min(depth, static_cast<double>(g.window) + masked) : depth;
}

// 2 FLOPs per multiply-add: the scores (heads x k_dim per position) and the weighted sum of
// values (heads x v_dim per position), for every position a layer attends to: a sliding-window
// layer's window and `masked` cells more (ModelFlops::masked_attention). `wide_only`: the layers'
// whose query-key or value heads are wider than kNarrowHeadDim alone.
double attention_flops(const Model& m, double depth, double masked, bool wide_only = false) {
    double flops = 0;
    for (const LayerGroup& g : m.arch.layer_groups) {
        // A group's own query heads (Step-3.5-Flash's 96 on its sliding layers), as its weights.
        const auto heads = static_cast<double>(attention_dims(m, g).heads);
        const double positions = attended_positions(g, depth, masked);
        double dims = 0;
        std::uint64_t widest = 0;
        if (g.kind == LayerKind::full || g.kind == LayerKind::sliding) {
            const AttentionDims d = attention_dims(m, g);
            dims = static_cast<double>(d.k_dim + d.v_dim);
            widest = std::max(d.k_dim, d.v_dim);
        } else if (g.kind == LayerKind::mla) {
            // llama.cpp runs MLA absorbed (src/models/deepseek2.cpp at 0ad4a86: "MLA with the
            // absorption optimization converts into MQA"): each head's query meets the cached
            // latent and its rope part (kv_lora_rank + qk_rope_head_dim) and takes back a
            // kv_lora_rank-wide value, whatever the model's own head sizes.
            dims =
                g.kv_lora_rank > 0
                    ? static_cast<double>(2 * g.kv_lora_rank + g.qk_rope_head_dim)
                    : static_cast<double>(g.qk_nope_head_dim + g.qk_rope_head_dim +
                                          (m.arch.attention.v_head_dim ? m.arch.attention.v_head_dim
                                                                       : g.qk_nope_head_dim));
            widest = g.kv_lora_rank > 0 ? g.kv_lora_rank + g.qk_rope_head_dim
                                        : g.qk_nope_head_dim + g.qk_rope_head_dim;
        }
        if (wide_only && widest <= kNarrowHeadDim) continue;
        flops += 2.0 * heads * dims * positions * static_cast<double>(g.count);
    }
    return flops;
}

// The cached positions one token's attention reads, summed over the layers: `depth` for a full
// attention or MLA layer, at most its window for a sliding one (kv_position_seconds).
double cache_positions(const Model& m, double depth) {
    double positions = 0;
    for (const LayerGroup& g : m.arch.layer_groups) {
        if (!attends_over_cache(g)) continue;
        positions += attended_positions(g, depth, 0) * static_cast<double>(g.count);
    }
    return positions;
}

// The KQ mask cells the host fills for one prompt token, `spanned` cells into the cache (a
// micro-batch's mask spans every cell up to its last token). llama_kv_cache::set_input_kq_mask
// fills a micro-batch's mask on the CPU, one thread, cell by cell (each checked for its sequence,
// position and window: src/llama-kv-cache.cpp at ggml-org/llama.cpp ec98e2002, December 2025,
// vendored by ollama 49a9c9ba6; "TODO: optimize this section"), before the graph that reads it
// runs: one row of n_kv cells per token for each KV cache, once for all the layers that share
// it. A model with sliding-window layers has a second cache, of its window and a micro-batch
// (llama_kv_cache_iswa: attended_positions). llama.cpp#18842 (January 2026) sped the loop
// up; the mask it writes is as large. A token of a model with few attention layers thus pays a
// whole row for little attention: kyuz0's R9700 gemma-3-4b (5 full layers of 34) and jiegec's
// RTX 4090 Qwen 3.5 35B-A3B (10 of 40) read 32768 deep at 1.37x and 1.35-1.40x their measure
// with attention alone, their source left out (#34; docs/SPEED.md); llama.cpp#18631 saw GPUs
// idle on it at depth with Nemotron 3 Nano (6 of 52). Decode fills a row a token too, not
// counted: 34816 cells are under 1 % of a gpt-oss-20b token on an R9700 (SPEED.md).
double mask_cells(const Model& m, double spanned, double ubatch) {
    bool full = false;
    double sliding = 0;
    for (const LayerGroup& g : m.arch.layer_groups) {
        if (!attends_over_cache(g)) continue;
        if (keeps_window(g)) {
            sliding = std::max(sliding, attended_positions(g, spanned, ubatch));
        } else {
            full = true;
        }
    }
    return (full ? spanned : 0) + sliding;
}

ModelFlops model_flops(const Model& m, double depth, double ubatch) {
    ModelFlops f;
    const auto active =
        static_cast<double>(m.params_active != 0 ? m.params_active : m.params_total);
    // The tables the host reads by get_rows are row lookups, not matrix products: the input
    // embedding and the per-layer embeddings (Gemma 3n's and Gemma 4 E's per_layer_token_embd,
    // which their parameter counts hold: 2.8B of Gemma 4 E4B's 8B). A tied input embedding is
    // also the output head, whose product every token runs (a parameter count holds it once):
    // not a lookup alone. A prompt without per-token logits runs the head for its last token
    // only (llama_batch_allocr::init); taking the head out of a prompt token's FLOPs raised
    // prefill's p90 left out (docs/SPEED.md, #34), so it stays, standing in for a per-model cost.
    const double input_lookup =
        m.arch.tied_embeddings ? 0 : static_cast<double>(m.arch.hidden_size);
    const double lookup = static_cast<double>(m.arch.vocab_size) *
                          (input_lookup + static_cast<double>(m.arch.layers) *
                                              static_cast<double>(per_layer_embedding_width(m)));
    // A routed-expert count past 64 bits leaves the experts out of the term.
    const double expert = std::min(routed_params_per_token(m).value_or(0.0), active);
    f.expert = 2.0 * expert;
    f.dense = 2.0 * std::max(active - expert - lookup, active * 0.05);
    f.attention = attention_flops(m, depth, 0);
    f.masked_attention = attention_flops(m, depth, ubatch) - f.attention;
    f.wide_attention = attention_flops(m, depth, 0, true);
    return f;
}

double ratio(double part, double whole) {
    return whole > 0 ? part / whole : 0;
}

// The share of a model's layers that carry a recurrent state in place of attention: their
// scan (Gated DeltaNet, Mamba, short convolution) runs kernels of its own, per token.
double recurrent_share(const Model& m) {
    double recurrent = 0, all = 0;
    for (const LayerGroup& g : m.arch.layer_groups) {
        const auto n = static_cast<double>(g.count);
        all += n;
        if (g.kind == LayerKind::linear || g.kind == LayerKind::ssm || g.kind == LayerKind::conv)
            recurrent += n;
    }
    return ratio(recurrent, all);
}

// How many times Metal's decode reads each cached position. Its vector flash-attention kernel
// runs one query head a threadgroup (ggml-metal-ops.cpp, ggml_metal_op_flash_attn_ext at
// b828e18c7 and at d8a24cce: nhptg = 1; kernel_flash_attn_ext_vec reads KV head iq2 / (ne02 /
// ne_12_2)), so a KV head is read once per query head it serves. Absorbed MLA keeps one latent
// for every head (MQA: src/models/deepseek2.cpp), read `heads` times; a GQA group's 4-8 heads
// show no such cost on the same M2 Ultra (their caches read at 300-370 GB/s of its 800), so only
// a cache that is all MLA latent counts it (#34).
double metal_latent_readers(const Model& m) {
    bool latent = false;
    for (const LayerGroup& g : m.arch.layer_groups) {
        if (g.kind == LayerKind::full || g.kind == LayerKind::sliding) return 1;
        latent = latent || g.kind == LayerKind::mla;
    }
    return latent ? static_cast<double>(std::max<std::uint64_t>(m.arch.attention.heads, 1)) : 1;
}

// A layer's activation tensors by width (SpeedWork::activations), averaged over the model's
// layers. Per layer: the hidden state's six (the attention norm's output, the output
// projection's, the residual sum, the FFN norm's output, the down projection's, the residual
// sum); an attention layer's query three times (q, roped q, the attention's output) and its key
// width three times (k, roped k, v); a recurrent mixer's value and key widths the same way; the
// FFN's width three times where gated (gate, up, their product), twice where not; a MoE layer's
// routed experts' the same at top-k times the expert's width, and its shared expert's.
void set_activations(const Model& m, SpeedWork& work) {
    const Architecture& a = m.arch;
    const auto layers = static_cast<double>(a.layers);
    if (layers <= 0) return;
    double q = 0, kv = 0, mixers = 0;  // width x layers, and the layers
    for (const LayerGroup& g : a.layer_groups) {
        const auto n = static_cast<double>(g.count);
        double gq = 0, gkv = 0;
        if (g.kind == LayerKind::full || g.kind == LayerKind::sliding) {
            const AttentionDims d = attention_dims(m, g);
            const auto heads = static_cast<double>(d.heads);
            gq = heads * static_cast<double>(d.k_dim);
            gkv = static_cast<double>(d.kv_heads * d.k_dim);
        } else if (g.kind == LayerKind::mla) {
            gq = static_cast<double>(mla_heads(a, g) * (g.qk_nope_head_dim + g.qk_rope_head_dim));
            gkv = static_cast<double>(g.kv_lora_rank + g.qk_rope_head_dim);
        } else if (g.kind == LayerKind::linear) {
            gq = static_cast<double>(g.value_heads * g.value_head_dim);
            gkv = static_cast<double>(g.key_heads * g.key_head_dim);
        } else {
            gq = static_cast<double>(g.inner_size);
        }
        q += gq * n;
        kv += gkv * n;
        mixers += n;
    }
    const double ffn_tensors = a.gated_ffn ? 3 : 2;
    const double moe_layers = a.moe ? static_cast<double>(a.moe->moe_layers) : 0;
    const double dense = a.intermediate_size > 0 ? std::max(layers - moe_layers, 0.0) : 0;
    auto* out = work.activations;
    out[0] = {static_cast<double>(a.hidden_size), 6};
    out[1] = {ratio(q, mixers), 3 * mixers / layers};
    out[2] = {ratio(kv, mixers), 3 * mixers / layers};
    out[3] = {static_cast<double>(a.intermediate_size), ffn_tensors * dense / layers};
    if (a.moe) {
        const MoE& e = *a.moe;
        const double expert_tensors = e.gated ? 3 : 2;
        out[4] = {static_cast<double>(e.experts_per_token * e.expert_intermediate_size),
                  expert_tensors * moe_layers / layers};
        out[5] = {static_cast<double>(e.shared_experts * e.shared_expert_intermediate_size),
                  expert_tensors * moe_layers / layers};
    }
}

}  // namespace

bool is_float_quant(const Quant& quant) {
    return quant.bpw_e4 >= 160000;
}

SpeedBasis speed_basis(const Model& model, const Quant& quant, std::uint64_t context,
                       const SpeedPoint& point) {
    SpeedBasis b;
    // The average position of the tokens measured: a test of n tokens after `depth` cached ones
    // attends to depth + n / 2 positions on average.
    const double depth = static_cast<double>(point.depth) + static_cast<double>(point.tokens) / 2.0;
    const ModelFlops flops = model_flops(model, depth, static_cast<double>(point.ubatch));
    b.dense_flops = flops.dense;
    b.expert_flops = flops.expert;
    b.attention_flops = flops.attention;
    b.masked_attention_flops = flops.masked_attention;
    b.wide_head_attention_flops = flops.wide_attention;
    b.cache_positions = cache_positions(model, depth);
    // A micro-batch's mask spans the cache up to its last token: on average over a prompt's
    // micro-batches, the depth, half the prompt and half a micro-batch.
    const auto tokens = static_cast<double>(point.tokens);
    const double spanned = static_cast<double>(point.depth) +
                           (tokens + std::min(tokens, static_cast<double>(point.ubatch))) / 2.0;
    b.shell.mask_cells = mask_cells(model, spanned, static_cast<double>(point.ubatch));
    b.kv_share = context > 0 ? std::min(1.0, depth / static_cast<double>(context)) : 0;
    b.recurrent = recurrent_share(model);
    // Bytes to weights: bpw_e4 is bits per weight x 10^4.
    b.weights_per_byte = quant.bpw_e4 > 0 ? 8e4 / static_cast<double>(quant.bpw_e4) : 0;
    // Every routed expert over the ones a token runs: the experts held for each one active.
    b.experts_held = model.arch.moe && model.arch.moe->experts_per_token > 0
                         ? static_cast<double>(model.arch.moe->experts) /
                               static_cast<double>(model.arch.moe->experts_per_token)
                         : 0;
    SpeedWork& work = b.shell;
    work.float_weights = is_float_quant(quant);
    work.family = quant_family(quant);
    work.latent_readers = metal_latent_readers(model);
    work.weights_per_byte = b.weights_per_byte;
    work.expert_share = b.experts_held > 0 ? 1.0 / b.experts_held : 0;
    if (model.arch.moe && model.arch.moe->experts > 0) {
        const MoE& moe = *model.arch.moe;
        work.experts = static_cast<double>(moe.experts);
        work.expert_ffn_rows = moe.expert_intermediate_size;
        work.expert_down_rows = routed_expert_width(model);
        work.expert_matrix_weights = static_cast<double>(moe.expert_intermediate_size) *
                                     static_cast<double>(routed_expert_width(model));
        work.expert_matrices = moe.gated ? 3 : 2;
    }
    work.ffn_rows = model.arch.intermediate_size;
    work.hidden_size = model.arch.hidden_size;
    work.ffn_matrices = model.arch.gated_ffn ? 3 : 2;
    const std::uint64_t moe_layers = model.arch.moe ? model.arch.moe->moe_layers : 0;
    b.dense_ffn_layers =
        static_cast<double>(model.arch.intermediate_size > 0 && model.arch.layers > moe_layers
                                ? model.arch.layers - moe_layers
                                : 0);
    work.bf16_weights = quant.id == "BF16" || quant.file_type == "BF16";
    const std::string& type = written_type(quant);
    work.q4_legacy_weights = type == "Q4_0" || type == "Q4_1";
    work.hand_over_bytes = 4.0 * static_cast<double>(model.arch.hidden_size);
    set_activations(model, work);
    // An LFM2 short convolution runs whole on every GPU under -sm tensor (speed_work).
    for (const LayerGroup& g : model.arch.layer_groups) {
        if (g.kind == LayerKind::conv) b.mirrored_layers += static_cast<double>(g.count);
    }
    return b;
}

namespace {

// What every share of a placement holds together: the whole a share's FLOPs are a part of.
struct Totals {
    double active = 0, experts = 0, layers = 0;
};

Totals totals_of(const Placement& placement) {
    Totals t;
    const auto add = [&](const Share& s) {
        t.active += static_cast<double>(s.active_weights);
        t.experts += static_cast<double>(s.active_experts);
        t.layers += static_cast<double>(s.layers);
    };
    for (const Share& g : placement.gpus) add(g);
    add(placement.ram);
    return t;
}

DeviceWork work_of(const SpeedBasis& b, const Totals& t, const Share& s) {
    DeviceWork w;
    const auto a = static_cast<double>(s.active_weights);
    const auto e = static_cast<double>(s.active_experts);
    w.cache_bytes = static_cast<double>(s.kv_cache) * b.kv_share;
    w.read_bytes = a + w.cache_bytes + static_cast<double>(s.recurrent_state);
    w.resident_bytes = static_cast<double>(s.weights - s.embedding);
    w.dense_flops = b.dense_flops * ratio(a - e, t.active - t.experts);
    w.attention_flops = b.attention_flops * ratio(static_cast<double>(s.layers), t.layers);
    w.masked_attention_flops =
        b.masked_attention_flops * ratio(static_cast<double>(s.layers), t.layers);
    w.wide_head_attention_flops =
        b.wide_head_attention_flops * ratio(static_cast<double>(s.layers), t.layers);
    w.cache_positions = b.cache_positions * ratio(static_cast<double>(s.layers), t.layers);
    w.dense_ffn_layers = b.dense_ffn_layers * ratio(static_cast<double>(s.layers), t.layers);
    w.expert_flops = b.expert_flops * ratio(e, t.experts);
    w.layers = s.layers;
    w.moe_layers = s.moe_layers;
    w.recurrent_layers = static_cast<double>(s.layers) * b.recurrent;
    w.weight_count = a * b.weights_per_byte;
    w.expert_weights = e * b.experts_held * b.weights_per_byte;
    w.expert_bytes = std::min(e * b.experts_held, w.resident_bytes);
    return w;
}

}  // namespace

DeviceWork share_work(const SpeedBasis& basis, const Placement& placement, const Share& share) {
    return work_of(basis, totals_of(placement), share);
}

SpeedWork speed_work(const SpeedBasis& basis, const Placement& placement) {
    const Totals t = totals_of(placement);
    SpeedWork work = basis.shell;
    work.host_prefill_on_cpu = !placement.op_offload;
    // Under -sm tensor every GPU runs every layer, and each layer reduces two partial sums: its
    // attention's (or Gated DeltaNet's) output product and its FFN's down product; an LFM2
    // short convolution runs whole on every GPU (MIRRORED), so its layer reduces the FFN's only.
    work.tensor_parallel = placement.tensor_parallel;
    if (work.tensor_parallel && !placement.gpus.empty()) {
        work.reductions =
            2.0 * static_cast<double>(placement.gpus.front().layers) - basis.mirrored_layers;
    }
    work.gpus.reserve(placement.gpus.size());  // one allocation, not one per GPU
    for (const Share& g : placement.gpus) work.gpus.push_back(work_of(basis, t, g));
    work.ram = work_of(basis, t, placement.ram);
    return work;
}

SpeedWork speed_work(const Model& model, const Quant& quant, const Placement& placement,
                     std::uint64_t context, const SpeedPoint& point) {
    return speed_work(speed_basis(model, quant, context, point), placement);
}

}  // namespace canitrun
