#include "canitrun/gguf_files.hpp"

#include "canitrun/bounded_file.hpp"
#include "canitrun/checked.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>

namespace canitrun {
namespace {

class FileSource final : public ByteSource {
  public:
    FileSource(int fd, std::uint64_t size, std::string path)
        : fd_(fd), size_(size), path_(std::move(path)) {}
    ~FileSource() override { ::close(fd_); }
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    std::uint64_t size() const override { return size_; }
    std::string name() const override { return path_; }

  protected:
    Result<std::string> do_read(std::uint64_t offset, std::uint64_t length) const override {
        std::string out(length, '\0');
        std::uint64_t done = 0;
        while (done < length) {
            const ssize_t n =
                ::pread(fd_, out.data() + done, length - done, static_cast<off_t>(offset + done));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                return fail(ErrorKind::io, path_ + ": cannot read: " +
                                               (n == 0 ? "unexpected end" : std::strerror(errno)));
            }
            done += static_cast<std::uint64_t>(n);
        }
        return out;
    }

  private:
    int fd_;
    std::uint64_t size_;
    std::string path_;
};

}  // namespace

Result<std::unique_ptr<ByteSource>> open_file_source(const std::string& path) {
    CANITRUN_TRY_ASSIGN(auto file, open_regular_file(path));
    return std::make_unique<FileSource>(file.fd, file.size, path);
}

std::optional<GgufSplitName> parse_split_name(const std::string& path) {
    // llama.cpp's llama_split_path: "%s-%05d-of-%05d.gguf"
    static const std::regex pattern(R"((.*)-([0-9]{5})-of-([0-9]{5})\.gguf$)");
    std::smatch m;
    if (!std::regex_match(path, m, pattern)) return std::nullopt;
    GgufSplitName s;
    s.prefix = m[1].str();
    s.number = static_cast<std::uint32_t>(std::stoul(m[2].str()));
    s.count = static_cast<std::uint32_t>(std::stoul(m[3].str()));
    if (s.number == 0 || s.count == 0 || s.number > s.count) return std::nullopt;
    return s;
}

std::string split_part_path(const std::string& prefix, std::uint32_t number, std::uint32_t count) {
    char tail[32];
    std::snprintf(tail, sizeof tail, "-%05u-of-%05u.gguf", number, count);
    return prefix + tail;
}

Result<std::vector<GgufFile>> read_gguf_parts(const std::string& path) {
    const auto split = parse_split_name(path);
    std::vector<std::string> paths;
    if (split) {
        for (std::uint32_t k = 1; k <= split->count; ++k) {
            paths.push_back(split_part_path(split->prefix, k, split->count));
        }
    } else {
        paths.push_back(path);
    }
    std::vector<GgufFile> parts;
    std::uint64_t held = 0;  // one budget for all parts
    for (std::size_t k = 0; k < paths.size(); ++k) {
        struct stat st {};
        if (split && ::stat(paths[k].c_str(), &st) != 0) {
            return fail(ErrorKind::bad_input,
                        "split model part " + std::to_string(k + 1) + " of " +
                            std::to_string(paths.size()) + " is missing: " + paths[k],
                        "download every part of the model into the same folder");
        }
        CANITRUN_TRY_ASSIGN(auto src, open_file_source(paths[k]));
        CANITRUN_TRY_ASSIGN(auto file, read_gguf(*src, kGgufMaxHeld - held));
        held += file.held_bytes;
        if (split) {
            // split.no is 0-based in the metadata (gguf-split's LLM_KV_SPLIT_NO).
            const auto no = file.get_uint("split.no");
            const auto count = file.get_uint("split.count");
            if ((no && *no != k) || (count && *count != paths.size())) {
                return fail(ErrorKind::bad_input,
                            paths[k] + ": its split.no / split.count keys do not match its name",
                            "the parts come from different models; download them again");
            }
        }
        parts.push_back(std::move(file));
    }
    return parts;
}

Result<Bytes> gguf_file_tensor_bytes(const std::string& path) {
    Bytes sum = 0;
    if (path.empty()) return sum;
    CANITRUN_TRY_ASSIGN(const auto parts, read_gguf_parts(path));
    return catch_overflow(
        [&]() -> Result<Bytes> {
            for (const auto& p : parts) sum = checked::add(sum, p.tensor_bytes());
            return sum;
        },
        [&] {
            return fail(ErrorKind::bad_input, path + ": sizes in the file overflow 64 bits",
                        "the file is corrupt");
        });
}

}  // namespace canitrun
