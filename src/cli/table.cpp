#include "table.hpp"

#include <algorithm>

#include "style.hpp"

namespace canitrun::cli {
std::size_t display_width(const std::string& s) {
    std::size_t n = 0;
    for (char c : s) {
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    }
    return n;
}

Table::Table(std::vector<std::string> header, std::vector<bool> right_aligned)
    : header_(std::move(header)), right_(std::move(right_aligned)) {
    right_.resize(header_.size(), false);
}

void Table::add_row(std::vector<std::string> cells) {
    cells.resize(header_.size());
    rows_.push_back(std::move(cells));
}

void Table::write(std::ostream& out, const std::string& indent) const {
    write_lines(out, indent, true);
}

void Table::write_rows(std::ostream& out, const std::string& indent) const {
    write_lines(out, indent, false);
}

void Table::write_markdown(std::ostream& out) const {
    const auto line = [&](const std::vector<std::string>& cells) {
        out << "|";
        for (const auto& c : cells) {
            std::string cell;
            for (char ch : c) cell += ch == '|' ? std::string("\\|") : std::string(1, ch);
            out << " " << cell << " |";
        }
        out << "\n";
    };
    // Markdown has no table without a header row: a facts table (write_rows) gets its header
    // there too, which its maker names for that.
    line(header_);
    out << "|";
    for (std::size_t c = 0; c < header_.size(); ++c) out << (right_[c] ? " ---: |" : " --- |");
    out << "\n";
    for (const auto& row : rows_) line(row);
    out << "\n";
}

void Table::write_lines(std::ostream& out, const std::string& indent, bool with_header) const {
    if (format_of(out) == Format::markdown) {
        write_markdown(out);
        return;
    }
    std::vector<std::size_t> width(header_.size(), 0);
    if (with_header) {
        for (std::size_t c = 0; c < header_.size(); ++c) width[c] = display_width(header_[c]);
    }
    for (const auto& row : rows_) {
        for (std::size_t c = 0; c < row.size(); ++c)
            width[c] = std::max(width[c], display_width(row[c]));
    }
    const auto line = [&](const std::vector<std::string>& cells) {
        std::string text = indent;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            // Appended in place: `fit`'s table is the last serial step of its answer.
            const std::size_t pad = width[c] - display_width(cells[c]);
            const bool last = c + 1 == cells.size();
            if (right_[c]) text.append(pad, ' ');
            text += cells[c];
            if (!right_[c] && !last) text.append(pad, ' ');
            if (!last) text += "  ";
        }
        while (!text.empty() && text.back() == ' ') text.pop_back();
        out << text << '\n';
    };
    if (with_header) {
        line(header_);
        std::vector<std::string> rule;
        for (std::size_t w : width) rule.emplace_back(w, '-');
        line(rule);
    }
    for (const auto& row : rows_) line(row);
}

}  // namespace canitrun::cli
