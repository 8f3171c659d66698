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
#include "file_commands.hpp"
#include "hardware_json.hpp"
#include "hardware_options.hpp"
#include "hardware_text.hpp"
#include "html_report.hpp"
#include "json_output.hpp"
#include "list_commands.hpp"
#include "local_command.hpp"
#include "model_page.hpp"
#include "remote_command.hpp"
#include "style.hpp"
#include "text_report.hpp"
#include "verify_command.hpp"

#ifndef CANITRUN_VERSION
#define CANITRUN_VERSION "0.0.0"
#endif

namespace canitrun::cli {
namespace {

// --ram is whole GB (FitOptions::ram_gb); a fraction is dropped, but never down to nothing.
std::uint64_t ram_gb(const std::string& text) {
    const std::uint64_t gb = need(parse_gb(text)) / kGB;
    if (gb == 0) {
        throw Failure{Error{ErrorKind::bad_input, "--ram '" + text + "' is less than 1 GB",
                            "give the system RAM in whole GB, for example --ram 64"}};
    }
    return gb;
}

// The HTML page's footer: who made it, from which data.
std::string made_by(const Database& db) {
    std::string line = std::string("Made by canitrun ") + CANITRUN_VERSION;
    if (!db.info.version.empty()) line += ", database " + db.info.version;
    return line + ".";
}

ListFilter list_filter(const Options& o) {
    ListFilter f{o.family, o.vendor, std::nullopt, {}};
    if (!o.min_vram.empty()) f.min_vram_bytes = need(parse_gb(o.min_vram));
    if (!o.since.empty()) f.since = need(parse_release_date(o.since));
    return f;
}
// A model beside the planned one (--draft, --also): MODEL or MODEL:QUANT of the database; the
// recommended quantization when none is given.
ResidentModel resident_model(const Database& db, const std::string& spec) {
    const auto colon = spec.rfind(':');
    const std::string name = colon == std::string::npos ? spec : spec.substr(0, colon);
    ResidentModel r;
    r.model = need(db.find_model(name));
    r.quant = colon == std::string::npos ? db.recommended_quant()
                                         : need(db.find_quant(spec.substr(colon + 1)));
    return r;
}

// The rule's settings from the flags, with the quality floor every choice among
// quantizations obeys (--min-quant, a quantization of the database).
PlanSettings plan_settings(const Database& db, const Options& o, const EstimateOptions& e) {
    PlanSettings s = need(plan_settings_from_flags(o.engine, e));
    if (!o.min_quant.empty()) {
        s.min_quality_rank = need(db.find_quant(o.min_quant))->quality_rank;
    } else if (const auto floor = db.find_quant(kDefaultMinQuant)) {
        s.min_quality_rank = (*floor)->quality_rank;  // a --data database may have no Q2_K
    }
    s.min_decode_tokens_per_s =
        o.min_speed.empty() ? kDefaultMinSpeed : need(parse_tokens_per_second(o.min_speed));
    if (!o.hw.split_mode.empty()) s.split_mode = need(parse_split_mode(o.hw.split_mode));
    if (!o.engine.draft.empty()) s.server.draft = resident_model(db, o.engine.draft);
    for (const auto& a : o.engine.also) s.server.also.push_back(resident_model(db, a));
    return s;
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

const Database& load_database(const Options& o) {
    if (o.db == nullptr) {
        if (o.data_dir.empty()) {
            o.db = need(embedded_database());
        } else {
            o.data_db = need(parse_database(need(read_database_dir(o.data_dir))));
            o.db = &*o.data_db;
        }
        if (!o.described_gpus.empty()) {
            o.data_db = need(with_described_gpus(*o.db, o.described_gpus));
            o.db = &*o.data_db;
        }
    }
    return *o.db;
}

ReportOptions report_options(const Database& db, const Options& o) {
    ReportOptions r;
    if (!o.quant.empty()) r.quant = need(db.find_quant(o.quant));
    if (!o.ctx.empty()) r.estimate.context = need(parse_context(o.ctx));
    r.context_explicit = !o.ctx.empty();
    r.estimate.kv_type = need(parse_kv_type(o.kv_type));
    if (!o.hw.ram.empty()) r.fit.ram_gb = ram_gb(o.hw.ram);
    if (!o.vram.empty()) r.vram_budget = need(parse_gb(o.vram));
    r.hardware = need(hardware_from_flags(db, o.hw));
    if (o.hosts.size() == 1) {
        // One --host is one machine: the plan of --gpu with that host's RAM.
        if (r.hardware || !o.vram.empty()) {
            throw Failure{Error{ErrorKind::bad_input, "--host names each machine's GPUs",
                                "give the GPUs in --host and leave out --gpu and --vram"}};
        }
        r.hardware = cluster_from_flags(o).hosts.front().hardware;
        if (!o.hw.ram_bandwidth.empty()) {
            r.hardware->ram_bandwidth_gbps = need(parse_bandwidth(o.hw.ram_bandwidth));
        }
    }
    r.placement = need(placement_from_flags(o.hw));
    if (!engine_has_own_view(o.engine)) r.plan = plan_settings(db, o, r.estimate);
    if (!o.users.empty() && !engine_has_own_view(o.engine)) {
        // N users of C tokens: llama-server --parallel N -c N x C (serving.hpp).
        if (o.engine.parallel != EngineFlags{}.parallel) {
            throw Failure{Error{ErrorKind::bad_input,
                                "--users and --parallel both set the sequences",
                                "give --users N (each with --ctx tokens) or --parallel N"}};
        }
        const std::uint64_t users = need(parse_count(o.users, "--users", kLlamaMaxSequences));
        r.plan = need(settings_for_users(r.plan, users, r.estimate.context));
        r.estimate.context = r.plan.estimate.context;
        r.context_explicit = true;
    }
    if (!r.hardware && (!o.hw.ngl.empty() || !o.hw.n_cpu_moe.empty() || o.hw.cpu_moe ||
                        !o.hw.tensor_split.empty())) {
        throw Failure{Error{ErrorKind::bad_input,
                            "--ngl, --n-cpu-moe, --cpu-moe and --tensor-split place layers on GPUs",
                            "name the GPUs with --gpu, e.g. --gpu \"RTX 4090\" or --gpu auto"}};
    }
    if (!o.hw.tensor_split.empty() && r.hardware && r.hardware->gpus.size() < 2) {
        throw Failure{Error{ErrorKind::bad_input, "--tensor-split splits layers over several GPUs",
                            "give two or more GPUs, e.g. --gpu 2x3090 --tensor-split 3,1"}};
    }
    return r;
}
// The chart for text output: on a terminal, or asked for with --chart (style.hpp).
ChartChoice chart_choice(const Options& o) {
    const bool page_text = o.output == Format::table || o.output == Format::markdown;
    return choose_chart(o.chart && page_text, o.ascii, o.terminal && o.output == Format::table,
                        o.columns);
}
CommandResult model_command(const Options& o) {
    const Database& db = load_database(o);
    const Model* model = need(db.find_model(o.model));
    if (cluster_question(o)) return cluster_result(o);
    const ReportOptions ro = report_options(db, o);
    auto report = std::make_shared<const ModelReport>(need(build_model_report(db, *model, ro)));
    return model_page_result(report, o.chart, made_by(db));
}

bool names_model_file(const Database& db, const std::string& arg) {
    return !arg.empty() && classify_model_argument(db, arg) != ModelArgumentKind::database;
}

// Whether the argument of the model command names a remote model (hf:, ollama:, a URL).
bool remote_model(const Options& o) {
    return !o.model.empty() &&
           classify_model_argument(load_database(o), o.model) == ModelArgumentKind::remote;
}

// Whether the argument of the model command names a file (the database is small to load).
bool file_model(const Options& o) {
    return !o.model.empty() && names_model_file(load_database(o), o.model) && !remote_model(o);
}

// Output flags that ask for two things at once are refused, not silently resolved; commands

CommandResult gpus_command(const Options& o) {
    if (engine_has_own_view(o.engine)) {
        throw Failure{Error{ErrorKind::bad_input,
                            "--engine " + o.engine.engine + " applies to the model command only",
                            "use 'canitrun MODEL --engine " + o.engine.engine + " --gpu NAME'"}};
    }
    const Database& db = load_database(o);
    if (names_model_file(db, o.model)) {
        std::shared_ptr<const FileReport> file =
            need(file_gpus_report(db, o.model, o.mmproj, report_options(db, o), o.remote));
        return gpus_result(std::shared_ptr<const ModelReport>(file, &file->report));
    }
    const Model* model = need(db.find_model(o.model));
    return gpus_result(std::make_shared<const ModelReport>(
        need(build_model_report(db, *model, report_options(db, o)))));
}

CommandResult system_command(const Options& o) {
    const Database& db = load_database(o);
    const DetectedSystem system = detect_this_machine();
    // Every device the tools report, one row each (the plans take them as the runtime sees
    // them: hardware_from).
    Hardware hardware;
    for (const auto& g : system.gpus) hardware.gpus.push_back(device_from(g, db));
    CommandResult r;
    r.what = "system";
    r.views = {[system, hardware] { return system_json(system, hardware); },
               [system, hardware](std::ostream& csv) { write_system_csv(csv, system, hardware); },
               [system] {
                   std::vector<std::string> names;
                   for (const auto& g : system.gpus) names.push_back(g.name);
                   return names;
               }};
    r.text = [system, hardware](std::ostream& out) { write_system(out, system, hardware); };
    return r;
}

CommandResult fit_command(const Options& o) {
    const Database& db = load_database(o);
    if (o.hw.gpu.empty()) {
        throw Failure{Error{ErrorKind::bad_input, "fit needs the hardware to fit",
                            "give --gpu, e.g. canitrun fit --gpu \"RTX 4090\" or --gpu auto"}};
    }
    const Hardware hardware = *need(hardware_from_flags(db, o.hw));
    EstimateOptions options;
    if (!o.ctx.empty()) options.context = need(parse_context(o.ctx));
    options.kv_type = need(parse_kv_type(o.kv_type));
    if (engine_has_own_view(o.engine)) {
        throw Failure{Error{ErrorKind::bad_input, "fit plans by llama.cpp's rule or the quick rule",
                            "leave out --engine " + o.engine.engine + ", or use --engine quick"}};
    }
    const PlanSettings settings = plan_settings(db, o, options);
    const ContextAsked asked = o.ctx.empty() ? ContextAsked::default_capped : ContextAsked::asked;
    auto fits = std::make_shared<std::vector<ModelFit>>(
        need(models_that_fit(db, hardware, settings, asked)));
    sort_model_fits(*fits, need(parse_fit_sort(o.sort)));
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
    r.code = fits->empty() ? kExitDoesNotFit : kExitOk;
    return r;
}

CommandResult compare_command(const Options& o) {
    if (o.operands.size() < 2) {
        throw Failure{Error{ErrorKind::bad_input, "compare needs two or more models",
                            "e.g. canitrun compare qwen3.5-35b-a3b gpt-oss-20b"}};
    }
    if (engine_has_own_view(o.engine) || !o.engine.backend.empty()) {
        throw Failure{Error{ErrorKind::bad_input,
                            "compare plans by llama.cpp's rule or the quick rule",
                            "leave out --engine vllm / exo and --backend, or use --engine quick"}};
    }
    const Database& db = load_database(o);
    auto c = std::make_shared<const Comparison>(
        need(build_comparison(db, o.operands, report_options(db, o), o.remote)));
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

CommandResult local_command(const Options& o) {
    const Database& db = load_database(o);
    Options with_hardware = o;
    if (with_hardware.hw.gpu.empty()) with_hardware.hw.gpu = "auto";  // this machine
    const StoreRoots roots = store_roots(std::getenv("HOME"), std::getenv("OLLAMA_MODELS"),
                                         std::getenv("HF_HOME"), std::getenv("LLAMA_CACHE"));
    auto l = std::make_shared<const LocalListing>(
        build_local_listing(db, roots, report_options(db, with_hardware)));
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

CommandResult verify_command(const Options& o) {
    const Database& db = load_database(o);
    return need(run_verify(db, o.log, o.hw.gpu, o.verify_model, o.quant));
}

CommandResult model_source_command(const Options& o) {
    const Database& db = load_database(o);
    const EngineRequest engine{&db, nullptr, o.quant, o.ctx, o.hw.gpu, o.vram, {}, {}};
    if (remote_model(o)) {
        if (!o.mmproj.empty()) {
            throw Failure{Error{ErrorKind::bad_input,
                                "--mmproj adds a projector file on this machine",
                                "leave it out for a remote model (its projector is named)"}};
        }
        if (engine_is_explicit_profile(o.engine)) {
            std::string label;
            const auto parts = need(remote_gguf_parts(o.model, o.remote, &label));
            return need(engine_on_gguf(db, label, parts, o.engine, engine));
        }
        return need(run_remote(db, o.model, report_options(db, o), o.chart, o.remote));
    }
    if (engine_is_explicit_profile(o.engine)) {
        return need(run_model_file_engine(db, o.model, o.engine, engine));
    }
    return need(run_model_file(db, o.model, o.mmproj, report_options(db, o), o.chart));
}

CommandResult lists_command(const Options& o, ListKind kind) {
    const Database& db = load_database(o);
    switch (kind) {
        case ListKind::models:
            return models_result(db, list_filter(o));
        case ListKind::gpus:
            return gpu_list_result(db, list_filter(o));
        case ListKind::quants:
            break;
    }
    return quants_result(db);
}

}  // namespace canitrun::cli
