#include "canitrun/quantize_rules.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "canitrun/name_match.hpp"

// A transcription of the type choice in llama.cpp 5b4ebc5 src/llama-quant.cpp for the file types
// canitrun lists: llama_ftype_get_default_type, tensor_allows_quantization, tensor_get_category,
// llama_tensor_get_type_impl (the branches these file types reach) and tensor_type_fallback.
// Tensors are visited in llama_model_loader::weights_map order (weight_name_comparer: layer,
// then name), which decides the i_attention_wv / i_ffn_down counters.

namespace canitrun {
namespace {

enum class Ftype {
    f32,
    f16,
    bf16,
    q8_0,
    q6_k,
    q5_k_m,
    q5_k_s,
    q4_k_m,
    q4_k_s,
    q3_k_l,
    q3_k_m,
    q3_k_s,
    q2_k,
    q2_k_s,
    q4_0,
    q4_1,
    q5_0,
    q5_1,
    iq4_nl,
    iq4_xs,
    iq3_m,
    iq3_s,
    iq3_xs,
    iq3_xxs,
    iq2_m,
    iq2_s,
    iq2_xs,
    iq2_xxs,
    iq1_m,
    iq1_s,
    tq2_0,
    tq1_0,
    mxfp4_moe
};

struct FtypeName {
    std::string_view id;
    Ftype ftype;
    std::string_view default_type;  // llama_ftype_get_default_type
};

constexpr std::array<FtypeName, 33> kFtypes = {{
    {"FP32", Ftype::f32, "f32"},          {"FP16", Ftype::f16, "f16"},
    {"BF16", Ftype::bf16, "bf16"},        {"Q8_0", Ftype::q8_0, "q8_0"},
    {"Q6_K", Ftype::q6_k, "q6_K"},        {"Q5_K_M", Ftype::q5_k_m, "q5_K"},
    {"Q5_K_S", Ftype::q5_k_s, "q5_K"},    {"Q4_K_M", Ftype::q4_k_m, "q4_K"},
    {"Q4_K_S", Ftype::q4_k_s, "q4_K"},    {"Q3_K_L", Ftype::q3_k_l, "q3_K"},
    {"Q3_K_M", Ftype::q3_k_m, "q3_K"},    {"Q3_K_S", Ftype::q3_k_s, "q3_K"},
    {"Q2_K", Ftype::q2_k, "q2_K"},        {"Q2_K_S", Ftype::q2_k_s, "q2_K"},
    {"Q4_0", Ftype::q4_0, "q4_0"},        {"Q4_1", Ftype::q4_1, "q4_1"},
    {"Q5_0", Ftype::q5_0, "q5_0"},        {"Q5_1", Ftype::q5_1, "q5_1"},
    {"IQ4_NL", Ftype::iq4_nl, "iq4_nl"},  {"IQ4_XS", Ftype::iq4_xs, "iq4_xs"},
    {"IQ3_M", Ftype::iq3_m, "iq3_s"},     {"IQ3_S", Ftype::iq3_s, "iq3_s"},
    {"IQ3_XS", Ftype::iq3_xs, "iq3_s"},   {"IQ3_XXS", Ftype::iq3_xxs, "iq3_xxs"},
    {"IQ2_M", Ftype::iq2_m, "iq2_s"},     {"IQ2_S", Ftype::iq2_s, "iq2_xs"},
    {"IQ2_XS", Ftype::iq2_xs, "iq2_xs"},  {"IQ2_XXS", Ftype::iq2_xxs, "iq2_xxs"},
    {"IQ1_M", Ftype::iq1_m, "iq1_m"},     {"IQ1_S", Ftype::iq1_s, "iq1_s"},
    {"TQ2_0", Ftype::tq2_0, "tq2_0"},     {"TQ1_0", Ftype::tq1_0, "tq1_0"},
    {"MXFP4", Ftype::mxfp4_moe, "mxfp4"},
}};

// Files of these types cannot be made without an importance matrix (tensor_requires_imatrix:
// their iq1 / iq2 / iq3_xxs tensors, or Q2_K_S's q2_K ones); every other type is taken as a
// plain llama-quantize run without one.
bool needs_imatrix(Ftype f) {
    switch (f) {
        case Ftype::iq3_xxs:
        case Ftype::iq3_xs:
        case Ftype::iq2_m:
        case Ftype::iq2_s:
        case Ftype::iq2_xs:
        case Ftype::iq2_xxs:
        case Ftype::iq1_m:
        case Ftype::iq1_s:
        case Ftype::q2_k_s:
            return true;
        default:
            return false;
    }
}

std::optional<FtypeName> find_ftype(const std::string& id) {
    const std::string lower = to_lower(id);
    for (const auto& f : kFtypes) {
        if (to_lower(std::string(f.id)) == lower) return f;
    }
    return std::nullopt;
}

GgmlType type(std::string_view name) {
    return *find_ggml_type(name);
}

// The types the rules name, looked up once: the rules run per tensor, for every tensor of every
// model the planner sizes.
struct NamedTypes {
    GgmlType f16, f32, iq2_s, iq2_xxs, iq3_s, iq3_xxs, iq4_nl, mxfp4, q2_K, q3_K, q4_0, q4_K, q5_0,
        q5_1, q5_K, q6_K, q8_0;
};

const NamedTypes& named_types() {
    static const NamedTypes t{type("f16"),   type("f32"),     type("iq2_s"),  type("iq2_xxs"),
                              type("iq3_s"), type("iq3_xxs"), type("iq4_nl"), type("mxfp4"),
                              type("q2_K"),  type("q3_K"),    type("q4_0"),   type("q4_K"),
                              type("q5_0"),  type("q5_1"),    type("q5_K"),   type("q6_K"),
                              type("q8_0")};
    return t;
}

bool is_quantized(const GgmlType& t) {
    return t.block_elements > 1;
}

enum class Category {
    output,
    token_embd,
    attn_qkv,
    attn_kv_b,
    attn_v,
    attn_k,
    attn_q,
    attn_output,
    ffn_up,
    ffn_gate,
    ffn_down,
    other
};

bool contains(const std::string& s, std::string_view part) {
    return s.find(part) != std::string::npos;
}

Category category(const std::string& name) {
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

bool is_attn_v(Category c) {
    return c == Category::attn_v || c == Category::attn_qkv || c == Category::attn_kv_b;
}

bool allows_quantization(const TensorInfo& t) {
    if (t.n_dims < 2) return false;
    const std::string& n = t.name;
    bool q = n.size() >= 6 && n.compare(n.size() - 6, 6, "weight") == 0;
    q = q && !contains(n, "_norm.weight");
    q = q && !contains(n, "ffn_gate_inp.weight");
    q = q && !contains(n, "ssm_conv1d");
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
    const std::string& n = t.name;
    if (t.n_dims < 2 || contains(n, "_norm.weight") || contains(n, "altup_correct_coef") ||
        contains(n, "altup_predict_coef")) {
        return false;
    }
    return contains(n, "altup") || contains(n, "laurel") || contains(n, "per_layer_model_proj");
}

struct State {
    const TensorLayout& layout;
    Ftype ftype;
    int n_attention_wv = 0;
    int i_attention_wv = 0;
    int n_ffn_down = 0;
    int i_ffn_down = 0;
    int i_ffn_gate = 0;
    int i_ffn_up = 0;
    bool tied = true;
    bool imatrix = false;
};

bool use_more_bits(int i, int n) {
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

bool any_of(Ftype f, std::initializer_list<Ftype> set) {
    for (const auto x : set) {
        if (f == x) return true;
    }
    return false;
}

// llama_tensor_get_type_impl, branch by branch.
// NOLINTNEXTLINE(readability-function-size): kept whole to be read against llama-quant.cpp
GgmlType choose(State& qs, GgmlType new_type, const TensorInfo& t, Category cat) {
    using F = Ftype;
    const NamedTypes& T = named_types();
    const F f = qs.ftype;
    const auto n_gqa = qs.layout.n_gqa;
    const auto n_expert = qs.layout.n_expert;
    const bool imatrix = qs.imatrix;
    const bool iq1_iq2 = any_of(f, {F::iq2_xxs, F::iq2_xs, F::iq1_s, F::iq2_s, F::iq2_m, F::iq1_m});
    if (cat == Category::output || (qs.tied && cat == Category::token_embd)) {
        if (f == F::mxfp4_moe || t.ne[0] % new_type.block_elements != 0) {
            new_type = T.q8_0;
        } else if (any_of(f, {F::iq2_xxs, F::iq2_xs, F::iq3_xxs, F::iq1_s, F::iq2_s, F::iq2_m,
                              F::iq1_m})) {
            new_type = T.q5_K;
        } else if (new_type.name != "q8_0") {
            new_type = T.q6_K;
        }
    } else if (f == F::mxfp4_moe) {
        new_type = t.ne[2] > 1 ? T.mxfp4 : T.q8_0;
    } else if (cat == Category::token_embd) {
        if (any_of(f, {F::iq2_xxs, F::iq2_xs, F::iq1_s, F::iq1_m})) {
            new_type = T.q2_K;
        } else if (any_of(f, {F::iq2_s, F::iq2_m, F::iq3_xxs})) {
            new_type = T.iq3_s;
        } else if (any_of(f, {F::tq1_0, F::tq2_0})) {
            new_type = T.q4_K;
        }
    } else if (iq1_iq2) {
        if (is_attn_v(cat)) {
            if (n_gqa >= 4 || n_expert >= 4) {
                new_type = T.q4_K;
            } else {
                new_type = any_of(f, {F::iq2_s, F::iq2_m}) ? T.iq3_s : T.q2_K;
            }
            ++qs.i_attention_wv;
        } else if (n_expert == 8 && cat == Category::attn_k) {
            new_type = T.q4_K;
        } else if (cat == Category::ffn_down) {
            if (qs.i_ffn_down < qs.n_ffn_down / 8) {
                new_type = any_of(f, {F::iq2_s, F::iq2_m}) ? T.iq3_s : T.q2_K;
            }
            ++qs.i_ffn_down;
        } else if (cat == Category::attn_output) {
            if (n_expert == 8) {
                new_type = T.q5_K;
            } else if (any_of(f, {F::iq1_s, F::iq1_m})) {
                new_type = T.iq2_xxs;
            } else if (any_of(f, {F::iq2_s, F::iq2_m})) {
                new_type = T.iq3_s;
            }
        }
    } else if (is_attn_v(cat)) {
        if (f == F::q2_k) {
            new_type = n_gqa >= 4 ? T.q4_K : T.q3_K;
        } else if (f == F::q2_k_s && n_gqa >= 4) {
            new_type = T.q4_K;
        } else if (f == F::iq3_xxs) {
            new_type = n_gqa >= 4 ? T.q4_K : (!imatrix ? T.iq3_s : T.iq3_xxs);
        } else if (any_of(f, {F::iq3_xs, F::iq3_s}) && n_gqa >= 4) {
            new_type = T.q4_K;
        } else if (f == F::iq3_m) {
            new_type = T.q4_K;
        } else if (f == F::q3_k_m) {
            new_type = qs.i_attention_wv < 2 ? T.q5_K : T.q4_K;
        } else if (f == F::q3_k_l) {
            new_type = T.q5_K;
        } else if (any_of(f, {F::iq4_nl, F::iq4_xs}) && n_gqa >= 4) {
            new_type = T.q5_K;
        } else if (any_of(f, {F::q4_k_m, F::q5_k_m}) &&
                   use_more_bits(qs.i_attention_wv, qs.n_attention_wv)) {
            new_type = T.q6_K;
        } else if (f == F::q4_k_s && qs.i_attention_wv < 4) {
            new_type = T.q5_K;
        }
        if (qs.layout.is_70b && (new_type.name == "q3_K" || new_type.name == "q4_K")) {
            new_type = T.q5_K;
        }
        if (n_expert == 8) new_type = T.q8_0;
        ++qs.i_attention_wv;
    } else if (cat == Category::attn_k) {
        if (n_expert == 8) {
            new_type = T.q8_0;
        } else if (f == F::iq3_xs) {
            new_type = T.iq3_xxs;
        } else if (f == F::iq3_xxs) {
            new_type = T.iq2_s;
        }
    } else if (cat == Category::attn_q) {
        if (f == F::iq3_xs) {
            new_type = T.iq3_xxs;
        } else if (f == F::iq3_xxs) {
            new_type = T.iq2_s;
        }
    } else if (cat == Category::ffn_down) {
        int i_layer = qs.i_ffn_down;
        const int n_layer = qs.n_ffn_down;
        if (n_expert > 1) i_layer = t.layer;
        if (f == F::q2_k) {
            new_type = T.q3_K;
        } else if (f == F::q2_k_s) {
            if (i_layer < n_layer / 8) new_type = T.q4_K;
        } else if (f == F::iq3_xxs && !imatrix) {
            new_type = i_layer < n_layer / 8 ? T.q4_K : T.q3_K;
        } else if (f == F::q3_k_m) {
            new_type = i_layer < n_layer / 16 ? T.q5_K : T.q4_K;
        } else if (f == F::iq3_m &&
                   (i_layer < n_layer / 8 || (n_expert == 8 && use_more_bits(i_layer, n_layer)))) {
            new_type = T.q4_K;
        } else if (f == F::q3_k_l) {
            new_type = T.q5_K;
        } else if (f == F::q4_k_m) {
            if (use_more_bits(i_layer, n_layer)) new_type = T.q6_K;
        } else if (i_layer < n_layer / 8 && any_of(f, {F::iq4_nl, F::iq4_xs}) && !imatrix) {
            new_type = T.q5_K;
        } else if (f == F::q5_k_m && use_more_bits(i_layer, n_layer)) {
            new_type = T.q6_K;
        } else if (f == F::q4_k_s && i_layer < n_layer / 8) {
            new_type = T.q5_K;
        }
        ++qs.i_ffn_down;
    } else if (cat == Category::attn_output) {
        if (n_expert == 8) {
            if (any_of(f, {F::q2_k, F::iq3_xs, F::iq3_xxs, F::q3_k_s, F::q3_k_m, F::iq4_nl,
                           F::q4_k_s, F::q4_k_m, F::iq3_s, F::iq3_m, F::iq4_xs})) {
                new_type = T.q5_K;
            }
        } else if (f == F::q2_k) {
            new_type = T.q3_K;
        } else if (f == F::iq3_xxs) {
            new_type = T.iq3_s;
        } else if (f == F::q3_k_m) {
            new_type = T.q4_K;
        } else if (f == F::q3_k_l) {
            new_type = T.q5_K;
        } else if (f == F::iq3_m) {
            new_type = T.q4_K;
        }
    } else if (cat == Category::ffn_gate || cat == Category::ffn_up) {
        // layer_info: the layer from the name with experts, else the tensor's count so far,
        // which is not its layer where some blocks have no FFN (Nemotron-H)
        int& counter = cat == Category::ffn_gate ? qs.i_ffn_gate : qs.i_ffn_up;
        const int i_layer = qs.layout.n_expert > 1 ? t.layer : counter;
        const int n_layer = qs.n_ffn_down;
        if (f == F::iq3_xs && i_layer >= n_layer / 8 && i_layer < 7 * n_layer / 8) {
            new_type = T.iq3_xxs;
        }
        ++counter;
    }
    // The attn_qkv branch of llama_tensor_get_type_impl is unreachable: is_attn_v takes it first.
    return new_type;
}

// tensor_type_fallback: a row that is not a whole number of blocks.
GgmlType fallback(const TensorInfo& t, GgmlType target) {
    if (t.ne[0] % target.block_elements == 0) return target;
    const NamedTypes& T = named_types();
    GgmlType out = target;
    const std::string_view n = target.name;
    if (n == "iq1_s" || n == "iq1_m" || n == "iq2_xxs" || n == "iq2_xs" || n == "iq2_s" ||
        n == "iq3_xxs" || n == "iq3_s" || n == "iq4_xs") {
        out = T.iq4_nl;
    } else if (n == "q2_0" || n == "q2_K" || n == "q3_K" || n == "tq1_0" || n == "tq2_0") {
        out = T.q4_0;
    } else if (n == "q4_K") {
        out = T.q5_0;
    } else if (n == "q5_K") {
        out = T.q5_1;
    } else if (n == "q6_K") {
        out = T.q8_0;
    }
    if (t.ne[0] % out.block_elements != 0) out = T.f16;
    return out;
}

// "blk.12.attn_v.weight" -> 12; -1 for tensors outside the repeating layers.
int layer_of(const std::string& name) {
    if (name.rfind("blk.", 0) != 0) return -1;
    std::size_t at = 4;
    int layer = 0;
    bool digits = false;
    while (at < name.size() && name[at] >= '0' && name[at] <= '9' && layer < 1000000) {
        layer = layer * 10 + (name[at] - '0');
        digits = true;
        ++at;
    }
    return digits && at < name.size() && name[at] == '.' ? layer : -1;
}

// gpt-oss is converted with its routed experts already in MXFP4 (convert_hf_to_gguf.py
// repacks the checkpoint's blocks), and every GGUF of it keeps them so: the F16 file of the 20B
// is ~12.5 GB and the smaller types ~11 GB (llama.cpp issue #15117), the 120B's Q8_0 is 63.4 GB
// like its MXFP4 file (sizes quoted in AlexsJones/llmfit PR #1059). Only the other tensors take
// the file type.
bool keeps_source_mxfp4(const TensorLayout& layout, const TensorInfo& t) {
    return layout.arch == "gpt-oss" && t.ne[2] > 1 &&
           t.name.find("_exps.weight") != std::string::npos;
}

}  // namespace

bool is_llama_file_type(const std::string& quant_id) {
    return find_ftype(quant_id).has_value();
}

PreparedLayout prepare_layout(TensorLayout layout) {
    PreparedLayout p;
    p.layout = std::move(layout);
    const auto& tensors = p.layout.tensors;
    // llama-quantize's order: by layer, then by name. Keys are computed once per tensor.
    std::vector<std::pair<int, std::size_t>> keyed;
    keyed.reserve(tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i)
        keyed.emplace_back(layer_of(tensors[i].name), i);
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first < b.first;
        return tensors[a.second].name < tensors[b.second].name;
    });
    for (const auto& t : tensors)
        p.routed_expert.push_back(t.name.find("_exps.") != std::string::npos);
    for (const auto& k : keyed) {
        const TensorInfo& t = tensors[k.second];
        const Category c = category(t.name);
        p.order.push_back(k.second);
        p.category.push_back(static_cast<int>(c));
        p.kind.push_back(contains(t.name, "ffn_gate_tid2eid") ? PreparedLayout::kI32
                         : keeps_source_mxfp4(p.layout, t)    ? PreparedLayout::kKeepsMxfp4
                         : keeps_source_16bit(t)              ? PreparedLayout::kKeeps16
                         : allows_quantization(t)             ? PreparedLayout::kQuantized
                                                              : PreparedLayout::kF32);
        if (is_attn_v(c)) ++p.n_attention_wv;
        if (c == Category::output) p.tied = false;
    }
    return p;
}

namespace {

// The type llama-quantize gives each tensor, in its processing order (p.order). One pass: the
// rules count attn_v / ffn_down tensors as they go.
Result<std::vector<GgmlType>> chosen_types(const PreparedLayout& p, const std::string& quant_id,
                                           std::optional<bool> imatrix) {
    const auto ft = find_ftype(quant_id);
    if (!ft) {
        return fail(ErrorKind::bad_input,
                    "--engine llama.cpp needs a GGUF file type, not '" + quant_id + "'",
                    "use a GGUF quantization such as Q4_K_M, Q8_0 or FP16");
    }
    State qs{p.layout, ft->ftype};
    qs.imatrix = imatrix.value_or(needs_imatrix(ft->ftype));
    qs.n_attention_wv = p.n_attention_wv;
    qs.tied = p.tied;
    qs.n_ffn_down = static_cast<int>(p.layout.n_layer);
    const GgmlType default_type = type(ft->default_type);
    const GgmlType& f32 = named_types().f32;
    const GgmlType& mxfp4 = named_types().mxfp4;
    const GgmlType i32 = type("i32");
    std::vector<GgmlType> out;
    out.reserve(p.order.size());
    for (std::size_t i = 0; i < p.order.size(); ++i) {
        const TensorInfo& t = p.layout.tensors[p.order[i]];
        GgmlType chosen = f32;
        if (p.kind[i] == PreparedLayout::kI32) {
            chosen = i32;
        } else if (p.kind[i] == PreparedLayout::kKeepsMxfp4) {
            chosen = mxfp4;
        } else if (p.kind[i] == PreparedLayout::kKeeps16) {
            // an unquantized file is the converter's own output type; a quantized one was made
            // from a 16-bit file
            chosen = is_quantized(default_type) ? named_types().f16 : default_type;
        } else if (p.kind[i] == PreparedLayout::kQuantized) {
            chosen = default_type;
            if (is_quantized(default_type)) {
                chosen = choose(qs, chosen, t, static_cast<Category>(p.category[i]));
                chosen = fallback(t, chosen);
            }
        }
        out.push_back(chosen);
    }
    return out;
}

Result<Bytes> typed_bytes(const TensorInfo& t, const GgmlType& type) {
    const auto row = ggml_row_bytes(type, t.ne[0]);
    if (!row) {
        return fail(ErrorKind::bad_input, "tensor " + t.name + " has rows of " +
                                              std::to_string(t.ne[0]) + " values, not whole " +
                                              std::string(type.name) + " blocks");
    }
    return checked::mul(*row, checked::mul(t.ne[1], checked::mul(t.ne[2], t.ne[3])));
}

}  // namespace

Result<std::vector<Bytes>> quantize_bytes(const PreparedLayout& p, const std::string& quant_id,
                                          std::optional<bool> imatrix) {
    CANITRUN_TRY_ASSIGN(const auto types, chosen_types(p, quant_id, imatrix));
    return catch_overflow(
        [&]() -> Result<std::vector<Bytes>> {
            std::vector<Bytes> out(p.layout.tensors.size(), 0);
            for (std::size_t i = 0; i < p.order.size(); ++i) {
                CANITRUN_TRY_ASSIGN(out[p.order[i]],
                                    typed_bytes(p.layout.tensors[p.order[i]], types[i]));
            }
            return out;
        },
        [] { return overflow_error("the tensor sizes"); });
}

Result<std::vector<TypedTensor>> quantize_tensors(const TensorLayout& layout,
                                                  const std::string& quant_id,
                                                  std::optional<bool> imatrix) {
    const PreparedLayout p = prepare_layout(layout);
    CANITRUN_TRY_ASSIGN(const auto types, chosen_types(p, quant_id, imatrix));
    return catch_overflow(
        [&]() -> Result<std::vector<TypedTensor>> {
            std::vector<TypedTensor> out;
            out.reserve(p.order.size());
            for (std::size_t i = 0; i < p.order.size(); ++i) {
                const TensorInfo& t = p.layout.tensors[p.order[i]];
                CANITRUN_TRY_ASSIGN(const Bytes b, typed_bytes(t, types[i]));
                out.push_back({t, types[i], b});
            }
            return out;
        },
        [] { return overflow_error("the tensor sizes"); });
}

Bytes tensor_bytes(const std::vector<TypedTensor>& tensors) {
    Bytes sum = 0;
    for (const auto& t : tensors) sum = checked::add(sum, t.bytes);
    return sum;
}

}  // namespace canitrun
