#pragma once
// How output looks: the format (--format table|json|csv|markdown) and colour (only on a
// terminal; NO_COLOR turns it off, CLICOLOR_FORCE on). The text writers read both from the
// stream they write to (std::ostream::iword, as the standard manipulators do), so every writer
// renders its tables and headings in the chosen style without passing it through each call.

#include <ostream>
#include <string>

#include "canitrun/error.hpp"

namespace canitrun::cli {

// `quiet` (--quiet) prints just the answer: a name, or one id per line.
enum class Format { table, json, csv, markdown, quiet };

Result<Format> parse_format(const std::string& text);

// Colour for a stream that is a terminal or not, given NO_COLOR and CLICOLOR_FORCE
// (https://no-color.org, https://bixense.com/clicolors): NO_COLOR wins when both are set.
bool want_color(bool is_terminal, const char* no_color, const char* clicolor_force);

void set_style(std::ostream& out, Format format, bool color);
Format format_of(std::ostream& out);
bool color_of(std::ostream& out);

enum class Tone { good, warn, bad };

// A section heading: bold on a colour terminal, "### text" in Markdown.
std::string heading(std::ostream& out, const std::string& text);
std::string bold(std::ostream& out, const std::string& text);
std::string paint(std::ostream& out, Tone tone, const std::string& text);

// The text writers' output as Markdown: tables and headings are already Markdown; prose lines
// lose their indent and get hard line breaks; indented command lines become code blocks.
std::string markdownify(const std::string& text);

}  // namespace canitrun::cli
