#include "app.hpp"

#include "app_options.hpp"
#include "request.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <new>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "canitrun/database_files.hpp"
#include "canitrun/embedded_snapshot.hpp"
#include "canitrun/model_argument.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/report.hpp"
#include "canitrun/strings.hpp"
#include "compare_command.hpp"
#include "csv_output.hpp"
#include "data_views.hpp"
#include "engine_command.hpp"
#include "file_commands.hpp"
#include "flag_uses.hpp"
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
  canitrun llama-3.1-8b --gpu "RTX 4090" --users 4 --ctx 32k   four users of 32k at once
  canitrun llama-3.1-405b --host m3-ultra-256gb --host m3-ultra-256gb   two machines, llama.cpp RPC
  canitrun deepseek-v3 --engine vllm --quant FP8 --host 8xh100-sxm --host 8xh100-sxm
  canitrun fit --gpu "RTX 4090" --sort speed         every model that runs on it
  canitrun system                                    what canitrun detects here
  canitrun gpus qwen3.5-35b-a3b                      every GPU that runs it
  canitrun gpus model-Q4_K_M.gguf --ctx 32k          every GPU that runs this file
  canitrun compare qwen3.5-35b-a3b gpt-oss-20b       side by side
  canitrun hf:unsloth/Qwen3.5-35B-A3B-GGUF           a Hugging Face repo, no download
  canitrun ollama:qwen3:30b --gpu auto               an Ollama model (store, else registry)
  canitrun local                                     the models already on disk
  canitrun qwen3.5-35b-a3b --format html > page.html
  canitrun models --family qwen
  canitrun gpu-list --vendor amd --min-vram 24

Exit codes: 0 answered (with --gpu or --host: it fits), 1 it does not fit the hardware asked about
(the output says whether offload runs it; for fit: no model fits),
2 bad input (unknown name, bad value, unreadable database), 3 internal error (a bug).
Sizes: GB = 10^9 bytes, GiB = 2^30 bytes.)";

// A value given on the command line must not be empty: `--quant ""` is a mistake, not "default".
CLI::Validator non_empty() {
    return {[](const std::string& value) {
                return value.empty() ? std::string("needs a value, not an empty string")
                                     : std::string();
            },
            "", "non-empty"};
}

// The quality floor of every choice among quantizations (plan_settings.hpp).
void add_min_quant_flag(CLI::App& app, Options& o) {
    app.add_option(
           "--min-quant", o.min_quant,
           std::string("Lowest quantization a best-quantization choice may pick (default ") +
               kDefaultMinQuant + "; e.g. IQ1_S to allow every type)")
        ->check(non_empty());
}

// The speed floor of a best-quantization choice with offload (plan_settings.hpp).
void add_min_speed_flag(CLI::App& app, Options& o) {
    app.add_option("--min-speed", o.min_speed,
                   "Slowest decode, in tokens/s, a best-quantization choice with offload may "
                   "pick (default 5)")
        ->check(non_empty());
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
                   "reference page's 12 % rule), vllm, exo (with --host)");
    app.add_option("--ubatch", f.ubatch, "llama.cpp: micro-batch size n_ubatch (default 512)");
    app.add_option("--parallel", f.parallel, "llama.cpp: sequences served at once (default 1)");
    app.add_option("--flash-attn", f.flash_attn, "llama.cpp: flash attention on, off, auto");
    app.add_option("--cache-type-k", f.cache_type_k, "llama.cpp: K cache type (default f16)");
    app.add_option("--cache-type-v", f.cache_type_v, "llama.cpp: V cache type (default f16)");
    app.add_option("--backend", f.backend, "llama.cpp: cpu, cuda, rocm, metal, vulkan");
    app.add_option("--margin", f.margin,
                   "llama.cpp: MiB kept free on every GPU, llama.cpp's fitting target (default "
                   "1024)");
    app.add_option("--cache-ram", f.cache_ram,
                   "llama-server: MiB its prompt cache in RAM may grow to, 0 off (default 8192)");
    app.add_option("--ctx-checkpoints", f.ctx_checkpoints,
                   "llama-server: context checkpoints per sequence, SWA and hybrid models "
                   "(default 8)");
    app.add_flag("--no-kv-offload", f.no_kv_offload,
                 "llama.cpp: KV cache and recurrent state in system RAM (-nkvo)");
    app.add_flag("--no-repack", f.no_repack,
                 "llama.cpp: no second, repacked copy of Q4_0/Q4_K/IQ4_NL weights on the CPU");
    app.add_flag("--mtp", f.mtp,
                 "llama.cpp: draft with the model's own MTP layers (llama-server's draft-mtp)");
    app.add_option("--draft", f.draft,
                   "llama.cpp: a draft model for speculative decoding, MODEL or MODEL:QUANT")
        ->check(non_empty());
    app.add_option("--also", f.also,
                   "llama-server: another model resident at once (embedding, reranker), "
                   "MODEL or MODEL:QUANT; repeatable")
        ->check(non_empty());
    app.add_option("--gpu-memory-utilization", f.gpu_memory_utilization,
                   "vllm: share of GPU memory vLLM may use (default 0.9)");
}

