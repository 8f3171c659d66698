// The encoders llama.cpp runs for embeddings (llama-model.cpp, load_tensors for LLM_ARCH_BERT and
// LLM_ARCH_NOMIC_BERT): token embeddings, token types and (BERT) learned positions with their
// norm, all kept on the host; per layer the attention (separate q/k/v with biases for BERT, one
// fused attn_qkv without for nomic-bert), its output and norm, the FFN (GELU up/down with
// biases for BERT, SwiGLU gate/up/down without for nomic-bert) and the layer's output norm. No
// output head: the pooled hidden state is the answer. EmbeddingGemma (gemma-embedding) is
// Gemma 3's layout (tensor_layout.cpp). None of them keeps a KV cache
// (llama_arch_keeps_no_memory).

#include "layout_builder.hpp"

namespace canitrun::layout {

namespace {

// BERT's token types: 2 (BERT), 1 for XLM-RoBERTa (bge-m3's config.json: type_vocab_size 1);
// nomic-bert's config.json: 2. A few KB either way.
constexpr std::uint64_t kBertTokenTypes = 1;
constexpr std::uint64_t kNomicTokenTypes = 2;

void encoder_inputs(Builder& b, const Model& m, bool nomic) {
    const auto& a = m.arch;
    b.add("token_embd.weight", {a.hidden_size, a.vocab_size});
    b.add("token_types.weight", {a.hidden_size, nomic ? kNomicTokenTypes : kBertTokenTypes});
    // learned positions, n_ctx_train rows (convert_hf_to_gguf.py drops XLM-RoBERTa's two
    // padding positions); nomic-bert rotates instead
    if (!nomic) b.add("position_embd.weight", {a.hidden_size, m.context_native});
    b.add("token_embd_norm.weight", {a.hidden_size});
    b.add("token_embd_norm.bias", {a.hidden_size});
}

}  // namespace

void build_bert(Builder& b, const Model& m, bool nomic) {
    const auto& a = m.arch;
    const std::uint64_t n = a.hidden_size;
    const std::uint64_t kv = a.attention.kv_heads * a.attention.head_dim;
    const std::uint64_t ff = a.intermediate_size;
    encoder_inputs(b, m, nomic);
    for (int il = 0; il < static_cast<int>(a.layers); ++il) {
        if (nomic) {
            b.blk(il, "attn_qkv.weight", {n, n + 2 * kv});
        } else {
            b.blk(il, "attn_q.weight", {n, n});
            b.blk(il, "attn_q.bias", {n});
            b.blk(il, "attn_k.weight", {n, kv});
            b.blk(il, "attn_k.bias", {kv});
            b.blk(il, "attn_v.weight", {n, kv});
            b.blk(il, "attn_v.bias", {kv});
        }
        b.blk(il, "attn_output.weight", {n, n});
        if (!nomic) b.blk(il, "attn_output.bias", {n});
        b.blk(il, "attn_output_norm.weight", {n});
        b.blk(il, "attn_output_norm.bias", {n});
        b.blk(il, "ffn_up.weight", {n, ff});
        if (nomic) b.blk(il, "ffn_gate.weight", {n, ff});
        b.blk(il, "ffn_down.weight", {ff, n});
        if (!nomic) {
            b.blk(il, "ffn_up.bias", {ff});
            b.blk(il, "ffn_down.bias", {n});
        }
        b.blk(il, "layer_output_norm.weight", {n});
        b.blk(il, "layer_output_norm.bias", {n});
    }
}

}  // namespace canitrun::layout
