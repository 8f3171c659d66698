#pragma once
// The llama.cpp engine profile: the memory llama.cpp 0ad4a86 allocates for a database model,
// term by term (weights per tensor, token embeddings on the host, KV cache by layer kind,
// recurrent state, compute buffer, output buffer, runtime overhead). Pure: no I/O.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/error.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/ggml_type.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"
#include "canitrun/quantize_rules.hpp"

namespace canitrun {

enum class FlashAttn { on, off, automatic };
enum class Backend { cpu, cuda, rocm, metal, vulkan };

struct LlamaCppOptions {
    std::uint64_t context = kDefaultContext;
    std::uint64_t ubatch = 512;  // llama.cpp's n_ubatch default
    std::uint64_t n_seq = 1;     // --parallel: sequences, each with its own KV stream
    bool kv_unified = false;     // -kvu: the sequences share one stream of n_ctx cells
    FlashAttn flash_attn = FlashAttn::automatic;
    std::string cache_type_k{kDefaultKvType};
    std::string cache_type_v{kDefaultKvType};
    Backend backend = Backend::cuda;
    // A build before llama.cpp PR #23764 (merged 2026-05-27, between b9174 and b9512): the KQ
    // masks are made f32 and flash attention casts them to f16, so the host fills f32 masks and
    // a CUDA or Vulkan GPU keeps the f32 copy beside the cast. The pinned build makes them f16
    // under flash attention (llama-graph.cpp build_attn_inp_kq_mask); verify sets this for a
    // log of an older build.
    bool f32_mask = false;
    // A build before ggml's GLU ops (ggml PR #14158 with #14181, 2025-06-29; b5622 the last
    // build known without them): build_moe_ffn ran ggml_silu on the gate and ggml_mul of up and
    // gate, which ggml-alloc computes in place (ggml_op_can_inplace), then the down product and
    // its weighting, in place too. Only verify sets it, for a log of such a build; plans follow
    // the pinned build.
    bool before_glu_ops = false;
    // The outputs a ubatch's graph is reserved for (llama_context_params::n_outputs_max, llama.cpp
    // PR #23861, merged 2026-06-01): 0 for every token of the ubatch (its default, n_batch: what
    // llama-bench, llama-completion and builds before it reserve); llama-server's is
    // llama_server_outputs. A log prints it (llama_context: n_outputs_max), and verify plans the
    // log's context with it. Plans set it by PlanSettings::outputs (llamacpp_options):
    // llama-server's unless --reserve-outputs all, which the CPU harness and the H200's rows
    // ask for (they measure the library's reservation).
    std::uint64_t outputs = 0;
    // A model file's own tensors, in place of the layout and llama-quantize's types.
    struct FileTensors {
        Bytes host_inputs = 0;  // llama_host_input_tensor's: kept on the host
        Bytes token_embd = 0;   // token_embd.weight (one of them): a tied output head's copy
        Bytes other = 0;        // every other tensor
        Bytes mtp = 0;          // the MTP (nextn) blocks', not in `other`: skipped unless --mtp
    };
    std::optional<FileTensors> file_tensors;
};

Result<FlashAttn> parse_flash_attn(const std::string& text);
Result<Backend> parse_backend(const std::string& text);
const char* backend_name(Backend backend);

// A KV cache element type as llama.cpp's --cache-type-k/-v accept it (f32, f16, bf16, q8_0,
// q4_0, q4_1, iq4_nl, q5_0, q5_1).
Result<GgmlType> parse_cache_type(const std::string& text);

// The runtime's own memory on the device (CUDA context, ...), 0 for the CPU backend.
Bytes runtime_overhead_bytes(Backend backend);

// What ggml-cuda's memory pool adds to it on a CUDA or ROCm GPU (has_cuda_pool) when the graph
// has routed experts or runs without flash attention: their temporaries outgrow the base.
bool has_cuda_pool(Backend backend);
Bytes cuda_pool_bytes(const Model& model, const LlamaCppOptions& options);

// Terms: "weights" (device), "token_embd" (host), "kv_cache", "recurrent_state", "compute",
// "output" (host), "runtime" (device). With Backend::cpu every term is on the CPU.
// One layer of each group (same order as arch.layer_groups) in llama.cpp's cache: the K and V
// cells over every stream, and the recurrent state of every sequence.
struct LayerCache {
    Bytes kv = 0;
    Bytes recurrent = 0;
};
Result<std::vector<LayerCache>> llamacpp_group_caches(const Model& model,
                                                      const LlamaCppOptions& options);

// The compute buffer a backend allocates for the ubatch graph: on the CPU the fitted rule above;
// on a GPU that holds every layer and the output head, the larger of the layers' phase with the
// KQ masks' device copy (where the backend keeps one) and the logits batch (placement.cpp's
// gpu_graph says why, with what it was checked on).
Result<Bytes> llamacpp_compute_bytes(const Model& model, const LlamaCppOptions& options);

// The compute buffer of llama-server's MTP draft context (--spec-type draft-mtp) on the model's
// one MTP block: the larger of its attention (with the mask, and the KQ scores over the
// context's cells without flash attention) and its FFN over the whole ubatch (mtp_compute.cpp
// derives it from the pinned graph). The same rule on every backend: one CUDA log (Qwen 3.8
// 27B at -ub 2048) reads 32 MiB (6 %) above it, unexplained.
Result<Bytes> llamacpp_mtp_compute_bytes(const Model& model, const LlamaCppOptions& options);

// outputs x 4 bytes x (n_vocab + n_embd): the logits of every output the ubatch's graph is
// reserved for (the ubatch's tokens, at most LlamaCppOptions::outputs: cache_setup's
// Geometry::outputs) and the normed rows they are the product of, in f32.
Result<Bytes> llamacpp_logits_batch_bytes(const Model& model, const LlamaCppOptions& options);

// The outputs llama-server asks of its context (server_output_limits, server-context.cpp lines
// 41-53 at 0ad4a86): for completions n_parallel x (1 + the draft's tokens) outputs
// (common_speculative_get_output_limits: one verified token and n_max drafted ones a slot, n_max
// by common_speculative_n_max over --spec-type's types, 0 with none), at most n_batch (which
// the reserved ubatch never passes); for an embedding or reranking model (--embeddings,
// --reranking: llama_serve) n_batch, 0 here (every token). A draft model's own context asks
// n_parallel (common_base_params_to_speculative: n_outputs_max = n_parallel): draft_tokens 0.
std::uint64_t llama_server_outputs(const Model& model, std::uint64_t n_seq,
                                   std::uint64_t draft_tokens);

// The graph's peak before its output phase (the layers' attention and FFN), without the masks'
// device copy: what a GPU holding no output head allocates for its layers.
Result<Bytes> llamacpp_attention_phase_bytes(const Model& model, const LlamaCppOptions& options);

// Whether the backend's compute buffer holds a copy of the f32 KQ masks (CUDA, Vulkan) in a
// build before PR #23764 (LlamaCppOptions::f32_mask; the pinned build keeps only the masks the
// graph reads), and the f32 masks' size: 4 bytes x ubatch x the masks' cells.
bool keeps_mask_copy(Backend backend);
// Whether the backend runs ggml-cuda's graph optimizer (CUDA, and ROCm, which builds the same
// source), whose MoE reduction fusion keeps the experts' outputs alive (cuda_fusion.cpp) in a
// build since llama.cpp PR #27301 (the pinned one; verify plans a log's build).
bool fuses_moe_reduction(Backend backend);
// Whether the backend maps, under mmap, the model file's byte range that holds a device's
// tensors as that device's one weights buffer (Metal; placement.cpp's tied_head_weights).
bool maps_file_span(Backend backend);
Result<Bytes> llamacpp_mask_copy_bytes(const Model& model, const LlamaCppOptions& options);
// The masks the layers read on the device: f16 under flash attention, else f32.
Result<Bytes> llamacpp_device_mask_bytes(const Model& model, const LlamaCppOptions& options);

// The host's compute buffer beside GPUs that hold every layer (CUDA_Host, ROCm_Host,
// Vulkan_Host, the CPU buffer on Metal): the graph's inputs, which the host fills before each
// ubatch — the KQ masks (n_kv x ubatch per mask: the full layers' and the sliding ones'; f16
// under flash attention at the pinned build, f32 without it and in builds before PR #23764)
// and the input embeddings, which the host computes from the token_embd it keeps (the lookup
// and its copy for upload: 2 x n_embd x ubatch floats). Fitted to nothing: derived from
// llama-graph.cpp's inputs; it matches 14 of the published logs in validation/llama-logs/
// within 0.3 MiB (docs/ACCURACY-GPU.md); builds before late 2025 keep one embedding copy.
Result<Bytes> llamacpp_host_compute_bytes(const Model& model, const LlamaCppOptions& options);

// The output buffer on the host (llama-context.cpp output_reserve at 0ad4a86, in the output
// device's host buffer type, else the CPU's): n_vocab floats of logits per output, n_embd_out
// floats of embeddings more with cparams.embeddings, for the larger of the outputs asked and
// n_seq_max; reallocated larger when a batch asks more, never smaller. A chat model: n_vocab
// floats per sequence, reserved at start-up. A model llama-server runs with --embeddings or
// --reranking (llama_serve; the printed line carries it): every token of a batch is an output
// (decode's output_all = cparams.embeddings), and the server's batch is its ubatch
// (tools/server/server.cpp lines 150-153: "setting n_batch = n_ubatch" with embeddings;
// server_output_limits, server-context.cpp lines 41-45, lets n_batch outputs through), so its
// first request makes the buffer (n_vocab + n_embd) x 4 B x min(ubatch, padded context) (at
// least n_seq): Qwen3-Embedding-0.6B at the default ubatch, (151,669 + 1,024) x 4 x 512 =
// 312,715,264 B. The logits are there beside the embeddings (output_reserve's has_logits is
// always true at 0ad4a86). n_embd_out is taken as the hidden size (no database model projects
// it). llama.cpp logs the start-up size only (n_seq_max outputs), so a log's output buffer
// reads smaller.
Bytes llamacpp_output_bytes(const Model& model, const LlamaCppOptions& options);

// Every tensor of the model's llama.cpp layout at the quantization, typed as llama-quantize
// types it.
Result<std::vector<TypedTensor>> llamacpp_tensors(const Model& model, const Quant& quant);

// The model's llama.cpp layout, prepared for llama-quantize's rules (the last one is reused).
Result<std::shared_ptr<const PreparedLayout>> llamacpp_layout(const Model& model);

// Each tensor's bytes of that layout at the quantization (quantize_bytes), the last layout's
// kept per quantization.
Result<std::shared_ptr<const std::vector<Bytes>>> llamacpp_tensor_bytes(
    const std::shared_ptr<const PreparedLayout>& prepared, const Quant& quant);

Result<Estimate> estimate_llamacpp(const Model& model, const Quant& quant,
                                   const LlamaCppOptions& options);

}  // namespace canitrun