void add_hardware_flags(CLI::App& app, Options& o) {
    app.add_option("--gpu", o.hw.gpu,
                   R"(Your GPUs: "RTX 4090", "2x3090", "4090,3090", or auto to detect them)")
        ->check(non_empty());
    app.add_option("--gpu-spec", o.hw.gpu_specs,
                   "A JSON file describing a GPU the database lacks (name, memory, bandwidth, "
                   "FP16 rate, vendor, unified; docs/schema/gpu-spec.schema.json); repeat for "
                   "several. Planned alone, or named by its id in --gpu or --host")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->check(non_empty());
    app.add_option("--gpu-memory", o.hw.gpu_memory,
                   "GB a unified-memory GPU may use (macOS iogpu.wired_limit_mb, an APU's GTT "
                   "size; default: the platform's share)")
        ->check(non_empty());
    app.add_option("--ram-bandwidth", o.hw.ram_bandwidth,
                   "System RAM bandwidth in GB/s for offloaded layers (default 76.8, "
                   "dual-channel DDR5-4800)");
}

// --version: the program's version and the embedded database's.
std::string version_text() {
    std::string text = std::string("canitrun ") + CANITRUN_VERSION + "\n";
    const auto loaded = embedded_database();
    if (!loaded) return text + "database: unreadable (" + loaded.error().message + ")\n";
    const Database* db = *loaded;
    const DatabaseInfo& info = db->info;
    text += "database " + (info.version.empty() ? std::string("(no version)") : info.version);
    if (!info.date.empty()) text += " (" + info.date + ")";
    text += ": " + std::to_string(db->models.size()) + " models, " +
            std::to_string(db->gpus.size()) + " GPUs, " + std::to_string(db->quants.size()) +
            " quantizations\n";
    return text;
}

// Error text from a database file, argv or a server may hold control characters, bytes that
// are not UTF-8, or a password inside an address (HF_ENDPOINT=https://user:pass@host); stderr
// gets one line of valid text without the password.
std::string one_line(const std::string& text) {
    return printable_text(without_url_userinfo(text));
}

