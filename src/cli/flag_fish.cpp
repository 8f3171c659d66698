// The fish completion script, made from the flag table (flag_docs.hpp): each flag completes on
// the commands that read it; names of models, GPUs and quantizations from the database.

#include <string>

#include "flag_docs.hpp"

namespace canitrun::cli {
namespace {

// Inside fish's single quotes: \' and \\.
std::string fish_quoted(std::string_view text) {
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'' || c == '\\') out += '\\';
        out += c;
    }
    return out + "'";
}

// The condition that the command on the line is one of `commands`; empty for every command.
std::string fish_condition(Cmds commands) {
    std::string words;
    bool every = true;
    for (const CommandInfo& c : command_infos()) {
        if (commands.has(c.cmd)) {
            words += " " + (c.cmd == Cmd::page ? std::string("page") : std::string(c.name));
        } else {
            every = false;
        }
    }
    return every ? std::string() : " -n '__canitrun_takes" + words + "'";
}

std::string fish_value(const FlagRow& row) {
    if (row.value.empty()) return {};
    switch (row.complete) {
        case Complete::none:
            return " -x";
        case Complete::file:
            return " -r -F";
        case Complete::folder:
            return " -x -a '(__fish_complete_directories)'";
        case Complete::models:
            return " -x -a '(__canitrun_names models)'";
        case Complete::gpus:
            return " -x -a '(__canitrun_names gpu-list)" +
                   (row.words.empty() ? "" : " " + row.words) + "'";
        case Complete::quants:
            return " -x -a '(__canitrun_names quants)'";
        case Complete::words:
            return " -x -a " + fish_quoted(row.words);
    }
    return {};
}

std::string fish_flag(const FlagRow& row) {
    std::string out = "complete -c canitrun" + fish_condition(row.commands);
    if (!row.short_name().empty()) out += " -s " + row.short_name().substr(1);
    out += " -l " + row.long_name().substr(2) + fish_value(row);
    return out + " -d " + fish_quoted(flag_summary(row)) + "\n";
}

// A command's operands: model names and files, a log file, a folder.
std::string fish_operands(const CommandInfo& c) {
    const std::string when = fish_condition(cmds({c.cmd}));
    switch (c.operand) {
        case Operand::model:
        case Operand::models:
            return "complete -c canitrun" + when + " -a '(__canitrun_names models)' -d model\n" +
                   "complete -c canitrun" + when +
                   " -a 'hf: ollama: https://' -d 'remote model (hf:ORG/REPO[:QUANT], "
                   "ollama:NAME[:TAG], URL)'\n";
        case Operand::file:
            return "complete -c canitrun" + when + " -F -d file\n";
        case Operand::folder:
            return "complete -c canitrun" + when +
                   " -a '(__fish_complete_directories)' -d folder\n";
        case Operand::none:
            break;
    }
    return {};
}

const char* const kFishHead =
    R"fish(# fish completion for canitrun: subcommands, options, and model / GPU / quantization names read
# from the database (`canitrun models --names`, `gpu-list --names`, `quants --names`).
# Installed to share/fish/vendor_completions.d/canitrun.fish.

function __canitrun_names --argument-names what
    set -l tokens (commandline -opc)
    set -l data
    set -l i (contains -i -- --data $tokens)
    and set data --data $tokens[(math $i + 1)]
    $tokens[1] $data $what --names 2>/dev/null
end

# The command on the line: its first subcommand word, else page (the model page).
function __canitrun_command
    set -l tokens (commandline -opc)
    set -e tokens[1]
    for t in $tokens
        if contains -- $t )fish";

}  // namespace

std::string fish_completion() {
    std::string out = generated_note("fish") + kFishHead + subcommand_words() +
                      "\n"
                      "            echo $t\n"
                      "            return\n"
                      "        end\n"
                      "    end\n"
                      "    echo page\n"
                      "end\n\n"
                      "# Whether the command on the line is one of the arguments.\n"
                      "function __canitrun_takes\n"
                      "    contains -- (__canitrun_command) $argv\n"
                      "end\n\n"
                      "complete -c canitrun -f\n";
    for (const CommandInfo& c : command_infos()) {
        if (c.cmd == Cmd::page) continue;
        out += "complete -c canitrun -n '__canitrun_takes page' -a " + std::string(c.name) +
               " -d " + fish_quoted(c.help) + "\n";
    }
    for (const CommandInfo& c : command_infos()) out += fish_operands(c);
    out += "\n";
    for (const FlagRow& row : flag_rows()) out += fish_flag(row);
    return out;
}

}  // namespace canitrun::cli
