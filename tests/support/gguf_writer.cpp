#include "support/gguf_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "canitrun/ggml_type.hpp"

namespace canitrun::test {
namespace {

template <typename T>
std::string le(T v) {
    std::string out(sizeof(T), '\0');
    std::memcpy(out.data(), &v, sizeof(T));  // GGUF is little-endian, as every target here
    return out;
}

std::uint64_t pad(std::uint64_t n, std::uint64_t a) {
    return (n + a - 1) / a * a;
}

}  // namespace

std::string GgufWriter::le32(std::uint32_t v) {
    return le(v);
}
std::string GgufWriter::le64(std::uint64_t v) {
    return le(v);
}
std::string GgufWriter::gguf_string(const std::string& s) {
    return le64(s.size()) + s;
}

void GgufWriter::raw(const std::string& key, std::uint32_t type, const std::string& payload) {
    kvs_.push_back(gguf_string(key) + le32(type) + payload);
}

void GgufWriter::u8(const std::string& k, std::uint8_t v) {
    raw(k, 0, le(v));
}
void GgufWriter::i8(const std::string& k, std::int8_t v) {
    raw(k, 1, le(v));
}
void GgufWriter::u16(const std::string& k, std::uint16_t v) {
    raw(k, 2, le(v));
}
void GgufWriter::i16(const std::string& k, std::int16_t v) {
    raw(k, 3, le(v));
}
void GgufWriter::u32(const std::string& k, std::uint32_t v) {
    raw(k, 4, le(v));
}
void GgufWriter::i32(const std::string& k, std::int32_t v) {
    raw(k, 5, le(v));
}
void GgufWriter::f32(const std::string& k, float v) {
    raw(k, 6, le(v));
}
void GgufWriter::boolean(const std::string& k, bool v) {
    raw(k, 7, le(static_cast<std::uint8_t>(v ? 1 : 0)));
}
void GgufWriter::str(const std::string& k, const std::string& v) {
    raw(k, 8, gguf_string(v));
}
void GgufWriter::u64(const std::string& k, std::uint64_t v) {
    raw(k, 10, le(v));
}
void GgufWriter::i64(const std::string& k, std::int64_t v) {
    raw(k, 11, le(v));
}
void GgufWriter::f64(const std::string& k, double v) {
    raw(k, 12, le(v));
}

void GgufWriter::u32_array(const std::string& k, const std::vector<std::uint32_t>& v) {
    std::string p = le32(4) + le64(v.size());
    for (auto x : v) p += le(x);
    raw(k, 9, p);
}
void GgufWriter::u64_array(const std::string& k, const std::vector<std::uint64_t>& v) {
    std::string p = le32(10) + le64(v.size());
    for (auto x : v) p += le64(x);
    raw(k, 9, p);
}
void GgufWriter::i32_array(const std::string& k, const std::vector<std::int32_t>& v) {
    std::string p = le32(5) + le64(v.size());
    for (auto x : v) p += le(x);
    raw(k, 9, p);
}
void GgufWriter::f32_array(const std::string& k, const std::vector<float>& v) {
    std::string p = le32(6) + le64(v.size());
    for (auto x : v) p += le(x);
    raw(k, 9, p);
}
void GgufWriter::bool_array(const std::string& k, const std::vector<bool>& v) {
    std::string p = le32(7) + le64(v.size());
    for (bool x : v) p += le(static_cast<std::uint8_t>(x ? 1 : 0));
    raw(k, 9, p);
}
void GgufWriter::str_array(const std::string& k, const std::vector<std::string>& v) {
    std::string p = le32(8) + le64(v.size());
    for (const auto& x : v) p += gguf_string(x);
    raw(k, 9, p);
}

void GgufWriter::alignment(std::uint32_t a) {
    alignment_ = a;
    u32("general.alignment", a);
}

std::uint64_t ggml_tensor_bytes(std::uint32_t type, const std::vector<std::uint64_t>& dims) {
    const auto t = find_ggml_type(type);
    if (!t) return 0;  // unknown types (corrupt tests) take no room
    std::uint64_t rows = 1;
    for (std::size_t k = 1; k < dims.size(); ++k) rows *= dims[k];
    const std::uint64_t row = dims.empty() ? 1 : dims[0];
    return row / t->block_elements * t->block_bytes * rows;
}

void GgufWriter::tensor(const std::string& name, const std::vector<std::uint64_t>& dims,
                        std::uint32_t type) {
    tensor_at(name, dims, type, next_offset_);
}

void GgufWriter::tensor_at(const std::string& name, const std::vector<std::uint64_t>& dims,
                           std::uint32_t type, std::uint64_t offset) {
    tensors_.push_back({name, dims, type, offset});
    next_offset_ = pad(offset + ggml_tensor_bytes(type, dims), alignment_);
}

std::uint64_t GgufWriter::data_size() const {
    std::uint64_t end = 0;
    for (const auto& t : tensors_) {
        end = std::max(end, pad(t.offset + ggml_tensor_bytes(t.type, t.dims), alignment_));
    }
    return end;
}

std::string GgufWriter::header() const {
    std::string out = magic_ + le32(version_);
    out += le64(tensors_.size());
    out += le64(has_kv_override_ ? kv_count_override_ : kvs_.size());
    for (const auto& kv : kvs_) out += kv;
    for (const auto& t : tensors_) {
        out += gguf_string(t.name) + le32(static_cast<std::uint32_t>(t.dims.size()));
        for (auto d : t.dims) out += le64(d);
        out += le32(t.type) + le64(t.offset);
    }
    out.resize(pad(out.size(), alignment_), '\0');
    return out;
}

std::string GgufWriter::bytes() const {
    std::string out = header();
    out.resize(out.size() + data_size(), '\0');
    return out;
}

void GgufWriter::write_sparse_file(const std::string& path) const {
    const std::string h = header();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + path);
    const bool ok = ::write(fd, h.data(), h.size()) == static_cast<ssize_t>(h.size()) &&
                    ::ftruncate(fd, static_cast<off_t>(h.size() + data_size())) == 0;
    ::close(fd);
    if (!ok) throw std::runtime_error("cannot write " + path);
}

GgufWriter small_llama_writer(const std::string& name) {
    GgufWriter w;
    w.str("general.architecture", "llama");
    w.str("general.name", name);
    w.u32("llama.context_length", 131072);
    w.u32("llama.embedding_length", 4096);
    w.u32("llama.block_count", 32);
    w.u32("llama.attention.head_count", 32);
    w.u32("llama.attention.head_count_kv", 8);
    w.u32("llama.feed_forward_length", 14336);
    w.u32("llama.vocab_size", 128256);
    w.tensor("token_embd.weight", {4096, 128256}, 12);
    w.tensor("output_norm.weight", {4096}, 0);
    return w;
}

}  // namespace canitrun::test
