#pragma once
// The parameter count implied by an architecture, to check the data against the published
// count (formula in data/SCHEMA.md).

#include <cstdint>
#include <optional>

#include "canitrun/model.hpp"

namespace canitrun {

struct ParamCount {
    std::uint64_t total = 0;
    std::uint64_t active = 0;
    // Vendors differ on whether the embedding tables count as "active" (a lookup is not a
    // matrix multiply): Qwen3-30B-A3B's "3.3B" counts both, OpenAI's gpt-oss figures count the
    // output head only, Qwen3-Next's "3B" neither.
    std::uint64_t active_without_input_embedding = 0;
    std::uint64_t active_without_embeddings = 0;
};

ParamCount count_params(const Model& model);

// The parameters of every MLA layer's DSA indexer, every full layer's indexer without
// compress_ratio (MiniMax-M3's MSA) and, over MLA layers, of the independent hyper-connections'
// mixers and head: counted from the architecture for a database model and a config.json's alike
// (the data records none of them in params.extra).
std::uint64_t sparse_attention_extra_params(const Model& model);

// The parameters the count keeps beside the layers' mixers and FFNs, with the input embedding
// in a model's parts: params.extra and sparse_attention_extra_params.
std::uint64_t params_beside_layers(const Model& model);

// Parameters of one layer's token mixer (attention, linear attention, SSM or MLA).
std::uint64_t mixer_params(const Model& model, const LayerGroup& group);

// Parameters of one layer's feed-forward block: `always` is read for every token (a dense FFN,
// or an MoE layer's shared experts and router), `routed` holds all the routed experts, of which a
// token reads experts_per_token / experts.
struct FfnParams {
    std::uint64_t always = 0;
    std::uint64_t routed = 0;
};
FfnParams ffn_params(const Model& model, bool moe_layer);

// The routed-expert parameters one token reads over the whole stack: each MoE layer's routed
// experts x experts_per_token / experts (0 for a dense model); empty when the count passes
// 64 bits, which each caller answers in its own way.
std::optional<double> routed_params_per_token(const Model& model);

}  // namespace canitrun
