#pragma once
// llama-quantize's tensor categories (tensor_get_category in src/llama-quant.cpp): what its type
// rules branch on. Shared by the layout preparation, which assigns them once per tensor, and the
// rules, which read them per file type.

namespace canitrun {

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

// The tensors the rules count as attn_v (i_attention_wv).
inline bool is_attn_v(Category c) {
    return c == Category::attn_v || c == Category::attn_qkv || c == Category::attn_kv_b;
}

// Whether the rules' type for a layer tensor of this category may depend on its place in the
// processing order: the attn_v-like tensors and ffn_down read their counts (and ffn_down the
// layer), ffn_gate / ffn_up theirs at IQ3_XS alone (`iq3_xs`). Every other category's type
// follows from the file type, the category and the shape, so chosen_types gives a repeat
// (TensorInfo::repeats) the type of the tensor it repeats; ffn_gate / ffn_up so typed are left
// out of their counts, which only IQ3_XS reads.
inline bool rules_read_place(Category c, bool iq3_xs) {
    return is_attn_v(c) || c == Category::ffn_down ||
           (iq3_xs && (c == Category::ffn_gate || c == Category::ffn_up));
}

}  // namespace canitrun
