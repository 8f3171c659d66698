#pragma once
// CSV for spreadsheets: each command's main table, one header line, raw numbers (bytes as
// integers, tokens/s unrounded), quoted as RFC 4180 says.

#include <ostream>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/detect.hpp"
#include "canitrun/hardware_questions.hpp"
#include "canitrun/report.hpp"

namespace canitrun::cli {

std::string csv_field(const std::string& text);

class CsvWriter {
  public:
    CsvWriter(std::ostream& out, const std::vector<std::string>& header);
    void row(const std::vector<std::string>& fields);

  private:
    std::ostream& out_;
};

void write_model_csv(std::ostream& out, const ModelReport& report);  // one row per quantization
// The answer to --gpu: the selected quantization's placement, one row per GPU and one for RAM.
// Needs report.hardware.
void write_placement_csv(std::ostream& out, const ModelReport& report);
// The KV chart's points (--chart --format csv).
void write_kv_curve_csv(std::ostream& out, const ModelReport& r);
void write_gpus_csv(std::ostream& out, const ModelReport& report);
void write_models_csv(std::ostream& out, const std::vector<const Model*>& models);
void write_gpu_list_csv(std::ostream& out, const std::vector<const Gpu*>& gpus);
void write_quants_csv(std::ostream& out, const Database& db);
void write_model_fits_csv(std::ostream& out, const std::vector<ModelFit>& fits);
void write_system_csv(std::ostream& out, const DetectedSystem& system, const Hardware& hardware);

}  // namespace canitrun::cli
