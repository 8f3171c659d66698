#pragma once
// --engine llama.cpp | vllm on the model command: the exact engine profiles' flags, and their
// answer as text or JSON. `quick` (the default) leaves the model page as it is.

#include <optional>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"
#include "canitrun/hardware.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/plan_settings.hpp"
#include "command_result.hpp"

namespace canitrun::cli {

// What was typed; resolve() (request.hpp) parses it. Empty: not given, the core's default.
struct EngineFlags {
    std::string engine;  // empty: the default, llama.cpp's rule
    std::string ubatch;
    std::string parallel;
    std::string flash_attn;
    std::string reserve_outputs;  // --reserve-outputs server|all
    std::string cache_type_k;
    std::string cache_type_v;
    std::string backend;  // empty: the device's (plan_settings.hpp backend_for)
    std::string gpu_memory_utilization;
    std::string margin;  // MiB kept free on every GPU (llama.cpp's fitting target)
    // What the server holds beside the model (server_terms.hpp)
    std::string cache_ram;           // --cache-ram MiB
    std::string ctx_checkpoints;     // --ctx-checkpoints per sequence
    bool no_kv_offload = false;      // --no-kv-offload
    bool no_repack = false;          // --no-repack
    bool no_op_offload = false;      // --no-op-offload
    bool blas_build = false;         // --blas-build
    bool mtp = false;                // --mtp
    std::string load_mode;           // --load-mode MODE
    bool no_mmproj = false;          // --no-mmproj
    bool no_mmproj_offload = false;  // --no-mmproj-offload
    std::string draft;               // --draft MODEL[:QUANT]
    std::vector<std::string> also;   // --also MODEL[:QUANT], repeatable
};

// The llama.cpp profile's question on a model file (resolved flags, request.hpp).
struct EngineRequest {
    const Database* db = nullptr;
    const Model* model = nullptr;
    const Quant* quant = nullptr;          // null: the model's default
    std::optional<std::uint64_t> context;  // null: the model's default (default_context)
    std::optional<Hardware> hardware;      // --gpu: one GPU
    std::optional<Bytes> vram;             // --vram
    PlanSettings settings;                 // the llama.cpp flags
    std::optional<Backend> backend;        // --backend; else the GPU's
    // A GGUF file's own tensors (llama.cpp profile only); `quant` is then ignored.
    std::optional<LlamaCppOptions::FileTensors> file_tensors;
    std::string file;  // the file, for the heading
};

Result<CommandResult> run_engine(const EngineRequest& request);

}  // namespace canitrun::cli
