#include "remote_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <utility>

#include "app.hpp"
#include "canitrun/bounded_file.hpp"
#include "canitrun/file_report.hpp"
#include "canitrun/fit.hpp"
#include "canitrun/http_cache.hpp"
#include "canitrun/strings.hpp"
#include "csv_output.hpp"
#include "curl_client.hpp"
#include "file_command.hpp"
#include "format.hpp"
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

// HF_TOKEN, else the token file huggingface-cli writes ($HF_HOME/token).
std::string hf_token(const std::string& home) {
    std::string token = env_or("HF_TOKEN", "");
    if (!token.empty()) return token;
    const std::string hf_home = env_or("HF_HOME", home.empty() ? "" : home + "/.cache/huggingface");
    if (hf_home.empty()) return "";
    auto text = read_bounded_file(hf_home + "/token", 4096, "Hugging Face token file");
    return text ? trim(*text) : std::string();
}

std::string no_trailing_slash(std::string s) {
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

// A repo's listing, held for its views.
struct RepoView {
    std::string repo;
    std::string revision;
    std::string architecture;
    ReportOptions options;
    std::vector<RepoGguf> models;  // the rows point into these
    std::vector<RepoListingRow> rows;
};

// How a row's tensors were known (RepoTensors), as the listing names it.
const char* repo_tensors_text(RepoTensors t) {
    switch (t) {
        case RepoTensors::read:
            return "read";
        case RepoTensors::typed:
            return "typed";
        case RepoTensors::quick:
            break;
    }
    return "none";
}

std::vector<std::string> projectors(const RepoView& v) {
    std::vector<std::string> files;
    for (const auto& m : v.models) {
        if (m.projector) files.push_back(m.files.front());
    }
    return files;
}

json repo_json(const RepoView& v) {
    json rows = json::array();
    for (const auto& row : v.rows) {
        const RepoGguf& m = *row.files;
        rows.push_back(
            {{"quant", m.quant},
             {"files", m.files},
             {"bytes", m.bytes},
             {"total_bytes", row.total},
             {"gpu_bytes", row.gpu_bytes},
             {"rule", rule_name(row.rule)},
             {"tensors", repo_tensors_text(row.tensors)},
             {"smallest_gpu", row.smallest_gpu ? json(row.smallest_gpu->id) : json(nullptr)},
             {"plan", row.plan ? json(plan_kind_name(*row.plan)) : json(nullptr)}});
    }
    return {{"repo", v.repo},
            {"revision", v.revision},
            {"architecture", v.architecture},
            {"context", v.options.estimate.context},
            {"units", "bytes"},
            {"models", rows},
            {"projectors", projectors(v)}};
}

void write_repo_csv(std::ostream& out, const RepoView& v) {
    CsvWriter csv(out, {"quant", "files", "bytes", "total_bytes", "gpu_bytes", "rule",
                        "smallest_gpu", "plan"});
    for (const auto& row : v.rows) {
        const RepoGguf& m = *row.files;
        csv.row({m.quant, std::to_string(m.files.size()), std::to_string(m.bytes),
                 std::to_string(row.total), std::to_string(row.gpu_bytes), rule_name(row.rule),
                 row.smallest_gpu ? row.smallest_gpu->id : "",
                 row.plan ? plan_kind_name(*row.plan) : ""});
    }
}

void write_repo_text(std::ostream& out, const RepoView& v) {
    const bool planned = v.options.hardware.has_value();
    std::vector<std::string> header = {"Quant", "Files", "Size", "VRAM", "Tensors", "Smallest GPU"};
    if (planned) {
        const Hardware& h = *v.options.hardware;
        header.push_back("On " + h.gpus.front().name + (h.gpus.size() > 1 ? " + ..." : ""));
    }
    Table t(header, {false, true, true, true, false, false, false});
    for (const auto& row : v.rows) {
        const RepoGguf& m = *row.files;
        std::vector<std::string> cells = {
            m.quant.empty() ? m.files.front() : m.quant,
            std::to_string(m.files.size()),
            format_gb(m.bytes),
            format_gb(row.gpu_bytes),
            row.rule == Rule::quick ? "+ 12 %" : repo_tensors_text(row.tensors),
            row.smallest_gpu ? display_name(*row.smallest_gpu) : std::string("none")};
        if (planned) cells.emplace_back(plan_kind_name(*row.plan));
        t.add_row(cells);
    }
    out << "hf:" << v.repo << " — " << v.architecture << ", GGUF files at "
        << format_context(v.options.estimate.context) << " context (GB = 10^9 bytes)\n";
    t.write(out);
    std::string names;
    for (const auto& p : projectors(v)) names += (names.empty() ? "" : ", ") + p;
    if (!names.empty()) out << "  Vision projector: " << names << " (llama-server --mmproj)\n";
    out << "  VRAM: on the GPU by llama.cpp's allocation of each file's tensors: read (the header "
           "read, the file's own) or typed (the header's, typed as llama-quantize types them "
           "at that quantization); + 12 %: the file's bytes + KV + 12 % (--engine quick, or "
           "a quantization llama-quantize does not write).\n";
    out << "  One of them in full: canitrun hf:" << v.repo << ":QUANT\n";
}

// One row per GGUF model of the repo: its files, size, and (by the file's weights under the
// page's rule, as the file page plans it: repo_listing) the VRAM at the context and the
// smallest GPU.
Result<CommandResult> list_repo(const Database& db, const RemoteSpec& spec, HttpClient& client,
                                const RemoteSetup& setup, const ReportOptions& ro,
                                const std::vector<RepoFile>& files) {
    auto v = std::make_shared<RepoView>();
    v->repo = spec.repo;
    v->revision = spec.revision;
    v->options = ro;
    v->models = gguf_models(files);
    // The architecture from one model's header (listing_header_quant).
    RemoteSpec one = spec;
    one.quant = listing_header_quant(v->models, db.recommended_quant()->id);
    CANITRUN_TRY_ASSIGN(const RemoteGguf remote, fetch_remote_gguf(client, one, setup.env, &files));
    CANITRUN_TRY_ASSIGN(const GgufModel g, gguf_to_model(remote.parts));
    v->architecture = g.architecture;
    CANITRUN_TRY_ASSIGN(v->rows,
                        repo_listing(db, g, v->models, ro, "hf:" + spec.repo + ":", one.quant));
    CommandResult r;
    r.what = "a repo's listing";
    r.views = {[v] { return repo_json(*v); }, [v](std::ostream& out) { write_repo_csv(out, *v); },
               [v] {
                   std::vector<std::string> names;
                   for (const auto& row : v->rows) {
                       const RepoGguf& m = *row.files;
                       names.push_back(m.quant.empty() ? m.files.front() : m.quant);
                   }
                   return names;
               }};
    r.text = [v](std::ostream& out) { write_repo_text(out, *v); };
    return r;
}

// A safetensors repo: its config.json as a model, the page at every quantization, as for a
// local folder.
Result<CommandResult> remote_config_page(const Database& db, const RemoteSpec& spec,
                                         HttpClient& client, const RemoteSetup& setup,
                                         ReportOptions ro, bool chart_csv,
                                         const std::vector<RepoFile>& files) {
    CANITRUN_TRY_ASSIGN(const auto config, fetch_remote_config(client, spec, setup.env, files));
    CANITRUN_TRY_ASSIGN(const Quant* tagged, tagged_quant(db, spec));
    if (tagged != nullptr) ro.quant = tagged;
    CANITRUN_TRY_ASSIGN(std::shared_ptr<const FileReport> file,
                        config_file_report(db, config.model, ro));
    return config_page(std::shared_ptr<const ModelReport>(file, &file->report), "hf:" + spec.repo,
                       config.params_source, chart_csv);
}

bool has_file(const std::vector<RepoFile>& files, const std::string& path) {
    for (const auto& f : files) {
        if (f.path == path) return true;
    }
    return false;
}

}  // namespace

