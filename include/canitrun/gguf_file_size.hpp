#pragma once
// The size of the GGUF file llama-quantize writes for a model: its tensors as the rules type
// them, each tensor's data aligned as the format requires, and the header before them. Pure.

#include <optional>

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quantize_rules.hpp"

namespace canitrun {

// The tensors' bytes, summed: what llama.cpp's "file size =" load line prints (ml.n_bytes).
Result<Bytes> gguf_tensor_bytes(const Model& model, const QuantizeRequest& request);

// The whole file: the header (GGUF's fixed fields, one tensor info per tensor, and the
// tokenizer's arrays: tokens, scores, token types and merges as llama.cpp's vocab files measure
// them for Llama 3.x, Qwen 2.5 / 3, Gemma 4 and Phi-3 / 3.5, at their smallest for other
// families: an 8-byte length and a 4-byte type per token), then each tensor's data padded to
// general.alignment (32 bytes). The other metadata (general.*, hyperparameters, the chat
// template) is left out: a few KB.
Result<Bytes> gguf_file_bytes(const Model& model, const QuantizeRequest& request);

// The file a quantization's download is (quantize_request(quant), typed once per model and
// quantization as the llama.cpp rule types it), with the MTP blocks where the model's published
// files carry them (RunInfo::gguf_mtp, llamacpp_mtp_block): empty for a format llama.cpp does
// not write (NVFP4, EXL2, AWQ, ...), whose files are not GGUF.
Result<std::optional<Bytes>> gguf_download_bytes(const Model& model, const Quant& quant);

}  // namespace canitrun
