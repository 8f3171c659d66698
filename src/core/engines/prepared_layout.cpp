#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/quantize_rules.hpp"
#include "tensor_category.hpp"

// A layout made ready for llama-quantize's rules (src/llama-quant.cpp at llama.cpp 0ad4a86):
// its processing order (llama_model_loader::weights_map: layer, then name) and what the rules
// read from each tensor's name (tensor_get_category, tensor_allows_quantization). The names are
// read once per distinct name: every layer repeats the same few dozen, and reading each
// tensor's name anew was most of the time a planner spent on a model (bench/RESULTS.md).

namespace canitrun {
namespace {

bool contains(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

Category category(std::string_view name) {
    if (name == "output.weight") return Category::output;
    if (name == "token_embd.weight" || name == "per_layer_token_embd.weight") {
        return Category::token_embd;
    }
    if (contains(name, "attn_qkv.weight")) return Category::attn_qkv;
    if (contains(name, "attn_kv_b.weight")) return Category::attn_kv_b;
    if (contains(name, "attn_v.weight")) return Category::attn_v;
    if (contains(name, "attn_k.weight")) return Category::attn_k;
    if (contains(name, "attn_q.weight")) return Category::attn_q;
    if (contains(name, "attn_output.weight")) return Category::attn_output;
    if (contains(name, "ffn_up")) return Category::ffn_up;
    if (contains(name, "ffn_gate")) return Category::ffn_gate;
    if (contains(name, "ffn_down")) return Category::ffn_down;
    return Category::other;
}

bool allows_quantization(const TensorInfo& t) {
    if (t.n_dims < 2) return false;
    const std::string_view n = t.name;
    bool q = n.ends_with("weight");
    q = q && !contains(n, "_norm.weight");
    q = q && !contains(n, "ffn_gate_inp.weight");
    q = q && !contains(n, "ssm_conv1d");
    // LFM2's short-convolution kernel: llama-quant.cpp skips it (line 325 at 0ad4a86) and the
    // converter writes it F32 (conversion/base.py line 1062, SHORTCONV_CONV)
    q = q && !contains(n, "shortconv.conv.weight");
    // MiniMax-M3's indexer projections, small enough to keep
    q = q && !contains(n, "indexer.k_proj.weight") && !contains(n, "indexer.q_proj.weight");
    // DeepSeek V4's token-id routing table (i32, as wide as f32)
    q = q && !contains(n, "ffn_gate_tid2eid.weight");
    // Gemma 3n's AltUp and LAuReL tensors and the per-layer projection stay as they are
    q = q && !contains(n, "altup") && !contains(n, "laurel") &&
        !contains(n, "per_layer_model_proj");
    return q;
}

// The tensors llama-quantize leaves in the converter's 16-bit type (conversion/base.py writes
// them in the checkpoint's BF16 / F16, unlike the coefficient matrices it keeps in F32): Gemma
// 3n's AltUp projections and router, its LAuReL pair, the per-layer model projection.
bool keeps_source_16bit(const TensorInfo& t) {
    const std::string_view n = t.name;
    if (t.n_dims < 2 || contains(n, "_norm.weight") || contains(n, "altup_correct_coef") ||
        contains(n, "altup_predict_coef")) {
        return false;
    }
    // BERT's learned positions and token types: llama-quant.cpp "do not quantize positional
    // embeddings and token types (BERT)"
    return contains(n, "altup") || contains(n, "laurel") || contains(n, "per_layer_model_proj") ||
           n == "position_embd.weight" || n == "token_types.weight";
}

// gpt-oss is converted with its routed experts already in MXFP4 (convert_hf_to_gguf.py
// repacks the checkpoint's blocks), and every GGUF of it keeps them so: the F16 file of the 20B
// is ~12.5 GB and the smaller types ~11 GB (llama.cpp issue #15117), the 120B's Q8_0 is 63.4 GB
// like its MXFP4 file (sizes quoted in AlexsJones/llmfit PR #1059). Only the other tensors take
// the file type.
bool keeps_source_mxfp4(const TensorLayout& layout, const TensorInfo& t) {
    return layout.arch == "gpt-oss" && t.ne[2] > 1 &&
           t.name.find("_exps.weight") != std::string_view::npos;
}

// What the rules read from a tensor's name, shape aside.
struct NameClass {
    Category category = Category::other;
    PreparedLayout::Kind kind = PreparedLayout::kF32;
    bool routed_expert = false;
    bool host_input = false;
};

NameClass classify(const TensorLayout& layout, const TensorInfo& t) {
    NameClass c;
    c.category = category(t.name);
    c.kind = contains(t.name, "ffn_gate_tid2eid") ? PreparedLayout::kI32
             : keeps_source_mxfp4(layout, t)      ? PreparedLayout::kKeepsMxfp4
             : keeps_source_16bit(t)              ? PreparedLayout::kKeeps16
             : allows_quantization(t)             ? PreparedLayout::kQuantized
                                                  : PreparedLayout::kF32;
    c.routed_expert = llama_routed_expert_tensor(t.name);
    c.host_input = llama_host_input_tensor(t.name);
    return c;
}

// The readings made on this thread, by shape facts (shape_bits), whether the layout is
// gpt-oss's (keeps_source_mxfp4 reads that) and base name: these decide a reading, and the same
// few dozen names recur in every model (reading them anew for each model was a tenth of
// prepare_layout). Node-based, so a reading stays where it is while others are added.
class KeptReadings {
  public:
    const NameClass& of(const TensorLayout& layout, const TensorInfo& t, std::string_view base,
                        std::size_t bits) {
        auto& names = by_facts_[bits * 2 + (layout.arch == "gpt-oss" ? 1 : 0)];
        auto it = names.find(base);
        if (it == names.end()) it = names.emplace(std::string(base), classify(layout, t)).first;
        return it->second;
    }
    // Forgets them all past a bound (files of many distinct names, read by a long-lived
    // process); only between layouts, while no reading is pointed to.
    void bound(std::size_t most) {
        std::size_t all = 0;
        for (const auto& names : by_facts_) all += names.size();
        if (all > most) {
            for (auto& names : by_facts_) names.clear();
        }
    }

  private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::array<std::unordered_map<std::string, NameClass, Hash, std::equal_to<>>, 16> by_facts_;
};

// A layer's tensor name without its "blk.N." (the whole name outside the layers). Every check
// above reads a name by a substring that cannot span that prefix, or by a whole name that no
// layer tensor has, so tensors with the same key below are classified alike.
std::string_view base_name(std::string_view name, int layer) {
    if (layer < 0) return name;
    // llama_tensor_layer read "blk." and digits up to a '.', so the loop stops at that dot.
    std::size_t at = 4;
    while (name[at] != '.') ++at;
    return name.substr(at + 1);
}

// The shape facts the checks read besides the name: in or out of the layers, n_dims < 2, more
// than one expert. With the base name they pick one reading.
std::size_t shape_bits(const TensorInfo& t, int layer) {
    return (layer >= 0 ? 4U : 0U) | (t.n_dims < 2 ? 2U : 0U) | (t.ne[2] > 1 ? 1U : 0U);
}

// Each tensor's layer and base name id (ids in order of first appearance, `names` by id).
struct BaseNames {
    std::vector<int> layer;
    std::vector<std::size_t> id;
    std::vector<std::string_view> names;
};

// A tensor's layer (llama_tensor_layer) and base name. llama_tensor_layer reads a name only up
// to the '.' after its digits, so a name that begins with the last layer tensor's "blk.N." is of
// layer N: only the first tensor of each layer is read digit by digit (reading every name was a
// tenth of prepare_layout).
class LayerOf {
  public:
    std::pair<int, std::string_view> operator()(std::string_view name) {
        if (!prefix_.empty() && name.starts_with(prefix_)) {
            return {layer_, name.substr(prefix_.size())};
        }
        const int layer = llama_tensor_layer(name);
        const std::string_view base = base_name(name, layer);
        if (layer >= 0) {
            prefix_ = name.substr(0, name.size() - base.size());
            layer_ = layer;
        }
        return {layer, base};
    }

  private:
    std::string_view prefix_;  // "blk.N." of the last layer tensor; views into the layout
    int layer_ = -1;
};

// A layer mostly repeats the previous layer's names in the same order, so the id at the same
// place in the previous layer is tried first, and the map is asked only when that guess misses
// (hashing every name was 3 % of `fit`'s instructions).
BaseNames base_names(const std::vector<TensorInfo>& tensors) {
    const std::size_t n = tensors.size();
    BaseNames b{std::vector<int>(n), std::vector<std::size_t>(n), {}};
    std::unordered_map<std::string_view, std::size_t> ids;
    std::vector<std::size_t> previous_layer, this_layer;  // ids by place in the layer
    LayerOf layer_of;
    for (std::size_t i = 0; i < n; ++i) {
        // A repeat is "blk.<layer>." + the base name of the tensor it repeats: no name to read.
        const std::size_t repeats = tensors[i].repeats;
        std::string_view base;
        if (repeats < i) {
            b.layer[i] = tensors[i].layer;
        } else {
            std::tie(b.layer[i], base) = layer_of(tensors[i].name);
        }
        if (i == 0 || b.layer[i] != b.layer[i - 1]) {
            previous_layer.swap(this_layer);
            this_layer.clear();
        }
        const std::size_t place = this_layer.size();
        if (repeats < i) {
            b.id[i] = b.id[repeats];
        } else if (place < previous_layer.size() && b.names[previous_layer[place]] == base) {
            b.id[i] = previous_layer[place];
        } else {
            const auto [it, fresh] = ids.try_emplace(base, b.names.size());
            if (fresh) b.names.push_back(it->first);
            b.id[i] = it->second;
        }
        this_layer.push_back(b.id[i]);
    }
    return b;
}

// llama-quantize's order (llama_model_loader::weights_map): by layer, then by name. Within a
// layer the names differ only after "blk.N.", so the base names' ranks order them as the whole
// names would, and ties keep the build order, as a stable sort would. The tensors are bucketed
// by layer (from -1) in build order, then each layer's run sorted by rank; a run whose base
// names are the previous run's in the same order takes that run's permutation (every layer of
// a model mostly repeats one list: sorting each anew was 6 % of `fit`'s instructions).
std::vector<std::size_t> quantize_order(const std::vector<int>& layer,
                                        const std::vector<std::size_t>& id,
                                        const std::vector<std::size_t>& rank) {
    const std::size_t n = layer.size();
    std::vector<std::size_t> order(n);
    const auto by_layer = [&](std::size_t a, std::size_t c) { return layer[a] < layer[c]; };
    // Bucketed when the layer numbers are few for the tensors (every layout a model gives); a
    // file naming blk.9999999 sorts instead of sizing a bucket per number.
    int top = -1;
    for (const int l : layer) top = std::max(top, l);
    const auto buckets = static_cast<std::size_t>(top) + 2;
    if (buckets > 2 * n + 2) {
        for (std::size_t i = 0; i < n; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), by_layer);
    } else {
        std::vector<std::size_t> next(buckets + 1, 0);
        // Bucket l + 1 (layer -1 is bucket 0: the unsigned sums wrap to it).
        for (const int l : layer) ++next[static_cast<std::size_t>(l) + 2];
        for (std::size_t k = 1; k <= buckets; ++k) next[k] += next[k - 1];
        for (std::size_t i = 0; i < n; ++i)
            order[next[static_cast<std::size_t>(layer[i]) + 1]++] = i;
    }
    std::vector<std::size_t> perm, previous_ids, run;  // the last sorted run: places, ids
    for (auto first = order.begin(); first != order.end();) {
        const auto last = std::find_if(first, order.end(),
                                       [&](std::size_t i) { return layer[i] != layer[*first]; });
        const bool same =
            static_cast<std::size_t>(last - first) == previous_ids.size() &&
            std::equal(first, last, previous_ids.begin(),
                       [&](std::size_t i, std::size_t prev) { return id[i] == prev; });
        if (!same) {
            previous_ids.clear();
            for (auto it = first; it != last; ++it) previous_ids.push_back(id[*it]);
            perm.resize(previous_ids.size());
            for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = k;
            std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t c) {
                return rank[previous_ids[a]] < rank[previous_ids[c]];
            });
        }
        run.assign(first, last);
        for (std::size_t k = 0; k < perm.size(); ++k) {
            first[static_cast<std::ptrdiff_t>(k)] = run[perm[k]];
        }
        first = last;
    }
    return order;
}

}  // namespace

