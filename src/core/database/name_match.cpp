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

namespace {

// A name typed short with one typo ("m4 mux" for the m4-max machines) is as close as one typed
// short without: the whole name is far from it only because the rest was left out. One edit
// against the candidate's start (of the typed length, or one more or less for an insertion or a
// deletion), and at least four characters typed so that two or three letters name no family.
bool near_prefix(const std::string& t, const std::string& n) {
    if (t.size() < 4 || n.size() <= t.size()) return false;
    for (const std::size_t len : {t.size() - 1, t.size(), t.size() + 1}) {
        if (len <= n.size() && edit_distance(t, n.substr(0, len), 1) <= 1) return true;
    }
    return false;
}

}  // namespace

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
    // (distance, candidate, how it names the typed text: kContains, kNearPrefix or kFar)
    enum Kin { kFar, kNearPrefix, kContains };
    std::vector<std::tuple<std::size_t, std::string, Kin>> scored;
    for (const auto& c : candidates) {
        const std::string n = loose(c);
        const Kin kin = !t.empty() && t.size() >= 3 && n.find(t) != std::string::npos ? kContains
                        : near_prefix(t, n)                                           ? kNearPrefix
                                                                                      : kFar;
        // The distance is at least the difference in length: skip the quadratic part for names
        // that cannot come close (a pasted paragraph against 600 names must stay fast).
        const std::size_t length_gap =
            t.size() > n.size() ? t.size() - n.size() : n.size() - t.size();
        if (kin == kFar && length_gap > max_distance) continue;
        const std::size_t d = kin == kContains     ? std::size_t{t == n ? 0U : 1U}
                              : kin == kNearPrefix ? std::size_t{2}
                                                   : edit_distance(t, n, max_distance);
        if (d <= max_distance) scored.emplace_back(d, c, kin);
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& x, const auto& y) { return std::get<0>(x) < std::get<0>(y); });
    // A small family the typed text names whole ("m4 max": the 36 to 128 GB machines) is listed
    // whole; failing that, one it names with a typo ("m4 mux"); other near names fill the list
    // up to `limit`.
    constexpr std::size_t kMaxFamily = 6;
    const auto count = [&](Kin k) {
        return static_cast<std::size_t>(std::count_if(
            scored.begin(), scored.end(), [k](const auto& x) { return std::get<2>(x) == k; }));
    };
    const Kin family_kin = count(kContains) > 0 ? kContains : kNearPrefix;
    const bool listed_whole = count(family_kin) <= kMaxFamily;
    std::vector<std::string> out;
    for (const auto& [d, c, kin] : scored) {
        if (kin != family_kin || !listed_whole) continue;
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
    for (const auto& [d, c, kin] : scored) {
        if (out.size() >= limit) break;
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
    return out;
}

}  // namespace canitrun
