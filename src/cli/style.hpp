#pragma once
// How output looks: the format (--format table|json|csv|markdown), colour (only on a terminal;
// NO_COLOR turns it off, CLICOLOR_FORCE on) and the KV chart. The answer is written into a
// StyledStream that carries them as one typed Style; the text writers read it from the stream
// they write to (style_of), so every writer renders its tables and headings in the chosen style
// without passing it through each call, and any other stream (a test's, the server's) reads as
// the plain default: a table, no colour, no chart.

#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>

#include "canitrun/error.hpp"

namespace canitrun::cli {

// `quiet` (--quiet) prints just the answer: a name, or one id per line.
// `html` (--format html) is the model page as one HTML document (html_report.hpp).
enum class Format { table, json, csv, markdown, quiet, html };

Result<Format> parse_format(const std::string& text);

// Colour for a stream that is a terminal or not, given NO_COLOR and CLICOLOR_FORCE
// (https://no-color.org, https://bixense.com/clicolors): NO_COLOR wins when both are set.
bool want_color(bool is_terminal, const char* no_color, const char* clicolor_force);

// The page's KV chart (chart.hpp): drawn on a terminal or when asked (--chart), never into a
// pipe unless asked; Unicode unless --ascii, TERM=dumb or a locale that is not UTF-8.
struct ChartChoice {
    bool draw = false;
    bool unicode = true;
    std::size_t width = 80;
};

struct Style {
    Format format = Format::table;
    bool color = false;  // only ever with Format::table
    ChartChoice chart;
};

// An answer being written, with the style it is written in.
class StyledStream : public std::ostringstream {
  public:
    // `reserve`: bytes of room from the start (a model page's JSON is ~74 KB; grown by
    // doubling, libstdc++ copied it some twenty times per answer).
    explicit StyledStream(const Style& style, std::size_t reserve = 0);
    const Style& style() const { return style_; }

  private:
    Style style_;
};

// The style of what `out` is: a StyledStream's own, else the default.
const Style& style_of(const std::ostream& out);
inline Format format_of(const std::ostream& out) {
    return style_of(out).format;
}
inline bool color_of(const std::ostream& out) {
    return style_of(out).color;
}
inline const ChartChoice& chart_of(const std::ostream& out) {
    return style_of(out).chart;
}

// The chart's choice from the flags, whether stdout is a terminal, its width (0: unknown) and
// the environment (TERM, LC_ALL / LC_CTYPE / LANG, COLUMNS).
ChartChoice choose_chart(bool asked, bool ascii, bool is_terminal, std::size_t columns);

enum class Tone { good, warn, bad };

// A section heading: bold on a colour terminal, "### text" in Markdown.
std::string heading(std::ostream& out, const std::string& text);
// A heading inside a section (each way to run a model): indented under the section's heading
// on a terminal, "#### text" in Markdown.
std::string subheading(std::ostream& out, const std::string& text);
// What starts a note on the line above it (the published runs behind a speed, a legend, a
// list of GPUs, what a command needs): an indent under that line on a terminal, a list item in
// Markdown, so the Markdown view (and the HTML made from it) fences only what is typed.
const char* note_mark(std::ostream& out);
std::string bold(std::ostream& out, const std::string& text);
std::string paint(std::ostream& out, Tone tone, const std::string& text);

// The text writers' output as Markdown: tables, headings and notes (note_mark) are already
// Markdown; prose lines lose their indent and get hard line breaks; indented command lines
// become code blocks.
std::string markdownify(const std::string& text);

}  // namespace canitrun::cli
