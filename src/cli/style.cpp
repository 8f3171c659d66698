#include "style.hpp"

#include <sstream>

namespace canitrun::cli {
namespace {

int format_slot() {
    static const int slot = std::ios_base::xalloc();
    return slot;
}

int color_slot() {
    static const int slot = std::ios_base::xalloc();
    return slot;
}

std::string sgr(std::ostream& out, const char* code, const std::string& text) {
    if (!color_of(out)) return text;
    return std::string("\033[") + code + "m" + text + "\033[0m";
}

std::size_t indent_of(const std::string& line) {
    std::size_t n = 0;
    while (n < line.size() && line[n] == ' ') ++n;
    return n;
}

}  // namespace

Result<Format> parse_format(const std::string& text) {
    if (text == "table" || text == "text") return Format::table;
    if (text == "json") return Format::json;
    if (text == "csv") return Format::csv;
    if (text == "markdown" || text == "md") return Format::markdown;
    return fail(ErrorKind::bad_input, "unknown format '" + text + "'",
                "use one of: table, json, csv, markdown");
}

bool want_color(bool is_terminal, const char* no_color, const char* clicolor_force) {
    if (no_color != nullptr && *no_color != '\0') return false;
    if (clicolor_force != nullptr && *clicolor_force != '\0' &&
        std::string(clicolor_force) != "0") {
        return true;
    }
    return is_terminal;
}

void set_style(std::ostream& out, Format format, bool color) {
    out.iword(format_slot()) = static_cast<long>(format);
    out.iword(color_slot()) = color && format == Format::table ? 1 : 0;
}

Format format_of(std::ostream& out) {
    return static_cast<Format>(out.iword(format_slot()));
}

bool color_of(std::ostream& out) {
    return out.iword(color_slot()) != 0;
}

std::string heading(std::ostream& out, const std::string& text) {
    if (format_of(out) == Format::markdown) return "### " + text;
    return bold(out, text);
}

std::string bold(std::ostream& out, const std::string& text) {
    return sgr(out, "1", text);
}

std::string paint(std::ostream& out, Tone tone, const std::string& text) {
    switch (tone) {
        case Tone::good:
            return sgr(out, "32", text);
        case Tone::warn:
            return sgr(out, "33", text);
        case Tone::bad:
            return sgr(out, "31", text);
    }
    return text;
}

std::string markdownify(const std::string& text) {
    std::istringstream in(text);
    std::ostringstream md;
    std::string line;
    bool in_code = false;
    while (std::getline(in, line)) {
        const std::size_t indent = indent_of(line);
        const bool code = indent >= 4 && indent < line.size();
        if (code != in_code) {
            md << "```\n";
            in_code = code;
        }
        if (code) {
            md << line.substr(4) << "\n";
        } else if (line.empty() || line[indent] == '|' || line[indent] == '#') {
            md << line.substr(indent) << "\n";
        } else {
            md << line.substr(indent) << "  \n";
        }
    }
    if (in_code) md << "```\n";
    return md.str();
}

}  // namespace canitrun::cli
