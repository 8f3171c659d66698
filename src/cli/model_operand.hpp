#pragma once
// A model named on the command line (the model argument, compare's operands), classified once
// by resolve() (request.hpp): a database name, a file on this machine or a remote name.

#include <string>

#include "canitrun/model_argument.hpp"

namespace canitrun::cli {

struct ModelArgument {
    std::string text;  // as typed; empty when none was given
    ModelArgumentKind kind = ModelArgumentKind::database;
    bool given() const { return !text.empty(); }
    bool remote() const { return given() && kind == ModelArgumentKind::remote; }
    // A .gguf file, or a config.json / Hugging Face folder on this machine.
    bool file() const { return given() && kind != ModelArgumentKind::database && !remote(); }
};

}  // namespace canitrun::cli
