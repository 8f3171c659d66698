#pragma once
// One row per flag (issue #35, item 4): its names, value, help text, the commands that read it,
// where CLI11 stores it, its checks and how the shells complete it. Registration on each command
// (app.cpp, src/serve), the refusal of a flag given where it is not read (flag_uses.cpp),
// --help, the man page's OPTIONS and the bash / zsh / fish completions (flag_docs.cpp) all
// come from here, so a flag added in one row appears in all of them.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "app_options.hpp"

namespace canitrun::cli {

// Every command a flag can be given to: the model page (no subcommand), the subcommands, and
// the services (serve, site, mcp), which register their rows in src/serve.
enum class Cmd : std::uint8_t {
    page,
    gpus,
    models,
    gpu_list,
    quants,
    system,
    fit,
    compare,
    local,
    verify,
    serve,
    site,
    mcp,
};
inline constexpr std::size_t kCmdCount = 13;

// A set of commands, one bit each.
struct Cmds {
    std::uint16_t bits = 0;
    constexpr bool has(Cmd c) const { return (bits >> static_cast<unsigned>(c)) & 1U; }
    friend constexpr Cmds operator|(Cmds a, Cmds b) { return {std::uint16_t(a.bits | b.bits)}; }
};
constexpr Cmds cmds(std::initializer_list<Cmd> list) {
    Cmds out;
    for (const Cmd c : list) out.bits = std::uint16_t(out.bits | (1U << static_cast<unsigned>(c)));
    return out;
}

// How a command takes its operands, for the completions.
enum class Operand { none, model, models, file, folder };

// A command: its word on the command line ("" for the model page), its line in --help and in
// the completions, and its operands.
struct CommandInfo {
    Cmd cmd;
    const char* name;
    const char* help;
    Operand operand;
};
// In --help's order, the model page first.
std::span<const CommandInfo> command_infos();
const CommandInfo& command_info(Cmd c);
const CommandInfo* find_command(std::string_view name);
// "the model page" or the subcommand's word, for messages.
std::string command_words(Cmd c);

// Where CLI11 stores a flag's value.
using Target = std::variant<std::string*, bool*, std::vector<std::string>*, std::uint64_t*, int*>;
using Bind = Target (*)(Options&);

// How the shells complete a flag's value.
enum class Complete {
    none,    // a value typed by hand (a number, a name)
    file,    // a file; `words` may hold a glob such as *.json
    folder,  // a folder
    models,  // a model id of the database (`canitrun models --names`)
    gpus,    // a GPU id (`canitrun gpu-list --names`), then `words`
    quants,  // a quantization id (`canitrun quants --names`)
    words,   // one of `words`
};

struct FlagRow {
    std::string names{};  // CLI11's spelling, long name first: "--ctx,-c"
    std::string value{};  // the value's name in help and man ("N", "QUANT"); empty: a switch
    // One line for --help (the completions drop its parentheses and stop at a ";").
    std::string help{};
    // The man page's paragraph (roff); empty: the help text.
    std::string man{};
    Cmds commands{};
    Bind bind = nullptr;     // null: the command supplies the target (src/serve, --generate)
    bool non_empty = false;  // refuse `--flag ""`
    std::optional<std::pair<int, int>> range{};  // an integer's bounds
    bool repeatable = false;                     // a list: one value per use
    Complete complete = Complete::none;
    std::string words{};   // Complete::words's choices (space separated), a file glob, more GPUs
    std::string group{};   // the heading in --help and in the man page
    bool builtin = false;  // --help and --version: CLI11 registers them itself

    std::string long_name() const;            // "--ctx"
    std::string short_name() const;           // "-c", or empty
    bool named(std::string_view flag) const;  // "--ctx" or "-c"
};

// Every row, grouped as --help and the man page list them.
const std::vector<FlagRow>& flag_rows();
// The row of a long or short name ("--ctx", "-c"), or null.
const FlagRow* find_flag(std::string_view name);

// A target for a row whose command has no Options (the services) or that is not an Options
// field (--generate): the row's long name, and where to store it.
struct ExtraTarget {
    std::string_view flag;
    Target target;
};

// A value given on the command line must not be empty: `--quant ""` is a mistake, not "default".
CLI::Validator non_empty_value();

// Registers on `app` exactly the rows that name `command`: into `o` where the row binds to
// Options, else into the target `extras` gives. Throws std::logic_error when a row has no
// target or an extra names no row of this command: a table mistake, found by any run.
void register_flags(CLI::App& app, Cmd command, Options* o,
                    std::span<const ExtraTarget> extras = {});

}  // namespace canitrun::cli
