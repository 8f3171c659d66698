// validation/llama-bench.json read into measurements. Compiled into the core and, on its own,
// into the build step that embeds the file (src/snapshot/make_measurements.cpp), so it uses
// nothing of the core but its headers' inline parts.

#include <algorithm>
#include <nlohmann/json.hpp>

#include "canitrun/measurements.hpp"
#include "json_text.hpp"

namespace canitrun {
namespace {

using nlohmann::json;

// llama-bench prints F16 / F32 where canitrun's quantization ids say FP16 / FP32.
std::string quant_id(std::string q) {
    if (q == "F16") return "FP16";
    if (q == "F32") return "FP32";
    return q;
}

Result<Measurement> measurement_from(const json& row, std::size_t index) {
    const auto where = "validation row " + std::to_string(index + 1);
    if (!row.is_object()) return fail(ErrorKind::bad_database, where + " is not an object");
    Measurement m;
    auto [model_id, exact_model] = row_model(row);
    m.model_id = std::move(model_id);
    m.exact_model = exact_model;
    m.quant = quant_id(json_text(row, "quant"));
    m.gpu_id = json_text(row, "gpu_id");
    m.backend = json_text(row, "backend");
    m.test = json_text(row, "test");
    m.build = json_text(row, "build");
    m.date = json_text(row, "date");
    m.source = json_text(row, "source");
    m.note = json_text(row, "note");
    m.outlier = m.note.find("outlier") != std::string::npos;
    const auto tps = row.find("tokens_per_second");
    if (tps == row.end() || !tps->is_number() || tps->get<double>() <= 0) {
        return fail(ErrorKind::bad_database, where + " has no tokens_per_second");
    }
    m.tokens_per_second = tps->get<double>();
    if (const auto g = row.find("size_gib");
        g != row.end() && g->is_number() && g->get<double>() > 0)
        m.file_gib = g->get<double>();
    if (const auto n = row.find("n_gpus"); n != row.end() && n->is_number_unsigned())
        m.n_gpus = n->get<std::uint64_t>();
    if (const auto n = row.find("ngl"); n != row.end() && n->is_number_unsigned())
        m.ngl = n->get<std::uint64_t>();
    // llama-bench splits a batch of n_batch tokens into micro-batches of n_ubatch.
    std::uint64_t ubatch = 512, batch = 2048;
    if (const auto n = row.find("n_ubatch"); n != row.end() && n->is_number_unsigned())
        ubatch = n->get<std::uint64_t>();
    if (const auto n = row.find("n_batch"); n != row.end() && n->is_number_unsigned())
        batch = n->get<std::uint64_t>();
    m.ubatch = std::min(ubatch, batch);
    if (m.ubatch == 0 || m.ubatch > (std::uint64_t{1} << 20))
        return fail(ErrorKind::bad_database, where + " has a micro-batch outside 1..2^20");
    if (const auto fa = row.find("fa"); fa != row.end() && fa->is_boolean())
        m.flash_attn = fa->get<bool>();
    if (m.source.empty()) return fail(ErrorKind::bad_database, where + " has no source");
    return m;
}

}  // namespace

Result<std::vector<Measurement>> parse_measurements(std::string_view json_text) {
    const json doc = json::parse(json_text, nullptr, false);
    if (doc.is_discarded() || !doc.is_array()) {
        return fail(ErrorKind::bad_database, "validation/llama-bench.json is not a JSON array");
    }
    std::vector<Measurement> out;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        CANITRUN_TRY_ASSIGN(auto m, measurement_from(doc[i], i));
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace canitrun
