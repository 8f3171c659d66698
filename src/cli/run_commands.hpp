#pragma once
// The llama.cpp / Ollama / LM Studio commands the page prints for a model.

#include <cstdint>
#include <ostream>

#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"

namespace canitrun::cli {

// Context the commands ask for: 32k, or less when the model's native window is smaller.
std::uint64_t run_context(const Model& model);

void write_run_commands(std::ostream& out, const Model& model, const Quant& quant);

}  // namespace canitrun::cli
