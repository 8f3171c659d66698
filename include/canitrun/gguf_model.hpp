#pragma once
// A GGUF file (all its split parts) as a Model: the architecture from `<arch>.*` keys, the way
// llama.cpp derives each layer's kind from them (llama-model.cpp, src/models/*.cpp at 0ad4a86),
// and the weights to the byte from the tensor infos.

#include <cstdint>
#include <string>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"
#include "canitrun/file_parts.hpp"
#include "canitrun/gguf.hpp"
#include "canitrun/llamacpp_rules.hpp"  // llama_cache_model: the cells a file gets
#include "canitrun/model.hpp"

namespace canitrun {

// Bytes and tensors of one ggml type in a file.
struct QuantMixEntry {
    std::string type;  // ggml name: "q4_K"
    std::uint32_t type_id = 0;
    std::uint64_t tensors = 0;
    Bytes bytes = 0;
};

struct GgufModel {
    Model model;               // id / name from general.*, params from the tensor shapes
    std::string architecture;  // general.architecture
    Bytes weights_bytes = 0;   // the exact sum of every tensor's bytes, all parts
    std::uint64_t tensor_count = 0;
    std::uint64_t parts = 1;
    std::uint32_t version = 3;
    // The llama-quantize file type general.file_type names ("Q4_K_M"), "" where the file has
    // none or a number no file type has (file_type_of_llama_ftype).
    std::string file_type;
    std::vector<QuantMixEntry> mix;  // largest first
    // Each layer's kind as llama.cpp reads it from the file's keys (a per-layer head count, a
    // sliding-window pattern, a full-attention interval), before the layers are counted into
    // model.arch.layer_groups; layer_kinds(model) must place them the same way.
    std::vector<LayerKind> layer_kinds;
    // Every tensor of every part, by name and bytes: what the llama.cpp rule plans a file by
    // (file_parts.hpp), so a file is planned by its own tensors as a database model by its
    // layout's.
    std::vector<FileTensor> tensors;
    // The llama-server arguments that load it where it is not a local file (a remote model:
    // RemoteGguf::load); empty: `-m` the file's path.
    std::vector<std::string> load;
};

// Errors: no general.architecture, no `<arch>.block_count`, inconsistent per-layer arrays.
Result<GgufModel> gguf_to_model(const std::vector<GgufFile>& parts);

}  // namespace canitrun
