#pragma once
// A Hugging Face model folder as a Model: the text decoder's architecture from config.json
// (text_config for multimodal models), exact parameter counts from safetensors headers or
// model.safetensors.index.json. Parsing takes text / bytes; hf_files.hpp reads the folder.

#include <cstdint>
#include <optional>
#include <string>

#include "canitrun/error.hpp"
#include "canitrun/model.hpp"

namespace canitrun {

// config.json text -> Model (id from `name`, params estimated from the architecture until a
// safetensors count replaces them).
Result<Model> parse_hf_config(const std::string& config_json, const std::string& name);

// Parameters from model.safetensors.index.json: metadata.total_size is bytes of tensor data, so
// params = total_size / bytes per value of `torch_dtype` (bf16/f16 2, f32 4, f8 1). Exact for
// single-dtype checkpoints; a checkpoint that mixes dtypes (FP8 weights with bf16 norms) is
// approximate, and nullopt when the dtype is unknown.
std::optional<std::uint64_t> params_from_safetensors_index(const std::string& index_json,
                                                           const std::string& torch_dtype);

// A safetensors header: 8-byte little-endian length, then that much JSON of
// {name: {dtype, shape, data_offsets}}. Returns the number of values (product of each shape).
// `header_bytes` is the start of the file (at least 8 + length bytes); `file_size` bounds it.
inline constexpr std::uint64_t kMaxSafetensorsHeader = 32ULL << 20;
Result<std::uint64_t> safetensors_header_length(const std::string& first8, std::uint64_t file_size);
Result<std::uint64_t> params_from_safetensors_header(const std::string& header_json);

// torch_dtype of a config.json ("bfloat16"), or "" when absent.
std::string hf_torch_dtype(const std::string& config_json);

}  // namespace canitrun
