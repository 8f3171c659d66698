// Fuzzes parse_kv_type (--kv-type): any text is an error or one of the listed types.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "canitrun/kv_cache.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto type = canitrun::parse_kv_type(text);
    if (type && canitrun::kv_type_names().find(type->id) == std::string::npos) std::abort();
    if (!type && type.error().message.empty()) std::abort();
    return 0;
}
