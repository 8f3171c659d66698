#pragma once
// llama-quantize's choice of a ggml type for each tensor of a model, for a llama.cpp file type
// (Q4_K_M, Q8_0, ...), as llama_tensor_get_type / llama_tensor_get_type_impl /
// tensor_type_fallback in src/llama-quant.cpp do it at llama.cpp 0ad4a86 (their imatrix
// branches where the file had one; a recipe's --tensor-type overrides). Pure: no I/O.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"
#include "canitrun/ggml_type.hpp"
#include "canitrun/quant.hpp"
#include "canitrun/tensor_layout.hpp"

namespace canitrun {

struct TypedTensor {
    TensorInfo tensor;
    GgmlType type;
    Bytes bytes = 0;
};

// The file types the rules are implemented for, by our quantization ids ("Q4_K_M", "FP16",
// "MXFP4", ...); false for formats llama.cpp does not write (NVFP4, EXL2, AWQ, ...).
bool is_llama_file_type(const std::string& quant_id);

// The file type a GGUF file's general.file_type names (its number in llama.h's enum llama_ftype
// at 5b4ebc5: 15 is LLAMA_FTYPE_MOSTLY_Q4_K_M), by our quantization id ("Q4_K_M"); "" for a
// number no file type above has (4, Q4_1_SOME_F16, long removed; 1024, LLAMA_FTYPE_GUESSED).
std::string file_type_of_llama_ftype(std::uint64_t ftype);

// What llama-quantize is asked for to write a quantization's files: the file type, whether an
// importance matrix was given (nullopt: as the layout's model's publisher makes its files,
// TensorLayout::imatrix, and always where the type requires one), and the tensors typed by
// hand. A recipe (bartowski's Q4_K_L) is its base file type with its tensor rules.
struct QuantizeRequest {
    std::string file_type;
    std::optional<bool> imatrix;
    std::vector<TensorTypeRule> tensor_types;
};
QuantizeRequest quantize_request(const Quant& quant);
// The recipe the layout's publisher makes its plain-named `file_type` file by
// (TensorLayout::plain_recipes whose scope holds for the layout), or null: a plain request is
// typed by it (Unsloth's Qwen 3.5 MoE Q4_K_M by UD-Q4_K_M's rules).
const PlainFileRecipe* published_recipe(const TensorLayout& layout, std::string_view file_type);
// The request a weights floor is taken over (device_weights_lower_bound): a plain file type
// with the rules of every recipe the model's publisher names by it (RunInfo::gguf_plain_recipes,
// whatever their scope: a floor over more rules can only fall, so it stays a floor).
QuantizeRequest floor_request(const std::vector<PlainFileRecipe>& plain_recipes,
                              const Quant& quant);

// A quantization llama-quantize writes: a file type, or a recipe over one.
bool is_llama_file_type(const Quant& quant);

// Every tensor of the layout with its type and size, in llama-quantize's processing order
// (token_embd / output first, then by layer, then by name). `imatrix`: whether the file was
// made with an importance matrix; by default where the layout's publisher uses one
// (TensorLayout::imatrix) and for the types that require one (IQ1_*, IQ2_*, IQ3_XXS, IQ3_XS,
// Q2_K_S).
Result<std::vector<TypedTensor>> quantize_tensors(const TensorLayout& layout,
                                                  const std::string& quant_id,
                                                  std::optional<bool> imatrix = std::nullopt);
Result<std::vector<TypedTensor>> quantize_tensors(const TensorLayout& layout,
                                                  const QuantizeRequest& request);

// A layout made ready for the rules once: llama-quantize's processing order and each tensor's
// category, so that typing it at many file types (a search over quantizations) costs one pass
// each instead of a sort and a name scan.
struct PreparedLayout {
    // kI32: DeepSeek V4's token-id routing table, which the converter writes as i32
    enum Kind : std::uint8_t { kF32, kQuantized, kKeepsMxfp4, kKeeps16, kI32 };
    TensorLayout layout;
    std::vector<std::size_t> order;   // indices into layout.tensors
    std::vector<int> category;        // per order entry (the rules' own codes)
    std::vector<Kind> kind;           // per order entry
    std::vector<bool> routed_expert;  // per tensor (layout order): ffn_*_exps, which
                                      // --n-cpu-moe and -ot exps=CPU move to RAM
    std::vector<bool> host_input;     // per tensor (layout order): llama_host_input_tensor
    // Elements of the tensors outside the host inputs (what GPUs hold with every layer), by
    // kind; the snapshot keeps every database model's (Database::device_elements).
    std::array<std::uint64_t, 5> device_elements{};
    int n_attention_wv = 0;
    bool tied = true;
};
PreparedLayout prepare_layout(TensorLayout layout);

// Each tensor's bytes at the file type, indexed like layout.tensors.
Result<std::vector<Bytes>> quantize_bytes(const PreparedLayout& prepared,
                                          const std::string& quant_id,
                                          std::optional<bool> imatrix = std::nullopt);
Result<std::vector<Bytes>> quantize_bytes(const PreparedLayout& prepared,
                                          const QuantizeRequest& request);

// A floor under the bytes of every tensor but the host inputs at the file type: what the GPUs
// hold when they hold every layer. It costs no pass over the tensors, so a search over
// quantizations skips the types that cannot fit before typing any tensor.
Result<Bytes> device_weights_lower_bound(const PreparedLayout& prepared,
                                         const std::string& quant_id);
// The same from the layout's device_elements alone (all the floor reads of it).
Result<Bytes> device_weights_lower_bound(const std::array<std::uint64_t, 5>& device_elements,
                                         const QuantizeRequest& request);
inline Result<Bytes> device_weights_lower_bound(const PreparedLayout& prepared,
                                                const QuantizeRequest& request) {
    return device_weights_lower_bound(prepared.device_elements, request);
}

// Sum of the tensors' bytes.
Bytes tensor_bytes(const std::vector<TypedTensor>& tensors);

}  // namespace canitrun
