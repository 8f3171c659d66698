#pragma once
// The pages a browser asks for: the index (search over models and GPUs), each model's page (the
// HTML view of `canitrun ID --format html`, with the live calculator added), the gpus, fit and
// compare pages (the CLI's table, as the terminal shows it), and the embedded assets.

#include "api_answer.hpp"
#include "html_report.hpp"
#include "request_target.hpp"

namespace canitrun::serve {

// How a page reaches the API: live (a server answers /api/v1/...) or static (`canitrun site`
// wrote each document as a .json file beside the pages).
enum class PageMode { live, static_site };

// The answer for any path outside /api/v1/.
HttpAnswer page_answer(const Target& target, const ApiPolicy& policy);

// The model page with the calculator: the CLI's HTML page plus the calculator's section, its
// stylesheet and its script. `html` is what `canitrun ID --format html` printed.
std::string with_calculator(const std::string& html, const std::string& model, PageMode mode);

// Text made safe inside HTML (& < > " '): the HTML view's one rule.
using cli::html_escape;

}  // namespace canitrun::serve
