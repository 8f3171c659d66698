#pragma once
// JSON documents for scripts. Byte counts are integers; nothing is rounded.

#include <nlohmann/json_fwd.hpp>

#include "canitrun/database.hpp"
#include "canitrun/report.hpp"

namespace canitrun::cli {

class JsonSink;

// The model page's document, written into a sink (json_sink.hpp): as text for --json, as the
// tree by model_report_json for the commands that take parts of it.
void write_model_report(JsonSink& w, const ModelReport& r);
nlohmann::json model_report_json(const ModelReport& report);
nlohmann::json model_json(const Model& model);
nlohmann::json gpu_json(const Gpu& gpu);
nlohmann::json quant_json(const Quant& quant);
nlohmann::json estimate_json(const Estimate& estimate);
// The KV chart's points (kv_comparison.curve).
nlohmann::json kv_curve_json(const std::vector<KvCurvePoint>& curve);

}  // namespace canitrun::cli
