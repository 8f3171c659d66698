#include "app.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "canitrun/database_files.hpp"
#include "canitrun/embedded_snapshot.hpp"
#include "canitrun/model_argument.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/report.hpp"
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

const char* const kDescription =
    "canitrun: can my GPU run this model, at which quantization and context, and what does it "
    "need?";

const char* const kExamples = R"(
Examples:
  canitrun qwen3.5-35b-a3b                          the model page: VRAM per quantization, fit matrix, GPUs
  canitrun qwen3.5-35b-a3b --quant Q4_K_M --ctx 256k
  canitrun qwen3.5-35b-a3b --vram 24                 what fits a 24 GB budget
  canitrun qwen3.5-35b-a3b --gpu "RTX 4090"          does it fit this card? (exit 1 if not)
  canitrun qwen3.5-35b-a3b --json | jq .smallest_gpu.name
  canitrun qwen3.5-35b-a3b --gpu 2x3090 --ctx 32k    split over two cards, offload, speed
  canitrun qwen3.5-35b-a3b --gpu auto                the GPUs in this machine
  canitrun fit --gpu "RTX 4090" --sort speed         every model that runs on it
  canitrun system                                    what canitrun detects here
  canitrun gpus qwen3.5-35b-a3b                      every GPU that runs it
  canitrun gpus model-Q4_K_M.gguf --ctx 32k          every GPU that runs this file
  canitrun models --family qwen
  canitrun gpu-list --vendor amd --min-vram 24

Exit codes: 0 answered (with --gpu: it fits the GPUs), 1 it does not fit the --gpu asked about
(the output says whether offload runs it; for fit: no model fits),
2 bad input (unknown name, bad value, unreadable database), 3 internal error (a bug).
Sizes: GB = 10^9 bytes, GiB = 2^30 bytes.)";

struct Options {
    std::string model;
    std::string quant;
    std::string ctx;
    std::string kv_type = "f16";
    std::string vram;
    HardwareFlags hw;
    std::string sort = "params";
    std::string data_dir;
    bool json = false;
    bool quiet = false;
    std::string format;
    Format output = Format::table;  // from --format / --json / --quiet
    bool color = false;
    bool chart = false;       // --chart: draw the KV chart even into a pipe
    bool ascii = false;       // --ascii: no Unicode in the chart and diagrams
    bool terminal = false;    // stdout is a terminal
    std::size_t columns = 0;  // its width, 0 when unknown
    bool names = false;       // models / gpu-list / quants --names
    // list filters
    std::string family;
    std::string vendor;
    std::string min_vram;
    std::string since;
    EngineFlags engine;
    // model files
    std::string mmproj;
    std::string log;
    std::vector<std::string> operands;  // compare
    RemoteFlags remote;                 // --offline, --timeout
    // The database, loaded on first use: every command and several checks ask for it, and a
    // start should read it (or parse --data) once.
    mutable std::optional<Database> db;
};

struct Failure {
    Error error;
};

template <typename T>
T need(Result<T> r) {
    if (!r) throw Failure{r.error()};
    return std::move(*r);
}

const Database& load_database(const Options& o) {
    if (!o.db) {
        o.db = o.data_dir.empty() ? need(load_embedded_database())
                                  : need(parse_database(need(read_database_dir(o.data_dir))));
    }
    return *o.db;
}

// --ram is whole GB (FitOptions::ram_gb); a fraction is dropped, but never down to nothing.
std::uint64_t ram_gb(const std::string& text) {
    const std::uint64_t gb = need(parse_gb(text)) / kGB;
    if (gb == 0) {
        throw Failure{Error{ErrorKind::bad_input, "--ram '" + text + "' is less than 1 GB",
                            "give the system RAM in whole GB, for example --ram 64"}};
    }
    return gb;
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
    r.placement = need(placement_from_flags(o.hw));
    if (!engine_is_vllm(o.engine)) r.plan = need(plan_settings_from_flags(o.engine, r.estimate));
    if (!r.hardware && (!o.hw.ngl.empty() || !o.hw.n_cpu_moe.empty())) {
        throw Failure{Error{ErrorKind::bad_input, "--ngl and --n-cpu-moe place layers on GPUs",
                            "name the GPUs with --gpu, e.g. --gpu \"RTX 4090\" or --gpu auto"}};
    }
    return r;
}

// A value given on the command line must not be empty: `--quant ""` is a mistake, not "default".
CLI::Validator non_empty() {
    return {[](const std::string& value) {
                return value.empty() ? std::string("needs a value, not an empty string")
                                     : std::string();
            },
            "", "non-empty"};
}

