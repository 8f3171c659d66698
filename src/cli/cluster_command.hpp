#pragma once
// More than one machine, and vLLM on any GPUs: --host (one machine each, --link between them)
// with llama.cpp's RPC backend, or --engine vllm on --gpu / --vram / --host with tensor and
// pipeline parallel. One result per question, printed in every format.

#include <ostream>

#include "app_options.hpp"
#include "canitrun/cluster.hpp"
#include "command_result.hpp"

namespace canitrun::cli {

struct Request;

// True when the model command's answer is this view: two or more --host, or --engine vllm / exo.
bool cluster_question(const Request& r);

CommandResult cluster_result(const Request& r, const Model& model);

// --engine exo over the --host machines (at least one); exo_command.cpp.
CommandResult exo_result(const Request& r, const Model& model);

// --engine vllm over the --host machines (none: the one machine of --gpu or --vram);
// vllm_command.cpp.
CommandResult vllm_result(const Request& r, const Model& model);

}  // namespace canitrun::cli
