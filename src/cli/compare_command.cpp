#include "compare_command.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "canitrun/model_argument.hpp"
#include "csv_output.hpp"
#include "format.hpp"
#include "hardware_text.hpp"
#include "page_facts.hpp"
#include "style.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

using nlohmann::json;

const ModelReport& report_of(const std::unique_ptr<FileReport>& e) {
    return e->report;
}

std::string layers_text(const Model& m) {
    std::string s = std::to_string(m.arch.layers);
    if (m.arch.layer_groups.size() < 2) return s;
    std::vector<std::string> parts;
    for (const auto& g : m.arch.layer_groups) {
        parts.push_back(std::to_string(g.count) + " " + group_label(m, g));
    }
    s += ": ";
    for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? " + " : "") + parts[i];
    return s;
}

std::string params_text(const Model& m) {
    std::string s = format_params(m.params_total);
    if (m.is_moe()) s += " (" + format_params(m.params_active) + " active)";
    return s;
}

std::string context_text(const Model& m) {
    std::string s = format_context(m.context_native);
    if (m.context_extended > m.context_native) {
        s += " (" + format_context(m.context_extended) + " " +
             (m.context_extension.empty() ? std::string("extended") : m.context_extension) + ")";
    }
    return s;
}

std::string or_dash(const std::optional<Bytes>& b) {
    return b ? format_gb(*b) : std::string("-");
}

std::optional<Bytes> kv_full(const ModelReport& r) {
    if (r.kv_curve.empty()) return std::nullopt;
    return r.kv_full_context;
}

std::string smallest_text(const ModelReport& r) {
    if (r.smallest_gpu == nullptr) return "none";
    return fmt::format("{} ({} GB)", display_name(*r.smallest_gpu), r.smallest_gpu->vram_gb);
}

}  // namespace

Result<Comparison> build_comparison(const Database& db, const std::vector<ModelArgument>& operands,
                                    const ReportOptions& options, const RemoteFlags& remote) {
    Comparison c;
    if (options.hardware) c.notes = options.hardware->notes;
    for (const ModelArgument& operand : operands) {
        c.operands.push_back(operand.text);
        if (operand.kind != ModelArgumentKind::database) {
            CANITRUN_TRY_ASSIGN(auto file, file_gpus_report(db, operand, "", options, remote));
            c.entries.push_back(std::move(file));
            continue;
        }
        CANITRUN_TRY_ASSIGN(auto model, db.find_model(operand.text));
        auto entry = std::make_unique<FileReport>();
        auto report = build_model_report(db, *model, options);
        if (!report) {
            Error e = report.error();
            e.message = model->id + ": " + e.message;
            return std::unexpected(e);
        }
        entry->report = std::move(*report);
        c.entries.push_back(std::move(entry));
    }
    return c;
}

void write_comparison(std::ostream& out, const Comparison& c) {
    std::vector<std::string> header = {""};
    for (const auto& e : c.entries) header.push_back(report_of(e).model->name);
    const ModelReport& first = report_of(c.entries.front());
    // One rule for all, named once; else each column says its own in the Rule row.
    bool one_rule = true;
    for (const auto& e : c.entries) one_rule = one_rule && report_of(e).rule == first.rule;
    out << heading(out, "Compared at " + first.quant->id +
                            (one_rule ? std::string(", ") + rule_name(first.rule) + " rule"
                                      : std::string()) +
                            " (GB = 10^9 bytes)")
        << "\n";
    Table t(header);
    const auto row = [&](const std::string& label, auto cell) {
        std::vector<std::string> cells = {label};
        for (const auto& e : c.entries) cells.push_back(cell(report_of(e)));
        t.add_row(cells);
    };
    row("Parameters", [](const ModelReport& r) { return params_text(*r.model); });
    row("Context", [](const ModelReport& r) { return context_text(*r.model); });
    row("Layers", [](const ModelReport& r) { return layers_text(*r.model); });
    row("Quantization", [](const ModelReport& r) { return r.quant->id; });
    if (!one_rule) {
        row("Rule", [](const ModelReport& r) {
            return r.rule == Rule::quick ? std::string("quick (+ 12 %)") : std::string("llama.cpp");
        });
    }
    row("Planned context", [](const ModelReport& r) { return format_context(r.options.context); });
    row("VRAM (on the GPU)",
        [](const ModelReport& r) { return format_gb(r.selected.on(Device::gpu)); });
    row("In RAM", [](const ModelReport& r) { return format_gb(r.selected.on(Device::cpu)); });
    row("KV cache, full window", [](const ModelReport& r) { return or_dash(kv_full(r)); });
    row("KV growth to the window",
        [](const ModelReport& r) { return or_dash(r.kv_growth_to_full); });
    row("Smallest GPU", smallest_text);
    const bool hardware = first.hardware.has_value();
    if (hardware) {
        row("On --gpu", [](const ModelReport& r) {
            return r.hardware ? std::string(plan_kind_name(r.hardware->selected.plan.kind)) : "-";
        });
        row("Decode speed", [](const ModelReport& r) {
            const double s = r.hardware ? r.hardware->selected.speed.decode_tokens_per_s : 0;
            return s > 0 ? fmt::format("~{:.0f} tok/s", s) : std::string("-");
        });
        row("Best quantization that fits", [](const ModelReport& r) {
            if (!r.hardware) return std::string("-");
            return r.hardware->best ? r.hardware->best->quant->id : std::string("none");
        });
        row("Longest context, native", [](const ModelReport& r) {
            return r.hardware && r.hardware->max_context ? format_context(*r.hardware->max_context)
                                                         : std::string("-");
        });
    }
    t.write(out);
    write_hardware_notes(out, c.notes);
    if (!hardware) out << "  Add --gpu to compare speed and the best quantization on your GPUs.\n";
}

