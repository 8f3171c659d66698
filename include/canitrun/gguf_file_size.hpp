#pragma once
// The size of the GGUF file llama-quantize writes for a model: its tensors as the rules type
// them, each tensor's data aligned as the format requires, and the header before them. Pure.

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quantize_rules.hpp"

namespace canitrun {

// The tensors' bytes, summed: what llama.cpp's "file size =" load line prints (ml.n_bytes).
Result<Bytes> gguf_tensor_bytes(const Model& model, const QuantizeRequest& request);

// The whole file: the header (GGUF's fixed fields, one tensor info per tensor, and the
// tokenizer's arrays at their smallest: an 8-byte length and a 4-byte token type per token, the
// token texts, merges and chat template left out), then each tensor's data padded to
// general.alignment (32 bytes). A lower bound: the metadata it leaves out is 0.7-8 MB in
// published files.
Result<Bytes> gguf_file_bytes(const Model& model, const QuantizeRequest& request);

}  // namespace canitrun
