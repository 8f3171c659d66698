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

std::string html_from_markdown(const std::string& markdown, Indented indented) {
    std::istringstream in(markdown);
    std::ostringstream out;
    std::string line;
    std::vector<std::string> table;
    bool code = false;
    const auto end_table = [&] {
        if (!table.empty()) write_table(out, table);
        table.clear();
    };
    while (std::getline(in, line)) {
        if (line.starts_with("```")) {
            end_table();
            if (indented == Indented::code) {
                out << (code ? "</pre>\n" : "<pre>");
            } else {
                out << (code ? "</ul>\n" : "<ul class=\"notes\">");
            }
            code = !code;
            continue;
        }
        if (code) {
            if (indented == Indented::code) {
                out << html_escape(line) << "\n";
            } else if (const auto first = line.find_first_not_of(' '); first != std::string::npos) {
                out << "<li>" << html_escape(line.substr(first)) << "</li>";
            }
            continue;
        }
        if (line.starts_with("|")) {
            table.push_back(line);
            continue;
        }
        end_table();
        while (line.ends_with(" ")) line.pop_back();  // a hard line break's two spaces
        if (line.starts_with("### ")) {
            out << "<h3>" << html_escape(line.substr(4)) << "</h3>\n";
        } else if (!line.empty()) {
            out << "<p>" << html_escape(line) << "</p>\n";
        }
    }
    end_table();
    if (code) out << (indented == Indented::code ? "</pre>\n" : "</ul>\n");
    return out.str();
}

}  // namespace canitrun::cli
