#include "file_commands.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app.hpp"
#include "canitrun/format.hpp"
#include "canitrun/gguf_files.hpp"
#include "canitrun/gguf_model.hpp"
#include "canitrun/hf_files.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/model_argument.hpp"
#include "canitrun/remote_model.hpp"
#include "chart.hpp"
#include "hardware_json.hpp"
#include "hardware_text.hpp"
#include "json_output.hpp"
#include "remote_command.hpp"
#include "table.hpp"
#include "text_report.hpp"

namespace canitrun::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string mib(Bytes b) {
    return fmt::format("{:.2f} MiB", static_cast<double>(b) / 1048576.0);
}

std::string bytes_text(Bytes b) {
    return format_thousands(b) + " bytes (" + format_gb(b) + ", " + format_gib(b) + ")";
}

// The quantization a GGUF file stands for, for the fit rules: GGUF runs on every backend.
Quant file_quant() {
    Quant q;
    q.id = "GGUF file";
    q.name = "the file's own quantization";
    q.format = "gguf";
    return q;
}

struct FileEstimate {
    Estimate estimate;
    Bytes kv = 0;
    Bytes recurrent = 0;
    Bytes mmproj = 0;
    std::uint64_t cache_context = 0;  // llama.cpp's padded context
};

Result<FileEstimate> estimate_file(const GgufModel& g, const ReportOptions& ro, Bytes mmproj) {
    FileEstimate fe;
    fe.cache_context = llama_padded_context(ro.estimate.context);
    EstimateOptions eo = ro.estimate;
    eo.weights_bytes_override = g.weights_bytes;
    eo.context = fe.cache_context;
    // llama.cpp's cache: sliding layers keep window + ubatch cells (gguf_model.hpp).
    const Model cache = llama_cache_model(g.model, ro.estimate.context);
    auto e = estimate(cache, file_quant(), eo);
    if (!e) return std::unexpected(e.error());
    fe.estimate = *e;
    fe.kv = fe.estimate.term("kv_cache");
    fe.recurrent = recurrent_state_bytes(g.model);
    fe.mmproj = mmproj;
    if (mmproj > 0) fe.estimate.terms.push_back({"mmproj", mmproj, Device::gpu});
    return fe;
}

// The file's KV chart: its model at each context as estimate_file() plans it (llama.cpp's
// cells, the file's own weights), and the same with every layer full attention.
Result<std::vector<KvCurvePoint>> file_curve(const GgufModel& g, const ReportOptions& ro) {
    const auto at = [&](const Model& m, std::uint64_t ctx) {
        EstimateOptions eo = ro.estimate;
        eo.weights_bytes_override = g.weights_bytes;
        eo.context = llama_padded_context(ctx);
        return estimate(llama_cache_model(m, ctx), file_quant(), eo);
    };
    const Model twin = all_attention_variant(g.model);
    return kv_curve(g.model.context_native, {[&](std::uint64_t c) { return at(g.model, c); },
                                             [&](std::uint64_t c) { return at(twin, c); }});
}

