// One function per command, on the options app.cpp parsed (app_options.hpp).

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <sstream>

#include "app.hpp"
#include "app_options.hpp"
#include "canitrun/database_files.hpp"
#include "canitrun/embedded_snapshot.hpp"
#include "canitrun/model_argument.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/report.hpp"
#include "cluster_command.hpp"
#include "compare_command.hpp"
#include "csv_output.hpp"
#include "data_views.hpp"
#include "engine_command.hpp"
#include "file_commands.hpp"
#include "hardware_json.hpp"
#include "hardware_options.hpp"
#include "hardware_text.hpp"
#include "html_report.hpp"
#include "json_output.hpp"
#include "list_commands.hpp"
#include "local_command.hpp"
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

std::string quiet_answer(const ModelReport& r) {
    if (r.hardware) return plan_kind_name(r.hardware->selected.plan.kind);
    if (r.vram) return r.vram->best ? r.vram->best->quant->id : "none";
    return r.smallest_gpu != nullptr ? display_name(*r.smallest_gpu) : "none";
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
}  // namespace

const Database& load_database(const Options& o) {
    if (!o.db) {
        o.db = o.data_dir.empty() ? need(load_embedded_database())
                                  : need(parse_database(need(read_database_dir(o.data_dir))));
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
    if (!engine_has_own_view(o.engine))
        r.plan = need(plan_settings_from_flags(o.engine, r.estimate));
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
    if (!r.hardware && (!o.hw.ngl.empty() || !o.hw.n_cpu_moe.empty())) {
        throw Failure{Error{ErrorKind::bad_input, "--ngl and --n-cpu-moe place layers on GPUs",
                            "name the GPUs with --gpu, e.g. --gpu \"RTX 4090\" or --gpu auto"}};
    }
    return r;
}
// The chart for text output: on a terminal, or asked for with --chart (style.hpp).
ChartChoice chart_choice(const Options& o) {
    const bool page_text = o.output == Format::table || o.output == Format::markdown;
    return choose_chart(o.chart && page_text, o.ascii, o.terminal && o.output == Format::table,
                        o.columns);
}
int run_model(std::ostream& out, const Options& o) {
    const Database& db = load_database(o);
    const Model* model = need(db.find_model(o.model));
    if (cluster_question(o)) return run_cluster(out, o);
    const ReportOptions ro = report_options(db, o);
    const ModelReport report = need(build_model_report(db, *model, ro));
    Output output(o);
    const DataViews views{[&] { return model_report_json(report); },
                          [&](std::ostream& csv) {
                              if (o.chart) {
                                  write_kv_curve_csv(csv, report);
                              } else {
                                  write_model_csv(csv, report);
                              }
                          },
                          [&] { return std::vector<std::string>{quiet_answer(report)}; }};
    if (o.output == Format::html) {
        write_html_report(output.text, report, made_by(db));
    } else if (!write_data_view(output.text, views)) {
        write_text_report(output.text, report);
    }
    output.print(out);
    if (report.hardware && report.hardware->selected.plan.kind != PlanKind::native) {
        return kExitDoesNotFit;
    }
    return kExitOk;
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

int run_gpus(std::ostream& out, const Options& o) {
    if (engine_has_own_view(o.engine)) {
        throw Failure{Error{ErrorKind::bad_input,
                            "--engine " + o.engine.engine + " applies to the model command only",
                            "use 'canitrun MODEL --engine " + o.engine.engine + " --gpu NAME'"}};
    }
    const Database& db = load_database(o);
    Output output(o);
    if (names_model_file(db, o.model)) {
        const auto file =
            need(file_gpus_report(db, o.model, o.mmproj, report_options(db, o), o.remote));
        write_gpus_for_model(output.text, file->report);
    } else {
        const Model* model = need(db.find_model(o.model));
        const ModelReport report = need(build_model_report(db, *model, report_options(db, o)));
        write_gpus_for_model(output.text, report);
    }
    output.print(out);
    return kExitOk;
}

int run_system(std::ostream& out, const Options& o) {
    const Database& db = load_database(o);
    const DetectedSystem system = detect_this_machine();
    const Hardware hardware = hardware_from(system, db);
    Output output(o);
    const DataViews views{[&] { return system_json(system, hardware); },
                          [&](std::ostream& csv) { write_system_csv(csv, system, hardware); },
                          [&] {
                              std::vector<std::string> names;
                              for (const auto& g : system.gpus) names.push_back(g.name);
                              return names;
                          }};
    if (!write_data_view(output.text, views)) write_system(output.text, system, hardware);
    output.print(out);
    return kExitOk;
}

int run_fit(std::ostream& out, const Options& o) {
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
    const PlanSettings settings = need(plan_settings_from_flags(o.engine, options));
    std::vector<ModelFit> fits = need(models_that_fit(db, hardware, settings));
    sort_model_fits(fits, need(parse_fit_sort(o.sort)));
    Output output(o);
    const DataViews views{[&] { return model_fits_json(hardware, options, fits); },
                          [&](std::ostream& csv) { write_model_fits_csv(csv, fits); },
                          [&] {
                              std::vector<std::string> ids;
                              for (const auto& f : fits) ids.push_back(f.model->id);
                              return ids;
                          }};
    if (!write_data_view(output.text, views))
        write_model_fits(output.text, hardware, options, fits);
    output.print(out);
    return fits.empty() ? kExitDoesNotFit : kExitOk;
}

int run_compare(std::ostream& out, const Options& o) {
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
    const Comparison c = need(build_comparison(db, o.operands, report_options(db, o), o.remote));
    Output output(o);
    const DataViews views{[&] { return comparison_json(c); },
                          [&](std::ostream& csv) { write_comparison_csv(csv, c); },
                          [&] {
                              std::vector<std::string> ids;
                              for (const auto& e : c.entries) ids.push_back(e->report.model->id);
                              return ids;
                          }};
    if (!write_data_view(output.text, views)) write_comparison(output.text, c);
    output.print(out);
    return kExitOk;
}

int run_local(std::ostream& out, const Options& o) {
    const Database& db = load_database(o);
    Options with_hardware = o;
    if (with_hardware.hw.gpu.empty()) with_hardware.hw.gpu = "auto";  // this machine
    const StoreRoots roots = store_roots(std::getenv("HOME"), std::getenv("OLLAMA_MODELS"),
                                         std::getenv("HF_HOME"), std::getenv("LLAMA_CACHE"));
    const LocalListing l = build_local_listing(db, roots, report_options(db, with_hardware));
    Output output(o);
    const DataViews views{[&] { return local_json(l); },
                          [&](std::ostream& csv) { write_local_csv(csv, l); },
                          [&] {
                              std::vector<std::string> names;
                              for (const auto& e : l.models) names.push_back(e.where.path);
                              return names;
                          }};
    if (!write_data_view(output.text, views)) write_local(output.text, l);
    output.print(out);
    return kExitOk;
}

int run_model_source(std::ostream& out, const Options& o, bool verify) {
    if (!verify && remote_model(o)) {
        if (!o.mmproj.empty()) {
            throw Failure{Error{ErrorKind::bad_input,
                                "--mmproj adds a projector file on this machine",
                                "leave it out for a remote model (its projector is named)"}};
        }
        const Database& db = load_database(o);
        if (engine_is_explicit_profile(o.engine)) {
            std::string label;
            const auto parts = need(remote_gguf_parts(o.model, o.remote, &label));
            const CommandOutput r = need(engine_on_gguf(db, label, parts, o.engine,
                                                        {&db,
                                                         nullptr,
                                                         o.quant,
                                                         o.ctx,
                                                         o.hw.gpu,
                                                         o.vram,
                                                         o.output == Format::json,
                                                         {},
                                                         {}}));
            out << r.text;
            return r.code;
        }
        const CommandOutput r =
            need(run_remote(db, o.model, report_options(db, o), o.output == Format::json,
                            chart_choice(o), o.remote));
        out << r.text;
        return r.code;
    }
    if (!verify && file_model(o) && engine_is_explicit_profile(o.engine)) {
        const Database& db = load_database(o);
        const CommandOutput r = need(run_model_file_engine(
            db, o.model, o.engine,
            {&db, nullptr, o.quant, o.ctx, o.hw.gpu, o.vram, o.output == Format::json, {}, {}}));
        out << r.text;
        return r.code;
    }
    // verify, or a model file (the caller asks only for these three sources)
    const Database& db = load_database(o);
    const CommandOutput r = verify
                                ? need(run_verify(db, o.log, o.output == Format::json, o.hw.gpu))
                                : need(run_model_file(db, o.model, o.mmproj, report_options(db, o),
                                                      o.output == Format::json, chart_choice(o)));
    out << r.text;
    return r.code;
}

int run_lists(std::ostream& out, const Options& o, bool models, bool gpu_list, bool quants) {
    const Database& db = load_database(o);
    Output output(o);
    if (models) write_models(output.text, db, list_filter(o));
    if (gpu_list) write_gpu_list(output.text, db, list_filter(o));
    if (quants) write_quants(output.text, db);
    output.print(out);
    return kExitOk;
}

}  // namespace canitrun::cli
