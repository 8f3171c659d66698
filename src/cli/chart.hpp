#pragma once
// A line chart in the terminal: the page's "KV cache against context" as Braille dots (each
// character cell holds 2 x 4 dots), or as plain ASCII where the terminal cannot show Unicode.
// Two series: the first drawn solid, the second dotted, so they stay apart without colour.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "canitrun/kv_curve.hpp"

namespace canitrun::cli {

struct ChartStyle {
    std::size_t width = 80;  // terminal columns; below 80 the chart is drawn at 80
    bool unicode = true;     // Braille and box drawing; false: ASCII only
};

struct ChartSeries {
    std::string label;         // for the legend
    std::string end_label;     // printed at the line's right end ("5.4 GB")
    std::vector<double> x, y;  // the points, x ascending; the origin is implied
};

// The y axis step both the terminal and the HTML chart use: the smallest "nice" step (1, 2,
// 2.5, 3, 4, 5, 6, 8 x 10^k) whose four steps reach `max`.
double chart_step(double max);
inline constexpr std::size_t kChartTicks = 4;

// The chart's lines (no trailing newline on each), `indent` before each; y values and ticks
// are formatted by `y_tick`, x ticks by `x_tick`.
std::vector<std::string> render_chart(const std::vector<ChartSeries>& series, double x_max,
                                      std::string (*x_tick)(double), std::string (*y_tick)(double),
                                      const ChartStyle& style, const std::string& indent);

// The KV curve of the page as that chart: KV cache in GB against context in tokens. An empty
// `twin_label` draws the model alone (a stack that is all full attention has no twin).
std::vector<std::string> kv_chart_lines(const std::vector<KvCurvePoint>& curve,
                                        const std::string& this_label,
                                        const std::string& twin_label, const ChartStyle& style,
                                        const std::string& indent = "  ");

// The chart with its caption and a line of totals, when the stream's style asks for a chart
// (style.hpp: on a terminal, or --chart). `caption` says the KV type and rule, `quant` names
// the weights in the totals.
void write_kv_chart_section(std::ostream& out, const Model& model,
                            const std::vector<KvCurvePoint>& curve, const std::string& caption,
                            const std::string& quant);

}  // namespace canitrun::cli
