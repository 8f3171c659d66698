#pragma once
// A minimal GGUF v3 writer for the accuracy harness: metadata key/values and tensor infos,
// then a data section of the right length left as a hole (a sparse file of zeros). Format:
// ggml/docs/gguf.md (header "GGUF", version 3, tensor count, kv count; kvs; tensor infos;
// alignment 32; data).

#include <cstdint>
#include <string>
#include <vector>

namespace canitrun::tools {

class GgufWriter {
  public:
    void add_string(const std::string& key, const std::string& value);
    void add_u32(const std::string& key, std::uint32_t value);
    void add_f32(const std::string& key, float value);
    void add_bool(const std::string& key, bool value);
    void add_i32_array(const std::string& key, const std::vector<std::int32_t>& values);
    void add_u32_array(const std::string& key, const std::vector<std::uint32_t>& values);
    // ne[0] is the row length; `bytes` the tensor's data size for its ggml type.
    void add_tensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                    std::uint32_t ggml_type, std::uint64_t bytes);
    // Writes the file; the data section is a hole. Returns false with `error` set on failure.
    bool write(const std::string& path, std::string& error) const;

  private:
    struct Tensor {
        std::string name;
        std::vector<std::uint64_t> ne;
        std::uint32_t type = 0;
        std::uint64_t bytes = 0;
    };
    std::vector<std::uint8_t> kv_;
    std::uint64_t n_kv_ = 0;
    std::vector<Tensor> tensors_;
};

}  // namespace canitrun::tools
