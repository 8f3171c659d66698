#include "canitrun/verify_bench.hpp"

#include <cmath>

#include "canitrun/verify.hpp"

namespace canitrun {
namespace {

// "llama 8B Q4_K - Medium": the file type follows the architecture and the size label.
std::string file_type_of(const std::string& model) {
    const auto first = model.find(' ');
    if (first == std::string::npos) return {};
    const auto second = model.find(' ', first + 1);
    return second == std::string::npos ? std::string() : model.substr(second + 1);
}

// The database model with the row's parameter count (within 1.5 %), nearest first: llama-bench
// names an architecture and a size, not a checkpoint, and checkpoints of one architecture and
// size predict alike.
const Model* model_for(const Database& db, const LlamaBenchRow& row) {
    if (!row.params || *row.params == 0) return nullptr;
    const auto p = static_cast<double>(*row.params);
    const std::string arch = row.model.substr(0, row.model.find(' '));
    const Model* best = nullptr;
    double nearest = 0.015 + 0.01;
    for (const Model& m : db.models) {
        // A model whose id starts with the architecture's name ("llama-3.1-8b" for "llama 8B")
        // wins over a fine-tune of the same size.
        const double off = std::fabs(static_cast<double>(m.params_total) / p - 1) +
                           (m.id.starts_with(arch) ? 0 : 0.01);
        if (off >= 0.015 + (m.id.starts_with(arch) ? 0 : 0.01)) continue;
        if (off < nearest) {
            nearest = off;
            best = &m;
        }
    }
    return best;
}

std::vector<const Gpu*> gpus_for(const Database& db, const LlamaBenchRow& row,
                                 const std::vector<const Gpu*>& given) {
    if (!given.empty()) return given;
    const std::string name = row.gpu_info.substr(0, row.gpu_info.find(','));
    if (name.empty()) return {};
    auto g = db.find_gpu(name);
    if (!g) return {};
    return {*g};
}

// The row's test from its counts, which parse_llama_bench fills in every format; only a row
// built without them (all zero) is read from its name.
Result<BenchTest> test_of(const LlamaBenchRow& row) {
    if (row.n_prompt == 0 && row.n_gen == 0) return parse_bench_test(row.test);
    return bench_test(row.n_prompt, row.n_gen, row.n_depth);
}

BenchCheckRow check_row(const Database& db, const LlamaBenchRow& row,
                        const std::vector<const Gpu*>& given) {
    BenchCheckRow out;
    out.row = row;
    const Model* model = model_for(db, row);
    if (model == nullptr) {
        out.why = "no database model has its parameter count";
        return out;
    }
    out.model_id = model->id;
    auto quant = db.find_quant(quant_id_from_file_type(file_type_of(row.model)));
    if (!quant) {
        out.why = "file type '" + file_type_of(row.model) + "' is not a canitrun quantization";
        return out;
    }
    out.quant_id = (*quant)->id;
    const auto gpus = gpus_for(db, row, given);
    if (gpus.empty()) {
        out.why = "GPU unknown: name it with --gpu";
        return out;
    }
    if (row.ngl && *row.ngl >= 0 &&
        !bench_all_on_gpus(static_cast<std::uint64_t>(*row.ngl), *model)) {
        out.why = "-ngl " + std::to_string(*row.ngl) + " keeps layers in RAM: not predicted";
        return out;
    }
    auto test = test_of(row);
    if (!test) {
        out.why = test.error().message;
        return out;
    }
    BenchRun run{model, *quant, gpus, *test, row.n_ubatch.value_or(512)};
    auto p = predict_bench(run);
    if (!p) {
        out.why = p.error().message;
        return out;
    }
    out.predicted = p->tokens_per_s;
    out.band =
        speed_band(fitted_speed_model(), speed_class(p->hardware.gpus.front()), test->n_gen == 0);
    return out;
}

}  // namespace

Result<BenchCheck> verify_llama_bench(const Database& db, const LlamaBenchOutput& bench,
                                      const std::vector<const Gpu*>& gpus) {
    BenchCheck check;
    check.format = bench.format;
    const std::vector<GpuDevice> devices = devices_for(gpus);
    check.gpus = devices.empty() ? "the GPU each row names" : describe_gpus(devices);
    for (const LlamaBenchRow& row : bench.rows) check.rows.push_back(check_row(db, row, gpus));
    if (bench.skipped_lines > 0) {
        check.notes.push_back(std::to_string(bench.skipped_lines) +
                              " line(s) looked like results but could not be read");
    }
    check.notes.push_back(
        "the model is matched by parameter count; the prediction assumes every layer on the GPUs "
        "and canitrun's default backend for them (docs/SPEED.md)");
    return check;
}

}  // namespace canitrun
