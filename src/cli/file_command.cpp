#include "file_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app.hpp"
#include "canitrun/file_parts.hpp"
#include "canitrun/file_report.hpp"
#include "canitrun/gguf_files.hpp"
#include "canitrun/gguf_model.hpp"
#include "canitrun/hf_files.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/model_argument.hpp"
#include "canitrun/remote_model.hpp"
#include "chart.hpp"
#include "csv_output.hpp"
#include "format.hpp"
#include "hardware_json.hpp"
#include "hardware_text.hpp"
#include "json_output.hpp"
#include "model_command.hpp"
#include "remote_command.hpp"
#include "table.hpp"
#include "text_report.hpp"

namespace canitrun::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string bytes_text(Bytes b) {
    return format_thousands(b) + " bytes (" + format_gb(b) + ", " + format_gib(b) + ")";
}

// The heading and the facts table: what the file is.
void write_gguf_facts(std::ostream& out, const GgufReport& report) {
    const std::string& path = report.label;
    const GgufModel& g = report.gguf;
    const Model& m = g.model;
    const Architecture& a = m.arch;
    // A remote model is named as the user named it; a file by its name.
    out << (looks_remote(path) ? path : fs::path(path).filename().string()) << " — "
        << g.architecture << " (GGUF v" << g.version << ", " << g.parts
        << (g.parts == 1 ? " file, " : " files, ") << g.tensor_count << " tensors)\n";
    if (m.name != g.architecture) out << "  " << m.name << "\n";
    Table facts({"Fact", "Value"});  // the header shows in Markdown only
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
}

// The bytes of each ggml type in the file.
void write_gguf_mix(std::ostream& out, const GgufModel& g) {
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
}

// What the figures were made by: llama.cpp's allocation over the file's own tensors, or the
// quick rule (asked for, or the reason it stands in).
std::string gguf_rule_text(const GgufEstimate& fe) {
    if (fe.settings.rule == Rule::quick) {
        return "the quick rule: the file's weights + KV + 12 %" +
               (fe.rule_note.empty() ? std::string() : "; " + fe.rule_note);
    }
    return std::string("llama.cpp ") + kLlamaCppCommit + "'s allocation of the file's own tensors";
}

// The terms at the context, the plan on the hardware, the budget.
void write_gguf_terms(std::ostream& out, const GgufReport& report) {
    const GgufModel& g = report.gguf;
    const GgufEstimate& fe = report.at_context;
    const ReportOptions& ro = report.options;
    const std::optional<HardwareReport>& hardware = report.hardware;
    out << "\n  At " << format_context(ro.estimate.context) << " context ("
        << ro.estimate.kv_type.id << " KV; llama.cpp allocates "
        << format_thousands(fe.cache_context) << " cells)\n";
    out << "    by " << gguf_rule_text(fe) << "\n";
    Table terms({"term", "GB", "MiB"}, {false, true, true});
    for (const auto& t : fe.estimate.terms) {
        terms.add_row({term_name(t.kind), format_gb(t.bytes), format_mib(t.bytes)});
    }
    if (fe.settings.rule != Rule::quick) {
        const Bytes gpu = fe.estimate.on(Device::gpu);
        const Bytes ram = fe.estimate.on(Device::cpu);
        terms.add_row({"on the GPU", format_gb(gpu), format_mib(gpu)});
        terms.add_row({"in RAM", format_gb(ram), format_mib(ram)});
    }
    terms.add_row({"total", format_gb(fe.estimate.total()), format_mib(fe.estimate.total())});
    terms.write(out, "    ");
    if (fe.recurrent > 0 && fe.settings.rule == Rule::quick) {
        out << "    recurrent state " << format_gb(fe.recurrent) << " (" << format_mib(fe.recurrent)
            << ", f32, fixed; inside the overhead by the quick rule)\n";
    }
    if (hardware) {
        write_hardware_section(
            out, g.model, hardware->selected.quant ? *hardware->selected.quant : gguf_file_quant(),
            hardware->selected.settings.estimate, *hardware);
    }
    if (ro.vram_budget && report.vram_fits) {
        out << "\n  VRAM budget " << format_gb(*ro.vram_budget) << ": "
            << (*report.vram_fits ? "fits" : "does not fit") << " ("
            << format_gb(fe.estimate.on(Device::gpu)) << " on the GPU)\n";
    }
}

void write_gguf_text(std::ostream& out, const GgufReport& report) {
    write_gguf_facts(out, report);
    write_gguf_mix(out, report.gguf);
    write_gguf_terms(out, report);
}

