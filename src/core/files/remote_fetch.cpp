#include "canitrun/remote_fetch.hpp"

#include <filesystem>

#include "canitrun/bounded_file.hpp"
#include "canitrun/gguf_files.hpp"
#include "canitrun/hf_config.hpp"
#include "canitrun/range_source.hpp"

namespace canitrun {
namespace {

namespace fs = std::filesystem;

// HF_TOKEN, for the endpoint's own origin: never for a host a redirect or a listing names.
std::optional<Credential> auth(const RemoteEnv& env, const RemoteSpec& spec) {
    if (spec.kind != RemoteKind::hf_repo || env.hf_token.empty()) return std::nullopt;
    return Credential{url_origin(env.hf_endpoint), "Authorization", "Bearer " + env.hf_token};
}

// What to do about a 401 or 403 from the Hub. A gated repo lists its files to anyone; only
// the downloads are refused, so the range reader gives this hint too.
std::string gated_hint(const RemoteSpec& spec, const RemoteEnv& env) {
    const std::string page = hf_repo_page(env.hf_endpoint, spec.repo);
    return env.hf_token.empty()
               ? spec.repo +
                     " is gated or private: set HF_TOKEN to a Hugging Face token, and "
                     "accept the licence at " +
                     page
               : spec.repo +
                     " is gated or private, and the token in HF_TOKEN has no access: "
                     "accept the licence at " +
                     page;
}

Error hf_error(const HttpResponse& r, const RemoteSpec& spec, const RemoteEnv& env,
               const std::string& what) {
    const std::string page = hf_repo_page(env.hf_endpoint, spec.repo);
    if (r.status == 401 || r.status == 403) {
        return http_status_error(r, spec.repo + " is gated or private", gated_hint(spec, env));
    }
    if (r.status == 404) {
        return http_status_error(r, what + " not found",
                                 "check the name; the repo's page is " + page);
    }
    return http_status_error(r, what, "try again later");
}

// What one model's headers may cost, all the parts of a split model together: the bytes
// fetched (a part's cap alone let 50 parts fetch 50 times as much) and the bytes held.
struct HeaderBudget {
    std::uint64_t fetched = RangeOptions{}.max_total;
    std::uint64_t held = kGgufMaxHeld;
};

Result<GgufFile> read_header(HttpClient& client, const std::string& url,
                             const std::optional<Credential>& credential, const RemoteEnv& env,
                             Bytes& size, HeaderBudget& budget,
                             const std::string& denied_hint = "") {
    RangeOptions o;
    o.credential = credential;
    o.denied_hint = denied_hint;
    o.retry = env.retry;
    o.max_total = budget.fetched;
    CANITRUN_TRY_ASSIGN(auto source, HttpRangeSource::open(client, url, o));
    size += source->size();
    CANITRUN_TRY_ASSIGN(auto file, read_gguf(*source, budget.held));
    budget.held -= file.held_bytes;
    budget.fetched -= std::min(budget.fetched, source->fetched());
    return file;
}

std::string quant_list(const std::vector<RepoGguf>& models) {
    std::string out;
    for (const auto& m : models) {
        if (m.projector || m.quant.empty()) continue;
        out += (out.empty() ? "" : ", ") + m.quant;
    }
    return out.empty() ? "none" : out;
}

Result<RemoteGguf> fetch_hf(HttpClient& client, const RemoteSpec& spec, const RemoteEnv& env,
                            const std::vector<RepoFile>* known) {
    RemoteGguf out;
    std::vector<std::string> files;
    if (!spec.file.empty()) {
        files.push_back(spec.file);
        out.label = spec.text;
        // -hf with --hf-file fetches the repo's projector too (common/download.cpp at 0ad4a86),
        // which a file named alone is planned without; the repo is not listed to know.
        out.load = {"-hf", spec.repo, "--hf-file", spec.file, "--no-mmproj"};
    } else {
        CANITRUN_TRY_ASSIGN(auto listing, known != nullptr
                                              ? Result<std::vector<RepoGguf>>(gguf_models(*known))
                                              : fetch_repo_listing(client, spec, env));
        const std::string quant = spec.quant.empty() ? env.default_quant : spec.quant;
        if (quant.empty()) {
            return fail(ErrorKind::bad_input, "hf:" + spec.repo + " names no quantization",
                        "add one, as in hf:" + spec.repo + ":Q4_K_M");
        }
        const RepoGguf* pick = pick_quant(listing, quant);
        if (pick == nullptr) {
            return fail(ErrorKind::bad_input, "hf:" + spec.repo + " has no " + quant + " file",
                        "its GGUF quantizations: " + quant_list(listing));
        }
        files = pick->files;
        out.label = "hf:" + spec.repo + ":" + pick->quant;
        for (const auto& m : listing) {
            if (m.projector && out.projector.empty()) out.projector = m.files.front();
        }
        // llama.cpp's -hf picks the file by the tag as canitrun did (pick_quant) and also
        // fetches and loads the repo's projector (--mmproj-auto, on by default), which this
        // plan does not count: the line turns it off so it runs the text model planned.
        out.load = {"-hf", spec.repo + ":" + pick->quant};
        if (!out.projector.empty()) out.load.emplace_back("--no-mmproj");
    }
    HeaderBudget budget;
    for (const auto& f : files) {
        const std::string url = hf_file_url(env.hf_endpoint, spec, f);
        CANITRUN_TRY_ASSIGN(auto header,
                            read_header(client, url, auth(env, spec), env, out.file_bytes, budget,
                                        gated_hint(spec, env)));
        out.urls.push_back(url);
        out.parts.push_back(std::move(header));
    }
    return out;
}

// The local store: manifests/registry.ollama.ai/NS/NAME/TAG, blobs/sha256-HEX.
Result<RemoteGguf> fetch_ollama_local(const RemoteSpec& spec, const RemoteEnv& env,
                                      const fs::path& manifest) {
    CANITRUN_TRY_ASSIGN(auto text,
                        read_bounded_file(manifest.string(), kMaxManifestBytes, "Ollama manifest"));
    CANITRUN_TRY_ASSIGN(auto m, parse_ollama_manifest(text));
    std::string digest = m.model()->digest;
    digest[6] = '-';  // "sha256:..." is stored as "sha256-..."
    const std::string blob = (fs::path(env.ollama_models) / "blobs" / digest).string();
    CANITRUN_TRY_ASSIGN(auto source, open_file_source(blob));
    CANITRUN_TRY_ASSIGN(auto header, read_gguf(*source));
    RemoteGguf out;
    out.label = spec.text + " (local Ollama store)";
    out.urls.push_back(blob);
    out.file_bytes = source->size();
    out.parts.push_back(std::move(header));
    out.load = {"-m", blob};
    if (const OllamaLayer* p = m.projector()) {
        out.projector_bytes = p->size;
        out.projector = p->digest;
        std::string projector = p->digest;
        projector[6] = '-';
        out.load.push_back("--mmproj");
        out.load.push_back((fs::path(env.ollama_models) / "blobs" / projector).string());
    }
    return out;
}

Result<RemoteGguf> fetch_ollama(HttpClient& client, const RemoteSpec& spec, const RemoteEnv& env) {
    if (!env.ollama_models.empty()) {
        const fs::path manifest = fs::path(env.ollama_models) / "manifests" / "registry.ollama.ai" /
                                  spec.ns / spec.name / spec.tag;
        std::error_code ec;
        if (fs::is_regular_file(manifest, ec)) return fetch_ollama_local(spec, env, manifest);
    }
    HttpRequest req;
    req.url = ollama_manifest_url(env.ollama_registry, spec);
    req.headers = {{"Accept", "application/vnd.docker.distribution.manifest.v2+json"}};
    req.max_body = kMaxManifestBytes;
    CANITRUN_TRY_ASSIGN(auto r, get_with_retries(client, req, env.retry));
    if (r.status == 404) {
        return std::unexpected(
            http_status_error(r, "ollama:" + spec.name + ":" + spec.tag + " not found",
                              "check the name and tag at https://ollama.com/library/" + spec.name));
    }
    if (r.status != 200) return std::unexpected(http_status_error(r, "the Ollama manifest", ""));
    CANITRUN_TRY_ASSIGN(auto m, parse_ollama_manifest(r.body));
    RemoteGguf out;
    out.label = spec.text;
    const std::string url = ollama_blob_url(env.ollama_registry, spec, m.model()->digest);
    HeaderBudget budget;
    CANITRUN_TRY_ASSIGN(auto header,
                        read_header(client, url, std::nullopt, env, out.file_bytes, budget));
    out.urls.push_back(url);
    out.parts.push_back(std::move(header));
    // llama-server downloads a URL itself (-mu, -mmu): the registry's blobs, read here.
    out.load = {"-mu", url};
    if (const OllamaLayer* p = m.projector()) {
        out.projector_bytes = p->size;
        out.projector = p->digest;
        out.load.push_back("-mmu");
        out.load.push_back(ollama_blob_url(env.ollama_registry, spec, p->digest));
    }
    return out;
}

}  // namespace

Result<std::vector<RepoFile>> fetch_repo_files(HttpClient& client, const RemoteSpec& spec,
                                               const RemoteEnv& env) {
    HttpRequest req;
    req.url = hf_tree_url(env.hf_endpoint, spec);
    req.credential = auth(env, spec);
    req.max_body = kMaxListingBytes;
    CANITRUN_TRY_ASSIGN(auto r, get_with_retries(client, req, env.retry));
    if (r.status != 200) return std::unexpected(hf_error(r, spec, env, "hf:" + spec.repo));
    return parse_hf_files(r.body);
}

Result<RemoteConfig> fetch_remote_config(HttpClient& client, const RemoteSpec& spec,
                                         const RemoteEnv& env, const std::vector<RepoFile>& files) {
    const auto small_file = [&](const std::string& path) -> Result<std::string> {
        HttpRequest req;
        req.url = hf_file_url(env.hf_endpoint, spec, path);
        req.credential = auth(env, spec);
        req.max_body = kMaxConfigFileBytes;
        CANITRUN_TRY_ASSIGN(auto r, get_with_retries(client, req, env.retry));
        if (r.status != 200) return std::unexpected(hf_error(r, spec, env, path));
        return std::move(r.body);
    };
    CANITRUN_TRY_ASSIGN(auto config, small_file("config.json"));
    const std::string name = spec.repo.substr(spec.repo.find('/') + 1);
    CANITRUN_TRY_ASSIGN(auto model, parse_hf_config(config, name));
    RemoteConfig out{std::move(model), "config.json (architecture formula)"};
    std::uint64_t shards = 0;
    for (const auto& f : files) shards += f.path.ends_with(".safetensors") ? 1U : 0U;
    // A request or two per shard: a listing of thousands would take minutes, so past the cap
    // the count is the architecture's, and the page says why.
    if (shards > kMaxShardsRead) {
        out.params_source = "config.json (architecture formula: the repo's " +
                            std::to_string(shards) + " safetensors shards are more than the " +
                            std::to_string(kMaxShardsRead) + " canitrun reads)";
        return out;
    }
    std::uint64_t params = 0;
    bool any = false;
    for (const auto& f : files) {
        if (!f.path.ends_with(".safetensors")) continue;
        RangeOptions o;
        o.first_block = 256 << 10;  // the JSON header of a shard is some tens of KiB
        o.credential = auth(env, spec);
        o.denied_hint = gated_hint(spec, env);
        o.retry = env.retry;
        CANITRUN_TRY_ASSIGN(
            auto source,
            HttpRangeSource::open(client, hf_file_url(env.hf_endpoint, spec, f.path), o));
        CANITRUN_TRY_ASSIGN(auto first8, source->read(0, 8));
        CANITRUN_TRY_ASSIGN(auto len, safetensors_header_length(first8, source->size()));
        CANITRUN_TRY_ASSIGN(auto header, source->read(8, len));
        CANITRUN_TRY_ASSIGN(auto n, params_from_safetensors_header(header));
        params = checked::add(params, n);
        any = true;
    }
    if (any) {
        out.model.params_total = params;
        out.params_source = "safetensors headers";
    }
    return out;
}

Result<std::vector<RepoGguf>> fetch_repo_listing(HttpClient& client, const RemoteSpec& spec,
                                                 const RemoteEnv& env) {
    CANITRUN_TRY_ASSIGN(auto files, fetch_repo_files(client, spec, env));
    auto listing = Result<std::vector<RepoGguf>>(gguf_models(files));
    bool any = false;
    for (const auto& m : *listing) any = any || !m.projector;
    if (!any) {
        return fail(ErrorKind::bad_input, "hf:" + spec.repo + " holds no GGUF file",
                    "canitrun reads GGUF repos; for safetensors, give a local folder with its "
                    "config.json");
    }
    return listing;
}

Result<RemoteGguf> fetch_remote_gguf(HttpClient& client, const RemoteSpec& spec,
                                     const RemoteEnv& env, const std::vector<RepoFile>* files) {
    switch (spec.kind) {
        case RemoteKind::hf_repo:
            return fetch_hf(client, spec, env, files);
        case RemoteKind::ollama:
            return fetch_ollama(client, spec, env);
        case RemoteKind::url: {
            RemoteGguf out;
            out.label = spec.url;
            out.load = {"-mu", spec.url};
            HeaderBudget budget;
            CANITRUN_TRY_ASSIGN(auto header, read_header(client, spec.url, std::nullopt, env,
                                                         out.file_bytes, budget));
            out.urls.push_back(spec.url);
            out.parts.push_back(std::move(header));
            return out;
        }
    }
    return fail(ErrorKind::bad_input, "unknown remote kind", "");
}

}  // namespace canitrun
