#pragma once
// The one way the core reads a file from outside: opened once, without blocking (a named pipe
// or a device is refused, never waited on), checked to be a regular file, and read only up to a
// cap stated by the caller. Files that report no size (/proc, sysfs) are read to the cap + 1
// byte, so "too large" is still detected.

#include <cstdint>
#include <string>
#include <string_view>

#include "canitrun/error.hpp"

namespace canitrun {

// Caps for the files canitrun reads whole. None is near a real file of its kind; past them the
// input is not what was asked for.
inline constexpr std::uint64_t kMaxLogFileBytes = 64ULL << 20;       // llama.cpp logs
inline constexpr std::uint64_t kMaxConfigFileBytes = 16ULL << 20;    // config.json, index.json
inline constexpr std::uint64_t kMaxDatabaseFileBytes = 64ULL << 20;  // one data/ JSON file
inline constexpr std::uint64_t kMaxProbeFileBytes = 1ULL << 20;      // sysfs, /proc, tool output

// Why a path cannot be read as a file, as a phrase ("is a named pipe"), or empty when it is a
// regular file. Does not open the path, so it never blocks.
std::string not_a_file_reason(const std::string& path);

// The whole file, at most `max_bytes`. `what` names the file's role in errors ("llama.cpp log").
// Errors are ErrorKind::io (cannot open, not a regular file) or bad_input (too large).
Result<std::string> read_bounded_file(const std::string& path, std::uint64_t max_bytes,
                                      std::string_view what);

// Opens `path` for reading without blocking and checks that it is a regular file; returns the
// descriptor (the caller closes it) and the size.
struct OpenFile {
    int fd = -1;
    std::uint64_t size = 0;
};
Result<OpenFile> open_regular_file(const std::string& path);

}  // namespace canitrun
