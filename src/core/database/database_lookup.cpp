// Finding entries by what users type: id, alias, any capitalisation or punctuation; and
// "did you mean" when nothing matches.

#include <algorithm>
#include <optional>

#include "canitrun/database.hpp"
#include "canitrun/name_match.hpp"

namespace canitrun {
namespace {

template <typename Entry>
const Entry* find_by_name(const std::vector<Entry>& entries, const std::string& typed) {
    const std::string key = normalize_name(typed);
    for (const auto& e : entries) {
        if (normalized_equals(e.id, key)) return &e;
    }
    for (const auto& e : entries) {
        for (const auto& alias : e.aliases) {
            if (normalized_equals(alias, key)) return &e;
        }
    }
    return nullptr;
}

template <typename Entry>
std::unexpected<Error> not_found(const std::vector<Entry>& entries, const std::string& typed,
                                 const std::string& what, const std::string& list_command) {
    std::vector<std::string> ids;
    for (const auto& e : entries) ids.push_back(e.id);
    auto close = suggest(typed, ids);
    if (close.empty()) {
        // Try aliases too, but suggest the id they belong to.
        std::vector<std::string> names;
        std::vector<std::string> owners;
        for (const auto& e : entries) {
            for (const auto& a : e.aliases) {
                names.push_back(a);
                owners.push_back(e.id);
            }
        }
        for (const auto& match : suggest(typed, names)) {
            const auto at = std::find(names.begin(), names.end(), match) - names.begin();
            const std::string& id = owners[static_cast<std::size_t>(at)];
            if (std::find(close.begin(), close.end(), id) == close.end()) close.push_back(id);
        }
    }
    std::string hint;
    if (!close.empty()) {
        hint = "did you mean ";
        for (std::size_t i = 0; i < close.size(); ++i) {
            hint += (i == 0 ? "'" : i + 1 == close.size() ? " or '" : ", '") + close[i] + "'";
        }
        hint += "?";
    } else {
        hint = "'" + list_command + "' lists them";
    }
    return std::unexpected<Error>(
        Error{ErrorKind::bad_input, "unknown " + what + " '" + typed + "'", hint});
}

const Gpu* find_by_variant_name(const std::vector<Gpu>& gpus, const std::string& typed) {
    const std::string key = normalize_name(typed);
    for (const auto& g : gpus) {
        for (const auto& n : g.variant_names) {
            if (normalized_equals(n, key)) return &g;
        }
    }
    return nullptr;
}

}  // namespace

Result<const Model*> Database::find_model(const std::string& name) const {
    if (const Model* m = find_by_name(models, name)) return m;
    return not_found(models, name, "model", "canitrun models");
}

Result<const Gpu*> Database::find_gpu(const std::string& name) const {
    if (const Gpu* g = find_by_name(gpus, name)) return g;
    if (const Gpu* g = find_by_variant_name(gpus, name)) return g;
    return not_found(gpus, name, "GPU", "canitrun gpu-list");
}

std::optional<std::string> variant_note(const Database& db, const Gpu& gpu,
                                        const std::string& typed) {
    if (find_by_variant_name(db.gpus, typed) != &gpu) return std::nullopt;
    std::string others;
    for (std::size_t i = 0; i < gpu.other_variants.size(); ++i) {
        const Gpu* other = find_by_name(db.gpus, gpu.other_variants[i]);
        if (other == nullptr) continue;
        if (!others.empty()) others += i + 1 == gpu.other_variants.size() ? " or " : ", ";
        others += other->id + " for the " + other->short_name;
    }
    return "'" + typed + "' names " + std::to_string(gpu.other_variants.size() + 1) +
           " cards and is planned as the " + gpu.short_name + "; name " + others;
}

Result<const Quant*> Database::find_quant(const std::string& name) const {
    if (const Quant* q = find_by_name(quants, name)) return q;
    return not_found(quants, name, "quantization", "canitrun quants");
}

const Quant* Database::default_quant(const Model& model) const {
    const Quant* recommended = recommended_quant();
    const auto& published = model.run.gguf_quants;
    if (published.empty() || recommended == nullptr) return recommended;
    for (const auto& name : published) {
        if (name == recommended->id) return recommended;
    }
    for (const auto& name : published) {
        if (const Quant* q = find_by_name(quants, name)) return q;
    }
    return recommended;
}

const Quant* Database::recommended_quant() const {
    for (const auto& q : quants) {
        if (q.recommended) return &q;
    }
    return quants.empty() ? nullptr : &quants.front();
}

}  // namespace canitrun