json gguf_json(const GgufReport& report) {
    const std::string& path = report.label;
    const GgufModel& g = report.gguf;
    const GgufEstimate& fe = report.at_context;
    const ReportOptions& ro = report.options;
    const std::optional<HardwareReport>& hardware = report.hardware;
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
                {"overhead_percent",
                 fe.settings.rule == Rule::quick ? json(ro.estimate.overhead_percent) : json(0)},
                {"rule", rule_name(fe.settings.rule)},
                {"rule_note", fe.rule_note.empty() ? json(nullptr) : json(fe.rule_note)},
                {"gpu_bytes", fe.estimate.on(Device::gpu)},
                {"host_bytes", fe.estimate.on(Device::cpu)},
                {"units", "bytes"},
                {"estimate",
                 {{"total_bytes", fe.estimate.total()}, {"terms", estimate_json(fe.estimate)}}}};
    if (hardware) out["hardware"] = hardware_report_json(g.model, *hardware);
    if (ro.vram_budget && report.vram_fits) {
        out["vram_query"] = {{"budget_bytes", *ro.vram_budget}, {"fits", *report.vram_fits}};
    }
    out["kv_comparison"] = {{"curve", kv_curve_json(report.curve)}};
    return out;
}

// One row: the file at the context, raw bytes.
void write_gguf_csv(std::ostream& out, const GgufReport& r) {
    CsvWriter csv(out, {"file", "architecture", "context", "cache_context", "kv_type",
                        "weights_bytes", "kv_cache_bytes", "recurrent_state_bytes", "mmproj_bytes",
                        "overhead_bytes", "total_bytes", "plan"});
    const Estimate& e = r.at_context.estimate;
    const auto num = [](std::uint64_t n) { return std::to_string(n); };
    csv.row({r.label, r.gguf.architecture, num(r.options.estimate.context),
             num(r.at_context.cache_context), r.options.estimate.kv_type.id,
             num(e.term(TermKind::weights)), num(r.at_context.kv), num(r.at_context.recurrent),
             num(r.at_context.mmproj), num(e.term(TermKind::overhead)), num(e.total()),
             r.hardware ? plan_kind_name(r.hardware->selected.plan.kind) : ""});
}

// The KV chart's points (--chart --format csv), as the model page writes them.
void write_gguf_curve_csv(std::ostream& out, const GgufReport& r) {
    CsvWriter csv(out, {"file", "context", "kv_type", "this_model_bytes", "all_attention_bytes",
                        "this_model_total_bytes", "all_attention_total_bytes"});
    const auto num = [](std::uint64_t n) { return std::to_string(n); };
    for (const auto& p : r.curve) {
        csv.row({r.label, num(p.context), r.options.estimate.kv_type.id, num(p.this_model_bytes),
                 num(p.all_attention_bytes), num(p.this_model_total_bytes),
                 num(p.all_attention_total_bytes)});
    }
}

// --quiet: as the model page answers, for a file that has its own quantization.
std::string gguf_answer(const GgufReport& r) {
    if (r.hardware) return plan_kind_name(r.hardware->selected.plan.kind);
    if (r.vram_fits) return *r.vram_fits ? "fits" : "does not fit";
    return r.smallest_gpu != nullptr ? display_name(*r.smallest_gpu) : "none";
}

}  // namespace

namespace {

Result<GgufModel> load_gguf(const std::string& path) {
    CANITRUN_TRY_ASSIGN(auto parts, read_gguf_parts(path));
    return gguf_to_model(parts);
}

}  // namespace

CommandResult gguf_page(const std::shared_ptr<const GgufReport>& report, bool chart_csv,
                        const std::string& note) {
    CommandResult r;
    r.what = "a model file";
    r.views = {[report] { return gguf_json(*report); },
               [report, chart_csv](std::ostream& csv) {
                   if (chart_csv) {
                       write_gguf_curve_csv(csv, *report);
                   } else {
                       write_gguf_csv(csv, *report);
                   }
               },
               [report] { return std::vector<std::string>{gguf_answer(*report)}; }};
    r.text = [report, note](std::ostream& out) {
        write_gguf_text(out, *report);
        write_kv_chart_section(
            out, report->gguf.model, report->curve,
            report->options.estimate.kv_type.id + ", the file's weights, " +
                (report->at_context.settings.rule == Rule::quick ? "page's rule"
                                                                 : "llama.cpp's allocation"),
            "the file's weights");
        out << note;
    };
    r.verdict = verdict_of(report->hardware);
    return r;
}

Error file_overflow(const std::string& path) {
    return Error{ErrorKind::bad_input, path + ": sizes in the file overflow 64 bits",
                 "the file is corrupt"};
}

Result<CommandResult> gguf_file_page(const Database& db, const std::string& label,
                                     const GgufModel& g, Bytes mmproj, const ReportOptions& ro,
                                     bool chart_csv, const std::string& note) {
    CANITRUN_TRY_ASSIGN(auto report,
                        catch_overflow([&] { return build_gguf_report(db, label, g, mmproj, ro); },
                                       [&] { return std::unexpected(file_overflow(label)); }));
    return gguf_page(std::make_shared<const GgufReport>(std::move(report)), chart_csv, note);
}

