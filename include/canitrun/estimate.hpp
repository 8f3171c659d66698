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
};

enum class Device { gpu, cpu };

struct Term {
    std::string name;  // "weights", "kv_cache", "overhead"
    Bytes bytes = 0;
    Device device = Device::gpu;
};

struct Estimate {
    std::vector<Term> terms;
    Bytes term(const std::string& name) const;  // 0 when absent
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
