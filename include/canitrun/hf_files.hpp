#pragma once
// Reads a Hugging Face model folder (or a config.json path): config.json, then the parameter
// count from the safetensors headers (only their JSON headers are read) or the index.

#include <string>

#include "canitrun/error.hpp"
#include "canitrun/model.hpp"

namespace canitrun {

struct HfModel {
    Model model;
    std::string params_source;  // "safetensors headers", "model.safetensors.index.json", "config"
};

// `path` is a config.json file or a folder holding one.
Result<HfModel> read_hf_model(const std::string& path);

}  // namespace canitrun
