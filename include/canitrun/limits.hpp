#pragma once
// Bounds on architecture numbers read from outside: the JSON database and config.json (the GGUF
// reader bounds its own counts and lengths as it reads, gguf.hpp). No real model comes near them;
// past them the arithmetic would only mislead, and a loop over layers must never be asked to run
// 10^18 times.

#include <cstdint>

namespace canitrun {

inline constexpr std::uint64_t kMaxDim = 1000000;  // hidden sizes, head dims, state sizes
inline constexpr std::uint64_t kMaxVocab = 10000000;
inline constexpr std::uint64_t kMaxLayers = 10000;
inline constexpr std::uint64_t kMaxExperts = 100000;
inline constexpr std::uint64_t kMaxParams = 100000000000000ULL;  // 100T
inline constexpr std::uint64_t kMaxHyperConnections = 64;        // residual streams (hc_mult)

}  // namespace canitrun
