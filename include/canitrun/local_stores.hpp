#pragma once
// The models already on disk, found where the tools people use keep them: the Ollama store
// (manifests naming blobs), the Hugging Face cache (hub/models--ORG--REPO/snapshots/REV/),
// LM Studio's models folder and llama.cpp's download cache. Only names, paths and sizes here;
// reading each header is the caller's (gguf_files.hpp).

#include <cstdint>
#include <string>
#include <vector>

namespace canitrun {

struct StoreRoots {
    std::string ollama;                 // OLLAMA_MODELS, default ~/.ollama/models
    std::string huggingface;            // $HF_HOME/hub, default ~/.cache/huggingface/hub
    std::vector<std::string> lmstudio;  // ~/.lmstudio/models, ~/.cache/lm-studio/models
    std::string llamacpp;               // LLAMA_CACHE, default ~/.cache/llama.cpp
};

// The roots from the environment's values (each may be null): HOME, OLLAMA_MODELS, HF_HOME,
// LLAMA_CACHE.
StoreRoots store_roots(const char* home, const char* ollama_models, const char* hf_home,
                       const char* llama_cache);

struct LocalModel {
    std::string store;  // "ollama", "huggingface", "lmstudio", "llama.cpp"
    std::string
        name;  // as that tool names it: "qwen3:30b", "unsloth/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf"
    std::string path;  // the GGUF file (the first part of a split model)
    std::uint64_t bytes = 0;
};

// Every GGUF model in the stores, store by store, each sorted by name. A store that does not
// exist is skipped; unreadable folders are skipped, never followed in loops (symlinked folders
// are not entered; symlinked files, as the HF cache keeps them, are). At most `limit` models.
std::vector<LocalModel> scan_local_stores(const StoreRoots& roots, std::size_t limit = 10000);

}  // namespace canitrun