void add_estimate_flags(CLI::App& app, Options& o) {
    app.add_option("--quant,-q", o.quant,
                   "Quantization (default: the recommended Q4_K_M); see 'canitrun quants'")
        ->check(non_empty());
    app.add_option("--ctx,-c", o.ctx, "Context length in tokens: 8192, 32k, 256K, 1M (default 8k)")
        ->check(non_empty());
    app.add_option("--kv-type", o.kv_type, "KV cache element type: " + kv_type_names())
        ->check(non_empty());
    app.add_option("--ram", o.hw.ram,
                   "System RAM in GB available for CPU offload (default: detected with --gpu "
                   "auto, else 32)")
        ->check(non_empty());
}

// --engine and the llama.cpp / vLLM settings (engine_command.hpp). CLI11 stays in this file.
void add_engine_flags(CLI::App& app, EngineFlags& f) {
    app.add_option("--engine", f.engine,
                   "Memory rule: llama.cpp (what llama.cpp allocates, the default), quick (the "
                   "reference page's 12 % rule), vllm");
    app.add_option("--ubatch", f.ubatch, "llama.cpp: micro-batch size n_ubatch (default 512)");
    app.add_option("--parallel", f.parallel, "llama.cpp: sequences served at once (default 1)");
    app.add_option("--flash-attn", f.flash_attn, "llama.cpp: flash attention on, off, auto");
    app.add_option("--cache-type-k", f.cache_type_k, "llama.cpp: K cache type (default f16)");
    app.add_option("--cache-type-v", f.cache_type_v, "llama.cpp: V cache type (default f16)");
    app.add_option("--backend", f.backend, "llama.cpp: cpu, cuda, rocm, metal, vulkan");
    app.add_option("--gpu-memory-utilization", f.gpu_memory_utilization,
                   "vllm: share of GPU memory vLLM may use (default 0.9)");
}

void add_hardware_flags(CLI::App& app, Options& o) {
    app.add_option("--gpu", o.hw.gpu,
                   R"(Your GPUs: "RTX 4090", "2x3090", "4090,3090", or auto to detect them)")
        ->check(non_empty());
    app.add_option("--ram-bandwidth", o.hw.ram_bandwidth,
                   "System RAM bandwidth in GB/s for offloaded layers (default 76.8, "
                   "dual-channel DDR5-4800)");
}

// The chart for text output: on a terminal, or asked for with --chart (style.hpp).
ChartChoice chart_choice(const Options& o) {
    const bool page_text = o.output == Format::table || o.output == Format::markdown;
    return choose_chart(o.chart && page_text, o.ascii, o.terminal && o.output == Format::table,
                        o.columns);
}

// A stream styled for the chosen output; what is written to it is printed whole at the end,
// so an error leaves stdout empty.
struct Output {
    explicit Output(const Options& o) {
        set_style(text, o.output, o.color);
        set_chart(text, chart_choice(o));
    }
    void print(std::ostream& out) const {
        out << (format_of(text) == Format::markdown ? markdownify(text.str()) : text.str());
    }
    mutable std::ostringstream text;
};

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

// --version: the program's version and the embedded database's.
std::string version_text() {
    std::string text = std::string("canitrun ") + CANITRUN_VERSION + "\n";
    const auto db = load_embedded_database();
    if (!db) return text + "database: unreadable (" + db.error().message + ")\n";
    const DatabaseInfo& info = db->info;
    text += "database " + (info.version.empty() ? std::string("(no version)") : info.version);
    if (!info.date.empty()) text += " (" + info.date + ")";
    text += ": " + std::to_string(db->models.size()) + " models, " +
            std::to_string(db->gpus.size()) + " GPUs, " + std::to_string(db->quants.size()) +
            " quantizations\n";
    return text;
}

// The length of the well-formed UTF-8 sequence at text[i], or 0 (no overlongs, surrogates or
// code points past U+10FFFF).
std::size_t utf8_length(const std::string& text, std::size_t i) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = at(i);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF)
        n = 2;
    else if (lead >= 0xE0 && lead <= 0xEF) {
        n = 3;
        if (lead == 0xE0) lo = 0xA0;
        if (lead == 0xED) hi = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        n = 4;
        if (lead == 0xF0) lo = 0x90;
        if (lead == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (i + n > text.size() || at(i + 1) < lo || at(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k) {
        if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
    }
    return n;
}

// Error text from a database file or argv may hold control characters or bytes that are not
// UTF-8; stderr gets one line of valid text, each such byte as '?'.
std::string one_line(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x80) {
            out += (u < 0x20 || u == 0x7f) ? '?' : text[i];
            ++i;
        } else if (const std::size_t n = utf8_length(text, i); n > 0) {
            out.append(text, i, n);
            i += n;
        } else {
            out += '?';
            ++i;
        }
    }
    return out;
}

