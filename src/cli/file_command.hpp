#pragma once
// `canitrun FILE.gguf` / `canitrun path/to/config.json` (or its folder): the answer for exactly
// that file. A GGUF file gets a file report (exact weights, quantization mix, llama.cpp's KV
// cache and recurrent state); a Hugging Face config the full model page at any quantization.

#include <memory>
#include <string>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"
#include "canitrun/file_report.hpp"
#include "canitrun/gguf_model.hpp"
#include "canitrun/report.hpp"
#include "command_result.hpp"
#include "engine_command.hpp"
#include "model_operand.hpp"
#include "remote_flags.hpp"
#include "style.hpp"

namespace canitrun::cli {

// `canitrun FILE.gguf --engine llama.cpp`: the llama.cpp profile on the file's own tensors.
// The same for headers read from anywhere (a remote model), `label` naming it.
Result<CommandResult> engine_on_gguf(const Database& db, const std::string& label,
                                     const std::vector<GgufFile>& parts,
                                     const EngineRequest& request);

Result<CommandResult> run_model_file_engine(const Database& db, const std::string& path,
                                            const EngineRequest& request);

// A GGUF model's page, whatever its header was read from (a file, a remote range reader):
// `label` names it. Bytes of a projector, when one is added, in `mmproj`; `note` ends the text.
// `chart_csv`: --chart with --format csv writes the KV chart's points.
Result<CommandResult> gguf_file_page(const Database& db, const std::string& label,
                                     const GgufModel& g, Bytes mmproj, const ReportOptions& ro,
                                     bool chart_csv, const std::string& note);

// A model made from a config.json (a folder, a remote safetensors repo) as the model page,
// headed by where it came from; JSON adds `file` and `params_source`.
CommandResult config_page(const std::shared_ptr<const ModelReport>& report,
                          const std::string& label, const std::string& params_source,
                          bool chart_csv);

// `canitrun FILE`: a .gguf file, a config.json or a folder holding one.
Result<CommandResult> run_model_file(const Database& db, const std::string& path,
                                     const std::string& mmproj, const ReportOptions& options,
                                     bool chart_csv);

// `canitrun gpus FILE` and compare: the file as a ModelReport (file_report.hpp). A remote name
// (hf:, ollama:, a URL) is read by range requests, with `remote`'s settings.
Result<std::unique_ptr<FileReport>> file_gpus_report(const Database& db, const ModelArgument& path,
                                                     const std::string& mmproj,
                                                     const ReportOptions& options,
                                                     const RemoteFlags& remote = {});

}  // namespace canitrun::cli
