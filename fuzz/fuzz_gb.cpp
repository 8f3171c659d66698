// Fuzzes parse_gb (--vram, --ram, --min-vram): any text is an error or 1 byte .. 10^6 GB.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "canitrun/parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto bytes = canitrun::parse_gb(text);
    constexpr std::uint64_t kMaxBytes = 1000000ULL * 1000000000ULL;
    if (bytes && (*bytes == 0 || *bytes > kMaxBytes)) std::abort();
    if (!bytes && bytes.error().message.empty()) std::abort();
    return 0;
}
