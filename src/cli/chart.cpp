#include "chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "canitrun/kv_cache.hpp"
#include "format.hpp"
#include "style.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

constexpr std::size_t kRows = 12;            // text rows of the plot
constexpr std::size_t kTicks = kChartTicks;  // intervals on each axis

}  // namespace

double chart_step(double max) {
    if (max <= 0) return 1;
    const double raw = max / kTicks;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
        if (m * mag >= raw * (1 - 1e-12)) return m * mag;
    }
    return 10 * mag;
}

namespace {

// y at x on the series' polyline, which starts at the origin.
double value_at(const ChartSeries& s, double x) {
    double x0 = 0, y0 = 0;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
        if (x <= s.x[i]) {
            const double span = s.x[i] - x0;
            return span <= 0 ? s.y[i] : y0 + (s.y[i] - y0) * (x - x0) / span;
        }
        x0 = s.x[i];
        y0 = s.y[i];
    }
    return y0;
}

// Dot rows (or text rows in ASCII) from the bottom, one per dot column.
std::vector<std::size_t> trace(const ChartSeries& s, double x_max, double y_max,
                               std::size_t columns, std::size_t levels) {
    std::vector<std::size_t> out(columns);
    for (std::size_t c = 0; c < columns; ++c) {
        const double x = (static_cast<double>(c) + 1) / static_cast<double>(columns) * x_max;
        const double f = std::clamp(value_at(s, x) / y_max, 0.0, 1.0);
        out[c] = static_cast<std::size_t>(std::lround(f * static_cast<double>(levels - 1)));
    }
    return out;
}

// Braille: bit of dot (dx, dy) in a cell, dy from the top (U+2800 block, ISO/TR 11548-1).
unsigned braille_bit(std::size_t dx, std::size_t dy) {
    static const unsigned bits[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
    return bits[dx][dy];
}

std::string braille(unsigned bits) {
    const unsigned cp = 0x2800 + bits;
    std::string s;
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
    return s;
}

using Grid = std::vector<std::vector<std::string>>;  // [row from top][column]

Grid plot_braille(const std::vector<ChartSeries>& series, double x_max, double y_max,
                  std::size_t cols) {
    std::vector<std::vector<unsigned>> bits(kRows, std::vector<unsigned>(cols, 0));
    const std::size_t levels = kRows * 4;
    for (std::size_t k = 0; k < series.size(); ++k) {
        const auto ys = trace(series[k], x_max, y_max, cols * 2, levels);
        std::size_t prev = 0;
        for (std::size_t c = 0; c < ys.size(); ++c) {
            // The second series is dotted: every other dot column.
            if (k == 1 && c % 2 == 1) continue;
            const std::size_t lo = std::min(prev, ys[c]), hi = std::max(prev, ys[c]);
            for (std::size_t y = (k == 1 ? ys[c] : lo); y <= (k == 1 ? ys[c] : hi); ++y) {
                const std::size_t from_top = levels - 1 - y;
                bits[from_top / 4][c / 2] |= braille_bit(c % 2, from_top % 4);
            }
            prev = ys[c];
        }
    }
    Grid g(kRows, std::vector<std::string>(cols, " "));
    for (std::size_t r = 0; r < kRows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            if (bits[r][c] != 0) g[r][c] = braille(bits[r][c]);
        }
    }
    return g;
}

Grid plot_ascii(const std::vector<ChartSeries>& series, double x_max, double y_max,
                std::size_t cols) {
    Grid g(kRows, std::vector<std::string>(cols, " "));
    const char* marks[] = {"*", "o"};
    for (std::size_t k = series.size(); k-- > 0;) {  // the first series on top
        const auto ys = trace(series[k], x_max, y_max, cols, kRows);
        for (std::size_t c = 0; c < cols; ++c) g[kRows - 1 - ys[c]][c] = marks[k % 2];
    }
    return g;
}

