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

}  // namespace canitrun
