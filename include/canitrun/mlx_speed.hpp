#pragma once
// exo runs MLX on every Mac of its ring, so an exo plan is timed from published MLX runs
// (validation/mlx.json, embedded in the binary), never from llama.cpp's fitted speed model.
// Each run's decode reads its model's active weights at MLX's rate, the output head and the KV
// cache of its prompt; those bytes times its tokens/s over its chip's bandwidth are the share
// of the bandwidth MLX reached. A slice of layers on a chip is timed at that chip's bandwidth
// times the middle of the shares its runs reached, the lowest and highest bounding the band. A
// chip (generation and tier: M3 Ultra, M2 Pro) with no run gets no figure. Pure: no I/O.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"
#include "canitrun/hardware.hpp"
#include "canitrun/model_parts.hpp"
#include "canitrun/quant.hpp"

namespace canitrun {

struct MlxRun {
    std::string model;     // as the source names it
    std::string model_id;  // model_id, else nearest_model_id (a relative: the same tensors)
    bool exact_model = false;
    std::uint64_t bits = 4;  // 4 or 8: MLX's affine quantization; 16: bf16
    std::string gpu_id;
    std::uint64_t prompt_tokens = 0;  // 0: the source does not say (a short prompt)
    double tokens_per_second = 0;
    std::string engine, date, source, quote, note;
};

Result<std::vector<MlxRun>> parse_mlx_runs(std::string_view json_text);

// validation/mlx.json as the build embedded it: the file's text (cmake/EmbedFiles.cmake), and
// its rows, parsed on first use.
const DatabaseFiles& embedded_mlx_files();
const std::vector<MlxRun>& embedded_mlx_runs();

// MLX's weights at `bits`: mlx.core.quantize's affine mode stores a scale and a bias in the
// weights' 16-bit type per group of 64 (its defaults), bits + 2 x 16 / 64 per weight (4.5 for
// mlx-community's 4bit, 8.5 for 8bit); 16 is bf16. mlx-lm quantizes every Linear and Embedding
// (nn.quantize); the norms stay 16-bit and are left out.
Quant mlx_quant(std::uint64_t bits);

// The output head one decode token reads under MLX: vocabulary x hidden weights at the
// quantization, once, whether or not the head is tied to the embeddings. mlx-lm runs a tied
// head as embed_tokens.as_linear (its models, llama.py and qwen3.py alike: `if
// self.args.tie_word_embeddings: out = self.model.embed_tokens.as_linear(out)`), the whole
// quantized embedding matrix read per token where the lookup reads one row, so the head costs the
// same read as an untied one. ModelParts' output_weights is 0 for a tied model (the memory is
// token_embd's): counting it left a tied model's head out of the read, and its runs' shares low
// (Llama 3.2 3B: 394M of 3.21B weights).
Bytes mlx_head_bytes(const Model& model, const Quant& quant);

// What one decode token reads from layers [first, first + count) of the parts: the layers'
// active weights, KV cache and recurrent state, and `head` (mlx_head_bytes, or 0 on a machine
// that does not hold the head).
Bytes decode_read_bytes(const ModelParts& parts, std::uint64_t first, std::uint64_t count,
                        Bytes head);

// One published run's bandwidth share, on the chip it ran on.
struct MlxShare {
    int chip = 0;  // apple_chip() of its GPU
    double share = 0;
    const MlxRun* run = nullptr;
};

// The share of each run whose model and GPU the database has (in the file's order).
Result<std::vector<MlxShare>> mlx_shares(const Database& db, const std::vector<MlxRun>& runs);

// The shares the runs on this device's chip reached, lowest first; empty: none on record.
std::vector<double> mlx_shares_for(const std::vector<MlxShare>& all, const GpuDevice& device);

}  // namespace canitrun
