#include "cuda_fusion.hpp"

#include "cache_setup.hpp"
#include "canitrun/checked.hpp"
#include "canitrun/tensor_layout.hpp"
#include "moe_floats.hpp"

namespace canitrun {

namespace {

// ggml-cuda.cu's MOE_WEIGHTED_REDUCTION_MAX_EXPERTS (line 3037 at 0ad4a86): the matcher takes
// 2 to 15 experts a token (line 3111), since ggml_can_fuse_subgraph takes at most 31 nodes.
constexpr std::uint64_t kMaxFusedExperts = 15;

// Whether build_moe_ffn's sum matches ggml_cuda_match_moe_weighted_reduction (ggml-cuda.cu
// lines 3047-3175): an f32 MUL of the routed experts' outputs [n_embd, n_used, n_tokens] by the
// router weights [1, n_used, n_tokens], then n_used views of it and n_used - 1 ADDs.
// llama-graph.cpp builds exactly that (lines 2320-2346) unless the architecture weighs the
// experts' inputs instead (weight_before_ffn, line 2020: llama4 alone), and with one expert a
// token it makes a CONT, which the matcher refuses.
bool reduction_fuses(const Model& m) {
    if (!m.is_moe()) return false;
    const std::uint64_t used = m.arch.moe->experts_per_token;
    if (used < 2 || used > kMaxFusedExperts) return false;
    const auto arch = llama_arch(m);
    return !arch || *arch != "llama4";
}

}  // namespace

// At the pinned build ggml_backend_cuda_graph_optimize (ggml-cuda.cu lines 4505-4535; off
// only under GGML_CUDA_DISABLE_FUSION, line 4508) asks the scheduler, for every matched
// reduction, to keep the experts' outputs and the router weights alive until the sum is done
// (add_alloc_dep, llama.cpp PR #27301; the fusion is PR #25952, August 2026; ggml-backend.cpp
// lines 1445-1530 hand ggml-alloc the kept tensors as sources of a node after the sum). So
// ggml_mul cannot overwrite the experts in place: ffn_moe_weighted is a second n_used x n_embd
// tensor. Where ggml-alloc then puts the sum (one n_embd row) is its best fit (ggml-alloc.c
// lines 207-242: the smallest free block that holds it, the last of equal ones), read off with
// tools/accuracy/galloc_replay.py --cuda, which gives the H200's CUDA0 buffers (80fb11a,
// validation/cuda-h200/) to 0.01 MiB:
// - where the down products do not fit the freed gate and up outputs (moe_down_fits_freed)
//   they go above the layer's live rows, ffn_moe_weighted takes the block the gate, up and
//   activation outputs left, and the sum that block's rest right above it; in the last layer
//   the residual add, the output norm and the logits follow it upwards: n_used rows more than
//   the logits batch. Qwen3.5-35B-A3B at 32768 cells, ubatch 512: 521.02 MiB = 512 x 4 x
//   (248,320 + 2,048 + 8 x 2,048) B (the logits, the sum, the weighted experts); ubatch 2048:
//   2084.06. A fork's log (GenerelSchwerz/llama.cpp issue #80, Qwen3.6-35B-A3B at ubatch 8192)
//   shows the fusion adding 512.53 MiB there: 8 rows of 64 MiB.
// - that needs a shared expert run after the routed ones (has_shared_expert): it keeps
//   ffn_norm alive. Without one, ffn_norm's row is freed after the up product and is an exact
//   fit for the sum lower down: Qwen3-30B-A3B's six one-sequence settings stay the logits
//   batch (300.75 MiB at ubatch 512). Not planned: the tie of two exact rows that sends it up
//   anyway (Qwen3-30B-A3B with 4 sequences, 346.76 MiB, -13 %).
// Where an earlier phase left a free block the sum fits better, it lands there instead and
// this reads high (Qwen3-Next at 4096 / 32768 cells, +10 / +12 %, Qwen3.5 at 131072 +6 %);
// where a freed mask copy leaves a larger one below, low (Qwen3-Next at 131072 cells, 416.75
// MiB: -18 %, was -28 %). With hyper-connections (DeepSeek V4) the head mixes the streams
// into a fresh tensor that lands elsewhere (moe_sum_floats), so the logits do not follow.
std::uint64_t fused_moe_sum_floats(const Model& m) {
    if (!reduction_fuses(m) || moe_down_fits_freed(m) || m.arch.hyper_connections > 0) return 0;
    const MoE& e = *m.arch.moe;
    if (!has_shared_expert(e)) return 0;
    return checked::mul(e.experts_per_token, m.arch.hidden_size);
}

// A row per output: the last layer's get_rows keeps only the outputs' rows before its FFN.
Result<Bytes> fused_moe_sum_of(const Model& model, const CacheSetup& setup) {
    return catch_overflow(
        [&]() -> Result<Bytes> {
            return checked::mul(checked::mul(setup.g.outputs, kF32Bytes),
                                fused_moe_sum_floats(model));
        },
        [&] { return overflow_error("the MoE sum of " + model.id, "lower --ubatch"); });
}

}  // namespace canitrun