RemoteSetup remote_setup(const Database& db, const RemoteFlags& flags) {
    RemoteSetup s;
    const std::string home = env_or("HOME", "");
    s.env.hf_endpoint = no_trailing_slash(env_or("HF_ENDPOINT", "https://huggingface.co"));
    s.env.hf_token = hf_token(home);
    s.env.ollama_registry =
        no_trailing_slash(env_or("CANITRUN_OLLAMA_REGISTRY", "https://registry.ollama.ai"));
    s.env.default_quant = db.recommended_quant()->id;
    s.env.ollama_models = env_or("OLLAMA_MODELS", home.empty() ? "" : home + "/.ollama/models");
    s.env.retry.sleep = [](std::uint64_t ms) {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    };
    // One deadline for the whole command, whatever number of models it reads (compare reads
    // several): --timeout seconds from the command's first remote question.
    using Clock = std::chrono::steady_clock;
    if (!flags.started) flags.started = Clock::now();
    const Clock::time_point deadline = *flags.started + std::chrono::seconds(flags.timeout_s);
    s.time_left = [deadline]() -> std::uint64_t {
        const auto now = Clock::now();
        if (now >= deadline) return 0;
        return static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1);
    };
    s.env.retry.time_left = s.time_left;
    s.ca_file = env_or("CURL_CA_BUNDLE", "");
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
        o.time_left = setup.time_left;
        o.ca_file = setup.ca_file;
        o.user_agent = std::string("canitrun/") + CANITRUN_VERSION;
        network_ = make_curl_client(o);
    }
    CacheOptions c;
    c.dir = setup.cache_dir;
    c.offline = setup.offline;
    cache_ = std::make_unique<CachingClient>(network_.get(), c);
}

