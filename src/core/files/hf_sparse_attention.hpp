#pragma once
// Sparse-attention indexers that only some layers of a config.json keep (private to
// src/core/files): GLM-5.2's indexer_types and MiniMax-M3's sparse_attention_config. Such a
// model's layers of one kind come in two groups, with and without an indexer of their own.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

#include "canitrun/model.hpp"

namespace canitrun {

// Splits the group of the indexed kind in two (the group of layer 0's indexer state first) and
// returns every layer's group index; `order` is each layer's group before the split. Unchanged
// (and `order` returned as it is) when the config names no per-layer indexer.
std::vector<std::size_t> split_indexer_groups(const nlohmann::json& c, Architecture& a,
                                              std::vector<std::size_t> order);

// DeepSeek V4: the compressed group split by config.json's compress_ratios (one group per
// ratio, in the order of their first layer) with the window, K head, q LoRA and the ratio-4
// layers' indexer; the grouped output and hash layers on the architecture (hc_mult is read with
// the model-wide sizes, Hy4 has it too).
// Unchanged without compress_ratios.
std::vector<std::size_t> split_compressed_groups(const nlohmann::json& c, Architecture& a,
                                                 std::vector<std::size_t> order);

}  // namespace canitrun
