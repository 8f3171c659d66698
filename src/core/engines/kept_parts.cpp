#include "canitrun/kept_parts.hpp"

#include <array>
#include <cstdint>

#include "canitrun/database_snapshot.hpp"
#include "canitrun/limits.hpp"

namespace canitrun {
namespace {

// A layer's numbers in the order a record holds them.
constexpr std::size_t kLayerNumbers = 9;

std::array<std::uint64_t, kLayerNumbers> layer_numbers(const LayerPart& l) {
    return {static_cast<std::uint64_t>(l.kind),
            l.group,
            l.weights,
            l.routed_experts,
            l.active_weights,
            l.kv_cache,
            l.recurrent_state,
            l.largest_tensor,
            l.largest_expert_tensor};
}

// One quantization's parts: inputs, head, overhead, buffers, the distinct layers, then the
// stack as runs (a distinct layer's index, how many in a row).
std::string record_of(const ModelParts& parts) {
    std::string out;
    for (const std::uint64_t v : {parts.input_weights, parts.output_weights, parts.overhead_percent,
                                  std::uint64_t{parts.buffers ? 1U : 0U}}) {
        append_varint(out, v);
    }
    if (parts.buffers) {
        append_varint(out, parts.buffers->output_head);
        append_varint(out, parts.buffers->output_duplicate);
    }
    std::vector<LayerPart> distinct;
    std::vector<std::pair<std::size_t, std::size_t>> runs;
    for (const LayerPart& l : parts.layers) {
        std::size_t k = 0;
        while (k < distinct.size() && !(distinct[k] == l)) ++k;
        if (k == distinct.size()) distinct.push_back(l);
        if (!runs.empty() && runs.back().first == k) {
            ++runs.back().second;
        } else {
            runs.emplace_back(k, 1);
        }
    }
    append_varint(out, distinct.size());
    for (const LayerPart& l : distinct) {
        for (const std::uint64_t v : layer_numbers(l)) append_varint(out, v);
    }
    append_varint(out, runs.size());
    for (const auto& [k, n] : runs) {
        append_varint(out, k);
        append_varint(out, n);
    }
    return out;
}

Error unreadable() {
    return Error{ErrorKind::bad_database, "a model's kept weight terms are unreadable",
                 "rebuild canitrun; the snapshot is made from data/ at build time"};
}

// Reads numbers from a record; `ok` turns false at the first that is not there.
struct Numbers {
    std::string_view in;
    std::size_t pos = 0;
    bool ok = true;

    std::uint64_t next() {
        const auto v = ok ? read_varint(in, pos) : std::nullopt;
        ok = ok && v.has_value();
        return v.value_or(0);
    }
};

LayerPart layer_of(Numbers& r) {
    std::array<std::uint64_t, kLayerNumbers> v{};
    for (auto& x : v) x = r.next();
    if (v[0] > static_cast<std::uint64_t>(LayerKind::compressed)) r.ok = false;
    LayerPart l;
    l.kind = r.ok ? static_cast<LayerKind>(v[0]) : LayerKind::full;
    l.group = v[1];
    l.weights = v[2];
    l.routed_experts = v[3];
    l.active_weights = v[4];
    l.kv_cache = v[5];
    l.recurrent_state = v[6];
    l.largest_tensor = v[7];
    l.largest_expert_tensor = v[8];
    return l;
}

Result<ModelParts> parts_of(std::string_view record) {
    Numbers r{record};
    ModelParts parts;
    parts.input_weights = r.next();
    parts.output_weights = r.next();
    parts.overhead_percent = r.next();
    if (r.next() != 0) {
        RuntimeBuffers b;
        b.output_head = r.next();
        b.output_duplicate = r.next();
        parts.buffers = b;
    }
    // Every layer and run takes at least one byte: a count past the bytes is corrupt.
    const std::uint64_t n_distinct = r.next();
    if (!r.ok || n_distinct > record.size()) return std::unexpected(unreadable());
    std::vector<LayerPart> distinct;
    for (std::uint64_t k = 0; k < n_distinct && r.ok; ++k) distinct.push_back(layer_of(r));
    const std::uint64_t n_runs = r.next();
    if (!r.ok || n_runs > record.size()) return std::unexpected(unreadable());
    for (std::uint64_t k = 0; k < n_runs && r.ok; ++k) {
        const std::uint64_t which = r.next();
        const std::uint64_t count = r.next();
        if (which >= distinct.size() || count > kMaxLayers - parts.layers.size()) {
            r.ok = false;
            break;
        }
        parts.layers.insert(parts.layers.end(), count, distinct[which]);
    }
    if (!r.ok || r.pos != record.size()) return std::unexpected(unreadable());
    return parts;
}

}  // namespace

std::string keep_weight_parts(const std::vector<std::pair<std::string, ModelParts>>& by_quant) {
    std::string out;
    for (const auto& [id, parts] : by_quant) {
        const std::string record = record_of(parts);
        append_varint(out, id.size());
        out += id;
        append_varint(out, record.size());
        out += record;
    }
    return out;
}

Result<std::optional<ModelParts>> kept_weight_parts(std::string_view kept,
                                                    std::string_view quant_id) {
    std::size_t pos = 0;
    while (pos < kept.size()) {
        const auto id_size = read_varint(kept, pos);
        if (!id_size || *id_size > kept.size() - pos) return std::unexpected(unreadable());
        const std::string_view id = kept.substr(pos, *id_size);
        pos += *id_size;
        const auto size = read_varint(kept, pos);
        if (!size || *size > kept.size() - pos) return std::unexpected(unreadable());
        if (id == quant_id) {
            CANITRUN_TRY_ASSIGN(auto parts, parts_of(kept.substr(pos, *size)));
            return std::optional<ModelParts>{std::move(parts)};
        }
        pos += *size;
    }
    return std::optional<ModelParts>{};
}

}  // namespace canitrun
