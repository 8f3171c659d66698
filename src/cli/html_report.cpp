#include "html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "chart.hpp"
#include "format.hpp"
#include "launch_lines.hpp"
#include "markdown_html.hpp"
#include "page_facts.hpp"
#include "style.hpp"
#include "text_report.hpp"

namespace canitrun::cli {
namespace {

// Colours and layout: one column that narrows to a phone, tables that scroll inside their box
// rather than widen the page, and no colour the printout needs. On a phone (600 px and less)
// cells wrap and tighten, so no table hides columns behind its scrollbar at 390 px (the widest
// page's matrix is 836 px wide unwrapped; tests/serve/serve_browser_test.py checks it).
const char* const kStyle = R"(
:root{--fg:#1b1f24;--muted:#5b6470;--line:#d9dee4;--this:#0b6bcb;--twin:#c2410c;--bg:#fff}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:960px;margin:0 auto;padding:24px 16px}
h1{font-size:1.8rem;margin:0 0 4px}
h2{font-size:1.25rem;margin:32px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
p{margin:8px 0}
.muted{color:var(--muted);font-size:.9rem}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:12px;margin:16px 0}
.fact{border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.fact b{display:block;font-size:1.4rem}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}
pre{background:#f4f6f8;border-radius:6px;padding:10px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem}
h3{font-size:1.05rem;margin:16px 0 4px}
.question p{margin:4px 0}
.question ul.notes{margin:0 0 4px;color:var(--muted);font-size:.9rem}
td.left,th.left{text-align:left}
svg{width:100%;height:auto;max-width:720px;display:block}
svg text{font:12px system-ui,sans-serif;fill:var(--muted)}
.axis{stroke:var(--muted);stroke-width:1}
.grid{stroke:var(--line);stroke-width:1}
.series{fill:none;stroke-width:2.5}
.this-model{stroke:var(--this)}
.all-attention{stroke:var(--twin);stroke-dasharray:6 4}
.legend{display:flex;flex-wrap:wrap;gap:16px;font-size:.9rem}
.swatch{display:inline-block;width:24px;height:0;border-top:3px solid var(--this);vertical-align:middle;margin-right:6px}
.swatch.twin{border-top:3px dashed var(--twin)}
.layers{display:flex;flex-wrap:wrap;gap:2px;margin:8px 0}
.layer{width:14px;height:22px;border-radius:2px}
.k-full,.k-mla{background:var(--this)}.k-sliding{background:#7aa7dd}.k-linear{background:#d5dbe3}.k-ssm{background:#b9c2cd}.k-ffn{background:#eef1f4}.k-conv{background:#d5dbe3}
ul{margin:4px 0 8px 20px;padding:0}
dt{font-weight:600;margin-top:8px}dd{margin:0 0 4px}
a{color:var(--this);overflow-wrap:anywhere}
@media (max-width:600px){main{padding:16px 8px}th,td{white-space:normal;padding:2px 3px;font-size:.75rem}}
@media print{main{max-width:none}.scroll{overflow:visible}pre{white-space:pre-wrap}}
)";

std::string esc(const std::string& s) {
    return html_escape(s);
}

std::string title_of(const Model& m) {
    return m.name + (m.is_moe() ? " (MoE)" : "");
}

// A table from rows of cells; the first row is the header.
void table(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
           const std::string& cls = "") {
    out << "<div class=\"scroll\"><table" << (cls.empty() ? "" : " class=\"" + cls + "\"")
        << "><thead><tr>";
    for (const auto& h : rows.front()) out << "<th>" << esc(h) << "</th>";
    out << "</tr></thead><tbody>\n";
    for (std::size_t i = 1; i < rows.size(); ++i) {
        out << "<tr>";
        for (const auto& c : rows[i]) out << "<td>" << esc(c) << "</td>";
        out << "</tr>\n";
    }
    out << "</tbody></table></div>\n";
}

void fact(std::ostream& out, const std::string& label, const std::string& value,
          const std::string& note) {
    out << R"(<div class="fact"><span class="muted">)" << esc(label) << "</span><b>" << esc(value)
        << "</b><span class=\"muted\">" << esc(note) << "</span></div>\n";
}

void write_header(std::ostream& out, const ModelReport& r) {
    const Model& m = *r.model;
    out << "<h1>" << esc(title_of(m)) << "</h1>\n<p class=\"muted\">" << esc(m.vendor) << " · "
        << esc(format_params(m.params_total)) << " params";
    if (m.is_moe()) out << " · " << esc(format_params(m.params_active)) << " active (MoE)";
    out << " · " << esc(context_sentence(m));
    if (!m.license.empty()) out << " · " << esc(m.license);
    if (!m.released.empty()) out << " · released " << esc(m.released);
    out << "</p>\n<p>" << esc(title_of(m)) << " needs roughly "
        << esc(format_gb(r.selected.on(Device::gpu))) << " of VRAM at " << esc(r.quant->id)
        << " at " << esc(format_context(r.options.context)) << " context. "
        << count_of(r.gpus.native.size(), "GPU") << " we track " << runs_for(r.gpus.native.size())
        << " it fully in VRAM, " << r.gpus.offload.size()
        << " more with CPU offload.</p>\n<div class=\"facts\">\n";
    fact(out, r.quant->id + (r.rule == Rule::quick ? " total" : " on the GPU"),
         format_gb(r.selected.on(Device::gpu)),
         "at " + format_context(r.options.context) + " context");
    fact(out, "Smallest GPU",
         r.smallest_gpu ? fmt::format("{} GB", r.smallest_gpu->vram_gb) : std::string("none"),
         r.smallest_gpu ? display_name(*r.smallest_gpu) : "no single GPU holds it");
    fact(out, "KV cache, full context", format_gb(r.kv_full_context), kv_layers_note(r));
    if (r.growth && r.growth->total() > 0) {
        fact(out, "Grows after load", format_gb(r.growth->total()), growth_sentence(r));
    }
    if (m.arch.moe) {
        fact(out, "Active experts",
             fmt::format("{} routed{}", m.arch.moe->experts_per_token,
                         m.arch.moe->shared_experts
                             ? fmt::format(" + {} shared", m.arch.moe->shared_experts)
                             : ""),
             fmt::format("of {} total", m.arch.moe->experts));
    }
    out << "</div>\n<p class=\"muted\">Figures: "
        << (r.rule == Rule::quick ? "the reference page's rule (weights + KV cache + " +
                                        std::to_string(r.options.overhead_percent) + " %)."
                                  : "what llama.cpp allocates (tensors, KV cells, compute buffer, "
                                    "CUDA context), " +
                                        format_margin(r.settings.margin) + " kept free per GPU.")
        << " GB = 10<sup>9</sup> bytes.";
    if (const std::string outputs = outputs_sentence(r); !outputs.empty())
        out << " " << esc(outputs);
    out << "</p>\n";
}

// The answers to --vram and --gpu, as the terminal page words them, structured as the Markdown
// view structures them: the placement as a table that scrolls in its box, each sentence a
// paragraph that wraps between words at a phone's 390 px (a <pre> of the terminal's lines
// broke words and hid columns there).
void write_queries_html(std::ostream& out, const ModelReport& r) {
    StyledStream text(Style{.format = Format::markdown, .color = false, .chart = {}});
    write_queries(text, r);
    if (text.str().empty()) return;
    out << "<h2>Your question</h2>\n<div class=\"question\">\n"
        << html_from_markdown(markdownify(text.str())) << "</div>\n";
}

// The llama.cpp rule's buffers for the selected quantization, term by term.
void write_html_allocation(std::ostream& out, const ModelReport& r) {
    if (r.rule != Rule::llamacpp) return;
    out << "<h2>What llama.cpp allocates</h2>\n<p class=\"muted\">" << esc(r.quant->id) << ", "
        << esc(format_context(r.options.context)) << " context, one CUDA GPU; a GPU also keeps "
        << format_margin(r.settings.margin)
        << " free. The CUDA context (runtime) is as measured on an H200 "
           "(validation/cuda-h200).</p>\n";
    std::vector<std::vector<std::string>> rows = {{"Term", "Size", "Where"}};
    for (const auto& t : r.selected.terms) {
        rows.push_back(
            {term_name(t.kind), format_gb(t.bytes), t.device == Device::gpu ? "GPU" : "RAM"});
    }
    rows.push_back({"on the GPU", format_gb(r.selected.on(Device::gpu)), ""});
    rows.push_back({"in RAM", format_gb(r.selected.on(Device::cpu)), ""});
    table(out, rows, "allocation");
}

void write_tables(std::ostream& out, const ModelReport& r) {
    out << "<h2>VRAM at each quantization</h2>\n<p class=\"muted\">At "
        << esc(format_context(r.options.context)) << " context, KV cache "
        << esc(r.options.kv_type.id) << ".</p>\n";
    std::vector<std::vector<std::string>> rows = {
        {"Quant", "Download", "Weights", "KV cache", "VRAM", "RAM"}};
    for (const auto& row : r.rows) {
        rows.push_back({row.quant->id + (row.quant->recommended ? " (rec)" : ""),
                        download_text(row), format_gb(row.estimate.tensor_bytes()),
                        format_gb(row.estimate.term(TermKind::kv_cache)),
                        format_gb(row.estimate.on(Device::gpu)),
                        format_gb(row.estimate.on(Device::cpu))});
    }
    table(out, rows, "quants");
    out << "<p class=\"muted\">" << esc(kDownloadNote) << "</p>\n";
    if (const std::string mix = publisher_mix_text(r); !mix.empty())
        out << "<p class=\"muted\">" << esc(mix) << "</p>\n";
    write_html_allocation(out, r);
    if (r.matrix.empty()) return;
    out << "<h2>Quantization × context: where it fits</h2>\n";
    std::vector<std::vector<std::string>> m = {{"Quant"}};
    for (auto ctx : r.matrix_contexts) m[0].push_back(format_context(ctx) + " ctx");
    for (const auto& row : r.matrix) {
        std::vector<std::string> cells = {row.quant->id};
        for (const auto& c : row.cells) {
            cells.push_back(format_gb(c.total) + " · " +
                            (c.card ? fmt::format("{} GB card", c.card->gb) : "beyond every card"));
        }
        m.push_back(cells);
    }
    table(out, m, "matrix");
}

void write_layers(std::ostream& out, const ModelReport& r) {
    const Model& m = *r.model;
    const LayerPatternFacts f = layer_pattern_facts(m, true);
    out << "<h2>How the layers are built</h2>\n<p>" << esc(f.words)
        << "</p>\n<div class=\"layers\" "
        << R"(role="img" aria-label=")" << esc(f.words) << "\">";
    const std::vector<LayerKind> kinds = layer_kinds(m);
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        out << "<span class=\"layer k-" << layer_kind_name(kinds[i]) << "\" title=\"layer " << i + 1
            << ": " << esc(kind_label(m, kinds[i])) << "\"></span>";
    }
    out << "</div>\n<ul>";
    for (const auto& l : f.legend) out << "<li>" << esc(l.text) << "</li>";
    out << "</ul>\n";
}

// The KV chart as SVG: the same points and y step as the terminal chart.
void write_svg_chart(std::ostream& out, const ModelReport& r, bool twin) {
    const auto& curve = r.kv_curve;
    if (curve.empty()) return;
    const double w = 640, h = 300, left = 56, right = 96, top = 12, bottom = 36;
    double max = 0;
    for (const auto& p : curve) {
        max = std::max({max, static_cast<double>(p.this_model_bytes),
                        twin ? static_cast<double>(p.all_attention_bytes) : 0.0});
    }
    const double step = chart_step(max);
    const double y_max = step * kChartTicks;
    const auto x_max = static_cast<double>(curve.back().context);
    const auto x = [&](double v) { return left + (w - left - right) * v / x_max; };
    const auto y = [&](double v) { return top + (h - top - bottom) * (1 - v / y_max); };
    out << fmt::format(
        "<svg viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"KV cache against "
        "context\" xmlns=\"http://www.w3.org/2000/svg\">\n",
        w, h);
    for (std::size_t i = 0; i <= kChartTicks; ++i) {
        const double v = step * static_cast<double>(i);
        out << fmt::format(
            "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
            "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g} GB</text>\n",
            left, w - right, y(v), y(v), left - 6, y(v) + 4, v / 1e9);
        const double c = x_max * static_cast<double>(i) / kChartTicks;
        out << fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x(c),
                           h - bottom + 18,
                           i == 0 ? "0" : format_context(static_cast<std::uint64_t>(c)));
    }
    out << fmt::format("<line class=\"axis\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n", left,
                       w - right, h - bottom, h - bottom);
    const auto series = [&](const char* cls, const char* name, auto bytes) {
        std::string pts = fmt::format("{:.1f},{:.1f}", x(0), y(0));
        for (const auto& p : curve) {
            pts += fmt::format(" {:.1f},{:.1f}", x(static_cast<double>(p.context)),
                               y(static_cast<double>(bytes(p))));
        }
        const auto end = static_cast<double>(bytes(curve.back()));
        out << fmt::format(
            "<polyline class=\"series {}\" data-series=\"{}\" points=\"{}\"/>\n"
            "<text x=\"{}\" y=\"{:.1f}\">{}</text>\n",
            cls, name, pts, w - right + 6, y(end) + 4, esc(format_gb(bytes(curve.back()))));
    };
    series("this-model", "this_model", [](const KvCurvePoint& p) { return p.this_model_bytes; });
    if (twin) {
        series("all-attention", "all_attention",
               [](const KvCurvePoint& p) { return p.all_attention_bytes; });
    }
    out << "</svg>\n<div class=\"legend\"><span><span class=\"swatch\"></span>"
        << esc(r.model->name) << "</span>";
    if (twin) {
        out << "<span><span class=\"swatch twin\"></span>the same model if all "
            << r.model->arch.layers << " layers used full attention</span>";
    }
    out << "</div>\n";
}

void write_context_cost(std::ostream& out, const ModelReport& r) {
    const Model& m = *r.model;
    const bool twin = !is_all_attention(m);
    out << "<h2>What a full " << esc(format_thousands(m.context_native))
        << "-token context costs</h2>\n";
    std::vector<std::vector<std::string>> rows = {{"", "This model"}};
    if (twin) rows[0].push_back("All attention");
    const auto add = [&](const std::string& label, Bytes own, Bytes all) {
        rows.push_back({label, format_gb(own)});
        if (twin) rows.back().push_back(format_gb(all));
    };
    add("KV cache at " + format_context(m.context_native), r.kv_full_context,
        r.kv_all_attention_full_context);
    if (r.kv_growth_to_full && r.kv_all_attention_growth_to_full) {
        add("KV growth from " + format_context(r.options.context), *r.kv_growth_to_full,
            *r.kv_all_attention_growth_to_full);
    }
    add("Total at " + r.quant->id + (r.rule == Rule::llamacpp ? " (GPU + RAM)" : ""),
        r.total_full_context, r.total_all_attention_full_context);
    table(out, rows, "context-cost");
    out << "<p class=\"muted\">KV cache against context (" << esc(r.options.kv_type.id) << ", "
        << rule_name(r.rule) << " rule).</p>\n";
    write_svg_chart(out, r, twin);
}

void write_gpus_and_faq(std::ostream& out, const ModelReport& r) {
    out << "<h2>GPUs that run it natively (" << r.gpus.native.size() << ")</h2>\n<p>";
    for (std::size_t i = 0; i < r.gpus.native.size() && i < 24; ++i) {
        out << (i ? ", " : "") << esc(display_name(*r.gpus.native[i])) << " ("
            << r.gpus.native[i]->vram_gb << " GB)";
    }
    if (r.gpus.native.size() > 24) out << ", and " << r.gpus.native.size() - 24 << " more";
    out << "</p>\n<p class=\"muted\">Plus " << r.gpus.offload.size()
        << " GPUs that run it with CPU offload (slower), assuming " << format_ram_gb(r.fit.ram)
        << " GB of system RAM.</p>\n<h2>Frequently asked</h2>\n<dl>\n";
    for (const auto& e : faq_entries(r)) {
        out << "<dt>" << esc(e.question) << "</dt><dd>" << esc(e.answer) << "</dd>\n";
    }
    out << "</dl>\n";
}

// The terminal page's commands, each under its heading: what is typed in a <pre>, every
// sentence beside it a paragraph that wraps (a <pre> of the whole section kept the notes on
// lines as long as the terminal's).
void write_run_html(std::ostream& out, const ModelReport& r) {
    out << "<h2>How to run it locally (" << esc(r.quant->id) << ")</h2>\n";
    const std::vector<RunCommand> commands = run_commands(r);
    for (const RunCommand& c : commands) {
        if (c.engine != "llama.cpp") continue;
        out << "<h3>" << esc(c.heading) << "</h3>\n<pre>" << esc(llama_server_block(c, ""))
            << "</pre>\n";
    }
    const std::string format_note = run_format_note(r);
    if (!format_note.empty()) out << "<p>" << esc(format_note) << "</p>\n";
    for (const RunCommand& c : commands) {
        if (c.engine == "llama.cpp") continue;
        out << "<h3>" << esc(c.heading) << "</h3>\n";
        if (!c.command.empty()) {
            out << "<pre>" << esc(preset_command(c, "")) << (c.file_name.empty() ? "" : "./")
                << esc(c.command + (c.then.empty() ? "" : "   # then: " + c.then)) << "</pre>\n";
        }
        if (!c.note.empty()) out << "<p>" << esc(c.note) << "</p>\n";
        if (c.engine == "LM Studio") out << "<p>" << esc(lmstudio_advice(r)) << "</p>\n";
    }
}

void write_running(std::ostream& out, const ModelReport& r) {
    const Model& m = *r.model;
    write_run_html(out, r);
    out << "<h2>Why " << esc(r.quant->id) << "?</h2>\n<p>" << esc(why_quant(r)) << "</p>\n";
    const Editorial& e = m.editorial;
    if (!e.source.empty()) {
        if (!e.who_for.empty()) {
            out << "<h2>Who is " << esc(m.name) << " for?</h2>\n<p>"
                << esc(editorial_marked(r, e.who_for)) << "</p>\n";
        }
        const auto list = [&](const char* title, const std::vector<std::string>& items) {
            if (items.empty()) return;
            out << "<h2>" << title << "</h2>\n<ul>";
            for (const auto& i : items) out << "<li>" << esc(editorial_marked(r, i)) << "</li>";
            out << "</ul>\n";
        };
        list("Best for", e.best_for);
        list("Not ideal for", e.not_ideal_for);
        if (!e.verdict.empty()) {
            out << "<h2>So should you run it?</h2>\n<p>" << esc(editorial_marked(r, e.verdict))
                << "</p>\n";
        }
        out << "<p class=\"muted\">" << esc(editorial_caveat(r)) << "</p>\n";
    }
}

void write_tail(std::ostream& out, const ModelReport& r, const std::string& footer) {
    const Model& m = *r.model;
    if (!m.benchmarks.empty()) {
        out << "<h2>Benchmarks (vendor-reported)</h2>\n<p>";
        for (std::size_t i = 0; i < m.benchmarks.size(); ++i) {
            out << (i ? " · " : "") << esc(m.benchmarks[i].name) << " "
                << fmt::format("{}", m.benchmarks[i].score);
        }
        out << "</p>\n";
    }
    if (!m.notes.empty()) out << "<h2>Notes</h2>\n<p>" << esc(m.notes) << "</p>\n";
    const auto links = page_links(m);
    if (!links.empty()) {
        out << "<h2>Links</h2>\n<ul>";
        for (const auto& l : links) {
            out << "<li><a href=\"" << esc(l.url) << "\">" << esc(l.label) << "</a></li>";
        }
        out << "</ul>\n";
    }
    out << "<p class=\"muted\">Source: " << esc(m.source) << "<br>" << esc(footer) << "</p>\n";
}

}  // namespace

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

void write_html_report(std::ostream& out, const ModelReport& r, const std::string& footer) {
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        << "<title>Can it run " << esc(title_of(*r.model)) << "? · canitrun</title>\n<style>"
        << kStyle << "</style>\n</head>\n<body>\n<main>\n";
    write_header(out, r);
    write_queries_html(out, r);
    write_tables(out, r);
    write_layers(out, r);
    write_context_cost(out, r);
    write_gpus_and_faq(out, r);
    write_running(out, r);
    write_tail(out, r, footer);
    out << "</main>\n</body>\n</html>\n";
}

}  // namespace canitrun::cli
