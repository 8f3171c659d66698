// Fuzzes the GGUF header reader and the model built from it: any bytes are a header or a clear
// error, never a crash, an overflow or a huge allocation (counts are bounded before use).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "canitrun/gguf.hpp"
#include "canitrun/gguf_model.hpp"
#include "canitrun/kv_cache.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const canitrun::MemorySource source(std::string(reinterpret_cast<const char*>(data), size));
    const auto file = canitrun::read_gguf(source);
    if (!file) {
        if (file.error().message.empty()) std::abort();
        return 0;
    }
    if (file->data_offset > file->file_size) std::abort();
    const auto model = canitrun::gguf_to_model({*file});
    if (model) {
        try {
            (void)canitrun::kv_cache_bytes(model->model, 4096, canitrun::KvType{});
            (void)canitrun::recurrent_state_bytes(model->model);
        } catch (const canitrun::OverflowError&) {
            // refused, not wrapped: fine
        }
    }
    return 0;
}