// that do not offer a view refuse it when they answer (check_offered).
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
    if (o.output == Format::html && (!model_command || engine_has_own_view(o.engine) ||
                                     o.hosts.size() >= 2 || file_model(o) || o.model.empty())) {
        refuse("--format html is the model page of a database model",
               "e.g. canitrun qwen3.5-35b-a3b --format html > qwen.html");
    }
    if (o.chart && (!model_command || verify)) {
        refuse("--chart draws the model page's KV chart", "leave it out of this command");
    }
    if (!o.mmproj.empty()) {
        const bool gguf =
            !verify && !o.model.empty() && model_kind(o) == ModelArgumentKind::gguf_file;
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
// The top level's flags: output, the model argument, and the model page's settings.
void add_top_level(CLI::App& app, Options& o) {
    app.footer(kExamples);
    app.set_version_flag("-V,--version", std::string("canitrun ") + CANITRUN_VERSION);
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
    app.add_option(
           "--timeout", o.remote.timeout_s,
           "Remote models: seconds for the whole answer, all requests and retries (default 30)")
        ->check(CLI::Range(1, 3600));
    add_estimate_flags(app, o);
    add_min_quant_flag(app, o);
    add_min_speed_flag(app, o);
    app.add_option("--vram", o.vram,
                   "A VRAM budget in GB: does the recommended quantization fit, and what does?")
        ->check(non_empty());
    add_hardware_flags(app, o);
    app.add_option("--ngl", o.hw.ngl,
                   "Layers on the GPUs as llama.cpp's -ngl counts them (default: as many as fit)");
    app.add_option("--n-cpu-moe", o.hw.n_cpu_moe,
                   "Keep the routed experts of the first N layers in RAM (llama.cpp --n-cpu-moe)");
    app.add_flag("--cpu-moe", o.hw.cpu_moe,
                 "Keep every layer's routed experts in RAM (llama.cpp --cpu-moe, -ot exps=CPU)");
    app.add_option("--tensor-split", o.hw.tensor_split,
                   "Split layers over the GPUs in these proportions, one per GPU (llama.cpp -ts; "
                   "unit counts such as 40,41 place exactly; default: by memory, or the uneven "
                   "split that holds every layer)")
        ->check(non_empty());
    app.add_option("--split-mode", o.hw.split_mode,
                   "llama.cpp's -sm over several GPUs: layer (default), row (CUDA: each matrix "
                   "cut by rows; no speed figure) or tensor (not planned)")
        ->check(non_empty());
    add_engine_flags(app, o.engine);
    app.add_option("--users", o.users,
                   "Users served at once, each with --ctx tokens (llama-server --parallel N -c "
                   "N x ctx; vLLM sequences)")
        ->check(non_empty());
    app.add_option("--host", o.hosts,
                   "One machine of several, as its GPUs (and RAM): 8xh100-sxm, 2x3090:ram=128; "
                   "repeat for each machine, the first runs the server (llama.cpp RPC, vLLM)")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--link", o.link,
                   "Network between the --host machines in Gb/s (default 10, 10 Gb Ethernet)")
        ->check(non_empty());
}

// Each subcommand, with the command its parse stands for and the function that answers it:
// run() dispatches by this table. The model command (no subcommand) is the last row.
struct Subcommand {
    CLI::App* app = nullptr;  // null: the model command
    Command command = Command::model;
    CommandResult (*answer)(const Request&) = nullptr;
};

// The model command: a database model, else a model file, a config folder or a remote name.
CommandResult model_or_file_command(const Request& r) {
    if (r.model.remote() || r.model.file()) return model_source_command(r);
    if (!r.model.given()) {
        throw Failure{Error{ErrorKind::bad_input, "name a model, e.g. 'canitrun qwen3.5-35b-a3b'",
                            "'canitrun models' lists them, 'canitrun --help' shows usage"}};
    }
    return model_command(r);
}

// The subcommands' CLI11 apps, filled by the three functions below in --help's order.
struct Subcommands {
    CLI::App* gpus = nullptr;
    CLI::App* models = nullptr;
    CLI::App* gpu_list = nullptr;
    CLI::App* quants = nullptr;
    CLI::App* system = nullptr;
    CLI::App* fit = nullptr;
    CLI::App* compare = nullptr;
    CLI::App* local = nullptr;
    CLI::App* verify = nullptr;
};

// gpus and the database lists.
void add_database_subcommands(CLI::App& app, Options& o, Subcommands& s) {
    s.gpus =
        app.add_subcommand("gpus", "List the GPUs that run a model, natively or with CPU offload");
    s.gpus
        ->add_option("model", o.model,
                     "Model id or alias, a .gguf file (at its own weights), or a config.json / HF "
                     "folder")
        ->required()
        ->check(non_empty());
    add_estimate_flags(*s.gpus, o);
    s.gpus->fallthrough();
    s.models = app.add_subcommand("models", "List the models in the database");
    s.models->add_option("--family", o.family, "Only this family (substring, e.g. qwen)");
    s.models->add_option("--vendor", o.vendor, "Only this vendor (substring, e.g. alibaba)");
    s.models
        ->add_option("--since", o.since, "Only models released on or after: 2026-06, 2026-06-15")
        ->check(non_empty());
    s.models->add_flag("--names", o.names, "Print only the ids, one per line");
    s.models->fallthrough();
    s.gpu_list = app.add_subcommand("gpu-list", "List the GPUs in the database");
    s.gpu_list->add_option("--vendor", o.vendor, "Only this vendor: nvidia, amd, intel, apple");
    s.gpu_list->add_option("--min-vram", o.min_vram, "Only GPUs with at least this many GB");
    s.gpu_list->add_flag("--names", o.names, "Print only the ids, one per line");
    s.gpu_list->fallthrough();
    s.quants = app.add_subcommand("quants", "List the quantization formats");
    s.quants->add_flag("--names", o.names, "Print only the ids, one per line");
    s.quants->fallthrough();
}

