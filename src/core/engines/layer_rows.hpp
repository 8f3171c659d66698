#pragma once
// The rows and widths a dense layer keeps under its peak on llama.cpp's compute buffer, beside
// the experts' (moe_floats.hpp): read by llamacpp_engine.cpp's layers' phase. Private to
// src/core/engines.

#include <cstdint>

#include "canitrun/model.hpp"

namespace canitrun {

// Floats a token of the n_embd rows under a layer's FFN (`embd_rows` of them), or the attention
// output's freed block in place of two where it is wider than two rows.
std::uint64_t attention_rows(const Model& m, std::uint64_t embd_rows);

// A dense model's widest FFN (Gemma 4 E2B's double-wide KV-sharing layers).
std::uint64_t widest_ffn_width(const Model& m);

// Gemma 4's per-layer inputs, alive under every layer: n_layer x per_layer_input_size a token.
std::uint64_t per_layer_input_floats(const Model& m);

}  // namespace canitrun
