#pragma once
// `canitrun FILE.gguf` / `canitrun path/to/config.json` (or its folder): the answer for exactly
// that file. A GGUF file gets a file report (exact weights, quantization mix, llama.cpp's KV
// cache and recurrent state); a Hugging Face config the full model page at any quantization.

#include <memory>
#include <string>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"
#include "canitrun/gguf_model.hpp"
#include "canitrun/report.hpp"
#include "engine_command.hpp"
#include "remote_flags.hpp"
#include "style.hpp"

namespace canitrun::cli {

struct CommandOutput {
    std::string text;  // everything for stdout, built whole
    int code = 0;
};

// `canitrun FILE.gguf --engine llama.cpp`: the llama.cpp profile on the file's own tensors.
// The same for headers read from anywhere (a remote model), `label` naming it.
Result<CommandOutput> engine_on_gguf(const Database& db, const std::string& label,
                                     const std::vector<GgufFile>& parts, const EngineFlags& flags,
                                     const EngineRequest& request);

Result<CommandOutput> run_model_file_engine(const Database& db, const std::string& path,
                                            const EngineFlags& flags, const EngineRequest& request);

// A GGUF model's report, whatever its header was read from (a file, a remote range reader):
// `label` names it in the output. Bytes of a projector, when one is added, in `mmproj`.
Result<CommandOutput> report_gguf_model(const std::string& label, const GgufModel& model,
                                        Bytes mmproj, const ReportOptions& ro, bool as_json,
                                        const ChartChoice& chart);

// A model made from a config.json (a folder, a remote safetensors repo) as the model page,
// headed by where it came from; JSON adds `file` and `params_source`.
CommandOutput config_report_output(const ModelReport& report, const std::string& label,
                                   const std::string& params_source, bool as_json,
                                   const ChartChoice& chart);

// `chart`: whether and how the text page draws its KV chart (style.hpp).
Result<CommandOutput> run_model_file(const Database& db, const std::string& path,
                                     const std::string& mmproj, const ReportOptions& options,
                                     bool json, const ChartChoice& chart);

// `canitrun gpus FILE`: which GPUs run the file. A GGUF file is judged at its own weights (its
// exact tensor bytes, llama.cpp's cache, --mmproj added), a config.json as a model at --quant.
// The report points into the model and quantization held beside it, so it lives on the heap.
struct FileReport {
    Model model;
    Quant quant;
    ModelReport report;
};
// `r` filled as the GPU lists and compare see a GGUF model (`label` names it): its exact tensor
// bytes, llama.cpp's cache, the page's rule; its plan on options.hardware when given.
Result<bool> fill_gguf_report(FileReport& r, const Database& db, const std::string& label,
                              const GgufModel& g, Bytes mmproj, const ReportOptions& options);

// A GGUF model (its own weights, llama.cpp's cache) on ro.hardware: the plan, speed and longest
// context, as the file report shows them; `path` names it.
Result<HardwareReport> file_on_hardware(const std::string& path, const GgufModel& g,
                                        const ReportOptions& ro);

// A remote name (hf:, ollama:, a URL) is read by range requests, with `remote`'s settings.
Result<std::unique_ptr<FileReport>> file_gpus_report(const Database& db, const std::string& path,
                                                     const std::string& mmproj,
                                                     const ReportOptions& options,
                                                     const RemoteFlags& remote = {});

}  // namespace canitrun::cli
