// --format html through the binary: one self-contained document (no scripts, nothing fetched),
// whose elements nest, whose tables hold the page's rows, and whose SVG chart has both series.
// tests/html_browser_test.py renders it in a real browser when one is installed.

#include <regex>
#include <utility>

#include "catch.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_cli;

namespace {

// Every element that is not void closes, in order. Returns the first problem, or "".
std::string nesting_problem(const std::string& html) {
    static const std::regex tag(R"(<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*?(/?)>)");
    const std::vector<std::string> voids = {"meta", "br", "line", "polyline", "sup"};
    std::vector<std::string> open;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), tag);
         it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[2];
        const bool closing = (*it)[1] == "/";
        const bool self_closing = (*it)[3] == "/";
        if (self_closing || (!closing && (name == "meta" || name == "br"))) continue;
        if (!closing) {
            open.push_back(name);
        } else if (open.empty() || open.back() != name) {
            return "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">");
        } else {
            open.pop_back();
        }
    }
    (void)voids;
    return open.empty() ? "" : "<" + open.back() + "> never closes";
}

std::size_t count(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

std::string section(const std::string& html, const std::string& cls) {
    const auto a = html.find("<table class=\"" + cls + "\"");
    if (a == std::string::npos) return "";
    return html.substr(a, html.find("</table>", a) - a);
}

}  // namespace

TEST_CASE("html: one self-contained document that nests") {
    const Outcome o = run_cli({"qwen3.5-35b-a3b", "--format", "html"});
    INFO(o.err);
    REQUIRE(o.code == 0);
    CHECK(o.out.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0) == 0);
    CHECK(has(o.out, "<meta charset=\"utf-8\">"));
    CHECK(has(o.out, "<meta name=\"viewport\""));
    CHECK(nesting_problem(o.out).empty());
    INFO(nesting_problem(o.out));
    // Nothing that a browser would fetch or run.
    for (const char* banned : {"<script", "<link", "<img", "<iframe", "src=", "url(", "@import"}) {
        INFO(banned);
        CHECK_FALSE(has(o.out, banned));
    }
    // The only addresses are the links a reader follows.
    static const std::regex href(R"re(href="([^"]*)")re");
    for (auto it = std::sregex_iterator(o.out.begin(), o.out.end(), href);
         it != std::sregex_iterator(); ++it) {
        CHECK(std::string((*it)[1]).rfind("https://", 0) == 0);
    }
    CHECK(has(o.out, "<a href=\"https://huggingface.co/Qwen/Qwen3.5-35B-A3B\">"));
}

TEST_CASE("html: the page's tables and chart") {
    const Outcome o = run_cli({"qwen3.5-35b-a3b", "--format", "html", "--engine", "quick"});
    REQUIRE(o.code == 0);
    // The reference page's quantization table: FP32 .. Q2_K and NVFP4, ten rows.
    const std::string quants = section(o.out, "quants");
    CHECK(count(quants, "<tr>") == 11);  // the header and ten rows
    // after the Download cell (download_size_cli_test.cpp)
    CHECK(has(quants, "<td>Q4_K_M (rec)</td><td>"));
    CHECK(has(quants, " GB</td><td>21.3 GB</td><td>0.17 GB</td><td>24.1 GB</td>"));
    // The matrix: Q8_0 .. Q3_K_M at 8k, 32k, 128k and 256k.
    const std::string matrix = section(o.out, "matrix");
    CHECK(count(matrix, "<tr>") == 6);
    CHECK(has(matrix, "29.9 GB · 32 GB card"));
    // Both series of the chart, and its end labels (5.4 GB, 21.5 GB on the page).
    CHECK(count(o.out, "<polyline class=\"series") == 2);
    CHECK(has(o.out, "data-series=\"this_model\""));
    CHECK(has(o.out, "data-series=\"all_attention\""));
    CHECK(has(o.out, ">5.4 GB</text>"));
    CHECK(has(o.out, ">21.5 GB</text>"));
    CHECK(has(o.out, ">24 GB</text>"));
    CHECK(has(o.out, "So should you run it?"));
    CHECK(has(o.out, "What GPU do I need?"));
}

TEST_CASE("html: escapes what the data says") {
    // The editorial quotes "doesn't": an apostrophe is escaped, never emitted raw in text.
    const Outcome o = run_cli({"qwen3.5-35b-a3b", "--format", "html"});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "doesn&#39;t quite clear the bar"));
}

