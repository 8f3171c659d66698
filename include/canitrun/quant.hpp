#pragma once
// A weight quantization format: how many bits each weight costs on average.
// A field added to a struct here also goes into fields() in
// src/core/database/database_snapshot.cpp.

#include <cstdint>
#include <string>
#include <vector>

namespace canitrun {

// Bits per weight are kept in units of 1/10000 bit, so 4.873 bpw is 48730: integers inside,
// exact for every value the database records.
inline constexpr std::uint64_t kBpwScale = 10000;

// One tensor rule of a file recipe: the tensors `tensor` names ("token_embd.weight", or
// "ssm_alpha.weight" for that tensor of every layer) are written in the ggml type `type`
// ("q8_0", "f32") whatever llama-quantize's rules would choose (its --token-embedding-type,
// --output-tensor-type and --tensor-type options). A publisher's per-model choice (Unsloth's
// dynamic upcasts) holds only for the llama.cpp architecture `arch` and, where given, the model
// family `family` ("qwen3.6") and the model `model` (a database id); empty: every model.
struct TensorTypeRule {
    std::string tensor;
    std::string type;
    std::string arch;
    std::string family;
    std::string model;

    bool operator==(const TensorTypeRule&) const = default;
};

// A publisher's plain-named file made by one of its recipes, for the models of its repos that
// the scope names (`arch`, and within it `family` or `model`, as a TensorTypeRule's): the file
// named `file_type` ("Q4_K_M") is typed by the quants.json entry `recipe` (its `tensors` and
// `imatrix`, copied here by the loader); `source` is what shows it (the file's published size).
struct PlainFileRecipe {
    std::string file_type;
    std::string recipe;
    std::string arch;
    std::string family;
    std::string model;
    std::vector<TensorTypeRule> tensors;
    bool imatrix = false;
    std::string source;

    bool operator==(const PlainFileRecipe&) const = default;
};

struct Quant {
    std::string id;  // "Q4_K_M"
    std::string name;
    std::vector<std::string> aliases;
    std::uint64_t bpw_e4 = 0;  // effective bits per weight x 10^4
    // A checkpoint format's bits per weight in its quantized Linear layers (the embeddings and
    // norms stay BF16), x 10^4: vLLM's weights for any model. 0: bpw_e4 everywhere.
    std::uint64_t linear_bpw_e4 = 0;
    std::uint64_t quality_rank = 0;  // 1 = best
    bool recommended = false;        // the default a user should download
    bool page_table = false;         // one of the rows the reference page shows
    bool page_matrix = false;        // one of the rows of the quant x context matrix
    std::string requires_backend;    // "cuda" for NVFP4; empty = runs everywhere
    std::string format;              // "gguf", "safetensors", ...
    // A published file recipe (bartowski's Q4_K_L): llama-quantize's file type `recipe_base`
    // ("Q4_K_M"), with an importance matrix or not, and the tensors of `recipe_tensors` typed as
    // they say. An empty base: the id is itself a llama-quantize file type.
    std::string recipe_base;
    bool recipe_imatrix = false;
    std::vector<TensorTypeRule> recipe_tensors;
    // The Hub organisation whose files follow the recipe ("bartowski", "unsloth"): a model's
    // GGUF repo of another publisher does not hold such a file.
    std::string recipe_publisher;
    // A GGUF file's own quantization (gguf_file_quant): the llama-quantize file type it was
    // written as ("Q4_K_M", its general.file_type), else its largest tensors' type in capitals
    // ("Q4_K"); its speed family (quant_family) is this type's, as a database quantization's is
    // its id's. Empty for the database's quantizations.
    std::string file_type;
    std::string derivation;
    std::string source;

    bool operator==(const Quant&) const = default;
};

}  // namespace canitrun
