#include "mcp_server.hpp"

#include <algorithm>
#include <istream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "api_answer.hpp"
#include "ask.hpp"
#include "canitrun/database.hpp"
#include "canitrun/json_bounds.hpp"
#include "canitrun/model_argument.hpp"

#ifndef CANITRUN_VERSION
#define CANITRUN_VERSION "0.0.0"
#endif

namespace canitrun::serve {
namespace {

using nlohmann::json;

// The revision of the protocol this server speaks; a client asking for another gets this one
// back, as the spec's version negotiation says.
constexpr const char* kProtocolVersion = "2025-06-18";

json string_property(const char* description) {
    return {{"type", "string"}, {"description", description}};
}

// One tool: its name, what it answers, its arguments and the /api/v1 path it maps to.
struct Tool {
    const char* name;
    const char* description;
    std::vector<std::pair<const char*, const char*>> arguments;  // name, description
    std::vector<const char*> required;
};

const std::vector<Tool>& tools() {
    static const std::vector<Tool> list = {
        {"can_it_run",
         "Can this model run on this hardware, and how: canitrun MODEL --json (the model page, "
         "or with gpu the plan: split, offload, speed, llama-server command)",
         {{"model", "Model id (canitrun models), e.g. qwen3.5-35b-a3b"},
          {"gpu", "GPUs: 'RTX 4090', '2x3090', '4090,3090'"},
          {"quant", "Quantization, e.g. Q4_K_M"},
          {"ctx", "Context tokens, e.g. 32k"},
          {"kv_type", "KV cache type: f16, q8_0, q4_0, turboquant ..."},
          {"ram", "System RAM in GB"},
          {"engine", "llama.cpp (default), quick, vllm"},
          {"parallel", "llama.cpp --parallel"},
          {"flash_attn", "on, off, auto"},
          {"users", "Users served at once"}},
         {"model"}},
        {"what_fits",
         "Every model that runs on this hardware, with its best quantization, context and "
         "speed: canitrun fit --gpu G --json",
         {{"gpu", "GPUs: 'RTX 4090', '2x3090'"},
          {"ctx", "Context tokens"},
          {"kv_type", "KV cache type"},
          {"ram", "System RAM in GB"},
          {"sort", "params, speed, context, name"}},
         {"gpu"}},
        {"compare_models",
         "Models side by side: canitrun compare A B --json",
         {{"models", "2 to 8 model ids, comma-separated"},
          {"quant", "Quantization"},
          {"ctx", "Context tokens"},
          {"gpu", "GPUs"}},
         {"models"}},
        {"gpus_for_model",
         "Every GPU that runs a model, natively or with offload: canitrun gpus MODEL --json",
         {{"model", "Model id"}, {"quant", "Quantization"}, {"ctx", "Context tokens"}},
         {"model"}},
        {"read_model_file",
         "Read a GGUF file or a Hugging Face / Ollama name (hf:org/repo, ollama:name) without "
         "downloading the weights: canitrun SOURCE --json",
         {{"source", "A .gguf path, hf:org/repo[:QUANT] or ollama:name:tag"},
          {"gpu", "GPUs"},
          {"ctx", "Context tokens"}},
         {"source"}},
        {"list_models",
         "The models in the database: canitrun models --json",
         {{"family", "Only this family"}, {"vendor", "Only this vendor"}},
         {}},
        {"list_gpus",
         "The GPUs in the database: canitrun gpu-list --json",
         {{"vendor", "nvidia, amd, intel, apple"}, {"min_vram", "At least this many GB"}},
         {}},
    };
    return list;
}

json tool_list() {
    json out = json::array();
    for (const Tool& t : tools()) {
        json properties = json::object();
        for (const auto& [name, description] : t.arguments) {
            properties[name] = string_property(description);
        }
        out.push_back({{"name", t.name},
                       {"description", t.description},
                       {"inputSchema",
                        {{"type", "object"},
                         {"properties", properties},
                         {"required", t.required},
                         {"additionalProperties", false}}}});
    }
    return out;
}

json tool_result(std::string text, bool is_error) {
    return {{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})},
            {"isError", is_error}};
}

// The route a tool stands for, with its arguments as the query.
std::expected<Target, Refusal> tool_target(const std::string& name, const json& arguments) {
    Target target;
    std::string subject;  // the model or source, which is part of the path
    for (const auto& [key, value] : arguments.items()) {
        if (!value.is_string() && !value.is_number()) {
            return std::unexpected(Refusal{400, "argument '" + key + "' must be a string"});
        }
        Param p{key, value.is_string() ? value.get<std::string>() : value.dump()};
        if (auto ok = check_param(p); !ok) return std::unexpected(ok.error());
        if (key == "model" || key == "source") {
            subject = p.value;
        } else {
            target.params.push_back(std::move(p));
        }
    }
    const struct {
        const char* tool;
        const char* path;
    } routes[] = {{"can_it_run", "/api/v1/models/"},     {"read_model_file", "/api/v1/models/"},
                  {"gpus_for_model", "/api/v1/gpus/"},   {"what_fits", "/api/v1/fit"},
                  {"compare_models", "/api/v1/compare"}, {"list_models", "/api/v1/models"},
                  {"list_gpus", "/api/v1/gpu-list"}};
    for (const auto& r : routes) {
        if (name == r.tool) {
            target.path = std::string(r.path) + subject;
            return target;
        }
    }
    return std::unexpected(Refusal{404, "no tool named '" + name + "'"});
}

