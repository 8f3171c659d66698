#pragma once
// A small GGUF writer for tests and tools: typed metadata (every GGUF value type, arrays too)
// and tensor infos in, header bytes out; or a file whose data section is a hole (sparse), so a
// "100 GB" model costs a few kilobytes of disk. Layout per ggml/docs/gguf.md.

#include <cstdint>
#include <string>
#include <vector>

namespace canitrun::test {

class GgufWriter {
  public:
    explicit GgufWriter(std::uint32_t version = 3) : version_(version) {}

    // Scalars (GGUF value types 0..12).
    void u8(const std::string& key, std::uint8_t v);
    void i8(const std::string& key, std::int8_t v);
    void u16(const std::string& key, std::uint16_t v);
    void i16(const std::string& key, std::int16_t v);
    void u32(const std::string& key, std::uint32_t v);
    void i32(const std::string& key, std::int32_t v);
    void f32(const std::string& key, float v);
    void boolean(const std::string& key, bool v);
    void str(const std::string& key, const std::string& v);
    void u64(const std::string& key, std::uint64_t v);
    void i64(const std::string& key, std::int64_t v);
    void f64(const std::string& key, double v);
    // Arrays.
    void u32_array(const std::string& key, const std::vector<std::uint32_t>& v);
    void u64_array(const std::string& key, const std::vector<std::uint64_t>& v);
    void i32_array(const std::string& key, const std::vector<std::int32_t>& v);
    void f32_array(const std::string& key, const std::vector<float>& v);
    void bool_array(const std::string& key, const std::vector<bool>& v);
    void str_array(const std::string& key, const std::vector<std::string>& v);
    // Any value: its type id and the encoded payload (for corrupt variants).
    void raw(const std::string& key, std::uint32_t type, const std::string& payload);

    // A tensor; offsets follow each other, each aligned. `offset` forces one (corrupt tests).
    void tensor(const std::string& name, const std::vector<std::uint64_t>& dims,
                std::uint32_t ggml_type);
    void tensor_at(const std::string& name, const std::vector<std::uint64_t>& dims,
                   std::uint32_t ggml_type, std::uint64_t offset);

    void alignment(std::uint32_t a);  // also writes general.alignment
    void magic(const std::string& m) { magic_ = m; }
    void kv_count_override(std::uint64_t n) {
        kv_count_override_ = n;
        has_kv_override_ = true;
    }

    // Header bytes up to the start of the data section (padded to the alignment).
    std::string header() const;
    // Bytes of the data section (every tensor, each padded to the alignment).
    std::uint64_t data_size() const;
    // Header plus a zero-filled data section: a complete small file in memory.
    std::string bytes() const;
    // Writes the header and extends the file to its full size with ftruncate (a hole).
    void write_sparse_file(const std::string& path) const;

    // Encoders for payloads.
    static std::string le32(std::uint32_t v);
    static std::string le64(std::uint64_t v);
    static std::string gguf_string(const std::string& s);

  private:
    struct Tensor {
        std::string name;
        std::vector<std::uint64_t> dims;
        std::uint32_t type = 0;
        std::uint64_t offset = 0;
    };
    std::uint32_t version_;
    std::string magic_ = "GGUF";
    std::uint64_t alignment_ = 32;
    std::vector<std::string> kvs_;  // encoded key + type + value
    std::vector<Tensor> tensors_;
    std::uint64_t next_offset_ = 0;
    std::uint64_t kv_count_override_ = 0;
    bool has_kv_override_ = false;
};

// Bytes of a tensor of this ggml type and shape (from canitrun's ggml table).
std::uint64_t ggml_tensor_bytes(std::uint32_t type, const std::vector<std::uint64_t>& dims);

// Llama 3.1 8B's metadata with two tensors: token_embd q4_K (4096 x 128256) and an f32
// output_norm; the tests' usual small model (its tensors: kSmallLlamaTensorBytes).
GgufWriter small_llama_writer(const std::string& name = "Test Llama");
// token_embd: 128256 rows x 16 q4_K blocks x 144 bytes; output_norm: 4096 x 4.
inline constexpr std::uint64_t kSmallLlamaTensorBytes = 128256ULL * 16 * 144 + 4096ULL * 4;

}  // namespace canitrun::test