TEST_CASE("html: refused where there is no model page") {
    // The same refusal as every other view a command lacks (check_offered), naming the command
    // and where the HTML page is.
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"models", "--format", "html"}, "models"},
        {{"gpus", "qwen3.5-35b-a3b", "--format", "html"}, "gpus"},
        {{"qwen3.5-35b-a3b", "--format", "html", "--engine", "vllm", "--gpu", "h100"}, "vLLM"},
        {{"qwen3.5-35b-a3b", "--format", "html", "--engine", "exo", "--host", "m4-max-64gb"},
         "exo"}};
    for (const auto& [args, what] : cases) {
        const Outcome o = run_cli(args);
        CHECK(o.code == 2);
        CHECK(o.out.empty());
        CHECK(has(o.err, "canitrun: error: --format html is not available for " + what));
        CHECK(has(o.err, "the HTML page is a database model's page"));
    }
}

TEST_CASE("html: what the terminal page shows for --gpu and --vram, and llama.cpp's buffers") {
    const Outcome o =
        run_cli({"qwen3.5-35b-a3b", "--format", "html", "--gpu", "RTX 4090", "--vram", "24"});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "<h2>Your question</h2>"));
    CHECK(has(o.out, "With 24 GB of VRAM: Q4_K_M"));
    CHECK(has(o.out, "On NVIDIA RTX 4090"));
    const std::string allocation = section(o.out, "allocation");
    for (const char* term :
         {"weights", "token_embd", "kv_cache", "recurrent_state", "compute", "runtime"}) {
        INFO(term);
        CHECK(has(allocation, std::string("<td>") + term + "</td>"));
    }
    CHECK(nesting_problem(o.out).empty());
}

// Issue #33: the --gpu answer was the terminal's lines in a <pre> (its CSS broke words anywhere
// and a phone's 390 px hid the columns). Now it is structured as the Markdown view is: the
// placement a table in a box that scrolls (two 3090s: GPU 0, GPU 1 and system RAM, three rows),
// the heading a heading, each sentence a paragraph.
TEST_CASE("html: the --gpu answer's placement is a table and its sentences paragraphs") {
    const Outcome o =
        run_cli({"llama-3.1-8b", "--format", "html", "--gpu", "2x3090", "--ctx", "32k"});
    REQUIRE(o.code == 0);
    const std::size_t begin = o.out.find("<div class=\"question\">");
    REQUIRE(begin != std::string::npos);
    const std::string answer = o.out.substr(begin, o.out.find("</div>\n<h2>", begin) - begin);
    CHECK(has(answer, "<h3>On 2x NVIDIA RTX 3090 + 32.0 GB RAM: Q4_K_M at 32,768 tokens</h3>"));
    CHECK(has(answer,
              "<div class=\"scroll\"><table class=\"answer\"><thead><tr>"
              "<th class=\"left\">Device</th><th>Layers</th>"));
    CHECK(count(answer, "<tr><td class=\"left\">GPU ") == 2);
    CHECK(count(answer, "<tr><td class=\"left\">System RAM</td>") == 1);
    CHECK(has(answer, "<p>llama.cpp: llama-server -hf "));
    CHECK_FALSE(has(answer, "-------"));  // no terminal rule line left
    CHECK_FALSE(has(o.out, "word-break:break-all"));
    CHECK(nesting_problem(o.out).empty());
}

// Issue #33: a note the terminal indents under its line (the speed band's published runs) was a
// fenced block in the Markdown, so the HTML answer held it in a <pre> on one line as long as the
// terminal's; the run section was one <pre> of headings, commands and sentences alike. Now a
// note is a list item that wraps, and only what is typed sits in a <pre>.
TEST_CASE("html: notes are prose, only commands are preformatted") {
    const Outcome o = run_cli({"llama-3.1-8b", "--format", "html", "--gpu", "RTX 4090"});
    REQUIRE(o.code == 0);
    const std::size_t begin = o.out.find("<div class=\"question\">");
    REQUIRE(begin != std::string::npos);
    const std::string answer = o.out.substr(begin, o.out.find("</div>\n<h2>", begin) - begin);
    CHECK_FALSE(has(answer, "<pre>"));
    CHECK(has(answer, "<ul class=\"notes\"><li>"));
    CHECK(has(answer, "published llama-bench runs"));
    const std::size_t run = o.out.find("<h2>How to run it locally");
    REQUIRE(run != std::string::npos);
    const std::string section = o.out.substr(run, o.out.find("<h2>Why", run) - run);
    // Meta's one sampling mode, Ollama and LM Studio: three headings, two commands to type.
    CHECK(count(section, "<h3>") == 3);
    CHECK(count(section, "<pre>") == 2);
    CHECK(has(section, "<pre>./llama-server \\\n  -hf bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:"));
    CHECK(has(section, "<h3>LM Studio</h3>\n<p>Search for "));
    CHECK(nesting_problem(o.out).empty());
}
