#include "remote_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "app.hpp"
#include "canitrun/bounded_file.hpp"
#include "canitrun/curl_client.hpp"
#include "canitrun/fit.hpp"
#include "canitrun/format.hpp"
#include "canitrun/http_cache.hpp"
#include "json_output.hpp"
#include "table.hpp"
#include "text_report.hpp"

#ifndef CANITRUN_VERSION
#define CANITRUN_VERSION "0.0.0"
#endif

namespace canitrun::cli {
namespace {

using nlohmann::json;

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

// HF_TOKEN, else the token file huggingface-cli writes ($HF_HOME/token).
std::string hf_token(const std::string& home) {
    std::string token = env_or("HF_TOKEN", "");
    if (!token.empty()) return token;
    const std::string hf_home = env_or("HF_HOME", home.empty() ? "" : home + "/.cache/huggingface");
    if (hf_home.empty()) return "";
    auto text = read_bounded_file(hf_home + "/token", 4096, "Hugging Face token file");
    return text ? trimmed(*text) : std::string();
}

std::string no_trailing_slash(std::string s) {
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

Quant listing_quant() {
    Quant q;
    q.id = "GGUF file";
    q.format = "gguf";
    return q;
}

// One row per GGUF model of the repo: its files, size, and (by the file's weights under the
// page's rule, as the file report plans it) the VRAM at the context and the smallest GPU.
Result<CommandOutput> list_repo(const Database& db, const RemoteSpec& spec, HttpClient& client,
                                const RemoteSetup& setup, const ReportOptions& ro, bool as_json,
                                const std::vector<RepoFile>& files) {
    const std::vector<RepoGguf> models = gguf_models(files);
    const std::vector<RepoGguf>* listing = &models;
    // The architecture from one model's header: the recommended quantization's, else the first.
    RemoteSpec one = spec;
    one.quant = pick_quant(*listing, "Q4_K_M") != nullptr ? "Q4_K_M" : std::string();
    for (const auto& m : *listing) {
        if (one.quant.empty() && !m.projector && !m.quant.empty()) one.quant = m.quant;
    }
    auto remote = fetch_remote_gguf(client, one, setup.env, &files);
    if (!remote) return std::unexpected(remote.error());
    auto g = gguf_to_model(remote->parts);
    if (!g) return std::unexpected(g.error());
    const Quant quant = listing_quant();
    json rows = json::array();
    const bool planned = ro.hardware.has_value();
    std::vector<std::string> header = {"Quant", "Files", "Size", "VRAM", "Smallest GPU"};
    if (planned)
        header.push_back("On " + ro.hardware->gpus.front().name +
                         (ro.hardware->gpus.size() > 1 ? " + ..." : ""));
    Table t(header, {false, true, true, true, false, false});
    std::string projectors;
    json projector_files = json::array();
    for (const auto& m : *listing) {
        if (m.projector) {
            projectors += (projectors.empty() ? "" : ", ") + m.files.front();
            projector_files.push_back(m.files.front());
            continue;
        }
        EstimateOptions eo = ro.estimate;
        eo.weights_bytes_override = m.bytes;
        auto e = estimate(llama_cache_model(g->model, ro.estimate.context), quant, eo);
        if (!e) return std::unexpected(e.error());
        const Gpu* smallest = smallest_gpu(db.gpus, quant, e->total());
        // On the asked hardware: this file's weights in the architecture read above.
        std::string plan;
        if (planned) {
            GgufModel file = *g;
            file.weights_bytes = m.bytes;
            auto h = file_on_hardware("hf:" + spec.repo + ":" + m.quant, file, ro);
            if (!h) return std::unexpected(h.error());
            plan = plan_kind_name(h->selected.plan.kind);
        }
        std::vector<std::string> row = {m.quant.empty() ? m.files.front() : m.quant,
                                        std::to_string(m.files.size()), format_gb(m.bytes),
                                        format_gb(e->total()),
                                        smallest ? display_name(*smallest) : std::string("none")};
        if (planned) row.push_back(plan);
        t.add_row(row);
        rows.push_back({{"quant", m.quant},
                        {"files", m.files},
                        {"bytes", m.bytes},
                        {"total_bytes", e->total()},
                        {"smallest_gpu", smallest ? json(smallest->id) : json(nullptr)},
                        {"plan", planned ? json(plan) : json(nullptr)}});
    }
    std::ostringstream text;
    if (as_json) {
        text << json{{"repo", spec.repo},
                     {"revision", spec.revision},
                     {"architecture", g->architecture},
                     {"context", ro.estimate.context},
                     {"units", "bytes"},
                     {"models", rows},
                     {"projectors", projector_files}}
                    .dump(2)
             << "\n";
    } else {
        text << "hf:" << spec.repo << " — " << g->architecture << ", GGUF files at "
             << format_context(ro.estimate.context)
             << " context (the file's own weights + KV + 12 %; GB = 10^9 bytes)\n";
        t.write(text);
        if (!projectors.empty()) {
            text << "  Vision projector: " << projectors << " (llama-server --mmproj)\n";
        }
        text << "  One of them in full: canitrun hf:" << spec.repo << ":QUANT\n";
    }
    return CommandOutput{text.str(), 0};
}

// A safetensors repo: its config.json as a model, the page at every quantization, as for a
// local folder.
Result<CommandOutput> config_page(const Database& db, const RemoteSpec& spec, HttpClient& client,
                                  const RemoteSetup& setup, ReportOptions ro, bool as_json,
                                  const ChartChoice& chart, const std::vector<RepoFile>& files) {
    auto config = fetch_remote_config(client, spec, setup.env, files);
    if (!config) return std::unexpected(config.error());
    if (!spec.quant.empty()) {
        auto q = db.find_quant(spec.quant);
        if (!q) return std::unexpected(q.error());
        ro.quant = *q;
    }
    auto report = build_model_report(db, config->model, ro);
    if (!report) return std::unexpected(report.error());
    return config_report_output(*report, "hf:" + spec.repo, config->params_source, as_json, chart);
}

bool has_file(const std::vector<RepoFile>& files, const std::string& path) {
    for (const auto& f : files) {
        if (f.path == path) return true;
    }
    return false;
}

}  // namespace

RemoteSetup remote_setup(const RemoteFlags& flags) {
    RemoteSetup s;
    const std::string home = env_or("HOME", "");
    s.env.hf_endpoint = no_trailing_slash(env_or("HF_ENDPOINT", "https://huggingface.co"));
    s.env.hf_token = hf_token(home);
    s.env.ollama_registry =
        no_trailing_slash(env_or("CANITRUN_OLLAMA_REGISTRY", "https://registry.ollama.ai"));
    s.env.ollama_models = env_or("OLLAMA_MODELS", home.empty() ? "" : home + "/.ollama/models");
    s.env.retry.sleep = [](std::uint64_t ms) {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    };
    const std::string hub_offline = env_or("HF_HUB_OFFLINE", "");
    s.offline = flags.offline || (!hub_offline.empty() && hub_offline != "0");
    s.cache_dir = default_cache_dir(std::getenv("XDG_CACHE_HOME"), home.c_str());
    s.timeout_s = flags.timeout_s;
    return s;
}

RemoteClient::RemoteClient(const RemoteSetup& setup) {
    if (!setup.offline) {
        CurlOptions o;
        o.timeout_s = setup.timeout_s;
        o.user_agent = std::string("canitrun/") + CANITRUN_VERSION;
        network_ = make_curl_client(o);
    }
    CacheOptions c;
    c.dir = setup.cache_dir;
    c.offline = setup.offline;
    cache_ = std::make_unique<CachingClient>(network_.get(), c);
}

Result<std::vector<GgufFile>> remote_gguf_parts(const std::string& arg, const RemoteFlags& flags,
                                                std::string* label) {
    auto spec = parse_remote_spec(arg);
    if (!spec) return std::unexpected(spec.error());
    const RemoteSetup setup = remote_setup(flags);
    RemoteClient client(setup);
    auto remote = fetch_remote_gguf(client.client(), *spec, setup.env);
    if (!remote) return std::unexpected(remote.error());
    if (label != nullptr) *label = remote->label;
    return std::move(remote->parts);
}

Result<GgufModel> remote_gguf_model(const std::string& arg, const RemoteFlags& flags,
                                    std::string* label) {
    auto parts = remote_gguf_parts(arg, flags, label);
    if (!parts) return std::unexpected(parts.error());
    return gguf_to_model(*parts);
}

Result<CommandOutput> run_remote(const Database& db, const std::string& arg,
                                 const ReportOptions& options, bool json, const ChartChoice& chart,
                                 const RemoteFlags& flags) {
    auto spec = parse_remote_spec(arg);
    if (!spec) return std::unexpected(spec.error());
    const RemoteSetup setup = remote_setup(flags);
    RemoteClient client(setup);
    // A repo's listing is read once: it says GGUF or safetensors, and which file a tag names.
    Result<std::vector<RepoFile>> files = std::vector<RepoFile>{};
    const bool repo = spec->kind == RemoteKind::hf_repo && spec->file.empty();
    if (repo) {
        files = fetch_repo_files(client.client(), *spec, setup.env);
        if (!files) return std::unexpected(files.error());
        bool gguf = false;
        for (const auto& m : gguf_models(*files)) gguf = gguf || !m.projector;
        if (!gguf && has_file(*files, "config.json")) {
            return config_page(db, *spec, client.client(), setup, options, json, chart, *files);
        }
        if (!gguf) {
            return fail(ErrorKind::bad_input,
                        "hf:" + spec->repo + " holds neither GGUF files nor a config.json",
                        "canitrun reads GGUF repos and safetensors repos with a config.json");
        }
        if (spec->quant.empty()) {
            return list_repo(db, *spec, client.client(), setup, options, json, *files);
        }
    }
    auto remote = fetch_remote_gguf(client.client(), *spec, setup.env, repo ? &*files : nullptr);
    if (!remote) return std::unexpected(remote.error());
    auto g = gguf_to_model(remote->parts);
    if (!g) return std::unexpected(g.error());
    auto out = report_gguf_model(remote->label, *g, remote->projector_bytes, options, json, chart);
    if (out && !json && !remote->projector.empty() && remote->projector_bytes == 0) {
        out->text += "  Vision projector in the repo: " + remote->projector + " (--mmproj)\n";
    }
    return out;
}

}  // namespace canitrun::cli
