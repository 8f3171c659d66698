#pragma once
// What a GGUF model outputs (private to src/core/files): its vocabulary and whether its output
// head is its own tensor (whether a file holds a named tensor), and the pooling llama.cpp
// applies to its hidden states.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/gguf.hpp"
#include "canitrun/model.hpp"

namespace canitrun {

struct GgufVocab {
    std::uint64_t size = 0;
    bool has_output = false;  // an output.weight tensor: the output head is not tied
};

// Whether any part holds a tensor of that name (GLM-4.5's optional per-head q/k norms).
bool gguf_has_tensor(const std::vector<GgufFile>& parts, std::string_view name);

// The optional tensors a layout lays out where the file holds them, no key saying so: GLM-4.5's
// per-head q/k norms (glm4moe), a llama3 rope scaling's rope_freqs (Attention::rope_scaling;
// Gemma 4's proportional RoPE writes one too, and its layout always has it) and Falcon-H1's
// ssm_norm (LayerGroup::ssm_rms_norm, on its parallel groups).
void read_gguf_optional_tensors(const std::vector<GgufFile>& parts, const std::string& arch,
                                Architecture& a);

// Vocabulary: <arch>.vocab_size, else the tokenizer's token list, else token_embd's shape.
GgufVocab read_gguf_vocab(const std::vector<GgufFile>& parts, const std::string& arch);

// <arch>.pooling_type as RunInfo::pooling spells it: llama.h's llama_pooling_type 1 "mean",
// 2 "cls", 3 "last", 4 "rank"; empty for 0 (none), for a value llama.h does not name and where
// the key is absent (llama-model.cpp load_hparams reads it as optional: LLAMA_POOLING_TYPE_
// UNSPECIFIED), so that llama_serve reads a chat model's file as one.
std::string read_gguf_pooling(const GgufFile& first, const std::string& arch);

}  // namespace canitrun
