// One function per command, on the options app.cpp parsed (app_options.hpp).

#include <cstdlib>
#include <optional>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "app_options.hpp"
#include "canitrun/database_files.hpp"
#include "canitrun/embedded_snapshot.hpp"
#include "canitrun/gpu_description.hpp"
#include "canitrun/model_argument.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/report.hpp"
#include "cluster_command.hpp"
#include "command_result.hpp"
#include "compare_command.hpp"
#include "csv_output.hpp"
#include "engine_command.hpp"
#include "file_command.hpp"
#include "hardware_json.hpp"
#include "hardware_options.hpp"
#include "hardware_text.hpp"
#include "html_report.hpp"
#include "json_output.hpp"
#include "list_command.hpp"
#include "local_command.hpp"
#include "model_command.hpp"
#include "remote_command.hpp"
#include "request.hpp"
#include "style.hpp"
#include "text_report.hpp"
#include "verify_command.hpp"

#ifndef CANITRUN_VERSION
#define CANITRUN_VERSION "0.0.0"
#endif

namespace canitrun::cli {
namespace {

// The HTML page's footer: who made it, from which data.
std::string made_by(const Database& db) {
    std::string line = std::string("Made by canitrun ") + CANITRUN_VERSION;
    if (!db.info.version.empty()) line += ", database " + db.info.version;
    return line + ".";
}

}  // namespace

void read_gpu_specs(Options& o) {
    if (o.hw.gpu_specs.empty()) return;
    auto gpus = described_gpus(o.hw);
    if (!gpus) throw Failures{std::move(gpus.error())};
    o.described_gpus = std::move(*gpus);
    if (o.hw.gpu.empty() && o.hosts.empty()) {
        for (const Gpu& g : o.described_gpus) o.hw.gpu += (o.hw.gpu.empty() ? "" : ",") + g.id;
    }
}

// The chart for text output: on a terminal, or asked for with --chart (style.hpp).
ChartChoice chart_choice(const Options& o) {
    const bool page_text = o.output == Format::table || o.output == Format::markdown;
    return choose_chart(o.chart && page_text, o.ascii, o.terminal && o.output == Format::table,
                        o.columns);
}
CommandResult model_command(const Request& r) {
    const Model* model = need(r.db->find_model(r.model.text));
    if (cluster_question(r)) return cluster_result(r, *model);
    auto report =
        std::make_shared<const ModelReport>(need(build_model_report(*r.db, *model, r.report)));
    return model_page_result(report, r.flags->chart, made_by(*r.db));
}

CommandResult gpus_command(const Request& r) {
    if (r.engine_has_own_view()) {
        const std::string& e = r.flags->engine.engine;
        throw Failure{Error{ErrorKind::bad_input,
                            "--engine " + e + " applies to the model command only",
                            "use 'canitrun MODEL --engine " + e + " --gpu NAME'"}};
    }
    if (r.model.kind != ModelArgumentKind::database) {
        std::shared_ptr<const FileReport> file =
            need(file_gpus_report(*r.db, r.model, r.flags->mmproj, r.report, r.flags->remote));
        return gpus_result(std::shared_ptr<const ModelReport>(file, &file->report));
    }
    const Model* model = need(r.db->find_model(r.model.text));
    return gpus_result(
        std::make_shared<const ModelReport>(need(build_model_report(*r.db, *model, r.report))));
}

CommandResult system_command(const Request& r) {
    const Database& db = *r.db;
    const DetectedSystem system = detect_this_machine(db);
    // Every device the tools report, one row each (the plans take them as the runtime sees
    // them: hardware_from).
    Hardware hardware;
    for (const auto& g : system.gpus) hardware.gpus.push_back(device_from(g, db));
    CommandResult result;
    result.what = "system";
    result.views = {
        [system, hardware] { return system_json(system, hardware); },
        [system, hardware](std::ostream& csv) { write_system_csv(csv, system, hardware); },
        [system, hardware] {
            // Each device's database id where it is that whole GPU (what --gpu takes back),
            // else the name its tool reported (a MIG slice is not the A100 it is cut from);
            // "none" on a machine without a GPU, as the page says.
            std::vector<std::string> ids;
            for (std::size_t i = 0; i < hardware.gpus.size(); ++i) {
                const GpuDevice& d = hardware.gpus[i];
                const bool whole = system.gpus[i].parent_name.empty();
                ids.push_back(d.gpu != nullptr && whole ? d.gpu->id : system.gpus[i].name);
            }
            if (ids.empty()) ids.emplace_back("none");
            return ids;
        }};
    result.text = [system, hardware](std::ostream& out) { write_system(out, system, hardware); };
    return result;
}

CommandResult fit_command(const Request& req) {
    if (!req.report.hardware) {
        throw Failure{Error{ErrorKind::bad_input, "fit needs the hardware to fit",
                            "give --gpu, e.g. canitrun fit --gpu \"RTX 4090\" or --gpu auto"}};
    }
    if (req.engine_has_own_view()) {
        throw Failure{
            Error{ErrorKind::bad_input, "fit plans by llama.cpp's rule or the quick rule",
                  "leave out --engine " + req.flags->engine.engine + ", or use --engine quick"}};
    }
    const Database& db = *req.db;
    const Hardware hardware = *req.report.hardware;
    const EstimateOptions options = req.report.estimate;
    const PlanSettings& settings = req.report.plan;
    const ContextAsked asked = req.context ? ContextAsked::asked : ContextAsked::default_capped;
    auto fits = std::make_shared<std::vector<ModelFit>>(
        need(models_that_fit(db, hardware, settings, asked)));
    sort_model_fits(*fits, req.sort);
    CommandResult r;
    r.what = "fit";
    r.views = {[hardware, options, fits] { return model_fits_json(hardware, options, *fits); },
               [fits](std::ostream& csv) { write_model_fits_csv(csv, *fits); },
               [fits] {
                   std::vector<std::string> ids;
                   for (const auto& f : *fits) ids.push_back(f.model->id);
                   return ids;
               }};
    r.text = [hardware, options, fits](std::ostream& out) {
        write_model_fits(out, hardware, options, *fits);
    };
    r.verdict = verdict_of_fit(!fits->empty());  // fit: exit 1 when no model fits
    return r;
}

CommandResult compare_command(const Request& req) {
    if (req.operands.size() < 2) {
        throw Failure{Error{ErrorKind::bad_input, "compare needs two or more models",
                            "e.g. canitrun compare qwen3.5-35b-a3b gpt-oss-20b"}};
    }
    if (req.engine_has_own_view() || req.backend) {
        throw Failure{Error{ErrorKind::bad_input,
                            "compare plans by llama.cpp's rule or the quick rule",
                            "leave out --engine vllm / exo and --backend, or use --engine quick"}};
    }
    auto c = std::make_shared<const Comparison>(
        need(build_comparison(*req.db, req.operands, req.report, req.flags->remote)));
    CommandResult r;
    r.what = "compare";
    r.views = {[c] { return comparison_json(*c); },
               [c](std::ostream& csv) { write_comparison_csv(csv, *c); },
               [c] {
                   std::vector<std::string> ids;
                   for (const auto& e : c->entries) ids.push_back(e->report.model->id);
                   return ids;
               }};
    r.text = [c](std::ostream& out) { write_comparison(out, *c); };
    return r;
}

CommandResult local_command(const Request& req) {
    const StoreRoots roots = store_roots(std::getenv("HOME"), std::getenv("OLLAMA_MODELS"),
                                         std::getenv("HF_HOME"), std::getenv("LLAMA_CACHE"));
    auto l = std::make_shared<const LocalListing>(build_local_listing(*req.db, roots, req.report));
    CommandResult r;
    r.what = "local";
    r.views = {[l] { return local_json(*l); }, [l](std::ostream& csv) { write_local_csv(csv, *l); },
               [l] {
                   std::vector<std::string> names;
                   for (const auto& e : l->models) names.push_back(e.where.path);
                   return names;
               }};
    r.text = [l](std::ostream& out) { write_local(out, *l); };
    return r;
}

CommandResult verify_command(const Request& r) {
    return need(
        run_verify(*r.db, r.flags->log, r.flags->hw.gpu, r.flags->verify_model, r.report.quant));
}

CommandResult model_source_command(const Request& r) {
    const Database& db = *r.db;
    const Options& o = *r.flags;
    const EngineRequest engine{&db,
                               nullptr,
                               r.report.quant,
                               r.context,
                               r.report.hardware,
                               r.report.vram_budget,
                               r.report.plan,
                               r.backend,
                               {},
                               {}};
    if (r.engine == EngineKind::vllm) {
        // vLLM is its own view of database models (vllm_command.cpp), whose checkpoint dtypes the
        // data records; a file or a folder has none of that here.
        if (r.model.kind == ModelArgumentKind::hf_config) {
            throw Failure{Error{ErrorKind::bad_input,
                                "--engine vllm plans database models, not a config.json",
                                "leave out --engine for llama.cpp's plan of this checkpoint"}};
        }
        throw Failure{Error{ErrorKind::bad_input, "--engine vllm loads checkpoints, not GGUF files",
                            "use --engine llama.cpp for a GGUF file"}};
    }
    if (r.model.remote()) {
        if (!o.mmproj.empty()) {
            throw Failure{Error{ErrorKind::bad_input,
                                "--mmproj adds a projector file on this machine",
                                "leave it out for a remote model (its projector is named)"}};
        }
        if (r.explicit_profile()) {
            std::string label;
            const auto parts = need(remote_gguf_parts(db, r.model.text, o.remote, &label));
            return need(engine_on_gguf(db, label, parts, engine));
        }
        return need(run_remote(db, r.model.text, r.report, o.chart, o.remote));
    }
    // The profile's own view reads a GGUF file's tensors; a config.json has none, and its plan
    // is llama.cpp's already (the default engine), so an explicit --engine llama.cpp changes
    // nothing for it.
    if (r.explicit_profile() && r.model.kind == ModelArgumentKind::gguf_file) {
        return need(run_model_file_engine(db, r.model.text, engine));
    }
    return need(run_model_file(db, r.model.text, o.mmproj, r.report, o.chart));
}

CommandResult lists_command(const Request& r, ListKind kind) {
    switch (kind) {
        case ListKind::models:
            return models_result(*r.db, r.filter);
        case ListKind::gpus:
            return gpu_list_result(*r.db, r.filter);
        case ListKind::quants:
            break;
    }
    return quants_result(*r.db);
}

}  // namespace canitrun::cli
