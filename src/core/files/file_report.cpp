#include "canitrun/file_report.hpp"

#include "canitrun/fit.hpp"
#include "canitrun/kv_cache.hpp"

namespace canitrun {

Quant gguf_file_quant() {
    Quant q;
    q.id = "GGUF file";
    q.name = "the file's own quantization";
    q.format = "gguf";
    return q;
}

Result<GgufEstimate> estimate_gguf(const GgufModel& g, const ReportOptions& options, Bytes mmproj) {
    GgufEstimate fe;
    fe.cache_context = llama_padded_context(options.estimate.context);
    EstimateOptions eo = options.estimate;
    eo.weights_bytes_override = g.weights_bytes;
    eo.context = fe.cache_context;
    // llama.cpp's cache: sliding layers keep window + ubatch cells (gguf_model.hpp).
    const Model cache = llama_cache_model(g.model, options.estimate.context);
    CANITRUN_TRY_ASSIGN(fe.estimate, estimate(cache, gguf_file_quant(), eo));
    fe.kv = fe.estimate.term(TermKind::kv_cache);
    fe.recurrent = recurrent_state_bytes(g.model);
    fe.mmproj = mmproj;
    if (mmproj > 0) fe.estimate.terms.push_back({TermKind::mmproj, mmproj, Device::gpu});
    return fe;
}

Result<HardwareReport> gguf_on_hardware(const std::string& label, const GgufModel& g,
                                        const ReportOptions& options) {
    static const Quant quant = gguf_file_quant();
    EstimateOptions eo = options.estimate;
    eo.weights_bytes_override = g.weights_bytes;
    const Model cache = llama_cache_model(g.model, options.estimate.context);
    HardwareReport r;
    r.model_file = label;
    r.hardware = *options.hardware;
    CANITRUN_TRY_ASSIGN(
        r.selected, answer_for(cache, quant, r.hardware, quick_settings(eo), options.placement));
    CANITRUN_TRY_ASSIGN(r.max_context,
                        max_native_context(cache, quant, r.hardware, quick_settings(eo)));
    return r;
}

Result<std::vector<KvCurvePoint>> gguf_kv_curve(const GgufModel& g, const ReportOptions& options) {
    const auto at = [&](const Model& m, std::uint64_t ctx) {
        EstimateOptions eo = options.estimate;
        eo.weights_bytes_override = g.weights_bytes;
        eo.context = llama_padded_context(ctx);
        return estimate(llama_cache_model(m, ctx), gguf_file_quant(), eo);
    };
    const Model twin = all_attention_variant(g.model);
    return kv_curve(g.model.context_native, {[&](std::uint64_t c) { return at(g.model, c); },
                                             [&](std::uint64_t c) { return at(twin, c); }});
}

bool GgufReport::fits() const {
    if (hardware) return hardware->selected.plan.kind == PlanKind::native;
    if (options.vram_budget) return at_context.estimate.total() <= *options.vram_budget;
    return true;
}

Result<GgufReport> build_gguf_report(const Database& db, const std::string& label,
                                     const GgufModel& g, Bytes mmproj,
                                     const ReportOptions& options) {
    GgufReport r;
    r.label = label;
    r.gguf = g;
    r.options = options;
    CANITRUN_TRY_ASSIGN(r.at_context, estimate_gguf(g, options, mmproj));
    if (options.hardware) {
        CANITRUN_TRY_ASSIGN(r.hardware, gguf_on_hardware(label, g, options));
    }
    CANITRUN_TRY_ASSIGN(r.curve, gguf_kv_curve(g, options));
    r.smallest_gpu = smallest_gpu(db.gpus, gguf_file_quant(), r.at_context.estimate.total());
    return r;
}

Result<std::unique_ptr<FileReport>> gguf_file_report(const Database& db, const std::string& label,
                                                     const GgufModel& g, Bytes mmproj,
                                                     const ReportOptions& options) {
    auto r = std::make_unique<FileReport>();
    CANITRUN_TRY_ASSIGN(const GgufEstimate fe, estimate_gguf(g, options, mmproj));
    r->model = g.model;
    r->quant = gguf_file_quant();
    ModelReport& m = r->report;
    m.model = &r->model;
    m.quant = &r->quant;
    m.options = options.estimate;
    m.fit = options.fit;
    m.selected = fe.estimate;
    m.recurrent_state = fe.recurrent;
    m.gpus = gpus_for(db.gpus, r->quant, m.selected.total(), m.fit);
    m.smallest_gpu = smallest_gpu(db.gpus, r->quant, m.selected.total());
    // The file's figures are the page's rule over its own tensor bytes (estimate_gguf).
    m.rule = Rule::quick;
    m.settings = quick_settings(options.estimate);
    if (options.hardware) {
        CANITRUN_TRY_ASSIGN(m.hardware, gguf_on_hardware(label, g, options));
    }
    return r;
}

Result<std::unique_ptr<FileReport>> config_file_report(const Database& db, const Model& model,
                                                       const ReportOptions& options) {
    auto r = std::make_unique<FileReport>();
    r->model = model;
    CANITRUN_TRY_ASSIGN(r->report, build_model_report(db, r->model, options));
    return r;
}

Result<std::vector<RepoListingRow>> repo_listing(const Database& db, const GgufModel& arch,
                                                 const std::vector<RepoGguf>& models,
                                                 const ReportOptions& options,
                                                 const std::string& label_prefix) {
    std::vector<RepoListingRow> rows;
    for (const auto& m : models) {
        if (m.projector) continue;
        // This file's bytes in the architecture read from the one header.
        GgufModel file = arch;
        file.weights_bytes = m.bytes;
        RepoListingRow row;
        row.files = &m;
        CANITRUN_TRY_ASSIGN(const GgufEstimate fe, estimate_gguf(file, options));
        row.total = fe.estimate.total();
        row.smallest_gpu = smallest_gpu(db.gpus, gguf_file_quant(), row.total);
        if (options.hardware) {
            CANITRUN_TRY_ASSIGN(const HardwareReport h,
                                gguf_on_hardware(label_prefix + m.quant, file, options));
            row.plan = h.selected.plan.kind;
        }
        rows.push_back(row);
    }
    return rows;
}

}  // namespace canitrun
