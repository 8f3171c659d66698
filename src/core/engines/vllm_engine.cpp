#include "canitrun/vllm_engine.hpp"

#include <algorithm>

#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/param_count.hpp"

// How vLLM (V1 engine, 0.10-0.11) sizes its memory, from its source and docs:
// - the budget is gpu_memory_utilization x total GPU memory (docs: "Engine Arguments",
//   --gpu-memory-utilization, default 0.9); from it vLLM subtracts the weights, the peak
//   activation memory of a profiling run of max_num_batched_tokens tokens and the non-torch
//   memory (CUDA context, NCCL), then splits the rest into KV blocks (vllm/v1/worker/
//   gpu_worker.py determine_available_memory). With several workers the engine takes the
//   fewest blocks any worker has (vllm/v1/core/kv_cache_utils.py).
// - a KV block holds block_size (16) tokens of every attention layer: 2 x kv_heads x head_dim
//   x dtype bytes per token and layer (AttentionSpec.page_size_bytes); MLA layers one latent +
//   rope key (MLAAttentionSpec), which every tensor-parallel rank keeps whole.
// - tensor parallel: QKVParallelLinear gives each rank heads / T query heads and
//   max(1, kv_heads / T) KV heads (a copy of one when T > kv_heads); the MLP, the experts
//   (FusedMoE), VocabParallelEmbedding and ParallelLMHead are divided by T.
// - pipeline parallel: get_pp_indices (vllm/distributed/utils.py) gives each stage
//   layers / P layers, the remainder one each to the stages before the last; the embedding
//   lives on the first stage, the output head on the last.
// - a sliding-window layer needs at most cdiv(min(window - 1 + max_num_batched_tokens,
//   max_model_len), block_size) + 1 blocks per sequence (SlidingWindowSpec.
//   max_memory_usage_bytes in vllm/v1/kv_cache_interface.py: "+1 here because the sliding
//   window may not start from the beginning of the block").
// - linear-attention / Mamba layers keep a fixed state per sequence (MambaSpec); counted here
//   at llama.cpp's f32 size, unconfirmed for vLLM's dtype choices.
// The activation reserve and runtime figures are canitrun's working estimates (unconfirmed):
// runtime = 512 MiB CUDA context + 512 MiB CUDA graphs per GPU; activations =
// max_num_batched_tokens x (2 x FFN width / T + 4 x hidden) x 2 bytes, plus 256 sequences of
// f32 logits for the sampler on the last stage.