namespace {

// The options with the projector file --mmproj gives, which every plan of the file then loads
// (server_terms.hpp: the GPU lists, the smallest GPU, --vram, --gpu and the llama-server line).
ReportOptions with_projector(ReportOptions ro, const std::string& path, Bytes bytes) {
    ro.plan.server.mmproj_file = path;
    ro.plan.server.mmproj_file_bytes = bytes;
    return ro;
}

Result<CommandResult> run_gguf(const Database& db, const std::string& path,
                               const std::string& mmproj_path, const ReportOptions& ro,
                               bool chart_csv) {
    CANITRUN_TRY_ASSIGN(const GgufModel g, load_gguf(path));
    CANITRUN_TRY_ASSIGN(const Bytes mmproj, gguf_file_tensor_bytes(mmproj_path));
    return gguf_file_page(db, path, g, mmproj, with_projector(ro, mmproj_path, mmproj), chart_csv,
                          "");
}

}  // namespace

CommandResult config_page(const std::shared_ptr<const ModelReport>& report,
                          const std::string& label, const std::string& params_source,
                          bool chart_csv) {
    CommandResult r = model_page_result(report, chart_csv, "");
    r.what = "a model file";
    r.html = nullptr;  // the HTML page is a database model's
    r.views.json = [report, label, params_source] {
        json j = model_report_json(*report);
        j["params_source"] = params_source;
        j["file"] = label;
        return j;
    };
    r.text = [report, label, params_source](std::ostream& out) {
        out << "From " << label << " (parameters: " << params_source << ")\n";
        write_text_report(out, *report);
    };
    return r;
}

namespace {

Result<CommandResult> run_hf(const Database& db, const std::string& path, const ReportOptions& ro,
                             bool chart_csv) {
    CANITRUN_TRY_ASSIGN(const HfModel hf, read_hf_model(path));
    CANITRUN_TRY_ASSIGN(std::shared_ptr<const FileReport> file,
                        config_file_report(db, hf.model, ro));
    // The page's report, kept alive with the model it points into.
    return config_page(std::shared_ptr<const ModelReport>(file, &file->report), path,
                       hf.params_source, chart_csv);
}

// A Hugging Face config.json or a folder holding one; any other model file is read as GGUF.
bool is_hf_path(const std::string& path) {
    std::error_code ec;
    return path.ends_with(".json") || fs::is_directory(path, ec);
}

}  // namespace

Result<CommandResult> run_model_file(const Database& db, const std::string& path,
                                     const std::string& mmproj, const ReportOptions& options,
                                     bool chart_csv) {
    return catch_overflow(
        [&]() -> Result<CommandResult> {
            if (is_hf_path(path)) return run_hf(db, path, options, chart_csv);
            return run_gguf(db, path, mmproj, options, chart_csv);
        },
        [&] { return std::unexpected(file_overflow(path)); });
}

Result<std::unique_ptr<FileReport>> file_gpus_report(const Database& db, const ModelArgument& path,
                                                     const std::string& mmproj_path,
                                                     const ReportOptions& options,
                                                     const RemoteFlags& remote) {
    const std::string& file = path.text;
    return catch_overflow(
        [&]() -> Result<std::unique_ptr<FileReport>> {
            if (path.remote()) {
                std::string label;
                CANITRUN_TRY_ASSIGN(const GgufModel g, remote_gguf_model(db, file, remote, &label));
                return gguf_file_report(db, label, g, 0, options);
            }
            if (is_hf_path(file)) {
                CANITRUN_TRY_ASSIGN(const HfModel hf, read_hf_model(file));
                return config_file_report(db, hf.model, options);
            }
            CANITRUN_TRY_ASSIGN(const GgufModel g, load_gguf(file));
            CANITRUN_TRY_ASSIGN(const Bytes mmproj, gguf_file_tensor_bytes(mmproj_path));
            return gguf_file_report(db, file, g, mmproj,
                                    with_projector(options, mmproj_path, mmproj));
        },
        [&] { return std::unexpected(file_overflow(file)); });
}

Result<CommandResult> engine_on_gguf(const Database& db, const std::string& label,
                                     const std::vector<GgufFile>& parts,
                                     const EngineRequest& request) {
    CANITRUN_TRY_ASSIGN(auto g, gguf_to_model(parts));
    EngineRequest r = request;
    r.db = &db;
    r.model = &g.model;
    r.quant = nullptr;
    CANITRUN_TRY_ASSIGN(r.file_tensors, file_tensor_sums(g.model, g.tensors));
    r.file = label;
    return run_engine(r);
}

Result<CommandResult> run_model_file_engine(const Database& db, const std::string& path,
                                            const EngineRequest& request) {
    CANITRUN_TRY_ASSIGN(auto parts, read_gguf_parts(path));
    return engine_on_gguf(db, fs::path(path).filename().string(), parts, request);
}

}  // namespace canitrun::cli
