#include "api_routes.hpp"

#include <span>
#include <string_view>

#include "canitrun/database.hpp"
#include "canitrun/model_argument.hpp"

namespace canitrun::serve {
namespace {

std::unexpected<Refusal> refuse(int status, std::string message) {
    return std::unexpected(Refusal{status, std::move(message)});
}

constexpr ParamFlag kModelParams[] = {
    {"quant", "--quant"},
    {"ctx", "--ctx"},
    {"gpu", "--gpu"},
    {"ram", "--ram"},
    {"kv_type", "--kv-type"},
    {"engine", "--engine"},
    {"parallel", "--parallel"},
    {"flash_attn", "--flash-attn"},
    {"users", "--users"},
    {"vram", "--vram"},
    {"ubatch", "--ubatch"},
    {"backend", "--backend"},
    {"margin", "--margin"},
    {"ngl", "--ngl"},
    {"n_cpu_moe", "--n-cpu-moe"},
    {"tensor_split", "--tensor-split"},
    {"min_quant", "--min-quant"},
    {"min_speed", "--min-speed"},
    {"gpu_memory", "--gpu-memory"},
    {"ram_bandwidth", "--ram-bandwidth"},
    {"cache_type_k", "--cache-type-k"},
    {"cache_type_v", "--cache-type-v"},
};
constexpr ParamFlag kGpusParams[] = {
    {"quant", "--quant"}, {"ctx", "--ctx"}, {"kv_type", "--kv-type"}, {"ram", "--ram"}};
constexpr ParamFlag kFitParams[] = {
    {"gpu", "--gpu"},
    {"ctx", "--ctx"},
    {"kv_type", "--kv-type"},
    {"ram", "--ram"},
    {"sort", "--sort"},
    {"min_quant", "--min-quant"},
    {"gpu_memory", "--gpu-memory"},
    {"ram_bandwidth", "--ram-bandwidth"},
};
constexpr ParamFlag kCompareParams[] = {
    {"quant", "--quant"},
    {"ctx", "--ctx"},
    {"kv_type", "--kv-type"},
    {"ram", "--ram"},
    {"gpu", "--gpu"},
    {"engine", "--engine"},
    {"parallel", "--parallel"},
    {"flash_attn", "--flash-attn"},
    {"min_quant", "--min-quant"},
    {"min_speed", "--min-speed"},
};
constexpr ParamFlag kModelsParams[] = {
    {"family", "--family"}, {"vendor", "--vendor"}, {"since", "--since"}};
constexpr ParamFlag kGpuListParams[] = {{"vendor", "--vendor"}, {"min_vram", "--min-vram"}};
constexpr std::span<const ParamFlag> kNoParams;

// Appends `--flag=value` for each known parameter, in the table's order; refuses any other.
std::expected<void, Refusal> add_flags(const Target& target, std::span<const ParamFlag> table,
                                       std::vector<std::string>& argv, std::string_view skip) {
    for (const Param& p : target.params) {
        bool known = p.key == skip;
        for (const ParamFlag& f : table) known = known || p.key == f.key;
        if (!known) return refuse(400, "this endpoint takes no parameter '" + p.key + "'");
        // gpu=auto would probe the server's hardware on every request; /api/v1/system names
        // it once, and the page's "this machine" uses that.
        if (p.key == "gpu" && p.value == "auto") {
            return refuse(400,
                          "gpu=auto is not asked over HTTP; GET /api/v1/system names the "
                          "server's GPUs");
        }
    }
    for (const ParamFlag& f : table) {
        if (const std::string* v = find_param(target, f.key)) {
            argv.push_back(std::string(f.flag) + "=" + *v);
        }
    }
    return {};
}

// A model named in a request: a database name, or with --allow-remote a remote name. Never a
// path: the CLI would read a file of the server's disk.
std::expected<void, Refusal> check_model(const std::string& name, const ApiPolicy& policy) {
    if (name.empty()) return refuse(400, "name a model");
    if (policy.db->find_model(name)) return {};
    if (name.front() != '-' &&
        classify_model_argument(*policy.db, name) == ModelArgumentKind::remote) {
        if (policy.allow_remote) return {};
        return refuse(403, "remote models (" + name + ") need 'canitrun serve --allow-remote'");
    }
    const auto missing = policy.db->find_model(name);
    std::string message = missing.error().message;
    if (!missing.error().hint.empty()) message += "; " + missing.error().hint;
    return refuse(404, message);
}

std::vector<std::string> split_commas(const std::string& list) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        out.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

std::expected<std::vector<std::string>, Refusal> compare_argv(const Target& target,
                                                              const ApiPolicy& policy) {
    const std::string* models = find_param(target, "models");
    if (models == nullptr) return refuse(400, "compare needs models=a,b");
    const std::vector<std::string> names = split_commas(*models);
    if (names.size() < 2 || names.size() > 8) {
        return refuse(400, "compare takes 2 to 8 models, comma-separated");
    }
    std::vector<std::string> argv = {"compare"};
    for (const std::string& name : names) {
        if (auto ok = check_model(name, policy); !ok) return std::unexpected(ok.error());
        argv.push_back(name);
    }
    // The flags before the models would do as well; after them reads as the CLI's examples.
    if (auto ok = add_flags(target, kCompareParams, argv, "models"); !ok) {
        return std::unexpected(ok.error());
    }
    argv.emplace_back("--json");
    return argv;
}

// An endpoint named by the path alone: its argv's head and its parameters.
struct FixedEndpoint {
    std::string_view path;
    std::vector<std::string> head;
    std::span<const ParamFlag> params;
};

}  // namespace

std::expected<std::vector<std::string>, Refusal> api_argv(const Target& target,
                                                          const ApiPolicy& policy) {
    const std::string_view path = target.path;
    const FixedEndpoint fixed[] = {
        {"/api/v1/models", {"models"}, kModelsParams},
        {"/api/v1/gpu-list", {"gpu-list"}, kGpuListParams},
        {"/api/v1/quants", {"quants"}, kNoParams},
        {"/api/v1/fit", {"fit"}, kFitParams},
    };
    for (const FixedEndpoint& e : fixed) {
        if (path != e.path) continue;
        if (e.path == "/api/v1/fit" && find_param(target, "gpu") == nullptr) {
            return refuse(400, "fit needs gpu=, e.g. gpu=RTX 4090");
        }
        std::vector<std::string> argv = e.head;
        if (auto ok = add_flags(target, e.params, argv, {}); !ok) {
            return std::unexpected(ok.error());
        }
        argv.emplace_back("--json");
        return argv;
    }
    if (path == "/api/v1/compare") return compare_argv(target, policy);
    const struct {
        std::string_view prefix;
        const char* command;
        std::span<const ParamFlag> params;
    } named[] = {{"/api/v1/models/", nullptr, kModelParams},
                 {"/api/v1/gpus/", "gpus", kGpusParams}};
    for (const auto& e : named) {
        if (!path.starts_with(e.prefix) || path.size() == e.prefix.size()) continue;
        const std::string model(path.substr(e.prefix.size()));
        if (auto ok = check_model(model, policy); !ok) return std::unexpected(ok.error());
        std::vector<std::string> argv;
        if (e.command != nullptr) argv.emplace_back(e.command);
        argv.push_back(model);
        if (auto ok = add_flags(target, e.params, argv, {}); !ok) {
            return std::unexpected(ok.error());
        }
        argv.emplace_back("--json");
        return argv;
    }
    return refuse(404,
                  "no such endpoint: " + target.path + " (GET /api/v1/openapi.json lists them)");
}

}  // namespace canitrun::serve
