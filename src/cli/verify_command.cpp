#include "verify_command.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>
#include <sstream>

#include "app.hpp"
#include "canitrun/bounded_file.hpp"
#include "canitrun/hardware.hpp"
#include "canitrun/verify.hpp"
#include "canitrun/verify_bench.hpp"
#include "canitrun/verify_server.hpp"
#include "csv_output.hpp"
#include "format.hpp"
#include "json_output.hpp"
#include "speed_text.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

using nlohmann::json;

std::string mib_cell(const std::optional<Bytes>& b) {
    return b ? format_mib(*b) : std::string("—");
}

// A signed figure at two decimals; one that rounds to zero prints +0.00, never -0.00.
std::string signed_two(double v) {
    std::string s = fmt::format("{:+.2f}", v);
    return s == "-0.00" ? "+0.00" : s;
}

std::string difference(const VerifyRow& r) {
    if (!r.estimate || !r.actual) return "—";
    const double diff = to_mib(*r.estimate) - to_mib(*r.actual);
    std::string out = signed_two(diff) + " MiB";
    if (*r.actual > 0) out += " (" + signed_two(100.0 * diff / to_mib(*r.actual)) + " %)";
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

// One row per llama-bench row, raw rates (tokens/s) and the relative error.
void write_bench_csv(std::ostream& out, const BenchCheck& c) {
    CsvWriter csv(out, {"model", "model_id", "quant", "backend", "test", "measured_tokens_per_s",
                        "predicted_tokens_per_s", "error", "band", "why"});
    const auto real = [](double v) { return fmt::format("{}", v); };
    for (const auto& r : c.rows) {
        csv.row({r.row.model, r.model_id, r.quant_id, r.row.backend, r.row.test,
                 real(r.row.tokens_per_second), r.predicted ? real(*r.predicted) : "",
                 r.predicted ? real(*r.predicted / r.row.tokens_per_second - 1) : "",
                 r.band ? real(*r.band) : "", r.why});
    }
}

void write_bench_text(std::ostream& out, const std::string& path, const BenchCheck& c) {
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
}

// llama-bench output, when the text is one; nullopt when it is not (then it is read as a log).
std::optional<Result<CommandResult>> try_bench(const Database& db, const std::string& path,
                                               const std::string& text,
                                               const std::string& gpu_spec) {
    auto bench = parse_llama_bench(text);
    if (!bench) return std::nullopt;
    std::vector<const Gpu*> gpus;
    if (!gpu_spec.empty() && gpu_spec != "auto") {
        auto parsed = parse_gpu_spec(db, gpu_spec);
        if (!parsed) return Result<CommandResult>(std::unexpected(parsed.error()));
        gpus = *parsed;
    }
    auto check = verify_llama_bench(db, *bench, gpus);
    if (!check) return Result<CommandResult>(std::unexpected(check.error()));
    auto c = std::make_shared<const BenchCheck>(std::move(*check));
    CommandResult r;
    r.what = "verify";
    r.views.json = [c, path] { return bench_json(path, *c); };
    r.views.csv = [c](std::ostream& out) { write_bench_csv(out, *c); };
    r.text = [c, path](std::ostream& out) { write_bench_text(out, path, *c); };
    return Result<CommandResult>(std::move(r));
}

// One compared term: both sides in bytes and, where both exist, the signed difference.
json compared_json(const std::string& term, const std::optional<Bytes>& estimate,
                   const std::optional<Bytes>& actual) {
    json row = {{"term", term},
                {"estimate_bytes", optional_bytes(estimate)},
                {"llama_cpp_bytes", optional_bytes(actual)}};
    if (estimate && actual) {
        row["difference_bytes"] =
            static_cast<std::int64_t>(*estimate) - static_cast<std::int64_t>(*actual);
    }
    return row;
}

json devices_json(const std::optional<DeviceCheck>& check) {
    if (!check) return nullptr;
    json rows = json::array();
    for (const auto& r : check->rows) {
        json row = compared_json(r.term, r.estimate, r.actual);
        row["device"] = r.device;
        rows.push_back(row);
    }
    json runtime = json::array();
    for (const auto& r : check->runtime) {
        json row = compared_json(r.term, r.estimate, r.actual);
        row["device"] = r.device;
        runtime.push_back(row);
    }
    json fit = json::array();
    for (const auto& f : check->fit) {
        fit.push_back({{"device", f.device},
                       {"gpu", f.gpu},
                       {"used_bytes", f.used},
                       {"capacity_bytes", f.capacity},
                       {"fits", f.fits()}});
    }
    return {{"gpus", check->gpus},
            {"gpu_layers", check->gpu_layers ? json(*check->gpu_layers) : json(nullptr)},
            {"host_expert_layers", check->host_expert_layers},
            {"file_types_match",
             check->file_types_match ? json(*check->file_types_match) : json(nullptr)},
            {"rows", rows},
            {"runtime", runtime},
            {"hardware", fit},
            {"notes", check->notes}};
}

void write_devices_text(std::ostream& out, const DeviceCheck& check) {
    out << "    per device (" << check.gpus.size() << " GPU" << (check.gpus.size() == 1 ? "" : "s");
    if (check.host_expert_layers > 0) {
        out << ", experts of " << check.host_expert_layers << " layers in host memory";
    }
    out << "):\n";
    Table t({"device", "term", "canitrun", "llama.cpp", "difference"},
            {false, false, true, true, true});
    for (const auto& r : check.rows) {
        t.add_row({r.device, r.term, mib_cell(r.estimate), mib_cell(r.actual),
                   difference(VerifyRow{r.term, r.estimate, r.actual})});
    }
    for (const auto& r : check.runtime) {
        t.add_row({r.device, r.term, mib_cell(r.estimate), mib_cell(r.actual),
                   difference(VerifyRow{r.term, r.estimate, r.actual})});
    }
    t.write(out, "      ");
    if (!check.fit.empty()) {
        out << "    the plan on the cards (with the runtime, less the margin kept free):\n";
        Table f({"device", "card", "planned", "capacity", "verdict"},
                {false, false, true, true, false});
        for (const auto& g : check.fit) {
            f.add_row({g.device, g.gpu, format_mib(g.used), format_mib(g.capacity),
                       g.fits() ? "fits" : "does not fit"});
        }
        f.write(out, "      ");
    }
    for (const auto& n : check.notes) out << "      note: " << n << "\n";
}

// The database cards a log's GPUs are (its "using device CUDA0 (NAME)" lines), one entry per
// GPU, null where the log names none the database has.
std::vector<const Gpu*> logged_cards(const Database& db, const LlamaLog& log,
                                     const std::vector<std::string>& gpus) {
    std::vector<const Gpu*> out;
    for (const auto& gpu : gpus) {
        const Gpu* card = nullptr;
        for (const auto& d : log.devices) {
            if (d.device != gpu || d.name.empty()) continue;
            if (const auto found = db.find_gpu(d.name)) card = *found;
        }
        out.push_back(card);
    }
    return out;
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// The cards the plan of a log is weighed on: --gpu (the resolver every command uses), one
// name for each of the log's GPUs or one per GPU in llama.cpp's order; without it (or auto)
// the log's own cards where the database has every one, else none (no verdict).
Result<std::vector<GpuDevice>> planned_cards(const Database& db, const std::string& spec,
                                             const std::vector<std::string>& gpus,
                                             const std::vector<const Gpu*>& logged,
                                             std::vector<std::string>& notes) {
    std::vector<GpuDevice> out;
    if (spec.empty() || spec == "auto") {
        if (gpus.empty() || std::find(logged.begin(), logged.end(), nullptr) != logged.end())
            return out;
        for (const Gpu* g : logged) out.push_back(device_for(*g));
        return out;
    }
    if (gpus.empty()) {
        return fail(ErrorKind::bad_input,
                    "--gpu: the log shows no GPU buffer, so there is no device to plan on",
                    "leave out --gpu");
    }
    CANITRUN_TRY_ASSIGN(const GpuSelection selection, select_gpus(db, spec));
    out = devices_for(selection.gpus);
    notes.insert(notes.end(), selection.notes.begin(), selection.notes.end());
    if (out.size() == 1 && gpus.size() > 1) {
        out.assign(gpus.size(), out.front());
        notes.push_back("--gpu names one " + out.front().name + ": each of the log's " +
                        std::to_string(gpus.size()) + " GPUs (" + joined(gpus) +
                        ") is planned as one");
    } else if (out.size() != gpus.size()) {
        return fail(ErrorKind::bad_input,
                    "--gpu names " + std::to_string(out.size()) + " GPUs; the log's run used " +
                        std::to_string(gpus.size()) + " (" + joined(gpus) + ")",
                    "name one GPU for all of them, or one per device in the log's order, as "
                    "in \"" +
                        std::to_string(gpus.size()) + "x3090\"");
    }
    if (gpus.size() > 1) {
        notes.push_back(
            "the layers are split over the cards as the log's run split them (its "
            "free memory, or its --tensor-split): llama.cpp's default split on these "
            "cards follows their own free memory");
    }
    return out;
}

json log_json(const std::string& log_path, const VerifyReport& report) {
    json contexts = json::array();
    for (const auto& c : report.contexts) {
        json rows = json::array();
        for (const auto& r : c.rows) rows.push_back(compared_json(r.term, r.estimate, r.actual));
        contexts.push_back({{"n_ctx", c.n_ctx},
                            {"n_ubatch", c.n_ubatch},
                            {"type_k", c.type_k},
                            {"terms", rows},
                            {"devices", devices_json(c.devices)}});
    }
    json server = json::array();
    for (const auto& r : report.server)
        server.push_back(compared_json(r.term, r.estimate, r.actual));
    return {{"log", log_path},
            {"server", server},
            {"arch", report.arch},
            {"file_type", report.file_type},
            {"model", model_json(report.model)},
            {"weights_basis", report.weights_basis},
            {"units", "bytes"},
            {"contexts", contexts},
            {"notes", report.notes}};
}

// One row per term of each context the log allocated, raw bytes.
void write_log_csv(std::ostream& out, const VerifyReport& report) {
    CsvWriter csv(out, {"n_ctx", "n_ubatch", "type_k", "term", "estimate_bytes", "llama_cpp_bytes",
                        "difference_bytes"});
    const auto bytes = [](const std::optional<Bytes>& b) {
        return b ? std::to_string(*b) : std::string();
    };
    for (const auto& c : report.contexts) {
        for (const auto& r : c.rows) {
            const std::string diff = r.estimate && r.actual
                                         ? std::to_string(static_cast<std::int64_t>(*r.estimate) -
                                                          static_cast<std::int64_t>(*r.actual))
                                         : std::string();
            csv.row({std::to_string(c.n_ctx), std::to_string(c.n_ubatch), c.type_k, r.term,
                     bytes(r.estimate), bytes(r.actual), diff});
        }
    }
}

void write_log_text(std::ostream& out, const std::string& log_path, const VerifyReport& report,
                    const std::optional<double>& params_billions) {
    out << "llama.cpp log " << log_path << "\n  arch " << (report.arch.empty() ? "?" : report.arch);
    if (!report.file_type.empty()) out << " · file type " << report.file_type;
    if (params_billions) out << fmt::format(" · {:.2f} B params", *params_billions);
    out << "\n";
    if (!report.weights_basis.empty())
        out << "  weights estimate: " << report.weights_basis << "\n";
    for (const auto& c : report.contexts) {
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
        if (c.devices) write_devices_text(out, *c.devices);
    }
    if (!report.server.empty()) {
        out << "\n  beside the model (llama-server):\n";
        Table t({"term", "canitrun", "llama.cpp", "difference"}, {false, true, true, true});
        for (const auto& r : report.server) {
            t.add_row({r.term, mib_cell(r.estimate), mib_cell(r.actual), difference(r)});
        }
        t.write(out, "    ");
    }
    for (const auto& n : report.notes) out << "\n  note: " << n;
    if (!report.notes.empty()) out << "\n";
}

}  // namespace

Result<CommandResult> run_verify(const Database& db, const std::string& log_path,
                                 const std::string& gpu_spec, const std::string& model_id,
                                 const Quant* asked_quant) {
    CANITRUN_TRY_ASSIGN(const std::string text,
                        read_bounded_file(log_path, kMaxLogFileBytes, "llama.cpp log"));
    if (auto bench = try_bench(db, log_path, text, gpu_spec)) return std::move(*bench);
    auto log = parse_llama_log(text);
    if (!log)
        return fail(ErrorKind::bad_input, log_path + ": " + log.error().message, log.error().hint);
    const std::vector<std::string> gpus = log_gpu_devices(*log);
    const std::vector<const Gpu*> logged = logged_cards(db, *log, gpus);
    std::vector<std::string> card_notes;
    CANITRUN_TRY_ASSIGN(const std::vector<GpuDevice> cards,
                        planned_cards(db, gpu_spec, gpus, logged, card_notes));
    std::optional<Quant> quant;
    if (const Quant* q = asked_quant != nullptr ? asked_quant : quant_of_log(db, *log)) quant = *q;
    const Model* model = nullptr;
    if (!model_id.empty()) {
        CANITRUN_TRY_ASSIGN(model, db.find_model(model_id));
        if (!quant) {
            return fail(ErrorKind::bad_input,
                        log_path + " names no file type, so the weights cannot be planned",
                        "give the quantization the run used, as in --quant Q4_K_M");
        }
    }
    const Model* known = model == nullptr ? database_model_of_log(db, *log) : nullptr;
    CANITRUN_TRY_ASSIGN(VerifyReport verified, verify_llama_log(*log, quant, model, known));
    // A draft's rows get canitrun's figures where the draft can be planned (the main model for
    // an MTP context; a draft model named by its own metadata).
    estimate_draft_rows(db, *log, verified.arch.empty() ? nullptr : &verified.model,
                        verified.server);
    for (auto& c : verified.contexts) {
        if (c.devices) check_on_hardware(*log, logged, cards, *c.devices);
    }
    verified.notes.insert(verified.notes.begin(), card_notes.begin(), card_notes.end());
    auto report = std::make_shared<const VerifyReport>(std::move(verified));
    const std::optional<double> params = log->params_billions();
    CommandResult r;
    r.what = "verify";
    r.views.json = [report, log_path] { return log_json(log_path, *report); };
    r.views.csv = [report](std::ostream& out) { write_log_csv(out, *report); };
    r.text = [report, log_path, params](std::ostream& out) {
        write_log_text(out, log_path, *report, params);
    };
    return r;
}

}  // namespace canitrun::cli