PreparedLayout prepare_layout(TensorLayout layout) {
    PreparedLayout p;
    p.layout = std::move(layout);
    const auto& tensors = p.layout.tensors;
    const std::size_t n = tensors.size();
    // Each distinct base name once: its id, then its rank among them in name order.
    const auto [layer, id, names] = base_names(tensors);
    std::vector<std::size_t> by_name(names.size());
    for (std::size_t k = 0; k < by_name.size(); ++k) by_name[k] = k;
    std::sort(by_name.begin(), by_name.end(),
              [&](std::size_t a, std::size_t b) { return names[a] < names[b]; });
    std::vector<std::size_t> rank(names.size());
    for (std::size_t r = 0; r < by_name.size(); ++r) rank[by_name[r]] = r;
    // One reading per base name and shape facts; what the floor and the placements read of
    // each tensor in the same pass.
    thread_local KeptReadings kept;
    kept.bound(1 << 14);
    std::vector<const NameClass*> readings(names.size() * 8, nullptr);
    std::vector<const NameClass*> cls(n);
    std::vector<std::uint64_t> elements(n);
    p.routed_expert.assign(n, false);
    p.host_input.assign(n, false);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t repeats = tensors[i].repeats;
        const NameClass* reading = nullptr;
        if (repeats < i) {
            // the same base name and shape: the same reading and elements
            reading = cls[repeats];
            elements[i] = elements[repeats];
        } else {
            const std::size_t bits = shape_bits(tensors[i], layer[i]);
            auto& kept_reading = readings[id[i] * 8 + bits];
            if (kept_reading == nullptr) {
                kept_reading = &kept.of(p.layout, tensors[i], names[id[i]], bits);
            }
            reading = kept_reading;
            // Saturating: a layout past 2^64 elements cannot fit anywhere, and a floor at the
            // maximum says so without throwing from here.
            std::uint64_t e = 1;
            for (const auto d : tensors[i].ne) {
                if (__builtin_mul_overflow(e, d, &e)) e = UINT64_MAX;
            }
            elements[i] = e;
        }
        cls[i] = reading;
        if (reading->routed_expert) p.routed_expert[i] = true;
        if (reading->host_input) {
            p.host_input[i] = true;
            continue;
        }
        auto& sum = p.device_elements[reading->kind];
        if (__builtin_add_overflow(sum, elements[i], &sum)) sum = UINT64_MAX;
    }
    p.order = quantize_order(layer, id, rank);
    // Sized once and written in place (a push_back per tensor and field was a tenth of this).
    p.category.resize(n);
    p.kind.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        const NameClass& reading = *cls[p.order[k]];
        const Category c = reading.category;
        p.category[k] = static_cast<int>(c);
        p.kind[k] = reading.kind;
        if (is_attn_v(c)) ++p.n_attention_wv;
        if (c == Category::output) p.tied = false;
    }
    return p;
}

}  // namespace canitrun
