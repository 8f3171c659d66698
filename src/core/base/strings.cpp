#include "canitrun/strings.hpp"

#include <cctype>

namespace canitrun {

std::string_view trim_view(std::string_view text) {
    const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    while (!text.empty() && space(text.front())) text.remove_prefix(1);
    while (!text.empty() && space(text.back())) text.remove_suffix(1);
    return text;
}

std::string trim(std::string_view text) {
    return std::string(trim_view(text));
}

std::string to_lower(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

std::string to_upper(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
}

namespace {

// The length of the well-formed UTF-8 sequence at text[i], or 0 (no overlongs, surrogates or
// code points past U+10FFFF).
std::size_t utf8_length(std::string_view text, std::size_t i) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = at(i);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        n = 2;
        if (lead == 0xC2) lo = 0xA0;  // U+0080-U+009F: the C1 controls
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        n = 3;
        if (lead == 0xE0) lo = 0xA0;
        if (lead == 0xED) hi = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        n = 4;
        if (lead == 0xF0) lo = 0x90;
        if (lead == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (i + n > text.size() || at(i + 1) < lo || at(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k) {
        if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
    }
    return n;
}

}  // namespace

std::string printable_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x80) {
            out += (u < 0x20 || u == 0x7f) ? '?' : text[i];
            ++i;
        } else if (const std::size_t n = utf8_length(text, i); n > 0) {
            out.append(text, i, n);
            i += n;
        } else {
            out += '?';
            ++i;
        }
    }
    return out;
}

std::string without_url_userinfo(std::string text) {
    for (std::size_t at = text.find("://"); at != std::string::npos;
         at = text.find("://", at + 3)) {
        const std::size_t start = at + 3;
        // The authority ends at the path, the query, the fragment or the end of the word.
        const std::size_t end = text.find_first_of("/?#'\" \t\n;,", start);
        const std::size_t stop = end == std::string::npos ? text.size() : end;
        const std::size_t sign = text.rfind('@', stop == 0 ? 0 : stop - 1);
        if (sign != std::string::npos && sign >= start && sign < stop) {
            text.erase(start, sign + 1 - start);
        }
    }
    return text;
}

}  // namespace canitrun
