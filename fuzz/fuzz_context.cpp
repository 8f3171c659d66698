// Fuzzes parse_context (--ctx): any text is an error or a context in 1..2^30 tokens.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "canitrun/parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto tokens = canitrun::parse_context(text);
    if (tokens && (*tokens == 0 || *tokens > canitrun::kMaxContext)) std::abort();
    if (!tokens && tokens.error().message.empty()) std::abort();
    return 0;
}
