#include "canitrun/mlx_speed.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "canitrun/checked.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/speed.hpp"
#include "json_text.hpp"

namespace canitrun {
namespace {

using nlohmann::json;

Result<MlxRun> run_from(const json& row, std::size_t index) {
    const auto where = "validation/mlx.json row " + std::to_string(index + 1);
    if (!row.is_object()) return fail(ErrorKind::bad_database, where + " is not an object");
    MlxRun r;
    r.model = json_text(row, "model");
    auto [model_id, exact_model] = row_model(row);
    r.model_id = std::move(model_id);
    r.exact_model = exact_model;
    r.gpu_id = json_text(row, "gpu_id");
    r.engine = json_text(row, "engine");
    r.date = json_text(row, "date");
    r.source = json_text(row, "source");
    r.quote = json_text(row, "quote");
    r.note = json_text(row, "note");
    const auto bits = row.find("bits");
    if (bits == row.end() || !bits->is_number_unsigned() ||
        (bits->get<std::uint64_t>() != 4 && bits->get<std::uint64_t>() != 8 &&
         bits->get<std::uint64_t>() != 16)) {
        return fail(ErrorKind::bad_database, where + " has bits other than 4, 8 or 16");
    }
    r.bits = bits->get<std::uint64_t>();
    const auto tps = row.find("tokens_per_second");
    if (tps == row.end() || !tps->is_number() || tps->get<double>() <= 0) {
        return fail(ErrorKind::bad_database, where + " has no tokens_per_second");
    }
    r.tokens_per_second = tps->get<double>();
    if (const auto p = row.find("prompt_tokens"); p != row.end() && p->is_number_unsigned()) {
        r.prompt_tokens = p->get<std::uint64_t>();
    }
    if (r.model_id.empty() || r.gpu_id.empty() || r.source.empty() || r.quote.empty()) {
        return fail(ErrorKind::bad_database,
                    where + " lacks a model, a GPU, its source or the quote it was copied from");
    }
    return r;
}

}  // namespace

Result<std::vector<MlxRun>> parse_mlx_runs(std::string_view json_text) {
    const json doc = json::parse(json_text, nullptr, false);
    if (!doc.is_array()) return fail(ErrorKind::bad_database, "validation/mlx.json is not a list");
    std::vector<MlxRun> out;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        CANITRUN_TRY_ASSIGN(auto r, run_from(doc[i], i));
        out.push_back(std::move(r));
    }
    return out;
}

const std::vector<MlxRun>& embedded_mlx_runs() {
    // Parsed on the first exo plan only: no other command reads it.
    static const std::vector<MlxRun> runs = [] {
        const auto& files = embedded_mlx_files();
        const auto it = files.find("mlx.json");
        if (it == files.end()) return std::vector<MlxRun>{};
        auto parsed = parse_mlx_runs(it->second);
        return parsed ? std::move(*parsed) : std::vector<MlxRun>{};
    }();
    return runs;
}

Quant mlx_quant(std::uint64_t bits) {
    Quant q;
    q.id = bits >= 16 ? "MLX-bf16" : "MLX-" + std::to_string(bits) + "bit";
    q.name = bits >= 16 ? "MLX bf16" : "MLX " + std::to_string(bits) + "-bit (affine, group 64)";
    q.bpw_e4 = bits >= 16 ? 16 * kBpwScale : bits * kBpwScale + kBpwScale / 2;
    q.format = "mlx";
    q.derivation = "mlx.core.quantize affine defaults: bits + 2 x 16 / 64 per weight";
    q.source =
        "https://ml-explore.github.io/mlx/build/html/python/_autosummary/mlx.core.quantize.html";
    return q;
}

Bytes mlx_head_bytes(const Model& model, const Quant& quant) {
    return weight_bytes(checked::mul(model.arch.vocab_size, model.arch.hidden_size), quant);
}

Bytes decode_read_bytes(const ModelParts& parts, std::uint64_t first, std::uint64_t count,
                        Bytes head) {
    Bytes read = 0;
    for (std::uint64_t l = first; l < first + count && l < parts.layers.size(); ++l) {
        const LayerPart& p = parts.layers[l];
        read = checked::add(
            read, checked::add(p.active_weights, checked::add(p.kv_cache, p.recurrent_state)));
    }
    return checked::add(read, head);
}

Result<std::vector<MlxShare>> mlx_shares(const Database& db, const std::vector<MlxRun>& runs) {
    std::vector<MlxShare> out;
    for (const MlxRun& r : runs) {
        const auto model = db.find_model(r.model_id);
        const auto gpu = db.find_gpu(r.gpu_id);
        if (!model || !gpu) continue;  // a --data database without them
        const GpuDevice device = device_for(**gpu);
        if (apple_chip(device) == 0 || device.bandwidth_gbps <= 0) continue;
        EstimateOptions o;
        o.context = std::max<std::uint64_t>(r.prompt_tokens, 1);
        CANITRUN_TRY_ASSIGN(auto parts, model_parts(**model, mlx_quant(r.bits), o));
        const Bytes read = decode_read_bytes(parts, 0, parts.layers.size(),
                                             mlx_head_bytes(**model, mlx_quant(r.bits)));
        const double share =
            static_cast<double>(read) * r.tokens_per_second / (device.bandwidth_gbps * 1e9);
        out.push_back({apple_chip(device), share, &r});
    }
    return out;
}

std::vector<double> mlx_shares_for(const std::vector<MlxShare>& all, const GpuDevice& device) {
    std::vector<double> out;
    const int chip = apple_chip(device);
    if (chip == 0) return out;
    for (const MlxShare& s : all) {
        if (s.chip == chip) out.push_back(s.share);
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace canitrun