namespace canitrun {
namespace {

constexpr std::uint64_t kBf16 = 2;

std::uint64_t cdiv(std::uint64_t a, std::uint64_t b) {
    return checked::add(a, b - 1) / b;
}

std::uint64_t embedding_params(const Model& m) {
    return checked::mul(checked::mul(m.arch.vocab_size, m.arch.hidden_size),
                        m.arch.tied_embeddings ? 1 : 2);
}

// Parameters of each layer by the architecture's formula (attention or mixer + FFN); MoE
// layers are the last moe_layers of the stack (DeepSeek's first_k_dense_replace).
std::vector<std::uint64_t> layer_params(const Model& m) {
    const std::vector<std::size_t> order = layer_group_order(m);
    std::vector<std::uint64_t> params;
    params.reserve(order.size());
    const std::uint64_t n = order.size();
    const std::uint64_t moe_layers =
        m.is_moe() ? (m.arch.moe->moe_layers ? m.arch.moe->moe_layers : n) : 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const FfnParams f = ffn_params(m, i >= n - std::min(moe_layers, n));
        params.push_back(checked::add(mixer_params(m, m.arch.layer_groups[order[i]]),
                                      checked::add(f.always, f.routed)));
    }
    return params;
}

// The KV heads one rank keeps of a group, over the group's total: max(1, kv / T) / kv.
struct KvShare {
    std::uint64_t num = 1, den = 1;
};
KvShare kv_share(const Model& m, const LayerGroup& g, std::uint64_t tp) {
    if (g.kind == LayerKind::mla) return {};  // the latent is kept whole on every rank
    const std::uint64_t kv = g.kv_heads ? g.kv_heads : m.arch.attention.kv_heads;
    if (kv == 0) return {};
    return {std::max<std::uint64_t>(1, kv / tp), kv};
}

struct StageKv {
    Bytes page = 0;        // per block of the stage's growing layers
    Bytes fixed = 0;       // per sequence: recurrent state, sliding pages
    Bytes kv_weights = 0;  // K/V projection copies when T > kv_heads
};

StageKv stage_kv(const Model& m, const VllmOptions& o, std::uint64_t first, std::uint64_t count) {
    const std::vector<std::size_t> order = layer_group_order(m);
    const std::uint64_t owning = m.arch.layers - std::min(m.arch.shared_kv_layers, m.arch.layers);
    const std::uint64_t tp = o.tensor_parallel;
    StageKv s;
    Bytes full_per_token = 0;
    for (std::uint64_t i = first; i < first + count && i < order.size(); ++i) {
        const LayerGroup& g = m.arch.layer_groups[order[i]];
        // A recurrent layer's state, and Falcon-H1's beside its KV
        s.fixed = checked::add(s.fixed, layer_recurrent_state_bytes(g) / tp);
        if (is_recurrent(g.kind)) continue;
        // Layers that share an earlier layer's cache (Gemma 3n's KV sharing) allocate none.
        if (i >= owning) continue;
        const KvShare share = kv_share(m, g, tp);
        const Bytes per_token = checked::mul_div_ceil(
            checked::mul(kv_elements_per_token(m, g), kBf16), share.num, share.den);
        if (share.num * tp > share.den && g.kind != LayerKind::mla) {
            // Each rank holds whole copies of KV heads: their K and V projections too.
            const std::uint64_t head_dim = g.head_dim ? g.head_dim : m.arch.attention.head_dim;
            s.kv_weights = checked::add(
                s.kv_weights,
                checked::mul_div_ceil(checked::mul(checked::mul(2, m.arch.hidden_size), head_dim),
                                      checked::mul(share.num, tp) - share.den, tp) *
                    kBf16);
        }
        if (g.kind == LayerKind::sliding) {
            const std::uint64_t tokens =
                std::min(checked::add(g.window - 1, o.max_num_batched_tokens), o.context);
            const std::uint64_t pages = cdiv(tokens, o.block_size) + 1;
            s.fixed =
                checked::add(s.fixed, checked::mul(checked::mul(pages, o.block_size), per_token));
        } else {
            full_per_token = checked::add(full_per_token, per_token);
        }
    }
    s.page = checked::mul(full_per_token, o.block_size);
    return s;
}

Result<bool> check_options(const VllmOptions& o) {
    if (o.gpu_memory == 0 && o.stage_gpu_memory.empty()) {
        return fail(ErrorKind::bad_input, "--engine vllm needs a GPU to size its KV pool",
                    "add --gpu NAME or --vram GB");
    }
    if (o.gpu_memory_utilization_pct == 0 || o.gpu_memory_utilization_pct > 100) {
        return fail(ErrorKind::bad_input, "--gpu-memory-utilization must be in (0, 1]");
    }
    if (o.tensor_parallel == 0 || o.pipeline_parallel == 0 || o.block_size == 0 ||
        o.max_num_seqs == 0) {
        return fail(ErrorKind::bad_input,
                    "tensor and pipeline parallel sizes, block size and --max-num-seqs must be "
                    "at least 1");
    }
    if (!o.stage_gpu_memory.empty() && o.stage_gpu_memory.size() != o.pipeline_parallel) {
        return fail(ErrorKind::bad_input, "one GPU memory size per pipeline stage is needed");
    }
    return true;
}

}  // namespace

