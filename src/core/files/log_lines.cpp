#include "log_lines.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace canitrun::log_lines {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_word(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

std::string_view skip_spaces(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    return s;
}

// The run of characters at the front of `s` that `keep` accepts; advances `s` past it.
template <typename Keep>
std::string_view take_while(std::string_view& s, Keep keep) {
    std::size_t n = 0;
    while (n < s.size() && keep(s[n])) ++n;
    const std::string_view out = s.substr(0, n);
    s.remove_prefix(n);
    return out;
}

std::string_view take_token(std::string_view& s) {
    return take_while(s, [](char c) { return !is_space(c); });
}

bool take(std::string_view& s, std::string_view word) {
    if (!s.starts_with(word)) return false;
    s.remove_prefix(word.size());
    return true;
}

std::string_view trim_right(std::string_view s) {
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

// "<number> MiB" or "<number>" at the front of `s`.
std::string_view take_number(std::string_view& s) {
    return take_while(s, [](char c) { return is_digit(c) || c == '.'; });
}

}  // namespace

std::string_view without_prefix(std::string_view line) {
    // The tags llama.cpp's lines begin with, of the lines canitrun reads. "~llama_context:"
    // (the destructor's check line) keeps its "~", so it is still told apart.
    static constexpr std::array<std::string_view, 16> kTags = {"llama_model_loader:",
                                                               "print_info:",
                                                               "llm_load_print_meta:",
                                                               "llm_load_tensors:",
                                                               "load_tensors:",
                                                               "llama_context:",
                                                               "llama_new_context_with_model:",
                                                               "llama_kv_cache",
                                                               "llama_memory_recurrent",
                                                               "llama_init_from_model:",
                                                               "llama_model_load_from_file_impl:",
                                                               "ggml_cuda_init:",
                                                               "sched_reserve:",
                                                               "graph_reserve:",
                                                               "llama_model_load:",
                                                               "ggml_metal_init:"};
    std::size_t best = std::string_view::npos;
    for (const std::string_view tag : kTags) {
        const auto at = line.find(tag);
        if (at < best) best = at;
    }
    if (best == std::string_view::npos || best == 0) return line;
    if (line[best - 1] == '~') --best;
    return line.substr(best);
}

std::optional<std::string_view> tensor_count(std::string_view line) {
    const auto at = line.find("loaded meta data with ");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view s = line.substr(at + 22);
    if (take_while(s, is_digit).empty() || !take(s, " key-value pairs and ")) return std::nullopt;
    const std::string_view count = take_while(s, is_digit);
    if (count.empty() || !take(s, " tensors")) return std::nullopt;
    return count;
}

std::optional<std::string_view> build_number(std::string_view line) {
    for (const std::string_view tag : {"build: ", "build = ", "build_info: b"}) {
        if (!line.starts_with(tag) &&
            line.find(std::string(" ") + std::string(tag)) == std::string_view::npos) {
            continue;
        }
        std::string_view s = line.substr(line.find(tag) + tag.size());
        const std::string_view number = take_while(s, is_digit);
        if (!number.empty() && (s.empty() || s.front() == ' ' || s.front() == '-')) return number;
    }
    return std::nullopt;
}

std::optional<std::string_view> loaded_file_name(std::string_view line) {
    if (!tensor_count(line)) return std::nullopt;
    const auto from = line.find(" tensors from ");
    if (from == std::string_view::npos) return std::nullopt;
    std::string_view path = line.substr(from + 14);
    if (const auto version = path.find(" (version"); version != std::string_view::npos) {
        path = path.substr(0, version);
    }
    if (const auto slash = path.find_last_of("/\\"); slash != std::string_view::npos) {
        path = path.substr(slash + 1);
    }
    if (path.empty()) return std::nullopt;
    return path;
}

std::optional<std::string> loaded_file_repo(std::string_view line) {
    if (!loaded_file_name(line)) return std::nullopt;
    constexpr std::string_view kCache = "models--";
    const auto at = line.find(kCache);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view folder = line.substr(at + kCache.size());
    folder = folder.substr(0, folder.find_first_of("/\\"));
    // huggingface_hub writes "ORG/NAME" as "ORG--NAME"; an organisation's name holds no "--".
    const auto sep = folder.find("--");
    if (sep == 0 || sep == std::string_view::npos || sep + 2 == folder.size()) return std::nullopt;
    return std::string(folder.substr(0, sep)) + "/" + std::string(folder.substr(sep + 2));
}