// The row (from the top) each tick value sits on.
std::size_t tick_row(std::size_t i) {
    const std::size_t levels = kRows * 4;
    const std::size_t dot = (levels - 1) * i / kTicks;
    return kRows - 1 - dot / 4;
}

}  // namespace

std::vector<std::string> render_chart(const std::vector<ChartSeries>& series, double x_max,
                                      std::string (*x_tick)(double), std::string (*y_tick)(double),
                                      const ChartStyle& style, const std::string& indent) {
    double top = 0;
    for (const auto& s : series) {
        for (const double y : s.y) top = std::max(top, y);
    }
    const double step = chart_step(top);
    const double y_max = step * kTicks;
    std::vector<std::string> y_labels(kRows);
    std::size_t label_w = 0;
    for (std::size_t i = 0; i <= kTicks; ++i) {
        y_labels[tick_row(i)] = y_tick(step * static_cast<double>(i));
        label_w = std::max(label_w, y_labels[tick_row(i)].size());
    }
    std::size_t end_w = 0;
    for (const auto& s : series) end_w = std::max(end_w, s.end_label.size());
    const std::size_t width = std::max<std::size_t>(style.width, 80);
    const std::size_t used = indent.size() + label_w + 2 + end_w + 2;
    const std::size_t cols = std::min<std::size_t>(width - used, 120);
    const Grid grid = style.unicode ? plot_braille(series, x_max, y_max, cols)
                                    : plot_ascii(series, x_max, y_max, cols);
    // Each line's end label on the row where it ends; a clash moves the lower one down.
    std::vector<std::string> ends(kRows);
    std::vector<std::size_t> taken;
    for (const auto& s : series) {
        // The row the line's last dot is drawn in, by the same trace as the plot.
        const std::size_t levels = style.unicode ? kRows * 4 : kRows;
        const std::size_t y =
            trace(s, x_max, y_max, style.unicode ? cols * 2 : cols, levels).back();
        std::size_t row = (levels - 1 - y) / (style.unicode ? 4 : 1);
        while (std::find(taken.begin(), taken.end(), row) != taken.end() && row + 1 < kRows) ++row;
        taken.push_back(row);
        ends[row] = s.end_label;
    }
    const std::string tick_mark = style.unicode ? "┤" : "+";
    const std::string bar = style.unicode ? "│" : "|";
    std::vector<std::string> out;
    for (std::size_t r = 0; r < kRows; ++r) {
        std::string line = indent + fmt::format("{:>{}} ", y_labels[r], label_w);
        line += y_labels[r].empty() ? bar : tick_mark;
        for (const auto& cell : grid[r]) line += cell;
        if (!ends[r].empty()) line += " " + ends[r];
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out.push_back(line);
    }
    // The x axis: a tick under the cell where each quarter of the window ends, its label
    // centred on it (the first left-aligned at the corner, the last right-aligned).
    const std::size_t corner = indent.size() + label_w + 1;
    std::vector<std::size_t> tick_cells;
    for (std::size_t i = 1; i <= kTicks; ++i) tick_cells.push_back(cols * i / kTicks - 1);
    std::string axis = indent + std::string(label_w + 1, ' ') + (style.unicode ? "└" : "+");
    for (std::size_t c = 0; c < cols; ++c) {
        const bool tick = std::find(tick_cells.begin(), tick_cells.end(), c) != tick_cells.end();
        axis += tick ? (style.unicode ? "┴" : "+") : (style.unicode ? "─" : "-");
    }
    std::string labels(corner + cols + end_w + 2, ' ');
    for (std::size_t i = 0; i <= kTicks; ++i) {
        const std::string t = x_tick(x_max * static_cast<double>(i) / kTicks);
        const std::size_t at = i == 0 ? corner : corner + 1 + tick_cells[i - 1];
        const std::size_t start = i == 0 ? at : i == kTicks ? at + 1 - t.size() : at - t.size() / 2;
        labels.replace(start, t.size(), t);
    }
    while (!labels.empty() && labels.back() == ' ') labels.pop_back();
    out.push_back(axis);
    out.push_back(labels);
    // The legend on one line when it fits the width, else one line per series.
    const std::string solid = style.unicode ? "⠤⠤" : "**";
    const std::string dotted = style.unicode ? "⠄⠠" : "oo";
    const std::string lead = indent + std::string(label_w + 2, ' ');
    std::vector<std::string> entries;
    for (std::size_t k = 0; k < series.size(); ++k) {
        entries.push_back((k == 0 ? solid : dotted) + " " + series[k].label);
    }
    std::string legend = lead;
    for (std::size_t k = 0; k < entries.size(); ++k) legend += (k ? "   " : "") + entries[k];
    if (display_width(legend) <= width) {
        out.push_back(legend);
    } else {
        for (const auto& e : entries) out.push_back(lead + e);
    }
    return out;
}

