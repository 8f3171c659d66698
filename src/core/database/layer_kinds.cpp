#include "canitrun/layer_kinds.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "canitrun/checked.hpp"

namespace canitrun {

std::vector<std::size_t> stated_group_order(const Architecture& arch) {
    const auto& groups = arch.layer_groups;
    const std::string& letters = arch.layer_order;
    std::uint64_t n = 0;
    for (const auto& g : groups) n = checked::add(n, g.count);
    if (letters.empty() || letters.size() != n) return {};
    std::vector<std::uint64_t> placed(groups.size(), 0);
    // digits first: they name their groups, and the letters fill what is left
    for (const char c : letters) {
        if (c < '0' || c > '9') continue;
        const auto g = static_cast<std::size_t>(c - '0');
        if (g >= groups.size() || ++placed[g] > groups[g].count) return {};
    }
    std::vector<std::size_t> order;
    for (const char c : letters) {
        if (c >= '0' && c <= '9') {
            order.push_back(static_cast<std::size_t>(c - '0'));
            continue;
        }
        const auto kind = layer_kind_of_letter(c);
        std::size_t g = 0;
        while (g < groups.size() &&
               (!kind || groups[g].kind != *kind || placed[g] == groups[g].count))
            ++g;
        if (g == groups.size()) return {};
        ++placed[g];
        order.push_back(g);
    }
    return order;
}

std::string layer_order_text(const Architecture& arch, const std::vector<std::size_t>& order) {
    std::string letters;
    for (const std::size_t g : order) letters += layer_kind_letter(arch.layer_groups[g].kind);
    Architecture stated = arch;
    stated.layer_order = letters;
    if (stated_group_order(stated) == order) return letters;
    std::string digits;
    for (const std::size_t g : order) {
        if (g > 9) return letters;  // ten groups at most can be named so
        digits += static_cast<char>('0' + g);
    }
    return digits;
}

std::vector<std::size_t> layer_group_order(const Model& model) {
    const auto& groups = model.arch.layer_groups;
    std::uint64_t n = 0;
    for (const auto& g : groups) n = checked::add(n, g.count);
    constexpr std::size_t kFree = std::numeric_limits<std::size_t>::max();
    if (auto stated = stated_group_order(model.arch); !stated.empty()) return stated;
    std::vector<std::size_t> order(n, kFree);
    if (groups.empty() || n == 0) return order;
    std::size_t rare = kFree;
    if (groups.size() > 1) {
        // The rarer group; of two as many, the full-attention one: llama.cpp's set_swa_pattern
        // makes the global layer the last of each period, so Gemma 2 and gpt-oss (period 2)
        // slide on even layers and attend fully on odd ones.
        const auto rarer = [](const LayerGroup& a, const LayerGroup& b) {
            return std::pair(a.count, a.kind != LayerKind::full) <
                   std::pair(b.count, b.kind != LayerKind::full);
        };
        rare = static_cast<std::size_t>(std::min_element(groups.begin(), groups.end(), rarer) -
                                        groups.begin());
        const std::uint64_t count = groups[rare].count;
        // interval <= n / count, so the stack has at least `count` period ends.
        const std::uint64_t interval = count == 0 ? 1 : std::max<std::uint64_t>(1, n / count);
        std::uint64_t placed = 0;
        for (std::uint64_t i = 0; i < n && placed < count; ++i) {
            if ((i + 1) % interval == 0) {
                order[i] = rare;
                ++placed;
            }
        }
    }
    std::size_t slot = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (g == rare) continue;
        for (std::uint64_t k = 0; k < groups[g].count; ++k) {
            while (order[slot] != kFree) ++slot;
            order[slot] = g;
        }
    }
    return order;
}

std::vector<LayerKind> layer_kinds(const Model& model) {
    const auto& groups = model.arch.layer_groups;
    std::vector<LayerKind> kinds;
    if (groups.empty()) {
        kinds.assign(model.arch.layers, LayerKind::full);
        return kinds;
    }
    for (const std::size_t g : layer_group_order(model)) kinds.push_back(groups[g].kind);
    return kinds;
}

LayerPattern layer_pattern(const Model& model) {
    const std::vector<std::size_t> order = layer_group_order(model);
    LayerPattern p;
    if (order.empty()) return p;
    std::size_t period = 1;
    for (; period < order.size(); ++period) {
        bool repeats = true;
        for (std::size_t i = period; i < order.size() && repeats; ++i) {
            repeats = order[i] == order[i - period];
        }
        if (repeats) break;
    }
    p.period.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(period));
    p.repeats = order.size() / period;
    p.tail = order.size() % period;
    return p;
}

}  // namespace canitrun
