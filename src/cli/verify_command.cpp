#include "verify_command.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "app.hpp"
#include "canitrun/bounded_file.hpp"
#include "canitrun/format.hpp"
#include "canitrun/verify.hpp"
#include "json_output.hpp"
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

}  // namespace

Result<CommandOutput> run_verify(const Database& db, const std::string& log_path, bool as_json) {
    auto text = read_bounded_file(log_path, kMaxLogFileBytes, "llama.cpp log");
    if (!text) return std::unexpected(text.error());
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
