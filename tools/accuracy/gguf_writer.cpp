#include "gguf_writer.hpp"

#include <cstdio>
#include <cstring>
#include <memory>

namespace canitrun::tools {
namespace {

constexpr std::uint64_t kAlignment = 32;
// gguf_type values (ggml/include/gguf.h)
constexpr std::uint32_t kUint32 = 4;
constexpr std::uint32_t kInt32 = 5;
constexpr std::uint32_t kFloat32 = 6;
constexpr std::uint32_t kBool = 7;
constexpr std::uint32_t kString = 8;
constexpr std::uint32_t kArray = 9;

template <typename T>
void put(std::vector<std::uint8_t>& out, T value) {
    std::uint8_t bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.insert(out.end(), bytes, bytes + sizeof(T));
}

void put_string(std::vector<std::uint8_t>& out, const std::string& s) {
    put<std::uint64_t>(out, s.size());
    out.insert(out.end(), s.begin(), s.end());
}

std::uint64_t align(std::uint64_t n) {
    return (n + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace

void GgufWriter::add_string(const std::string& key, const std::string& value) {
    put_string(kv_, key);
    put<std::uint32_t>(kv_, kString);
    put_string(kv_, value);
    ++n_kv_;
}

void GgufWriter::add_u32(const std::string& key, std::uint32_t value) {
    put_string(kv_, key);
    put<std::uint32_t>(kv_, kUint32);
    put<std::uint32_t>(kv_, value);
    ++n_kv_;
}

void GgufWriter::add_f32(const std::string& key, float value) {
    put_string(kv_, key);
    put<std::uint32_t>(kv_, kFloat32);
    put<float>(kv_, value);
    ++n_kv_;
}

void GgufWriter::add_bool(const std::string& key, bool value) {
    put_string(kv_, key);
    put<std::uint32_t>(kv_, kBool);
    put<std::uint8_t>(kv_, value ? 1 : 0);
    ++n_kv_;
}

void GgufWriter::add_i32_array(const std::string& key, const std::vector<std::int32_t>& values) {
    put_string(kv_, key);
    put<std::uint32_t>(kv_, kArray);
    put<std::uint32_t>(kv_, kInt32);
    put<std::uint64_t>(kv_, values.size());
    for (const auto v : values) put<std::int32_t>(kv_, v);
    ++n_kv_;
}

void GgufWriter::add_u32_array(const std::string& key, const std::vector<std::uint32_t>& values) {
    put_string(kv_, key);
    put<std::uint32_t>(kv_, kArray);
    put<std::uint32_t>(kv_, kUint32);
    put<std::uint64_t>(kv_, values.size());
    for (const auto v : values) put<std::uint32_t>(kv_, v);
    ++n_kv_;
}

void GgufWriter::add_tensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                            std::uint32_t ggml_type, std::uint64_t bytes) {
    tensors_.push_back({name, ne, ggml_type, bytes});
}

bool GgufWriter::write(const std::string& path, std::string& error) const {
    std::vector<std::uint8_t> head;
    head.insert(head.end(), {'G', 'G', 'U', 'F'});
    put<std::uint32_t>(head, 3);
    put<std::uint64_t>(head, tensors_.size());
    put<std::uint64_t>(head, n_kv_);
    head.insert(head.end(), kv_.begin(), kv_.end());
    std::uint64_t offset = 0;
    for (const auto& t : tensors_) {
        put_string(head, t.name);
        put<std::uint32_t>(head, static_cast<std::uint32_t>(t.ne.size()));
        for (const auto d : t.ne) put<std::uint64_t>(head, d);
        put<std::uint32_t>(head, t.type);
        put<std::uint64_t>(head, offset);
        offset = align(offset + t.bytes);
    }
    head.resize(align(head.size()), 0);
    const std::uint64_t total = head.size() + offset;

    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!f) {
        error = "cannot create " + path;
        return false;
    }
    if (std::fwrite(head.data(), 1, head.size(), f.get()) != head.size()) {
        error = "cannot write " + path;
        return false;
    }
    // The data: a hole up to the last byte, so the file has its full size but no blocks.
    if (total > head.size()) {
        if (fseeko(f.get(), static_cast<off_t>(total - 1), SEEK_SET) != 0 ||
            std::fputc(0, f.get()) == EOF) {
            error = "cannot extend " + path;
            return false;
        }
    }
    return true;
}

}  // namespace canitrun::tools
