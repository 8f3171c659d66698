#pragma once
// The Markdown the text views write (--format markdown: markdownify() in style.hpp, Table's
// write_markdown) as HTML, so the HTML page shows an answer as the Markdown view structures it:
// its tables as tables that scroll inside their box, its sentences as paragraphs that wrap
// between words, never a terminal's fixed-width dump (issue #33: the --gpu answer at 390 px).

#include <string>

namespace canitrun::cli {

// The subset markdownify() writes: "### " and "#### " headings, "| a | b |" tables with their
// "| --- |" rule (---: right-aligned), ``` fenced blocks (what is typed, kept in a <pre>), "- "
// notes (note_mark in style.hpp: a list whose items wrap as prose), and lines (one paragraph
// each).
std::string html_from_markdown(const std::string& markdown);

}  // namespace canitrun::cli
