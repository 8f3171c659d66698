#pragma once
// The llama.cpp rule cut into the pieces a runtime places on devices: each repeating layer's
// tensors as llama-quantize types them (routed experts marked), its KV cells as llama.cpp
// allocates them (padded context, sliding windows of window + ubatch cells, one stream per
// sequence) and its recurrent state; token_embd kept in host memory; the output head; and the
// compute and logits buffers. Summed on one device the parts are estimate_llamacpp() exactly.

#include <vector>

#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/model_parts.hpp"
#include "canitrun/quantize_rules.hpp"

namespace canitrun {

Result<ModelParts> llamacpp_parts(const Model& model, const Quant& quant,
                                  const LlamaCppOptions& options);

// The weight terms of those parts: each tensor's bytes as llama-quantize types it, summed per
// layer (routed experts and the active share marked), the host inputs and the output head; no
// context in them (what llamacpp_parts_at_context adds the caches and buffers to). Kept per
// quantization for the last model asked, and by the snapshot (Database::weight_parts).
Result<ModelParts> llamacpp_weight_parts(const Model& model, const Quant& quant);

// The same parts at another context (or cache types, sequences): only the caches and the
// compute buffer are recomputed.
Result<ModelParts> llamacpp_parts_at_context(ModelParts parts, const Model& model,
                                             const LlamaCppOptions& options);

// A floor under the weights the GPUs hold when they hold every layer of the model at the
// quantization (device_weights_lower_bound on its layout): no native plan puts less on them.
Result<Bytes> llamacpp_device_weights_floor(const Model& model, const Quant& quant);

// The multi-token-prediction layers' weights at the quantization (Architecture::mtp_layers),
// as llama.cpp loads them to draft with (--spec-type draft-mtp; convert_hf_to_gguf.py writes
// each as a block past the stack, blk.N.nextn.*): a copy of the stack's last full-attention or
// MLA layer (its attention, norms and FFN, experts included: GLM's and DeepSeek's MTP block is
// a MoE layer, not their dense first ones) with nextn.eh_proj (2 x hidden by hidden), the
// enorm, hnorm and shared_head_norm vectors and, for GLM and DeepSeek, the block's own
// embed_tokens and shared_head_head (hidden x vocab each), typed by llama-quantize's rules.
// 0 for a model without them.
Result<Bytes> llamacpp_mtp_weight_bytes(const Model& model, const Quant& quant);

// One of those MTP blocks' tensors, typed (blk.N.*, N = the stack's layer count): what
// llamacpp_mtp_weight_bytes sums, and what a file that carries the block holds (the download,
// gguf_file_size.hpp). Empty for a model without them.
Result<std::vector<TypedTensor>> llamacpp_mtp_block(const Model& model, const Quant& quant);

}  // namespace canitrun
