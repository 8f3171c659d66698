#include "list_command.hpp"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "canitrun/fit.hpp"
#include "canitrun/name_match.hpp"
#include "csv_output.hpp"
#include "data_views.hpp"
#include "format.hpp"
#include "json_output.hpp"
#include "style.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

std::string bandwidth(double gbps) {
    return fmt::format("{:.0f} GB/s", gbps);
}

// A published file recipe as the list names it: whose files follow it, the llama-quantize
// type it starts from, and what it types by hand ("bartowski: Q4_K_M, imatrix, 4 tensor
// rules"); empty for llama-quantize's own types and the checkpoint formats.
std::string recipe_text(const Quant& q) {
    if (q.recipe_base.empty()) return "";
    std::string s = q.recipe_publisher + ": " + q.recipe_base;
    if (q.recipe_imatrix) s += ", imatrix";
    if (!q.recipe_tensors.empty()) {
        s += ", " + std::to_string(q.recipe_tensors.size()) + " tensor rule" +
             (q.recipe_tensors.size() == 1 ? "" : "s");
    }
    return s;
}

}  // namespace

CommandResult models_result(const Database& db, const ListFilter& f) {
    const std::vector<const Model*> models = models_matching(db, f);
    CommandResult r;
    r.what = "models";
    r.views = {[models] {
                   nlohmann::json list = nlohmann::json::array();
                   for (const Model* m : models) list.push_back(model_json(*m));
                   return list;
               },
               [models](std::ostream& o) { write_models_csv(o, models); },
               [models] {
                   std::vector<std::string> ids;
                   for (const Model* m : models) ids.push_back(m->id);
                   return ids;
               }};
    r.text = [models](std::ostream& out) {
        Table t({"Model", "Name", "Params", "Active", "Context", "Layers"},
                {false, false, true, true, true, false});
        for (const Model* m : models) {
            t.add_row({m->id, m->name, format_params(m->params_total),
                       m->is_moe() ? format_params(m->params_active) : "",
                       format_context(m->context_native), layer_groups_text(m->arch.layer_groups)});
        }
        t.write(out, "");
        out << models.size() << " models\n";
    };
    return r;
}

CommandResult gpu_list_result(const Database& db, const ListFilter& f) {
    const std::vector<const Gpu*> gpus = gpus_matching(db, f);
    CommandResult r;
    r.what = "gpu-list";
    r.views = {[gpus] {
                   nlohmann::json list = nlohmann::json::array();
                   for (const Gpu* g : gpus) list.push_back(gpu_json(*g));
                   return list;
               },
               [gpus](std::ostream& o) { write_gpu_list_csv(o, gpus); },
               [gpus] {
                   std::vector<std::string> ids;
                   for (const Gpu* g : gpus) ids.push_back(g->id);
                   return ids;
               }};
    r.text = [gpus](std::ostream& out) {
        Table t({"GPU", "Name", "VRAM", "Bandwidth", "Class"}, {false, false, true, true, false});
        for (const Gpu* g : gpus) {
            t.add_row({g->id, g->name, fmt::format("{} GB", g->vram_gb),
                       bandwidth(g->bandwidth_gbps), gpu_class_name(g->gpu_class)});
        }
        t.write(out, "");
        out << gpus.size() << " GPUs\n";
    };
    return r;
}

CommandResult quants_result(const Database& db) {
    CommandResult r;
    r.what = "quants";
    r.views = {[&db] {
                   nlohmann::json list = nlohmann::json::array();
                   for (const auto& q : db.quants) list.push_back(quant_json(q));
                   return list;
               },
               [&db](std::ostream& o) { write_quants_csv(o, db); },
               [&db] {
                   std::vector<std::string> ids;
                   for (const auto& q : db.quants) ids.push_back(q.id);
                   return ids;
               }};
    r.text = [&db](std::ostream& out) {
        Table t({"Quant", "Bits/weight", "Quality rank", "Needs", "Recipe"},
                {false, true, true, false, false});
        for (const auto& q : db.quants) {
            t.add_row({q.id + (q.recommended ? " (rec)" : ""),
                       fmt::format("{:.4f}",
                                   static_cast<double>(q.bpw_e4) / static_cast<double>(kBpwScale)),
                       std::to_string(q.quality_rank), q.requires_backend, recipe_text(q)});
        }
        t.write(out, "");
    };
    return r;
}

CommandResult gpus_result(const std::shared_ptr<const ModelReport>& report) {
    CommandResult result;
    result.what = "gpus";
    result.views = {[report] {
                        const ModelReport& r = *report;
                        nlohmann::json doc = model_report_json(r);
                        return nlohmann::json({{"model", doc["model"]["id"]},
                                               {"quant", doc["quant"]},
                                               {"context", doc["context"]},
                                               {"total_bytes", r.selected.total()},
                                               {"smallest_gpu", doc["smallest_gpu"]},
                                               {"gpus", doc["gpus"]}});
                    },
                    [report](std::ostream& o) { write_gpus_csv(o, *report); },
                    [report] {
                        // ids, as every list's --quiet prints them (gpu-list --names reads them)
                        std::vector<std::string> ids;
                        for (const Gpu* g : report->gpus.native) ids.push_back(g->id);
                        return ids;
                    }};
    result.text = [report](std::ostream& out) {
        const ModelReport& r = *report;
        out << r.model->name << " at " << r.quant->id << ", "
            << format_plan_context(r.options.context, r.settings.n_seq)
            << " context: " << format_gb(r.selected.on(Device::gpu)) << " on one GPU\n\n";
        const auto list = [&](const char* title, bool offload) {
            const auto& gpus = offload ? r.gpus.offload : r.gpus.native;
            out << heading(out, fmt::format("{} ({})", title, gpus.size())) << "\n";
            if (gpus.empty()) return;
            Table t({"GPU", "VRAM", "Bandwidth", "Class", offload ? "In system RAM" : "Headroom"},
                    {false, true, true, false, true});
            for (const GpuVerdict& v : r.gpu_verdicts) {
                if ((v.kind == PlanKind::native) == offload) continue;
                const Gpu* g = v.gpu;
                t.add_row({display_name(*g), fmt::format("{} GB", g->vram_gb),
                           bandwidth(g->bandwidth_gbps), gpu_class_name(g->gpu_class),
                           format_gb(offload ? v.ram_bytes : v.capacity - v.gpu_bytes)});
            }
            t.write(out);
            out << "\n";
        };
        list("Run it natively", false);
        list("Run it with CPU offload (slower)", true);
        if (r.rule == Rule::quick) {
            out << "Native: total <= the card's marketed GB (unified memory: the share the GPU may "
                   "use). Offload: the rest fits in "
                << format_ram_gb(r.fit.ram) << " GB of system RAM (--ram).\n";
        } else {
            out << "Planned by llama.cpp's rule on each GPU with " << format_ram_gb(r.fit.ram)
                << " GB of system RAM (--ram"
                << (r.fit.ram_given ? "" : "; a unified-memory machine: its own CPU side")
                << "): native when every layer fits beside " << format_margin(r.settings.margin)
                << " kept free; offload with routed experts or layers in RAM.\n";
        }
    };
    return result;
}

}  // namespace canitrun::cli
