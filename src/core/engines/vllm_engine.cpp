#include "canitrun/vllm_engine.hpp"

#include <algorithm>

#include "canitrun/kv_cache.hpp"

// How vLLM (V1 engine, 0.10-0.11) sizes its memory, from its source and docs:
// - the budget is gpu_memory_utilization x total GPU memory (docs: "Engine Arguments",
//   --gpu-memory-utilization, default 0.9); from it vLLM subtracts the weights, the peak
//   activation memory of a profiling run of max_num_batched_tokens tokens and the non-torch
//   memory (CUDA context, NCCL), then splits the rest into KV blocks (vllm/v1/worker/
//   gpu_worker.py determine_available_memory).
// - a KV block holds block_size (16) tokens of every attention layer: 2 x kv_heads x head_dim
//   x dtype bytes per token and layer (AttentionSpec.page_size_bytes); MLA layers one latent +
//   rope key (MLAAttentionSpec).
// - a sliding-window layer needs at most cdiv(min(window - 1 + max_num_batched_tokens,
//   max_model_len), block_size) + 1 blocks per sequence (SlidingWindowSpec.
//   max_memory_usage_bytes in vllm/v1/kv_cache_interface.py: "+1 here because the sliding
//   window may not start from the beginning of the block").
// - linear-attention / Mamba layers keep a fixed state per sequence (MambaSpec); counted here
//   at llama.cpp's f32 size, unconfirmed for vLLM's dtype choices.
// The activation reserve and runtime figures are canitrun's working estimates (unconfirmed):
// runtime = 512 MiB CUDA context + 512 MiB CUDA graphs; activations = max_num_batched_tokens x
// (2 x FFN width + 4 x hidden) x 2 bytes plus 256 sequences of f32 logits for the sampler.

namespace canitrun {
namespace {

constexpr std::uint64_t kMiB = 1024ULL * 1024;

std::uint64_t cdiv(std::uint64_t a, std::uint64_t b) {
    return checked::add(a, b - 1) / b;
}

Result<std::uint64_t> bits_per_weight_e4(const Quant& q) {
    if (q.format == "safetensors" || q.id == "FP16" || q.id == "BF16" || q.id == "FP32") {
        return q.bpw_e4;
    }
    return fail(ErrorKind::bad_input,
                "--engine vllm loads checkpoints, not the " + q.format + " quantization " + q.id,
                "use --quant BF16, FP16, FP8, NVFP4, AWQ or GPTQ");
}

std::uint64_t ffn_width(const Model& m) {
    if (!m.is_moe()) return m.arch.intermediate_size;
    const MoE& e = *m.arch.moe;
    return checked::add(checked::mul(e.experts_per_token, e.expert_intermediate_size),
                        e.shared_expert_intermediate_size);
}

}  // namespace

Result<VllmEstimate> estimate_vllm(const Model& model, const Quant& quant, const VllmOptions& o) {
    const auto bpw = bits_per_weight_e4(quant);
    if (!bpw) return std::unexpected(bpw.error());
    if (o.gpu_memory == 0) {
        return fail(ErrorKind::bad_input, "--engine vllm needs a GPU to size its KV pool",
                    "add --gpu NAME or --vram GB");
    }
    if (o.gpu_memory_utilization_pct == 0 || o.gpu_memory_utilization_pct > 100) {
        return fail(ErrorKind::bad_input, "--gpu-memory-utilization must be in (0, 1]");
    }
    try {
        constexpr std::uint64_t kBf16 = 2;
        const auto& a = model.arch;
        const Bytes weights = checked::mul_div_ceil(model.params_total, *bpw, 8 * kBpwScale);
        const Bytes runtime = 1024 * kMiB;
        const Bytes activations = checked::add(
            checked::mul(
                checked::mul(o.max_num_batched_tokens, kBf16),
                checked::add(checked::mul(2, ffn_width(model)), checked::mul(4, a.hidden_size))),
            checked::mul(256ULL * 4, a.vocab_size));
        VllmEstimate r;
        r.budget = checked::mul_div_floor(o.gpu_memory, o.gpu_memory_utilization_pct, 100);

        // KV per token (full and MLA layers) and per sequence (sliding layers, capped).
        std::uint64_t full_per_token = 0;
        Bytes sliding_per_seq = 0;
        const std::uint64_t bs = o.block_size;
        // Layers that share an earlier layer's cache (Gemma 3n's KV sharing) allocate none.
        const std::vector<std::uint64_t> owners = kv_owner_counts(model);
        for (std::size_t gi = 0; gi < a.layer_groups.size(); ++gi) {
            LayerGroup g = a.layer_groups[gi];
            g.count = owners[gi];
            const std::uint64_t per_token = checked::mul(kv_elements_per_token(model, g), kBf16);
            if (g.kind == LayerKind::sliding) {
                const std::uint64_t tokens =
                    std::min(checked::add(g.window - 1, o.max_num_batched_tokens), o.context);
                const std::uint64_t pages = cdiv(tokens, bs) + 1;
                sliding_per_seq = checked::add(
                    sliding_per_seq,
                    checked::mul(checked::mul(checked::mul(pages, bs), per_token), g.count));
            } else {
                full_per_token = checked::add(full_per_token, checked::mul(per_token, g.count));
            }
        }
        r.page_bytes = checked::mul(full_per_token, bs);
        r.per_sequence_fixed = checked::add(recurrent_state_bytes(model), sliding_per_seq);

        const Bytes reserved = checked::add(weights, checked::add(activations, runtime));
        r.kv_pool = r.budget > reserved ? r.budget - reserved : 0;
        const Bytes seq_at_ctx =
            checked::add(checked::mul(cdiv(o.context, bs), r.page_bytes), r.per_sequence_fixed);
        if (r.kv_pool > r.per_sequence_fixed) {
            const Bytes left = r.kv_pool - r.per_sequence_fixed;
            r.max_context_one_seq =
                r.page_bytes == 0 ? o.context : checked::mul(left / r.page_bytes, bs);
        }
        r.max_sequences = seq_at_ctx == 0 ? 0 : r.kv_pool / seq_at_ctx;

        r.estimate.terms.push_back({"weights", weights, Device::gpu});
        r.estimate.terms.push_back({"activation_reserve", activations, Device::gpu});
        r.estimate.terms.push_back({"runtime", runtime, Device::gpu});
        r.estimate.terms.push_back({"kv_cache", seq_at_ctx, Device::gpu});
        r.estimate.total();
        return r;
    } catch (const OverflowError&) {
        return fail(ErrorKind::overflow,
                    "the estimate for " + model.id + " does not fit in 64-bit byte counts",
                    "lower --ctx");
    }
}

}  // namespace canitrun
