#pragma once
// Shared by the tests: the built-in database, and hand-made models for the KV rules.

#include "canitrun/database.hpp"
#include "canitrun/hardware.hpp"
#include "canitrun/model_parts.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/speed.hpp"

namespace canitrun::test {

// -ngl / --n-cpu-moe as the CLI passes them (nullopt: not given).
inline PlacementOptions split_options(std::optional<std::uint64_t> ngl,
                                      std::optional<std::uint64_t> cpu_moe) {
    PlacementOptions o;
    o.gpu_layers = ngl;
    o.cpu_moe_layers = cpu_moe;
    return o;
}

// The embedded database, parsed once.
// "x.yy MiB" as llama.cpp prints it (hundredths of a MiB), in bytes, rounded half up.
inline Bytes mib100(std::uint64_t hundredths) {
    return (hundredths * (1ULL << 20) + 50) / 100;
}

const Database& database();

const Model& model(const std::string& id);
// The model as a file published in `repo` is made: its publisher's plain-named recipes
// (RunInfo::gguf_plain_recipes) hold in its own gguf_repo alone; a file of another repo, or one
// llama-quantize made (repo ""), is llama-quantize's own mix of that name.
Model model_in_repo(const std::string& id, const std::string& repo);
void publish_in_repo(Model& m, const std::string& repo);  // the same, on a model at hand
const Quant& quant(const std::string& id);
const Gpu& gpu(const std::string& id);

// A bare model with one group of layers; dims set by the caller.
Model model_with(std::vector<LayerGroup> groups, std::uint64_t kv_heads, std::uint64_t head_dim);

// Database GPUs as hardware, with `ram_gb` GB (10^9 bytes) of system RAM.
Hardware hardware_of(const std::vector<std::string>& gpu_ids, std::uint64_t ram_gb = 32);

// A database model cut into pieces at a quantization and context (f16 KV).
ModelParts parts_of(const std::string& model, const std::string& quant, std::uint64_t context);

// The llama.cpp rule's settings for `m` at 8k tokens, or its whole window when shorter: the
// context the brute-force searches (best_plan_test, split_search_test) plan at.
PlanSettings settings_at_8k(const Model& m);

// The speed model with every fitted rate and fixed cost at zero (no bandwidth, compute,
// attention, MoE, GPU-hop or re-read term), so a test sets the one term it works by hand.
SpeedModel zeroed_speed_model();

// The fastest placement a brute-force search found: its decode rate and how it was placed.
struct FastestFound {
    double decode = 0;
    std::string what;
};

}  // namespace canitrun::test
