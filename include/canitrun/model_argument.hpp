#pragma once
// What the model argument names, decided once for every command: a database entry, a GGUF file
// or a Hugging Face config (a config.json or a folder holding one). Names come before files: a
// file in the working directory that happens to be called "llama-3.1-8b" does not shadow the
// model; an argument is a file only when it looks like one or matches no database name.

#include <string>

#include "canitrun/database.hpp"

namespace canitrun {

// `remote`: hf:…, ollama:…, an http(s) address, or ORG/REPO[:QUANT] that is no database name
// and no path on disk (remote_model.hpp).
enum class ModelArgumentKind { database, gguf_file, hf_config, remote };

ModelArgumentKind classify_model_argument(const Database& db, const std::string& arg);

}  // namespace canitrun