// read_model_file: a model file or a remote name, as `canitrun SOURCE --json` reads it. The
// MCP client runs on the user's machine, as the CLI does, so a local file is theirs to read;
// the network only with --allow-remote.
json read_model_file(const Target& target, const ApiPolicy& policy) {
    const std::string source = target.path.substr(std::string_view("/api/v1/models/").size());
    if (source.empty() || source.front() == '-') return tool_result("name a file or a model", true);
    if (!policy.allow_remote && !policy.db->find_model(source) &&
        classify_model_argument(*policy.db, source) == ModelArgumentKind::remote) {
        return tool_result("remote models need 'canitrun mcp --allow-remote'", true);
    }
    std::vector<std::string> argv = {source};
    for (const Param& p : target.params) {
        if (p.key != "gpu" && p.key != "ctx") return tool_result("no argument " + p.key, true);
        argv.push_back("--" + p.key + "=" + p.value);
    }
    argv.emplace_back("--json");
    const cli::Asked asked = cli::ask(argv);
    if (asked.code <= 1) return tool_result(asked.out, false);
    const HttpAnswer a = failed_answer(asked.code, asked.err);
    return tool_result(json::parse(a.body)["error"]["message"].get<std::string>(), true);
}

json call_tool(const json& params, const ApiPolicy& policy) {
    const std::string name = params.value("name", "");
    const json arguments = params.value("arguments", json::object());
    if (!arguments.is_object()) return tool_result("arguments must be an object", true);
    auto target = tool_target(name, arguments);
    if (!target) return tool_result(target.error().message, true);
    if (name == "read_model_file") return read_model_file(*target, policy);
    HttpAnswer a = api_answer(*target, policy);
    if (a.status == 200) return tool_result(std::move(a.body), false);
    return tool_result(json::parse(a.body)["error"]["message"].get<std::string>(), true);
}

json rpc_error(const json& id, int code, const std::string& message) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json answer_method(const std::string& method, const json& params, const ApiPolicy& policy) {
    if (method == "initialize") {
        return {{"protocolVersion", kProtocolVersion},
                {"capabilities", {{"tools", {{"listChanged", false}}}}},
                {"serverInfo", {{"name", "canitrun"}, {"version", CANITRUN_VERSION}}}};
    }
    if (method == "ping") return json::object();
    if (method == "tools/list") return {{"tools", tool_list()}};
    return call_tool(params, policy);
}

}  // namespace

std::optional<std::string> mcp_reply(const std::string& line, const ApiPolicy& policy) {
    JsonBounds bounds;
    bounds.max_bytes = kMaxMcpMessageBytes;
    if (!check_json_bounds(line, "an MCP message", bounds)) {
        return rpc_error(nullptr, -32700, "message too large or too deep").dump();
    }
    const json message = json::parse(line, nullptr, false);
    if (message.is_discarded()) return rpc_error(nullptr, -32700, "parse error").dump();
    if (!message.is_object() || message.value("jsonrpc", "") != "2.0" ||
        !message.contains("method") || !message["method"].is_string()) {
        return rpc_error(message.is_object() ? message.value("id", json()) : json(), -32600,
                         "invalid request")
            .dump();
    }
    const std::string method = message["method"];
    if (!message.contains("id")) return std::nullopt;  // a notification: no reply
    const json& id = message["id"];
    static const char* const known[] = {"initialize", "ping", "tools/list", "tools/call"};
    if (std::find(std::begin(known), std::end(known), method) == std::end(known)) {
        return rpc_error(id, -32601, "method not found: " + method).dump();
    }
    const json params = message.value("params", json::object());
    if (!params.is_object()) return rpc_error(id, -32602, "params must be an object").dump();
    if (method == "tools/call") {
        const auto& list = tools();
        const std::string name =
            params.contains("name") && params["name"].is_string() ? params["name"] : "";
        if (std::none_of(list.begin(), list.end(), [&](const Tool& t) { return name == t.name; })) {
            return rpc_error(id, -32602, "unknown tool: '" + name + "'").dump();
        }
    }
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", answer_method(method, params, policy)}}
        .dump();
}

int run_mcp(std::istream& in, std::ostream& out, const ApiPolicy& policy) {
    // A line is read up to the message bound and no further: the rest of a longer one is
    // skipped and answered with a parse error, so no input holds more than 1 MiB here.
    std::string line;
    bool too_long = false;
    for (int c = in.get(); c != std::char_traits<char>::eof(); c = in.get()) {
        if (c != '\n') {
            if (line.size() < kMaxMcpMessageBytes) {
                line += static_cast<char>(c);
            } else {
                too_long = true;
            }
            continue;
        }
        std::optional<std::string> reply;
        if (too_long) {
            reply = rpc_error(nullptr, -32700, "a message longer than 1 MiB").dump();
        } else if (!line.empty() && line != "\r") {
            reply = mcp_reply(line, policy);
        }
        if (reply) out << *reply << "\n" << std::flush;
        line.clear();
        too_long = false;
    }
    return 0;
}

}  // namespace canitrun::serve