void write_gguf_text(std::ostream& out, const std::string& path, const GgufModel& g,
                     const FileEstimate& fe, const ReportOptions& ro,
                     const std::optional<HardwareReport>& hardware) {
    const Model& m = g.model;
    const Architecture& a = m.arch;
    // A remote model is named as the user named it; a file by its name.
    out << (looks_remote(path) ? path : fs::path(path).filename().string()) << " — "
        << g.architecture << " (GGUF v" << g.version << ", " << g.parts
        << (g.parts == 1 ? " file, " : " files, ") << g.tensor_count << " tensors)\n";
    if (m.name != g.architecture) out << "  " << m.name << "\n";
    Table facts({"", ""});
    facts.add_row({"Layers", std::to_string(a.layers) + ": " + a.pattern});
    std::string attention = std::to_string(a.attention.heads) + " heads, " +
                            std::to_string(a.attention.kv_heads) + " KV heads, head dim " +
                            std::to_string(a.attention.head_dim);
    facts.add_row({"Attention", attention});
    for (const auto& grp : a.layer_groups) {
        if (grp.kind == LayerKind::sliding) {
            facts.add_row({"Sliding window", format_thousands(grp.window) + " tokens, " +
                                                 std::to_string(grp.count) + " layers"});
        }
        if (grp.kind == LayerKind::mla) {
            facts.add_row({"MLA", "KV latent " + std::to_string(grp.kv_lora_rank) + " + rope " +
                                      std::to_string(grp.qk_rope_head_dim) + " per token"});
        }
    }
    if (a.moe) {
        facts.add_row(
            {"Experts",
             std::to_string(a.moe->experts_per_token) + " of " + std::to_string(a.moe->experts) +
                 " routed" +
                 (a.moe->shared_experts ? " + " + std::to_string(a.moe->shared_experts) + " shared"
                                        : std::string())});
    }
    facts.add_row(
        {"Hidden / vocab", std::to_string(a.hidden_size) + " / " + format_thousands(a.vocab_size)});
    facts.add_row({"Context", format_thousands(m.context_native) + " tokens (trained)"});
    std::string params =
        format_params(m.params_total) + " (" + format_thousands(m.params_total) + ")";
    if (m.is_moe()) params += ", " + format_params(m.params_active) + " active";
    facts.add_row({"Parameters", params});
    facts.add_row({"Weights", bytes_text(g.weights_bytes)});
    facts.write_rows(out);

    out << "\n  Quantization mix\n";
    Table mix({"type", "tensors", "bytes", "share"}, {false, true, true, true});
    for (const auto& e : g.mix) {
        const double share = g.weights_bytes ? 100.0 * static_cast<double>(e.bytes) /
                                                   static_cast<double>(g.weights_bytes)
                                             : 0.0;
        mix.add_row({e.type, std::to_string(e.tensors), format_thousands(e.bytes),
                     fmt::format("{:.1f} %", share)});
    }
    mix.write(out, "    ");

    out << "\n  At " << format_context(ro.estimate.context) << " context ("
        << ro.estimate.kv_type.id << " KV; llama.cpp allocates "
        << format_thousands(fe.cache_context) << " cells)\n";
    Table terms({"term", "GB", "MiB"}, {false, true, true});
    for (const auto& t : fe.estimate.terms) {
        terms.add_row({t.name, format_gb(t.bytes), mib(t.bytes)});
    }
    terms.add_row({"total", format_gb(fe.estimate.total()), mib(fe.estimate.total())});
    terms.write(out, "    ");
    if (fe.recurrent > 0) {
        out << "    recurrent state " << format_gb(fe.recurrent) << " (" << mib(fe.recurrent)
            << ", f32, fixed; inside the overhead by the quick rule)\n";
    }
    if (hardware) {
        write_hardware_section(out, g.model,
                               hardware->selected.quant ? *hardware->selected.quant : file_quant(),
                               hardware->selected.settings.estimate, *hardware);
    }
    if (ro.vram_budget) {
        out << "\n  VRAM budget " << format_gb(*ro.vram_budget) << ": "
            << (fe.estimate.total() <= *ro.vram_budget ? "fits" : "does not fit") << " ("
            << format_gb(fe.estimate.total()) << " needed)\n";
    }
}

json gguf_json(const std::string& path, const GgufModel& g, const FileEstimate& fe,
               const ReportOptions& ro, const std::optional<HardwareReport>& hardware) {
    json mix = json::array();
    for (const auto& e : g.mix) {
        mix.push_back(
            {{"type", e.type}, {"type_id", e.type_id}, {"tensors", e.tensors}, {"bytes", e.bytes}});
    }
    json out = {{"file", path},
                {"format", "gguf"},
                {"gguf_version", g.version},
                {"parts", g.parts},
                {"architecture", g.architecture},
                {"tensor_count", g.tensor_count},
                {"weights_bytes", g.weights_bytes},
                {"quant_mix", mix},
                {"model", model_json(g.model)},
                {"context", ro.estimate.context},
                {"cache_context", fe.cache_context},
                {"kv_type", ro.estimate.kv_type.id},
                {"kv_cache_bytes", fe.kv},
                {"recurrent_state_bytes", fe.recurrent},
                {"mmproj_bytes", fe.mmproj},
                {"overhead_percent", ro.estimate.overhead_percent},
                {"units", "bytes"},
                {"estimate",
                 {{"total_bytes", fe.estimate.total()}, {"terms", estimate_json(fe.estimate)}}}};
    if (hardware) out["hardware"] = hardware_report_json(g.model, *hardware);
    if (ro.vram_budget) {
        out["vram_query"] = {{"budget_bytes", *ro.vram_budget},
                             {"fits", fe.estimate.total() <= *ro.vram_budget}};
    }
    return out;
}

}  // namespace

