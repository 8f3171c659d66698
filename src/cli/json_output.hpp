#pragma once
// JSON documents for scripts. Byte counts are integers; nothing is rounded.

#include <nlohmann/json_fwd.hpp>

#include "canitrun/database.hpp"
#include "canitrun/report.hpp"

namespace canitrun::cli {

nlohmann::json model_report_json(const ModelReport& report);
nlohmann::json model_json(const Model& model);
nlohmann::json gpu_json(const Gpu& gpu);
nlohmann::json quant_json(const Quant& quant);
nlohmann::json estimate_json(const Estimate& estimate);
// The KV chart's points (kv_comparison.curve).
nlohmann::json kv_curve_json(const std::vector<KvCurvePoint>& curve);

}  // namespace canitrun::cli
