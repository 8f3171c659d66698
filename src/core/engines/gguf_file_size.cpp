#include "canitrun/gguf_file_size.hpp"

#include <vector>

#include "canitrun/llamacpp_engine.hpp"

// The layout of a GGUF file: ggml/docs/gguf.md (ggml-org/ggml) and gguf_write_to_buf in
// ggml/src/gguf.cpp: the header (magic, version, tensor count, metadata count), the metadata
// key-value pairs, one tensor info per tensor (name as a u64 length and its bytes, u32 n_dims,
// n_dims u64 extents, u32 type, u64 offset), padding to the alignment, then each tensor's data
// at an offset that is a multiple of the alignment.

namespace canitrun {
namespace {

constexpr Bytes kAlignment = 32;        // GGUF_DEFAULT_ALIGNMENT
constexpr Bytes kFixedHeader = 24;      // magic u32, version u32, tensor_count u64, kv_count u64
constexpr Bytes kPerTokenAtLeast = 12;  // tokenizer.ggml.tokens: u64 length; token_type: i32

Bytes aligned(Bytes n) {
    return checked::mul((checked::add(n, kAlignment - 1)) / kAlignment, kAlignment);
}

Bytes tensor_info_bytes(const TensorInfo& t) {
    const Bytes name = checked::add(8, t.name.size());
    return checked::add(checked::add(name, 4 + 4 + 8), checked::mul(8, t.n_dims));
}

Result<std::vector<Bytes>> typed(const Model& model, const QuantizeRequest& request) {
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    return quantize_bytes(*prepared, request);
}

}  // namespace

Result<Bytes> gguf_tensor_bytes(const Model& model, const QuantizeRequest& request) {
    CANITRUN_TRY_ASSIGN(const auto bytes, typed(model, request));
    return catch_overflow(
        [&]() -> Result<Bytes> {
            Bytes sum = 0;
            for (const Bytes b : bytes) sum = checked::add(sum, b);
            return sum;
        },
        [&] { return overflow_error("the tensors of " + model.id); });
}

Result<Bytes> gguf_file_bytes(const Model& model, const QuantizeRequest& request) {
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    CANITRUN_TRY_ASSIGN(const auto bytes, quantize_bytes(*prepared, request));
    return catch_overflow(
        [&]() -> Result<Bytes> {
            Bytes header =
                checked::add(kFixedHeader, checked::mul(model.arch.vocab_size, kPerTokenAtLeast));
            Bytes data = 0;
            for (std::size_t i = 0; i < bytes.size(); ++i) {
                header = checked::add(header, tensor_info_bytes(prepared->layout.tensors[i]));
                data = checked::add(data, aligned(bytes[i]));
            }
            return checked::add(aligned(header), data);
        },
        [&] { return overflow_error("the file size of " + model.id); });
}

}  // namespace canitrun
