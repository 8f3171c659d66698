#pragma once
// The rule a plan is made by, and the one place that turns a rule and its settings into the
// pieces the placement spreads over devices. Every hardware answer (--gpu, gpus, fit, --vram,
// best quantization, longest context, the page's smallest GPU) goes through plan_parts() and
// placement_for(), so two commands cannot answer the same question by two rules.
//
// - Rule::llamacpp (the default): what llama.cpp 0ad4a86 allocates: each tensor as
//   llama-quantize types it, the KV cells it allocates, recurrent state, a compute buffer on each
//   device that runs layers, the logits in RAM, token_embd on the host, the runtime's own memory
//   per GPU (CUDA / HIP context; an estimate until measured on a GPU, docs/ACCURACY.md), and a
//   margin kept free on every GPU (llama.cpp's fitting target, 1024 MiB).
// - Rule::quick: the reference page's rule: params x bits per weight + KV + 12 % on every device,
//   no margin. `--engine quick` reproduces the page with it.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "canitrun/estimate.hpp"
#include "canitrun/file_parts.hpp"
#include "canitrun/hardware.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/model_parts.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/server_terms.hpp"

namespace canitrun {

enum class Rule { llamacpp, quick };

inline constexpr Bytes kDefaultMargin = 1024ULL << 20;  // llama.cpp's fit target per device

// llama.cpp's --split-mode (-sm) over several GPUs (include/llama.h, enum llama_split_mode):
// - layer (the default): whole layers per GPU, each GPU the KV cache of its layers;
// - row: layers and their KV cache per GPU as with layer, and each layer's weight matrices
//   cut by rows over every GPU (CUDA's split buffer; row_split.hpp has the rule);
// - tensor: llama.cpp's experimental tensor parallelism (a Meta device over the GPUs, weights
//   and KV cache split alike), which llama.cpp's own --fit refuses to plan (common/fit.cpp:
//   "llama_params_fit is not implemented for SPLIT_MODE_TENSOR"); canitrun refuses it too.
enum class SplitMode { layer, row, tensor };

// The outputs llama.cpp reserves a ubatch's graph for (LlamaCppOptions::outputs): llama-server's
// (llama_server_outputs: a slot's token and its drafted ones; the default, since every llama.cpp
// plan prints a llama-server line), or every token of the ubatch (--reserve-outputs all): the
// library's own default, which llama-bench, llama-completion and builds before llama.cpp PR
// #23861 reserve, and which the CPU harness (tools/accuracy) and the H200's rows measure.
enum class OutputReserve { server, all };
const char* output_reserve_name(OutputReserve reserve);  // "server", "all"
Result<OutputReserve> parse_output_reserve(const std::string& text);

const char* split_mode_name(SplitMode mode);  // "layer", "row", "tensor"
Result<SplitMode> parse_split_mode(const std::string& text);

struct PlanSettings {
    Rule rule = Rule::llamacpp;
    EstimateOptions estimate;  // context and KV type (both rules), overhead (quick)
    std::uint64_t ubatch = 512;
    std::uint64_t n_seq = 1;
    FlashAttn flash_attn = FlashAttn::automatic;
    std::string cache_type_k;       // empty: estimate.kv_type
    std::string cache_type_v;       // empty: estimate.kv_type
    Bytes margin = kDefaultMargin;  // llama.cpp rule only
    // The lowest quality a choice among quantizations may fall to (a quality_rank: 1 = best,
    // larger = worse); 0: no floor. Only choices obey it: a quantization asked for by name is
    // planned whatever its rank.
    std::uint64_t min_quality_rank = 0;
    // The slowest decode a choice among quantizations with offload may fall to (--min-speed):
    // the best quality at or above it wins, else the fastest that runs.
    double min_decode_tokens_per_s = 0;
    // What the server holds beside the model (server_terms.hpp); the llama.cpp rule only.
    ServerSettings server;
    // --split-mode: row is planned by answer_for (row_split.hpp), the llama.cpp rule only.
    SplitMode split_mode = SplitMode::layer;
    // --reserve-outputs: the outputs the compute graph is reserved for, the llama.cpp rule only.
    OutputReserve outputs = OutputReserve::server;
    // A model file's own tensors (file_parts.hpp): the llama.cpp rule plans their bytes in place
    // of the layout typed at the quantization, through the same parts, caches and buffers.
    std::shared_ptr<const FileWeights> file;