// The file on the --gpu hardware: its exact weights shared out over its layers, llama.cpp's
// cache for its architecture. No "best quantization": the file has its own.
Result<HardwareReport> file_on_hardware(const std::string& path, const GgufModel& g,
                                        const ReportOptions& ro) {
    static const Quant quant = file_quant();
    EstimateOptions eo = ro.estimate;
    eo.weights_bytes_override = g.weights_bytes;
    const Model cache = llama_cache_model(g.model, ro.estimate.context);
    HardwareReport r;
    r.model_file = path;
    r.hardware = *ro.hardware;
    auto selected = answer_for(cache, quant, r.hardware, quick_settings(eo), ro.placement);
    if (!selected) return std::unexpected(selected.error());
    r.selected = *selected;
    auto longest = max_native_context(cache, quant, r.hardware, quick_settings(eo));
    if (!longest) return std::unexpected(longest.error());
    r.max_context = *longest;
    return r;
}

namespace {

Result<GgufModel> load_gguf(const std::string& path) {
    auto parts = read_gguf_parts(path);
    if (!parts) return std::unexpected(parts.error());
    return gguf_to_model(*parts);
}

// The tensor bytes of a --mmproj projector file; 0 without one.
Result<Bytes> mmproj_bytes(const std::string& mmproj_path) {
    Bytes mmproj = 0;
    if (mmproj_path.empty()) return mmproj;
    auto parts = read_gguf_parts(mmproj_path);
    if (!parts) return std::unexpected(parts.error());
    for (const auto& p : *parts) mmproj = checked::add(mmproj, p.tensor_bytes());
    return mmproj;
}

}  // namespace

Result<CommandOutput> report_gguf_model(const std::string& label, const GgufModel& model,
                                        Bytes mmproj, const ReportOptions& ro, bool as_json,
                                        const ChartChoice& chart) {
    Result<FileEstimate> fe = fail(ErrorKind::overflow, "");
    try {
        fe = estimate_file(model, ro, mmproj);
    } catch (const OverflowError&) {
        return fail(ErrorKind::bad_input, label + ": the file's dimensions overflow 64-bit sizes",
                    "the file is corrupt");
    }
    if (!fe) return std::unexpected(fe.error());
    std::optional<HardwareReport> hardware;
    if (ro.hardware) {
        auto h = file_on_hardware(label, model, ro);
        if (!h) return std::unexpected(h.error());
        hardware = *h;
    }
    std::ostringstream text;
    set_chart(text, chart);
    auto curve = file_curve(model, ro);
    if (!curve) return std::unexpected(curve.error());
    if (as_json) {
        json j = gguf_json(label, model, *fe, ro, hardware);
        j["kv_comparison"] = {{"curve", kv_curve_json(*curve)}};
        text << j.dump(2) << "\n";
    } else {
        write_gguf_text(text, label, model, *fe, ro, hardware);
        write_kv_chart_section(text, model.model, *curve,
                               ro.estimate.kv_type.id + ", the file's weights, page's rule",
                               "the file's weights");
    }
    const int code =
        hardware && hardware->selected.plan.kind != PlanKind::native ? kExitDoesNotFit : kExitOk;
    return CommandOutput{text.str(), code};
}

namespace {

Result<CommandOutput> run_gguf(const std::string& path, const std::string& mmproj_path,
                               const ReportOptions& ro, bool as_json, const ChartChoice& chart) {
    auto g = load_gguf(path);
    if (!g) return std::unexpected(g.error());
    auto mmproj = mmproj_bytes(mmproj_path);
    if (!mmproj) return std::unexpected(mmproj.error());
    return report_gguf_model(path, *g, *mmproj, ro, as_json, chart);
}

}  // namespace

CommandOutput config_report_output(const ModelReport& report, const std::string& label,
                                   const std::string& params_source, bool as_json,
                                   const ChartChoice& chart) {
    std::ostringstream text;
    set_chart(text, chart);
    if (as_json) {
        json j = model_report_json(report);
        j["params_source"] = params_source;
        j["file"] = label;
        text << j.dump(2) << "\n";
    } else {
        text << "From " << label << " (parameters: " << params_source << ")\n";
        write_text_report(text, report);
    }
    const int code = report.hardware && report.hardware->selected.plan.kind != PlanKind::native
                         ? kExitDoesNotFit
                         : kExitOk;
    return CommandOutput{text.str(), code};
}

namespace {

Result<CommandOutput> run_hf(const Database& db, const std::string& path, const ReportOptions& ro,
                             bool as_json, const ChartChoice& chart) {
    auto hf = read_hf_model(path);
    if (!hf) return std::unexpected(hf.error());
    const Model model = hf->model;
    auto report = build_model_report(db, model, ro);
    if (!report) return std::unexpected(report.error());
    return config_report_output(*report, path, hf->params_source, as_json, chart);
}

// A Hugging Face config.json or a folder holding one; any other model file is read as GGUF.
bool is_hf_path(const std::string& path) {
    std::error_code ec;
    return ends_with(path, ".json") || fs::is_directory(path, ec);
}

Error file_overflow(const std::string& path) {
    return Error{ErrorKind::bad_input, path + ": sizes in the file overflow 64 bits",
                 "the file is corrupt"};
}

}  // namespace

