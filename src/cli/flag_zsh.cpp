// The zsh completion script, made from the flag table (flag_docs.hpp): one _arguments list per
// command; names of models, GPUs and quantizations from the database at completion time.

#include <algorithm>
#include <string>

#include "flag_docs.hpp"

namespace canitrun::cli {
namespace {

// Inside zsh's single quotes, and inside an _arguments description's brackets.
std::string zsh_described(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '\'') {
            out += "'\\''";
        } else if (c == '[' || c == ']') {
            out += std::string("\\") + c;
        } else {
            out += c;
        }
    }
    return out;
}

// The message after an option's description: a colon ends it.
std::string zsh_message(std::string_view text) {
    std::string out;
    for (const char c : text) out += c == ':' ? std::string("\\:") : std::string(1, c);
    return out;
}

std::string zsh_action(const FlagRow& row) {
    switch (row.complete) {
        case Complete::none:
            return {};
        case Complete::file:
            return row.words.empty() ? "_files" : "_files -g \"" + row.words + "(-.)\"";
        case Complete::folder:
            return "_directories";
        case Complete::models:
            return "_canitrun_models";
        case Complete::gpus:
            return "_canitrun_gpus" + (row.words.empty() ? "" : " " + row.words);
        case Complete::quants:
            return "_canitrun_quants";
        case Complete::words:
            return "(" + row.words + ")";
    }
    return {};
}

// One _arguments spec: '(-q --quant)'{-q,--quant}'[Quantization]:QUANT:_canitrun_quants'.
std::string zsh_spec(const FlagRow& row) {
    const std::string tail =
        "[" + zsh_described(flag_summary(row)) + "]" +
        (row.value.empty() ? "" : ":" + zsh_message(row.value) + ":" + zsh_action(row)) + "'";
    const std::string repeat = row.repeatable ? "*" : "";
    if (row.builtin) {
        return "'(- *)'{" + row.short_name() + "," + row.long_name() + "}'" + tail;
    }
    if (row.short_name().empty()) return "'" + repeat + row.long_name() + tail;
    return "'(" + row.short_name() + " " + row.long_name() + ")'{" + row.short_name() + "," +
           row.long_name() + "}'" + tail;
}

// An array of the command's specs, one per line.
std::string zsh_array(Cmd c, const std::string& name) {
    std::string out = "    local -a " + name + "\n    " + name + "=(\n";
    for (const FlagRow* row : rows_of(c)) out += "        " + zsh_spec(*row) + "\n";
    return out + "    )\n";
}

// The array of a command's specs: page, opts_gpus, opts_gpu_list (no dash in a zsh name).
std::string zsh_array_name(const CommandInfo& c) {
    if (c.cmd == Cmd::page) return "page";
    std::string name = "opts_" + std::string(c.name);
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

std::string zsh_operand(const CommandInfo& c) {
    switch (c.operand) {
        case Operand::model:
            return " '1:model:_canitrun_model_or_file'";
        case Operand::models:
            return " '*:model:_canitrun_model_or_file'";
        case Operand::file:
            return " '1:file:_files'";
        case Operand::folder:
            return " '1:folder:_files -/'";
        case Operand::none:
            break;
    }
    return {};
}

const char* const kZshHead =
    R"zsh(# zsh completion for canitrun: subcommands, options, and model / GPU / quantization names read
# from the database (`canitrun models --names`, `gpu-list --names`, `quants --names`).
# Installed to share/zsh/vendor-completions/_canitrun.

_canitrun_names() {
    # $1: models | gpu-list | quants; follows a --data given on the command line.
    local -a data
    local i
    for ((i = 2; i < CURRENT; i++)); do
        [[ ${words[i]} == --data ]] && data=(--data ${words[i+1]})
    done
    ${words[1]} $data $1 --names 2>/dev/null
}

_canitrun_models() {
    local -a names
    names=(${(f)"$(_canitrun_names models)"})
    _describe -t models 'model' names
}

# A model id, or a model file: a GGUF file, a config.json, or a folder holding one.
_canitrun_model_or_file() {
    _alternative 'models:model:_canitrun_models' \
        'remote:remote model:(hf\: ollama\: https\://)' \
        'files:model file:_files -g "*.gguf(-.) *config.json(-.)"'
}

# GPU ids, and any words given (auto).
_canitrun_gpus() {
    local -a names
    names=(${(f)"$(_canitrun_names gpu-list)"} $@)
    _describe -t gpus 'GPU' names
}

_canitrun_quants() {
    local -a names
    names=(${(f)"$(_canitrun_names quants)"})
    _describe -t quants 'quantization' names
}

_canitrun() {
)zsh";

}  // namespace

std::string zsh_completion() {
    std::string out = "#compdef canitrun\n" + generated_note("zsh") + kZshHead;
    for (const CommandInfo& c : command_infos()) out += zsh_array(c.cmd, zsh_array_name(c));
    out +=
        "    local curcontext=$curcontext state line\n"
        "    typeset -A opt_args\n"
        "    _arguments -C $page '1: :->first' '*:: :->rest' && return\n"
        "    case $state in\n"
        "        first)\n"
        "            local -a subcommands\n"
        "            subcommands=(\n";
    for (const CommandInfo& c : command_infos()) {
        if (c.cmd == Cmd::page) continue;
        out += "                '" + std::string(c.name) + ":" + zsh_described(c.help) + "'\n";
    }
    out +=
        "            )\n"
        "            _describe -t subcommands 'subcommand' subcommands\n"
        "            _canitrun_model_or_file\n"
        "            ;;\n"
        "        rest)\n"
        "            case ${line[1]} in\n";
    for (const CommandInfo& c : command_infos()) {
        if (c.cmd == Cmd::page) continue;
        out += "                " + std::string(c.name) + ") _arguments $" + zsh_array_name(c) +
               zsh_operand(c) + " ;;\n";
    }
    out +=
        "                *) _arguments $page ;;\n"
        "            esac\n"
        "            ;;\n"
        "    esac\n"
        "}\n\n"
        "_canitrun \"$@\"\n";
    return out;
}

}  // namespace canitrun::cli
