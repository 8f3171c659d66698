// Fuzzes the llama.cpp log parser and verify on top of it: any text is a report or a clear error.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "canitrun/llama_log.hpp"
#include "canitrun/verify.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto log = canitrun::parse_llama_log(text);
    if (!log) {
        if (log.error().message.empty()) std::abort();
        return 0;
    }
    (void)canitrun::verify_llama_log(*log, std::nullopt);
    return 0;
}
