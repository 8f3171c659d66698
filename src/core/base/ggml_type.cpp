#include "canitrun/ggml_type.hpp"

#include <array>

#include "canitrun/strings.hpp"

namespace canitrun {
namespace {

// Block sizes from the static_asserts in ggml/src/ggml-common.h and ids from enum ggml_type in
// ggml/include/ggml.h (llama.cpp 0ad4a86, as shipped in node-llama-cpp 3.22.1). QK_K = 256.
constexpr std::array<GgmlType, 35> kTypes = {{
    {0, "f32", 1, 4},
    {1, "f16", 1, 2},
    {2, "q4_0", 32, 18},       // half d + 16 bytes of
                               // nibbles
    {3, "q4_1", 32, 20},       // half d, half m + 16
    {6, "q5_0", 32, 22},       // half d + 4 bytes high bits + 16
    {7, "q5_1", 32, 24},       // half d, half m + 4 + 16
    {8, "q8_0", 32, 34},       // half d + 32 int8
    {9, "q8_1", 32, 36},       // half d, half s + 32 int8
    {10, "q2_K", 256, 84},     // 2 halves + QK_K/16 scales + QK_K/4 quants
    {11, "q3_K", 256, 110},    // half + QK_K/4 + QK_K/8 + 12 scale bytes
    {12, "q4_K", 256, 144},    // 2 halves + 12 scale bytes + QK_K/2
    {13, "q5_K", 256, 176},    // 2 halves + 12 + QK_K/2 + QK_K/8
    {14, "q6_K", 256, 210},    // half + QK_K/16 + 3*QK_K/4
    {15, "q8_K", 256, 292},    // float + QK_K + QK_K/16 int16 sums
    {16, "iq2_xxs", 256, 66},  // half + QK_K/8 uint16
    {17, "iq2_xs", 256, 74},   // half + QK_K/8 uint16 + QK_K/32
    {18, "iq3_xxs", 256, 98},  // half + 3*QK_K/8
    {19, "iq1_s", 256, 50},    // half + QK_K/8 + QK_K/16
    {20, "iq4_nl", 32, 18},    // half + 16
    {21, "iq3_s", 256, 110},   // half + 13*QK_K/32 + 4 scale bytes
    {22, "iq2_s", 256, 82},    // half + QK_K/4 + QK_K/16
    {23, "iq4_xs", 256, 136},  // half + uint16 + QK_K/64 + QK_K/2
    {24, "i8", 1, 1},
    {25, "i16", 1, 2},
    {26, "i32", 1, 4},
    {27, "i64", 1, 8},
    {28, "f64", 1, 8},
    {29, "iq1_m", 256, 56},  // QK_K/8 + QK_K/16 + QK_K/32
    {30, "bf16", 1, 2},
    {34, "tq1_0", 256, 54},  // half + QK_K/64 + (QK_K - 4*QK_K/64)/5
    {35, "tq2_0", 256, 66},  // half + QK_K/4
    {39, "mxfp4", 32, 17},   // e8m0 scale byte + 16
    {40, "nvfp4", 64, 36},   // 4 e4m3 sub-block scales + 32
    {41, "q1_0", 128, 18},   // half + QK1_0/8
    {42, "q2_0", 64, 18},    // half + QK2_0/4
}};

}  // namespace

std::span<const GgmlType> ggml_types() {
    return {kTypes.data(), kTypes.size()};
}

std::optional<GgmlType> find_ggml_type(std::uint32_t id) {
    for (const auto& t : kTypes) {
        if (t.id == id) return t;
    }
    return std::nullopt;
}

std::optional<GgmlType> find_ggml_type(std::string_view name) {
    // Without allocating: llama-quantize's rules look types up per tensor.
    for (const auto& t : kTypes) {
        if (equals_ignoring_case(t.name, name)) return t;
    }
    return std::nullopt;
}

std::optional<Bytes> ggml_row_bytes(const GgmlType& type, std::uint64_t elements) {
    if (elements % type.block_elements != 0) return std::nullopt;
    return checked::mul(elements / type.block_elements, type.block_bytes);
}

}  // namespace canitrun
