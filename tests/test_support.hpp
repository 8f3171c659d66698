#pragma once
// Shared by the tests: the built-in database, and hand-made models for the KV rules.

#include "canitrun/database.hpp"

namespace canitrun::test {

// The embedded database, parsed once.
const Database& database();

const Model& model(const std::string& id);
const Quant& quant(const std::string& id);
const Gpu& gpu(const std::string& id);

// A bare model with one group of layers; dims set by the caller.
Model model_with(std::vector<LayerGroup> groups, std::uint64_t kv_heads, std::uint64_t head_dim);

}  // namespace canitrun::test
