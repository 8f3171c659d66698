#include "csv_output.hpp"

#include <fmt/format.h>

#include "canitrun/fit.hpp"

namespace canitrun::cli {
namespace {

std::string num(std::uint64_t v) {
    return std::to_string(v);
}

std::string real(double v) {
    return fmt::format("{}", v);
}

}  // namespace

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string q = "\"";
    for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

CsvWriter::CsvWriter(std::ostream& out, const std::vector<std::string>& header) : out_(out) {
    row(header);
}

void CsvWriter::row(const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) out_ << (i ? "," : "") << csv_field(fields[i]);
    out_ << "\r\n";
}

// gpu_bytes is the page's headline (VRAM on the GPU), host_bytes what stays in RAM, total_bytes
// both; file_bytes the GGUF download, empty for a format that is not GGUF.
void write_model_csv(std::ostream& out, const ModelReport& r) {
    CsvWriter csv(out, {"model", "quant", "context", "kv_type", "weights_bytes", "kv_cache_bytes",
                        "overhead_bytes", "total_bytes", "recommended", "gpu_bytes", "host_bytes",
                        "file_bytes"});
    for (const auto& row : r.rows) {
        const Estimate& e = row.estimate;
        csv.row({r.model->id, row.quant->id, num(r.options.context), r.options.kv_type.id,
                 num(e.term(TermKind::weights)), num(e.term(TermKind::kv_cache)),
                 num(e.term(TermKind::overhead)), num(e.total()),
                 row.quant->recommended ? "true" : "false", num(e.on(Device::gpu)),
                 num(e.on(Device::cpu)), row.file_bytes ? num(*row.file_bytes) : ""});
    }
}

namespace {

// One device's share: the same terms the terminal's placement table sums into Buffers, apart.
void placement_row(CsvWriter& csv, const std::vector<std::string>& lead, const Share& s,
                   std::uint64_t layers) {
    std::vector<std::string> fields = lead;
    for (const std::string& f :
         {num(layers), std::string(s.output ? "true" : "false"), num(s.weights), num(s.kv_cache),
          num(s.recurrent_state), num(s.compute), num(s.runtime), num(s.overhead),
          num(s.resident_load()), num(s.total()), num(s.most()), num(s.capacity),
          std::string(s.fits() ? "true" : "false")}) {
        fields.push_back(f);
    }
    csv.row(fields);
}

}  // namespace

void write_placement_csv(std::ostream& out, const ModelReport& r) {
    CsvWriter csv(out, {"model", "quant", "context", "plan", "device", "name", "layers", "output",
                        "weights_bytes", "kv_cache_bytes", "recurrent_state_bytes", "compute_bytes",
                        "runtime_bytes", "overhead_bytes", "resident_bytes", "total_bytes",
                        "most_bytes", "memory_bytes", "fits"});
    const HardwareReport& h = *r.hardware;
    const HardwareAnswer& a = h.selected;
    const Placement& p = a.plan.placement;
    const std::vector<std::string> lead = {
        r.model->id, a.quant->id, num(a.settings.estimate.context), plan_kind_name(a.plan.kind)};
    for (std::size_t i = 0; i < p.gpus.size(); ++i) {
        const GpuDevice& d = h.hardware.gpus[i];
        std::vector<std::string> at = lead;
        at.push_back("gpu" + num(i));
        at.push_back(d.gpu != nullptr ? d.gpu->id : d.name);
        placement_row(csv, at, p.gpus[i], p.gpus[i].layers);
    }
    std::vector<std::string> ram = lead;
    ram.push_back("ram");
    ram.push_back("system RAM");
    placement_row(csv, ram, p.ram, p.ram.layers);
}

void write_kv_curve_csv(std::ostream& out, const ModelReport& r) {
    CsvWriter csv(
        out, {"model", "quant", "context", "kv_type", "this_model_bytes", "all_attention_bytes",
              "this_model_total_bytes", "all_attention_total_bytes"});
    for (const auto& p : r.kv_curve) {
        csv.row({r.model->id, r.quant->id, num(p.context), r.options.kv_type.id,
                 num(p.this_model_bytes), num(p.all_attention_bytes), num(p.this_model_total_bytes),
                 num(p.all_attention_total_bytes)});
    }
}

void write_gpus_csv(std::ostream& out, const ModelReport& r) {
    CsvWriter csv(out, {"gpu", "name", "vram_gb", "vram_bytes", "bandwidth_gbps", "class", "fit"});
    const auto rows = [&](const std::vector<const Gpu*>& gpus, const char* fit) {
        for (const Gpu* g : gpus) {
            csv.row({g->id, g->name, num(g->vram_gb), num(g->vram_bytes), real(g->bandwidth_gbps),
                     gpu_class_name(g->gpu_class), fit});
        }
    };
    rows(r.gpus.native, "native");
    rows(r.gpus.offload, "offload");
}

void write_models_csv(std::ostream& out, const std::vector<const Model*>& models) {
    CsvWriter csv(out, {"model", "name", "vendor", "params_total", "params_active",
                        "context_native", "layers"});
    for (const Model* m : models) {
        csv.row({m->id, m->name, m->vendor, num(m->params_total), num(m->params_active),
                 num(m->context_native), num(m->arch.layers)});
    }
}

void write_gpu_list_csv(std::ostream& out, const std::vector<const Gpu*>& gpus) {
    CsvWriter csv(out, {"gpu", "name", "vendor", "vram_gb", "vram_bytes", "bandwidth_gbps",
                        "fp16_tflops", "class"});
    for (const Gpu* g : gpus) {
        csv.row({g->id, g->name, g->vendor, num(g->vram_gb), num(g->vram_bytes),
                 real(g->bandwidth_gbps), real(g->fp16_tflops), gpu_class_name(g->gpu_class)});
    }
}

void write_quants_csv(std::ostream& out, const Database& db) {
    CsvWriter csv(out, {"quant", "bits_per_weight", "quality_rank", "format", "requires_backend",
                        "recipe_publisher", "recipe_base"});
    for (const auto& q : db.quants) {
        csv.row({q.id, real(static_cast<double>(q.bpw_e4) / static_cast<double>(kBpwScale)),
                 num(q.quality_rank), q.format, q.requires_backend, q.recipe_publisher,
                 q.recipe_base});
    }
}

void write_model_fits_csv(std::ostream& out, const std::vector<ModelFit>& fits) {
    CsvWriter csv(out, {"model", "params_total", "quant", "context", "gpu_total_bytes",
                        "max_context", "decode_tokens_per_s"});
    for (const auto& f : fits) {
        const auto& a = f.answer;
        csv.row({f.model->id, num(f.model->params_total), a.quant->id,
                 num(a.settings.estimate.context), num(a.plan.placement.gpu_total()),
                 num(f.max_context),
                 a.speed.decode_tokens_per_s > 0 ? real(a.speed.decode_tokens_per_s) : ""});
    }
}

void write_system_csv(std::ostream& out, const DetectedSystem& system, const Hardware& hardware) {
    CsvWriter csv(out, {"index", "name", "vendor", "memory_bytes", "usable_bytes", "database_id",
                        "bandwidth_gbps", "found_by"});
    for (std::size_t i = 0; i < system.gpus.size(); ++i) {
        const DetectedGpu& d = system.gpus[i];
        const GpuDevice& dev = hardware.gpus[i];
        csv.row({num(i), d.name, d.vendor, num(d.memory), num(dev.memory),
                 dev.gpu != nullptr ? dev.gpu->id : "", real(dev.bandwidth_gbps), d.via});
    }
}

}  // namespace canitrun::cli
