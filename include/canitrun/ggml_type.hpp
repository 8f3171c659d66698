#pragma once
// ggml's tensor element types: the id a GGUF file stores, the name llama.cpp prints, and the
// block layout (`block_elements` values stored in `block_bytes` bytes). Every GGUF tensor size
// and every quantized weight figure is built from this one table.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "canitrun/checked.hpp"

namespace canitrun {

struct GgmlType {
    std::uint32_t id = 0;   // enum ggml_type value, as stored in GGUF tensor infos
    std::string_view name;  // llama.cpp's spelling: "f16", "q4_K", "iq2_xxs", ...
    std::uint64_t block_elements = 1;
    std::uint64_t block_bytes = 0;
};

// Every type a GGUF file may hold (ids 4, 5 and 31..33, 36..38 were removed from ggml).
std::span<const GgmlType> ggml_types();

std::optional<GgmlType> find_ggml_type(std::uint32_t id);
std::optional<GgmlType> find_ggml_type(std::string_view name);  // case-insensitive

// Bytes of a row of `elements` values; nullopt when the row is not a whole number of blocks
// (ggml refuses such tensors).
std::optional<Bytes> ggml_row_bytes(const GgmlType& type, std::uint64_t elements);

}  // namespace canitrun
