#include "hf_sparse_attention.hpp"

#include <optional>

#include "canitrun/checked.hpp"

namespace canitrun {
namespace {

using nlohmann::json;

std::uint64_t uint_in(const json& c, const char* key) {
    const auto it = c.find(key);
    return it != c.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

struct IndexedLayers {
    LayerKind kind = LayerKind::full;
    LayerGroup index;       // index_head_dim, index_heads, index_top_k of the indexed layers
    std::vector<bool> own;  // per layer: keeps an indexer of its own
};

// GLM-5.2: indexer_types lists "full" (an indexer and its key cache) or "shared" (reuses the
// last full layer's choice) per layer; llama.cpp's glm-dsa writes it as attention.indexer.types.
std::optional<IndexedLayers> glm_indexer_types(const json& c, std::size_t layers) {
    const auto it = c.find("indexer_types");
    if (it == c.end() || !it->is_array() || it->size() != layers) return std::nullopt;
    IndexedLayers out;
    out.kind = LayerKind::mla;
    out.index.index_head_dim = uint_in(c, "index_head_dim");
    out.index.index_heads = uint_in(c, "index_n_heads");
    out.index.index_top_k = uint_in(c, "index_topk");
    for (const auto& t : *it) out.own.push_back(t.is_string() && t.get<std::string>() == "full");
    return out;
}

// MiniMax-M3: sparse_attention_config's indexer, which llama.cpp's minimax-m3 keeps on the
// layers after the leading dense ones (moe_layer_freq's leading zeros; llama-model.cpp's
// filter_idx), a top-k of sparse_topk_blocks blocks of sparse_block_size tokens.
std::optional<IndexedLayers> minimax_sparse_attention(const json& c, std::size_t layers) {
    const auto it = c.find("sparse_attention_config");
    if (it == c.end() || !it->is_object()) return std::nullopt;
    const json& s = *it;
    IndexedLayers out;
    out.index.index_head_dim = uint_in(s, "sparse_index_dim");
    out.index.index_heads = uint_in(s, "sparse_num_index_heads");
    out.index.index_top_k =
        checked::mul(uint_in(s, "sparse_topk_blocks"), uint_in(s, "sparse_block_size"));
    if (out.index.index_head_dim == 0) return std::nullopt;
    std::size_t dense = 0;
    if (const auto f = c.find("moe_layer_freq"); f != c.end() && f->is_array()) {
        while (dense < f->size() && (*f)[dense].is_number() && (*f)[dense].get<double>() == 0)
            ++dense;
    }
    for (std::size_t il = 0; il < layers; ++il) out.own.push_back(il >= dense);
    return out;
}

}  // namespace

std::vector<std::size_t> split_indexer_groups(const json& c, Architecture& a,
                                              std::vector<std::size_t> order) {
    auto indexed = glm_indexer_types(c, order.size());
    if (!indexed) indexed = minimax_sparse_attention(c, order.size());
    if (!indexed) return order;
    std::size_t target = a.layer_groups.size();
    for (std::size_t g = 0; g < a.layer_groups.size(); ++g) {
        if (a.layer_groups[g].kind == indexed->kind) target = g;
    }
    if (target == a.layer_groups.size()) return order;
    LayerGroup with = a.layer_groups[target];
    LayerGroup without = with;
    with.index_head_dim = indexed->index.index_head_dim;
    with.index_heads = indexed->index.index_heads;
    with.index_top_k = indexed->index.index_top_k;
    without.index_head_dim = without.index_heads = without.index_top_k = 0;
    with.count = without.count = 0;
    std::optional<bool> first;  // layer 0's (of this kind) state names the first group
    for (std::size_t il = 0; il < order.size(); ++il) {
        if (order[il] != target) continue;
        if (!first) first = indexed->own[il];
        ++(indexed->own[il] ? with : without).count;
    }
    if (with.count == 0 || without.count == 0) {
        a.layer_groups[target] = with.count > 0 ? with : without;
        return order;
    }
    // the two groups take the target's place; later groups move one up
    const bool with_first = first.value_or(true);
    a.layer_groups[target] = with_first ? with : without;
    a.layer_groups.insert(a.layer_groups.begin() + static_cast<std::ptrdiff_t>(target) + 1,
                          with_first ? without : with);
    for (std::size_t il = 0; il < order.size(); ++il) {
        if (order[il] > target) {
            ++order[il];
        } else if (order[il] == target && indexed->own[il] != with_first) {
            order[il] = target + 1;
        }
    }
    return order;
}

std::vector<std::size_t> split_compressed_groups(const json& c, Architecture& a,
                                                 std::vector<std::size_t> order) {
    const auto ratios = c.find("compress_ratios");
    if (ratios == c.end() || !ratios->is_array() || ratios->size() < order.size()) return order;
    std::size_t target = 0;
    while (target < a.layer_groups.size() && a.layer_groups[target].kind != LayerKind::compressed)
        ++target;
    if (target == a.layer_groups.size()) return order;
    LayerGroup base = a.layer_groups[target];
    base.count = 0;
    base.window = uint_in(c, "sliding_window");
    base.kv_heads = uint_in(c, "num_key_value_heads");
    base.head_dim = uint_in(c, "head_dim");
    base.q_lora_rank = uint_in(c, "q_lora_rank");
    a.output_groups = uint_in(c, "o_groups");
    a.output_lora_rank = uint_in(c, "o_lora_rank");
    a.hash_layers = uint_in(c, "num_hash_layers");
    // one group per ratio, in the order of its first layer; the other groups follow
    std::vector<LayerGroup> split;
    std::vector<std::size_t> out = order;
    for (std::size_t il = 0; il < order.size(); ++il) {
        if (order[il] != target) continue;
        const std::uint64_t ratio =
            (*ratios)[il].is_number_unsigned() ? (*ratios)[il].get<std::uint64_t>() : 0;
        std::size_t g = 0;
        while (g < split.size() && split[g].compress_ratio != ratio) ++g;
        if (g == split.size()) {
            LayerGroup n = base;
            n.compress_ratio = ratio;
            if (ratio == 4) {  // the lightning indexer's layers
                n.index_head_dim = uint_in(c, "index_head_dim");
                n.index_heads = uint_in(c, "index_n_heads");
                n.index_top_k = uint_in(c, "index_topk");
            }
            split.push_back(n);
        }
        ++split[g].count;
        out[il] = target + g;
    }
    const std::size_t added = split.size() - 1;
    for (std::size_t il = 0; il < order.size(); ++il) {
        if (order[il] > target) out[il] = order[il] + added;
    }
    a.layer_groups.erase(a.layer_groups.begin() + static_cast<std::ptrdiff_t>(target));
    a.layer_groups.insert(a.layer_groups.begin() + static_cast<std::ptrdiff_t>(target),
                          split.begin(), split.end());
    return out;
}

}  // namespace canitrun