json comparison_json(const Comparison& c) {
    json models = json::array();
    for (const auto& e : c.entries) {
        const ModelReport& r = report_of(e);
        const Model& m = *r.model;
        json kinds = json::object();
        for (const auto& g : m.arch.layer_groups) {
            kinds[layer_kind_name(g.kind)] = kinds.value(layer_kind_name(g.kind), 0ULL) + g.count;
        }
        json hw = nullptr;
        if (r.hardware) {
            const auto& h = *r.hardware;
            hw = {{"plan", plan_kind_name(h.selected.plan.kind)},
                  {"decode_tokens_per_s", h.selected.speed.decode_tokens_per_s > 0
                                              ? json(h.selected.speed.decode_tokens_per_s)
                                              : json(nullptr)},
                  {"best_quant", h.best ? json(h.best->quant->id) : json(nullptr)},
                  {"max_context", h.max_context ? json(*h.max_context) : json(nullptr)}};
        }
        const auto kv = kv_full(r);
        models.push_back(
            {{"id", m.id},
             {"name", m.name},
             {"params_total", m.params_total},
             {"params_active", m.params_active},
             {"context_native", m.context_native},
             {"context_extended", m.context_extended},
             {"layers", m.arch.layers},
             {"layer_kinds", kinds},
             {"quant", r.quant->id},
             {"context", r.options.context},
             {"rule", rule_name(r.rule)},
             {"gpu_bytes", r.selected.on(Device::gpu)},
             {"host_bytes", r.selected.on(Device::cpu)},
             {"kv_full_context_bytes", kv ? json(*kv) : json(nullptr)},
             {"kv_growth_to_full_bytes",
              r.kv_growth_to_full ? json(*r.kv_growth_to_full) : json(nullptr)},
             {"smallest_gpu", r.smallest_gpu ? json(r.smallest_gpu->id) : json(nullptr)},
             {"hardware", hw}});
    }
    return json{{"units", "bytes"}, {"models", models}, {"notes", c.notes}};
}

void write_comparison_csv(std::ostream& out, const Comparison& c) {
    CsvWriter csv(out, {"model", "params_total", "params_active", "context_native", "layers",
                        "quant", "context", "rule", "gpu_bytes", "host_bytes",
                        "kv_full_context_bytes", "kv_growth_to_full_bytes", "smallest_gpu", "plan",
                        "decode_tokens_per_s", "best_quant", "max_context"});
    for (const auto& e : c.entries) {
        const ModelReport& r = report_of(e);
        const Model& m = *r.model;
        const auto kv = kv_full(r);
        const auto* h = r.hardware ? &*r.hardware : nullptr;
        csv.row({m.id, std::to_string(m.params_total), std::to_string(m.params_active),
                 std::to_string(m.context_native), std::to_string(m.arch.layers), r.quant->id,
                 std::to_string(r.options.context), rule_name(r.rule),
                 std::to_string(r.selected.on(Device::gpu)),
                 std::to_string(r.selected.on(Device::cpu)), kv ? std::to_string(*kv) : "",
                 r.kv_growth_to_full ? std::to_string(*r.kv_growth_to_full) : "",
                 r.smallest_gpu ? r.smallest_gpu->id : "",
                 h ? plan_kind_name(h->selected.plan.kind) : "",
                 h && h->selected.speed.decode_tokens_per_s > 0
                     ? fmt::format("{}", h->selected.speed.decode_tokens_per_s)
                     : "",
                 h && h->best ? h->best->quant->id : "",
                 h && h->max_context ? std::to_string(*h->max_context) : ""});
    }
}

}  // namespace canitrun::cli
