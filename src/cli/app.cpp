#include "app.hpp"

#include "app_options.hpp"
#include "request.hpp"

#include <CLI/CLI.hpp>
#include <array>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>

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
#include "file_command.hpp"
#include "flag_docs.hpp"
#include "flag_table.hpp"
#include "flag_uses.hpp"
#include "hardware_json.hpp"
#include "hardware_options.hpp"
#include "hardware_text.hpp"
#include "html_report.hpp"
#include "json_output.hpp"
#include "list_command.hpp"
#include "local_command.hpp"
#include "remote_command.hpp"
#include "style.hpp"
#include "text_report.hpp"
#include "usage_error.hpp"
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

// The output flags that contradict each other or the command, refused before any answer is
// computed. A format a command does not offer is not refused here: every command refuses the
// views it lacks when it answers (check_offered), the one rule for every format.
void check_output_flags(const Request& r) {
    const Options& o = *r.flags;
    const bool verify = r.command == Command::verify;
    const bool model_command = r.command == Command::model;
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
    if (o.chart && (!model_command || verify)) {
        refuse("--chart draws the model page's KV chart", "leave it out of this command");
    }
    if (!o.mmproj.empty()) {
        const bool gguf =
            !verify && r.model.kind == ModelArgumentKind::gguf_file && r.model.given();
        if (!gguf) {
            refuse("--mmproj adds a vision projector to a .gguf model file",
                   "give a .gguf file as the model, or leave out --mmproj");
        }
        if (model_command && r.explicit_profile()) {
            refuse("--mmproj is not counted by --engine " + o.engine.engine,
                   "leave out --mmproj, or --engine");
        }
    }
}
// The top level: the model page's flags (the flag table's rows that name it), and its operand.
// --generate is no Options field: run() answers it before anything else.
void add_top_level(CLI::App& app, Options& o, std::string& generate) {
    app.footer(kExamples);
    const FlagRow* version = find_flag("--version");
    app.set_version_flag(version->names, std::string("canitrun ") + CANITRUN_VERSION,
                         version->help);
    app.get_version_ptr()->group(version->group);
    const ExtraTarget extras[] = {{"--generate", &generate}};
    register_flags(app, Cmd::page, &o, extras);
    app.add_option(
           "model", o.model,
           "Model id or alias (qwen3.5-35b-a3b), a .gguf file, or a config.json / HF folder")
        ->check(non_empty_value());
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

// The subcommands answered here, in the order --help lists them.
constexpr std::array<Cmd, 9> kSubcommands = {Cmd::gpus,    Cmd::models, Cmd::gpu_list,
                                             Cmd::quants,  Cmd::system, Cmd::fit,
                                             Cmd::compare, Cmd::local,  Cmd::verify};

// A subcommand's flags (the flag table's rows that name it, and no others) and its operand.
// Registering them is most of the CLI11 app's cost (CLI11 compares each new option's names
// with every earlier one's), so a subcommand gets them only when a command line could choose
// it (Parser::prepare): one that is not named cannot be parsed, and nothing else reads it.
void fill_subcommand(CLI::App& sub, Cmd c, Options& o) {
    register_flags(sub, c, &o);
    if (c == Cmd::gpus) {
        sub.add_option("model", o.model,
                       "Model id or alias, a .gguf file (at its own weights), or a config.json / "
                       "HF folder")
            ->required()
            ->check(non_empty_value());
    } else if (c == Cmd::compare) {
        sub.add_option("models", o.operands,
                       "Two or more model ids, .gguf files or config.json / HF folders")
            ->required()
            ->check(non_empty_value());
    } else if (c == Cmd::verify) {
        sub.add_option("log", o.log, "A llama.cpp / llama-server log, or llama-bench output")
            ->required();
    }
}

// serve, site and mcp: listed by --help, answered before run() (src/serve/service_command.hpp)
// because they stream or run until stopped. Reached here only when another flag came first.
CommandResult service_elsewhere(const Request& /*r*/) {
    throw Failure{Error{ErrorKind::bad_input, "serve, site and mcp come first on the command line",
                        "e.g. canitrun serve --port 8080; canitrun serve --help"}};
}

std::vector<CLI::App*> add_service_subcommands(CLI::App& app) {
    std::vector<CLI::App*> apps;
    for (const Cmd c : {Cmd::serve, Cmd::site, Cmd::mcp}) {
        apps.push_back(app.add_subcommand(command_info(c).name, command_info(c).help));
        apps.back()->allow_extras()->set_help_flag();
    }
    return apps;
}

// The subcommands' CLI11 apps by Cmd, their flags not yet registered (fill_subcommand).
using SubcommandApps = std::array<CLI::App*, kCmdCount>;

std::vector<Subcommand> add_subcommands(CLI::App& app, SubcommandApps& apps) {
    for (const Cmd c : kSubcommands) {
        apps.at(static_cast<std::size_t>(c)) =
            app.add_subcommand(command_info(c).name, command_info(c).help);
    }
    const std::vector<CLI::App*> services = add_service_subcommands(app);
    const auto sub = [&](Cmd c) { return apps.at(static_cast<std::size_t>(c)); };
    using C = Command;
    return {
        {services[0], C::lists, service_elsewhere},
        {services[1], C::lists, service_elsewhere},
        {services[2], C::lists, service_elsewhere},
        {sub(Cmd::gpus), C::gpus, gpus_command},
        {sub(Cmd::system), C::system, system_command},
        {sub(Cmd::fit), C::fit, fit_command},
        {sub(Cmd::compare), C::compare, compare_command},
        {sub(Cmd::local), C::local, local_command},
        {sub(Cmd::verify), C::verify, verify_command},
        {sub(Cmd::models), C::lists,
         [](const Request& r) { return lists_command(r, ListKind::models); }},
        {sub(Cmd::gpu_list), C::lists,
         [](const Request& r) { return lists_command(r, ListKind::gpus); }},
        {sub(Cmd::quants), C::lists,
         [](const Request& r) { return lists_command(r, ListKind::quants); }},
        {nullptr, C::model, model_or_file_command},
    };
}

// Whether a command line may print a help page (`help`, -h, --help, -h inside a cluster of
// short flags): a page lists the subcommands' flags, so every subcommand gets them.
bool may_ask_help(int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "help" || arg.starts_with("--help")) return true;
        if (arg.starts_with("-") && !arg.starts_with("--") && arg.contains('h')) return true;
    }
    return false;
}

