#pragma once
// The runtime command lines a plan stands for, as argument lists: what to type so llama.cpp or
// Ollama allocates what the plan counted (its context, cache types, flash attention, sequences,
// and the offload it chose). The CLI only joins and prints them.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "canitrun/hardware.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/plan_settings.hpp"

namespace canitrun {

struct LaunchTarget {
    const Model* model = nullptr;
    const Quant* quant = nullptr;
    // The arguments that load a GGUF file (-m PATH, or a remote model's -hf REPO:QUANT or
    // -mu URL: HardwareReport::model_load); empty: the model's GGUF repo (-hf repo:quant).
    std::vector<std::string> load;
};

// Whether llama_server_args loads the model by its GGUF repo (-hf repo:quant): then llama-server
// also fetches and loads the repo's vision projector (llama.cpp's --mmproj-auto, on by default).
bool loads_from_repo(const Model& model, const Quant& quant);

// A --tensor-split as llama.cpp takes it: "40,41".
std::string tensor_split_text(const std::vector<std::uint64_t>& split);

// -ngl and -ts as llama.cpp counts them for this placement: its units plus, where a layer is on
// the GPUs, Placement::idle_units (a file's MTP blocks, which llama.cpp counts past the stack);
// -ts as each GPU's units where there are idle ones (the head's GPU takes them), else the split
// placed by (empty: by memory). Without idle units, the placement's own figures.
std::uint64_t llamacpp_gpu_layers(const Placement& p);
std::vector<std::uint64_t> llamacpp_tensor_split(const Placement& p);

// The arguments that place the model, as llama_server_args writes them: -ngl, --n-cpu-moe or
// --cpu-moe, and on several GPUs -ts and -sm row or tensor. Without a placement, every layer on
// the GPU.
std::vector<std::string> placement_args(const Hardware* hardware, const Placement* placement);

// llama-server's arguments (after the program name). With a placement, its -ngl, --n-cpu-moe
// and -ts; without one, every layer on the GPU (-ngl 99). An embedding model's end with
// --embeddings, a reranker's with --reranking (llama_serve): a router preset's section then
// carries `embeddings = true` or `reranking = true`.
std::vector<std::string> llama_server_args(const LaunchTarget& target, const PlanSettings& settings,
                                           const Hardware* hardware = nullptr,
                                           const Placement* placement = nullptr);

// llama-server's router mode, the llama.cpp way to hold the plan's --also models beside it
// (tools/server at 0ad4a86). `llama-server` given no model is a router: it "never loads a model
// and must not touch the GPU" (server.cpp: no device enumeration, no CUDA context) and runs each
// model as a child llama-server, a process of its own with its own CUDA context and buffers (as
// server_terms plans an --also model). A child's arguments are its preset section's with the
// router's own command line laid over them (server-models.cpp load_models:
// preset.merge(base_preset)), so the router's line carries nothing of a model's, each section
// all of its model's: the main model's line, and each --also model's as planned
// (companion_settings of ollama_model_settings: its context and sequences, every layer on the
// GPUs, no prompt cache or checkpoints of its own). --models-max caps the children loaded at once
// (common/common.h default 4; past it the least recently used is unloaded, and more
// load-on-startup sections than it are refused), so the line sets it to the models planned;
// load-on-startup (a preset-only key) loads each at start, as the plan holds them.
inline constexpr const char* kRouterPresetFile = "canitrun-models.ini";
struct RouterModel {
    std::string name;  // the preset's section, the model's id (requests name it)
    // Its preset: each llama-server argument as `key = value`, the flag without its dashes
    // (common/preset.cpp takes any of a flag's spellings); a flag without a value is "true".
    std::vector<std::pair<std::string, std::string>> options;
};
struct RouterLaunch {
    std::vector<RouterModel> models;  // the main model first, then --also's in order
    std::vector<std::string> args;    // the router's arguments
};
RouterLaunch llama_router_launch(const LaunchTarget& target, const PlanSettings& settings,
                                 const Hardware* hardware = nullptr,
                                 const Placement* placement = nullptr);

// Whether llama.cpp runs the plan's context per sequence as the model was made to: within the
// native window, or past it by YaRN (the line's --rope-scaling yarn). Another extension (Qwen's
// Dual Chunk Attention) llama.cpp does not implement: past the window its line runs plain RoPE.
bool llamacpp_extends_window(const Model& model, const PlanSettings& settings);

// The KV cache type the Ollama line runs for the plan: OLLAMA_KV_CACHE_TYPE is one type for K
// and V, and the line sets only the types Ollama's FAQ documents, q8_0 and q4_0 (with flash
// attention), else runs f16 (docs/faq.mdx; tests/fixtures/runtime-flags/ollama.json). Whether
// that is the cache the plan counts.
std::string ollama_cache_type(const PlanSettings& settings);
bool ollama_runs_planned_cache(const PlanSettings& settings);

// The environment Ollama needs for the same context and cache (OLLAMA_CONTEXT_LENGTH, and for a
// quantized cache OLLAMA_FLASH_ATTENTION=1 with OLLAMA_KV_CACHE_TYPE), as NAME=value pairs.
std::vector<std::string> ollama_environment(const PlanSettings& settings);

// The sequences Ollama serves `model` with when OLLAMA_NUM_PARALLEL is `requested` (the
// printed line's --users): server/sched.go's load (ollama/ollama fb30760, lines 497-510) takes
// max(OLLAMA_NUM_PARALLEL, 1) (envconfig/config.go:275, default 1), and 1 for a model without
// the completion capability (server/images.go: a GGUF with a {arch}.pooling_type; of
// canitrun's, the models llama-server serves for embeddings or reranking, llama_serve:
// Qwen3-Embedding and Qwen3-Reranker by their data's pooling, and the encoders llama.cpp runs
// without memory) and for the architectures it holds unsafe in parallel (mllama,
// qwen3vl, qwen3vlmoe, qwen35, qwen35moe, qwen3next, lfm2, lfm2moe, nemotron_h, nemotron_h_moe,
// nemotron_h_omni; ollama issue #4165). Used for the main model's line (launch_lines.cpp says when
// Ollama serves it one request at a time) and for every --also model (ollama_model_settings).
std::uint64_t ollama_num_parallel(const Model& model, std::uint64_t requested);

// The settings Ollama loads `model` with beside the plan `main` (the printed line's
// OLLAMA_CONTEXT_LENGTH and OLLAMA_NUM_PARALLEL): ollama_num_parallel's sequences, each of
// the main context per sequence capped at the model's window (effectiveModelContext), and a
// context of that times the sequences (sched.go:793-795 effectiveLlamaServerContext;
// llm/llama_server.go:375 starts llama-server with -c NumCtx x numParallel, -np numParallel).
PlanSettings ollama_model_settings(const PlanSettings& main, const Model& model);

}  // namespace canitrun
