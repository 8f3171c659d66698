#pragma once
// The files the web pages need (HTML, CSS, JavaScript, the OpenAPI document), compiled into
// the binary from src/serve/assets/ by cmake/EmbedFiles.cmake: the server reads no file at
// run time, and a request can name only what this table holds.

#include <string_view>
#include <vector>

namespace canitrun::serve {

struct Asset {
    std::string_view path;  // "/assets/calculator.js", as requested
    std::string_view bytes;
};

using Assets = std::vector<Asset>;
const Assets& embedded_assets();

// The asset at exactly `path`, or nullptr.
const Asset* find_asset(std::string_view path);

// The Content-Type of a path, by its extension.
std::string_view content_type_of(std::string_view path);

}  // namespace canitrun::serve
