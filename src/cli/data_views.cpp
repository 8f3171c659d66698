#include "data_views.hpp"

#include <nlohmann/json.hpp>

#include "style.hpp"

namespace canitrun::cli {

bool write_data_view(std::ostream& out, const DataViews& views) {
    switch (format_of(out)) {
        case Format::json:
            out << views.json().dump(2) << "\n";
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
