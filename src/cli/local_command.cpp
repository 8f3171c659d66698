#include "local_command.hpp"

#include <nlohmann/json.hpp>

#include "csv_output.hpp"
#include "file_command.hpp"
#include "format.hpp"
#include "style.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

using nlohmann::json;

std::string hardware_name(const Hardware& h) {
    std::string s;
    for (const auto& d : h.gpus) s += (s.empty() ? "" : " + ") + d.name;
    return s.empty() ? std::string("this machine's CPU and RAM") : s;
}

}  // namespace

LocalListing build_local_listing(const Database& db, const StoreRoots& roots,
                                 const ReportOptions& options) {
    LocalListing l;
    l.roots = roots;
    if (options.hardware) l.hardware = hardware_name(*options.hardware);
    l.models = local_listing(db, roots, options);
    return l;
}

void write_local(std::ostream& out, const LocalListing& l) {
    out << heading(out, "Models on this machine (" + std::to_string(l.models.size()) + ")") << "\n";
    const auto where = [&](const char* store, const std::string& path) {
        if (!path.empty()) out << "  " << store << ": " << path << "\n";
    };
    where("Ollama", l.roots.ollama);
    where("Hugging Face", l.roots.huggingface);
    for (const auto& d : l.roots.lmstudio) where("LM Studio", d);
    where("llama.cpp", l.roots.llamacpp);
    if (l.models.empty()) {
        out << "  No GGUF model found in these folders.\n";
        return;
    }
    const bool plans = !l.hardware.empty();
    std::vector<std::string> header = {"Store", "Model", "Size", "VRAM", "Smallest GPU"};
    if (plans) header.push_back("On " + l.hardware);
    Table t(header, {false, false, true, true, false, false});
    for (const auto& e : l.models) {
        std::vector<std::string> row = {e.where.store, e.where.name, format_gb(e.where.bytes)};
        if (!e.error.empty()) {
            row.push_back("-");
            row.push_back("unreadable: " + e.error);
            if (plans) row.push_back("-");
        } else {
            row.push_back(format_gb(e.gpu) + (e.rule == Rule::quick ? " (+ 12 %)" : ""));
            row.push_back(e.smallest ? display_name(*e.smallest) : std::string("none"));
            if (plans) row.push_back(e.plan ? plan_kind_name(*e.plan) : "-");
        }
        t.add_row(row);
    }
    t.write(out);
    out << "  VRAM: on the GPU, llama.cpp's allocation of each file's own tensors; (+ 12 %): the "
           "file's weights + KV + 12 %, where llama.cpp's layout of its architecture is not "
           "modelled (GB = 10^9 bytes). One in full: canitrun PATH\n";
}

json local_json(const LocalListing& l) {
    json models = json::array();
    for (const auto& e : l.models) {
        models.push_back({{"store", e.where.store},
                          {"name", e.where.name},
                          {"path", e.where.path},
                          {"bytes", e.where.bytes},
                          {"architecture", e.error.empty() ? json(e.architecture) : json(nullptr)},
                          {"weights_bytes", e.error.empty() ? json(e.weights) : json(nullptr)},
                          {"total_bytes", e.error.empty() ? json(e.total) : json(nullptr)},
                          {"gpu_bytes", e.error.empty() ? json(e.gpu) : json(nullptr)},
                          {"rule", e.error.empty() ? json(rule_name(e.rule)) : json(nullptr)},
                          {"smallest_gpu", e.smallest ? json(e.smallest->id) : json(nullptr)},
                          {"plan", e.plan ? json(plan_kind_name(*e.plan)) : json(nullptr)},
                          {"error", e.error.empty() ? json(nullptr) : json(e.error)}});
    }
    return {{"units", "bytes"},
            {"stores",
             {{"ollama", l.roots.ollama},
              {"huggingface", l.roots.huggingface},
              {"lmstudio", l.roots.lmstudio},
              {"llamacpp", l.roots.llamacpp}}},
            {"hardware", l.hardware.empty() ? json(nullptr) : json(l.hardware)},
            {"models", models}};
}

void write_local_csv(std::ostream& out, const LocalListing& l) {
    CsvWriter csv(out, {"store", "name", "path", "bytes", "architecture", "total_bytes",
                        "gpu_bytes", "rule", "smallest_gpu", "plan", "error"});
    for (const auto& e : l.models) {
        csv.row({e.where.store, e.where.name, e.where.path, std::to_string(e.where.bytes),
                 e.architecture, e.error.empty() ? std::to_string(e.total) : "",
                 e.error.empty() ? std::to_string(e.gpu) : "",
                 e.error.empty() ? rule_name(e.rule) : "", e.smallest ? e.smallest->id : "",
                 e.plan ? plan_kind_name(*e.plan) : "", e.error});
    }
}

}  // namespace canitrun::cli
