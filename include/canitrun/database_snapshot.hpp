#pragma once
// The database as a compact binary snapshot. The build loads data/ with the JSON loader (every
// check included), writes the result with serialize_database(), and embeds those bytes; each
// start then reads them back with deserialize_database(), which is a bounds-checked copy, not a
// JSON parse plus validation. That is what keeps a whole query under the 5 ms target
// (bench/RESULTS.md). `--data DIR` still parses JSON at run time.

#include <string>
#include <string_view>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"

namespace canitrun {

// Bumped whenever a field is added to, removed from or reordered in the structs the snapshot
// holds, so a stale snapshot is refused instead of misread.
inline constexpr std::uint64_t kSnapshotFormat = 23;

std::string serialize_database(const Database& db);

// A value or an error for any bytes: wrong magic or format, truncation, a count past the end,
// an enum out of range, trailing bytes.
Result<Database> deserialize_database(std::string_view bytes);

}  // namespace canitrun