int run_model(std::ostream& out, const Options& o) {
    const Database& db = load_database(o);
    const Model* model = need(db.find_model(o.model));
    if (engine_is_vllm(o.engine)) {
        const EngineAnswer a = need(run_engine(
            {&db, model, o.quant, o.ctx, o.hw.gpu, o.vram, o.output == Format::json, {}, {}},
            o.engine));
        out << a.text;
        return a.exit_code;
    }
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
// that print only text or JSON refuse CSV, Markdown and --quiet rather than ignore them.
void check_output_flags(const Options& o, bool verify, bool model_command) {
    const auto refuse = [](const std::string& message, const std::string& hint) {
        throw Failure{Error{ErrorKind::bad_input, message, hint}};
    };
    const std::string format = o.format.empty() ? "table" : o.format;
    if (o.json && o.quiet) refuse("--json and --quiet ask for two outputs", "give one of them");
    if (o.json && format != "table" && format != "json") {
        refuse("--json and --format " + format + " ask for two outputs", "give one of them");
    }
    if (o.quiet && format != "table") {
        refuse("--quiet and --format " + format + " ask for two outputs", "give one of them");
    }
    if (o.names && (o.json || format != "table")) {
        refuse("--names prints ids only", "leave out --json and --format, or --names");
    }
    if (o.output == Format::html &&
        (!model_command || engine_is_vllm(o.engine) || file_model(o) || o.model.empty())) {
        refuse("--format html is the model page of a database model",
               "e.g. canitrun qwen3.5-35b-a3b --format html > qwen.html");
    }
    if (o.chart && !model_command) {
        refuse("--chart draws the model page's KV chart", "leave it out of this command");
    }
    const bool text_or_json_only =
        verify || (model_command && (engine_is_vllm(o.engine) || file_model(o)));
    if (text_or_json_only &&
        (o.output == Format::csv || o.output == Format::markdown || o.output == Format::quiet)) {
        const std::string flag = o.quiet ? "--quiet" : "--format " + format;
        const std::string what = verify                     ? "verify"
                                 : engine_is_vllm(o.engine) ? "--engine " + o.engine.engine
                                                            : "a model file";
        refuse(flag + " is not available for " + what, "use the default table or --json");
    }
    if (!o.mmproj.empty()) {
        const bool gguf =
            !verify && !o.model.empty() &&
            classify_model_argument(load_database(o), o.model) == ModelArgumentKind::gguf_file;
        if (!gguf) {
            refuse("--mmproj adds a vision projector to a .gguf model file",
                   "give a .gguf file as the model, or leave out --mmproj");
        }
        if (model_command && engine_is_explicit_profile(o.engine)) {
            refuse("--mmproj is not counted by --engine " + o.engine.engine,
                   "leave out --mmproj, or --engine");
        }
    }
}

int run_gpus(std::ostream& out, const Options& o) {
    if (engine_is_vllm(o.engine)) {
        throw Failure{Error{ErrorKind::bad_input, "--engine vllm applies to the model command only",
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
    if (engine_is_vllm(o.engine)) {
        throw Failure{Error{ErrorKind::bad_input, "fit plans by llama.cpp's rule or the quick rule",
                            "leave out --engine vllm, or use --engine quick"}};
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
    if (engine_is_vllm(o.engine) || !o.engine.backend.empty()) {
        throw Failure{Error{ErrorKind::bad_input,
                            "compare plans by llama.cpp's rule or the quick rule",
                            "leave out --engine vllm and --backend, or use --engine quick"}};
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

ListFilter list_filter(const Options& o) {
    ListFilter f{o.family, o.vendor, std::nullopt, {}};
    if (!o.min_vram.empty()) f.min_vram_bytes = need(parse_gb(o.min_vram));
    if (!o.since.empty()) f.since = need(parse_release_date(o.since));
    return f;
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
        bool out_is_terminal, std::size_t terminal_columns) {
    Options o;
    o.terminal = out_is_terminal;
    o.columns = terminal_columns;
    CLI::App app{kDescription, "canitrun"};
    app.footer(kExamples);
    app.set_version_flag("--version", std::string("canitrun ") + CANITRUN_VERSION);
    app.add_flag("--json", o.json, "Print one JSON document on stdout and nothing else");
    app.add_option(
        "--format", o.format,
        "Output format: table (default), json, csv (raw numbers), markdown, html (the model page)");
    app.add_flag("--quiet", o.quiet,
                 "Print just the answer: the smallest GPU, the plan with --gpu, the best quant "
                 "with --vram; ids for lists");
    app.add_option("--data", o.data_dir,
                   "Load the database from this folder instead of the built-in one")
        ->check(non_empty());
    app.add_option(
           "model", o.model,
           "Model id or alias (qwen3.5-35b-a3b), a .gguf file, or a config.json / HF folder")
        ->check(non_empty());
    app.add_option("--mmproj", o.mmproj, "With a .gguf file: a vision projector GGUF to add");
    app.add_flag("--chart", o.chart,
                 "Draw the KV cache chart even when stdout is not a terminal; with --format csv, "
                 "print the chart's points");
    app.add_flag("--ascii", o.ascii, "Plain ASCII in the chart and layer diagram (no Unicode)");
    app.add_flag("--offline", o.remote.offline,
                 "Remote models (hf:, ollama:, URLs) from the cache only, no network");
    app.add_option("--timeout", o.remote.timeout_s,
                   "Remote models: seconds to wait for a server that sends nothing (default 30)")
        ->check(CLI::Range(1, 3600));
    add_estimate_flags(app, o);
    app.add_option("--vram", o.vram,
                   "A VRAM budget in GB: does the recommended quantization fit, and what does?")
        ->check(non_empty());
    add_hardware_flags(app, o);
    app.add_option("--ngl", o.hw.ngl,
                   "Layers on the GPUs as llama.cpp's -ngl counts them (default: as many as fit)");
    app.add_option("--n-cpu-moe", o.hw.n_cpu_moe,
                   "Keep the routed experts of the first N layers in RAM (llama.cpp --n-cpu-moe)");
    add_engine_flags(app, o.engine);

    CLI::App* gpus =
        app.add_subcommand("gpus", "List the GPUs that run a model, natively or with CPU offload");
    gpus->add_option("model", o.model,
                     "Model id or alias, a .gguf file (at its own weights), or a config.json / HF "
                     "folder")
        ->required()
        ->check(non_empty());
    add_estimate_flags(*gpus, o);
    gpus->fallthrough();

    CLI::App* models = app.add_subcommand("models", "List the models in the database");
    models->add_option("--family", o.family, "Only this family (substring, e.g. qwen)");
    models->add_option("--vendor", o.vendor, "Only this vendor (substring, e.g. alibaba)");
    models->add_option("--since", o.since, "Only models released on or after: 2026-06, 2026-06-15");
    models->add_flag("--names", o.names, "Print only the ids, one per line");
    models->fallthrough();

    CLI::App* gpu_list = app.add_subcommand("gpu-list", "List the GPUs in the database");
    gpu_list->add_option("--vendor", o.vendor, "Only this vendor: nvidia, amd, intel, apple");
    gpu_list->add_option("--min-vram", o.min_vram, "Only GPUs with at least this many GB");
    gpu_list->add_flag("--names", o.names, "Print only the ids, one per line");
    gpu_list->fallthrough();

    CLI::App* quants = app.add_subcommand("quants", "List the quantization formats");
    quants->add_flag("--names", o.names, "Print only the ids, one per line");
    quants->fallthrough();

    CLI::App* system = app.add_subcommand("system", "Show the GPUs and RAM found on this machine");
    system->fallthrough();

    CLI::App* fit = app.add_subcommand(
        "fit", "Every model that runs on a machine, with its best quantization, context and speed");
    add_hardware_flags(*fit, o);
    fit->add_option("--ctx,-c", o.ctx, "Context length to fit (default 8k)");
    fit->add_option("--kv-type", o.kv_type, "KV cache element type: " + kv_type_names());
    fit->add_option("--ram", o.hw.ram,
                    "System RAM in GB (default: detected with --gpu auto, else 32)");
    fit->add_option("--sort", o.sort,
                    "Order: params (largest first, default), speed, context, name");
    fit->fallthrough();

    CLI::App* compare = app.add_subcommand(
        "compare", "Models side by side: size, context, layers, VRAM, KV growth, smallest GPU");
    compare
        ->add_option("models", o.operands,
                     "Two or more model ids, .gguf files or config.json / HF folders")
        ->required()
        ->check(non_empty());
    add_estimate_flags(*compare, o);
    add_hardware_flags(*compare, o);
    add_engine_flags(*compare, o.engine);
    compare->fallthrough();

    CLI::App* local = app.add_subcommand(
        "local", "The models already on disk (Ollama, Hugging Face cache, LM Studio, llama.cpp)");
    add_hardware_flags(*local, o);
    local->add_option("--ctx,-c", o.ctx, "Context length to plan at (default 8k)");
    local->add_option("--ram", o.hw.ram,
                      "System RAM in GB (default: detected on this machine, else 32)");
    local->fallthrough();

    CLI::App* verify = app.add_subcommand(
        "verify", "Compare a llama.cpp log's buffer sizes with canitrun's estimate");
    verify->add_option("log", o.log, "A llama.cpp / llama-server log file")->required();
    verify->fallthrough();

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return kExitOk;
    } catch (const CLI::CallForAllHelp&) {
        out << app.help("", CLI::AppFormatMode::All);
        return kExitOk;
    } catch (const CLI::CallForVersion&) {
        out << version_text();
        return kExitOk;
    } catch (const CLI::ParseError& e) {
        err << "canitrun: error: " << one_line(e.what()) << "; run 'canitrun --help' for usage\n";
        return kExitBadInput;
    }

    try {
        o.output = o.format.empty() ? Format::table : need(parse_format(o.format));
        if (o.json) o.output = Format::json;
        if (o.quiet || o.names) o.output = Format::quiet;
        o.color =
            want_color(out_is_terminal, std::getenv("NO_COLOR"), std::getenv("CLICOLOR_FORCE"));
        const bool lists = models->parsed() || gpu_list->parsed() || quants->parsed();
        const bool model_command = !gpus->parsed() && !system->parsed() && !fit->parsed() &&
                                   !compare->parsed() && !local->parsed() && !lists;
        check_output_flags(o, verify->parsed(), model_command);
        if (gpus->parsed()) return run_gpus(out, o);
        if (system->parsed()) return run_system(out, o);
        if (fit->parsed()) return run_fit(out, o);
        if (compare->parsed()) return run_compare(out, o);
        if (local->parsed()) return run_local(out, o);
        if (!verify->parsed() && remote_model(o)) {
            if (!o.mmproj.empty()) {
                throw Failure{Error{ErrorKind::bad_input,
                                    "--mmproj adds a projector file on this machine",
                                    "leave it out for a remote model (its projector is named)"}};
            }
            const Database& db = load_database(o);
            if (engine_is_explicit_profile(o.engine)) {
                std::string label;
                const auto parts = need(remote_gguf_parts(o.model, o.remote, &label));
                const CommandOutput r = need(engine_on_gguf(
                    db, label, parts, o.engine,
                    {&db, nullptr, o.quant, o.ctx, o.hw.gpu, o.vram, o.output == Format::json,
                     {}, {}}));
                out << r.text;
                return r.code;
            }
            const CommandOutput r =
                need(run_remote(db, o.model, report_options(db, o), o.output == Format::json,
                                chart_choice(o), o.remote));
            out << r.text;
            return r.code;
        }
        if (!verify->parsed() && file_model(o) && engine_is_explicit_profile(o.engine)) {
            const Database& db = load_database(o);
            const CommandOutput r = need(run_model_file_engine(db, o.model, o.engine,
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
        if (verify->parsed() || file_model(o)) {
            const Database& db = load_database(o);
            const CommandOutput r =
                verify->parsed() ? need(run_verify(db, o.log, o.output == Format::json))
                                 : need(run_model_file(db, o.model, o.mmproj, report_options(db, o),
                                                       o.output == Format::json, chart_choice(o)));
            out << r.text;
            return r.code;
        }
        if (models->parsed() || gpu_list->parsed() || quants->parsed()) {
            const Database& db = load_database(o);
            Output output(o);
            if (models->parsed()) write_models(output.text, db, list_filter(o));
            if (gpu_list->parsed()) write_gpu_list(output.text, db, list_filter(o));
            if (quants->parsed()) write_quants(output.text, db);
            output.print(out);
            return kExitOk;
        }
        if (o.model.empty()) {
            err << "canitrun: error: name a model, e.g. 'canitrun qwen3.5-35b-a3b'; 'canitrun "
                   "models' lists them, 'canitrun --help' shows usage\n";
            return kExitBadInput;
        }
        return run_model(out, o);
    } catch (const Failure& f) {
        // One line: the problem, then how to fix it.
        err << "canitrun: error: " << one_line(f.error.message);
        if (!f.error.hint.empty()) err << "; " << one_line(f.error.hint);
        err << "\n";
        return kExitBadInput;
    } catch (const std::exception& e) {
        // A bug, not bad input; still one line and nothing on stdout, never an abort.
        err << "canitrun: error: internal error: " << one_line(e.what())
            << "; please report it with the command line that caused it\n";
        return kExitInternal;
    }
}

}  // namespace canitrun::cli
