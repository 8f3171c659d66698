#include "canitrun/model_argument.hpp"

#include <filesystem>

#include "canitrun/remote_model.hpp"

namespace canitrun {

ModelArgumentKind classify_model_argument(const Database& db, const std::string& arg) {
    namespace fs = std::filesystem;
    if (looks_remote(arg)) return ModelArgumentKind::remote;
    // A suffix says what the user means, whether or not the file exists (a missing file then
    // gets "cannot open", not "unknown model").
    if (arg.ends_with(".gguf")) return ModelArgumentKind::gguf_file;
    if (arg.ends_with(".json")) return ModelArgumentKind::hf_config;
    std::error_code ec;
    const bool directory = fs::is_directory(arg, ec);
    if (directory && fs::exists(fs::path(arg) / "config.json", ec)) {
        return ModelArgumentKind::hf_config;
    }
    if (db.find_model(arg)) return ModelArgumentKind::database;
    const bool path_like = arg.find('/') != std::string::npos;
    if (directory && path_like) return ModelArgumentKind::hf_config;  // says it lacks config.json
    // Any other existing file is read as GGUF: "not a GGUF file" beats "unknown model".
    if (!directory && fs::exists(arg, ec)) return ModelArgumentKind::gguf_file;
    if (looks_like_repo(arg)) return ModelArgumentKind::remote;
    return ModelArgumentKind::database;  // unknown: "did you mean"
}

}  // namespace canitrun
