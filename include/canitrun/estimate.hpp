#pragma once
// The estimator: a model, a quantization and options in; a list of named terms out.
// Pure: no I/O, no printing, no rounding.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"

namespace canitrun {

inline constexpr std::uint64_t kDefaultContext = 8192;
inline constexpr std::uint64_t kDefaultOverheadPercent = 12;

struct EstimateOptions {
    std::uint64_t context = kDefaultContext;
    KvType kv_type;  // f16 when default-constructed
    // The reference page's rule: 12 % of weights + KV for activations and runtime buffers.
    std::uint64_t overhead_percent = kDefaultOverheadPercent;
    // Exact weight bytes (a GGUF file's tensors) instead of params x bits per weight.
    std::optional<Bytes> weights_bytes_override;

    bool operator==(const EstimateOptions&) const = default;
};

enum class Device { gpu, cpu };

// What a term of an estimate is. The quick rule has weights, kv_cache and overhead; llama.cpp's
// profile adds token_embd (in RAM), recurrent_state, compute, output (the logits) and runtime
// (the backend's own memory); vLLM's has activation_reserve; a file adds its mmproj; verify
// compares weights_llama_cpp (the tensors llama.cpp loads) and file_size with a log.
enum class TermKind {
    weights,
    token_embd,
    kv_cache,
    recurrent_state,
    overhead,
    compute,
    output,
    runtime,
    activation_reserve,
    mmproj,
    weights_llama_cpp,
    file_size,
    host_compute,  // the host's compute buffer beside GPUs (llamacpp_host_compute_bytes)
};

// The term's name in the output ("kv_cache"), as JSON, CSV and the tables print it.
const char* term_name(TermKind kind);

struct Term {
    TermKind kind = TermKind::weights;
    Bytes bytes = 0;
    Device device = Device::gpu;
};

struct Estimate {
    std::vector<Term> terms;
    Bytes term(TermKind kind) const;  // 0 when absent
    Bytes total() const;
    Bytes on(Device device) const;  // the terms that live on that device
    // The model's tensors wherever they live: "weights" and, under llama.cpp's rule, the
    // "token_embd" kept in RAM (the page's "Weights" column).
    Bytes tensor_bytes() const;
};

// weights = params x bits per weight / 8
Bytes weight_bytes(std::uint64_t params, const Quant& quant);

Result<Estimate> estimate(const Model& model, const Quant& quant, const EstimateOptions& options);

// The page's comparison: the same estimate if every layer used full attention.
Result<Estimate> estimate_all_attention(const Model& model, const Quant& quant,
                                        const EstimateOptions& options);

}  // namespace canitrun
