#pragma once
// --engine llama.cpp | vllm on the model command: the exact engine profiles' flags, and their
// answer as text or JSON. `quick` (the default) leaves the model page as it is.

#include <CLI/CLI.hpp>
#include <string>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"
#include "canitrun/llamacpp_engine.hpp"

namespace canitrun::cli {

struct EngineFlags {
    std::string engine = "quick";
    std::string ubatch = "512";
    std::string parallel = "1";
    std::string flash_attn = "auto";
    std::string cache_type_k = "f16";
    std::string cache_type_v = "f16";
    std::string backend;  // empty: cuda, or the --gpu's first backend
    std::string gpu_memory_utilization = "0.9";
};

void add_engine_flags(CLI::App& app, EngineFlags& flags);

// True when --engine asks for the default page rule.
Result<bool> engine_is_quick(const EngineFlags& flags);

struct EngineRequest {
    const Database* db = nullptr;
    const Model* model = nullptr;
    std::string quant;  // empty: the recommended one
    std::string ctx;    // empty: 8k
    std::string gpu;
    std::string vram;
    bool json = false;
    // A GGUF file's own tensors (llama.cpp profile only); `quant` is then ignored.
    std::optional<LlamaCppOptions::FileTensors> file_tensors;
    std::string file;  // the file, for the heading
};

struct EngineAnswer {
    std::string text;
    int exit_code = 0;
};

Result<EngineAnswer> run_engine(const EngineRequest& request, const EngineFlags& flags);

}  // namespace canitrun::cli
