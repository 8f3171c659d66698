#pragma once
// The command line's settings for remote models (remote_command.hpp).

#include <chrono>
#include <cstdint>
#include <optional>

namespace canitrun::cli {

struct RemoteFlags {
    bool offline = false;          // --offline: the cache alone
    std::uint64_t timeout_s = 30;  // --timeout: seconds a server may send nothing
    // When this command asked its first remote question: --timeout's one deadline for the
    // whole command. Per command, not per process: serve and mcp answer many in one process.
    mutable std::optional<std::chrono::steady_clock::time_point> started;
};

}  // namespace canitrun::cli
