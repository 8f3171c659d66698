#pragma once
// A model as the database describes it: published facts plus the text decoder's architecture,
// layer kind by layer kind, which is what the KV-cache rule needs.
// A field added to a struct here also goes into fields() in
// src/core/database/database_snapshot.cpp.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/quant.hpp"

namespace canitrun {

enum class LayerKind {
    full,     // full attention: K and V for every token
    sliding,  // sliding-window attention: K and V for at most `window` tokens
    linear,   // linear attention (Gated DeltaNet): fixed recurrent state
    ssm,      // Mamba-style state space: fixed recurrent state
    conv,     // gated short convolution (LFM2): the last conv_kernel - 1 inputs per sequence
    mla,      // multi-head latent attention: one compressed latent + rope key per token
    // a block with only a feed-forward network (dense or MoE) and no attention or mixer: it
    // keeps nothing per token (Nemotron-H's '-' and 'E' blocks, which llama.cpp indexes as
    // layers of their own). Where a model has such blocks, they hold all its FFNs.
    ffn,
    // DeepSeek V4's hybrid attention (llama.cpp's llama_kv_cache_dsv4): one K per token that
    // doubles as V (kv_heads x head_dim), kept raw for the last `window` tokens, and where
    // compress_ratio > 0 one compressed entry per compress_ratio tokens for the whole context
    // (with the lightning indexer's key per entry on the ratio-4 layers, index_head_dim), plus
    // the compressors' f32 state per sequence.
    compressed,
};

struct LayerGroup {
    LayerKind kind = LayerKind::full;
    std::uint64_t count = 0;
    // full / sliding (0 = use the model's attention values)
    std::uint64_t heads = 0;  // query heads (Step-3.5-Flash: 96 on its sliding layers, 64 else)
    std::uint64_t kv_heads = 0;
    std::uint64_t head_dim = 0;
    std::uint64_t v_head_dim = 0;
    std::uint64_t window = 0;  // sliding
    // linear
    std::uint64_t conv_kernel = 0;
    std::uint64_t key_heads = 0;
    std::uint64_t value_heads = 0;
    std::uint64_t key_head_dim = 0;
    std::uint64_t value_head_dim = 0;
    // ssm (conv: the convolution's channels, the hidden size)
    std::uint64_t inner_size = 0;
    std::uint64_t state_size = 0;
    std::uint64_t groups = 0;
    std::uint64_t ssm_heads = 0;
    // mla
    std::uint64_t kv_lora_rank = 0;
    std::uint64_t q_lora_rank = 0;
    std::uint64_t qk_nope_head_dim = 0;
    std::uint64_t qk_rope_head_dim = 0;
    // A sparse-attention indexer; 0 = none. On mla groups DeepSeek Sparse Attention's lightning
    // indexer (DeepSeek V3.2, GLM-5): one key of this width per token and layer, cached beside
    // the latent (llama.cpp's llama_kv_cache_dsa, in the K cache type). On full groups MiniMax
    // Sparse Attention's (MiniMax-M3): a one-head cache of this key width beside the layer's
    // K/V, which also allocates an unused V of the layer's V width (llama_kv_cache_msa, in the
    // K and V cache types).
    std::uint64_t index_head_dim = 0;
    std::uint64_t index_heads = 0;  // the indexer's query heads (weights only)
    std::uint64_t index_top_k = 0;  // past tokens each query attends to (compute, not memory)
    // compressed: tokens folded into one cached entry (4: Compressed Sparse Attention with an
    // indexer, 128: Heavily Compressed Attention); 0: the sliding window alone. On a full
    // group with an indexer, Qwen Sparse Attention (qwen4exp): the indexer scores blocks of
    // this many tokens, pooled when read, so its cache keeps one raw key per token and no V
    // (llama_memory_hybrid_idx's third cache, in the K type).
    std::uint64_t compress_ratio = 0;
    // full: the keys double as values, no V projection (Gemma 4's attention_k_eq_v global
    // layers; llama.cpp still caches a V, so weights only)
    bool k_eq_v = false;
    // full with a parallel Mamba-2 mixer (Falcon-H1): config.json's mamba_rms_norm, the mixer's
    // gated RMSNorm, whose weight the converter writes as ssm_norm (0.5B: false; 1.5B-34B: true)
    bool ssm_rms_norm = false;