// Whether argv holds a subcommand's word: CLI11 chooses a subcommand by its whole name only.
bool names_word(int argc, const char* const* argv, std::string_view word) {
    for (int i = 1; i < argc; ++i) {
        if (argv[i] == word) return true;
    }
    return false;
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
    // Which command reads a flag first, so a flag before the command's word gets the line it
    // gets after it (where CLI11 finds no place for it: misplaced()).
    const CLI::App* sub = app.get_subcommands().empty() ? nullptr : app.get_subcommands().front();
    check_flags_apply(app, sub);
    const Request request = need(resolve(o, chosen->command));
    check_flags_read(app, sub, request);
    check_output_flags(request);
    const CommandResult result = chosen->answer(request);
    need(check_offered(result, o.output, format_flag(o)));
    Output output(o);
    write_result(output.text, result);
    output.print(out);
    return exit_code(result.verdict);
}

// One line: the problem, then how to fix it.
void print_error(std::ostream& err, const Error& e) {
    err << "canitrun: error: " << one_line(e.message);
    if (!e.hint.empty()) err << "; " << one_line(e.hint);
    err << "\n";
}

// `canitrun help [COMMAND]` and `canitrun version`, as people type them (not model names), and
// `canitrun --generate KIND` (given alone): the exit code, or nullopt to parse the line.
std::optional<int> answer_words(const CLI::App& app, int argc, const char* const* argv,
                                std::ostream& out, std::ostream& err) {
    const std::string first = argc > 1 ? argv[1] : "";
    if (first == "version" && argc == 2) {
        out << version_text();
        return kExitOk;
    }
    if ((first == "--generate" && argc == 3) || (first.starts_with("--generate=") && argc == 2)) {
        const Result<std::string> text =
            generated(argc == 3 ? std::string(argv[2]) : first.substr(first.find('=') + 1));
        if (!text) {
            print_error(err, text.error());
            return kExitBadInput;
        }
        out << *text;
        return kExitOk;
    }
    if (first == "help" && argc <= 3) {
        const CLI::App* sub = nullptr;
        for (const CLI::App* c : app.get_subcommands({})) {
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
    return std::nullopt;
}

// CLI11's parse: the exit code for help, the version or a bad line, else nullopt.
std::optional<int> parse_command_line(CLI::App& app, int argc, const char* const* argv,
                                      std::ostream& out, std::ostream& err) {
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
        // Every other refusal in canitrun's words (usage_error.hpp), a misplaced flag included.
        print_error(err, usage_error(e, app));
        return kExitBadInput;
    }
    return std::nullopt;
}

// The CLI11 app with the Options its flags write into. Building it (some 150 flags over 13
// commands) cost as much as a third of a served answer, so each thread builds one and reuses
// it (serve asks run() once per request): before each parse the Options go back to their
// defaults and CLI11 forgets the last parse (clear()), which is what a fresh build gives.
struct Parser {
    Options o;
    std::string generate;
    CLI::App app{kDescription, "canitrun"};
    SubcommandApps subcommands{};
    std::array<bool, kCmdCount> filled{};
    std::vector<Subcommand> table;
    bool busy = false;  // a run() inside a run() on this thread builds its own

    Parser() {
        add_top_level(app, o, generate);
        table = add_subcommands(app, subcommands);
    }
    // The flags of every subcommand this command line could choose or show, once per Parser.
    void prepare(int argc, const char* const* argv) {
        const bool help = may_ask_help(argc, argv);
        for (const Cmd c : kSubcommands) {
            const auto i = static_cast<std::size_t>(c);
            if (filled.at(i) || !(help || names_word(argc, argv, command_info(c).name))) continue;
            fill_subcommand(*subcommands.at(i), c, o);
            filled.at(i) = true;
        }
    }
    void reset(bool out_is_terminal, std::size_t terminal_columns) {
        o = Options{};
        o.terminal = out_is_terminal;
        o.columns = terminal_columns;
        generate.clear();
        app.clear();
    }
};

// Marks the thread's parser in use for one run(), and free again however run() returns.
class ParserLease {
  public:
    ParserLease() {
        thread_local std::unique_ptr<Parser> mine;
        if (!mine) mine = std::make_unique<Parser>();
        if (mine->busy) {
            own_ = std::make_unique<Parser>();
            parser_ = own_.get();
        } else {
            parser_ = mine.get();
        }
        parser_->busy = true;
    }
    ~ParserLease() { parser_->busy = false; }
    ParserLease(const ParserLease&) = delete;
    ParserLease& operator=(const ParserLease&) = delete;
    Parser& operator*() const { return *parser_; }

  private:
    std::unique_ptr<Parser> own_;
    Parser* parser_ = nullptr;
};

// Starts reading the built-in database on another core while this thread builds and runs the
// parser (the two are the start of nearly every question, each 1-4 M instructions): the first
// caller of embedded_database() reads it and any other waits for it, so the answer is the same
// whichever comes first. Once per process (serve's later requests find it read), and not where
// the line names --data or may ask for help. The thread is joined when run() returns.
std::jthread read_database_early(int argc, const char* const* argv) {
    static std::atomic_flag started;
    if (std::thread::hardware_concurrency() < 2 || may_ask_help(argc, argv)) return {};
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg.starts_with("--data") || arg.starts_with("--generate")) return {};
    }
    if (started.test_and_set()) return {};
    try {
        return std::jthread([] {
            try {
                (void)embedded_database();
            } catch (...) {  // out of memory: the parse meets it again and says so
            }
        });
    } catch (const std::system_error&) {
        return {};  // no thread: the parse reads it when it needs it
    }
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
        bool out_is_terminal, std::size_t terminal_columns) {
    const std::jthread database = read_database_early(argc, argv);
    const ParserLease lease;
    Parser& parser = *lease;
    parser.reset(out_is_terminal, terminal_columns);
    parser.prepare(argc, argv);
    Options& o = parser.o;
    CLI::App& app = parser.app;
    const std::string& generate = parser.generate;
    const std::vector<Subcommand>& table = parser.table;
    if (const auto code = answer_words(app, argc, argv, out, err)) return *code;
    if (const auto code = parse_command_line(app, argc, argv, out, err)) return *code;
    if (!generate.empty()) {
        err << "canitrun: error: --generate is given alone; e.g. canitrun --generate man\n";
        return kExitBadInput;
    }

    try {
        return answer(app, table, o, out, out_is_terminal);
    } catch (const Failure& f) {
        print_error(err, f.error);
        return kExitBadInput;
    } catch (const Failures& f) {
        for (const Error& e : f.errors) print_error(err, e);
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
