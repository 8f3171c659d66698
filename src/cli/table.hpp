#pragma once
// A plain-text table: columns padded to their widest cell, numbers right-aligned; a Markdown
// table when the stream's style says so (style.hpp).

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace canitrun::cli {

// Columns a UTF-8 line takes: one per code point, so "×" and "·" count as one (the tables and
// the chart use no wide characters).
std::size_t display_width(const std::string& s);

class Table {
  public:
    explicit Table(std::vector<std::string> header, std::vector<bool> right_aligned = {});
    void add_row(std::vector<std::string> cells);
    void write(std::ostream& out, const std::string& indent = "  ") const;
    // Rows only, no header and rule: for a list of facts laid out in columns. Markdown, which
    // has no table without a header row, still gets the header: give one that names the columns.
    void write_rows(std::ostream& out, const std::string& indent = "  ") const;

  private:
    void write_lines(std::ostream& out, const std::string& indent, bool with_header) const;
    void write_markdown(std::ostream& out) const;
    std::vector<std::string> header_;
    std::vector<bool> right_;
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace canitrun::cli
