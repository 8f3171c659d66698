#include "style.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace canitrun::cli {
namespace {

// The first of LC_ALL, LC_CTYPE, LANG that is set decides the character set (POSIX order).
bool locale_is_utf8() {
    for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
        const char* v = std::getenv(name);
        if (v == nullptr || *v == '\0') continue;
        const std::string s(v);
        return s.find("UTF-8") != std::string::npos || s.find("utf8") != std::string::npos ||
               s.find("UTF8") != std::string::npos || s.find("utf-8") != std::string::npos;
    }
    return true;  // unset: modern terminals are UTF-8
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
    if (text == "html") return Format::html;
    return fail(ErrorKind::bad_input, "unknown format '" + text + "'",
                "use one of: table, json, csv, markdown, html");
}

bool want_color(bool is_terminal, const char* no_color, const char* clicolor_force) {
    if (no_color != nullptr && *no_color != '\0') return false;
    if (clicolor_force != nullptr && *clicolor_force != '\0' &&
        std::string(clicolor_force) != "0") {
        return true;
    }
    return is_terminal;
}

namespace {

std::string with_room(std::size_t bytes) {
    std::string s;
    s.reserve(bytes);
    return s;
}

}  // namespace

StyledStream::StyledStream(const Style& style, std::size_t reserve)
    : std::ostringstream(with_room(reserve)), style_(style) {
    // Colour is for a terminal's table; every other format is read by a program or a renderer.
    if (style_.format != Format::table) style_.color = false;
}

const Style& style_of(const std::ostream& out) {
    static const Style plain{};
    const auto* styled = dynamic_cast<const StyledStream*>(&out);
    return styled != nullptr ? styled->style() : plain;
}

ChartChoice choose_chart(bool asked, bool ascii, bool is_terminal, std::size_t columns) {
    ChartChoice c;
    c.draw = asked || is_terminal;
    const char* term = std::getenv("TERM");
    const bool dumb = term != nullptr && std::string(term) == "dumb";
    c.unicode = !ascii && !dumb && locale_is_utf8();
    if (columns == 0) {
        const char* env = std::getenv("COLUMNS");
        if (env != nullptr) columns = std::strtoul(env, nullptr, 10);
    }
    // Clamped: 80 is the narrowest the chart is drawn at, 200 the widest worth reading.
    c.width = std::clamp<std::size_t>(columns == 0 ? 80 : columns, 80, 200);
    return c;
}

std::string heading(std::ostream& out, const std::string& text) {
    if (format_of(out) == Format::markdown) return "### " + text;
    return bold(out, text);
}

std::string subheading(std::ostream& out, const std::string& text) {
    if (format_of(out) == Format::markdown) return "#### " + text;
    return "  " + text;
}

const char* note_mark(std::ostream& out) {
    return format_of(out) == Format::markdown ? "- " : "    ";
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
    bool in_list = false;
    while (std::getline(in, line)) {
        const std::size_t indent = indent_of(line);
        const bool code = indent >= 4 && indent < line.size();
        // A list ends with a blank line: a line right after an item would continue it.
        const bool item = !code && line.compare(indent, 2, "- ") == 0;
        if (in_list && !item && !line.empty()) md << "\n";
        in_list = item;
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
