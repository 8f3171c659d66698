#pragma once
// GGUF header reader: metadata key/values and tensor infos of a GGUF v2 or v3 file, never the
// tensor data. The reader takes a ByteSource, so tests feed bytes from memory and the CLI a file
// (file_source.hpp). Every count and length is bounded before anything is allocated and every
// tensor is checked against the file's size: a corrupt or truncated file is an Error, not a crash.
// Format: ggml/docs/gguf.md and ggml/src/gguf.cpp (llama.cpp 0ad4a86).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"

namespace canitrun {

// Where the bytes come from. read() returns exactly `length` bytes or an Error.
class ByteSource {
  public:
    virtual ~ByteSource() = default;
    virtual std::uint64_t size() const = 0;
    Result<std::string> read(std::uint64_t offset, std::uint64_t length) const;
    // Total bytes handed out by read() so far: the header of a 100 GB file costs kilobytes.
    std::uint64_t bytes_read() const { return bytes_read_; }
    virtual std::string name() const = 0;  // for error messages
    // The reader's forecast: it will read about `bytes` bytes from `offset` on, in order (a
    // long array of strings). A source that fetches in blocks sizes its next one by it; the
    // default ignores it.
    virtual void expect(std::uint64_t offset, std::uint64_t bytes) const {
        (void)offset;
        (void)bytes;
    }

  protected:
    virtual Result<std::string> do_read(std::uint64_t offset, std::uint64_t length) const = 0;

  private:
    mutable std::uint64_t bytes_read_ = 0;
};

// Bytes held in memory (tests, and anything already loaded).
class MemorySource final : public ByteSource {
  public:
    explicit MemorySource(std::string bytes, std::string name = "<memory>")
        : bytes_(std::move(bytes)), name_(std::move(name)) {}
    std::uint64_t size() const override { return bytes_.size(); }
    std::string name() const override { return name_; }

  protected:
    Result<std::string> do_read(std::uint64_t offset, std::uint64_t length) const override;

  private:
    std::string bytes_;
    std::string name_;
};

// GGUF value types (enum gguf_type).
enum class GgufType : std::uint32_t {
    u8 = 0,
    i8 = 1,
    u16 = 2,
    i16 = 3,
    u32 = 4,
    i32 = 5,
    f32 = 6,
    boolean = 7,
    string = 8,
    array = 9,
    u64 = 10,
    i64 = 11,
    f64 = 12,
};
const char* gguf_type_name(GgufType type);

// Limits the reader enforces before allocating (a real file stays far below them).
inline constexpr std::uint64_t kGgufMaxString = 1ULL << 20;  // 1 MiB per string
inline constexpr std::uint64_t kGgufMaxKv = 1ULL << 20;      // key/value pairs
inline constexpr std::uint64_t kGgufMaxTensors = 1ULL << 20;
inline constexpr std::uint32_t kGgufMaxDims = 4;  // GGML_MAX_DIMS
// GGML_MAX_NAME (ggml.h) less its NUL: gguf.cpp's gguf_init_from_file_impl refuses a tensor
// name of GGML_MAX_NAME bytes or more ("tensor name ... is too long").
inline constexpr std::size_t kGgufMaxTensorName = 63;
// Arrays longer than these are counted and skipped, not stored (a 256k-token vocabulary).
inline constexpr std::uint64_t kGgufMaxStoredNumbers = 1ULL << 16;
inline constexpr std::uint64_t kGgufMaxStoredStrings = 1024;
// What one model's headers may hold in memory, all parts together: keys, stored values, tensor
// names and the records themselves. A real header holds well under 1 MiB (long arrays are not
// stored); 1 GiB of short strings once cost 1 GB of memory.
inline constexpr std::uint64_t kGgufMaxHeld = 64ULL << 20;

// One metadata value. Scalars fill one of u / i / f / s (booleans in u); arrays fill the
// vectors (of their element kind) when short enough, else only `length`.
struct GgufValue {
    GgufType type = GgufType::u32;
    std::uint64_t u = 0;
    std::int64_t i = 0;
    double f = 0;
    std::string s;
    GgufType element_type = GgufType::u32;  // arrays
    std::uint64_t length = 0;               // arrays
    bool stored = false;                    // arrays: the elements below are present
    std::vector<std::uint64_t> uints;       // unsigned and bool elements
    std::vector<std::int64_t> ints;         // signed elements
    std::vector<double> floats;
    std::vector<std::string> strings;

    // A non-negative integer scalar (any integer type or bool); nullopt for anything else.
    std::optional<std::uint64_t> as_uint() const;
    // Element k of a stored integer array as an unsigned value (negative -> nullopt).
    std::optional<std::uint64_t> uint_at(std::uint64_t k) const;
};

struct GgufKv {
    std::string key;
    GgufValue value;
};

struct GgufTensor {
    std::string name;
    std::vector<std::uint64_t> dims;  // ne[0] first (the row length)
    std::uint32_t type = 0;           // ggml type id
    std::uint64_t offset = 0;         // from the start of the data section
    Bytes bytes = 0;                  // exact size from type and shape
    std::uint64_t elements() const;
};

struct GgufFile {
    std::uint32_t version = 3;
    std::uint64_t alignment = 32;
    std::uint64_t data_offset = 0;  // where the data section starts
    std::uint64_t file_size = 0;
    std::vector<GgufKv> metadata;
    std::vector<GgufTensor> tensors;
    std::uint64_t held_bytes = 0;  // what the reader counted against its budget

    const GgufValue* find(const std::string& key) const;
    std::optional<std::uint64_t> get_uint(const std::string& key) const;
    std::optional<std::string> get_string(const std::string& key) const;
    Bytes tensor_bytes() const;  // sum over tensors
};

// Reads and checks the header. Errors: bad magic, unsupported version, counts or lengths beyond
// the limits or the file, unknown ggml type, bad shape, tensor data past the end of the file,
// more than `max_held` bytes held (the rest of a split model's budget: kGgufMaxHeld less what
// the parts before it hold).
Result<GgufFile> read_gguf(const ByteSource& source, std::uint64_t max_held = kGgufMaxHeld);

}  // namespace canitrun
