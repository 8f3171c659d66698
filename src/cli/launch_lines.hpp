#pragma once
// The llama.cpp / Ollama / LM Studio commands the page prints for a model.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "canitrun/model.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/quant.hpp"
#include "canitrun/report.hpp"

namespace canitrun::cli {

// One way to run the model the page names, in the page's order: a llama-server line per sampling
// mode, the Ollama line, LM Studio's settings.
struct RunCommand {
    std::string engine;   // "llama.cpp", "llama.cpp router", "Ollama", "LM Studio"
    std::string heading;  // the page's heading for it, e.g. "llama.cpp (non-thinking mode)"
    // The command on one line ("llama-server -hf ... --temp 0.7", "OLLAMA_CONTEXT_LENGTH=8192
    // ollama serve"); empty where there is none to type (LM Studio).
    std::string command;
    std::string then;  // what to type next ("ollama run qwen3.5:35b-a3b"), or empty
    std::string note;  // what the page says with it (LM Studio's settings), or empty
    // llama.cpp: the page's lines after "./llama-server" (the file, the plan, the sampling,
    // the chat template's arguments).
    std::vector<std::string> lines;
    // llama.cpp router: the preset file its command reads, by name, and its text.
    std::string file_name;
    std::string file_text;
};

// The commands for the page's plan: its context, cache types, flash attention, sequences and
// (with --gpu) offload.
std::vector<RunCommand> run_commands(const ModelReport& r);

// A llama.cpp command as the page prints it: "./llama-server \", then its lines, each line
// after `indent`.
std::string llama_server_block(const RunCommand& c, const std::string& indent);

// A llama.cpp router's preset file as the shell command that writes it (one printf of its
// lines), each line after `indent`; empty for a command that reads no file.
std::string preset_command(const RunCommand& c, const std::string& indent);

// The sentence the page prints under the llama.cpp lines: whether they load the vision
// projector, or that the quantization is not a GGUF format; empty when there is none.
std::string run_format_note(const ModelReport& r);

// What the llama.cpp lines assume of the build that a flag cannot say: with --blas-build, a
// build with a BLAS backend (GGML_BLAS, a cmake option; llama-server has no flag for it and the
// release binaries have none). Empty for a release build.
std::string llama_build_note(const PlanSettings& settings);

// The llama.cpp / Ollama / LM Studio commands, as the page prints them (run_commands()).
void write_run_commands(std::ostream& out, const ModelReport& r);

}  // namespace canitrun::cli
