#include "web_pages.hpp"

#include "answer_cache.hpp"
#include "ask.hpp"
#include "canitrun/database.hpp"
#include "embedded_assets.hpp"

namespace canitrun::serve {
namespace {

HttpAnswer html_answer(std::string body) {
    HttpAnswer a;
    a.content_type = "text/html; charset=utf-8";
    a.body = std::move(body);
    return a;
}

// A page around the CLI's table, as the terminal prints it (no colour: not a terminal).
std::string table_page(std::string_view title, std::string_view text) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<title>" +
           html_escape(title) +
           " - canitrun</title>\n<link rel=\"icon\" href=\"data:,\">\n<link rel=\"stylesheet\" "
           "href=\"/assets/site.css\">\n"
           "</head><body><main>\n<p><a href=\"/\">canitrun</a></p>\n<h1>" +
           html_escape(title) + "</h1>\n<pre class=\"cli\">" + html_escape(text) +
           "</pre>\n</main></body></html>\n";
}

// /gpus/{model}, /fit, /compare: the API's argv without --json, so the page shows the table.
HttpAnswer table_answer(const Target& target, const ApiPolicy& policy) {
    Target api = target;
    api.path = "/api/v1" + target.path;
    auto argv = api_argv(api, policy);
    if (!argv) return error_answer(argv.error().status, argv.error().message);
    argv->pop_back();  // --json
    const cli::Asked asked = cached_ask(*argv, !policy.allow_remote);
    if (asked.code > 1) return failed_answer(asked.code, asked.err);
    std::string title = "canitrun";
    for (const std::string& a : *argv) title += " " + a;
    return html_answer(table_page(title, asked.out));
}

HttpAnswer model_page(const Target& target, const ApiPolicy& policy) {
    const std::string model = target.path.substr(std::string_view("/models/").size());
    if (!target.params.empty()) return error_answer(400, "the model page takes no parameters");
    Target api;
    api.path = "/api/v1/models/" + model;
    auto argv = api_argv(api, policy);
    if (!argv) return error_answer(argv.error().status, argv.error().message);
    if (!policy.db->find_model(model)) {
        return error_answer(404, "a page is made for a database model only");
    }
    const cli::Asked asked = cached_ask({model, "--format", "html"});
    if (asked.code > 1) return failed_answer(asked.code, asked.err);
    return html_answer(with_calculator(asked.out, model, PageMode::live));
}

}  // namespace

std::string with_calculator(const std::string& html, const std::string& model, PageMode mode) {
    const std::string root = mode == PageMode::live ? "/" : "../";
    std::string page = html;
    // data: as the icon, so the browser asks no /favicon.ico.
    const std::string head =
        "<link rel=\"icon\" href=\"data:,\">\n<link rel=\"stylesheet\" href=\"" + root +
        "assets/site.css\">\n<script defer src=\"" + root + "assets/calculator.js\"></script>\n";
    if (const std::size_t at = page.find("</head>"); at != std::string::npos) {
        page.insert(at, head);
    }
    // The calculator goes before the page's first section, under the title and its facts.
    const std::string section =
        R"(<section id="calculator" data-model=")" + html_escape(model) + R"(" data-mode=")" +
        (mode == PageMode::live ? "live" : "static") + R"(" data-root=")" + root +
        R"("><h2>Calculator</h2><noscript>The calculator needs JavaScript; the page below is )"
        "the default answer.</noscript></section>\n";
    if (const std::size_t at = page.find("<h2>"); at != std::string::npos) {
        page.insert(at, section);
    }
    return page;
}

HttpAnswer page_answer(const Target& target, const ApiPolicy& policy) {
    const std::string_view path = target.path;
    if (path == "/" || path == "/index.html") {
        HttpAnswer a = html_answer(std::string(find_asset("/index.html")->bytes));
        return a;
    }
    if (const Asset* asset = find_asset(path); asset != nullptr && path.starts_with("/assets/")) {
        HttpAnswer a;
        a.content_type = std::string(content_type_of(path));
        a.body = std::string(asset->bytes);
        return a;
    }
    if (path.starts_with("/models/") && path.size() > std::string_view("/models/").size()) {
        return model_page(target, policy);
    }
    if (path.starts_with("/gpus/") || path == "/fit" || path == "/compare") {
        return table_answer(target, policy);
    }
    return error_answer(404, "no such page: " + target.path);
}

}  // namespace canitrun::serve
