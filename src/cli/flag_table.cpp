#include "flag_table.hpp"

#include <array>
#include <stdexcept>

namespace canitrun::cli {
namespace {

constexpr std::array<CommandInfo, kCmdCount> kCommandInfos = {{
    {Cmd::page, "", "The model page: VRAM per quantization, the fit matrix, the GPUs",
     Operand::model},
    {Cmd::gpus, "gpus", "List the GPUs that run a model, natively or with CPU offload",
     Operand::model},
    {Cmd::models, "models", "List the models in the database", Operand::none},
    {Cmd::gpu_list, "gpu-list", "List the GPUs in the database", Operand::none},
    {Cmd::quants, "quants", "List the quantization formats", Operand::none},
    {Cmd::system, "system", "Show the GPUs and RAM found on this machine", Operand::none},
    {Cmd::fit, "fit",
     "Every model that runs on a machine, with its best quantization, context and speed",
     Operand::none},
    {Cmd::compare, "compare",
     "Models side by side: size, context, layers, VRAM, KV growth, smallest GPU", Operand::models},
    {Cmd::local, "local",
     "The models already on disk (Ollama, Hugging Face cache, LM Studio, llama.cpp)",
     Operand::none},
    {Cmd::verify, "verify",
     "Compare a llama.cpp log's buffers, or llama-bench's speeds, with canitrun's estimate",
     Operand::file},
    {Cmd::serve, "serve",
     "Serve the model pages, a live calculator and the JSON API over HTTP on 127.0.0.1 "
     "(canitrun serve --help)",
     Operand::none},
    {Cmd::site, "site",
     "Write the pages and JSON documents as a static site into a folder (canitrun site --help)",
     Operand::folder},
    {Cmd::mcp, "mcp",
     "A Model Context Protocol server on stdio, for coding agents (canitrun mcp --help)",
     Operand::none},
}};

CLI::Option* add_flag_row(CLI::App& app, const FlagRow& row, Target target) {
    CLI::Option* opt = std::visit(
        [&](auto* t) -> CLI::Option* {
            if constexpr (std::is_same_v<decltype(t), bool*>) {
                return app.add_flag(row.names, *t, row.help);
            } else {
                return app.add_option(row.names, *t, row.help);
            }
        },
        target);
    if (!row.value.empty()) opt->type_name(row.value);
    if (row.non_empty) opt->check(non_empty_value());
    if (row.range) opt->check(CLI::Range(row.range->first, row.range->second));
    if (row.repeatable) {
        opt->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
    opt->group(row.group);
    return opt;
}

}  // namespace

CLI::Validator non_empty_value() {
    return {[](const std::string& value) {
                return value.empty() ? std::string("needs a value, not an empty string")
                                     : std::string();
            },
            "", "non-empty"};
}

std::span<const CommandInfo> command_infos() {
    return kCommandInfos;
}

const CommandInfo& command_info(Cmd c) {
    return kCommandInfos.at(static_cast<std::size_t>(c));
}

const CommandInfo* find_command(std::string_view name) {
    for (const CommandInfo& c : kCommandInfos) {
        if (c.cmd != Cmd::page && name == c.name) return &c;
    }
    return nullptr;
}

std::string command_words(Cmd c) {
    return c == Cmd::page ? std::string("the model page") : std::string(command_info(c).name);
}

std::string FlagRow::long_name() const {
    for (std::string_view rest = names; !rest.empty();) {
        const std::size_t comma = rest.find(',');
        const std::string_view name = rest.substr(0, comma);
        if (name.starts_with("--")) return std::string(name);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    return {};
}

std::string FlagRow::short_name() const {
    for (std::string_view rest = names; !rest.empty();) {
        const std::size_t comma = rest.find(',');
        const std::string_view name = rest.substr(0, comma);
        if (!name.starts_with("--")) return std::string(name);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    return {};
}

bool FlagRow::named(std::string_view flag) const {
    return !flag.empty() && (flag == long_name() || flag == short_name());
}

const FlagRow* find_flag(std::string_view name) {
    for (const FlagRow& row : flag_rows()) {
        if (row.named(name)) return &row;
    }
    return nullptr;
}

void register_flags(CLI::App& app, Cmd command, Options* o, std::span<const ExtraTarget> extras) {
    for (const ExtraTarget& extra : extras) {
        const FlagRow* row = find_flag(extra.flag);
        if (row == nullptr || !row->commands.has(command)) {
            throw std::logic_error(std::string(extra.flag) + " is no flag of " +
                                   command_words(command) + " in the flag table");
        }
    }
    for (const FlagRow& row : flag_rows()) {
        if (!row.commands.has(command)) continue;
        if (row.builtin) {
            // --version is the top level's own (app.cpp gives it the version text).
            if (row.named("--help")) app.set_help_flag(row.names, row.help)->group(row.group);
            continue;
        }
        const ExtraTarget* extra = nullptr;
        for (const ExtraTarget& e : extras) {
            if (row.named(e.flag)) extra = &e;
        }
        if (extra != nullptr) {
            add_flag_row(app, row, extra->target);
        } else if (row.bind != nullptr && o != nullptr) {
            add_flag_row(app, row, row.bind(*o));
        } else {
            throw std::logic_error(row.long_name() + " has no target on " + command_words(command));
        }
    }
}

}  // namespace canitrun::cli