    bool operator==(const LayerGroup&) const = default;
};

struct Attention {
    std::uint64_t heads = 0;
    std::uint64_t kv_heads = 0;
    std::uint64_t head_dim = 0;
    std::uint64_t v_head_dim = 0;    // 0 = same as head_dim
    bool output_gate = false;        // gated attention: q_proj also produces a sigmoid gate
    bool head_dim_explicit = false;  // config.json states head_dim (may differ from hidden/heads)
    // Per-head q/k norms (attn_q_norm / attn_k_norm) where llama.cpp's architecture makes them
    // optional: GLM-4.5's use_qk_norm (glm4-moe.cpp creates them only when the file has them;
    // GLM-4.5-Air has none). Read by the glm4moe layout only.
    bool qk_norm = true;
    // config.json's rope_scaling.rope_type where it puts a tensor in the file: "llama3" (the
    // converter writes its frequency factors as rope_freqs, head_dim / 2 of them; Llama 3.1+,
    // EXAONE 4.0, Llama 4 Scout, Step-3.5-Flash); "" for any other or none.
    std::string rope_scaling = {};

    bool operator==(const Attention&) const = default;
};

struct MoE {
    std::uint64_t experts = 0;
    std::uint64_t experts_per_token = 0;
    std::uint64_t shared_experts = 0;
    std::uint64_t expert_intermediate_size = 0;
    std::uint64_t shared_expert_intermediate_size = 0;
    std::uint64_t moe_layers = 0;
    bool gated = true;  // SwiGLU experts (three matrices); false for two-matrix experts
    // A latent MoE's routed-expert width (Kimi K3's routed_expert_hidden_size): the routed
    // experts run on a down-projection of the hidden state; 0: they run on the hidden width.
    std::uint64_t latent_size = 0;

    bool operator==(const MoE&) const = default;
};

// An n-gram hash embedding (qwen4exp's PLE, qwen4exp.cpp:64-125, 170-190, 240-247): one table
// of `rows` rows of `width` values (per_layer_token_embd, read lazily from the file), gathered
// by (ngram_size - 1) x heads_per_ngram hashed heads per token, and on `layer` a key, value,
// three norms and a depthwise convolution of conv_kernel taps over the hyper-connection streams.
struct NgramEmbedding {
    std::uint64_t layer = 0;  // 0-based (config.json's ple_layer_ids is 1-based)
    std::uint64_t ngram_size = 0;
    std::uint64_t heads_per_ngram = 0;
    std::uint64_t width = 0;  // embedding_length_per_layer_input: one head's row
    std::uint64_t rows = 0;   // the table's rows, as the converter concatenates its shards
    std::uint64_t conv_kernel = 0;

    bool operator==(const NgramEmbedding&) const = default;
};

struct Architecture {
    std::uint64_t hidden_size = 0;
    std::uint64_t vocab_size = 0;
    bool tied_embeddings = false;
    std::uint64_t layers = 0;
    Attention attention;
    std::uint64_t intermediate_size = 0;
    bool gated_ffn = true;
    std::optional<MoE> moe;
    std::vector<LayerGroup> layer_groups;
    // The last N layers keep no KV cache of their own and read an earlier layer's (Gemma 3n's
    // and Gemma 4's num_kv_shared_layers; llama.cpp's n_layer_kv_from_start = layers - N).
    std::uint64_t shared_kv_layers = 0;
    // The FFN width of those last shared_kv_layers layers where it differs (Gemma 4 E2B's
    // use_double_wide_mlp: 2 x intermediate_size); 0: intermediate_size.
    std::uint64_t shared_kv_intermediate_size = 0;
    // DeepSeek V4: the grouped low-rank output projection (o_groups, o_lora_rank), the
    // hyper-connection streams (hc_mult) and the first layers routed by a token-id hash table
    // (num_hash_layers); 0 elsewhere.
    std::uint64_t output_groups = 0;
    std::uint64_t output_lora_rank = 0;
    std::uint64_t hyper_connections = 0;
    std::uint64_t hash_layers = 0;
    // The hyper-connection mixers' low rank (Qwen3.8-Flash-Next's hc_lowrank: qwen4exp's gated
    // residual, a down and an up projection through this rank); 0: DeepSeek V4's full rank.
    std::uint64_t hyper_connection_rank = 0;
    // An n-gram hash embedding on one layer (Qwen3.8-Flash-Next's PLE; qwen4exp); absent: none.
    std::optional<NgramEmbedding> ngram_embedding;
    // Per-layer input embeddings of this width per layer (Gemma 4 E2B / E4B's
    // hidden_size_per_layer_input: per_layer_token_embd and a projection per layer); 0: none.
    std::uint64_t per_layer_input_size = 0;
    // Attention residuals in blocks of this many layers (Kimi K3's attn_res_block_size): each
    // layer mixes the earlier blocks' outputs by a learned score before its attention and its
    // FFN; 0: plain residuals.
    std::uint64_t attention_residual_block = 0;
    // Multi-token-prediction (nextn) layers the checkpoint carries beside the stack (Qwen 3.5's
    // mtp_num_hidden_layers, GLM's and DeepSeek's num_nextn_predict_layers): each a full-
    // attention layer like the stack's with its own input projection (nextn.eh_proj) and norms.
    // llama.cpp loads them only to draft with (--spec-type draft-mtp); 0: none.
    std::uint64_t mtp_layers = 0;
    std::string pattern;
    // The kind of every layer in stack order, one letter each (layer_kind_letter), where the
    // groups' counts alone do not say it (Nemotron-H's hybrid_override_pattern); empty: the
    // order follows layer_group_order's rule.
    std::string layer_order;
    // Where config.json says one thing and llama.cpp does another (Phi-3 4k's and Ministral 8B's
    // sliding windows), what each does: the layer groups follow llama.cpp. Empty elsewhere.
    std::string config_note;
    std::string linear_name;  // what the vendor calls its linear layers ("Gated DeltaNet")
    std::string full_name;    // what the vendor calls its attention layers ("Gated Attention")