// Questions about a machine: system, fit.
void add_machine_subcommands(CLI::App& app, Options& o, Subcommands& s) {
    s.system = app.add_subcommand("system", "Show the GPUs and RAM found on this machine");
    s.system->fallthrough();
    s.fit = app.add_subcommand(
        "fit", "Every model that runs on a machine, with its best quantization, context and speed");
    add_hardware_flags(*s.fit, o);
    s.fit->add_option("--ctx,-c", o.ctx, "Context length to fit (default 8k)");
    s.fit->add_option("--kv-type", o.kv_type, "KV cache element type: " + kv_type_names());
    s.fit->add_option("--ram", o.hw.ram,
                      "System RAM in GB (default: detected with --gpu auto, else 32)");
    add_min_quant_flag(*s.fit, o);
    s.fit->add_option("--sort", o.sort,
                      "Order: params (largest first, default), speed, context, name");
    s.fit->fallthrough();
}

// compare, local and verify.
void add_other_subcommands(CLI::App& app, Options& o, Subcommands& s) {
    s.compare = app.add_subcommand(
        "compare", "Models side by side: size, context, layers, VRAM, KV growth, smallest GPU");
    s.compare
        ->add_option("models", o.operands,
                     "Two or more model ids, .gguf files or config.json / HF folders")
        ->required()
        ->check(non_empty());
    add_estimate_flags(*s.compare, o);
    add_min_quant_flag(*s.compare, o);
    add_min_speed_flag(*s.compare, o);
    add_hardware_flags(*s.compare, o);
    add_engine_flags(*s.compare, o.engine);
    s.compare->fallthrough();
    s.local = app.add_subcommand(
        "local", "The models already on disk (Ollama, Hugging Face cache, LM Studio, llama.cpp)");
    add_hardware_flags(*s.local, o);
    s.local->add_option("--ctx,-c", o.ctx, "Context length to plan at (default 8k)");
    s.local->add_option("--ram", o.hw.ram,
                        "System RAM in GB (default: detected on this machine, else 32)");
    s.local->fallthrough();
    s.verify = app.add_subcommand(
        "verify",
        "Compare a llama.cpp log's buffers, or llama-bench's speeds, with canitrun's estimate");
    s.verify->add_option("log", o.log, "A llama.cpp / llama-server log, or llama-bench output")
        ->required();
    s.verify
        ->add_option("--model", o.verify_model,
                     "The log's model, a database id, for an excerpt without the metadata lines "
                     "(the file type from the log, else --quant)")
        ->check(non_empty());
    s.verify->fallthrough();
}

// serve, site and mcp: listed by --help, answered before run() (src/serve/service_commands.hpp)
// because they stream or run until stopped. Reached here only when another flag came first.
CommandResult service_elsewhere(const Request& /*r*/) {
    throw Failure{Error{ErrorKind::bad_input, "serve, site and mcp come first on the command line",
                        "e.g. canitrun serve --port 8080; canitrun serve --help"}};
}

std::vector<CLI::App*> add_service_subcommands(CLI::App& app) {
    std::vector<CLI::App*> apps = {
        app.add_subcommand("serve",
                           "Serve the model pages, a live calculator and the JSON API over HTTP "
                           "on 127.0.0.1 (canitrun serve --help)"),
        app.add_subcommand("site",
                           "Write the pages and JSON documents as a static site into a "
                           "folder (canitrun site --help)"),
        app.add_subcommand("mcp",
                           "A Model Context Protocol server on stdio, for coding agents "
                           "(canitrun mcp --help)")};
    for (CLI::App* a : apps) a->allow_extras()->set_help_flag();
    return apps;
}

std::vector<Subcommand> add_subcommands(CLI::App& app, Options& o) {
    Subcommands s;
    // In the order --help lists them.
    add_database_subcommands(app, o, s);
    add_machine_subcommands(app, o, s);
    add_other_subcommands(app, o, s);
    const std::vector<CLI::App*> services = add_service_subcommands(app);
    using C = Command;
    return {
        {services[0], C::lists, service_elsewhere},
        {services[1], C::lists, service_elsewhere},
        {services[2], C::lists, service_elsewhere},
        {s.gpus, C::gpus, gpus_command},
        {s.system, C::system, system_command},
        {s.fit, C::fit, fit_command},
        {s.compare, C::compare, compare_command},
        {s.local, C::local, local_command},
        {s.verify, C::verify, verify_command},
        {s.models, C::lists, [](const Request& r) { return lists_command(r, ListKind::models); }},
        {s.gpu_list, C::lists, [](const Request& r) { return lists_command(r, ListKind::gpus); }},
        {s.quants, C::lists, [](const Request& r) { return lists_command(r, ListKind::quants); }},
        {nullptr, C::model, model_or_file_command},
    };
}

