#include "canitrun/local_stores.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "canitrun/bounded_file.hpp"
#include "canitrun/gguf_files.hpp"
#include "canitrun/remote_model.hpp"

namespace canitrun {
namespace {

namespace fs = std::filesystem;

bool is_gguf(const fs::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".gguf";
}

// A model file, not a later part of a split model and not a vision projector.
bool first_model_file(const fs::path& p) {
    if (!is_gguf(p)) return false;
    const std::string name = p.filename().string();
    if (name.rfind("mmproj", 0) == 0) return false;
    const auto split = parse_split_name(p.string());
    return !split || split->number == 1;
}

std::uint64_t size_of(const fs::path& p) {
    std::error_code ec;
    const auto n = fs::file_size(p, ec);
    return ec ? 0 : n;
}

// GGUF files under `root`, at most `depth` folders down, without entering symlinked folders.
std::vector<fs::path> gguf_files(const fs::path& root, int depth, std::size_t limit) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return out;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator() && out.size() < limit;
         it.increment(ec)) {
        if (it.depth() >= depth) it.disable_recursion_pending();
        std::error_code e2;
        if (it->is_regular_file(e2) && first_model_file(it->path())) out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

void scan_ollama(const fs::path& root, std::vector<LocalModel>& out, std::size_t limit) {
    const fs::path manifests = root / "manifests";
    std::error_code ec;
    if (!fs::is_directory(manifests, ec)) return;
    std::vector<LocalModel> found;
    fs::recursive_directory_iterator it(manifests, fs::directory_options::skip_permission_denied,
                                        ec);
    for (; !ec && it != fs::recursive_directory_iterator() && found.size() < limit;
         it.increment(ec)) {
        if (it.depth() > 4) it.disable_recursion_pending();
        std::error_code e2;
        if (!it->is_regular_file(e2)) continue;
        // manifests/REGISTRY/NAMESPACE/NAME/TAG
        const fs::path rel = it->path().lexically_relative(manifests);
        std::vector<std::string> parts;
        for (const auto& p : rel) parts.push_back(p.string());
        if (parts.size() != 4) continue;
        auto text = read_bounded_file(it->path().string(), 1 << 20, "Ollama manifest");
        if (!text) continue;
        auto m = parse_ollama_manifest(*text);
        if (!m) continue;
        std::string digest = m->model()->digest;
        digest[6] = '-';
        const fs::path blob = root / "blobs" / digest;
        // NAME:TAG, with the namespace and registry in front when they are not the default.
        std::string name = parts[2];
        name += ':';
        name += parts[3];
        if (parts[1] != "library") name.insert(0, parts[1] + '/');
        if (parts[0] != "registry.ollama.ai") name.insert(0, parts[0] + '/');
        found.push_back({"ollama", name, blob.string(), size_of(blob)});
    }
    std::sort(found.begin(), found.end(),
              [](const LocalModel& a, const LocalModel& b) { return a.name < b.name; });
    out.insert(out.end(), found.begin(), found.end());
}

void scan_huggingface(const fs::path& hub, std::vector<LocalModel>& out, std::size_t limit) {
    std::error_code ec;
    if (!fs::is_directory(hub, ec)) return;
    std::vector<fs::path> repos;
    for (fs::directory_iterator it(hub, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("models--", 0) == 0) repos.push_back(it->path());
    }
    std::sort(repos.begin(), repos.end());
    for (const auto& repo : repos) {
        // models--ORG--REPO -> ORG/REPO
        std::string id = repo.filename().string().substr(8);
        if (const auto sep = id.find("--"); sep != std::string::npos) id.replace(sep, 2, "/");
        for (const auto& f : gguf_files(repo / "snapshots", 4, limit)) {
            const fs::path rel = f.lexically_relative(repo / "snapshots");  // not the blob
            // snapshots/REV/FILE: the name leaves the revision out
            std::string file = rel.string();
            if (const auto slash = file.find('/'); slash != std::string::npos)
                file = file.substr(slash + 1);
            file.insert(0, id + '/');
            out.push_back({"huggingface", file, f.string(), size_of(f)});
        }
    }
}

void scan_folder(const std::string& store, const fs::path& root, int depth,
                 std::vector<LocalModel>& out, std::size_t limit) {
    std::error_code ec;
    for (const auto& f : gguf_files(root, depth, limit)) {
        out.push_back({store, f.lexically_relative(root).string(), f.string(), size_of(f)});
    }
}

}  // namespace

StoreRoots store_roots(const char* home, const char* ollama_models, const char* hf_home,
                       const char* llama_cache) {
    const auto set = [](const char* v) { return v != nullptr && *v != '\0'; };
    const std::string h = set(home) ? home : "";
    StoreRoots r;
    r.ollama = set(ollama_models) ? ollama_models : (h.empty() ? "" : h + "/.ollama/models");
    r.huggingface = set(hf_home) ? std::string(hf_home) + "/hub"
                                 : (h.empty() ? "" : h + "/.cache/huggingface/hub");
    if (!h.empty()) r.lmstudio = {h + "/.lmstudio/models", h + "/.cache/lm-studio/models"};
    r.llamacpp = set(llama_cache) ? llama_cache : (h.empty() ? "" : h + "/.cache/llama.cpp");
    return r;
}

std::vector<LocalModel> scan_local_stores(const StoreRoots& roots, std::size_t limit) {
    std::vector<LocalModel> out;
    if (!roots.ollama.empty()) scan_ollama(roots.ollama, out, limit);
    if (!roots.huggingface.empty()) scan_huggingface(roots.huggingface, out, limit);
    for (const auto& dir : roots.lmstudio) scan_folder("lmstudio", dir, 4, out, limit);
    if (!roots.llamacpp.empty()) scan_folder("llama.cpp", roots.llamacpp, 2, out, limit);
    if (out.size() > limit) out.resize(limit);
    return out;
}

}  // namespace canitrun
