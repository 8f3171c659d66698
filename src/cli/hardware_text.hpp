#pragma once
// Hardware answers as terminal text: a model on given or detected hardware, the detected
// system, and every model that fits a machine.

#include <ostream>
#include <string>
#include <vector>

#include "canitrun/detect.hpp"
#include "canitrun/hardware_report.hpp"

namespace canitrun::cli {

void write_hardware_section(std::ostream& out, const Model& model, const Quant& quant,
                            const EstimateOptions& options, const HardwareReport& report);

// The plan's sentence and its per-device table; `labels` names the devices (one per GPU, then
// RAM) where the default "GPU 0  RTX 4090" / "System RAM" would not say enough.
void write_plan(std::ostream& out, const HardwareAnswer& answer, const Hardware& hardware,
                const std::vector<std::string>& labels = {});

// How the named GPUs were read (Hardware::notes: the variant a shared name plans, a board the
// runtime sees as several devices), one "  Note: ..." line each: every view that plans named
// GPUs says them, as the plan does.
void write_hardware_notes(std::ostream& out, const std::vector<std::string>& notes);

// "GPU 0  RTX 4090"
std::string device_label(const Hardware& hardware, std::size_t index);

// What the plan lowered of llama-server's growth settings to fit the RAM (core's cap_growth),
// in one sentence with the flag the line carries; empty where nothing was.
std::string growth_cap_sentence(const Placement& placement);

void write_system(std::ostream& out, const DetectedSystem& system, const Hardware& hardware);

void write_model_fits(std::ostream& out, const Hardware& hardware, const EstimateOptions& options,
                      const std::vector<ModelFit>& fits);

// "14 tokens/s", "3.2 tokens/s"
std::string format_rate(double tokens_per_s);

// The llama-server command line fitted to the plan: -ngl, --n-cpu-moe and -ts as needed.
// `load`: the arguments that load a GGUF file (HardwareReport::model_load); empty: the model's
// Hugging Face GGUF repo.
std::string fitted_llama_command(const Model& model, const HardwareAnswer& answer,
                                 const Hardware& hardware,
                                 const std::vector<std::string>& load = {});
// The same line for another placement of the same answer (its alternative's).
std::string fitted_llama_command(const Model& model, const HardwareAnswer& answer,
                                 const Hardware& hardware, const Placement& placement,
                                 const std::vector<std::string>& load = {});

}  // namespace canitrun::cli
