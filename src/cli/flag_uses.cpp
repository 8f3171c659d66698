#include "flag_uses.hpp"

#include <string>
#include <vector>

#include "canitrun/error.hpp"
#include "engine_command.hpp"

namespace canitrun::cli {
namespace {

struct FlagUse {
    const char* name;
    std::vector<Command> applies;  // empty: the model page only, under `when` below
};

const std::vector<FlagUse>& flag_uses() {
    using C = Command;
    static const std::vector<FlagUse> uses = {
        {"--quant", {C::model, C::gpus, C::compare, C::verify}},
        {"--ctx", {C::model, C::gpus, C::fit, C::compare, C::local}},
        {"--kv-type", {C::model, C::gpus, C::fit, C::compare, C::local}},
        {"--ram", {C::model, C::gpus, C::fit, C::compare, C::local}},
        {"--engine", {C::model, C::gpus, C::fit, C::compare, C::local}},
        {"--ubatch", {C::model, C::gpus, C::fit, C::compare, C::local}},
        {"--parallel", {C::model, C::gpus, C::fit, C::compare, C::local}},
        {"--flash-attn", {C::model, C::gpus, C::fit, C::compare, C::local}},
        {"--cache-type-k", {C::model, C::gpus, C::fit, C::compare, C::local}},
        {"--cache-type-v", {C::model, C::gpus, C::fit, C::compare, C::local}},
        {"--backend", {C::model}},
        {"--margin", {C::model, C::gpus, C::fit, C::compare, C::local}},
        {"--gpu-memory-utilization", {C::model}},
        {"--gpu", {C::model, C::fit, C::compare, C::local, C::verify}},
        {"--gpu-spec", {C::model, C::fit, C::compare, C::local, C::verify}},
        {"--ram-bandwidth", {C::model, C::fit, C::compare, C::local}},
        {"--gpu-memory", {C::model, C::fit, C::compare, C::local}},
        {"--vram", {C::model}},
        {"--min-quant", {C::model, C::fit, C::compare}},
        {"--min-speed", {C::model, C::compare}},
        {"--ngl", {C::model}},
        {"--n-cpu-moe", {C::model}},
        {"--cpu-moe", {C::model}},
        {"--tensor-split", {C::model}},
        {"--split-mode", {C::model}},
        {"--ascii", {C::model}},
        {"--users", {C::model, C::gpus}},
        {"--host", {C::model}},
        {"--link", {C::model}},
        {"--offline", {C::model, C::gpus, C::compare}},
        {"--timeout", {C::model, C::gpus, C::compare}},
    };
    return uses;
}

const char* command_words(Command c) {
    switch (c) {
        case Command::model:
            return "the model page";
        case Command::gpus:
            return "gpus";
        case Command::fit:
            return "fit";
        case Command::compare:
            return "compare";
        case Command::local:
            return "local";
        case Command::verify:
            return "verify";
        case Command::lists:
            return "the database lists";
        case Command::system:
            return "system";
    }
    return "this command";
}

// How often a flag was given, on the command line's top level or on the subcommand (which
// registers its own copy of some flags).
std::size_t given(const CLI::App& app, const CLI::App* sub, const char* name) {
    std::size_t n = 0;
    for (const CLI::App* a : {&app, sub}) {
        if (a == nullptr) continue;
        if (const CLI::Option* opt = a->get_option_no_throw(name)) n += opt->count();
    }
    return n;
}

}  // namespace

void check_flags_apply(const CLI::App& app, const CLI::App* sub, Command command,
                       const Options& o) {
    for (const FlagUse& use : flag_uses()) {
        if (given(app, sub, use.name) == 0) continue;
        bool applies = false;
        for (const Command c : use.applies) applies = applies || c == command;
        const std::string flag = use.name;
        // Flags that only some model pages read.
        if (applies && (flag == "--offline" || flag == "--timeout")) {
            applies = command == Command::compare || remote_model(o);
        }
        if (applies && flag == "--gpu-memory-utilization") applies = engine_is_vllm(o.engine);
        // The link joins machines: one machine has none.
        if (applies && flag == "--link") applies = o.hosts.size() >= 2;
        // RAM bandwidth sets the speed of what runs from RAM: a page without hardware has none.
        if (applies && flag == "--ram-bandwidth" &&
            (command == Command::model || command == Command::compare)) {
            applies = !o.hw.gpu.empty() || !o.vram.empty();
        }
        // A GPU's usable memory needs the GPU.
        if (applies && flag == "--gpu-memory") applies = !o.hw.gpu.empty();
        // The floor of a choice among the database's quantizations: a model file has its own
        // quantization, and vLLM's and exo's views choose none.
        if (applies && flag == "--min-quant" && command == Command::model &&
            (file_model(o) || remote_model(o) || engine_has_own_view(o.engine))) {
            throw Failure{Error{ErrorKind::bad_input,
                                "--min-quant bounds the choice among the database's "
                                "quantizations, and this page makes none",
                                "leave it out: a model file has its own quantization, and "
                                "--engine vllm / exo choose none"}};
        }
        if (!applies) {
            throw Failure{Error{ErrorKind::bad_input,
                                flag + " does not apply to " + command_words(command),
                                "leave it out; 'canitrun --help' says which command reads it"}};
        }
    }
}

}  // namespace canitrun::cli