std::optional<Kv> kv(std::string_view line) {
    const auto at = line.find("- kv");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view s = line.substr(at + 4);
    if (s.empty() || !is_space(s.front())) return std::nullopt;
    s = skip_spaces(s);
    if (take_while(s, is_digit).empty() || !take(s, ":")) return std::nullopt;
    if (s.empty() || !is_space(s.front())) return std::nullopt;
    Kv out;
    s = skip_spaces(s);
    out.key = take_token(s);
    if (out.key.empty() || s.empty()) return std::nullopt;
    s = skip_spaces(s);
    out.type = take_token(s);
    if (out.type.empty() || s.empty()) return std::nullopt;
    s = skip_spaces(s);
    if (!take(s, "=")) return std::nullopt;
    take(s, " ");
    out.value = s;
    return out;
}

std::optional<Pair> print_info(std::string_view line) {
    std::string_view s = line;
    if (!take(s, "print_info: ") && !take(s, "llm_load_print_meta: ")) return std::nullopt;
    const auto eq = s.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    Pair out{trim_right(s.substr(0, eq)), s.substr(eq + 1)};
    if (out.value.starts_with(' ')) out.value.remove_prefix(1);
    return out;
}

std::optional<Pair> type_count(std::string_view line) {
    std::string_view s = line;
    if (!take(s, "llama_model_loader: - type ")) return std::nullopt;
    s = s.substr(std::min(s.size(), s.find_first_not_of(' ')));
    const auto colon = s.find(':');
    if (colon == 0 || colon == std::string_view::npos) return std::nullopt;
    const std::string_view type = s.substr(0, colon);
    s.remove_prefix(colon + 1);
    s = s.substr(std::min(s.size(), s.find_first_not_of(' ')));
    const std::string_view count = take_while(s, is_digit);
    if (count.empty() || !take(s, " tensors")) return std::nullopt;
    return Pair{type, count};
}

std::optional<Pair> context_param(std::string_view line) {
    std::string_view s = line;
    // llama_init_from_model: the same lines' tag in the builds of early 2025 (b4500 to b4800),
    // between llama_new_context_with_model and llama_context.
    if (!take(s, "llama_context: ") && !take(s, "llama_new_context_with_model: ") &&
        !take(s, "llama_init_from_model: ")) {
        return std::nullopt;
    }
    static constexpr std::array<std::string_view, 9> kKeys = {
        "n_ctx_seq", "n_ctx_per_seq", "n_ctx",      "n_batch",      "n_ubatch",
        "n_seq_max", "flash_attn",    "kv_unified", "n_outputs_max"};
    for (const std::string_view key : kKeys) {
        std::string_view rest = s;
        if (!take(rest, key) || rest.empty() || !is_space(rest.front())) continue;
        rest = skip_spaces(rest);
        if (!take(rest, "=")) return std::nullopt;
        rest = skip_spaces(rest);
        const std::string_view value = take_token(rest);
        if (value.empty()) return std::nullopt;
        return Pair{key == "n_ctx_per_seq" ? std::string_view("n_ctx_seq") : key, value};
    }
    return std::nullopt;
}

std::optional<Pair> buffer(std::string_view line, std::string_view phrase, bool spaces_before) {
    const auto at = line.find(phrase);
    if (at == std::string_view::npos || at < 2) return std::nullopt;
    std::string_view before = line.substr(0, at);
    if (!is_space(before.back())) return std::nullopt;
    before.remove_suffix(1);
    if (spaces_before) before = trim_right(before);
    std::size_t start = before.size();
    while (start > 0 && !is_space(before[start - 1])) --start;
    const std::string_view device = before.substr(start);
    if (device.empty()) return std::nullopt;
    std::string_view s = line.substr(at + phrase.size());
    s = skip_spaces(s);
    if (!take(s, "=")) return std::nullopt;
    s = skip_spaces(s);
    const std::string_view number = take_while(s, [](char c) { return is_digit(c) || c == '.'; });
    if (number.empty() || !take(s, " MiB")) return std::nullopt;
    return Pair{device, number};
}

