#pragma once
// Fetching what a remote name stands for, through an HttpClient: a Hugging Face repo's GGUF
// listing, and the header of a GGUF model (every part of a split one) read by range requests
// from the Hub, any URL, the Ollama registry or the local Ollama store. Never the weights.

#include <cstdint>
#include <string>
#include <vector>

#include "canitrun/gguf.hpp"
#include "canitrun/http.hpp"
#include "canitrun/model.hpp"
#include "canitrun/remote_model.hpp"

namespace canitrun {

// The ecosystem's conventions, read from the environment by the CLI (README "Remote models").
struct RemoteEnv {
    std::string hf_endpoint = "https://huggingface.co";          // HF_ENDPOINT
    std::string hf_token;                                        // HF_TOKEN, or the token file
    std::string ollama_registry = "https://registry.ollama.ai";  // CANITRUN_OLLAMA_REGISTRY
    std::string ollama_models;  // OLLAMA_MODELS (default ~/.ollama/models): the local store
    // The file a GGUF repo named without a tag stands for: the database's recommended
    // quantization (Database::recommended_quant), set by the caller; empty: a tag is needed.
    std::string default_quant;
    RetryPolicy retry;
};

// The GGUF models of a repo (GET /api/models/REPO/tree/REV). Errors name the repo: gated or
// private (HF_TOKEN and the licence page), not found, no GGUF file in it.
Result<std::vector<RepoGguf>> fetch_repo_listing(HttpClient& client, const RemoteSpec& spec,
                                                 const RemoteEnv& env);

// Every file of a repo, as the Hub lists it (the same errors).
Result<std::vector<RepoFile>> fetch_repo_files(HttpClient& client, const RemoteSpec& spec,
                                               const RemoteEnv& env);

// A safetensors repo as a model: its config.json, and its parameter count from the
// safetensors headers (8 bytes and the JSON of each, by range) or the index's total_size.
// The most safetensors shards whose headers are read; past it, the architecture's count.
inline constexpr std::uint64_t kMaxShardsRead = 64;
struct RemoteConfig {
    Model model;
    std::string params_source;
};
Result<RemoteConfig> fetch_remote_config(HttpClient& client, const RemoteSpec& spec,
                                         const RemoteEnv& env, const std::vector<RepoFile>& files);

struct RemoteGguf {
    std::string label;              // what the report calls it ("hf:ORG/REPO:Q4_K_M")
    std::vector<std::string> urls;  // one per part
    std::vector<GgufFile> parts;
    Bytes file_bytes = 0;       // all parts, as the server says
    Bytes projector_bytes = 0;  // an Ollama projector layer's size
    std::string projector;      // a projector the repo offers (hf), or Ollama's layer
    // The llama-server arguments that load this model where it lives, so the printed line runs
    // what was read (#33): -hf REPO:QUANT (with --no-mmproj where the repo's projector, which
    // -hf fetches and loads, is not counted), -hf REPO --hf-file PATH, -mu URL, or the Ollama
    // blob (-m in the local store, -mu from the registry) with its projector (--mmproj, -mmu).
    std::vector<std::string> load;
};

// The header of the model the spec names: hf with a quantization (as `llama-server -hf`
// picks it; Q4_K_M when none is given) or a file, a URL, or an Ollama model (the local store
// first, then the registry).
// `files`: the repo's listing when the caller has it already (hf only), so it is not fetched
// again.
Result<RemoteGguf> fetch_remote_gguf(HttpClient& client, const RemoteSpec& spec,
                                     const RemoteEnv& env,
                                     const std::vector<RepoFile>* files = nullptr);

}  // namespace canitrun
