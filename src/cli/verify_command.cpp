#include "verify_command.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "app.hpp"
#include "canitrun/bounded_file.hpp"
#include "canitrun/format.hpp"
#include "canitrun/verify.hpp"
#include "canitrun/verify_bench.hpp"
#include "json_output.hpp"
#include "speed_text.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

using nlohmann::json;

double to_mib(Bytes b) {
    return static_cast<double>(b) / 1048576.0;
}

std::string mib_cell(const std::optional<Bytes>& b) {
    return b ? fmt::format("{:.2f} MiB", to_mib(*b)) : std::string("—");
}

std::string difference(const VerifyRow& r) {
    if (!r.estimate || !r.actual) return "—";
    const double diff = to_mib(*r.estimate) - to_mib(*r.actual);
    std::string out = fmt::format("{:+.2f} MiB", diff);
    if (*r.actual > 0) out += fmt::format(" ({:+.2f} %)", 100.0 * diff / to_mib(*r.actual));
    return out;
}

json optional_bytes(const std::optional<Bytes>& b) {
    return b ? json(*b) : json(nullptr);
}

std::string rate_cell(const std::optional<double>& v) {
    return v ? fmt::format("{:.2f}", *v) : std::string("—");
}

json bench_json(const std::string& path, const BenchCheck& c) {
    json rows = json::array();
    for (const auto& r : c.rows) {
        rows.push_back(
            {{"model", r.row.model},
             {"model_id", r.model_id.empty() ? json(nullptr) : json(r.model_id)},
             {"quant", r.quant_id.empty() ? json(nullptr) : json(r.quant_id)},
             {"backend", r.row.backend},
             {"test", r.row.test},
             {"measured_tokens_per_s", r.row.tokens_per_second},
             {"predicted_tokens_per_s", r.predicted ? json(*r.predicted) : json(nullptr)},
             {"error",
              r.predicted ? json(*r.predicted / r.row.tokens_per_second - 1) : json(nullptr)},
             {"band", r.band ? json(*r.band) : json(nullptr)},
             {"why", r.why}});
    }
    return {{"llama_bench", path},
            {"format", c.format},
            {"gpus", c.gpus},
            {"rows", rows},
            {"notes", c.notes}};
}

std::string bench_text(const std::string& path, const BenchCheck& c) {
    std::ostringstream out;
    out << "llama-bench output " << path << " (" << c.format << "), predicted on " << c.gpus
        << "\n\n";
    Table t({"model", "test", "backend", "measured t/s", "canitrun t/s", "error", "band"},
            {false, false, false, true, true, true, true});
    for (const auto& r : c.rows) {
        const std::string error =
            r.predicted
                ? fmt::format("{:+.0f} %", 100 * (*r.predicted / r.row.tokens_per_second - 1))
                : r.why;
        t.add_row({r.model_id.empty() ? r.row.model : r.model_id + " " + r.quant_id, r.row.test,
                   r.row.backend, rate_cell(r.row.tokens_per_second), rate_cell(r.predicted), error,
                   r.band ? band_text(*r.band) : ""});
    }
    t.write(out, "  ");
    for (const auto& n : c.notes) out << "\n  note: " << n;
    out << "\n";
    return out.str();
}

// llama-bench output, when the text is one; nullopt when it is not (then it is read as a log).
std::optional<Result<CommandOutput>> try_bench(const Database& db, const std::string& path,
                                               const std::string& text, bool as_json,
                                               const std::string& gpu_spec) {
    auto bench = parse_llama_bench(text);
    if (!bench) return std::nullopt;
    std::vector<const Gpu*> gpus;
    if (!gpu_spec.empty() && gpu_spec != "auto") {
        auto parsed = parse_gpu_spec(db, gpu_spec);
        if (!parsed) return Result<CommandOutput>(std::unexpected(parsed.error()));
        gpus = *parsed;
    }
    auto check = verify_llama_bench(db, *bench, gpus);
    if (!check) return Result<CommandOutput>(std::unexpected(check.error()));
    return Result<CommandOutput>(CommandOutput{
        as_json ? bench_json(path, *check).dump(2) + "\n" : bench_text(path, *check), kExitOk});
}

}  // namespace

Result<CommandOutput> run_verify(const Database& db, const std::string& log_path, bool as_json,
                                 const std::string& gpu_spec) {
    auto text = read_bounded_file(log_path, kMaxLogFileBytes, "llama.cpp log");
    if (!text) return std::unexpected(text.error());
    if (auto bench = try_bench(db, log_path, *text, as_json, gpu_spec)) return std::move(*bench);
    if (!gpu_spec.empty()) {
        return fail(ErrorKind::bad_input,
                    "--gpu applies to llama-bench output; a llama.cpp log names its own devices",
                    "leave out --gpu");
    }
    auto log = parse_llama_log(*text);
    if (!log)
        return fail(ErrorKind::bad_input, log_path + ": " + log.error().message, log.error().hint);
    std::optional<Quant> quant;
    const std::string file_type = log->file_type();
    if (!file_type.empty()) {
        if (auto q = db.find_quant(quant_id_from_file_type(file_type))) quant = **q;
    }
    auto report = verify_llama_log(*log, quant);
    if (!report) return std::unexpected(report.error());

    std::ostringstream out;
    if (as_json) {
        json contexts = json::array();
        for (const auto& c : report->contexts) {
            json rows = json::array();
            for (const auto& r : c.rows) {
                json row = {{"term", r.term},
                            {"estimate_bytes", optional_bytes(r.estimate)},
                            {"llama_cpp_bytes", optional_bytes(r.actual)}};
                if (r.estimate && r.actual) {
                    row["difference_bytes"] = static_cast<std::int64_t>(*r.estimate) -
                                              static_cast<std::int64_t>(*r.actual);
                }
                rows.push_back(row);
            }
            contexts.push_back({{"n_ctx", c.n_ctx},
                                {"n_ubatch", c.n_ubatch},
                                {"type_k", c.type_k},
                                {"terms", rows}});
        }
        const json doc = {{"log", log_path},
                          {"arch", report->arch},
                          {"file_type", report->file_type},
                          {"model", model_json(report->model)},
                          {"weights_basis", report->weights_basis},
                          {"units", "bytes"},
                          {"contexts", contexts},
                          {"notes", report->notes}};
        out << doc.dump(2) << "\n";
        return CommandOutput{out.str(), kExitOk};
    }
    out << "llama.cpp log " << log_path << "\n  arch "
        << (report->arch.empty() ? "?" : report->arch);
    if (!report->file_type.empty()) out << " · file type " << report->file_type;
    if (const auto p = log->params_billions()) out << fmt::format(" · {:.2f} B params", *p);
    out << "\n";
    if (!report->weights_basis.empty())
        out << "  weights estimate: " << report->weights_basis << "\n";
    for (const auto& c : report->contexts) {
        out << "\n";
        if (c.n_ctx > 0) {
            out << "  n_ctx " << format_thousands(c.n_ctx) << " · n_ubatch " << c.n_ubatch
                << " · KV " << c.type_k << "\n";
        }
        Table t({"term", "canitrun", "llama.cpp", "difference"}, {false, true, true, true});
        for (const auto& r : c.rows) {
            t.add_row({r.term, mib_cell(r.estimate), mib_cell(r.actual), difference(r)});
        }
        t.write(out, "    ");
    }
    for (const auto& n : report->notes) out << "\n  note: " << n;
    if (!report->notes.empty()) out << "\n";
    return CommandOutput{out.str(), kExitOk};
}

}  // namespace canitrun::cli
