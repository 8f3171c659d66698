#pragma once
// The command line's settings for remote models (remote_command.hpp).

#include <cstdint>

namespace canitrun::cli {

struct RemoteFlags {
    bool offline = false;          // --offline: the cache alone
    std::uint64_t timeout_s = 30;  // --timeout: seconds a server may send nothing
};

}  // namespace canitrun::cli
