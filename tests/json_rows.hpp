#pragma once
// A JSON document's row found by what it is, not by where it stands: a test that indexes an
// array by position breaks (or, worse, checks another row) when a row is added or reordered.

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace canitrun::test {

// The one element of `rows` whose `key` equals `value`; throws (the test fails, naming the
// key) when there is none or more than one.
inline const nlohmann::json& row_where(const nlohmann::json& rows, const std::string& key,
                                       const nlohmann::json& value) {
    const nlohmann::json* found = nullptr;
    for (const auto& row : rows) {
        if (!row.is_object() || !row.contains(key) || row.at(key) != value) continue;
        if (found != nullptr)
            throw std::runtime_error("two rows with " + key + " = " + value.dump());
        found = &row;
    }
    if (found == nullptr) throw std::runtime_error("no row with " + key + " = " + value.dump());
    return *found;
}

}  // namespace canitrun::test
