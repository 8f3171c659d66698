#pragma once
// The Markdown the text views write (--format markdown: markdownify() in style.hpp, Table's
// write_markdown) as HTML, so the HTML page shows an answer as the Markdown view structures it:
// its tables as tables that scroll inside their box, its sentences as paragraphs that wrap
// between words, never a terminal's fixed-width dump (issue #33: the --gpu answer at 390 px).

#include <string>

namespace canitrun::cli {

// What a ``` fenced block (a text view's lines indented under another) stands for: commands,
// kept as typed in a <pre>, or notes on the line above, each a list item that wraps as prose.
enum class Indented { code, notes };

// The subset markdownify() writes: "### " headings, "| a | b |" tables with their "| --- |"
// rule (---: right-aligned), ``` fenced blocks, and lines (one paragraph each).
std::string html_from_markdown(const std::string& markdown, Indented indented = Indented::code);

}  // namespace canitrun::cli
