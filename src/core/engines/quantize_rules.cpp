#include "canitrun/quantize_rules.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "canitrun/name_match.hpp"
#include "quantize_request.hpp"
#include "tensor_category.hpp"

// A transcription of the type choice in llama.cpp 0ad4a86 src/llama-quant.cpp for the file types
// canitrun lists: llama_ftype_get_default_type, tensor_allows_quantization, tensor_get_category,
// llama_tensor_get_type_impl (the branches these file types reach) and tensor_type_fallback.
// Tensors are visited in llama_model_loader::weights_map order (weight_name_comparer: layer,
// then name), which decides the i_attention_wv / i_ffn_down counters.

namespace canitrun {
using detail::as_published;
using detail::holds_for;
using detail::names;
using detail::rule_types;

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
    std::uint32_t llama_ftype;      // its number in llama.h's enum llama_ftype (general.file_type)
};

constexpr std::array<FtypeName, 33> kFtypes = {{
    {"FP32", Ftype::f32, "f32", 0},           {"FP16", Ftype::f16, "f16", 1},
    {"BF16", Ftype::bf16, "bf16", 32},        {"Q8_0", Ftype::q8_0, "q8_0", 7},
    {"Q6_K", Ftype::q6_k, "q6_K", 18},        {"Q5_K_M", Ftype::q5_k_m, "q5_K", 17},
    {"Q5_K_S", Ftype::q5_k_s, "q5_K", 16},    {"Q4_K_M", Ftype::q4_k_m, "q4_K", 15},
    {"Q4_K_S", Ftype::q4_k_s, "q4_K", 14},    {"Q3_K_L", Ftype::q3_k_l, "q3_K", 13},
    {"Q3_K_M", Ftype::q3_k_m, "q3_K", 12},    {"Q3_K_S", Ftype::q3_k_s, "q3_K", 11},
    {"Q2_K", Ftype::q2_k, "q2_K", 10},        {"Q2_K_S", Ftype::q2_k_s, "q2_K", 21},
    {"Q4_0", Ftype::q4_0, "q4_0", 2},         {"Q4_1", Ftype::q4_1, "q4_1", 3},
    {"Q5_0", Ftype::q5_0, "q5_0", 8},         {"Q5_1", Ftype::q5_1, "q5_1", 9},
    {"IQ4_NL", Ftype::iq4_nl, "iq4_nl", 25},  {"IQ4_XS", Ftype::iq4_xs, "iq4_xs", 30},
    {"IQ3_M", Ftype::iq3_m, "iq3_s", 27},     {"IQ3_S", Ftype::iq3_s, "iq3_s", 26},
    {"IQ3_XS", Ftype::iq3_xs, "iq3_s", 22},   {"IQ3_XXS", Ftype::iq3_xxs, "iq3_xxs", 23},
    {"IQ2_M", Ftype::iq2_m, "iq2_s", 29},     {"IQ2_S", Ftype::iq2_s, "iq2_xs", 28},
    {"IQ2_XS", Ftype::iq2_xs, "iq2_xs", 20},  {"IQ2_XXS", Ftype::iq2_xxs, "iq2_xxs", 19},
    {"IQ1_M", Ftype::iq1_m, "iq1_m", 31},     {"IQ1_S", Ftype::iq1_s, "iq1_s", 24},
    {"TQ2_0", Ftype::tq2_0, "tq2_0", 37},     {"TQ1_0", Ftype::tq1_0, "tq1_0", 36},
    {"MXFP4", Ftype::mxfp4_moe, "mxfp4", 38},
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
    for (const auto& f : kFtypes) {
        if (equals_ignoring_case(f.id, id)) return f;
    }
    return std::nullopt;
}

GgmlType type(std::string_view name) {
    return *find_ggml_type(name);
}

// The types the rules name, looked up once: the rules run per tensor, for every tensor of every
// model the planner sizes.
struct NamedTypes {
    GgmlType f16, f32, iq2_s, iq2_xxs, iq3_s, iq3_xxs, iq4_nl, mxfp4, q2_K, q3_K, q4_0, q4_1, q4_K,
        q5_0, q5_1, q5_K, q6_K, q8_0;
};

const NamedTypes& named_types() {
    static const NamedTypes t{type("f16"),   type("f32"),     type("iq2_s"),  type("iq2_xxs"),
                              type("iq3_s"), type("iq3_xxs"), type("iq4_nl"), type("mxfp4"),
                              type("q2_K"),  type("q3_K"),    type("q4_0"),   type("q4_1"),
                              type("q4_K"),  type("q5_0"),    type("q5_1"),   type("q5_K"),
                              type("q6_K"),  type("q8_0")};
    return t;
}

bool is_quantized(const GgmlType& t) {
    return t.block_elements > 1;
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

// llama_tensor_get_type_impl, branch by branch. Files made before b8275 (llama.cpp #19770;
// TensorLayout::quantized_before_b8275) differ in two tensors:
// - per_layer_token_embd is TOKEN_EMBD (tensor_name_match_token_embd, llama-quant.cpp:104-106
//   at 80fb11a), so a tied model's takes the output's type (:456); before, the output branch
//   named "token_embd.weight" alone and the token_embd branch both, so it kept the file type;
// - attn_qkv is attn_v-like (category_is_attn_v) and takes the attn_v branch; before, that
//   branch matched "attn_v.weight" alone and attn_qkv had its own, after attn_output: q4_K at
//   Q3_K_M / Q3_K_L / IQ3_M, q5_K at Q4_K_M, q6_K at Q5_K_M, the file type otherwise.
// NOLINTNEXTLINE(readability-function-size): kept whole to be read against llama-quant.cpp
GgmlType choose(State& qs, GgmlType new_type, const TensorInfo& t, Category cat) {
    using F = Ftype;
    const NamedTypes& T = named_types();
    const F f = qs.ftype;
    const auto n_gqa = qs.layout.n_gqa;
    const auto n_expert = qs.layout.n_expert;
    const bool imatrix = qs.imatrix;
    const bool iq1_iq2 = any_of(f, {F::iq2_xxs, F::iq2_xs, F::iq1_s, F::iq2_s, F::iq2_m, F::iq1_m});
    const bool before_b8275 = qs.layout.quantized_before_b8275;
    const bool attn_v = is_attn_v(cat) && (!before_b8275 || cat != Category::attn_qkv);
    if (cat == Category::output || (qs.tied && cat == Category::token_embd &&
                                    !(before_b8275 && t.name == "per_layer_token_embd.weight"))) {
        if (f == F::mxfp4_moe || t.ne[0] % new_type.block_elements != 0) {
            new_type = T.q8_0;
        } else if (any_of(f, {F::iq2_xxs, F::iq2_xs, F::iq3_xxs, F::iq1_s, F::iq2_s, F::iq2_m,
                              F::iq1_m})) {
            new_type = T.q5_K;
        } else if (new_type.id != T.q8_0.id) {
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
        if (attn_v) {
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
    } else if (attn_v) {
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
        if (qs.layout.is_70b && (new_type.id == T.q3_K.id || new_type.id == T.q4_K.id)) {
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
        } else if (any_of(f, {F::q4_0, F::q5_0}) && imatrix && i_layer < n_layer / 8) {
            // with an importance matrix the first eighth of ffn_down is guarded in q4_1 / q5_1
            new_type = f == F::q4_0 ? T.q4_1 : T.q5_1;
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
    } else if (cat == Category::attn_qkv) {  // files made before b8275 only
        if (any_of(f, {F::q3_k_m, F::q3_k_l, F::iq3_m})) {
            new_type = T.q4_K;
        } else if (f == F::q4_k_m) {
            new_type = T.q5_K;
        } else if (f == F::q5_k_m) {
            new_type = T.q6_K;
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
    // From b8275 the attn_qkv branch of llama_tensor_get_type_impl is unreachable: is_attn_v
    // takes it first.
    return new_type;
}

// tensor_type_fallback: a row that is not a whole number of blocks.
GgmlType fallback(const TensorInfo& t, GgmlType target) {
    if (t.ne[0] % target.block_elements == 0) return target;
    const NamedTypes& T = named_types();
    const auto is = [&](std::initializer_list<std::string_view> names) {
        for (const auto n : names) {
            if (target.name == n) return true;
        }
        return false;
    };
    GgmlType out = target;
    if (is({"iq1_s", "iq1_m", "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq4_xs"})) {
        out = T.iq4_nl;
    } else if (is({"q2_0", "q2_K", "q3_K", "tq1_0", "tq2_0"})) {
        out = T.q4_0;
    } else if (target.id == T.q4_K.id) {
        out = T.q5_0;
    } else if (target.id == T.q5_K.id) {
        out = T.q5_1;
    } else if (target.id == T.q6_K.id) {
        out = T.q8_0;
    }
    if (t.ne[0] % out.block_elements != 0) out = T.f16;
    return out;
}

}  // namespace

bool is_llama_file_type(const std::string& quant_id) {
    return find_ftype(quant_id).has_value();
}

std::string file_type_of_llama_ftype(std::uint64_t ftype) {
    for (const auto& f : kFtypes) {
        if (f.llama_ftype == ftype) return std::string(f.id);
    }
    return "";
}

bool is_llama_file_type(const Quant& quant) {
    return is_llama_file_type(quantize_request(quant).file_type);
}

namespace {

// The type llama-quantize gives each tensor, in its processing order (p.order). One pass: the
// rules count attn_v / ffn_down tensors as they go; a tensor the request types by hand takes
// that type (the counters still count it, as llama-quantize's do).
Result<std::vector<GgmlType>> chosen_types(const PreparedLayout& p, const QuantizeRequest& asked) {
    const QuantizeRequest request = as_published(p.layout, asked);
    const auto ft = find_ftype(request.file_type);
    if (!ft) {
        return fail(ErrorKind::bad_input,
                    "--engine llama.cpp needs a GGUF file type, not '" + request.file_type + "'",
                    "use a GGUF quantization such as Q4_K_M, Q8_0 or FP16");
    }
    CANITRUN_TRY_ASSIGN(const auto by_hand, rule_types(request));
    State qs{p.layout, ft->ftype};
    qs.imatrix = request.imatrix.value_or(needs_imatrix(ft->ftype) || p.layout.imatrix);
    qs.n_attention_wv = p.n_attention_wv;
    qs.tied = p.tied;
    qs.n_ffn_down = static_cast<int>(p.layout.n_layer);
    const GgmlType default_type = type(ft->default_type);
    const GgmlType& f32 = named_types().f32;
    const GgmlType& mxfp4 = named_types().mxfp4;
    const GgmlType i32 = type("i32");
    std::vector<GgmlType> out(p.order.size());  // written in place: push_back was a fifth
    std::vector<const GgmlType*> typed(p.layout.tensors.size(), nullptr);  // by tensor, in out
    for (std::size_t i = 0; i < p.order.size(); ++i) {
        const std::size_t at = p.order[i], rep = p.layout.tensors[at].repeats;
        const TensorInfo& t = p.layout.tensors[at];
        // a repeat (same category, kind, shape) where no rule reads its place or a name
        if (rep < at && typed[rep] != nullptr && by_hand.empty() &&
            !rules_read_place(static_cast<Category>(p.category[i]), ft->ftype == Ftype::iq3_xs)) {
            out[i] = *typed[rep];
            typed[at] = &out[i];
            continue;
        }
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
        for (std::size_t r = 0; r < by_hand.size(); ++r) {
            const TensorTypeRule& rule = request.tensor_types[r];
            if (holds_for(rule, p.layout) && names(rule, t.name)) chosen = fallback(t, by_hand[r]);
        }
        out[i] = chosen;
        typed[at] = &out[i];
    }
    return out;
}

QuantizeRequest plain(const std::string& quant_id, std::optional<bool> imatrix) {
    return QuantizeRequest{quant_id, imatrix, {}};
}

Result<Bytes> typed_bytes(const TensorInfo& t, const GgmlType& type) {
    const auto row = ggml_row_bytes(type, t.ne[0]);
    if (!row) {
        return fail(ErrorKind::bad_input, "tensor " + t.name.str() + " has rows of " +
                                              std::to_string(t.ne[0]) + " values, not whole " +
                                              std::string(type.name) + " blocks");
    }
    return checked::mul(*row, checked::mul(t.ne[1], checked::mul(t.ne[2], t.ne[3])));
}

// The smallest type llama_tensor_get_type_impl and tensor_type_fallback give any quantized
// tensor at this file type. Every branch of choose() picks the default type or a larger one,
// and every fallback a larger one, except two: IQ3_XS files put attn_k, attn_q and the middle
// ffn_gate / ffn_up in iq3_xxs, and IQ3_XXS files attn_k and attn_q in iq2_s (both smaller than
// the default iq3_s / iq3_xxs). prepared_layout_test checks this floor against the rules for
// every model of the database at every file type.
GgmlType smallest_type(Ftype f, const GgmlType& default_type) {
    if (f == Ftype::iq3_xs) return named_types().iq3_xxs;
    if (f == Ftype::iq3_xxs) return named_types().iq2_s;
    return default_type;
}

// The smaller of two types, by bytes per element.
GgmlType smaller(const GgmlType& a, const GgmlType& b) {
    return b.block_bytes * a.block_elements < a.block_bytes * b.block_elements ? b : a;
}

}  // namespace

Result<Bytes> device_weights_lower_bound(const PreparedLayout& p, const std::string& quant_id) {
    return device_weights_lower_bound(p, plain(quant_id, std::nullopt));
}

Result<Bytes> device_weights_lower_bound(const std::array<std::uint64_t, 5>& device_elements,
                                         const QuantizeRequest& request) {
    const auto ft = find_ftype(request.file_type);
    if (!ft) {
        return fail(ErrorKind::bad_input, "no llama.cpp file type '" + request.file_type + "'");
    }
    CANITRUN_TRY_ASSIGN(const auto by_hand, rule_types(request));
    const GgmlType default_type = type(ft->default_type);
    // chosen_types(): kQuantized and kKeeps16 tensors take the default type when it is not a
    // quantized one, else the rules' choice or f16, never less than the smallest type; a
    // tensor typed by hand, its own type.
    GgmlType small =
        is_quantized(default_type) ? smallest_type(ft->ftype, default_type) : default_type;
    for (const auto& t : by_hand) small = smaller(small, t);
    const auto at = [&](std::uint64_t elements, const GgmlType& t) {
        return checked::mul_div_floor(elements, t.block_bytes, t.block_elements);
    };
    const auto& e = device_elements;
    return catch_overflow(
        [&]() -> Result<Bytes> {
            Bytes sum = at(checked::add(e[PreparedLayout::kF32], e[PreparedLayout::kI32]),
                           named_types().f32);
            sum = checked::add(sum, at(e[PreparedLayout::kKeepsMxfp4], named_types().mxfp4));
            return checked::add(
                sum, at(checked::add(e[PreparedLayout::kQuantized], e[PreparedLayout::kKeeps16]),
                        small));
        },
        [] { return overflow_error("the tensor sizes"); });
}

Result<std::vector<Bytes>> quantize_bytes(const PreparedLayout& p, const std::string& quant_id,
                                          std::optional<bool> imatrix) {
    return quantize_bytes(p, plain(quant_id, imatrix));
}

Result<std::vector<Bytes>> quantize_bytes(const PreparedLayout& prepared,
                                          const QuantizeRequest& request) {
    const PreparedLayout& p = prepared;
    CANITRUN_TRY_ASSIGN(const auto types, chosen_types(p, request));
    return catch_overflow(
        [&]() -> Result<std::vector<Bytes>> {
            const auto& tensors = p.layout.tensors;
            std::vector<Bytes> out(tensors.size(), 0);
            // by tensor, the type of its bytes: a repeat (same shape) of that type has them
            std::vector<const GgmlType*> typed(tensors.size(), nullptr);
            for (std::size_t i = 0; i < p.order.size(); ++i) {
                const std::size_t at = p.order[i], r = tensors[at].repeats;
                if (r < at && typed[r] != nullptr && typed[r]->id == types[i].id) {
                    out[at] = out[r];
                } else {
                    CANITRUN_TRY_ASSIGN(out[at], typed_bytes(tensors[at], types[i]));
                }
                typed[at] = &types[i];
            }
            return out;
        },
        [] { return overflow_error("the tensor sizes"); });
}

Result<std::vector<TypedTensor>> quantize_tensors(const TensorLayout& layout,
                                                  const std::string& quant_id,
                                                  std::optional<bool> imatrix) {
    return quantize_tensors(layout, plain(quant_id, imatrix));
}

Result<std::vector<TypedTensor>> quantize_tensors(const TensorLayout& layout,
                                                  const QuantizeRequest& request) {
    const PreparedLayout p = prepare_layout(layout);
    CANITRUN_TRY_ASSIGN(const auto types, chosen_types(p, request));
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
