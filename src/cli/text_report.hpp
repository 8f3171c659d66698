#pragma once
// The model page as terminal text.

#include <ostream>

#include "canitrun/report.hpp"

namespace canitrun::cli {

void write_text_report(std::ostream& out, const ModelReport& report);

// The user's own questions (--vram, --gpu), as the page prints them first; empty without them.
void write_queries(std::ostream& out, const ModelReport& report);

}  // namespace canitrun::cli
