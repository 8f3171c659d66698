#include "markdown_html.hpp"

#include <sstream>
#include <vector>

#include "html_report.hpp"

namespace canitrun::cli {
namespace {

// "| a | b\| c |": the cells, with Table's escaped bars put back.
std::vector<std::string> cells_of(const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t i = 1; i < line.size(); ++i) {
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
            cell += '|';
            ++i;
        } else if (line[i] == '|') {
            const std::size_t begin = cell.find_first_not_of(' ');
            const std::size_t end = cell.find_last_not_of(' ');
            cells.push_back(begin == std::string::npos ? "" : cell.substr(begin, end - begin + 1));
            cell.clear();
        } else {
            cell += line[i];
        }
    }
    return cells;
}

// One Markdown table (its header, rule and rows) as an HTML table in a box that scrolls.
void write_table(std::ostream& out, const std::vector<std::string>& lines) {
    const std::vector<std::string> header = cells_of(lines.front());
    std::vector<bool> right;
    if (lines.size() > 1) {
        for (const std::string& rule : cells_of(lines[1])) right.push_back(rule.ends_with(":"));
    }
    const auto cell = [&](const char* tag, std::size_t c, const std::string& text) {
        const bool r = c < right.size() && right[c];
        out << "<" << tag << (r ? "" : " class=\"left\"") << ">" << html_escape(text) << "</" << tag
            << ">";
    };
    out << R"(<div class="scroll"><table class="answer"><thead><tr>)";
    for (std::size_t c = 0; c < header.size(); ++c) cell("th", c, header[c]);
    out << "</tr></thead><tbody>\n";
    for (std::size_t i = 2; i < lines.size(); ++i) {
        out << "<tr>";
        const std::vector<std::string> row = cells_of(lines[i]);
        for (std::size_t c = 0; c < row.size(); ++c) cell("td", c, row[c]);
        out << "</tr>\n";
    }
    out << "</tbody></table></div>\n";
}

}  // namespace

std::string html_from_markdown(const std::string& markdown) {
    std::istringstream in(markdown);
    std::ostringstream out;
    std::string line;
    std::vector<std::string> table;
    bool code = false;
    bool list = false;
    // A table or a list ends at the first line that is not one of its own.
    const auto end_blocks = [&] {
        if (!table.empty()) write_table(out, table);
        table.clear();
        if (list) out << "</ul>\n";
        list = false;
    };
    while (std::getline(in, line)) {
        if (line.starts_with("```")) {
            end_blocks();
            out << (code ? "</pre>\n" : "<pre>");
            code = !code;
            continue;
        }
        if (code) {
            out << html_escape(line) << "\n";
            continue;
        }
        if (line.starts_with("|")) {
            table.push_back(line);
            continue;
        }
        while (line.ends_with(" ")) line.pop_back();  // a hard line break's two spaces
        if (line.starts_with("- ")) {
            if (!table.empty()) end_blocks();
            if (!list) out << "<ul class=\"notes\">";
            list = true;
            out << "<li>" << html_escape(line.substr(2)) << "</li>";
            continue;
        }
        end_blocks();
        if (line.starts_with("#### ")) {
            out << "<h4>" << html_escape(line.substr(5)) << "</h4>\n";
        } else if (line.starts_with("### ")) {
            out << "<h3>" << html_escape(line.substr(4)) << "</h3>\n";
        } else if (!line.empty()) {
            out << "<p>" << html_escape(line) << "</p>\n";
        }
    }
    end_blocks();
    if (code) out << "</pre>\n";
    return out.str();
}

}  // namespace canitrun::cli
