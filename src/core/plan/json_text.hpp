#pragma once
// A validation row's text field: the string at `key`, or "" when it is missing or not a string
// (the row's checks then name what is missing). Shared by the llama-bench and MLX measurement
// readers. Private to src/core/plan.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace canitrun {

inline std::string json_text(const nlohmann::json& row, const char* key) {
    const auto it = row.find(key);
    return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The model a measured row ran: `model_id` when canitrun tracks the very model, else
// `nearest_model_id`, a tracked model of the same tensors (the row is then not exact).
struct RowModel {
    std::string id;
    bool exact = false;
};

inline RowModel row_model(const nlohmann::json& row) {
    std::string id = json_text(row, "model_id");
    if (!id.empty()) return {std::move(id), true};
    return {json_text(row, "nearest_model_id"), false};
}

}  // namespace canitrun
