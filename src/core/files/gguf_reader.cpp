#include <bit>
#include <cstring>

#include "canitrun/ggml_type.hpp"
#include "canitrun/gguf.hpp"

namespace canitrun {
namespace {

constexpr std::uint64_t kChunk = 64ULL * 1024;
constexpr std::uint64_t kDefaultAlignment = 32;  // GGUF_DEFAULT_ALIGNMENT

std::unexpected<Error> corrupt(const ByteSource& src, const std::string& what) {
    return std::unexpected<Error>(Error{ErrorKind::bad_input,
                                        src.name() + ": not a valid GGUF file: " + what,
                                        "the file is corrupt or truncated; download it again"});
}

// Sequential little-endian reads through a 64 KiB window on the source.
class Cursor {
  public:
    Cursor(const ByteSource& src, std::uint64_t max_held) : src_(src), max_held_(max_held) {}
    std::uint64_t held() const { return held_; }

    // Counts `n` bytes the header will hold in memory against the budget, before they are.
    Result<void> hold(std::uint64_t n) {
        if (n > max_held_ - held_) {
            return std::unexpected<Error>(
                Error{ErrorKind::bad_input,
                      src_.name() + ": the GGUF header would hold more than " +
                          std::to_string(kGgufMaxHeld >> 20) +
                          " MiB in memory (keys, values and tensor names, all parts together)",
                      "a real header holds a few MiB; the file is corrupt or not a GGUF model"});
        }
        held_ += n;
        return {};
    }
    std::uint64_t pos() const { return pos_; }
    std::uint64_t remaining() const { return src_.size() - pos_; }

    Result<std::string> bytes(std::uint64_t n) {
        if (n > remaining()) return corrupt(src_, "truncated file (header ends early)");
        std::string out;
        out.reserve(n);
        while (n > 0) {
            if (pos_ < buf_start_ || pos_ >= buf_start_ + buf_.size()) {
                const std::uint64_t len = std::min(kChunk, remaining());
                CANITRUN_TRY_ASSIGN(buf_, src_.read(pos_, len));
                buf_start_ = pos_;
            }
            const std::uint64_t at = pos_ - buf_start_;
            const std::uint64_t take = std::min<std::uint64_t>(n, buf_.size() - at);
            out.append(buf_, at, take);
            pos_ += take;
            n -= take;
        }
        return out;
    }

    template <typename T>
    Result<T> scalar() {
        CANITRUN_TRY_ASSIGN(const auto b, bytes(sizeof(T)));
        T value{};
        std::memcpy(&value, b.data(), sizeof(T));
        static_assert(std::endian::native == std::endian::little, "GGUF is little-endian");
        return value;
    }

    Result<std::string> string() {
        CANITRUN_TRY_ASSIGN(const auto len, scalar<std::uint64_t>());
        if (len > kGgufMaxString) {
            return corrupt(src_, "string length " + std::to_string(len) + " exceeds 1 MiB");
        }
        if (len > remaining()) return corrupt(src_, "truncated file (in the middle of a string)");
        CANITRUN_TRY(hold(len + sizeof(std::string)));  // every string read is kept
        return bytes(len);
    }

    Result<void> skip(std::uint64_t n) {
        if (n > remaining()) return corrupt(src_, "truncated file (header ends early)");
        pos_ += n;
        return {};
    }

