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

}  // namespace canitrun
