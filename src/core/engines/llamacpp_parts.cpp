#include "canitrun/llamacpp_parts.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"

#include "cache_setup.hpp"
#include "cuda_fusion.hpp"
#include "layout_builder.hpp"
#include "quant_memo.hpp"
#include "weight_parts.hpp"

namespace canitrun {
namespace {

// The weight terms of the parts: each tensor's bytes as llama-quantize types it, summed per
// layer, with the routed experts and the active share marked. No context in them.
Result<ModelParts> typed_weight_parts(const Model& model,
                                      const std::shared_ptr<const PreparedLayout>& layout,
                                      const Quant& quant) {
    CANITRUN_TRY_ASSIGN(const auto typed, llamacpp_tensor_bytes(layout, quant));
    const std::vector<Bytes>& bytes = *typed;
    const PreparedLayout& prepared = *layout;
    const auto& tensors = prepared.layout.tensors;
    return catch_overflow(
        [&]() -> Result<ModelParts> {
            return weight_parts_of(model, tensors.size(), [&](std::size_t i) {
                return WeightTensor{tensors[i].name, tensors[i].layer, bytes[i],
                                    prepared.host_input[i], prepared.routed_expert[i]};
            });
        },
        [&] { return overflow_error("the estimate for " + model.id, "lower --ctx"); });
}

// ubatch x 4 bytes x (n_embd + k x (expert_ff + 2 n_embd)), k the experts per token: the FFN's
// input row, the k gate-up products and the k down outputs before and after their weights.
// Measured on an H200 (validation/cuda-h200/, Mixtral 8x7B with -ot exps=CPU): with the
// 367.5 MiB down_exps copy it gives GPU 0's compute buffer to 0.01 MiB at 32k and at 128k.
// A build before ggml's GLU ops (LlamaCppOptions::before_glu_ops) keeps one n_embd row an
// expert fewer: its build_moe_ffn (llama-graph.cpp of May 2025) makes up and gate, runs
// ggml_silu(gate) and ggml_mul(up, gate) in place (ggml 17733de6, ggml-alloc.c:41-67: UNARY and
// MUL may reuse their parent), so at the down product the input row, the product in up's block
// and the k down outputs are alive, and their weighting (ggml_mul) runs in place on the outputs:
// n_embd + k x (expert_ff + n_embd). Derived, not fitted: on the five published logs of such
// builds with an expert copy on GPU 0 (Qwen3-235B-A22B, validation/llama-logs/cudab-022,
// cudax-001 to -004), GPU 0's compute reads -2.2 %, -1.6 % and 0.0 % by it, +6.5 %, -1.6 % and
// +4.1 % by the pinned rule; all five are one model (docs/ACCURACY-GPU.md names a second
// model's log that would test it).
Result<Bytes> expert_batch_bytes(const Model& model, const LlamaCppOptions& options) {
    if (!model.is_moe()) return Bytes{0};
    const MoE& moe = *model.arch.moe;
    return catch_overflow(
        [&]() -> Result<Bytes> {
            const std::uint64_t embd = model.arch.hidden_size;
            const std::uint64_t per_expert = checked::add(
                moe.expert_intermediate_size, checked::mul(options.before_glu_ops ? 1 : 2, embd));
            const std::uint64_t per_token =
                checked::add(embd, checked::mul(moe.experts_per_token, per_expert));
            return checked::mul(checked::mul(options.ubatch, 4), per_token);
        },
        [&] { return overflow_error("the expert buffers of " + model.id, "lower --ubatch"); });
}

// The largest PARTIAL node of the graph as ggml-backend-meta.cpp's graph_compute measures it
// (max_tmp_size = ggml_nbytes, 0ad4a86): a product of a weight cut along its input axis
// (attn_output, ffn_down, ssm_out) leaves each GPU an f32 partial sum [n_embd, n_tokens], the
// routed experts' down product (MUL_MAT_ID) one per expert used, [n_embd, n_expert_used,
// n_tokens]; a prompt's micro-batch holds n_tokens = the ubatch.
Result<Bytes> partial_sum_bytes(const Model& model, const CacheSetup& setup) {
    return catch_overflow(
        [&]() -> Result<Bytes> {
            const std::uint64_t per_token =
                model.is_moe() ? std::max<std::uint64_t>(model.arch.moe->experts_per_token, 1) : 1;
            return checked::mul(checked::mul(setup.g.ubatch, kF32Bytes),
                                checked::mul(model.arch.hidden_size, per_token));
        },
        [&] { return overflow_error("the partial sums of " + model.id, "lower --ubatch"); });
}

}  // namespace

namespace {

// The weight terms, kept per quantization (quant_memo.hpp): no context in them.
Result<const ModelParts*> memo_weight_parts(const Model& model, const Quant& quant) {
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    thread_local QuantMemo<ModelParts> memo;
    return memo.get(prepared, quant.id,
                    [&]() { return typed_weight_parts(model, prepared, quant); });
}

}  // namespace

Result<ModelParts> llamacpp_weight_parts(const Model& model, const Quant& quant) {
    CANITRUN_TRY_ASSIGN(const ModelParts* weights, memo_weight_parts(model, quant));
    return *weights;
}

Result<ModelParts> llamacpp_parts(const Model& model, const Quant& quant,
                                  const LlamaCppOptions& options) {
    CANITRUN_TRY_ASSIGN(const ModelParts* weights, memo_weight_parts(model, quant));
    return llamacpp_parts_at_context(*weights, model, options);
}

namespace {

TensorInfo nextn_tensor(int layer, const std::string& suffix, std::uint64_t ne0,
                        std::uint64_t ne1) {
    TensorInfo t;
    t.name = "blk." + std::to_string(layer) + "." + suffix;
    t.ne = {ne0, ne1, 1, 1};
    t.n_dims = ne1 > 1 ? 2 : 1;
    t.layer = layer;
    return t;
}

// Whether the MTP block has its own token embedding and output head. The GLM and DeepSeek
// checkpoints store model.layers.N.embed_tokens and shared_head.head in it, and their loaders
// create blk.N.nextn.embed_tokens and nextn.shared_head_head (n_embd x n_vocab; 0ad4a86:
// glm4-moe.cpp lines 118-119, deepseek2.cpp 156-157, deepseek32.cpp 148-149, glm-dsa.cpp
// 182-183); a published GLM-4.7 file holds both (824,442,880 B each at its type:
// ikawrakow/ik_llama.cpp issue #1162). Qwen 3.5's MTP shares the stack's (conversion/qwen.py,
// _QwenMtpMixin maps only fc, the two pre-fc norms and norm). Both tensors are
// TENSOR_NOT_REQUIRED there and the MTP graph falls back to the stack's token_embd and output
// (glm4-moe.cpp lines 162 and 276-278), so where a model's published files leave them out
// (RunInfo::gguf_mtp_embedding: GLM-4.6, ggml-org/llama.cpp PR #16359) the block has neither.
bool mtp_has_own_embedding(const Model& model) {
    if (!model.run.gguf_mtp_embedding) return false;
    const auto arch = llama_arch(model);
    return arch && (*arch == "glm4moe" || *arch == "deepseek2" || *arch == "deepseek32" ||
                    *arch == "glm-dsa");
}

// The stack layer the MTP block is a copy of: the last attention layer, or where that one
// shares an earlier layer's DSA indexer (GLM-5.2's IndexShare), the last with an indexer of its
// own: the checkpoint's MTP layer keeps one (model.layers.78: 9,952,920,576 parameters with it,
// GLM-5.3's shards as github.com/GianluigiVitale/glm-tpu inventories them; unsloth's GLM-5.2
// file: 27 blk.78 tensors, kmbandy/llama.cpp docs/dev/2026-07-29-late-brief-cross-machine-
// split.md at 0284ea9), which glm-dsa.cpp at 0ad4a86 loads (lines 144-148, for every layer).
int mtp_source_layer(const Model& model, int last) {
    const auto order = layer_group_order(model);
    for (int il = last; il >= 0; --il) {
        const LayerGroup* g = layout::mla_group_at(model, order, il);
        if (g != nullptr && g->index_head_dim > 0) return il;
    }
    return last;
}

// Whether the MTP block folds a MoE sub-layer into its attention block. nemotron_h_moe's stack
// has single-purpose blocks (a Mamba-2 mixer, an attention mixer or an FFN alone), and its
// loader builds the one trailing nextn block with both: the attention sub-layer (attn_norm,
// q / k / v, output) and the MoE one behind post_attention_norm (router, routing bias, experts,
// shared expert), nemotron-h.cpp lines 142-181 at 0ad4a86; graph_mtp (nemotron-h-moe.cpp) runs
// them in turn. It holds no embedding or head of its own: the graph drafts with the stack's
// token_embd and output (lines 25 and 156).
bool mtp_folds_moe_sublayer(const Model& model) {
    const auto arch = llama_arch(model);
    return arch && *arch == "nemotron_h_moe";
}

// Layer `from`'s tensors, renamed and renumbered as layer `to`'s, but those named `skip`.
void copy_layer_tensors(const TensorLayout& layout, int from, int to, std::string_view skip,
                        std::vector<TensorInfo>& out) {
    const std::string prefix = "blk." + std::to_string(from) + ".";
    for (const auto& t : layout.tensors) {
        if (t.layer != from) continue;
        const std::string_view suffix = t.name.view().substr(prefix.size());
        if (suffix == skip) continue;
        TensorInfo c = t;
        c.name = "blk." + std::to_string(to) + "." + std::string(suffix);
        c.layer = to;
        out.push_back(c);
    }
}

}  // namespace

Result<std::vector<TypedTensor>> llamacpp_mtp_block(const Model& model, const Quant& quant) {
    if (model.arch.mtp_layers == 0) return std::vector<TypedTensor>{};
    CANITRUN_TRY_ASSIGN(auto layout, tensor_layout(model));
    const auto kinds = layer_kinds(model);
    // The stack's last attention layer: the MTP block is built as a layer past it, MoE where
    // the stack's later layers are (llama_model_glm4_moe: use_moe = i >= n_layer_dense_lead).
    const auto last = std::find_if(kinds.rbegin(), kinds.rend(), [](LayerKind k) {
        return k == LayerKind::full || k == LayerKind::mla;
    });
    if (last == kinds.rend()) return std::vector<TypedTensor>{};
    const int source = mtp_source_layer(model, static_cast<int>(kinds.rend() - last) - 1);
    const int mtp = static_cast<int>(model.arch.layers);
    std::vector<TensorInfo> copies;
    copy_layer_tensors(layout, source, mtp, {}, copies);
    const std::uint64_t h = model.arch.hidden_size;
    if (mtp_folds_moe_sublayer(model)) {
        // the stack's last FFN block gives the MoE sub-layer, less that block's own norm
        const auto ffn = std::find(kinds.rbegin(), kinds.rend(), LayerKind::ffn);
        if (ffn == kinds.rend()) return std::vector<TypedTensor>{};
        const int moe = static_cast<int>(kinds.rend() - ffn) - 1;
        copy_layer_tensors(layout, moe, mtp, "attn_norm.weight", copies);
        copies.push_back(nextn_tensor(mtp, "post_attention_norm.weight", h, 1));
    }
    copies.push_back(nextn_tensor(mtp, "nextn.eh_proj.weight", checked::mul(2, h), h));
    for (const char* norm :
         {"nextn.enorm.weight", "nextn.hnorm.weight", "nextn.shared_head_norm.weight"}) {
        copies.push_back(nextn_tensor(mtp, norm, h, 1));
    }
    if (mtp_has_own_embedding(model)) {
        for (const char* name : {"nextn.embed_tokens.weight", "nextn.shared_head_head.weight"}) {
            copies.push_back(nextn_tensor(mtp, name, h, model.arch.vocab_size));
        }
    }
    layout.tensors.insert(layout.tensors.end(), copies.begin(), copies.end());
    CANITRUN_TRY_ASSIGN(auto typed, quantize_tensors(layout, quant.id));
    std::erase_if(typed, [&](const TypedTensor& t) { return t.tensor.layer != mtp; });
    return typed;
}

Result<Bytes> llamacpp_mtp_weight_bytes(const Model& model, const Quant& quant) {
    CANITRUN_TRY_ASSIGN(const auto block, llamacpp_mtp_block(model, quant));
    Bytes one = 0;
    for (const auto& t : block) one = checked::add(one, t.bytes);
    return checked::mul(one, model.arch.mtp_layers);
}

Result<Bytes> llamacpp_device_weights_floor(const Model& model, const Quant& quant) {
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    return device_weights_lower_bound(*prepared,
                                      floor_request(model.run.gguf_plain_recipes, quant));
}

Result<ModelParts> llamacpp_parts_at_context(ModelParts parts, const Model& model,
                                             const LlamaCppOptions& options) {
    // One setup for every term (cache_setup.hpp); the terms in the order they were asked for
    // one by one, so the first to fail is the same.
    CANITRUN_TRY_ASSIGN(const auto setup, cache_setup(model, options));
    CANITRUN_TRY_ASSIGN(auto caches, group_caches_of(model, setup));
    // Layers past n_layer_kv_from_start reuse an earlier layer's cache (llama_hparams::has_kv).
    const std::uint64_t owners = kv_owning_layers(model);
    for (std::size_t i = 0; i < parts.layers.size(); ++i) {
        LayerPart& l = parts.layers[i];
        if (l.group >= caches.size()) {
            return fail(ErrorKind::bad_input, "model parts do not match model " + model.id);
        }
        l.kv_cache = i < owners ? caches[l.group].kv : 0;
        l.recurrent_state = caches[l.group].recurrent;
        const auto& ngram = model.arch.ngram_embedding;
        if (ngram && i == ngram->layer) {
            l.recurrent_state = checked::add(
                l.recurrent_state, checked::mul(ngram_conv_state_bytes(model), setup.g.n_seq));
        }
    }
    if (!parts.buffers) parts.buffers = RuntimeBuffers{};
    // The graph alone: each GPU adds the masks' copy where its backend keeps one (placement).
    LlamaCppOptions graph_only = options;
    graph_only.backend = Backend::cpu;
    CANITRUN_TRY_ASSIGN(parts.buffers->compute, compute_of(model, setup, graph_only));
    CANITRUN_TRY_ASSIGN(parts.buffers->attention_phase, attention_phase_of(model, setup));
    CANITRUN_TRY_ASSIGN(parts.buffers->output_phase, output_phase_of(model, setup));
    CANITRUN_TRY_ASSIGN(parts.buffers->dsa_leaf, dsa_leaf_of(model, setup));
    CANITRUN_TRY_ASSIGN(parts.buffers->mask_copy, mask_copy_of(model, setup));
    CANITRUN_TRY_ASSIGN(parts.buffers->device_mask, device_mask_of(model, setup));
    // Without flash attention the f32 copy stays counted, as before #23764: the H200's rows with
    // experts in RAM (validation/cuda-h200/run3, gpt-oss-20b and Qwen3-30B-A3B at 8192 cells)
    // read 6-8 MiB low without it; its all-on-GPU rows read +0.4 to +4.6 % high with it.
    parts.buffers->f32_mask_copy = options.f32_mask || options.flash_attn == FlashAttn::off;
    CANITRUN_TRY_ASSIGN(parts.buffers->host_compute, host_compute_of(model, setup, options));
    parts.buffers->output = llamacpp_output_bytes(model, options);
    CANITRUN_TRY_ASSIGN(parts.buffers->expert_batch, expert_batch_bytes(model, options));
    CANITRUN_TRY_ASSIGN(parts.buffers->logits_batch, logits_batch_of(model, setup));
    CANITRUN_TRY_ASSIGN(parts.buffers->fused_moe_sum, fused_moe_sum_of(model, setup));
    CANITRUN_TRY_ASSIGN(parts.buffers->partial_sum, partial_sum_bytes(model, setup));
    parts.buffers->cuda_pool = cuda_pool_bytes(model, options);
    return parts;
}

}  // namespace canitrun