Result<bool> check_tensor_parallel(const Model& model, std::uint64_t tp) {
    const auto& a = model.arch.attention;
    if (count_layers(model, LayerKind::compressed) > 0) {
        // its raw-window and compressed caches are not vLLM's paged K/V; counting them as
        // such would be a wrong answer
        return fail(ErrorKind::bad_input,
                    "the vLLM profile does not model DeepSeek V4's compressed attention cache",
                    "use --engine llama.cpp");
    }
    if (tp == 0) return fail(ErrorKind::bad_input, "--tensor-parallel-size must be at least 1");
    if (a.heads % tp != 0) {
        return fail(ErrorKind::bad_input,
                    "vLLM needs the attention heads (" + std::to_string(a.heads) +
                        ") to divide by the tensor parallel size (" + std::to_string(tp) + ")",
                    "use a tensor parallel size that divides " + std::to_string(a.heads));
    }
    if (checked::mul(cdiv(model.arch.vocab_size, 64), 64) % tp != 0) {
        return fail(ErrorKind::bad_input,
                    "vLLM needs the padded vocabulary (" +
                        std::to_string(checked::mul(cdiv(model.arch.vocab_size, 64), 64)) +
                        " rows) to divide by the tensor parallel size (" + std::to_string(tp) +
                        ")");
    }
    const bool mla = std::ranges::any_of(
        model.arch.layer_groups, [](const LayerGroup& g) { return g.kind == LayerKind::mla; });
    const std::uint64_t kv = a.kv_heads;
    if (!mla && kv != 0 && (kv >= tp ? kv % tp != 0 : tp % kv != 0)) {
        return fail(ErrorKind::bad_input, "vLLM needs the KV heads (" + std::to_string(kv) +
                                              ") and the tensor parallel size (" +
                                              std::to_string(tp) + ") to divide one by the other");
    }
    return true;
}

std::vector<std::uint64_t> pipeline_layers(std::uint64_t layers, std::uint64_t stages) {
    if (stages == 0) return {};
    std::vector<std::uint64_t> parts(stages, layers / stages);
    const std::uint64_t rest = layers % stages;
    // partitions[-i] += 1 for i in 2 .. rest + 1: the stages before the last, backwards.
    for (std::uint64_t i = 2; i < rest + 2; ++i) parts[stages - i] += 1;
    return parts;
}

Result<Bytes> checkpoint_weight_bytes(const Model& model, const Quant& q) {
    const bool checkpoint =
        q.format == "safetensors" || q.id == "FP16" || q.id == "BF16" || q.id == "FP32";
    if (!checkpoint) {
        return fail(
            ErrorKind::bad_input,
            "--engine vllm loads checkpoints, not the " + q.format + " quantization " + q.id,
            "use --quant BF16, FP16, FP8, NVFP4, AWQ or GPTQ");
    }
    return catch_overflow(
        [&]() -> Result<Bytes> {
            if (q.linear_bpw_e4 == 0) {
                return checked::mul_div_ceil(model.params_total, q.bpw_e4, 8 * kBpwScale);
            }
            const std::uint64_t emb = std::min(embedding_params(model), model.params_total);
            return checked::add(
                checked::mul_div_ceil(model.params_total - emb, q.linear_bpw_e4, 8 * kBpwScale),
                checked::mul(emb, kBf16));
        },
        [&] {
            return fail(ErrorKind::overflow, "the weights of " + model.id + " overflow 64 bits");
        });
}

