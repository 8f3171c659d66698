#pragma once
// A model file's own weights as the llama.cpp rule plans them: its tensors, each at the bytes
// the file holds, sorted into the planner's parts by the same rule the database's layouts go
// through (host inputs in RAM, each blk.N tensor in its layer, routed experts marked, the rest
// the output head). A file whose tensors equal a database model's at a quantization gets that
// model's parts to the byte, so the page, the GPU lists, --gpu, compare and local answer the
// same for both (#33).

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "canitrun/error.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/model.hpp"
#include "canitrun/model_parts.hpp"

namespace canitrun {

// One tensor of a file: its name, the bytes its type and shape take, its ggml type and shape
// (what the CPU's repack reads, cpu_repack.hpp, and what llama-quantize's rules type).
struct FileTensor {
    std::string name;
    Bytes bytes = 0;
    std::uint32_t type = 0;  // ggml type id
    std::uint32_t n_dims = 1;
    std::array<std::uint64_t, 4> ne{1, 1, 1, 1};
};

struct FileWeights {
    ModelParts parts;                   // the weight terms; no cache or buffer yet
    LlamaCppOptions::FileTensors sums;  // host inputs, token_embd, every other tensor
    std::vector<FileTensor> tensors;    // the file's, for what reads each (the CPU's repack)
};

// Whether a tensor of `model`'s file belongs to its multi-token-prediction blocks (blk.N with N
// from n_layer to n_layer + nextn_predict_layers - 1: Architecture::mtp_layers). The pinned
// llama.cpp marks them TENSOR_SKIP unless the model is loaded to draft with them (load_mtp:
// e.g. src/models/glm4-moe.cpp lines 38-40, qwen35.cpp line 38, deepseek2.cpp lines 65-66 at
// 0ad4a86), and llama_model_loader::create_tensor then allocates nothing for them ("model has
// unused tensor ... -- ignoring", llama-model-loader.cpp lines 1177-1186). They are in the
// file, so in its download and parameter count.
bool file_mtp_tensor(const Model& model, const std::string& name);

// The sums alone (what the llama.cpp profile reads from a file): the MTP blocks' apart.
Result<LlamaCppOptions::FileTensors> file_tensor_sums(const Model& model,
                                                      const std::vector<FileTensor>& tensors);

// The file's weights for `model` (the model read from the same file); the MTP blocks' tensors
// are in no part (sums.mtp holds them).
Result<std::shared_ptr<const FileWeights>> file_weights(const Model& model,
                                                        const std::vector<FileTensor>& tensors);

// The same tensors (names and shapes) typed as llama-quantize types them at `quant`: the file of
// that quantization made from the same model, as a database model's layout is typed. A repo's
// listing reads one header and plans its other files so. Errors: no llama.cpp layout for the
// model's architecture (its hyper-parameters feed the rules), a quantization llama-quantize does
// not write.
Result<std::vector<FileTensor>> retyped_file_tensors(const Model& model,
                                                     const std::vector<FileTensor>& tensors,
                                                     const Quant& quant);

}  // namespace canitrun