namespace {

std::string gb_tick(double bytes) {
    return fmt::format("{:g} GB", bytes / 1e9);
}

std::string token_tick(double tokens) {
    if (tokens <= 0) return "0";
    return format_context(static_cast<std::uint64_t>(std::llround(tokens)));
}

}  // namespace

std::vector<std::string> kv_chart_lines(const std::vector<KvCurvePoint>& curve,
                                        const std::string& this_label,
                                        const std::string& twin_label, const ChartStyle& style,
                                        const std::string& indent) {
    ChartSeries own{this_label, {}, {}, {}}, twin{twin_label, {}, {}, {}};
    for (const auto& p : curve) {
        own.x.push_back(static_cast<double>(p.context));
        own.y.push_back(static_cast<double>(p.this_model_bytes));
        twin.x.push_back(static_cast<double>(p.context));
        twin.y.push_back(static_cast<double>(p.all_attention_bytes));
    }
    if (!curve.empty()) {
        own.end_label = format_gb(curve.back().this_model_bytes);
        twin.end_label = format_gb(curve.back().all_attention_bytes);
    }
    const double x_max = curve.empty() ? 1 : static_cast<double>(curve.back().context);
    std::vector<ChartSeries> series = {own};
    if (!twin_label.empty()) series.push_back(twin);
    return render_chart(series, x_max, token_tick, gb_tick, style, indent);
}

void write_kv_chart_section(std::ostream& out, const Model& m,
                            const std::vector<KvCurvePoint>& curve, const std::string& caption,
                            const std::string& quant) {
    const ChartChoice c = chart_of(out);
    if (!c.draw || curve.empty()) return;
    const bool twin = !is_all_attention(m);
    // full layers that keep a cache of their own (count_kv_layers), and MLA without a window
    std::uint64_t every_token = count_kv_layers(m, LayerKind::full);
    for (const auto& g : m.arch.layer_groups) {
        if (g.kind == LayerKind::mla && attends_every_token(g)) every_token += g.count;
    }
    const std::string own = twin ? fmt::format("{}: {} of {} layers cache every token", m.name,
                                               every_token, m.arch.layers)
                                 : m.name;
    const std::string twin_label =
        twin ? fmt::format("the same model if all {} layers used full attention", m.arch.layers)
             : std::string();
    const bool md = format_of(out) == Format::markdown;
    out << "\n  KV cache against context (" << caption << "; GB = 10^9 bytes)\n";
    for (const auto& line :
         kv_chart_lines(curve, own, twin_label, {c.width, c.unicode}, md ? "    " : "  ")) {
        out << line << "\n";
    }
    const KvCurvePoint& first = curve.front();
    const KvCurvePoint& last = curve.back();
    out << "  Total at " << quant << ": " << format_gb(first.this_model_total_bytes) << " at "
        << format_context(first.context) << " to " << format_gb(last.this_model_total_bytes)
        << " at " << format_context(last.context);
    if (twin) {
        out << " (all attention: " << format_gb(first.all_attention_total_bytes) << " to "
            << format_gb(last.all_attention_total_bytes) << ")";
    }
    out << ".\n";
}

}  // namespace canitrun::cli
