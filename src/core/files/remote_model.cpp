#include "canitrun/remote_model.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "canitrun/gguf_files.hpp"
#include "canitrun/json_bounds.hpp"
#include "canitrun/strings.hpp"

namespace canitrun {
namespace {

using nlohmann::json;

bool starts(const std::string& s, const std::string& p) {
    return s.rfind(p, 0) == 0;
}

bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
}

bool valid_part(const std::string& s) {
    return !s.empty() && s.size() <= 96 && s != "." && s != ".." &&
           std::all_of(s.begin(), s.end(), name_char);
}

// A string member, or "" when absent or of another type (json::value() would throw on a number
// where a string was expected: fuzz_range_source found it).
std::string text_of(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Error bad(const std::string& arg, const std::string& what, const std::string& hint) {
    return Error{ErrorKind::bad_input, "'" + arg + "': " + what, hint};
}

// "ORG/REPO[:QUANT]" after any prefix.
Result<RemoteSpec> parse_repo(const std::string& arg, const std::string& rest) {
    RemoteSpec s;
    s.kind = RemoteKind::hf_repo;
    s.text = arg;
    std::string repo = rest;
    if (const auto colon = rest.find(':'); colon != std::string::npos) {
        repo = rest.substr(0, colon);
        s.quant = rest.substr(colon + 1);
        if (!valid_part(s.quant)) {
            return std::unexpected(bad(arg, "'" + s.quant + "' is not a quantization tag",
                                       "e.g. hf:unsloth/Qwen3.5-35B-A3B-GGUF:Q4_K_M"));
        }
    }
    const auto slash = repo.find('/');
    if (slash == std::string::npos || !valid_part(repo.substr(0, slash)) ||
        !valid_part(repo.substr(slash + 1))) {
        return std::unexpected(
            bad(arg, "a Hugging Face repo is ORG/REPO", "e.g. hf:unsloth/Qwen3.5-35B-A3B-GGUF"));
    }
    s.repo = repo;
    return s;
}

// "%3F" as '?': a file name as typed in an address; a '%' not followed by two hex digits stays.
std::string percent_decoded(const std::string& s) {
    const auto digit = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && digit(s[i + 1]) >= 0 && digit(s[i + 2]) >= 0) {
            out += static_cast<char>(digit(s[i + 1]) * 16 + digit(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

// https://huggingface.co/ORG/REPO[/resolve|blob/REV/FILE]
Result<RemoteSpec> parse_hf_url(const std::string& arg, const std::string& path) {
    std::vector<std::string> parts;
    std::size_t at = 0;
    while (at <= path.size()) {
        const auto next = path.find('/', at);
        parts.push_back(path.substr(at, next == std::string::npos ? std::string::npos : next - at));
        if (next == std::string::npos) break;
        at = next + 1;
    }
    while (!parts.empty() && parts.back().empty()) parts.pop_back();
    if (parts.size() == 2) return parse_repo(arg, parts[0] + "/" + parts[1]);
    if (parts.size() >= 5 && (parts[2] == "resolve" || parts[2] == "blob")) {
        auto s = parse_repo(arg, parts[0] + "/" + parts[1]);
        if (!s) return s;
        s->revision = parts[3];
        for (std::size_t i = 4; i < parts.size(); ++i) s->file += (i > 4 ? "/" : "") + parts[i];
        s->file = percent_decoded(s->file);  // hf_file_url encodes it again
        if (!valid_part(s->revision)) return std::unexpected(bad(arg, "bad revision", ""));
        return s;
    }
    return std::unexpected(
        bad(arg, "not a Hugging Face repo or file address",
            "use https://huggingface.co/ORG/REPO or .../resolve/main/FILE.gguf"));
}

}  // namespace

bool looks_remote(const std::string& arg) {
    for (const char* p : {"hf:", "ollama:", "hf.co/", "huggingface.co/", "http://", "https://"}) {
        if (starts(arg, p)) return true;
    }
    return false;
}

bool looks_like_repo(const std::string& arg) {
    static const std::regex repo(
        R"(^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9._-]+(:[A-Za-z0-9._-]+)?$)");
    return arg.size() <= 200 && std::regex_match(arg, repo);
}

Result<RemoteSpec> parse_remote_spec(const std::string& arg) {
    if (arg.size() > 2048) return std::unexpected(bad(arg.substr(0, 64) + "...", "too long", ""));
    if (starts(arg, "hf:")) return parse_repo(arg, arg.substr(3));
    if (starts(arg, "hf.co/")) return parse_repo(arg, arg.substr(6));
    if (starts(arg, "huggingface.co/")) return parse_hf_url(arg, arg.substr(15));
    if (starts(arg, "https://huggingface.co/")) return parse_hf_url(arg, arg.substr(23));
    if (starts(arg, "ollama:")) {
        RemoteSpec s;
        s.kind = RemoteKind::ollama;
        s.text = arg;
        std::string rest = arg.substr(7);
        if (const auto colon = rest.find(':'); colon != std::string::npos) {
            s.tag = rest.substr(colon + 1);
            rest = rest.substr(0, colon);
        }
        if (const auto slash = rest.find('/'); slash != std::string::npos) {
            s.ns = rest.substr(0, slash);
            rest = rest.substr(slash + 1);
        }
        s.name = rest;
        if (!valid_part(s.ns) || !valid_part(s.name) || !valid_part(s.tag)) {
            return std::unexpected(bad(arg,
                                       "an Ollama model is NAME, NAME:TAG or NAMESPACE/NAME:TAG",
                                       "e.g. ollama:qwen3:30b"));
        }
        return s;
    }
    if (starts(arg, "http://") || starts(arg, "https://")) {
        RemoteSpec s;
        s.kind = RemoteKind::url;
        s.text = arg;
        s.url = arg;
        for (const char c : arg) {
            if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
                return std::unexpected(bad(arg, "an address holds no spaces or control characters",
                                           "quote it as typed in the browser"));
            }
        }
        return s;
    }
    if (looks_like_repo(arg)) return parse_repo(arg, arg);
    return std::unexpected(bad(arg, "not a model name, a file or a remote address",
                               "use hf:ORG/REPO, ollama:NAME or an https:// address"));
}

std::string hf_tree_url(const std::string& endpoint, const RemoteSpec& spec) {
    return endpoint + "/api/models/" + spec.repo + "/tree/" + spec.revision + "?recursive=true";
}

std::string hf_file_url(const std::string& endpoint, const RemoteSpec& spec,
                        const std::string& path) {
    // Percent-encoded but for the unreserved characters and the folders' '/': a '?' or '#' in
    // a listed name would otherwise end the path and read another file.
    static const char* hex = "0123456789ABCDEF";
    std::string escaped;
    for (const char c : path) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
            escaped += c;
        } else {
            escaped += '%';
            escaped += hex[u >> 4];
            escaped += hex[u & 15];
        }
    }
    return endpoint + "/" + spec.repo + "/resolve/" + spec.revision + "/" + escaped;
}

std::string hf_repo_page(const std::string& endpoint, const std::string& repo) {
    return endpoint + "/" + repo;
}

std::string ollama_manifest_url(const std::string& registry, const RemoteSpec& spec) {
    return registry + "/v2/" + spec.ns + "/" + spec.name + "/manifests/" + spec.tag;
}

std::string ollama_blob_url(const std::string& registry, const RemoteSpec& spec,
                            const std::string& digest) {
    return registry + "/v2/" + spec.ns + "/" + spec.name + "/blobs/" + digest;
}

std::string quant_from_filename(const std::string& filename) {
    static const std::regex token(
        R"((UD-)?(IQ[1-4]_(XXS|XS|S|M|NL)|Q[2-8]_K(_XL|_[SML])?|Q[4-8]_[01]|TQ[12]_0|MXFP4(_MOE)?|BF16|F16|F32|FP16|FP32))",
        std::regex::icase);
    std::string base = filename.substr(filename.find_last_of('/') + 1);
    std::string last;
    for (auto it = std::sregex_iterator(base.begin(), base.end(), token);
         it != std::sregex_iterator(); ++it) {
        last = it->str();
    }
    return to_upper(std::move(last));
}

Result<std::vector<RepoFile>> parse_hf_files(const std::string& json_text) {
    CANITRUN_TRY(check_json_bounds(json_text, "the Hub's file listing",
                                   JsonBounds{.max_bytes = kMaxListingBytes}));
    const json doc = json::parse(json_text, nullptr, false);
    if (!doc.is_array()) {
        return fail(ErrorKind::io, "the Hub's file listing is not a JSON array",
                    "the endpoint (HF_ENDPOINT) does not speak the Hugging Face API");
    }
    std::vector<RepoFile> out;
    for (const auto& e : doc) {
        if (!e.is_object() || text_of(e, "type") != "file" || text_of(e, "path").empty()) {
            continue;
        }
        RepoFile f;
        f.path = text_of(e, "path");
        // A file name is printed and put in an address: one with a control character or
        // bytes that are not UTF-8 is no model anyone runs, and is passed over.
        if (printable_text(f.path) != f.path) continue;
        if (e.contains("lfs") && e["lfs"].is_object() && e["lfs"].contains("size") &&
            e["lfs"]["size"].is_number_unsigned()) {
            f.size = e["lfs"]["size"].get<std::uint64_t>();
        } else if (e.contains("size") && e["size"].is_number_unsigned()) {
            f.size = e["size"].get<std::uint64_t>();
        }
        out.push_back(std::move(f));
    }
    return out;
}

std::vector<RepoGguf> gguf_models(const std::vector<RepoFile>& files) {
    std::map<std::string, RepoGguf> by_prefix;  // split parts grouped by their common prefix
    for (const auto& f : files) {
        const std::string& path = f.path;
        if (path.size() < 5 || to_lower(path.substr(path.size() - 5)) != ".gguf") continue;
        const auto split = parse_split_name(path);
        const std::string key = split ? split->prefix : path;
        RepoGguf& g = by_prefix[key];
        g.files.push_back(path);
        g.bytes += f.size;
        const std::string base = path.substr(path.find_last_of('/') + 1);
        g.projector = to_lower(base).rfind("mmproj", 0) == 0;
        g.quant = quant_from_filename(key);
    }
    std::vector<RepoGguf> out;
    for (auto& [key, g] : by_prefix) {
        std::sort(g.files.begin(), g.files.end());
        out.push_back(std::move(g));
    }
    // Largest first: the order of quality, as a repo's model card lists its files.
    std::stable_sort(out.begin(), out.end(),
                     [](const RepoGguf& a, const RepoGguf& b) { return a.bytes > b.bytes; });
    return out;
}

Result<std::vector<RepoGguf>> parse_hf_tree(const std::string& json_text) {
    CANITRUN_TRY_ASSIGN(auto files, parse_hf_files(json_text));
    return gguf_models(files);
}

const RepoGguf* pick_quant(const std::vector<RepoGguf>& models, const std::string& quant) {
    const std::string want = to_lower(quant);
    const RepoGguf* suffix = nullptr;
    for (const auto& m : models) {
        if (m.projector) continue;
        const std::string q = to_lower(m.quant);
        if (q == want) return &m;
        // "UD-Q4_K_M" for "Q4_K_M", never "BF16" for "F16": the tag after a '-'.
        if (suffix == nullptr && q.size() > want.size() + 1 &&
            q.compare(q.size() - want.size(), want.size(), want) == 0 &&
            q[q.size() - want.size() - 1] == '-') {
            suffix = &m;
        }
    }
    return suffix;
}

const OllamaLayer* OllamaManifest::model() const {
    for (const auto& l : layers) {
        if (l.media_type == "application/vnd.ollama.image.model") return &l;
    }
    return nullptr;
}

const OllamaLayer* OllamaManifest::projector() const {
    for (const auto& l : layers) {
        if (l.media_type == "application/vnd.ollama.image.projector") return &l;
    }
    return nullptr;
}

Result<OllamaManifest> parse_ollama_manifest(const std::string& json_text) {
    CANITRUN_TRY(check_json_bounds(json_text, "the Ollama manifest",
                                   JsonBounds{.max_bytes = kMaxManifestBytes}));
    const json doc = json::parse(json_text, nullptr, false);
    if (!doc.is_object() || !doc.contains("layers") || !doc["layers"].is_array()) {
        return fail(ErrorKind::io, "the Ollama manifest has no layers",
                    "the registry (CANITRUN_OLLAMA_REGISTRY) does not speak Ollama's protocol");
    }
    static const std::regex digest(R"(^sha256:[0-9a-f]{64}$)");
    OllamaManifest m;
    for (const auto& l : doc["layers"]) {
        if (!l.is_object()) continue;
        OllamaLayer out;
        out.media_type = text_of(l, "mediaType");
        out.digest = text_of(l, "digest");
        if (l.contains("size") && l["size"].is_number_unsigned())
            out.size = l["size"].get<std::uint64_t>();
        if (!std::regex_match(out.digest, digest)) continue;  // never put a bad digest in a URL
        m.layers.push_back(std::move(out));
    }
    if (m.model() == nullptr) {
        return fail(ErrorKind::bad_input, "the Ollama manifest has no model layer",
                    "the tag names something that is not a GGUF model");
    }
    return m;
}

Result<const Quant*> tagged_quant(const Database& db, const RemoteSpec& spec) {
    if (spec.quant.empty()) return static_cast<const Quant*>(nullptr);
    return db.find_quant(spec.quant);
}

}  // namespace canitrun
