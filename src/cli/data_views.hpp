#pragma once
// The data formats every command offers besides its text page: one JSON document, a CSV table,
// or (--quiet) just the answer, one item per line. Each command says how to make each view; the
// stream's format picks one.

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace canitrun::cli {

struct DataViews {
    std::function<nlohmann::json()> json;
    std::function<void(std::ostream&)> csv;
    std::function<std::vector<std::string>()> answer;
};

// Writes the view the stream's format asks for and returns true; false for table and
// Markdown, which the caller renders as text.
bool write_data_view(std::ostream& out, const DataViews& views);

}  // namespace canitrun::cli