namespace {

// The vocabulary as VocabParallelEmbedding pads it: to a multiple of 64, then divided by T.
std::uint64_t padded_vocab(const Model& m) {
    return checked::mul(cdiv(m.arch.vocab_size, 64), 64);
}

// One stage's weights per rank: its share of the body (the data's parameter count, spread by
// the formula's per-layer counts) over T, and its embedding tables' rows over T.
Bytes stage_weights(const Model& m, const Quant& q, Bytes all_weights,
                    const std::vector<std::uint64_t>& params, std::uint64_t first,
                    std::uint64_t count, bool last, std::uint64_t tp, std::uint64_t pp) {
    const std::uint64_t emb_params = std::min(embedding_params(m), m.params_total);
    const std::uint64_t emb_bpw = q.linear_bpw_e4 ? 16 * kBpwScale : q.bpw_e4;
    const Bytes emb_bytes = checked::mul_div_ceil(emb_params, emb_bpw, 8 * kBpwScale);
    const Bytes body = all_weights > emb_bytes ? all_weights - emb_bytes : 0;
    std::uint64_t all = 0, here = 0;
    for (std::size_t i = 0; i < params.size(); ++i) {
        all = checked::add(all, params[i]);
        if (i >= first && i < first + count) here = checked::add(here, params[i]);
    }
    Bytes w = all == 0 ? checked::mul_div_ceil(body, count, m.arch.layers)
                       : checked::mul_div_ceil(body, here, all);
    w = cdiv(w, tp);
    // The input embedding on the first stage, the output head on the last; a tied table is
    // loaded by both ends when they differ.
    const Bytes table = checked::mul_div_ceil(
        checked::mul(padded_vocab(m) / tp, m.arch.hidden_size), emb_bpw, 8 * kBpwScale);
    if (first == 0) w = checked::add(w, table);
    if (last && (!m.arch.tied_embeddings || pp > 1)) w = checked::add(w, table);
    return w;
}

// One sequence of o.context tokens: its pages and its fixed state.
Bytes vllm_sequence_bytes(const VllmOptions& o, Bytes page_bytes, Bytes per_sequence_fixed) {
    return checked::add(checked::mul(cdiv(o.context, o.block_size), page_bytes),
                        per_sequence_fixed);
}

// What every stage is sized from.
struct VllmSizing {
    Bytes all_weights = 0;              // the checkpoint, all ranks together
    std::vector<std::uint64_t> params;  // per layer, by the formula
    Bytes ffn_act = 0;                  // a profiling run's activations, per rank
    Bytes logits = 0;                   // the sampler's logits, on the last stage
};

VllmSizing read_vllm_sizing(const Model& model, const VllmOptions& o, Bytes all_weights) {
    VllmSizing z;
    z.all_weights = all_weights;
    z.params = layer_params(model);
    z.ffn_act =
        checked::mul(checked::mul(o.max_num_batched_tokens, kBf16),
                     checked::add(checked::mul(2, cdiv(active_ffn_width(model), o.tensor_parallel)),
                                  checked::mul(4, model.arch.hidden_size)));
    z.logits = checked::mul(256ULL * 4, model.arch.vocab_size);
    return z;
}

// One stage sized, and what its KV pool holds.
struct VllmStageFit {
    VllmStage stage;
    std::uint64_t tokens = 0;     // one sequence's tokens
    std::uint64_t sequences = 0;  // sequences of o.context tokens
};

// Stage `s`, layers first .. first + layers - 1, on its own GPUs.
VllmStageFit size_vllm_stage(const Model& model, const Quant& quant, const VllmOptions& o,
                             const VllmSizing& z, std::size_t s, std::uint64_t first,
                             std::uint64_t layers, bool last) {
    VllmStageFit fit;
    VllmStage& st = fit.stage;
    st.first_layer = first;
    st.layers = layers;
    st.gpu_memory = o.stage_gpu_memory.empty() ? o.gpu_memory : o.stage_gpu_memory[s];
    st.budget = checked::mul_div_floor(st.gpu_memory, o.gpu_memory_utilization_pct, 100);
    const StageKv kv = stage_kv(model, o, first, layers);
    st.weights = checked::add(stage_weights(model, quant, z.all_weights, z.params, first, layers,
                                            last, o.tensor_parallel, o.pipeline_parallel),
                              kv.kv_weights);
    st.activations = last ? checked::add(z.ffn_act, z.logits) : z.ffn_act;
    st.runtime = 1024 * kMiB;
    st.page_bytes = kv.page;
    st.per_sequence_fixed = kv.fixed;
    const Bytes reserved = checked::add(st.weights, checked::add(st.activations, st.runtime));
    st.kv_pool = st.budget > reserved ? st.budget - reserved : 0;
    const Bytes seq_at_ctx = vllm_sequence_bytes(o, st.page_bytes, st.per_sequence_fixed);
    st.blocks = st.page_bytes == 0 ? 0 : st.kv_pool / st.page_bytes;
    st.sequence_bytes = seq_at_ctx;
    if (st.kv_pool > st.per_sequence_fixed) {
        fit.tokens =
            st.page_bytes == 0
                ? o.context
                : checked::mul((st.kv_pool - st.per_sequence_fixed) / st.page_bytes, o.block_size);
    }
    fit.sequences = seq_at_ctx == 0 ? 0 : st.kv_pool / seq_at_ctx;
    return fit;
}

// The estimate's figures are the limiting stage's: its GPUs' terms, one sequence at o.context.
void set_vllm_limiting_stage(const VllmOptions& o, VllmEstimate& r) {
    const VllmStage& lim = r.stages[r.limiting_stage];
    r.budget = lim.budget;
    r.kv_pool = lim.kv_pool;
    r.page_bytes = lim.page_bytes;
    r.per_sequence_fixed = lim.per_sequence_fixed;
    const Bytes seq_at_ctx = vllm_sequence_bytes(o, lim.page_bytes, lim.per_sequence_fixed);
    r.estimate.terms.push_back({TermKind::weights, lim.weights, Device::gpu});
    r.estimate.terms.push_back({TermKind::activation_reserve, lim.activations, Device::gpu});
    r.estimate.terms.push_back({TermKind::runtime, lim.runtime, Device::gpu});
    r.estimate.terms.push_back({TermKind::kv_cache, seq_at_ctx, Device::gpu});
    r.estimate.total();  // the terms must add up in 64 bits: an overflow throws here
}

}  // namespace

