#pragma once
// The command line's own state, shared by app.cpp (flags, the top-level handler) and
// commands.cpp (one function per command): the parsed options, the database loaded once,
// the styled output, and the one way a command fails (a Failure, caught in run()).

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/model_argument.hpp"
#include "canitrun/report.hpp"
#include "command_result.hpp"
#include "engine_command.hpp"
#include "hardware_options.hpp"
#include "remote_flags.hpp"
#include "style.hpp"

namespace canitrun::cli {

struct Options {
    std::string model;
    std::string quant;
    std::string ctx;
    std::string kv_type;  // empty: kDefaultKvType
    std::string vram;
    std::string min_quant;  // --min-quant; empty: kDefaultMinQuant
    std::string min_speed;  // --min-speed; empty: kDefaultMinSpeed
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
    std::string users;               // --users N: N users of --ctx tokens each
    std::vector<std::string> hosts;  // --host, one machine each
    std::string link;                // --link Gbit/s between hosts
    // model files
    std::string mmproj;
    std::string log;
    std::string verify_model;  // verify --model: the model of a log excerpt without metadata
    std::vector<std::string> operands;  // compare
    RemoteFlags remote;                 // --offline, --timeout
    // The database, loaded on first use: every command and several checks ask for it, and a
    // start should read it (or parse --data) once. The built-in one lives as long as the
    // process (embedded_database()); a --data one is held here.
    mutable const Database* db = nullptr;
    mutable std::optional<Database> data_db;
    // The GPUs --gpu-spec files describe (read_gpu_specs), added to the database when it loads.
    std::vector<Gpu> described_gpus;
};

struct Failure {
    Error error;
};

// Several problems found at once (the fields of a --gpu-spec file): one error line each.
struct Failures {
    std::vector<Error> errors;
};

template <typename T>
T need(Result<T> r) {
    if (!r) throw Failure{r.error()};
    return std::move(*r);
}

// Reads and checks the --gpu-spec files before anything else asks for the database (a Failures
// naming every problem); without --gpu or --host, the plan is on the GPUs they describe.
void read_gpu_specs(Options& o);
ChartChoice chart_choice(const Options& o);

// A stream styled for the chosen output; what is written to it is printed whole at the end,
// so an error leaves stdout empty.
struct Output {
    explicit Output(const Options& o)
        : text(Style{o.output, o.color, chart_choice(o)}, std::size_t{1} << 17) {}
    void print(std::ostream& out) const {
        if (format_of(text) == Format::markdown) {
            out << markdownify(text.str());
        } else {
            out << text.view();
        }
    }
    mutable StyledStream text;
};

struct Request;

// One function per command; each returns its whole answer (command_result.hpp) or throws a
// Failure. run() prints the answer in the asked format.
CommandResult model_command(const Request& r);
CommandResult gpus_command(const Request& r);
CommandResult system_command(const Request& r);
CommandResult fit_command(const Request& r);
CommandResult compare_command(const Request& r);
CommandResult local_command(const Request& r);
CommandResult verify_command(const Request& r);
// A model file, a config folder or a remote name as the model.
CommandResult model_source_command(const Request& r);
enum class ListKind { models, gpus, quants };
CommandResult lists_command(const Request& r, ListKind kind);

}  // namespace canitrun::cli
