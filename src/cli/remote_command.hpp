#pragma once
// `canitrun hf:ORG/REPO[:QUANT]`, `canitrun https://.../model.gguf`, `canitrun ollama:NAME[:TAG]`:
// a model answered from its GGUF header, read by HTTP range requests (never the weights), or
// for a repo without a quantization, its GGUF files listed with each one's size and plan.
// The HTTP client, the cache and the environment's conventions are set up here.

#include <memory>
#include <string>

#include "canitrun/database.hpp"
#include "canitrun/http.hpp"
#include "canitrun/http_cache.hpp"
#include "canitrun/remote_fetch.hpp"
#include "canitrun/report.hpp"
#include "file_command.hpp"
#include "remote_flags.hpp"
#include "style.hpp"

namespace canitrun::cli {

// The environment's conventions (HF_ENDPOINT, HF_TOKEN or HF_HOME/token, HF_HUB_OFFLINE,
// OLLAMA_MODELS, CANITRUN_OLLAMA_REGISTRY, XDG_CACHE_HOME) read once.
struct RemoteSetup {
    RemoteEnv env;
    std::string cache_dir;
    bool offline = false;
    std::uint64_t timeout_s = 30;
    TimeLeft time_left;   // the deadline: --timeout seconds from the first remote question
    std::string ca_file;  // CURL_CA_BUNDLE
};
RemoteSetup remote_setup(const Database& db, const RemoteFlags& flags);

// The client a run uses: libcurl behind the on-disk cache (offline: the cache alone).
class RemoteClient {
  public:
    explicit RemoteClient(const RemoteSetup& setup);
    HttpClient& client() { return *cache_; }
    // The answers were used: keep them in the cache (else what was read is removed).
    void keep() { cache_->keep(); }

  private:
    std::unique_ptr<HttpClient> network_;
    std::unique_ptr<CachingClient> cache_;
};

// The page for a remote name: a GGUF model, a repo's listing, or a safetensors repo's config.
Result<CommandResult> run_remote(const Database& db, const std::string& arg,
                                 const ReportOptions& options, bool chart_csv,
                                 const RemoteFlags& flags);

// The headers of the GGUF model a remote name stands for (hf: with a quantization or a file,
// a URL, ollama:), for the engine views; `label` gets its name.
Result<std::vector<GgufFile>> remote_gguf_parts(const Database& db, const std::string& arg,
                                                const RemoteFlags& flags, std::string* label);

// The model a remote name stands for, read for other commands (gpus, compare).
Result<GgufModel> remote_gguf_model(const Database& db, const std::string& arg,
                                    const RemoteFlags& flags, std::string* label = nullptr);

}  // namespace canitrun::cli
