#include "gguf_outputs.hpp"

#include <algorithm>
#include <array>

namespace canitrun {

bool gguf_has_tensor(const std::vector<GgufFile>& parts, std::string_view name) {
    return std::ranges::any_of(parts, [&](const GgufFile& part) {
        return std::ranges::any_of(part.tensors,
                                   [&](const GgufTensor& t) { return t.name == name; });
    });
}

void read_gguf_optional_tensors(const std::vector<GgufFile>& parts, const std::string& arch,
                                Architecture& a) {
    if (arch == "glm4moe") a.attention.qk_norm = gguf_has_tensor(parts, "blk.0.attn_q_norm.weight");
    if (arch != "gemma4" && gguf_has_tensor(parts, "rope_freqs.weight")) {
        a.attention.rope_scaling = "llama3";
    }
    if (arch == "falcon-h1") {
        const bool norm = gguf_has_tensor(parts, "blk.0.ssm_norm.weight");
        for (auto& g : a.layer_groups) g.ssm_rms_norm = has_parallel_ssm(g) && norm;
    }
}

GgufVocab read_gguf_vocab(const std::vector<GgufFile>& parts, const std::string& arch) {
    GgufVocab vocab;
    if (parts.empty()) return vocab;
    const GgufFile& first = parts.front();
    vocab.size = first.get_uint(arch + ".vocab_size").value_or(0);
    if (vocab.size == 0) {
        if (const GgufValue* tokens = first.find("tokenizer.ggml.tokens");
            tokens != nullptr && tokens->type == GgufType::array) {
            vocab.size = tokens->length;
        }
    }
    for (const auto& part : parts) {
        for (const auto& t : part.tensors) {
            if (t.name == "token_embd.weight" && vocab.size == 0 && t.dims.size() >= 2)
                vocab.size = t.dims[1];
            if (t.name == "output.weight") vocab.has_output = true;
        }
    }
    return vocab;
}

std::string read_gguf_pooling(const GgufFile& first, const std::string& arch) {
    // llama.h's enum llama_pooling_type at 0ad4a86 (lines 177-182), by value
    static constexpr std::array<const char*, 5> kNames = {"", "mean", "cls", "last", "rank"};
    const auto type = first.get_uint(arch + ".pooling_type");
    return type && *type < kNames.size() ? std::string(kNames[*type]) : std::string();
}

}  // namespace canitrun