namespace {

// Every remote question's steps around its answer: the spec, the setup, one client, and the
// cache kept only when the answer came (a refused header or listing leaves nothing in it).
template <class Answer>
auto with_remote(const Database& db, const std::string& arg, const RemoteFlags& flags,
                 Answer answer)
    -> decltype(answer(std::declval<const RemoteSpec&>(), std::declval<RemoteClient&>(),
                       std::declval<const RemoteSetup&>())) {
    CANITRUN_TRY_ASSIGN(const RemoteSpec spec, parse_remote_spec(arg));
    const RemoteSetup setup = remote_setup(db, flags);
    RemoteClient client(setup);
    auto result = answer(spec, client, setup);
    if (result) client.keep();
    return result;
}

// A fetched GGUF as a model, with how it loads: the page's and --gpu's one reading of it.
Result<GgufModel> model_of(const RemoteGguf& remote) {
    CANITRUN_TRY_ASSIGN(GgufModel g, gguf_to_model(remote.parts));
    g.load = remote.load;
    return g;
}

Result<RemoteGguf> remote_gguf(const Database& db, const std::string& arg, const RemoteFlags& flags,
                               std::string* label) {
    CANITRUN_TRY_ASSIGN(
        auto remote,
        with_remote(db, arg, flags,
                    [](const RemoteSpec& spec, RemoteClient& client, const RemoteSetup& setup) {
                        return fetch_remote_gguf(client.client(), spec, setup.env);
                    }));
    if (label != nullptr) *label = remote.label;
    return remote;
}

}  // namespace

Result<std::vector<GgufFile>> remote_gguf_parts(const Database& db, const std::string& arg,
                                                const RemoteFlags& flags, std::string* label) {
    CANITRUN_TRY_ASSIGN(auto remote, remote_gguf(db, arg, flags, label));
    return std::move(remote.parts);
}

Result<GgufModel> remote_gguf_model(const Database& db, const std::string& arg,
                                    const RemoteFlags& flags, std::string* label) {
    CANITRUN_TRY_ASSIGN(const auto remote, remote_gguf(db, arg, flags, label));
    return model_of(remote);
}

namespace {

Result<CommandResult> answer_remote(const Database& db, const RemoteSpec& spec,
                                    RemoteClient& client, const RemoteSetup& setup,
                                    const ReportOptions& options, bool chart_csv) {
    // A repo's listing is read once: it says GGUF or safetensors, and which file a tag names.
    std::vector<RepoFile> files;
    const bool repo = spec.kind == RemoteKind::hf_repo && spec.file.empty();
    if (repo) {
        CANITRUN_TRY_ASSIGN(files, fetch_repo_files(client.client(), spec, setup.env));
        bool gguf = false;
        for (const auto& m : gguf_models(files)) gguf = gguf || !m.projector;
        if (!gguf && has_file(files, "config.json")) {
            return remote_config_page(db, spec, client.client(), setup, options, chart_csv, files);
        }
        if (!gguf) {
            return fail(ErrorKind::bad_input,
                        "hf:" + spec.repo + " holds neither GGUF files nor a config.json",
                        "canitrun reads GGUF repos and safetensors repos with a config.json");
        }
        if (spec.quant.empty()) return list_repo(db, spec, client.client(), setup, options, files);
    }
    CANITRUN_TRY_ASSIGN(const RemoteGguf remote, fetch_remote_gguf(client.client(), spec, setup.env,
                                                                   repo ? &files : nullptr));
    CANITRUN_TRY_ASSIGN(const GgufModel g, model_of(remote));
    const std::string note =
        !remote.projector.empty() && remote.projector_bytes == 0
            ? "  Vision projector in the repo: " + remote.projector + " (--mmproj)\n"
            : std::string();
    return gguf_file_page(db, remote.label, g, remote.projector_bytes, options, chart_csv, note);
}

}  // namespace

Result<CommandResult> run_remote(const Database& db, const std::string& arg,
                                 const ReportOptions& options, bool chart_csv,
                                 const RemoteFlags& flags) {
    return with_remote(db, arg, flags,
                       [&](const RemoteSpec& spec, RemoteClient& client, const RemoteSetup& setup) {
                           return answer_remote(db, spec, client, setup, options, chart_csv);
                       });
}

}  // namespace canitrun::cli
