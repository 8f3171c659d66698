#pragma once
// The database as a compact binary snapshot. The build loads data/ with the JSON loader (every
// check included), writes the result with serialize_database(), and embeds those bytes; each
// start then reads them back with deserialize_database(), which is a bounds-checked copy, not a
// JSON parse plus validation. That is what keeps a whole query under the 5 ms target
// (bench/RESULTS.md). `--data DIR` still parses JSON at run time.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"

namespace canitrun {

// Bumped whenever a field is added to, removed from or reordered in the structs the snapshot
// holds, so a stale snapshot is refused instead of misread.
inline constexpr std::uint64_t kSnapshotFormat = 28;

std::string serialize_database(const Database& db);

// A value or an error for any bytes: wrong magic or format, truncation, a count past the end,
// an enum out of range, trailing bytes.
Result<Database> deserialize_database(std::string_view bytes);

// The snapshot's spelling of an unsigned number (LEB128, the fewest bytes), for what a layer
// above keeps in it (kept_parts.hpp).
inline void append_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

// The number spelled at `pos` as append_varint spells it, `pos` moved past it; empty where the
// bytes end first or spell it otherwise.
// (Inline: the snapshot's reader reads every number of a start through it.)
inline std::optional<std::uint64_t> read_varint(std::string_view in, std::size_t& pos) {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= in.size()) return std::nullopt;
        const auto byte = static_cast<unsigned char>(in[pos++]);
        if (shift == 63 && byte > 1) return std::nullopt;  // past 64 bits
        // One spelling per value: a last byte of zero after the first adds nothing.
        if (shift > 0 && byte == 0) return std::nullopt;
        v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) return v;
    }
    return std::nullopt;  // past 10 bytes
}

}  // namespace canitrun
