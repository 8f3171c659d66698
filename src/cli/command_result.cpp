#include "command_result.hpp"

#include "app.hpp"

#include "canitrun/error.hpp"

namespace canitrun::cli {

Result<bool> check_offered(const CommandResult& r, Format format, const std::string& flag) {
    bool offered = true;
    switch (format) {
        case Format::table:
        case Format::markdown:
            offered = static_cast<bool>(r.text);
            break;
        case Format::json:
            offered = static_cast<bool>(r.views.json);
            break;
        case Format::csv:
            offered = static_cast<bool>(r.views.csv);
            break;
        case Format::quiet:
            offered = static_cast<bool>(r.views.answer);
            break;
        case Format::html:
            offered = static_cast<bool>(r.html);
            break;
    }
    if (offered) return true;
    std::string others;
    const auto add = [&](bool has, const char* name) {
        if (has) others += std::string(others.empty() ? "" : ", ") + name;
    };
    add(static_cast<bool>(r.text), "the default table, --format markdown");
    add(static_cast<bool>(r.views.json), "--json");
    add(static_cast<bool>(r.views.csv), "--format csv");
    add(static_cast<bool>(r.views.answer), "--quiet");
    // Only the model page of a database model has an HTML page; say where to find it.
    const std::string html = format == Format::html
                                 ? "; the HTML page is a database model's page (canitrun "
                                   "qwen3.5-35b-a3b --format html > qwen.html)"
                                 : "";
    return fail(ErrorKind::bad_input, flag + " is not available for " + r.what,
                "use " + others + html);
}

void write_result(std::ostream& out, const CommandResult& r) {
    if (format_of(out) == Format::html) {
        r.html(out);
    } else if (!write_data_view(out, r.views)) {
        r.text(out);
    }
}

int exit_code(Verdict verdict) {
    return verdict == Verdict::does_not_run ? kExitDoesNotFit : kExitOk;
}

}  // namespace canitrun::cli
