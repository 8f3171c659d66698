#pragma once
// The llama.cpp / Ollama / LM Studio commands the page prints for a model.

#include <cstdint>
#include <ostream>

#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"
#include "canitrun/report.hpp"

namespace canitrun::cli {

// The llama.cpp / Ollama / LM Studio commands for the page's plan: its context, cache types,
// flash attention, sequences and (with --gpu) offload.
void write_run_commands(std::ostream& out, const ModelReport& r);

}  // namespace canitrun::cli
