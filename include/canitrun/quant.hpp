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
    std::string derivation;
    std::string source;

    bool operator==(const Quant&) const = default;
};

}  // namespace canitrun
