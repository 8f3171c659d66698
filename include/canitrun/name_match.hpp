#pragma once
// Matching names the way users type them, and "did you mean" suggestions.

#include <string>
#include <string_view>
#include <vector>

#include "canitrun/strings.hpp"  // to_lower

namespace canitrun {

// Lowercase, with spaces, underscores and dashes dropped: "Qwen3.5 35B-A3B" and
// "qwen3.5-35b-a3b" compare equal.
std::string normalize_name(const std::string& name);
// normalize_name(name) == key, without building the string: a lookup compares every entry.
bool normalized_equals(std::string_view name, std::string_view key);

std::size_t edit_distance(const std::string& a, const std::string& b);

// The same, but gives up once the distance is past `limit`: min(distance, limit + 1).
std::size_t edit_distance(const std::string& a, const std::string& b, std::size_t limit);

// Up to `limit` candidates close to `typed`, nearest first (candidates that contain the typed
// text count as close). When six or fewer candidates contain the typed text, a family such as
// "m4 max"'s 36, 48, 64 and 128 GB machines, all of them come first, past `limit` if need be.
std::vector<std::string> suggest(const std::string& typed,
                                 const std::vector<std::string>& candidates, std::size_t limit = 3);

}  // namespace canitrun
