#pragma once
// A validation row's text field: the string at `key`, or "" when it is missing or not a string
// (the row's checks then name what is missing). Shared by the llama-bench and MLX measurement
// readers. Private to src/core/plan.
#include <nlohmann/json.hpp>
#include <string>

namespace canitrun {

inline std::string json_text(const nlohmann::json& row, const char* key) {
    const auto it = row.find(key);
    return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace canitrun
