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

// The sums alone (what the llama.cpp profile reads from a file).
Result<LlamaCppOptions::FileTensors> file_tensor_sums(const std::vector<FileTensor>& tensors);

// The file's weights for `model` (the model read from the same file).
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