// How the user asked for a format, for a refusal: "--quiet", "--format csv", "--json".
std::string format_flag(const Options& o) {
    if (o.quiet) return "--quiet";
    if (o.names) return "--names";
    if (o.json) return "--json";
    return "--format " + (o.format.empty() ? std::string("table") : o.format);
}

// After a successful parse: the checks every command shares, then the command's answer,
// printed whole in the asked format (nothing on stdout when it fails).
int answer(const CLI::App& app, const std::vector<Subcommand>& table, Options& o, std::ostream& out,
           bool out_is_terminal) {
    o.output = o.format.empty() ? Format::table : need(parse_format(o.format));
    if (o.json) o.output = Format::json;
    if (o.quiet || o.names) o.output = Format::quiet;
    o.color = want_color(out_is_terminal, std::getenv("NO_COLOR"), std::getenv("CLICOLOR_FORCE"));
    read_gpu_specs(o);
    const Subcommand* chosen = &table.back();
    for (const Subcommand& s : table) {
        if (s.app != nullptr && s.app->parsed()) {
            chosen = &s;
            break;
        }
    }
    check_output_flags(o, chosen->command == Command::verify, chosen->command == Command::model);
    const CLI::App* sub = app.get_subcommands().empty() ? nullptr : app.get_subcommands().front();
    check_flags_apply(app, sub, chosen->command, o);
    const CommandResult result = chosen->answer(need(resolve(o, chosen->command)));
    need(check_offered(result, o.output, format_flag(o)));
    Output output(o);
    write_result(output.text, result);
    output.print(out);
    return result.code;
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
        bool out_is_terminal, std::size_t terminal_columns) {
    Options o;
    o.terminal = out_is_terminal;
    o.columns = terminal_columns;
    CLI::App app{kDescription, "canitrun"};
    add_top_level(app, o);
    const std::vector<Subcommand> table = add_subcommands(app, o);
    // `canitrun help [COMMAND]` and `canitrun version`, as people type them: not model names.
    const std::string first = argc > 1 ? argv[1] : "";
    if (first == "version" && argc == 2) {
        out << version_text();
        return kExitOk;
    }
    if (first == "help" && argc <= 3) {
        CLI::App* sub = nullptr;
        for (CLI::App* c : app.get_subcommands({})) {
            if (argc == 3 && c->get_name() == argv[2]) sub = c;
        }
        if (argc == 3 && sub == nullptr) {
            err << "canitrun: error: no command '" << argv[2]
                << "'; run 'canitrun --help' for the commands\n";
            return kExitBadInput;
        }
        out << (sub != nullptr ? sub->help("canitrun") : app.help());
        return kExitOk;
    }
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
        return answer(app, table, o, out, out_is_terminal);
    } catch (const Failure& f) {
        // One line: the problem, then how to fix it.
        err << "canitrun: error: " << one_line(f.error.message);
        if (!f.error.hint.empty()) err << "; " << one_line(f.error.hint);
        err << "\n";
        return kExitBadInput;
    } catch (const Failures& f) {
        for (const Error& e : f.errors) {
            err << "canitrun: error: " << one_line(e.message);
            if (!e.hint.empty()) err << "; " << one_line(e.hint);
            err << "\n";
        }
        return kExitBadInput;
    } catch (const std::bad_alloc&) {
        // Every input is bounded before it is parsed (json_bounds, kGgufMaxHeld, the file and
        // body caps), so this is a bound that is missing: a bug, but named for what it is.
        err << "canitrun: error: out of memory: an input got past the bounds that should have "
               "refused it; please report it with the command line that caused it\n";
        return kExitInternal;
    } catch (const std::exception& e) {
        // A bug, not bad input; still one line and nothing on stdout, never an abort.
        err << "canitrun: error: internal error: " << one_line(e.what())
            << "; please report it with the command line that caused it\n";
        return kExitInternal;
    }
}

}  // namespace canitrun::cli