    bool operator==(const Architecture&) const = default;
};

struct Benchmark {
    std::string name;
    double score = 0;

    bool operator==(const Benchmark&) const = default;
};

struct Sampling {
    std::string mode;
    std::optional<double> temp, top_p, min_p, presence_penalty;
    std::optional<std::uint64_t> top_k;
    std::string chat_template_kwargs;

    bool operator==(const Sampling&) const = default;
};

// The vision projector (mmproj) llama-server loads beside the model (plan/server_terms): its
// tensors' bytes, how they were known (basis: "file", the published file's size; "tensors", the
// converter's tensors summed by hand from the vision config; "params_f16", the vision tower's
// parameters x 2 bytes), and clip's compute buffers where a recorded log prints them
// (alloc_compute_meta: on the projector's device, and on the CPU beside it); 0: not known.
struct ProjectorInfo {
    std::uint64_t bytes = 0;
    std::string basis;
    std::uint64_t compute_bytes = 0;
    std::uint64_t host_compute_bytes = 0;
    std::string source;

    bool operator==(const ProjectorInfo&) const = default;
};

// A published checkpoint of the model in a format vLLM loads but does not make itself (it
// quantizes on the fly only to FP8): AWQ, GPTQ (or an int4 w4a16 checkpoint made by GPTQ's
// algorithm) and NVFP4. `format` is the quant_method its config.json declares ("awq", "gptq",
// "compressed-tensors", "modelopt"), which vLLM reads without a --quantization flag;
// `unconfirmed` says why the repo or its format was not confirmed (empty: confirmed by `source`).
struct QuantCheckpoint {
    std::string quant;
    std::string repo;
    std::string format;
    std::string unconfirmed;
    std::string source;

