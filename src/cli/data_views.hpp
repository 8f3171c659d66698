#pragma once
// The data formats every command offers besides its text page: one JSON document, a CSV table,
// or (--quiet) just the answer, one item per line. Each command says how to make each view; the
// stream's format picks one.

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace canitrun::cli {

class JsonSink;

// The JSON view: a function that returns the tree, or one that writes the document into a
// JsonSink (json_sink.hpp), which prints it without building the tree. Assigning a tree
// function (views.json = [...] { ... }) drops a writer, so a command that changes another
// command's document prints its own.
struct JsonView {
    std::function<nlohmann::json()> tree;
    std::function<void(JsonSink&)> write;

    JsonView() = default;
    template <typename F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, JsonView>) JsonView(F f)
        : tree(std::move(f)) {}  // NOLINT(google-explicit-constructor): a view is its function
    explicit operator bool() const { return tree || write; }
    nlohmann::json operator()() const;  // the tree, also of a writer
};

struct DataViews {
    JsonView json;
    std::function<void(std::ostream&)> csv;
    std::function<std::vector<std::string>()> answer;
};

// Writes the view the stream's format asks for and returns true; false for table and
// Markdown, which the caller renders as text.
bool write_data_view(std::ostream& out, const DataViews& views);

}  // namespace canitrun::cli
