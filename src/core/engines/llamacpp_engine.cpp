#include "canitrun/llamacpp_engine.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <string_view>

#include "cache_setup.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/name_match.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "cuda_fusion.hpp"
#include "layer_rows.hpp"
#include "moe_floats.hpp"
#include "msa_phase.hpp"
#include "qsa_phase.hpp"
#include "quant_memo.hpp"

// Rules from llama.cpp 0ad4a86 (the libllama node-llama-cpp 3.22.1 ships; read at 5b4ebc5,
// the same allocation at both, docs/METHOD.md "Pinned build"):
// - llama-context.cpp: n_ctx = GGML_PAD(n_ctx, 256); without a unified KV cache (the default)
//   n_ctx_seq = GGML_PAD(n_ctx / n_seq_max, 256) and every sequence has its own stream of
//   n_ctx_seq cells; n_ubatch <= n_batch <= n_ctx.
// - llama-kv-cache.cpp: K and V are [n_embd_k_gqa, kv_size, n_stream] tensors of the cache type
//   (ggml_row_size: whole blocks), one pair per attention layer; MLA layers cache K only (the
//   latent plus the rope key), flash attention on or off (group_cache says which builds differ).
// - llama-kv-cache-dsa.cpp / -msa.cpp: a sparse-attention indexer's key cache beside the
//   layer's (DSA: K only, MLA-like; MSA: K and an unused V of one head).
// - llama-kv-cache-iswa.cpp: SWA cells GGML_PAD(min(kv_size, n_swa + n_ubatch), 256) a stream.
// - llama-memory-recurrent.cpp: conv (R) and recurrent (S) state in f32, one row per sequence.
// - llama-context.cpp output_reserve: n_vocab floats of logits per sequence at start-up.
//   Served for embeddings (llama_serve), what the first batch makes it (llamacpp_output_bytes).
// - compute buffer: fitted to what llama.cpp reports for the CPU backend (ggml-alloc's peak of
//   the ubatch graph, tests/fixtures/llamacpp-cpu-buffers.json): the output phase holds the
//   logits (n_ubatch x n_vocab f32) plus two n_ubatch x n_embd activations (exact for llama,
//   qwen3moe, gemma3 with flash attention); one more where the graph picks the output rows
//   last, in linear-attention / SSM models, or under a shared expert's MoE output.
//   Without flash attention the attention phase holds KQ (n_head x n_kv x n_ubatch f32), its
//   mask (n_kv x n_ubatch f32, plus the sliding layers' mask) and the FFN activations
//   (n_ubatch x (n_ff + 2 n_embd) f32); the buffer is the larger of the two phases.

