#include "log_lines.hpp"

#include <array>

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

}  // namespace

std::optional<std::string_view> tensor_count(std::string_view line) {
    const auto at = line.find("loaded meta data with ");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view s = line.substr(at + 22);
    if (take_while(s, is_digit).empty() || !take(s, " key-value pairs and ")) return std::nullopt;
    const std::string_view count = take_while(s, is_digit);
    if (count.empty() || !take(s, " tensors")) return std::nullopt;
    return count;
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
    if (!take(s, "print_info: ")) return std::nullopt;
    const auto eq = s.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    Pair out{trim_right(s.substr(0, eq)), s.substr(eq + 1)};
    if (out.value.starts_with(' ')) out.value.remove_prefix(1);
    return out;
}

std::optional<Pair> context_param(std::string_view line) {
    std::string_view s = line;
    if (!take(s, "llama_context: ") && !take(s, "llama_new_context_with_model: ")) {
        return std::nullopt;
    }
    static constexpr std::array<std::string_view, 6> kKeys = {
        "n_ctx_seq", "n_ctx", "n_batch", "n_ubatch", "n_seq_max", "flash_attn"};
    for (const std::string_view key : kKeys) {
        std::string_view rest = s;
        if (!take(rest, key) || rest.empty() || !is_space(rest.front())) continue;
        rest = skip_spaces(rest);
        if (!take(rest, "= ")) return std::nullopt;
        const std::string_view value = take_token(rest);
        if (value.empty()) return std::nullopt;
        return Pair{key, value};
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
    const auto size = line.find("size =");
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
    const std::string_view after = line.substr(size + 6);
    const auto k = word_in(after, "K (", "):");
    if (!k) return std::nullopt;
    const auto v = word_in(after.substr(k->second), "V (", ")");
    if (!v) return std::nullopt;
    return Pair{k->first, v->first};
}

}  // namespace canitrun::log_lines
