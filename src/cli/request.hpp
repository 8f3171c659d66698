#pragma once
// The command line resolved once (issue #35), ripgrep's low-to-high arguments: CLI11 fills
// Options with the text the user typed; resolve() is the only place that parses a flag's value,
// loads the database, classifies a model argument or picks a default, and every command takes
// the Request it returns. An optional field (or a null pointer) means the flag was not given;
// the defaults the planner applies stay the core's (plan_settings.hpp, estimate.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app_options.hpp"
#include "canitrun/cluster.hpp"
#include "canitrun/database.hpp"
#include "canitrun/hardware_questions.hpp"
#include "canitrun/model_argument.hpp"
#include "canitrun/report.hpp"
#include "command_kind.hpp"
#include "list_command.hpp"
#include "model_operand.hpp"

namespace canitrun::cli {

// --engine: llama.cpp's rule (the default), the reference page's quick rule, vLLM, exo.
enum class EngineKind { llamacpp, quick, vllm, exo };

struct Request {
    const Options* flags = nullptr;  // the text typed, for what the answer echoes back
    Command command = Command::model;
    const Database* db = nullptr;
    ModelArgument model;
    std::vector<ModelArgument> operands;  // compare
    EngineKind engine = EngineKind::llamacpp;
    bool engine_given = false;                // --engine named
    std::optional<std::uint64_t> context;     // --ctx, tokens (report.estimate: the planned)
    std::optional<Bytes> ram;                 // --ram (report.fit.ram: with the default)
    std::optional<std::uint64_t> users;       // --users
    std::optional<Backend> backend;           // --backend (a file's llama.cpp profile)
    std::uint64_t vllm_utilization_pct = 90;  // --gpu-memory-utilization, vLLM's 0.9
    Cluster cluster;                          // --host machines and --link
    // The planner's question for database models and files: --quant (report.quant), --vram
    // (report.vram_budget), --gpu or the one --host with its RAM (report.hardware), the context
    // and KV type, the rule's settings (plan_settings.hpp) and the placement flags. Each value
    // is held here once; the fields above are the ones the report has no place for.
    ReportOptions report;
    ListFilter filter;  // models / gpu-list
    FitSort sort = FitSort::params;

    bool engine_has_own_view() const {
        return engine == EngineKind::vllm || engine == EngineKind::exo;
    }
    // An explicit --engine llama.cpp or vllm: on a model file, the profile's own view.
    bool explicit_profile() const {
        return engine_given && (engine == EngineKind::llamacpp || engine == EngineKind::vllm);
    }
};

// The database (the built-in one, or --data's, with the --gpu-spec GPUs), loaded on first use.
const Database& load_database(const Options& o);

// The engine --engine names; an unknown one is refused.
Result<EngineKind> parse_engine(const std::string& text);

// Every flag the command reads, parsed and checked once.
Result<Request> resolve(const Options& o, Command command);

}  // namespace canitrun::cli