VllmOptions vllm_serve_defaults(Bytes gpu_memory, bool a100) {
    VllmOptions o;
    o.gpu_memory = gpu_memory;
    const bool large = gpu_memory >= (70ULL << 30) && !a100;
    o.max_num_batched_tokens = large ? 8192 : 2048;
    o.max_num_seqs = std::min<std::uint64_t>(large ? 1024 : 256, o.max_num_batched_tokens);
    return o;
}

Result<VllmEstimate> estimate_vllm(const Model& model, const Quant& quant, const VllmOptions& o) {
    CANITRUN_TRY(check_options(o));
    CANITRUN_TRY(check_tensor_parallel(model, o.tensor_parallel));
    if (o.pipeline_parallel > model.arch.layers) {
        return fail(ErrorKind::bad_input, "the pipeline parallel size (" +
                                              std::to_string(o.pipeline_parallel) +
                                              ") is more than the model's layers");
    }
    CANITRUN_TRY_ASSIGN(const Bytes all_weights, checkpoint_weight_bytes(model, quant));
    return catch_overflow(
        [&]() -> Result<VllmEstimate> {
            VllmEstimate r;
            r.tensor_parallel = o.tensor_parallel;
            r.pipeline_parallel = o.pipeline_parallel;
            r.weights_total = all_weights;
            r.max_num_seqs = o.max_num_seqs;
            const VllmSizing sizing = read_vllm_sizing(model, o, all_weights);
            const std::vector<std::uint64_t> split =
                pipeline_layers(model.arch.layers, o.pipeline_parallel);
            std::uint64_t first = 0;
            std::uint64_t best_tokens = UINT64_MAX;
            r.max_sequences = o.max_num_seqs;
            for (std::size_t s = 0; s < split.size(); ++s) {
                const VllmStageFit fit = size_vllm_stage(model, quant, o, sizing, s, first,
                                                         split[s], s + 1 == split.size());
                r.max_sequences = std::min(r.max_sequences, fit.sequences);
                if (fit.tokens < best_tokens) {
                    best_tokens = fit.tokens;
                    r.limiting_stage = s;
                }
                r.stages.push_back(fit.stage);
                first += split[s];
            }
            r.max_context_one_seq = best_tokens;
            // At most the window vLLM serves: the model's, or a longer --max-model-len that
            // rope scaling reaches (vllm_layout's YaRN override).
            r.longest_context =
                model.context_native > 0
                    ? std::min(best_tokens, std::max(model.context_native, o.context))
                    : best_tokens;
            set_vllm_limiting_stage(o, r);
            return r;
        },
        [&] { return overflow_error("the estimate for " + model.id, "lower --ctx"); });
}

std::string default_vllm_quant(const Model& model) {
    return model.run.checkpoint_dtype.empty() ? "BF16" : model.run.checkpoint_dtype;
}

Result<const Quant*> vllm_default_quant(const Database& db, const Model& model) {
    return db.find_quant(default_vllm_quant(model));
}

}  // namespace canitrun