    bool operator==(const QuantCheckpoint&) const = default;
};

struct RunInfo {
    std::string gguf_repo;
    std::string ollama;
    std::string lmstudio_search;
    std::vector<Sampling> sampling;
    std::string mmproj;
    ProjectorInfo projector;  // bytes 0: its size is not in the data
    // The dtype of the published safetensors checkpoint where it is not BF16 ("FP8" for
    // DeepSeek V3), with the config that says so: vLLM loads the checkpoint as it is.
    std::string checkpoint_dtype;
    std::string checkpoint_source;
    // The file types gguf_repo publishes, where it publishes only some (ggml-org's gpt-oss
    // repos: MXFP4 alone), with the listing that says so; empty: every llama-quantize type.
    std::vector<std::string> gguf_quants;
    std::string gguf_quants_source;
    // The llama.cpp build gguf_repo's files predate ("b8275" as 8275), where llama-quantize's
    // rules changed since, with what dates them; 0: made by the rules canitrun transcribes.
    std::uint64_t gguf_quantized_before = 0;
    std::string gguf_quantized_before_source;
    // Whether gguf_repo's publisher makes its plain llama-quantize files with an importance
    // matrix (data/publishers.json: bartowski, Unsloth), with what says so; false where the
    // publisher is not listed (llama-quantize without one). Set by the loader from the
    // publisher table, never per model, so one publisher's files are typed alike.
    bool gguf_imatrix = false;
    std::string gguf_imatrix_source;
    // The plain-named files gguf_repo's publisher makes by a recipe of its own (data/
    // publishers.json `plain_files`: Unsloth's Qwen 3.5 MoE "Q4_K_M" is its UD-Q4_K_M mix), set
    // by the loader with the recipe's rules, so that the size of `-hf REPO:Q4_K_M` is that
    // file's. Empty: the repo's plain files are llama-quantize's own mix.
    std::vector<PlainFileRecipe> gguf_plain_recipes;
    // Whether gguf_repo's files carry the checkpoint's MTP (nextn) layers
    // (Architecture::mtp_layers), with what says so: llama.cpp's converter keeps them for GLM
    // and drops them for DeepSeek V3, and Qwen 3.5's published files predate its keeping them.
    // They are then in the download (gguf_download_bytes), and --mtp can load them; without
    // them --mtp is refused. Stated for every model with mtp_layers (the data requires it).
    bool gguf_mtp = false;
    std::string gguf_mtp_source;
    // Whether those files' MTP block keeps its own token embedding and output head
    // (blk.N.nextn.embed_tokens and shared_head_head, n_embd x n_vocab each) where the
    // architecture's loader creates them (llamacpp_mtp_block): true by default; false where the
    // published files leave both out (GLM-4.6: its checkpoint ships them in mtp.safetensors,
    // which the converter does not read), with what shows it. llama.cpp then drafts with the
    // stack's token_embd and output (glm4-moe.cpp at 0ad4a86: TENSOR_NOT_REQUIRED).
    bool gguf_mtp_embedding = true;
    std::string gguf_mtp_embedding_source;
    // Whether the published files copy the DSA indexer's tensors into every MLA layer, the
    // layers that reuse an earlier layer's choice included (GLM-5.2's 57 'shared' layers:
    // unsloth's files, made before llama.cpp's converter knew IndexShare), with what shows it.
    // llama.cpp loads the copies (TENSOR_NOT_REQUIRED, so present means loaded) and never reads
    // them; the indexer key cache stays on the layers with an indexer of their own.
    bool gguf_indexer_every_layer = false;
    std::string gguf_indexer_every_layer_source;
    // The pooling type the model's GGUF files carry ({arch}.pooling_type: "mean", "cls", "last"
    // or "rank", llama.h's llama_pooling_type), with what shows it; empty: none (a chat model).
    // Ollama takes a file with the key for an embedding model (no completion capability) and
    // serves it one sequence at a time (launch_command.hpp's ollama_num_parallel).
    std::string pooling;
    std::string pooling_source;
    // The checkpoints vLLM's --quant AWQ, GPTQ and NVFP4 lines serve, one per quantization,
    // an official one where there is one; none for a quantization: none is recorded.
    std::vector<QuantCheckpoint> checkpoints;

    bool operator==(const RunInfo&) const = default;
};

// Words a person wrote about the model (the reference page's "Who is it for", "Best for", "Not
// ideal for", "So should you run it?"): carried by the data with their source, never made up by
// the program. `rule` names the memory rule the text's figures were written against ("quick":
// the page's 12 % rule), so a page made by another rule can say where the two differ. Empty
// `source`: the model has none.
// What one sentence (or point) of the editorial text says about memory, in terms a plan can
// check: the quantization runs fully on a card of `card_gb` GB at `context` tokens (0: the
// page's context), or does not. `text` is the sentence as written, found in the editorial.
struct EditorialClaim {
    std::string text;
    std::string quant;
    std::uint64_t card_gb = 0;
    std::uint64_t context = 0;
    bool fits = false;

    bool operator==(const EditorialClaim&) const = default;
};

struct Editorial {
    std::string who_for;
    std::vector<std::string> best_for;
    std::vector<std::string> not_ideal_for;
    std::string verdict;
    std::string source;
    std::string rule;
    std::vector<EditorialClaim> claims;

    bool operator==(const Editorial&) const = default;
};

struct Model {
    std::string id;
    std::string name;
    std::string family;
    std::string vendor;
    std::vector<std::string> aliases;
    std::string hf_repo;
    std::string source;
    std::string released;  // YYYY-MM-DD
    std::string license;
    bool commercial_use = false;
    std::vector<std::string> modalities;
    std::uint64_t params_total = 0;
    std::uint64_t params_active = 0;
    std::uint64_t params_rounding = 1;
    std::uint64_t params_extra = 0;  // vision tower, MTP heads: not in the text stack below
    std::uint64_t context_native = 0;
    std::uint64_t context_extended = 0;
    std::string context_extension;
    Architecture arch;
    std::vector<Benchmark> benchmarks;
    RunInfo run;
    std::string notes;
    Editorial editorial;

