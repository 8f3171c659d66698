#include "app.hpp"

#include <CLI/CLI.hpp>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "canitrun/database_files.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/report.hpp"
#include "json_output.hpp"
#include "list_commands.hpp"
#include "text_report.hpp"

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
  canitrun gpus qwen3.5-35b-a3b                      every GPU that runs it
  canitrun models --family qwen
  canitrun gpu-list --vendor amd --min-vram 24

Exit codes: 0 answered (with --gpu: it fits), 1 it does not fit the --gpu asked about,
2 bad input (unknown name, bad value, unreadable database), 3 internal error (a bug).
Sizes: GB = 10^9 bytes, GiB = 2^30 bytes.)";

struct Options {
    std::string model;
    std::string quant;
    std::string ctx;
    std::string kv_type = "f16";
    std::string vram;
    std::string ram;
    std::string gpu;
    std::string data_dir;
    bool json = false;
    bool names = false;  // models / gpu-list / quants --names
    // list filters
    std::string family;
    std::string vendor;
    std::string min_vram;
};

struct Failure {
    Error error;
};

template <typename T>
T need(Result<T> r) {
    if (!r) throw Failure{r.error()};
    return std::move(*r);
}

Database load_database(const Options& o) {
    if (o.data_dir.empty()) return need(parse_database(embedded_database_files()));
    return need(parse_database(need(read_database_dir(o.data_dir))));
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
    r.estimate.kv_type = need(parse_kv_type(o.kv_type));
    if (!o.ram.empty()) r.fit.ram_gb = ram_gb(o.ram);
    if (!o.vram.empty()) r.vram_budget = need(parse_gb(o.vram));
    if (!o.gpu.empty()) r.gpu = need(db.find_gpu(o.gpu));
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
    app.add_option("--ram", o.ram, "System RAM in GB available for CPU offload (default 32)")
        ->check(non_empty());
}

// --version: the program's version and the embedded database's.
std::string version_text() {
    std::string text = std::string("canitrun ") + CANITRUN_VERSION + "\n";
    const auto db = parse_database(embedded_database_files());
    if (!db) return text + "database: unreadable (" + db.error().message + ")\n";
    const DatabaseInfo& info = db->info;
    text += "database " + (info.version.empty() ? std::string("(no version)") : info.version);
    if (!info.date.empty()) text += " (" + info.date + ")";
    text += ": " + std::to_string(db->models.size()) + " models, " +
            std::to_string(db->gpus.size()) + " GPUs, " + std::to_string(db->quants.size()) +
            " quantizations\n";
    return text;
}

// Error text from a database file or argv may hold control characters; stderr gets one line.
std::string one_line(const std::string& text) {
    std::string out;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        out += (u < 0x20 || u == 0x7f) ? '?' : c;
    }
    return out;
}

int run_model(std::ostream& out, const Options& o) {
    const Database db = load_database(o);
    const Model* model = need(db.find_model(o.model));
    const ReportOptions ro = report_options(db, o);
    const ModelReport report = need(build_model_report(db, *model, ro));
    std::ostringstream text;  // built whole, so an error leaves stdout empty
    if (o.json) {
        text << model_report_json(report).dump(2) << "\n";
    } else {
        write_text_report(text, report);
    }
    out << text.str();
    if (report.gpu && report.gpu->fit != Fit::native) return kExitDoesNotFit;
    return kExitOk;
}

int run_gpus(std::ostream& out, const Options& o) {
    const Database db = load_database(o);
    const Model* model = need(db.find_model(o.model));
    const ModelReport report = need(build_model_report(db, *model, report_options(db, o)));
    std::ostringstream text;
    write_gpus_for_model(text, report, o.json);
    out << text.str();
    return kExitOk;
}

ListFilter list_filter(const Options& o) {
    ListFilter f{o.family, o.vendor, std::nullopt};
    if (!o.min_vram.empty()) f.min_vram_bytes = need(parse_gb(o.min_vram));
    return f;
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    Options o;
    CLI::App app{kDescription, "canitrun"};
    app.footer(kExamples);
    app.set_version_flag("--version", std::string("canitrun ") + CANITRUN_VERSION);
    app.add_flag("--json", o.json, "Print one JSON document on stdout and nothing else");
    app.add_option("--data", o.data_dir,
                   "Load the database from this folder instead of the built-in one")
        ->check(non_empty());
    app.add_option("model", o.model, "Model id or alias, e.g. qwen3.5-35b-a3b")->check(non_empty());
    add_estimate_flags(app, o);
    app.add_option("--vram", o.vram,
                   "A VRAM budget in GB: does the recommended quantization fit, and what does?")
        ->check(non_empty());
    app.add_option("--gpu", o.gpu, "A GPU by name, e.g. \"RTX 4090\": does it fit? (exit 1 if not)")
        ->check(non_empty());

    CLI::App* gpus =
        app.add_subcommand("gpus", "List the GPUs that run a model, natively or with CPU offload");
    gpus->add_option("model", o.model, "Model id or alias")->required()->check(non_empty());
    add_estimate_flags(*gpus, o);
    gpus->fallthrough();

    CLI::App* models = app.add_subcommand("models", "List the models in the database");
    models->add_option("--family", o.family, "Only this family (substring, e.g. qwen)");
    models->add_option("--vendor", o.vendor, "Only this vendor (substring, e.g. alibaba)");
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
        err << "canitrun: error: " << one_line(e.what()) << "\n"
            << "canitrun: run 'canitrun --help' for usage\n";
        return kExitBadInput;
    }

    try {
        if (gpus->parsed()) return run_gpus(out, o);
        if (models->parsed() || gpu_list->parsed() || quants->parsed()) {
            const Database db = load_database(o);
            std::ostringstream text;
            if (o.names) {
                if (models->parsed()) write_model_names(text, db, list_filter(o));
                if (gpu_list->parsed()) write_gpu_names(text, db, list_filter(o));
                if (quants->parsed()) write_quant_names(text, db);
            } else {
                if (models->parsed()) write_models(text, db, list_filter(o), o.json);
                if (gpu_list->parsed()) write_gpu_list(text, db, list_filter(o), o.json);
                if (quants->parsed()) write_quants(text, db, o.json);
            }
            out << text.str();
            return kExitOk;
        }
        if (o.model.empty()) {
            err << "canitrun: error: name a model, e.g. 'canitrun qwen3.5-35b-a3b'\n"
                << "canitrun: 'canitrun models' lists them; 'canitrun --help' shows usage\n";
            return kExitBadInput;
        }
        return run_model(out, o);
    } catch (const Failure& f) {
        err << "canitrun: error: " << one_line(f.error.message) << "\n";
        if (!f.error.hint.empty()) err << "canitrun: " << one_line(f.error.hint) << "\n";
        return kExitBadInput;
    } catch (const std::exception& e) {
        // A bug, not bad input; still one line and nothing on stdout, never an abort.
        err << "canitrun: error: internal error: " << one_line(e.what()) << "\n"
            << "canitrun: please report it with the command line that caused it\n";
        return kExitInternal;
    }
}

}  // namespace canitrun::cli
