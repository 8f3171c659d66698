#pragma once
// Models named by where they live: a Hugging Face repo (`hf:ORG/REPO`, `hf:ORG/REPO:QUANT`,
// `ORG/REPO[:QUANT]` when no database name), a URL that serves a GGUF file, or an Ollama model
// (`ollama:NAME[:TAG]`). Pure: the names, the addresses they stand for, and the Hub's and the
// registry's answers parsed into values. Fetching is remote_fetch.hpp's.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/error.hpp"

namespace canitrun {

// The most canitrun reads of the Hub's listing of a repo and of an Ollama manifest.
inline constexpr std::uint64_t kMaxListingBytes = 8ULL << 20;
inline constexpr std::uint64_t kMaxManifestBytes = 1ULL << 20;

enum class RemoteKind { hf_repo, url, ollama };

struct RemoteSpec {
    RemoteKind kind = RemoteKind::hf_repo;
    std::string repo;               // hf: "ORG/REPO"
    std::string revision = "main";  // hf
    std::string quant;              // hf: the tag after ':' (empty: list the repo)
    std::string file;               // hf: a file named in a resolve/blob URL
    std::string url;                // url
    std::string ns = "library";     // ollama namespace
    std::string name;               // ollama model
    std::string tag = "latest";     // ollama tag
    std::string text;               // as the user typed it
};

// Whether the argument is a remote name at all (by its form; an ORG/REPO is one only when it is
// no database name, which the caller checks).
bool looks_remote(const std::string& arg);
bool looks_like_repo(const std::string& arg);  // ORG/REPO or ORG/REPO:QUANT

Result<RemoteSpec> parse_remote_spec(const std::string& arg);

// The quantization a remote name's tag asks a safetensors repo's page for (hf:ORG/REPO:Q8_0),
// as the database's entry; null when the name has no tag. An unknown tag is refused.
Result<const Quant*> tagged_quant(const Database& db, const RemoteSpec& spec);

// Where things are, from the endpoint (HF_ENDPOINT) and the registry's base URL.
std::string hf_tree_url(const std::string& endpoint, const RemoteSpec& spec);
std::string hf_file_url(const std::string& endpoint, const RemoteSpec& spec,
                        const std::string& path);
std::string hf_repo_page(const std::string& endpoint, const std::string& repo);
std::string ollama_manifest_url(const std::string& registry, const RemoteSpec& spec);
std::string ollama_blob_url(const std::string& registry, const RemoteSpec& spec,
                            const std::string& digest);

// One GGUF model in a repo: its files (one, or every part of a split model), the quantization
// its name says, and whether it is a vision projector.
struct RepoGguf {
    std::string quant;               // "Q4_K_M", "UD-Q4_K_XL", "BF16"; "" when the name has none
    std::vector<std::string> files;  // in part order
    std::uint64_t bytes = 0;         // all parts
    bool projector = false;          // mmproj-*.gguf
};

// Every file of the Hub's tree listing (GET /api/models/REPO/tree/REV?recursive=true), with
// its size (the LFS object's for large files).
struct RepoFile {
    std::string path;
    std::uint64_t size = 0;
};
Result<std::vector<RepoFile>> parse_hf_files(const std::string& json_text);

// The GGUF models among them.
std::vector<RepoGguf> gguf_models(const std::vector<RepoFile>& files);

// The Hub's tree listing (GET /api/models/REPO/tree/REV?recursive=true) as GGUF models,
// largest first.
Result<std::vector<RepoGguf>> parse_hf_tree(const std::string& json_text);

// The quantization a GGUF file name carries (the last token that is one), or "".
std::string quant_from_filename(const std::string& filename);

// The model `-hf REPO:QUANT` would take: its quantization matched case-insensitively, exactly
// first, then as the end of a longer tag ("Q4_K_M" takes "UD-Q4_K_M" when there is no other).
const RepoGguf* pick_quant(const std::vector<RepoGguf>& models, const std::string& quant);

struct OllamaLayer {
    std::string media_type;
    std::string digest;  // "sha256:..."
    std::uint64_t size = 0;
};
struct OllamaManifest {
    std::vector<OllamaLayer> layers;
    const OllamaLayer* model() const;      // application/vnd.ollama.image.model
    const OllamaLayer* projector() const;  // application/vnd.ollama.image.projector
};
Result<OllamaManifest> parse_ollama_manifest(const std::string& json_text);

}  // namespace canitrun
