#pragma once
// The model page as one self-contained HTML document (--format html): inline CSS, the KV chart
// as inline SVG, no scripts and nothing fetched from the network; readable in a browser from
// 390 pixels wide up, and printable. It shows what the terminal page shows, from the same report
// and the same sentences (page_facts.hpp).

#include <ostream>
#include <string>
#include <string_view>

#include "canitrun/report.hpp"

namespace canitrun::cli {

// `footer`: who made the page (program and database versions).
void write_html_report(std::ostream& out, const ModelReport& report, const std::string& footer);

// Text with &, <, >, " and ' escaped for HTML element content and attribute values.
std::string html_escape(std::string_view text);

}  // namespace canitrun::cli