    bool operator==(const PlanSettings&) const = default;
};

// --min-speed's default: 5 tokens/s, about the pace of silent reading (238 words a minute,
// Brysbaert 2019, "How many words do we read per minute?", J. Memory and Language 109; at
// ~1.3 tokens a word that is 5.2 tokens/s). A plan below it is one a reader waits on.
inline constexpr double kDefaultMinSpeed = 5.0;

// The quantization the command line's floor defaults to: Q2_K, the lowest llama-quantize
// lists a perplexity cost for (+3.52 at Llama-3-8B, tools/quantize/quantize.cpp); every type
// below it (IQ2_S, IQ2_XS, IQ2_XXS, IQ1_M, IQ1_S) needs an importance matrix to be made at all
// (src/llama-quant.cpp, tensor_requires_imatrix), and the ternary TQ types are for ternary
// models only.
inline constexpr const char* kDefaultMinQuant = "Q2_K";

// The context a model is planned at when --ctx is not given: llama.cpp's 8k, but never past the
// model's own window (an embedding model of 512 tokens is planned at 512). One rule for the
// page, the engine profiles, vLLM and exo.
std::uint64_t default_context(const Model& model);

// Whether `on_gpu` bytes (every buffer the device holds, its runtime included) fit a device of
// `memory` bytes with `margin` kept free: the test every llama.cpp verdict makes.
inline bool fits_device(Bytes on_gpu, Bytes memory, Bytes margin) {
    return on_gpu <= gpu_capacity(memory, margin);
}

// The page's rule with these options.
PlanSettings quick_settings(const EstimateOptions& options = {});

// llama_sequence_context of the settings' context and sequences.
std::uint64_t sequence_context(const PlanSettings& settings);

const char* rule_name(Rule rule);  // "llama.cpp", "quick"

// The settings a model is planned by: as asked, except that the llama.cpp rule needs the
// architecture's tensor layout; a model without one falls back to the quick rule, and `note`
// (when given) says why.
PlanSettings settings_for_model(const Model& model, const PlanSettings& asked,
                                std::string* note = nullptr);

// The backend llama.cpp runs a device on: CUDA for NVIDIA, ROCm for AMD, Metal for Apple,
// Vulkan for Intel and for a device of unknown make (a --vram budget is taken as CUDA).
Backend backend_for(const GpuDevice& device);

// Whether the rule can plan this quantization at all (llama.cpp loads GGUF file types only).
Result<bool> rule_loads(const PlanSettings& settings, const Quant& quant);

// Whether a choice among quantizations (best quantization, fit, a budget) may pick this one:
// the rule loads it and it is not below the settings' quality floor.
Result<bool> rule_offers(const PlanSettings& settings, const Quant& quant);

// The same as an error naming the quantization, for a quantization the user asked for.
Result<bool> require_loadable(const PlanSettings& settings, const Quant& quant);

// The parts of the model under the rule. The llama.cpp rule needs the architecture's tensor
// layout; where the engine has none yet, the error says so.
Result<ModelParts> plan_parts(const Model& model, const Quant& quant, const PlanSettings& settings);

// The same for a database model whose weight terms the snapshot keeps (`kept`, its
// Database::weight_parts entry): read from there at the quantization where the llama.cpp rule
// plans the database's tensors, else plan_parts above.
Result<ModelParts> plan_parts(const Model& model, const Quant& quant, const PlanSettings& settings,
                              std::string_view kept);

// The same parts at settings.estimate.context (only caches and buffers recomputed).
Result<ModelParts> plan_parts_at_context(ModelParts parts, const Model& model,
                                         const PlanSettings& settings);

// The user's -ngl / --n-cpu-moe with the rule's margin and each GPU's runtime memory.
PlacementOptions placement_for(const Hardware& hardware, const PlanSettings& settings,
                               PlacementOptions user = {});

// The tokens a llama-server slot drafts a step with these settings: --spec-draft-n-max
// (kLlamaDraftMax) with a draft model or the model's own loadable MTP layers, else 0.
std::uint64_t draft_tokens(const Model& model, const PlanSettings& settings);

// llama.cpp's options for these settings on a backend, for this model: its outputs are
// llama-server's (llama_server_outputs) unless settings.outputs asks for every token.
Result<LlamaCppOptions> llamacpp_options(const Model& model, const PlanSettings& settings,
                                         Backend backend);

}  // namespace canitrun
