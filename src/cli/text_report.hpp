#pragma once
// The model page as terminal text.

#include <ostream>

#include "canitrun/report.hpp"

namespace canitrun::cli {

void write_text_report(std::ostream& out, const ModelReport& report);

}  // namespace canitrun::cli
