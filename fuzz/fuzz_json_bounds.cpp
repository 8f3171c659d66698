// Fuzzes the JSON bounds (issue #39) and the readers they guard that have no target of their
// own: the Hub's listing and Ollama manifests. Any text is a value or a clear error; a
// document within tight bounds is within the default ones.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "canitrun/json_bounds.hpp"
#include "canitrun/remote_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto tight = canitrun::check_json_bounds(
        text, "fuzz", canitrun::JsonBounds{.max_bytes = 4096, .max_depth = 4, .max_values = 64});
    const auto loose = canitrun::check_json_bounds(text, "fuzz");
    if (tight && !loose) std::abort();
    if (!tight && tight.error().message.empty()) std::abort();
    const auto files = canitrun::parse_hf_files(text);
    if (!files && files.error().message.empty()) std::abort();
    if (files) (void)canitrun::gguf_models(*files);
    const auto manifest = canitrun::parse_ollama_manifest(text);
    if (!manifest && manifest.error().message.empty()) std::abort();
    return 0;
}
