#include "flag_uses.hpp"
#include "request.hpp"

#include <array>
#include <string>
#include <vector>

#include "canitrun/error.hpp"
#include "engine_command.hpp"

namespace canitrun::cli {
namespace {

constexpr std::array<std::string_view, 7> kValueDependent = {
    "--offline",    "--timeout",  "--gpu-memory-utilization", "--link", "--ram-bandwidth",
    "--gpu-memory", "--min-quant"};

// "the model page, gpus, fit": the commands that read a flag, for the hint.
std::string flag_readers(const FlagRow& row) {
    std::string out;
    for (const CommandInfo& c : command_infos()) {
        if (!row.commands.has(c.cmd)) continue;
        out += (out.empty() ? "" : ", ") + command_words(c.cmd);
    }
    return out;
}

Error does_not_apply(const FlagRow& row, const std::string& flag, Cmd where) {
    return Error{ErrorKind::bad_input, flag + " does not apply to " + command_words(where),
                 "leave it out; " + row.long_name() + " is read by " + flag_readers(row)};
}

// The options given on the command line's top level or on the subcommand (each registers its
// own copy of the flags it reads): a handful, which given() reads instead of asking CLI11 to
// find each of the table's rows among every option's names (most of a served answer's parse).
std::vector<const CLI::Option*> given_options(const CLI::App& app, const CLI::App* sub) {
    std::vector<const CLI::Option*> out;
    for (const CLI::App* a : {&app, sub}) {
        if (a == nullptr) continue;
        for (const CLI::Option* opt : a->get_options()) {
            if (opt->count() > 0) out.push_back(opt);
        }
    }
    return out;
}

// How often a flag was given (CLI11 gives a name to one option per app).
std::size_t given(const std::vector<const CLI::Option*>& options, const std::string& name) {
    std::size_t n = 0;
    for (const CLI::Option* opt : options) {
        if (opt->check_name(name)) n += opt->count();
    }
    return n;
}

// Whether a flag the table gives to `command` is read with these values. The flags of
// kValueDependent only: the others are read wherever the table says.
bool applies_with(const std::string& flag, const Request& r) {
    const Command command = r.command;
    const Options& o = *r.flags;
    // Flags that only some model pages read.
    if (flag == "--offline" || flag == "--timeout") {
        return command == Command::compare || r.model.remote();
    }
    if (flag == "--gpu-memory-utilization") return r.engine == EngineKind::vllm;
    // The link joins machines: one machine has none.
    if (flag == "--link") return o.hosts.size() >= 2;
    // RAM bandwidth sets the speed of what runs from RAM: a page without hardware has none.
    if (flag == "--ram-bandwidth" && (command == Command::model || command == Command::compare)) {
        return !o.hw.gpu.empty() || !o.vram.empty();
    }
    // A GPU's usable memory needs the GPU.
    if (flag == "--gpu-memory") return !o.hw.gpu.empty();
    // The floor of a choice among the database's quantizations: a model file has its own
    // quantization, and vLLM's and exo's views choose none.
    if (flag == "--min-quant" && command == Command::model &&
        (r.model.file() || r.model.remote() || r.engine_has_own_view())) {
        throw Failure{Error{ErrorKind::bad_input,
                            "--min-quant bounds the choice among the database's "
                            "quantizations, and this page makes none",
                            "leave it out: a model file has its own quantization, and "
                            "--engine vllm / exo choose none"}};
    }
    return true;
}

}  // namespace

Cmd parsed_command(const CLI::App* sub) {
    if (sub == nullptr) return Cmd::page;
    const CommandInfo* c = find_command(sub->get_name());
    return c != nullptr ? c->cmd : Cmd::page;
}

void check_flags_apply(const CLI::App& app, const CLI::App* sub) {
    const Cmd where = parsed_command(sub);
    const auto options = given_options(app, sub);
    for (const FlagRow& row : flag_rows()) {
        if (row.builtin || row.bind == nullptr) continue;
        const std::string flag = row.long_name();
        if (given(options, flag) == 0) continue;
        if (!row.commands.has(where)) throw Failure{does_not_apply(row, flag, where)};
    }
}

void check_flags_read(const CLI::App& app, const CLI::App* sub, const Request& r) {
    const Cmd where = parsed_command(sub);
    const auto options = given_options(app, sub);
    for (const std::string_view name : kValueDependent) {
        const std::string flag(name);
        if (given(options, flag) == 0 || applies_with(flag, r)) continue;
        throw Failure{does_not_apply(*find_flag(flag), flag, where)};
    }
}

std::optional<Error> misplaced_flag(std::span<const std::string> extras, Cmd where,
                                    bool before_command) {
    for (const std::string& extra : extras) {
        if (!extra.starts_with("-") || extra == "-") continue;
        // --flag=value, and -cVALUE: the name alone.
        std::string name = extra.substr(0, extra.find('='));
        if (!name.starts_with("--")) name = name.substr(0, 2);
        const FlagRow* row = find_flag(name);
        if (row == nullptr) return std::nullopt;
        if (before_command && row->commands.has(where)) {
            std::string hint = "e.g. canitrun " + command_words(where);
            hint += " " + name + " ...";
            return Error{ErrorKind::bad_input, name + " comes after the command's word", hint};
        }
        return does_not_apply(*row, name, where);
    }
    return std::nullopt;
}

std::span<const std::string_view> value_dependent_flags() {
    return kValueDependent;
}

}  // namespace canitrun::cli
