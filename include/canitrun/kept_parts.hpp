#pragma once
// A database model's llama.cpp weight terms (llamacpp_weight_parts) at each quantization, as the
// snapshot keeps them (Database::weight_parts): the generator writes them with the core's own
// llamacpp_weight_parts, and `fit` reads the one quantization it plans instead of building and
// typing the model's layout (bench/RESULTS.md, twenty-first session).
//
// One string a model: for each quantization its id, the length of its record and the record,
// numbers spelled as the snapshot spells them (append_varint). A record holds the parts' inputs,
// output head and buffers, the distinct layers and the runs of layers that repeat one, so a
// stack of like layers takes a few bytes and a reader skips a quantization it was not asked.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "canitrun/error.hpp"
#include "canitrun/model_parts.hpp"

namespace canitrun {

std::string keep_weight_parts(const std::vector<std::pair<std::string, ModelParts>>& by_quant);

// The weight terms kept for `quant_id`; empty where `kept` holds none for it. An error where the
// bytes are not what keep_weight_parts writes.
Result<std::optional<ModelParts>> kept_weight_parts(std::string_view kept,
                                                    std::string_view quant_id);

}  // namespace canitrun
