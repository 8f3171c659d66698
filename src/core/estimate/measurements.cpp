#include "canitrun/measurements.hpp"

#include <cctype>
#include <nlohmann/json.hpp>

#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/plan_settings.hpp"

namespace canitrun {
namespace {

using nlohmann::json;

std::string text_field(const json& row, const char* key) {
    const auto it = row.find(key);
    return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// llama-bench prints F16 / F32 where canitrun's quantization ids say FP16 / FP32.
std::string quant_id(std::string q) {
    if (q == "F16") return "FP16";
    if (q == "F32") return "FP32";
    return q;
}

Result<Measurement> measurement_from(const json& row, std::size_t index) {
    const auto where = "validation row " + std::to_string(index + 1);
    if (!row.is_object()) return fail(ErrorKind::bad_database, where + " is not an object");
    Measurement m;
    m.model_id = text_field(row, "model_id");
    m.exact_model = !m.model_id.empty();
    if (m.model_id.empty()) m.model_id = text_field(row, "nearest_model_id");
    m.quant = quant_id(text_field(row, "quant"));
    m.gpu_id = text_field(row, "gpu_id");
    m.backend = text_field(row, "backend");
    m.test = text_field(row, "test");
    m.build = text_field(row, "build");
    m.date = text_field(row, "date");
    m.source = text_field(row, "source");
    m.note = text_field(row, "note");
    m.outlier = m.note.find("outlier") != std::string::npos;
    const auto tps = row.find("tokens_per_second");
    if (tps == row.end() || !tps->is_number() || tps->get<double>() <= 0) {
        return fail(ErrorKind::bad_database, where + " has no tokens_per_second");
    }
    m.tokens_per_second = tps->get<double>();
    if (const auto n = row.find("n_gpus"); n != row.end() && n->is_number_unsigned())
        m.n_gpus = n->get<std::uint64_t>();
    if (const auto n = row.find("ngl"); n != row.end() && n->is_number_unsigned())
        m.ngl = n->get<std::uint64_t>();
    if (m.source.empty()) return fail(ErrorKind::bad_database, where + " has no source");
    return m;
}

}  // namespace

Result<std::vector<Measurement>> parse_measurements(std::string_view json_text) {
    const json doc = json::parse(json_text, nullptr, false);
    if (doc.is_discarded() || !doc.is_array()) {
        return fail(ErrorKind::bad_database, "validation/llama-bench.json is not a JSON array");
    }
    std::vector<Measurement> out;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        CANITRUN_TRY_ASSIGN(auto m, measurement_from(doc[i], i));
        out.push_back(std::move(m));
    }
    return out;
}

Result<BenchRun> bench_run_for(const Database& db, const Measurement& m) {
    if (m.model_id.empty()) return fail(ErrorKind::bad_input, "model not in the database");
    if (m.gpu_id.empty()) return fail(ErrorKind::bad_input, "GPU not in the database");
    if (m.backend == "CPU") return fail(ErrorKind::bad_input, "a CPU run");
    // -ngl 99 (or more) puts every layer on the GPUs; a smaller count offloads.
    if (m.ngl < 99)
        return fail(ErrorKind::bad_input,
                    "layers kept in RAM (-ngl " + std::to_string(m.ngl) + ")");
    if (m.n_gpus == 0 || m.n_gpus > 64) return fail(ErrorKind::bad_input, "odd GPU count");
    CANITRUN_TRY_ASSIGN(auto model, db.find_model(m.model_id));
    CANITRUN_TRY_ASSIGN(auto quant, db.find_quant(m.quant));
    CANITRUN_TRY_ASSIGN(auto gpu, db.find_gpu(m.gpu_id));
    CANITRUN_TRY_ASSIGN(auto test, parse_bench_test(m.test));
    BenchRun run;
    run.model = model;
    run.quant = quant;
    run.gpus.assign(m.n_gpus, gpu);
    run.test = test;
    return run;
}

// llama.cpp before 2024 lacked today's MoE and prefill kernels. The model predicts the backend
// canitrun plans a device with (CUDA, ROCm, Metal); AMD APUs and Intel GPUs run Vulkan, ROCm or
// SYCL about as often, so any of those counts there and the error band carries the spread.
std::string fit_exclusion(const Measurement& m, const Hardware& hardware) {
    if (m.outlier) return "flagged as an outlier in its note (kept in the data, not fitted)";
    if (!m.date.empty() && m.date < "2024") return "llama.cpp built before 2024";
    if (hardware.gpus.empty()) return "a CPU run";
    const GpuDevice& d = hardware.gpus.front();
    const SpeedClass c = speed_class(d);
    if (c == SpeedClass::amd_apu || c == SpeedClass::intel) return {};
    const auto lower = [](std::string s) {
        for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return s;
    };
    if (lower(m.backend) != lower(backend_name(backend_for(d)))) {
        return "run on a backend other than the one canitrun plans the device with";
    }
    return {};
}

std::vector<const Measurement*> measurements_for(const std::vector<Measurement>& all,
                                                 const std::string& model_id,
                                                 const std::string& quant_id,
                                                 const std::vector<const Gpu*>& gpus) {
    std::vector<const Measurement*> out;
    if (gpus.empty()) return out;
    for (const Gpu* g : gpus) {
        if (g == nullptr || g->id != gpus.front()->id) return out;  // mixed cards: none measured
    }
    for (const Measurement& m : all) {
        if (m.exact_model && !m.outlier && m.model_id == model_id && m.quant == quant_id &&
            m.gpu_id == gpus.front()->id && m.n_gpus == gpus.size()) {
            out.push_back(&m);
        }
    }
    return out;
}

const std::vector<Measurement>& embedded_measurements() {
    static const std::vector<Measurement> rows = [] {
        const auto& files = embedded_validation_files();
        const auto it = files.find("llama-bench.json");
        if (it == files.end()) return std::vector<Measurement>{};
        auto parsed = parse_measurements(it->second);
        return parsed ? std::move(*parsed) : std::vector<Measurement>{};
    }();
    return rows;
}

}  // namespace canitrun
