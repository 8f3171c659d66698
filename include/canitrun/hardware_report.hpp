#pragma once
// Everything the CLI shows about one model on one machine: the plan for the chosen
// quantization and context (native, expert offload, layer offload, or not at all) with its
// per-device split and speed, the best quantization that fits at that context, and the longest
// context the chosen quantization fits natively.

#include <optional>

#include "canitrun/hardware_questions.hpp"
#include "canitrun/serving.hpp"

namespace canitrun {

struct HardwareReport {
    // The llama-server arguments that load the GGUF file the answer is for (-m PATH, or a
    // remote model's -hf REPO:QUANT / -mu URL); empty for a database model.
    std::vector<std::string> model_load;
    Hardware hardware;
    HardwareAnswer selected;
    std::optional<HardwareAnswer> best;     // best GGUF quantization at the context
    std::optional<HardwareAnswer> fastest;  // with offload: the fastest that runs
    // when the best runs whole: a better quality that runs with offload at the speed floor
    std::optional<HardwareAnswer> with_offload;
    std::optional<std::uint64_t> max_context;  // the selected quantization, natively
    // Under the llama.cpp rule on GPUs: the most users of the per-user context (the context
    // over the sequences) the selected quantization serves natively, and with several
    // sequences asked (--parallel, --users) the batched speed of the selected plan.
    std::optional<ServingCapacity> serving;
    std::optional<ServingSpeed> users_speed;
};

// Under the llama.cpp rule on GPUs: r.serving and r.users_speed for r.selected (set first),
// the one rule a database model's report and a file's (file_report.hpp) share.
void add_serving(HardwareReport& r, const Model& model, const Quant& quant,
                 const PlanSettings& settings);

Result<HardwareReport> build_hardware_report(const Database& db, const Model& model,
                                             const Quant& quant, const PlanSettings& settings,
                                             const Hardware& hardware,
                                             const PlacementOptions& placement);

}  // namespace canitrun
