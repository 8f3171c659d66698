#pragma once
// More than one machine, and vLLM on any GPUs: --host (one machine each, --link between them)
// with llama.cpp's RPC backend, or --engine vllm on --gpu / --vram / --host with tensor and
// pipeline parallel. One result per question, printed in every format.

#include <ostream>

#include "app_options.hpp"
#include "canitrun/cluster.hpp"
#include "command_result.hpp"

namespace canitrun::cli {

// The hosts of --host (or, for vLLM, the one machine of --gpu or --vram), and --link.
Cluster cluster_from_flags(const Options& o);

// True when the model command's answer is this view: two or more --host, or --engine vllm.
bool cluster_question(const Options& o);

CommandResult cluster_result(const Options& o);

// --engine exo over `hosts` (at least one); exo_view.cpp.
CommandResult exo_result(const Options& o, const Model& model, const Cluster& hosts);

// --engine vllm over `hosts` (empty: the one machine of --gpu or --vram); vllm_view.cpp.
CommandResult vllm_result(const Options& o, const Model& model, const Cluster& hosts);

}  // namespace canitrun::cli
