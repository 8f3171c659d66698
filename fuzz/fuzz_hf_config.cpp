// Fuzzes the Hugging Face config.json reader: any text is a model or a clear error.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "canitrun/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto model = canitrun::parse_hf_config(text, "fuzz");
    if (!model && model.error().message.empty()) std::abort();
    (void)canitrun::params_from_safetensors_header(text);
    return 0;
}
