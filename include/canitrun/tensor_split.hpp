#pragma once
// llama.cpp's --split-mode tensor (-sm tensor, "EXPERIMENTAL" in its help), as the pinned build
// 0ad4a86 allocates it (issue #32):
// - src/llama.cpp, llama_prepare_model_devices: every GPU (no CPU device) goes into one Meta
//   device (ggml_backend_meta_device), which llama.cpp then places layers on as on one GPU: every
//   layer, its KV cache and the output head on it, the host inputs (token_embd) on the host.
// - src/llama-model.cpp, llama_meta_device_get_split_state: each weight and each KV cache tensor
//   is cut along one axis or kept whole on every GPU (MIRRORED): Q, K, V (and their fused QKV)
//   and the FFN's up and gate (routed experts' too) by their output rows (axis 1); the attention
//   output, the FFN's down and the K and V caches along axis 0; the output head by its rows;
//   norms, routers, shared experts and everything else whole on every GPU. A cut rounds each
//   GPU's end down to a granularity: the attention's lcm(n_gqa x head_dim, the block size of
//   attn_output's type doubled while under 128 and under n_gqa x head_dim / GPUs) for Q (and
//   its / n_gqa for K, V and the caches), lcm(the FFN down's block size, 128) for the FFN;
//   the last GPU takes the rest. The points: -ts's proportions (cumulative, in float) or, with
//   none (common passes zeros), an even split; rotated by one GPU for each earlier layer of the
//   same kind, and by n_layer for the tensors outside the layers.
// - ggml/src/ggml-backend-meta.cpp, ggml_backend_meta_alloc_ctx_tensors_from_buft: each GPU's
//   buffer holds its slices (weights and KV cache alike); a compute buffer
//   (ggml_backend_meta_buffer_type_alloc_buffer) is allocated at the whole graph's size on every
//   GPU.
// - llama.cpp refuses it for some architectures (llm_arch_supports_sm_tensor) and without flash
//   attention (src/llama-context.cpp), and its --fit does not size it (common/fit.cpp:183).
// - ggml-backend-meta.cpp, ggml_backend_meta_graph_compute: each GPU allocates n_reduce_steps
//   = ceil(log2(GPUs)) buffers of max_tmp_size, the graph's largest partial sum (PARTIAL node;
//   RuntimeBuffers::partial_sum), for the all-reduce's fallback; it allocates them whichever
//   way the sums are reduced (NCCL too), outside the scheduler's compute buffer. Counted on
//   each GPU as the held term kMetaReduceTerm.
// Planned here for attention (full and sliding, K and V of one head size, Qwen's Q gate inside
// attn_q at its doubled granularity), Qwen3-Next's and Qwen 3.5's Gated DeltaNet (their
// segments and the linear-attention granularities, the conv and state caches cut with them)
// and LFM2's short convolutions (whole on every GPU, state too). The other kinds llama.cpp
// runs under it (DeepSeek V4's compressed attention, an MLA architecture it does not refuse,
// K and V of different head sizes) have cuts of their own, not planned yet. Each GPU's compute
// buffer is taken as the whole graph's (the layer placement's GPU with the output head). Its
// decode speed is an estimate (speed.hpp, SpeedModel::meta_reduce_s), shown beside a plan
// rather than chosen (hardware_questions.hpp, tensor_split_option).

#include <cstdint>
#include <vector>

#include "canitrun/hardware.hpp"
#include "canitrun/model.hpp"
#include "canitrun/model_parts.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/quant.hpp"

namespace canitrun {

// The name of each GPU's partial-sum buffers in Share::resident.
inline constexpr const char* kMetaReduceTerm = "meta_reduce";

// The Meta device's reduction steps over `gpus` GPUs: ceil(log2(gpus)) (n_reduce_steps in
// ggml_backend_meta_context), each with a partial-sum buffer of its own on every GPU.
std::uint64_t meta_reduce_steps(std::size_t gpus);

// The elements of a cut axis of `ne` (one segment) each of the split's GPUs holds, as
// llama_meta_device_get_split_state counts them: `split` the -ts proportions (all zero or empty:
// even), each end rounded down to `granularity`, `rotation` the layer's turn.
std::vector<std::uint64_t> tensor_split_counts(std::uint64_t ne, std::uint64_t granularity,
                                               const std::vector<std::uint64_t>& split,
                                               std::size_t gpus, std::size_t rotation);

// The -sm tensor placement of `parts` (every layer and the output head on the GPUs): by
// `options`' --tensor-split, else evenly (llama.cpp's own default), else, when the even split
// overfills a GPU, in proportion to each GPU's memory in GiB. An error where it does not apply:
// fewer than two GPUs, GPUs of different backends or unified memory, layers it does not plan.
Result<Placement> tensor_split_placement(const Model& model, const Quant& quant,
                                         const ModelParts& parts, const Hardware& hardware,
                                         const PlacementOptions& options);

}  // namespace canitrun