  private:
    const ByteSource& src_;
    std::uint64_t max_held_;
    std::uint64_t held_ = 0;
    std::uint64_t pos_ = 0;
    std::string buf_;
    std::uint64_t buf_start_ = 0;
};

std::uint64_t scalar_size(GgufType t) {
    switch (t) {
        case GgufType::u8:
        case GgufType::i8:
        case GgufType::boolean:
            return 1;
        case GgufType::u16:
        case GgufType::i16:
            return 2;
        case GgufType::u32:
        case GgufType::i32:
        case GgufType::f32:
            return 4;
        case GgufType::u64:
        case GgufType::i64:
        case GgufType::f64:
        case GgufType::string:  // at least its 8-byte length
            return 8;
        case GgufType::array:
            return 12;  // at least its element type and length
    }
    return 1;
}

bool valid_type(std::uint32_t t) {
    return t <= static_cast<std::uint32_t>(GgufType::f64);
}

enum class Kind { unsigned_int, signed_int, floating, string };

Kind kind_of(GgufType t) {
    switch (t) {
        case GgufType::u8:
        case GgufType::u16:
        case GgufType::u32:
        case GgufType::u64:
        case GgufType::boolean:
            return Kind::unsigned_int;
        case GgufType::i8:
        case GgufType::i16:
        case GgufType::i32:
        case GgufType::i64:
            return Kind::signed_int;
        case GgufType::f32:
        case GgufType::f64:
            return Kind::floating;
        default:
            return Kind::string;
    }
}

// One scalar of type t into (u, i, f, s).
Result<void> read_scalar(Cursor& c, GgufType t, std::uint64_t& u, std::int64_t& i, double& f,
                         std::string* s) {
    const auto take = [&](auto r, auto& out) -> Result<void> {
        CANITRUN_TRY(r);
        out = *r;  // NOLINT(bugprone-signed-char-misuse,cert-str34-c): an int8 value is a number
        return {};
    };
    switch (t) {
        case GgufType::u8:
        case GgufType::boolean:
            return take(c.scalar<std::uint8_t>(), u);
        case GgufType::u16:
            return take(c.scalar<std::uint16_t>(), u);
        case GgufType::u32:
            return take(c.scalar<std::uint32_t>(), u);
        case GgufType::u64:
            return take(c.scalar<std::uint64_t>(), u);
        case GgufType::i8:
            return take(c.scalar<std::int8_t>(), i);
        case GgufType::i16:
            return take(c.scalar<std::int16_t>(), i);
        case GgufType::i32:
            return take(c.scalar<std::int32_t>(), i);
        case GgufType::i64:
            return take(c.scalar<std::int64_t>(), i);
        case GgufType::f32:
            return take(c.scalar<float>(), f);
        case GgufType::f64:
            return take(c.scalar<double>(), f);
        case GgufType::string: {
            CANITRUN_TRY_ASSIGN(auto r, c.string());
            if (s != nullptr) *s = std::move(r);
            return {};
        }
        case GgufType::array:
            break;
    }
    return {};
}

constexpr std::uint64_t kForecastSample = 512;

Result<GgufValue> read_value(Cursor& c, const ByteSource& src, GgufType type) {
    GgufValue v;
    v.type = type;
    if (type != GgufType::array) {
        CANITRUN_TRY(read_scalar(c, type, v.u, v.i, v.f, &v.s));
        return v;
    }
    CANITRUN_TRY_ASSIGN(const auto et, c.scalar<std::uint32_t>());
    if (!valid_type(et)) return corrupt(src, "unknown array element type " + std::to_string(et));
    v.element_type = static_cast<GgufType>(et);
    if (v.element_type == GgufType::array) return corrupt(src, "nested arrays are not supported");
    CANITRUN_TRY_ASSIGN(const auto len, c.scalar<std::uint64_t>());
    // Every element takes at least scalar_size bytes: bound the length by what is left.
    if (len > c.remaining() / scalar_size(v.element_type)) {
        return corrupt(src, "array length " + std::to_string(len) + " exceeds the file");
    }
    v.length = len;
    const Kind kind = kind_of(v.element_type);
    if (kind != Kind::string) {
        v.stored = v.length <= kGgufMaxStoredNumbers;
        if (!v.stored) {
            CANITRUN_TRY(c.skip(v.length * scalar_size(v.element_type)));
            return v;
        }
        CANITRUN_TRY(c.hold(v.length * sizeof(std::uint64_t)));  // a byte each becomes 8
        for (std::uint64_t k = 0; k < v.length; ++k) {
            std::uint64_t u = 0;
            std::int64_t i = 0;
            double f = 0;
            CANITRUN_TRY(read_scalar(c, v.element_type, u, i, f, nullptr));
            if (kind == Kind::unsigned_int) v.uints.push_back(u);
            if (kind == Kind::signed_int) v.ints.push_back(i);
            if (kind == Kind::floating) v.floats.push_back(f);
        }
        return v;
    }
    v.stored = v.length <= kGgufMaxStoredStrings;
    const std::uint64_t start = c.pos();
    for (std::uint64_t k = 0; k < v.length; ++k) {
        // After a sample of the strings, and again each time the sample doubles, forecast the
        // rest from their mean length (a vocabulary's tokens are megabytes: a remote source
        // fetches them in one or two requests; later tokens are longer, hence the refinements).
        if (k >= kForecastSample && (k & (k - 1)) == 0 && v.length > 2 * kForecastSample) {
            const std::uint64_t mean = (c.pos() - start) / k + 1;
            const std::uint64_t left = v.length - k;
            // Never past the file: a corrupt count makes no large forecast (nor an overflow).
            src.expect(c.pos(), left > c.remaining() / mean ? c.remaining() : left * mean);
        }
        if (v.stored) {
            CANITRUN_TRY_ASSIGN(auto s, c.string());
            v.strings.push_back(std::move(s));
        } else {
            CANITRUN_TRY_ASSIGN(const auto n, c.scalar<std::uint64_t>());
            if (n > kGgufMaxString) {
                return corrupt(src, "string length " + std::to_string(n) + " exceeds 1 MiB");
            }
            auto r = c.skip(n);
            if (!r) return corrupt(src, "truncated file (in the middle of a string)");
        }
    }
    return v;
}

Result<GgufTensor> read_tensor_info(Cursor& c, const ByteSource& src) {
    GgufTensor t;
    CANITRUN_TRY_ASSIGN(t.name, c.string());
    if (t.name.size() > kGgufMaxTensorName) {
        return corrupt(src, "tensor name '" + t.name.substr(0, kGgufMaxTensorName) + "...' is " +
                                std::to_string(t.name.size()) + " bytes long (at most " +
                                std::to_string(kGgufMaxTensorName) + ")");
    }
    CANITRUN_TRY_ASSIGN(const auto n_dims, c.scalar<std::uint32_t>());
    if (n_dims > kGgufMaxDims) {
        return corrupt(src, "tensor '" + t.name + "' has " + std::to_string(n_dims) +
                                " dimensions (at most 4)");
    }
    std::uint64_t elements = 1;
    for (std::uint32_t d = 0; d < n_dims; ++d) {
        CANITRUN_TRY_ASSIGN(const auto ne, c.scalar<std::uint64_t>());
        // ggml keeps shapes as int64 and refuses products past INT64_MAX.
        if (ne > static_cast<std::uint64_t>(INT64_MAX) ||
            (ne != 0 && elements > static_cast<std::uint64_t>(INT64_MAX) / ne)) {
            return corrupt(src, "tensor '" + t.name + "' has a shape that overflows");
        }
        elements *= ne;
        t.dims.push_back(ne);
    }
    CANITRUN_TRY_ASSIGN(t.type, c.scalar<std::uint32_t>());
    const auto gt = find_ggml_type(t.type);
    if (!gt) {
        return std::unexpected(Error{
            ErrorKind::bad_input,
            src.name() + ": tensor '" + t.name + "' has unknown ggml type id " +
                std::to_string(t.type),
            "the file needs a newer llama.cpp than the one canitrun knows, or it is corrupt"});
    }
    CANITRUN_TRY_ASSIGN(t.offset, c.scalar<std::uint64_t>());
    const std::uint64_t row = t.dims.empty() ? 1 : t.dims[0];
    // A row alone can pass 2^64 bytes (an f64 row of 2^62 values; found by fuzz_gguf).
    CANITRUN_TRY_ASSIGN(
        t.bytes,
        catch_overflow(
            [&]() -> Result<Bytes> {
                const auto row_bytes = ggml_row_bytes(*gt, row);
                if (!row_bytes) {
                    return corrupt(src, "tensor '" + t.name + "' has rows of " +
                                            std::to_string(row) + " values, not a multiple of " +
                                            std::string(gt->name) + "'s block of " +
                                            std::to_string(gt->block_elements));
                }
                const std::uint64_t rows = row == 0 ? 0 : elements / row;
                return checked::mul(*row_bytes, rows);
            },
            [&] { return corrupt(src, "tensor '" + t.name + "' is larger than 2^64 bytes"); }));
    return t;
}

// The fixed start of the file: magic, version, and the two counts.
struct GgufPreamble {
    std::uint32_t version = 0;
    std::uint64_t n_tensors = 0;
    std::uint64_t n_kv = 0;
};

Result<GgufPreamble> read_gguf_preamble(Cursor& c, const ByteSource& src) {
    CANITRUN_TRY_ASSIGN(const auto magic, c.bytes(src.size() < 4 ? src.size() : 4));
    if (magic != "GGUF") {
        return std::unexpected(Error{ErrorKind::bad_input,
                                     src.name() + ": not a GGUF file (bad magic)",
                                     "canitrun reads GGUF files (llama.cpp's format)"});
    }
    GgufPreamble p;
    CANITRUN_TRY_ASSIGN(p.version, c.scalar<std::uint32_t>());
    if (p.version != 2 && p.version != 3) {
        return std::unexpected(
            Error{ErrorKind::bad_input,
                  src.name() + ": unsupported GGUF version " + std::to_string(p.version),
                  "canitrun reads GGUF v2 and v3; version 1 files need converting with llama.cpp"});
    }
    CANITRUN_TRY_ASSIGN(p.n_tensors, c.scalar<std::uint64_t>());
    CANITRUN_TRY_ASSIGN(p.n_kv, c.scalar<std::uint64_t>());
    // A kv pair takes at least 8 (key length) + 4 (type) + 1 bytes, a tensor info 8 + 4 + 4 + 8.
    if (p.n_kv > kGgufMaxKv || p.n_kv > c.remaining() / 13) {
        return corrupt(src, "metadata count " + std::to_string(p.n_kv) + " is impossible");
    }
    if (p.n_tensors > kGgufMaxTensors || p.n_tensors > c.remaining() / 24) {
        return corrupt(src, "tensor count " + std::to_string(p.n_tensors) + " is impossible");
    }
    return p;
}

Result<std::vector<GgufKv>> read_gguf_metadata(Cursor& c, const ByteSource& src,
                                               std::uint64_t n_kv) {
    std::vector<GgufKv> metadata;
    CANITRUN_TRY(c.hold(n_kv * sizeof(GgufKv)));
    metadata.reserve(n_kv);
    for (std::uint64_t k = 0; k < n_kv; ++k) {
        CANITRUN_TRY_ASSIGN(auto key, c.string());
        CANITRUN_TRY_ASSIGN(const auto type, c.scalar<std::uint32_t>());
        if (!valid_type(type)) {
            return corrupt(src, "key '" + key + "' has unknown type " + std::to_string(type));
        }
        CANITRUN_TRY_ASSIGN(auto value, read_value(c, src, static_cast<GgufType>(type)));
        metadata.push_back({std::move(key), std::move(value)});
    }
    return metadata;
}

// general.alignment, a power of 2, else GGUF's default.
Result<std::uint64_t> read_gguf_alignment(const GgufFile& file, const ByteSource& src) {
    const GgufValue* a = file.find("general.alignment");
    if (a == nullptr) return kDefaultAlignment;
    if (a->type != GgufType::u32 || a->u == 0 || (a->u & (a->u - 1)) != 0) {
        return corrupt(src, "general.alignment is not a power of 2");
    }
    return a->u;
}

Result<std::vector<GgufTensor>> read_gguf_tensor_infos(Cursor& c, const ByteSource& src,
                                                       std::uint64_t n_tensors) {
    std::vector<GgufTensor> tensors;
    CANITRUN_TRY(c.hold(n_tensors * sizeof(GgufTensor)));
    tensors.reserve(n_tensors);
    for (std::uint64_t k = 0; k < n_tensors; ++k) {
        CANITRUN_TRY_ASSIGN(auto t, read_tensor_info(c, src));
        tensors.push_back(std::move(t));
    }
    return tensors;
}

// Every tensor aligned and inside the file, the data section included.
Result<void> check_gguf_tensor_extents(const GgufFile& file, const ByteSource& src) {
    // Writers pad the header to the alignment even with no tensors; a file that stops inside
    // that padding was cut short (found by fuzz_gguf).
    if (file.data_offset > file.file_size) {
        return std::unexpected(
            Error{ErrorKind::bad_input,
                  src.name() + ": truncated file: it ends inside the header's padding",
                  "the download is incomplete; download it again"});
    }
    for (const auto& t : file.tensors) {
        if (t.offset % file.alignment != 0) {
            return corrupt(src, "tensor '" + t.name + "' is not aligned");
        }
        // offset + bytes must lie inside the file: compare without overflowing.
        const std::uint64_t size = file.file_size;
        if (file.data_offset > size || t.offset > size - file.data_offset ||
            t.bytes > size - file.data_offset - t.offset) {
            return std::unexpected(
                Error{ErrorKind::bad_input,
                      src.name() + ": truncated file: tensor '" + t.name + "' ends past the end",
                      "the download is incomplete; download it again"});
        }
    }
    return {};
}

Result<GgufFile> read_gguf_impl(const ByteSource& src, std::uint64_t max_held) {
    Cursor c(src, max_held);
    CANITRUN_TRY_ASSIGN(const GgufPreamble preamble, read_gguf_preamble(c, src));
    GgufFile file;
    file.file_size = src.size();
    file.version = preamble.version;
    CANITRUN_TRY_ASSIGN(file.metadata, read_gguf_metadata(c, src, preamble.n_kv));
    CANITRUN_TRY_ASSIGN(file.alignment, read_gguf_alignment(file, src));
    CANITRUN_TRY_ASSIGN(file.tensors, read_gguf_tensor_infos(c, src, preamble.n_tensors));
    // The data section starts at the next multiple of the alignment.
    const std::uint64_t end = c.pos();
    file.data_offset = (end + file.alignment - 1) / file.alignment * file.alignment;
    CANITRUN_TRY(check_gguf_tensor_extents(file, src));
    file.held_bytes = c.held();
    return file;
}

}  // namespace

Result<std::string> ByteSource::read(std::uint64_t offset, std::uint64_t length) const {
    if (offset > size() || length > size() - offset) {
        return fail(ErrorKind::io, name() + ": read past the end of the file");
    }
    auto r = do_read(offset, length);
    if (r) bytes_read_ += r->size();
    return r;
}

Result<std::string> MemorySource::do_read(std::uint64_t offset, std::uint64_t length) const {
    return bytes_.substr(offset, length);
}

const char* gguf_type_name(GgufType type) {
    static const char* const names[] = {"u8",   "i8",  "u16",   "i16", "u32", "i32", "f32",
                                        "bool", "str", "array", "u64", "i64", "f64"};
    const auto k = static_cast<std::uint32_t>(type);
    return k < 13 ? names[k] : "?";
}

std::optional<std::uint64_t> GgufValue::as_uint() const {
    switch (kind_of(type)) {
        case Kind::unsigned_int:
            return type == GgufType::array ? std::nullopt : std::optional<std::uint64_t>(u);
        case Kind::signed_int:
            if (i < 0) return std::nullopt;
            return static_cast<std::uint64_t>(i);
        default:
            return std::nullopt;
    }
}

std::optional<std::uint64_t> GgufValue::uint_at(std::uint64_t k) const {
    if (type != GgufType::array || !stored || k >= length) return std::nullopt;
    if (kind_of(element_type) == Kind::unsigned_int) return uints[k];
    if (kind_of(element_type) == Kind::signed_int) {
        if (ints[k] < 0) return std::nullopt;
        return static_cast<std::uint64_t>(ints[k]);
    }
    return std::nullopt;
}

std::uint64_t GgufTensor::elements() const {
    std::uint64_t n = 1;
    for (auto d : dims) n = checked::mul(n, d);
    return n;
}

const GgufValue* GgufFile::find(const std::string& key) const {
    for (const auto& kv : metadata) {
        if (kv.key == key) return &kv.value;
    }
    return nullptr;
}

std::optional<std::uint64_t> GgufFile::get_uint(const std::string& key) const {
    const GgufValue* v = find(key);
    return v ? v->as_uint() : std::nullopt;
}

std::optional<std::string> GgufFile::get_string(const std::string& key) const {
    const GgufValue* v = find(key);
    if (v == nullptr || v->type != GgufType::string) return std::nullopt;
    return v->s;
}

Bytes GgufFile::tensor_bytes() const {
    Bytes sum = 0;
    for (const auto& t : tensors) sum = checked::add(sum, t.bytes);
    return sum;
}

Result<GgufFile> read_gguf(const ByteSource& source, std::uint64_t max_held) {
    return read_gguf_impl(source, max_held);
}

}  // namespace canitrun
