#pragma once
// The one check every JSON document from outside passes before it is parsed (config.json, the
// Hub's listings, Ollama manifests, safetensors headers, --data files, llama-bench output):
// its size, its nesting depth and its number of values. A parsed value costs tens of bytes
// however short its text ("[]," is 3 bytes and a vector): a 60 MiB config.json of nested
// arrays once took 4.6 GB. Within these bounds the parse stays under a few hundred MiB.

#include <cstdint>
#include <string_view>

#include "canitrun/error.hpp"

namespace canitrun {

struct JsonBounds {
    std::uint64_t max_bytes = 16ULL << 20;
    std::uint64_t max_depth = 64;  // real documents nest 2 to 6 deep
    // Counted as containers plus commas outside strings: never fewer than the values, at most
    // about twice as many ("[[],[]]" counts 4 for 3). A 2,000-file listing counts about 30,000.
    std::uint64_t max_values = 1 << 20;
};

// Refused (bad_input) past a bound, naming `what` ("config.json") and the bound. The text need
// not be valid JSON: the parser that follows says what is wrong with it.
Result<bool> check_json_bounds(std::string_view text, std::string_view what,
                               const JsonBounds& bounds = {});

}  // namespace canitrun