std::optional<Pair> kv_types(std::string_view line) {
    std::size_t size = line.find("size ");
    while (size != std::string_view::npos && !skip_spaces(line.substr(size + 4)).starts_with('=')) {
        size = line.find("size ", size + 1);
    }
    if (size == std::string_view::npos) return std::nullopt;
    const auto word_in =
        [](std::string_view s, std::string_view open,
           std::string_view close) -> std::optional<std::pair<std::string_view, std::size_t>> {
        const auto at = s.find(open);
        if (at == std::string_view::npos) return std::nullopt;
        std::string_view rest = s.substr(at + open.size());
        const std::string_view word = take_while(rest, is_word);
        if (word.empty() || !take(rest, close)) return std::nullopt;
        return std::pair{word, s.size() - rest.size()};
    };
    const std::string_view after = line.substr(size + 4);
    const auto k = word_in(after, "K (", "):");
    if (!k) return std::nullopt;
    const auto v = word_in(after.substr(k->second), "V (", ")");
    if (!v) return std::nullopt;
    return Pair{k->first, v->first};
}

std::optional<Pair> old_model_buffer(std::string_view line) {
    if (!line.starts_with("llm_load_tensors:")) return std::nullopt;
    const auto found = buffer(line, "buffer size", false);
    if (!found || found->key == "model") return std::nullopt;
    return found;
}

std::optional<Pair> offloaded(std::string_view line) {
    const auto at = line.find("offloaded ");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view s = line.substr(at + 10);
    const std::string_view on_gpu = take_while(s, is_digit);
    if (on_gpu.empty() || !take(s, "/")) return std::nullopt;
    const std::string_view all = take_while(s, is_digit);
    if (all.empty() || !take(s, " layers to GPU")) return std::nullopt;
    return Pair{on_gpu, all};
}

std::optional<std::string_view> repeating_offloaded(std::string_view line) {
    const auto at = line.find("offloading ");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view s = line.substr(at + 11);
    const std::string_view layers = take_while(s, is_digit);
    if (layers.empty() || !take(s, " repeating layers to GPU")) return std::nullopt;
    return layers;
}

bool output_offloaded(std::string_view line) {
    return line.find("offloading output layer to GPU") != std::string_view::npos ||
           line.find("offloading non-repeating layers to GPU") != std::string_view::npos;
}

std::optional<Pair> device_free(std::string_view line) {
    const auto at = line.find("using device ");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view s = line.substr(at + 13);
    const std::string_view device = take_token(s);
    const auto dash = s.rfind(" - ");
    if (device.empty() || dash == std::string_view::npos) return std::nullopt;
    s.remove_prefix(dash + 3);
    const std::string_view free = take_number(s);
    if (free.empty() || !take(s, " MiB free")) return std::nullopt;
    return Pair{device, free};
}

std::optional<Pair> cuda_device(std::string_view line) {
    const auto at = line.find("Device ");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view s = line.substr(at + 7);
    const std::string_view index = take_while(s, is_digit);
    if (index.empty() || !take(s, ": ")) return std::nullopt;
    const auto comma = s.find(", compute capability");
    if (comma == std::string_view::npos || comma == 0) return std::nullopt;
    return Pair{index, s.substr(0, comma)};
}

std::optional<Pair> expert_override(std::string_view line) {
    const auto at = line.find("tensor blk.");
    const auto to = line.find("buffer type overridden to ");
    if (at == std::string_view::npos || to == std::string_view::npos || to < at) {
        return std::nullopt;
    }
    std::string_view s = line.substr(at + 11);
    const std::string_view layer = take_while(s, is_digit);
    if (layer.empty() || !take(s, ".")) return std::nullopt;
    const std::string_view name = take_token(s);
    if (name.find("_exps") == std::string_view::npos) return std::nullopt;
    std::string_view target = line.substr(to + 26);
    return Pair{layer, take_token(target)};
}

}  // namespace canitrun::log_lines
