#pragma once
// The answers already given, kept for the next request that asks the same: the database is
// built into the binary and never changes while the process runs, and no route asks anything
// that depends on the moment (gpu=auto is refused, the hardware is detected once), so an argv
// has one answer for the life of the process. Bounded in entries and in bytes; the least
// recently used answer goes first. Safe to use from every worker thread.

#include <cstddef>
#include <string>
#include <vector>

#include "ask.hpp"

namespace canitrun::serve {

inline constexpr std::size_t kCacheEntries = 2048;
inline constexpr std::size_t kCacheBytes = 64u << 20;

// cli::ask(argv), from the cache when the same argv was asked before. `cacheable` false (a
// server that answers remote models, whose answers change with the network): asked each time.
cli::Asked cached_ask(const std::vector<std::string>& argv, bool cacheable = true);

}  // namespace canitrun::serve
