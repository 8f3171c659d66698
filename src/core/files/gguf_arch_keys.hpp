#pragma once
// A GGUF header's `<arch>.*` keys, read by the parts of gguf_to_model. Private to src/core/files.

#include <cstdint>
#include <optional>
#include <string>

#include "canitrun/gguf.hpp"
#include "canitrun/model.hpp"

namespace canitrun {

// The first part's `<arch>.*` keys.
struct GgufArchKeys {
    const GgufFile& file;
    std::string prefix;  // "<arch>."
    std::optional<std::uint64_t> uint(const std::string& key) const {
        return file.get_uint(prefix + key);
    }
    std::uint64_t uint_or(const std::string& key, std::uint64_t d) const {
        return uint(key).value_or(d);
    }
    const GgufValue* find(const std::string& key) const { return file.find(prefix + key); }
};

// The routed and shared experts the header declares (nullopt: a dense model).
std::optional<MoE> read_gguf_moe(const GgufArchKeys& keys, std::uint64_t n_layer);

}  // namespace canitrun
