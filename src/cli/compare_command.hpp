#pragma once
// `canitrun compare A B [C ...]`: models side by side, each planned by the same planner and the
// same options as the model page (quantization, context, KV type, rule, --gpu). Operands are
// database names, GGUF files, config.json / Hugging Face folders and remote models (hf:,
// ollama:, URLs), as the model command takes.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/report.hpp"
#include "file_command.hpp"

namespace canitrun::cli {

struct Comparison {
    std::vector<std::string> operands;
    // One report per operand; a file's model and quantization live beside its report.
    std::vector<std::unique_ptr<FileReport>> entries;
    // How --gpu's names were read (Hardware::notes), said once for every column.
    std::vector<std::string> notes;
};

// Each operand's report under `options`; the first operand that cannot be answered is the
// error (with its name).
Result<Comparison> build_comparison(const Database& db, const std::vector<ModelArgument>& operands,
                                    const ReportOptions& options, const RemoteFlags& remote = {});

void write_comparison(std::ostream& out, const Comparison& c);
nlohmann::json comparison_json(const Comparison& c);
void write_comparison_csv(std::ostream& out, const Comparison& c);

}  // namespace canitrun::cli
