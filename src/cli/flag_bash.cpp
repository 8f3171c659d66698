// The bash completion script, made from the flag table (flag_docs.hpp). The names of models,
// GPUs and quantizations come from the database at completion time (`canitrun models --names`,
// ...), following a --data on the line.

#include <string>

#include "flag_docs.hpp"

namespace canitrun::cli {
namespace {

// The `case $prev` arm that completes a row's value; empty for a switch.
std::string bash_value(const FlagRow& row) {
    if (row.value.empty()) return {};
    std::string pattern = row.long_name();
    if (!row.short_name().empty()) pattern += " | " + row.short_name();
    std::string words;
    switch (row.complete) {
        case Complete::none:
            return "        " + pattern + ")\n            return\n            ;;\n";
        case Complete::file:
            words = "compgen -f -- \"$cur\"";
            break;
        case Complete::folder:
            words = "compgen -d -- \"$cur\"";
            break;
        case Complete::models:
            words = "compgen -W \"$(_canitrun_names models)\" -- \"$cur\"";
            break;
        case Complete::gpus:
            words = "compgen -W \"$(_canitrun_names gpu-list)" +
                    (row.words.empty() ? "" : " " + row.words) + R"(" -- "$cur")";
            break;
        case Complete::quants:
            words = "compgen -W \"$(_canitrun_names quants)\" -- \"$cur\"";
            break;
        case Complete::words:
            words = "compgen -W \"" + row.words + R"(" -- "$cur")";
            break;
    }
    return "        " + pattern + ")\n            mapfile -t COMPREPLY < <(" + words +
           ")\n            return\n            ;;\n";
}

// The command's operands when the word is not a flag.
std::string bash_operands(const CommandInfo& c) {
    std::string models =
        "compgen -W \"$(_canitrun_names models) hf: ollama: https://\" -- \"$cur\"; "
        "_canitrun_model_files";
    switch (c.operand) {
        case Operand::model:
        case Operand::models:
            if (c.cmd == Cmd::page) {
                return "compgen -W \"" + subcommand_words() +
                       " $(_canitrun_names models) hf: ollama: https://\" -- \"$cur\"; "
                       "_canitrun_model_files";
            }
            return models;
        case Operand::file:
            return "compgen -f -- \"$cur\"";
        case Operand::folder:
            return "compgen -d -- \"$cur\"";
        case Operand::none:
            break;
    }
    return {};
}

std::string bash_commands_case() {
    std::string flags;
    std::string operands;
    // The model page last: its pattern is *.
    std::vector<CommandInfo> order(command_infos().begin() + 1, command_infos().end());
    order.push_back(command_infos().front());
    for (const CommandInfo& c : order) {
        std::string words;
        for (const FlagRow* row : rows_of(c.cmd)) {
            words += (words.empty() ? "" : " ") + row->long_name();
        }
        const std::string label = c.cmd == Cmd::page ? "*" : c.name;
        flags += "            " + label;
        flags += ") mapfile -t COMPREPLY < <(compgen -W \"" + words;
        flags += "\" -- \"$cur\") ;;\n";
        const std::string op = bash_operands(c);
        operands += "        " + label + ")" +
                    (op.empty() ? "" : " mapfile -t COMPREPLY < <(" + op + ")") + " ;;\n";
    }
    return "    if [[ $cur == -* ]]; then\n        case $sub in\n" + flags +
           "        esac\n        return\n    fi\n    case $sub in\n" + operands + "    esac\n";
}

const char* const kBashHead = R"bash(
# Subcommands, options, and model / GPU / quantization names read from the database itself
# (`canitrun models --names`, `gpu-list --names`, `quants --names`), so they follow --data.
# Installed to share/bash-completion/completions/canitrun.

_canitrun_names() {
    # $1: models | gpu-list | quants. Uses the canitrun being completed and any --data given.
    local prog=${COMP_WORDS[0]} data=() i
    for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
        if [[ ${COMP_WORDS[i]} == --data ]]; then
            data=(--data "${COMP_WORDS[i + 1]}")
        fi
    done
    "$prog" "${data[@]}" "$1" --names 2>/dev/null
}

# Model files as the model argument: GGUF files, config.json files and folders (HF checkouts).
_canitrun_model_files() {
    compgen -f -X '!*.gguf' -- "$cur"
    compgen -f -X '!*config.json' -- "$cur"
    compgen -d -S / -- "$cur"
}

_canitrun() {
    local cur prev sub="" i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
)bash";

}  // namespace

std::string bash_completion() {
    std::string subs;
    for (const CommandInfo& c : command_infos()) {
        if (c.cmd != Cmd::page) subs += (subs.empty() ? "" : " | ") + std::string(c.name);
    }
    std::string out =
        "# bash completion for canitrun                                    "
        "-*- shell-script -*-\n" +
        generated_note("bash") + kBashHead;
    out += "            " + subs +
           ")\n                sub=${COMP_WORDS[i]}\n                break\n"
           "                ;;\n        esac\n    done\n\n    case $prev in\n";
    for (const FlagRow& row : flag_rows()) out += bash_value(row);
    out += "    esac\n\n" + bash_commands_case() + "}\n\ncomplete -F _canitrun canitrun\n";
    return out;
}

}  // namespace canitrun::cli
