#pragma once
// Reading GGUF headers from disk: a ByteSource on a file (pread, only the bytes asked for), and
// split models (`name-00001-of-00003.gguf`) read as one: every part found and read, a missing
// part named in the error. This is the one GGUF module that does I/O.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/error.hpp"
#include "canitrun/gguf.hpp"

namespace canitrun {

Result<std::unique_ptr<ByteSource>> open_file_source(const std::string& path);

// "dir/model-00002-of-00005.gguf" -> {"dir/model", 2, 5}; nullopt for a single file.
struct GgufSplitName {
    std::string prefix;
    std::uint32_t number = 1;  // 1-based, as in the file name
    std::uint32_t count = 1;
};
std::optional<GgufSplitName> parse_split_name(const std::string& path);
std::string split_part_path(const std::string& prefix, std::uint32_t number, std::uint32_t count);

// The header of `path`, or of every part when it is one part of a split model (in order).
// Checks each part's split.no / split.count keys against its name.
Result<std::vector<GgufFile>> read_gguf_parts(const std::string& path);

// The tensor bytes of every part of the file at `path` (a --mmproj projector's); 0 for "".
Result<Bytes> gguf_file_tensor_bytes(const std::string& path);

}  // namespace canitrun
