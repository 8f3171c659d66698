#pragma once
// The model page as a command result: the text report, its JSON and CSV (the KV chart's points
// with --chart), --quiet's one answer and the HTML page. A database model's page and a
// config.json model's page are both this one view.

#include <memory>
#include <string>

#include "canitrun/report.hpp"
#include "command_result.hpp"

namespace canitrun::cli {

// --quiet: the plan's kind on --gpu, the best quantization in a --vram budget, else the
// smallest GPU that runs it natively ("none" when no GPU or quantization does).
std::string quiet_answer(const ModelReport& report);

// `chart_csv`: --chart with --format csv writes the chart's points instead of the rows;
// `footer`: who made the HTML page, from which data.
CommandResult model_page_result(const std::shared_ptr<const ModelReport>& report, bool chart_csv,
                                const std::string& footer);

}  // namespace canitrun::cli
