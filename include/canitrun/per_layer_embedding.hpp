#pragma once
// The per-layer embedding table of Gemma 3n and Gemma 4's E models: per_layer_token_embd holds
// vocab rows of layers x this width, read by get_rows on the host (llama_host_input_tensor).

#include <cstdint>

#include "canitrun/model.hpp"

namespace canitrun {

// llama-hparams.h's n_embd_altup default: gemma3n.cpp's per-layer width, which no key sets.
inline constexpr std::uint64_t kGemma3nPerLayerWidth = 256;

// Gemma 4's per_layer_input_size; Gemma 3n's kGemma3nPerLayerWidth; 0 for a model without the
// table.
std::uint64_t per_layer_embedding_width(const Model& model);

}  // namespace canitrun
