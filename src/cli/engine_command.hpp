#pragma once
// --engine llama.cpp | vllm on the model command: the exact engine profiles' flags, and their
// answer as text or JSON. `quick` (the default) leaves the model page as it is.

#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/plan_settings.hpp"
#include "command_result.hpp"

namespace canitrun::cli {

struct EngineFlags {
    std::string engine;  // empty: the default, llama.cpp's rule
    std::string ubatch = "512";
    std::string parallel = "1";
    std::string flash_attn = "auto";
    std::string cache_type_k = "f16";
    std::string cache_type_v = "f16";
    std::string backend;  // empty: cuda, or the --gpu's first backend
    std::string gpu_memory_utilization = "0.9";
    std::string margin = "1024";  // MiB kept free on every GPU (llama.cpp's fitting target)
    // What the server holds beside the model (server_terms.hpp)
    std::string cache_ram = "8192";     // --cache-ram MiB
    std::string ctx_checkpoints = "8";  // --ctx-checkpoints per sequence
    bool no_kv_offload = false;         // --no-kv-offload
    bool no_repack = false;             // --no-repack
    bool mtp = false;                   // --mtp
    std::string draft;                  // --draft MODEL[:QUANT]
    std::vector<std::string> also;      // --also MODEL[:QUANT], repeatable
};

// True when --engine asks for the default page rule.
Result<bool> engine_is_quick(const EngineFlags& flags);

// True for --engine vllm, whose answer is its own view (not yet a planner rule).
bool engine_is_vllm(const EngineFlags& flags);

// True for --engine exo (several machines, exo_plan.hpp).
bool engine_is_exo(const EngineFlags& flags);

// vLLM and exo answer in their own views of the model command, not through the page.
bool engine_has_own_view(const EngineFlags& flags);

// True for an explicit --engine llama.cpp or vllm: on a model file, the profile's own view.
bool engine_is_explicit_profile(const EngineFlags& flags);

// The llama.cpp flags (--ubatch, --parallel, --flash-attn, cache types, --backend, --margin)
// refused for an engine that has no such setting, rather than ignored.
Result<bool> refuse_llama_flags(const EngineFlags& flags, const std::string& engine);

// The planner's rule and settings from --engine and the llama.cpp flags; the quick rule refuses
// llama.cpp-only settings rather than ignore them.
Result<PlanSettings> plan_settings_from_flags(const EngineFlags& flags,
                                              const EstimateOptions& estimate);

struct EngineRequest {
    const Database* db = nullptr;
    const Model* model = nullptr;
    std::string quant;  // empty: the recommended one
    std::string ctx;    // empty: 8k
    std::string gpu;
    std::string vram;
    // A GGUF file's own tensors (llama.cpp profile only); `quant` is then ignored.
    std::optional<LlamaCppOptions::FileTensors> file_tensors;
    std::string file;  // the file, for the heading
};

Result<CommandResult> run_engine(const EngineRequest& request, const EngineFlags& flags);

}  // namespace canitrun::cli
