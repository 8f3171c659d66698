#pragma once
// Hardware answers as JSON: every byte figure per device, layers, RAM, tokens/s and the
// assumptions behind them.

#include <nlohmann/json_fwd.hpp>

#include "canitrun/detect.hpp"
#include "canitrun/hardware_report.hpp"

namespace canitrun::cli {

class JsonSink;

nlohmann::json hardware_json(const Hardware& hardware);
nlohmann::json hardware_answer_json(const HardwareAnswer& answer, const Hardware& hardware);
nlohmann::json hardware_report_json(const Model& model, const HardwareReport& report);
// The same documents written into a sink (json_sink.hpp): the tree above, or text.
void write_hardware_answer(JsonSink& w, const HardwareAnswer& a, const Hardware& hardware);
void write_hardware_report(JsonSink& w, const Model& model, const HardwareReport& r);
nlohmann::json system_json(const DetectedSystem& system, const Hardware& hardware);
nlohmann::json model_fits_json(const Hardware& hardware, const EstimateOptions& options,
                               const std::vector<ModelFit>& fits);

}  // namespace canitrun::cli
