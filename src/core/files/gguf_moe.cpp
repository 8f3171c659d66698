#include <algorithm>

#include "canitrun/checked.hpp"
#include "gguf_arch_keys.hpp"

namespace canitrun {

std::optional<MoE> read_gguf_moe(const GgufArchKeys& keys, std::uint64_t n_layer) {
    const auto experts = keys.uint("expert_count");
    if (!experts || *experts == 0) return std::nullopt;
    MoE moe;
    moe.experts = *experts;
    moe.experts_per_token = keys.uint_or("expert_used_count", 0);
    moe.shared_experts = keys.uint_or("expert_shared_count", 0);
    moe.expert_intermediate_size = keys.uint_or("expert_feed_forward_length", 0);
    // without its own key, the shared experts are as wide as the routed ones (llama.cpp's
    // n_ff_exp x n_expert_shared: deepseek2, glm-dsa, deepseek4, minimax-m3)
    moe.shared_expert_intermediate_size =
        keys.uint_or("expert_shared_feed_forward_length",
                     checked::mul(moe.shared_experts, moe.expert_intermediate_size));
    const std::uint64_t dense = std::min(keys.uint_or("leading_dense_block_count", 0), n_layer);
    moe.moe_layers = n_layer - dense;
    // llama4's routed experts on every step-th layer, a dense FFN between (llama4.cpp's
    // n_moe_layer_step): Maverick's 2
    if (const auto step = keys.uint_or("interleave_moe_layer_step", 1); step > 1) {
        moe.moe_layers = n_layer / step;
    }
    moe.latent_size = keys.uint_or("expert_latent_length", 0);  // kimi-k3's latent MoE
    return moe;
}

}  // namespace canitrun
