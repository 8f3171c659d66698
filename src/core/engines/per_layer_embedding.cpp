#include "canitrun/per_layer_embedding.hpp"

#include <string>

#include "canitrun/tensor_layout.hpp"

namespace canitrun {

std::uint64_t per_layer_embedding_width(const Model& m) {
    if (m.arch.per_layer_input_size > 0) return m.arch.per_layer_input_size;
    const Result<std::string> arch = llama_arch(m);
    return arch && *arch == "gemma3n" ? kGemma3nPerLayerWidth : 0;
}

}  // namespace canitrun
