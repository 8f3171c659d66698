#include "canitrun/name_match.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace canitrun {

std::string normalize_name(const std::string& name) {
    std::string out;
    for (char c : name) {
        if (c == ' ' || c == '-' || c == '_') continue;
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

bool normalized_equals(std::string_view name, std::string_view key) {
    std::size_t at = 0;
    for (char c : name) {
        if (c == ' ' || c == '-' || c == '_') continue;
        if (at == key.size() ||
            key[at] != static_cast<char>(std::tolower(static_cast<unsigned char>(c))))
            return false;
        ++at;
    }
    return at == key.size();
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
    return edit_distance(a, b, std::max(a.size(), b.size()));
}

std::size_t edit_distance(const std::string& a, const std::string& b, std::size_t limit) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        std::size_t row_min = row[0];
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
            row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
            row_min = std::min(row_min, row[j]);
            diagonal = above;
        }
        // Row minima never decrease, so once a whole row is past the limit the answer is too.
        if (row_min > limit) return limit + 1;
    }
    return std::min(row[b.size()], limit + 1);
}

std::vector<std::string> suggest(const std::string& typed,
                                 const std::vector<std::string>& candidates, std::size_t limit) {
    // Looser than exact matching: dots go too, so "qwen35" finds "qwen3.5-35b-a3b".
    const auto loose = [](const std::string& name) {
        std::string out;
        for (char c : normalize_name(name)) {
            if (c != '.') out += c;
        }
        return out;
    };
    const std::string t = loose(typed);
    // Allow about one typo in three characters, as ninja's did-you-mean does for short names.
    const std::size_t max_distance = std::max<std::size_t>(2, t.size() / 3);
    // (distance, candidate, contains the typed text)
    std::vector<std::tuple<std::size_t, std::string, bool>> scored;
    for (const auto& c : candidates) {
        const std::string n = loose(c);
        const bool contains = !t.empty() && t.size() >= 3 && n.find(t) != std::string::npos;
        // The distance is at least the difference in length: skip the quadratic part for names
        // that cannot come close (a pasted paragraph against 600 names must stay fast).
        const std::size_t length_gap =
            t.size() > n.size() ? t.size() - n.size() : n.size() - t.size();
        if (!contains && length_gap > max_distance) continue;
        const std::size_t d =
            contains ? std::size_t{t == n ? 0U : 1U} : edit_distance(t, n, max_distance);
        if (d <= max_distance) scored.emplace_back(d, c, contains);
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& x, const auto& y) { return std::get<0>(x) < std::get<0>(y); });
    // A small family the typed text names whole ("m4 max": the 36 to 128 GB machines) is listed
    // whole; other near names fill the list up to `limit`.
    constexpr std::size_t kMaxFamily = 6;
    const auto family = static_cast<std::size_t>(
        std::count_if(scored.begin(), scored.end(), [](const auto& s) { return std::get<2>(s); }));
    std::vector<std::string> out;
    for (const auto& [d, c, contains] : scored) {
        if (!contains || family > kMaxFamily) continue;
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
    for (const auto& [d, c, contains] : scored) {
        if (out.size() >= limit) break;
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
    return out;
}

}  // namespace canitrun