namespace canitrun {
namespace {

Result<Bytes> row(const GgmlType& type, std::uint64_t elements, const std::string& what) {
    const auto r = ggml_row_bytes(type, elements);
    if (!r) {
        return fail(ErrorKind::bad_input,
                    "cache type " + std::string(type.name) + " needs rows of whole " +
                        std::to_string(type.block_elements) + "-value blocks, but " + what +
                        " has " + std::to_string(elements) + " values",
                    "use --cache-type-k/--cache-type-v f16");
    }
    return *r;
}

// The V row of every attention layer without flash attention: llama.cpp transposes V then and
// pads every layer's row to the widest layer's (llama-kv-cache.cpp, TAG_V_CACHE_VARIABLE:
// n_embd_v_gqa_max()); 0 with flash attention, where each layer keeps its own width.
std::uint64_t padded_v_width(const Model& m, bool flash_attn) {
    if (flash_attn) return 0;
    std::uint64_t widest = 0;
    for (const auto& group : m.arch.layer_groups) {
        if (group.kind != LayerKind::full && group.kind != LayerKind::sliding) continue;
        const AttentionDims d = attention_dims(m, group);
        widest = std::max(widest, checked::mul(d.kv_heads, d.v_dim));
    }
    return widest;
}

// The cells a compressed layer's cache has per stream: its entries, at least one, padded to
// 256 (llama-kv-cache-dsv4.cpp: GGML_PAD(max(1, dsv4_comp_size), 256)).
std::uint64_t compressed_cells(const LayerGroup& group, std::uint64_t n_ctx_seq) {
    return llama_padded_context(std::max<std::uint64_t>(1, compressed_entries(group, n_ctx_seq)));
}

// A DeepSeek V4 layer (llama-kv-cache-dsv4.cpp): K only, in the K type. The raw cache keeps
// the sliding window's cells (the iswa rule); a compressed layer one entry per compress_ratio
// cells of the context, padded to 256, and its indexer key per entry at ratio 4; every stream
// (one per sequence) has its own. The compressors' state is f32 per sequence (`c.recurrent`).
Result<LayerCache> compressed_cache(const Model& m, const LayerGroup& group, const Geometry& g,
                                    const GgmlType& tk, LayerCache c) {
    const AttentionDims d = attention_dims(m, group);
    CANITRUN_TRY_ASSIGN(const Bytes k, row(tk, checked::mul(d.kv_heads, d.k_dim), "a K row"));
    Bytes per_stream = checked::mul(k, llama_sliding_cells(g.n_ctx_seq, group.window, g.ubatch));
    if (group.compress_ratio > 0) {
        const std::uint64_t entries = compressed_cells(group, g.n_ctx_seq);
        Bytes per_entry = k;
        if (group.index_head_dim > 0) {
            CANITRUN_TRY_ASSIGN(const Bytes ik,
                                row(tk, group.index_head_dim, "an indexer key row"));
            per_entry = checked::add(per_entry, ik);
        }
        per_stream = checked::add(per_stream, checked::mul(per_entry, entries));
    }
    c.kv = checked::mul(per_stream, g.n_stream);
    return c;
}

// One layer of the group: K and V over every stream (llama-kv-cache.cpp), and the recurrent
// state of every sequence (llama-memory-recurrent.cpp). `v_width`: padded_v_width's.
Result<LayerCache> group_cache(const Model& m, const LayerGroup& group, const Geometry& g,
                               const GgmlType& tk, const GgmlType& tv, std::uint64_t v_width) {
    LayerCache c;
    c.recurrent = checked::mul(layer_recurrent_state_bytes(group), g.n_seq);
    std::uint64_t cells = 0;
    Bytes per_cell = 0;
    if (group.kind == LayerKind::full || group.kind == LayerKind::sliding) {
        const AttentionDims d = attention_dims(m, group);
        CANITRUN_TRY_ASSIGN(auto k, row(tk, checked::mul(d.kv_heads, d.k_dim), "a K row"));
        const std::uint64_t v_elements = v_width ? v_width : checked::mul(d.kv_heads, d.v_dim);
        CANITRUN_TRY_ASSIGN(auto v, row(tv, v_elements, "a V row"));
        per_cell = checked::add(k, v);
        if (group.index_head_dim > 0) {
            // llama_kv_cache_msa: a second, one-head cache of the indexer key, with a V of the
            // layer's head width it allocates but never reads (llama-kv-cache-msa.cpp). QSA's
            // (qwen4exp, compress_ratio): llama_memory_hybrid_idx's third cache, MLA-shaped so
            // K only, the same cells (llama-memory-hybrid-idx.cpp:49-67)
            CANITRUN_TRY_ASSIGN(const Bytes ik,
                                row(tk, group.index_head_dim, "an indexer key row"));
            Bytes iv = 0;
            if (group.compress_ratio == 0) {
                CANITRUN_TRY_ASSIGN(iv, row(tv, d.v_dim, "an indexer V row"));
            }
            per_cell = checked::add(per_cell, checked::add(ik, iv));
        }
        cells = g.n_ctx_seq;
        if (group.kind == LayerKind::sliding) {
            cells = llama_sliding_cells(g.n_ctx_seq, group.window, g.ubatch);
        }
    } else if (group.kind == LayerKind::mla) {
        // K only, with flash attention on or off: llama_kv_cache::llama_kv_cache at 0ad4a86
        // (bundle de3ff81, src/llama-kv-cache.cpp lines 163 / 231-234: `has_v = !is_mla`, no
        // V tensor). V-less since llama.cpp PR #19067 (2026-01); from PR #12801 (2025-04) to
        // then every build also kept a V of kv_lora_rank values per cell, with FA on or off:
        // cudax-005 (b5331, FA on) prints V (f16) 976 MiB = 61 x 512 x 2 B x 16384 beside K.
        CANITRUN_TRY_ASSIGN(
            auto k,
            row(tk, checked::add(group.kv_lora_rank, group.qk_rope_head_dim), "an MLA latent row"));
        per_cell = k;
        if (group.index_head_dim > 0) {
            // llama_kv_cache_dsa: a second K-only cache of one indexer key per cell, same type
            // and cells as the latent's (llama-kv-cache-dsa.cpp)
            CANITRUN_TRY_ASSIGN(const Bytes ik,
                                row(tk, group.index_head_dim, "an indexer key row"));
            per_cell = checked::add(per_cell, ik);
        }
        // dots3note's sliding MLA: llama_kv_cache_dsa_iswa's SWA cache, the iswa rule's cells
        cells = keeps_window(group) ? llama_sliding_cells(g.n_ctx_seq, group.window, g.ubatch)
                                    : g.n_ctx_seq;
    } else if (group.kind == LayerKind::compressed) {
        return compressed_cache(m, group, g, tk, c);
    }
    c.kv = checked::mul(checked::mul(per_cell, cells), g.n_stream);
    return c;
}

}  // namespace

// llama_init_from_model's checks and llama-context.cpp's geometry.
Result<CacheSetup> cache_setup(const Model& model, const LlamaCppOptions& o) {
    if (o.context == 0) return fail(ErrorKind::bad_input, "--ctx must be at least 1");
    if (o.ubatch == 0) return fail(ErrorKind::bad_input, "--ubatch must be at least 1");
    if (o.n_seq == 0) return fail(ErrorKind::bad_input, "--parallel must be at least 1");
    CANITRUN_TRY_ASSIGN(const auto tk, parse_cache_type(o.cache_type_k));
    CANITRUN_TRY_ASSIGN(const auto tv, parse_cache_type(o.cache_type_v));
    if (tv.block_elements > 1 && o.flash_attn == FlashAttn::off) {
        return fail(ErrorKind::bad_input,
                    "llama.cpp refuses a quantized V cache without flash attention",
                    "use --flash-attn on or auto, or --cache-type-v f16");
    }
    if (count_layers(model, LayerKind::mla) + count_layers(model, LayerKind::compressed) > 0 &&
        tk.id != tv.id) {
        return fail(ErrorKind::bad_input,
                    "llama.cpp refuses different K and V cache types for MLA and DeepSeek V4 "
                    "models",
                    "give --cache-type-k and --cache-type-v the same type");
    }
    CacheSetup s{{}, tk, tv, o.flash_attn != FlashAttn::off};
    // An encoder keeps no memory: its attention spans the ubatch's own tokens.
    const auto arch = llama_arch(model);
    s.no_memory = arch && llama_arch_keeps_no_memory(*arch);
    s.outputs_last = arch && llama_arch_picks_outputs_last(*arch);
    s.routed_down = !o.f32_mask;
    const std::uint64_t n_ctx =
        llama_padded_context(s.no_memory ? std::min(o.context, o.ubatch) : o.context);
    if (n_ctx / o.n_seq == 0) {
        return fail(ErrorKind::bad_input, "--ctx is smaller than --parallel",
                    "give every sequence at least one token of context");
    }
    // A unified cache (-kvu; --parallel's default in llama-server since late 2025, and every
    // build before mid 2025) is one stream of n_ctx cells that every sequence's attention
    // spans, so the compute buffer sees the whole context (llama-context.cpp: n_ctx_seq =
    // kv_unified ? n_ctx : n_ctx / n_seq_max).
    s.g.n_seq = o.n_seq;
    s.g.n_stream = o.kv_unified ? 1 : o.n_seq;
    s.g.n_ctx_seq = o.kv_unified ? n_ctx : llama_padded_context(n_ctx / o.n_seq);
    s.g.ubatch = std::min(o.ubatch, n_ctx);
    // The outputs the graph is reserved for (sched_reserve at 0ad4a86: n_outputs_pp =
    // min(n_tokens, cparams.n_outputs_max), n_tokens = min(n_ctx, n_ubatch)): every token of the
    // ubatch unless LlamaCppOptions::outputs caps them. Every term that grows with the outputs
    // (the logits, the last layer's rows under them, the experts' sum) reads this.
    s.g.outputs = o.outputs == 0 ? s.g.ubatch : std::min(s.g.ubatch, o.outputs);
    return s;
}

std::uint64_t llama_server_outputs(const Model& model, std::uint64_t n_seq,
                                   std::uint64_t draft_tokens) {
    if (llama_serve(model) != LlamaServe::completion) return 0;
    return checked::mul(n_seq, checked::add(1, draft_tokens));
}

namespace {

// Floats per ubatch token a layer keeps alive at its peak besides the attention scores: fitted
// to the CPU backend's compute buffers (docs/ACCURACY.md): 4 n_embd + 3 FFN widths; MLA layers
// 4 n_embd + heads x (2 (kv_lora + rope) + nope + v) when larger (0 without MLA); hc + 2 rows
// under Hy4's hyper-connections (hy-v4.cpp at 0ad4a86): inp_embd, the hc residual streams
// (hc_init :518, build_hc_post's `residual` :522 / :537) and the normed input (attn_norm, read
// by the gate after the attention :486; ffn_norm): the n_embd-wide tensors alive at every
// harness setting's peak (galloc_replay.py, hy4-preview).
std::uint64_t mla_layer_floats(const Model& m) {
    const auto& a = m.arch;
    const std::uint64_t rows = std::max<std::uint64_t>(4, checked::add(a.hyper_connections, 2));
    std::uint64_t floats = 0;
    for (const auto& g : a.layer_groups) {
        if (g.kind != LayerKind::mla) continue;
        const std::uint64_t v = mla_v_head_dim(a, g);
        const std::uint64_t per_head =
            checked::add(checked::mul(2, checked::add(g.kv_lora_rank, g.qk_rope_head_dim)),
                         checked::add(g.qk_nope_head_dim, v));
        floats = std::max(floats, checked::add(checked::mul(rows, a.hidden_size),
                                               checked::mul(mla_heads(a, g), per_head)));
    }
    return floats;
}

// The CPU backend's buffer holds one n_embd row per token more than a GPU's, in the layers'
// phase (4 rows here) as in the output phase (compute_bytes' second row beside the logits,
// which logits_batch_of leaves out). Measured, not derived from ggml-alloc's order: the H200's
// CUDA0 buffers with flash attention (validation/cuda-h200/, 80fb11a), where the layers' phase
// sets them, are the f16 masks plus 3 rows and three FFN widths a token to the 0.01 MiB:
// Llama 3.3 70B at 131072 cells, 128 + 512 x 4 x (3 x 8192 + 3 x 28672) B = 344.00 MiB (344.01
// measured; 4 rows read 360, +4.6 %), Mixtral 8x7B at 4096 / 32768 cells, 4 / 32 + 512 x 4 x
// (3 x 4096 + 3 x 28672) B = 196 / 224 MiB (196.01 / 224.01), and at ubatch 2048 and 32768
// cells 128 + 768 = 896 (896.05). Over the published logs (docs/ACCURACY-GPU.md) it moves
// CUDA's compute rows within 10 % from 62 to 66 % and Vulkan's median from 3.1 to 2.1 %; two
// Metal rows already low by 8 and 50 % read 3 and 1.5 points lower.
constexpr std::uint64_t kCpuEmbdRows = 4;
constexpr std::uint64_t kGpuEmbdRows = 3;

// `routed_down`: plus the routed down products that cannot reuse what gate and up freed
// (moe_down_floats), which set an MoE model's buffer once llama-server's few outputs shrink the
// logits. Not without flash attention, where the (fitted) phase sums the KQ scores with the rows
// and the down products come after the scores are freed: Kimi K2.6 at 32768 cells read 4436 MiB
// with them, 4392 without (llama.cpp: 4376.01).
std::uint64_t layer_floats(const Model& m, std::uint64_t embd_rows, bool routed_down) {
    const std::uint64_t ffn =
        m.is_moe() ? moe_ffn_floats(m, routed_down) : checked::mul(3, widest_ffn_width(m));
    const std::uint64_t rows = checked::add(attention_rows(m, embd_rows), ffn);
    return std::max(mla_layer_floats(m), checked::add(rows, per_layer_input_floats(m)));
}

// DeepSeek Sparse Attention (deepseek32.cpp, glm-dsa.cpp) per ubatch token: every MLA layer's
// build_attn with top_k (llama-graph.cpp) makes a zero-filled f32 [1, top_k, n_tokens] tensor,
// a leaf of the graph, and ggml-alloc's ggml_gallocr_alloc_graph_impl allocates every leaf
// before the first node, so all the layers' (min(top_k, n_kv) f32 each, IndexShare layers too)
// sit under the first layers' peak; with flash attention the fused lightning indexer's f32
// score over the cache (n_kv x 4) lands above the layer's working set and the indexer's own
// f16 KQ mask (n_kv x 2) lives beside the attention's. Read off ggml-alloc's allocation of the
// reserved graph (tools/accuracy/galloc_replay.py on 0ad4a86's CPU reservation, which it
// matches to the byte, e.g. DeepSeek V3.2 at ubatch 512 and 32768 cells: 836,843,520 B): the
// layers' peak is the MLA layer's plus these. Exact for DeepSeek V3.2 from 131072 cells,
// within -4 / +10 % below (the score fits a free block of the layer's up to ~24k cells, and
// falls above the attention's masked copies from 28k to 48k); GLM-5's first (dense) layer
// peaks 32 MiB a 512-token ubatch under the MLA layer's figure (q's hole is smaller than
// mla_layer_floats' heads x v), so GLM-5.x read high by that (docs/ACCURACY.md). Over several
// GPUs each split holds only its own layers' leaves (a leaf goes to its reader's backend):
// placement.cpp takes the others' off each GPU's figure (dsa_leaf_of, own_dsa_leaves).
// One layer's top-k leaf per ubatch token: min(top_k, n_kv) floats; 0 without DSA.
std::uint64_t dsa_leaf_floats(const Model& m, std::uint64_t n_kv) {
    std::uint64_t top_k = 0;
    for (const auto& group : m.arch.layer_groups) {
        if (group.kind == LayerKind::mla) top_k = std::max(top_k, group.index_top_k);
    }
    return std::min(top_k, n_kv);
}

std::uint64_t dsa_bytes(const Model& m, std::uint64_t n_kv, bool flash_attn) {
    const std::uint64_t leaf = dsa_leaf_floats(m, n_kv);
    if (leaf == 0) return 0;
    // every MLA layer attending through the DSA cache; a sliding MLA layer (dots3note's) calls
    // build_attn on its SWA cache without top_k, so it makes no leaf
    std::uint64_t dsa_layers = 0;
    for (const auto& group : m.arch.layer_groups) {
        if (group.kind == LayerKind::mla && !keeps_window(group)) dsa_layers += group.count;
    }
    const std::uint64_t zeros = checked::mul(checked::mul(dsa_layers, leaf), kF32Bytes);
    return checked::add(zeros, checked::mul(n_kv, flash_attn ? 2 + kF32Bytes : 2));
}

// DeepSeek V4's attention phase per ubatch token (deepseek4.cpp): 16 bytes per query value
// (heads x head_dim: q, its rotated copy and the attention output in f32), 10 per ratio-4
// entry (the indexer's scores over the compressed cache and their mask), and without flash
// attention KQ over the raw window and the compressed entries. Fitted to the CPU backend's
// buffers of DeepSeek-V4-Flash within 20 MiB (docs/ACCURACY.md).
std::uint64_t compressed_attention_bytes(const Model& m, const Geometry& g, bool flash_attn) {
    std::uint64_t raw = 0, entries = 0;
    for (const auto& group : m.arch.layer_groups) {
        if (group.kind != LayerKind::compressed) continue;
        raw = std::max(raw, llama_sliding_cells(g.n_ctx_seq, group.window, g.ubatch));
        if (group.index_head_dim == 0) continue;
        entries = std::max(entries, compressed_cells(group, g.n_ctx_seq));
    }
    const std::uint64_t heads = m.arch.attention.heads;
    const std::uint64_t q = checked::mul(heads, m.arch.attention.head_dim);
    std::uint64_t per_token = checked::add(checked::mul(16, q), checked::mul(10, entries));
    if (!flash_attn) {
        per_token = checked::add(
            per_token, checked::mul(checked::mul(kF32Bytes, heads), checked::add(raw, entries)));
    }
    return per_token;
}

// The sliding window's cells (the SWA cache of llama_kv_cache_iswa / dsa_iswa), 0 without one.
std::uint64_t swa_cells(const Model& m, const Geometry& g) {
    std::uint64_t swa = 0;
    for (const auto& group : m.arch.layer_groups) {
        if (keeps_window(group)) swa = llama_sliding_cells(g.n_ctx_seq, group.window, g.ubatch);
    }
    return swa;
}

// Whether some layer attends to every cell: full, MLA without a window, compressed.
bool has_global_layers(const Model& m) {
    return std::ranges::any_of(m.arch.layer_groups, [](const LayerGroup& group) {
        return attends_every_token(group) || group.kind == LayerKind::compressed;
    });
}

// The KQ masks' cells per ubatch token: one row of n_kv for the global layers, one of the
// sliding window for the sliding ones (llama-graph.cpp's inputs).
std::uint64_t mask_cells(const Model& m, const Geometry& g) {
    return checked::add(has_global_layers(m) ? g.n_ctx_seq : 0, swa_cells(m, g));
}

// The graph's peak before its output phase: the layers' attention and FFN. `embd_rows`:
// kCpuEmbdRows on the CPU backend, kGpuEmbdRows on a GPU. `routed_down` (CacheSetup's): not
// for a build that casts f32 masks (LlamaCppOptions::f32_mask), whose three logs it touches
// (validation/llama-logs/ cudab-009, cudab-011, vulkan-001: 128k-256k cells) read +4..+12 %
// with it, -1..+2 % without; the cast's freed masks may hold them (not replayed, unconfirmed).
Bytes attention_phase_bytes(const Model& m, const Geometry& g, bool flash_attn,
                            std::uint64_t embd_rows, bool routed_down) {
    const auto& a = m.arch;
    if (count_layers(m, LayerKind::compressed) > 0) {
        return checked::mul(g.ubatch, compressed_attention_bytes(m, g, flash_attn));
    }
    const std::uint64_t swa_kv = swa_cells(m, g);
    const bool has_global = has_global_layers(m);
    const std::uint64_t n_kv = has_global ? g.n_ctx_seq : swa_kv;
    // the KQ masks: a row of n_kv a token, one of the window for sliding layers (f16 with FA)
    const std::uint64_t masks = checked::add(n_kv, has_global ? swa_kv : 0);
    if (flash_attn) {
        const std::uint64_t per_token =
            checked::add(checked::add(checked::mul(2, masks), dsa_bytes(m, n_kv, true)),
                         checked::mul(kF32Bytes, layer_floats(m, embd_rows, routed_down)));
        // an MSA layer's block scores, where it runs them (msa_phase.cpp); a QSA layer's
        return std::max({checked::mul(g.ubatch, per_token), msa_phase_bytes(m, g, n_kv, embd_rows),
                         qsa_phase_bytes(m, g, n_kv, true)});
    }
    // KQ of the widest layer: its query heads over its cells (Step-3.5-Flash's 96-head sliding
    // layers see only their window; the 64-head full ones the whole context)
    std::uint64_t kq = 0;
    for (const auto& group : a.layer_groups) {
        const std::uint64_t heads = attention_dims(m, group).heads;
        if (keeps_window(group)) {
            kq = std::max(kq, checked::mul(heads, swa_kv));
        } else if (group.kind == LayerKind::full || group.kind == LayerKind::mla) {
            kq = std::max(kq, checked::mul(heads, n_kv));
        }
    }
    std::uint64_t ffn = checked::add(checked::add(widest_ffn_width(m), per_layer_input_floats(m)),
                                     checked::mul(2, a.hidden_size));
    if (count_layers(m, LayerKind::mla) > 0) ffn = std::max(ffn, layer_floats(m, embd_rows, false));
    const std::uint64_t per_token = checked::add(kq, checked::add(masks, ffn));
    return std::max(checked::add(checked::mul(checked::mul(g.ubatch, kF32Bytes), per_token),
                                 checked::mul(g.ubatch, dsa_bytes(m, n_kv, false))),
                    qsa_phase_bytes(m, g, n_kv, false));
}

// The CPU backend's output phase: the logits, the rows under them, and the experts' sum, each
// a row per output: the last layer's get_rows (build_inp_out_ids) keeps only the outputs' rows
// before its FFN. Under the logits sit inp_embd and result_norm, and a third row in a
// linear-attention / SSM model (fitted) or where the graph picks the output rows after the
// output norm (llama_arch_picks_outputs_last): result_norm is then a GET_ROWS of the normed
// hidden state, a fresh tensor beside it. Gemma 4 31B at ubatch 2048, gpt-oss-20b alike:
// llama.cpp 0ad4a86 reserved the logits plus 3 rows, 2048 x 4 x (262144 + 3 x 5376) B =
// 2174.00 MiB (2174.01). With the outputs capped (llama-server) the phase falls below the
// layers': measured with the pinned libllama (tools/accuracy/llama_probe.cpp,
// LLAMA_PROBE_OUTPUTS=4, ctx 4096, ubatch 512, flash attention): Llama 3.1 8B's CPU compute
// buffer 266.50 -> 120.01 MiB, Qwen3-30B-A3B 304.75 -> 92.01, Gemma 3 1B 516.50 -> 54.27; the
// same with 16 outputs.
Bytes output_phase_bytes(const Model& m, const CacheSetup& setup) {
    const auto& a = m.arch;
    bool third_row = count_recurrent_layers(m) > 0;
    for (const auto& group : a.layer_groups) third_row = third_row || has_parallel_ssm(group);
    third_row = third_row || setup.outputs_last;
    std::uint64_t out_per_token =
        checked::add(checked::add(a.vocab_size, checked::mul(third_row ? 3 : 2, a.hidden_size)),
                     moe_sum_floats(m, third_row));
    return checked::mul(checked::mul(setup.g.outputs, kF32Bytes), out_per_token);
}

Bytes compute_bytes(const Model& m, const CacheSetup& s) {
    return std::max(output_phase_bytes(m, s),
                    attention_phase_bytes(m, s.g, s.flash_attn, kCpuEmbdRows, s.routed_down));
}

}  // namespace

Result<std::vector<LayerCache>> group_caches_of(const Model& model, const CacheSetup& setup) {
    return catch_overflow(
        [&]() -> Result<std::vector<LayerCache>> {
            std::vector<LayerCache> out;
            const std::uint64_t v_width = padded_v_width(model, setup.flash_attn);
            for (const auto& group : model.arch.layer_groups) {
                if (setup.no_memory) {
                    out.push_back(LayerCache{});
                    continue;
                }
                CANITRUN_TRY_ASSIGN(
                    auto c, group_cache(model, group, setup.g, setup.tk, setup.tv, v_width));
                out.push_back(c);
            }
            return out;
        },
        [&] { return overflow_error("the cache for " + model.id, "lower --ctx"); });
}

Result<std::vector<LayerCache>> llamacpp_group_caches(const Model& model,
                                                      const LlamaCppOptions& options) {
    CANITRUN_TRY_ASSIGN(auto setup, cache_setup(model, options));
    return group_caches_of(model, setup);
}

Result<Bytes> mask_copy_of(const Model& model, const CacheSetup& setup) {
    return catch_overflow(
        [&]() -> Result<Bytes> {
            return checked::mul(checked::mul(setup.g.ubatch, kF32Bytes),
                                mask_cells(model, setup.g));
        },
        [&] { return overflow_error("the KQ mask for " + model.id, "lower --ctx"); });
}

// The logits batch: the logits and the normed rows they are the product of (f32). In an MLA
// graph (deepseek2.cpp's absorbed path: build_attn with wv_b as v_mla) the head's product lands
// above the layers' MLA activations instead of reusing them: ggml-alloc's
// ggml_dyn_tallocr_alloc puts a tensor no free block fits past the highest live one, and the
// 400 KiB-a-token logits fit none. Measured on the H200 (validation/cuda-h200/, 80fb11a):
// DeepSeek-V2-Lite's CUDA0 buffer is 260.26 MiB at ubatch 512 with 4096, 32768 and 8192 x 4
// cells (131072: 256.26), 130.13 / 520.52 / 1041.05 at ubatch 256 / 1024 / 2048 = the logits
// batch (512 x 4 x (102400 + 2048) = 204 MiB) plus 56.26 MiB a 512-token ubatch, against the
// MLA layer's floats (mla_layer_floats: 4 x 2048 + 16 x (2 x 576 + 128 + 128) = 30720, 60 MiB),
// which this adds: +1.4 % on every row, where the logits batch alone read -22 %.
Result<Bytes> logits_batch_of(const Model& model, const CacheSetup& setup) {
    return catch_overflow(
        [&]() -> Result<Bytes> {
            // the logits per output (Geometry::outputs), the MLA layer's floats per token
            const std::uint64_t per_output =
                checked::add(model.arch.vocab_size, model.arch.hidden_size);
            return checked::add(
                checked::mul(checked::mul(setup.g.outputs, kF32Bytes), per_output),
                checked::mul(checked::mul(setup.g.ubatch, kF32Bytes), mla_layer_floats(model)));
        },
        [&] { return overflow_error("the logits of " + model.id, "lower --ubatch"); });
}

Result<Bytes> llamacpp_mask_copy_bytes(const Model& model, const LlamaCppOptions& options) {
    CANITRUN_TRY_ASSIGN(auto setup, cache_setup(model, options));
    return mask_copy_of(model, setup);
}

Result<Bytes> device_mask_of(const Model& model, const CacheSetup& setup) {
    CANITRUN_TRY_ASSIGN(const Bytes f32, mask_copy_of(model, setup));
    return setup.flash_attn ? f32 / 2 : f32;
}

Result<Bytes> llamacpp_device_mask_bytes(const Model& model, const LlamaCppOptions& options) {
    CANITRUN_TRY_ASSIGN(auto setup, cache_setup(model, options));
    return device_mask_of(model, setup);
}

Result<Bytes> llamacpp_logits_batch_bytes(const Model& model, const LlamaCppOptions& options) {
    CANITRUN_TRY_ASSIGN(auto setup, cache_setup(model, options));
    return logits_batch_of(model, setup);
}

Result<Bytes> compute_of(const Model& model, const CacheSetup& setup,
                         const LlamaCppOptions& options) {
    CANITRUN_TRY_ASSIGN(const Bytes f32_copy, mask_copy_of(model, setup));
    const Bytes mask = options.f32_mask || !setup.flash_attn ? f32_copy : 0;
    CANITRUN_TRY_ASSIGN(const Bytes batch, logits_batch_of(model, setup));
    CANITRUN_TRY_ASSIGN(const Bytes fused, fused_moe_sum_of(model, setup));
    const Bytes logits = fuses_moe_reduction(options.backend) ? checked::add(batch, fused) : batch;
    return catch_overflow(
        [&]() -> Result<Bytes> {
            if (options.backend == Backend::cpu) {
                return compute_bytes(model, setup);
            }
            // A GPU holding every layer and the head (placement.cpp's gpu_graph says why)
            const Bytes layers = attention_phase_bytes(model, setup.g, setup.flash_attn,
                                                       kGpuEmbdRows, setup.routed_down);
            return std::max(keeps_mask_copy(options.backend) ? checked::add(layers, mask) : layers,
                            logits);
        },
        [&] {
            return overflow_error("the compute buffer for " + model.id, "lower --ctx or --ubatch");
        });
}

Result<Bytes> llamacpp_compute_bytes(const Model& model, const LlamaCppOptions& options) {
    CANITRUN_TRY_ASSIGN(auto setup, cache_setup(model, options));
    return compute_of(model, setup, options);
}

Result<Bytes> attention_phase_of(const Model& model, const CacheSetup& setup) {
    return catch_overflow(
        [&]() -> Result<Bytes> {
            return attention_phase_bytes(model, setup.g, setup.flash_attn, kGpuEmbdRows,
                                         setup.routed_down);
        },
        [&] {
            return overflow_error("the compute buffer for " + model.id, "lower --ctx or --ubatch");
        });
}

Result<Bytes> output_phase_of(const Model& model, const CacheSetup& setup) {
    return catch_overflow(
        [&]() -> Result<Bytes> { return output_phase_bytes(model, setup); },
        [&] { return overflow_error("the logits of " + model.id, "lower --ubatch"); });
}

// DSA models are MLA throughout, so the leaf spans the whole context's cells (n_ctx_seq).
Result<Bytes> dsa_leaf_of(const Model& model, const CacheSetup& setup) {
    return catch_overflow(
        [&]() -> Result<Bytes> {
            return checked::mul(checked::mul(setup.g.ubatch, kF32Bytes),
                                dsa_leaf_floats(model, setup.g.n_ctx_seq));
        },
        [&] { return overflow_error("the top-k leaves of " + model.id, "lower --ubatch"); });
}

Result<Bytes> llamacpp_attention_phase_bytes(const Model& model, const LlamaCppOptions& options) {
    CANITRUN_TRY_ASSIGN(auto setup, cache_setup(model, options));
    return attention_phase_of(model, setup);
}

Result<Bytes> host_compute_of(const Model& model, const CacheSetup& setup,
                              const LlamaCppOptions& options) {
    return catch_overflow(
        [&]() -> Result<Bytes> {
            const Geometry& g = setup.g;
            const std::uint64_t masks = mask_cells(model, g);
            // f16 masks under flash attention at the pinned build (build_attn_inp_kq_mask):
            // the H200's CUDA_Host buffer, Llama 3.1 8B at 32768 cells, is 48.01 MiB =
            // 512 x (2 x 32768 + 4 x 2 x 4096) B, where f32 masks would make it 80
            const Bytes mask_bytes = checked::mul(checked::mul(g.ubatch, masks),
                                                  setup.flash_attn && !options.f32_mask ? 2 : 4);
            const Bytes inputs = checked::mul(checked::mul(g.ubatch, kF32Bytes),
                                              checked::mul(2, model.arch.hidden_size));
            return checked::add(mask_bytes, inputs);
        },
        [&] { return overflow_error("the host compute buffer for " + model.id, "lower --ctx"); });
}

Result<Bytes> llamacpp_host_compute_bytes(const Model& model, const LlamaCppOptions& options) {
    CANITRUN_TRY_ASSIGN(auto setup, cache_setup(model, options));
    return host_compute_of(model, setup, options);
}

Bytes llamacpp_output_bytes(const Model& model, const LlamaCppOptions& options) {
    if (llama_serve(model) == LlamaServe::completion) {
        // a speculative server's verifying batch asks 1 + draft outputs a slot (options.outputs)
        return checked::mul(checked::mul(model.arch.vocab_size, kF32Bytes),
                            std::max(options.n_seq, options.outputs));
    }
    // Every token of a batch is an output; the server's batch is the ubatch (n_batch = n_ubatch),
    // within the padded context (a causal model's n_batch is capped at n_ctx).
    const std::uint64_t batch = std::min(options.ubatch, llama_padded_context(options.context));
    const std::uint64_t outputs = std::max(batch, options.n_seq);
    return checked::mul(
        checked::mul(checked::add(model.arch.vocab_size, model.arch.hidden_size), kF32Bytes),
        outputs);
}

}  // namespace canitrun