// A GGUF model's report for the GPU lists and compare: its exact weights, llama.cpp's cache.
Result<bool> fill_gguf_report(FileReport& r, const Database& db, const std::string& label,
                              const GgufModel& g, Bytes mmproj, const ReportOptions& options) {
    auto fe = estimate_file(g, options, mmproj);
    if (!fe) return std::unexpected(fe.error());
    r.model = g.model;
    r.quant = file_quant();
    ModelReport& m = r.report;
    m.model = &r.model;
    m.quant = &r.quant;
    m.options = options.estimate;
    m.fit = options.fit;
    m.selected = fe->estimate;
    m.recurrent_state = fe->recurrent;
    m.gpus = gpus_for(db.gpus, r.quant, m.selected.total(), m.fit);
    m.smallest_gpu = smallest_gpu(db.gpus, r.quant, m.selected.total());
    // The file's figures are the page's rule over its own tensor bytes (estimate_file).
    m.rule = Rule::quick;
    m.settings = quick_settings(options.estimate);
    if (options.hardware) {
        auto h = file_on_hardware(label, g, options);
        if (!h) return std::unexpected(h.error());
        m.hardware = *h;
    }
    return true;
}

Result<CommandOutput> run_model_file(const Database& db, const std::string& path,
                                     const std::string& mmproj, const ReportOptions& options,
                                     bool json, const ChartChoice& chart) {
    try {
        if (is_hf_path(path)) return run_hf(db, path, options, json, chart);
        return run_gguf(path, mmproj, options, json, chart);
    } catch (const OverflowError&) {
        return std::unexpected(file_overflow(path));
    }
}

Result<std::unique_ptr<FileReport>> file_gpus_report(const Database& db, const std::string& path,
                                                     const std::string& mmproj_path,
                                                     const ReportOptions& options,
                                                     const RemoteFlags& remote) {
    auto r = std::make_unique<FileReport>();
    try {
        if (classify_model_argument(db, path) == ModelArgumentKind::remote) {
            std::string label;
            auto g = remote_gguf_model(path, remote, &label);
            if (!g) return std::unexpected(g.error());
            auto ok = fill_gguf_report(*r, db, label, *g, 0, options);
            if (!ok) return std::unexpected(ok.error());
            return r;
        }
        if (is_hf_path(path)) {
            auto hf = read_hf_model(path);
            if (!hf) return std::unexpected(hf.error());
            r->model = hf->model;
            auto report = build_model_report(db, r->model, options);
            if (!report) return std::unexpected(report.error());
            r->report = std::move(*report);
            return r;
        }
        auto g = load_gguf(path);
        if (!g) return std::unexpected(g.error());
        auto mmproj = mmproj_bytes(mmproj_path);
        if (!mmproj) return std::unexpected(mmproj.error());
        auto ok = fill_gguf_report(*r, db, path, *g, *mmproj, options);
        if (!ok) return std::unexpected(ok.error());
        return r;
    } catch (const OverflowError&) {
        return std::unexpected(file_overflow(path));
    }
}

Result<CommandOutput> engine_on_gguf(const Database& db, const std::string& label,
                                     const std::vector<GgufFile>& parts, const EngineFlags& flags,
                                     const EngineRequest& request) {
    auto g = gguf_to_model(parts);
    if (!g) return std::unexpected(g.error());
    LlamaCppOptions::FileTensors tensors;
    for (const auto& part : parts) {
        for (const auto& t : part.tensors) {
            if (t.name == "token_embd.weight") {
                tensors.token_embd = checked::add(tensors.token_embd, t.bytes);
            } else {
                tensors.other = checked::add(tensors.other, t.bytes);
            }
        }
    }
    EngineRequest r = request;
    r.db = &db;
    r.model = &g->model;
    r.quant.clear();
    r.file_tensors = tensors;
    r.file = label;
    auto answer = run_engine(r, flags);
    if (!answer) return std::unexpected(answer.error());
    return CommandOutput{answer->text, answer->exit_code};
}

Result<CommandOutput> run_model_file_engine(const Database& db, const std::string& path,
                                            const EngineFlags& flags,
                                            const EngineRequest& request) {
    auto parts = read_gguf_parts(path);
    if (!parts) return std::unexpected(parts.error());
    return engine_on_gguf(db, fs::path(path).filename().string(), *parts, flags, request);
}

}  // namespace canitrun::cli
