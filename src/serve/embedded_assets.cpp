#include "embedded_assets.hpp"

namespace canitrun::serve {

const Asset* find_asset(std::string_view path) {
    for (const Asset& a : embedded_assets()) {
        if (a.path == path) return &a;
    }
    return nullptr;
}

std::string_view content_type_of(std::string_view path) {
    const struct {
        std::string_view extension;
        std::string_view type;
    } types[] = {{".html", "text/html; charset=utf-8"},
                 {".css", "text/css; charset=utf-8"},
                 {".js", "text/javascript; charset=utf-8"},
                 {".json", "application/json"},
                 {".svg", "image/svg+xml"}};
    for (const auto& t : types) {
        if (path.ends_with(t.extension)) return t.type;
    }
    return "application/octet-stream";
}

}  // namespace canitrun::serve
