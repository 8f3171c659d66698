#include "data_views.hpp"

#include <nlohmann/json.hpp>

#include "json_sink.hpp"
#include "style.hpp"

namespace canitrun::cli {

nlohmann::json JsonView::operator()() const {
    if (tree) return tree();
    JsonTree t;
    write(t);
    return t.take();
}

namespace {

// The document as dump(2) prints it: written straight to text where the view can, else the
// tree dumped (also where the writer met a string that is not UTF-8, where dump throws).
std::string json_document(const JsonView& view) {
    if (!view.tree) {
        JsonText t;
        view.write(t);
        if (auto text = t.take()) return std::move(*text);
    }
    return view().dump(2);
}

}  // namespace

bool write_data_view(std::ostream& out, const DataViews& views) {
    switch (format_of(out)) {
        case Format::json:
            out << json_document(views.json) << "\n";
            return true;
        case Format::csv:
            views.csv(out);
            return true;
        case Format::quiet:
            for (const auto& line : views.answer()) out << line << "\n";
            return true;
        case Format::table:
        case Format::markdown:
        case Format::html:  // only the model page has one; check_offered refuses the rest
            return false;
    }
    return false;
}

}  // namespace canitrun::cli