    bool is_moe() const { return arch.moe.has_value(); }

    bool operator==(const Model&) const = default;
};

// The heads and K/V dimensions of a full or sliding attention group: the group's own values
// where it overrides them (Step-3.5-Flash's 96 query heads on its sliding layers), else the
// model's attention. Every count of a group's heads reads it here.
struct AttentionDims {
    std::uint64_t heads = 0;  // query heads
    std::uint64_t kv_heads = 0;
    std::uint64_t k_dim = 0;
    std::uint64_t v_dim = 0;
};
AttentionDims attention_dims(const Model& model, const LayerGroup& group);

// The same model with every layer turned into full attention with its attention dims: the
// reference page's "if all layers used full attention" comparison.
Model all_attention_variant(const Model& model);

// The FFN width one token runs through: the dense width, or the top-k routed experts' widths
// plus the shared expert's (the activations both llama.cpp's and vLLM's buffers hold).
std::uint64_t active_ffn_width(const Model& model);

// The width a routed expert reads and writes: a latent MoE's latent_size (Kimi K3), else the
// hidden size. Its weights, parameters and speed all follow it.
std::uint64_t routed_expert_width(const Model& model);

// Whether every layer keeps K and V (or MLA's latent) for every token: then the model is its
// own all-attention variant, and the page has no comparison to draw.
bool is_all_attention(const Model& model);

// Layers of a kind, summed over the model's groups.
std::uint64_t count_layers(const Model& model, LayerKind kind);

// An MLA group's V head width: the model's value_length_mla where it states one, else the
// group's own (the layouts' attn_v_b / attn_output and the compute buffer's rows read it).
std::uint64_t mla_v_head_dim(const Architecture& arch, const LayerGroup& group);
// An MLA group's query heads: its own where it states them (Dots 3 Note Preview's 64 on its
// sliding MLA layers), else the model's (attention.heads).
std::uint64_t mla_heads(const Architecture& arch, const LayerGroup& group);
// Whether a group's layers attend to a sliding window, so llama.cpp keeps them in a cache of
// window + ubatch cells (llama_kv_cache_iswa, llama_kv_cache_dsa_iswa): a sliding group, or an
// MLA group with a window (dots3note's sliding MLA layers).
bool keeps_window(const LayerGroup& group);
// Whether a group's layers cache (and attend to) every token of the context: full attention, or
// MLA without a window. The layers that grow with the context, the page's "cache every token".
bool attends_every_token(const LayerGroup& group);

// The layers that hold a feed-forward network: the FFN-only blocks where the model has them,
// else every layer.
std::uint64_t ffn_layer_count(const Architecture& arch);
std::uint64_t ffn_layer_count(const Model& model);

const char* layer_kind_name(LayerKind kind);
// The groups in a few words: "30 linear + 10 full", a group with its own sparse-attention
// indexer marked ("21 mla with indexer + 57 mla").
std::string layer_groups_text(const std::vector<LayerGroup>& groups);
// The kind a name stands for ("full", "conv", ...), and every name, for a message.
std::optional<LayerKind> layer_kind_of_name(std::string_view name);
std::string layer_kind_names();

// Whether a kind keeps a fixed per-sequence state instead of a per-token cache.
bool is_recurrent(LayerKind kind);

// Layers of the recurrent kinds (linear attention, SSM, short convolution).
std::uint64_t count_recurrent_layers(const Model& model);

// A full-attention group whose layers also run a Mamba-2 mixer beside the attention (Falcon-H1's
// parallel hybrid): its SSM dimensions (conv_kernel, inner_size, state_size, groups, ssm_heads)
// are set, and each layer keeps KV and a recurrent state.
bool has_parallel_ssm(const LayerGroup& group);

// The letter of a kind in Architecture::layer_order: '*' full attention, 'S' sliding, 'L'
// linear, 'M' Mamba (ssm), 'C' short convolution, 'A' MLA, '-' FFN only (Nemotron's own
// letters where it has them), 'D' DeepSeek V4's compressed attention;
// layer_kind_of_letter reads one back ('E', Nemotron's MoE block, is an FFN block too).
char layer_kind_letter(LayerKind kind);
std::optional<LayerKind> layer_kind_of_letter(char letter);

}  // namespace canitrun
