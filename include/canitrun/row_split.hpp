#pragma once
// llama.cpp's --split-mode row (-sm row), CUDA only, as llama.cpp allocates it (issue #32):
// - src/llama-model.cpp, load_tensors: the layers go to the GPUs by the split points exactly as
//   with -sm layer (get_layer_buft_list: upper_bound over the cumulative -ts), and so does each
//   layer's KV cache (src/llama-kv-cache.cpp: model.dev_layer(il)) and compute buffer. What
//   changes is each GPU's list of buffer types: make_gpu_buft_list starts it with the backend's
//   split buffer type (ggml_backend_split_buffer_type(dev_index, tensor_split)) under -sm row.
// - A weight takes the first buffer type of its layer's list that supports the op it is used in
//   (select_weight_buft over LLM_TENSOR_INFOS' op, src/llama-arch.cpp). CUDA's split buffer
//   supports GGML_OP_MUL_MAT over a 2-D weight only (ggml/src/ggml-cuda/ggml-cuda.cu,
//   ggml_backend_cuda_device_supports_op: "split buffers can only be used with
//   GGML_OP_MUL_MAT", and a->ne[2] > 1 || a->ne[3] > 1 is refused), and only where the layer's
//   GPU gets rows of it ("for small weight matrices the active device can end up without any
//   rows, don't use row split in those cases"). So the 2-D matrices of attention, dense and
//   shared FFNs, routers and the output head are cut by rows over every GPU; norms, biases and
//   the 3-D routed-expert tensors stay whole on the layer's GPU.
// - ggml_backend_cuda_split_buffer_init_tensor: device `id` holds rows [row_low, row_high)
//   (get_row_split: rows x the device's cumulative share, rounded down to get_row_rounding; the
//   last device to the end), plus, when a row is not a multiple of MATRIX_ROW_PADDING (512)
//   elements, the bytes of the missing elements ("pad last row to a multiple of 512 elements").
// - The shares (ggml_backend_cuda_split_buffer_type): -ts as given, cumulative and divided by
//   their sum, in float; without -ts ggml_cuda_info().default_tensor_split, by each device's
//   total memory.
// - get_row_rounding: the largest get_mmq_y_host(cc) of the devices with a share: 128 on NVIDIA
//   Volta and newer, 64 before (Pascal).
// Not counted: each GPU's partial products and copied activations (ggml_cuda_op_mul_mat takes
// them from the device's pool, which the runtime term carries where the backend has one), and
// with tied embeddings the output head's copy of token_embd (kept whole on its GPU). No
// published run measures -sm row, so a row plan carries no speed figure.

#include <cstdint>
#include <vector>

#include "canitrun/hardware.hpp"
#include "canitrun/model.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/quant.hpp"

namespace canitrun {

// The cumulative share of rows before each GPU (ggml_backend_cuda_split_buffer_type): of the
// split's proportions if given, else of each GPU's memory.
std::vector<float> row_shares(const Hardware& hardware, const std::vector<std::uint64_t>& split);

// get_row_rounding: 128 rows if any GPU with a share is Volta or newer, else 64.
std::uint64_t row_rounding(const Hardware& hardware, const std::vector<float>& shares);

struct RowRange {
    std::uint64_t low = 0;
    std::uint64_t high = 0;
    std::uint64_t rows() const { return high - low; }
};

// The rows of a matrix of `rows` rows that GPU `id` holds (get_row_split).
RowRange row_range(std::uint64_t rows, const std::vector<float>& shares, std::uint64_t rounding,
                   std::size_t id);

// The -sm row placement from `p` (the layered one), the -sm layer placement of every layer and the
// output head on the GPUs by the same split (`options`' runtime memory applies to a GPU that holds
// rows but no layer). An error where -sm row does not apply: fewer than two GPUs, a GPU that is not
// CUDA, or layers or experts in RAM.
Result<Placement> row_split_placement(const Model& model, const Quant& quant,
                                      const Hardware& hardware, const PlacementOptions& options,
                                      Placement p);

}  // namespace canitrun
