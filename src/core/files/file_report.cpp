#include "canitrun/file_report.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "canitrun/fit.hpp"
#include "canitrun/gguf_files.hpp"
#include "canitrun/hardware_questions.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/plan_views.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/server_terms.hpp"
#include "canitrun/strings.hpp"

namespace canitrun {

Quant gguf_file_quant() {
    Quant q;
    q.id = "GGUF file";
    q.name = "the file's own quantization";
    q.format = "gguf";
    return q;
}

Quant gguf_file_quant(const Database& db, const GgufModel& g) {
    Quant q = gguf_file_quant();
    if (!g.file_type.empty()) {
        q.file_type = g.file_type;
        if (const auto known = db.find_quant(g.file_type)) {
            // The database's own bits per weight: its weight count per byte read is the
            // database model's, so the same tensors decode at the same speed.
            q.bpw_e4 = (*known)->bpw_e4;
            q.derivation = "general.file_type " + g.file_type + ": the database's " + g.file_type +
                           " bits per weight";
            return q;
        }
    } else if (!g.mix.empty()) {
        q.file_type = to_upper(g.mix.front().type);
    }
    // The file's own bits per weight: its tensors' bytes over its parameters.
    if (g.model.params_total > 0) {
        q.bpw_e4 = checked::mul_div_ceil(g.weights_bytes, 8 * kBpwScale, g.model.params_total);
    }
    q.derivation = "the file's tensors: " +
                   (q.file_type.empty() ? std::string("no type") : q.file_type + " largest") +
                   ", its bytes over its parameters";
    return q;
}

Result<ResidentModel> resident_gguf_file(const Database& db, const std::string& path) {
    CANITRUN_TRY_ASSIGN(const auto parts, read_gguf_parts(path));
    CANITRUN_TRY_ASSIGN(const GgufModel g, gguf_to_model(parts));
    auto f = std::make_shared<ResidentFile>();
    f->path = path;
    f->model = g.model;
    // Named by its file, as the page and the companion's term name it (general.name may be
    // anything the converter was given).
    f->model.id = std::filesystem::path(path).filename().string();
    f->quant = gguf_file_quant(db, g);
    f->weights_bytes = g.weights_bytes;
    CANITRUN_TRY_ASSIGN(f->weights, file_weights(g.model, g.tensors));
    ResidentModel r;
    r.model = &f->model;
    r.quant = &f->quant;
    r.file = std::move(f);
    return r;
}

namespace {

// The file's quantization where only its bytes are asked (its memory): they are its tensors,
// whatever the quantization says of its speed.
const Quant& file_quant() {
    static const Quant quant = gguf_file_quant();
    return quant;
}

// The context a file is planned at: as a database model's page caps it (build_model_report),
// the default never past the model's own window.
EstimateOptions file_estimate_options(const GgufModel& g, const ReportOptions& options) {
    EstimateOptions eo = options.estimate;
    const Model& m = g.model;
    if (!options.context_explicit && m.context_native > 0 && options.plan.n_seq <= 1) {
        eo.context = std::min(eo.context, default_context(m));
    }
    return eo;
}

// The quick rule's file estimate: the file's bytes, llama.cpp's cells, the page's overhead.
Result<Estimate> quick_file_estimate(const GgufModel& g, const Model& model,
                                     const EstimateOptions& options) {
    EstimateOptions eo = options;
    eo.weights_bytes_override = g.weights_bytes;
    eo.context = llama_padded_context(options.context);
    // llama.cpp's cache: sliding layers keep window + ubatch cells (gguf_model.hpp).
    return estimate(llama_cache_model(model, options.context), file_quant(), eo);
}

}  // namespace

Result<PlanSettings> gguf_plan_settings(const GgufModel& g, const ReportOptions& options,
                                        std::string* note) {
    PlanSettings asked = options.plan;
    asked.estimate = file_estimate_options(g, options);
    PlanSettings s = settings_for_model(g.model, asked, note);
    if (s.rule == Rule::quick) {
        s = quick_settings(asked.estimate);
        s.estimate.weights_bytes_override = g.weights_bytes;
        return s;
    }
    CANITRUN_TRY_ASSIGN(s.file, file_weights(g.model, g.tensors));
    if (s.server.mtp) CANITRUN_TRY(mtp_loadable(g.model, s.file.get()));
    return s;
}

Result<GgufEstimate> estimate_gguf(const GgufModel& g, const ReportOptions& options, Bytes mmproj) {
    GgufEstimate fe;
    CANITRUN_TRY_ASSIGN(fe.settings, gguf_plan_settings(g, options, &fe.rule_note));
    const PlanSettings& s = fe.settings;
    fe.cache_context = llama_padded_context(s.estimate.context);
    if (s.rule == Rule::quick) {
        CANITRUN_TRY_ASSIGN(fe.estimate, quick_file_estimate(g, g.model, s.estimate));
        fe.recurrent = recurrent_state_bytes(g.model);
    } else {
        CANITRUN_TRY_ASSIGN(fe.estimate, rule_estimate(g.model, file_quant(), s));
        fe.recurrent = fe.estimate.term(TermKind::recurrent_state);
    }
    fe.kv = fe.estimate.term(TermKind::kv_cache);
    fe.mmproj = mmproj;
    if (mmproj > 0) fe.estimate.terms.push_back({TermKind::mmproj, mmproj, Device::gpu});
    return fe;
}

Result<HardwareReport> gguf_on_hardware(const std::string& label, const GgufModel& g,
                                        const Quant& quant, const ReportOptions& options) {
    CANITRUN_TRY_ASSIGN(const PlanSettings s, gguf_plan_settings(g, options));
    // The quick rule plans llama.cpp's cells as the model's own (llama_cache_model).
    const Model planned =
        s.rule == Rule::quick ? llama_cache_model(g.model, s.estimate.context) : g.model;
    HardwareReport r;
    // A remote model loads where it lives (GgufModel::load), a file by its path.
    r.model_load = g.load.empty() ? std::vector<std::string>{"-m", label} : g.load;
    r.hardware = *options.hardware;
    CANITRUN_TRY_ASSIGN(r.selected, answer_for(planned, quant, r.hardware, s, options.placement));
    CANITRUN_TRY_ASSIGN(r.max_context, max_native_context(planned, quant, r.hardware, s));
    add_serving(r, planned, quant, s);
    return r;
}

Result<std::vector<KvCurvePoint>> gguf_kv_curve(const GgufModel& g, const ReportOptions& options) {
    CANITRUN_TRY_ASSIGN(const PlanSettings s, gguf_plan_settings(g, options));
    if (s.rule != Rule::quick) return kv_curve(g.model, file_quant(), s);
    const Model twin = all_attention_variant(g.model);
    return kv_curve(g.model.context_native, {[&](std::uint64_t c) {
                                                 EstimateOptions eo = s.estimate;
                                                 eo.context = c;
                                                 return quick_file_estimate(g, g.model, eo);
                                             },
                                             [&](std::uint64_t c) {
                                                 EstimateOptions eo = s.estimate;
                                                 eo.context = c;
                                                 return quick_file_estimate(g, twin, eo);
                                             }});
}

bool GgufReport::fits() const {
    if (hardware) return hardware->selected.plan.kind == PlanKind::native;
    if (vram_fits) return *vram_fits;
    return true;
}

namespace {

// The smallest database GPU that holds the file natively, by the settings' rule.
Result<const Gpu*> file_smallest_gpu(const Database& db, const GgufModel& g, const GgufEstimate& fe,
                                     const FitOptions& fit) {
    if (fe.settings.rule == Rule::quick) {
        return smallest_gpu(db.gpus, file_quant(), fe.estimate.total());
    }
    CANITRUN_TRY_ASSIGN(const auto v,
                        plan_gpu_verdicts(db, g.model, file_quant(), fe.settings, fit));
    return v.smallest;
}

// Whether the file runs natively in a --vram budget: the quick rule's total against it, or
// llama.cpp's plan on one device of that size (plan_budget, as the model page asks it).
Result<bool> file_fits_budget(const GgufModel& g, const GgufEstimate& fe, Bytes budget, Bytes ram) {
    if (fe.settings.rule == Rule::quick) return fe.estimate.total() <= budget;
    CANITRUN_TRY_ASSIGN(const auto a,
                        plan_budget(g.model, file_quant(), {}, fe.settings, budget, ram));
    return a.fits;
}

}  // namespace

Result<GgufReport> build_gguf_report(const Database& db, const std::string& label,
                                     const GgufModel& g, Bytes mmproj,
                                     const ReportOptions& options) {
    GgufReport r;
    r.label = label;
    r.gguf = g;
    r.options = options;
    CANITRUN_TRY_ASSIGN(r.at_context, estimate_gguf(g, options, mmproj));
    r.options.estimate = r.at_context.settings.estimate;
    r.options.estimate.weights_bytes_override.reset();
    if (options.hardware) {
        r.quant = std::make_shared<const Quant>(gguf_file_quant(db, g));
        CANITRUN_TRY_ASSIGN(r.hardware, gguf_on_hardware(label, g, *r.quant, options));
    }
    CANITRUN_TRY_ASSIGN(r.curve, gguf_kv_curve(g, options));
    CANITRUN_TRY_ASSIGN(r.smallest_gpu, file_smallest_gpu(db, g, r.at_context, options.fit));
    if (options.vram_budget) {
        CANITRUN_TRY_ASSIGN(
            r.vram_fits, file_fits_budget(g, r.at_context, *options.vram_budget, options.fit.ram));
    }
    return r;
}

namespace {

// The KV comparison's figures compare shows: the full window is the curve's last point, as
// the model page takes it.
void add_file_kv(ModelReport& m, const std::vector<KvCurvePoint>& curve) {
    m.kv_curve = curve;
    m.kv_at_context = m.selected.term(TermKind::kv_cache);
    if (curve.empty()) return;
    m.kv_full_context = curve.back().this_model_bytes;
    m.total_full_context = curve.back().this_model_total_bytes;
    m.kv_all_attention_full_context = curve.back().all_attention_bytes;
    m.total_all_attention_full_context = curve.back().all_attention_total_bytes;
    if (m.options.context < m.model->context_native && m.kv_full_context >= m.kv_at_context) {
        m.kv_growth_to_full = m.kv_full_context - m.kv_at_context;
    }
}

}  // namespace

Result<std::unique_ptr<FileReport>> gguf_file_report(const Database& db, const std::string& label,
                                                     const GgufModel& g, Bytes mmproj,
                                                     const ReportOptions& options) {
    auto r = std::make_unique<FileReport>();
    CANITRUN_TRY_ASSIGN(const GgufEstimate fe, estimate_gguf(g, options, mmproj));
    r->model = g.model;
    r->quant = gguf_file_quant(db, g);
    ModelReport& m = r->report;
    m.model = &r->model;
    m.quant = &r->quant;
    m.options = fe.settings.estimate;
    m.options.weights_bytes_override.reset();
    m.fit = options.fit;
    m.selected = fe.estimate;
    m.recurrent_state = fe.recurrent;
    m.rule = fe.settings.rule;
    m.settings = fe.settings;
    m.rule_note = fe.rule_note;
    if (m.rule == Rule::quick) {
        m.gpus = gpus_for(db.gpus, r->quant, m.selected.total(), m.fit);
        m.smallest_gpu = smallest_gpu(db.gpus, r->quant, m.selected.total());
    } else {
        CANITRUN_TRY_ASSIGN(auto v, plan_gpu_verdicts(db, r->model, r->quant, m.settings, m.fit));
        m.gpus = v.gpus;
        m.smallest_gpu = v.smallest;
        m.gpu_verdicts = v.verdicts;
    }
    CANITRUN_TRY_ASSIGN(const auto curve, gguf_kv_curve(g, options));
    add_file_kv(m, curve);
    if (options.hardware) {
        CANITRUN_TRY_ASSIGN(m.hardware, gguf_on_hardware(label, g, r->quant, options));
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

namespace {

// Another file of the repo, whose header was not read: the header's tensors typed as
// llama-quantize types them at its quantization (retyped_file_tensors), as a database model's
// layout is typed; where that cannot be (a quantization llama-quantize does not write, an
// architecture without a modelled layout, --engine quick), its bytes by the quick rule.
struct ListedFile {
    GgufModel file;
    ReportOptions options;
    RepoTensors tensors = RepoTensors::quick;
};

ListedFile listed_file(const Database& db, const GgufModel& arch, const RepoGguf& m,
                       const ReportOptions& options, const std::string& read_quant) {
    ListedFile f{arch, options, RepoTensors::read};
    if (m.quant == read_quant) return f;
    const auto quant = db.find_quant(m.quant);
    if (options.plan.rule == Rule::llamacpp && quant && is_llama_file_type(**quant)) {
        auto typed = retyped_file_tensors(arch.model, arch.tensors, **quant);
        if (typed) {
            f.file.tensors = std::move(*typed);
            f.file.weights_bytes = 0;
            for (const auto& t : f.file.tensors) {
                f.file.weights_bytes = checked::add(f.file.weights_bytes, t.bytes);
            }
            f.tensors = RepoTensors::typed;
            return f;
        }
    }
    f.file.weights_bytes = m.bytes;
    f.file.tensors.clear();
    f.options.plan = quick_settings(options.plan.estimate);
    f.tensors = RepoTensors::quick;
    return f;
}

}  // namespace

std::string listing_header_quant(const std::vector<RepoGguf>& models,
                                 const std::string& recommended) {
    if (pick_quant(models, recommended) != nullptr) return recommended;
    for (const auto& m : models) {
        if (!m.projector && !m.quant.empty()) return m.quant;
    }
    return "";
}

Result<std::vector<RepoListingRow>> repo_listing(const Database& db, const GgufModel& arch,
                                                 const std::vector<RepoGguf>& models,
                                                 const ReportOptions& options,
                                                 const std::string& label_prefix,
                                                 const std::string& read_quant) {
    std::vector<RepoListingRow> rows;
    for (const auto& m : models) {
        if (m.projector) continue;
        const ListedFile f = listed_file(db, arch, m, options, read_quant);
        RepoListingRow row;
        row.files = &m;
        row.tensors = f.tensors;
        CANITRUN_TRY_ASSIGN(const GgufEstimate fe, estimate_gguf(f.file, f.options));
        row.rule = fe.settings.rule;
        row.gpu_bytes = fe.estimate.on(Device::gpu);
        row.total = fe.estimate.total();
        CANITRUN_TRY_ASSIGN(row.smallest_gpu, file_smallest_gpu(db, f.file, fe, f.options.fit));
        if (options.hardware) {
            const Quant quant = gguf_file_quant(db, f.file);
            CANITRUN_TRY_ASSIGN(const HardwareReport h,
                                gguf_on_hardware(label_prefix + m.quant, f.file, quant, f.options));
            row.plan = h.selected.plan.kind;
        }
        rows.push_back(row);
    }
    return rows;
}

}  // namespace canitrun
