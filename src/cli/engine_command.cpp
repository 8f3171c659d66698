#include "engine_command.hpp"

#include "canitrun/hardware.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/name_match.hpp"
#include "canitrun/plan_views.hpp"
#include "canitrun/serving.hpp"
#include "canitrun/tensor_layout.hpp"
#include "csv_output.hpp"
#include "format.hpp"
#include "json_output.hpp"
#include "request.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

using json = nlohmann::json;

const char* device_name(Device d) {
    return d == Device::gpu ? "gpu" : "cpu";
}

Bytes on(const Estimate& e, Device d) {
    Bytes sum = 0;
    for (const auto& t : e.terms) {
        if (t.device == d) sum = checked::add(sum, t.bytes);
    }
    return sum;
}

void write_terms(std::ostream& out, const Estimate& e) {
    Table t({"term", "size", "where"}, {false, true, false});
    for (const auto& term : e.terms) {
        t.add_row({term_name(term.kind), format_gb(term.bytes), device_name(term.device)});
    }
    t.add_row({"on the GPU", format_gb(on(e, Device::gpu)), ""});
    t.add_row({"on the host", format_gb(on(e, Device::cpu)), ""});
    t.add_row({"total", format_gb(e.total()), ""});
    t.write(out);
}

struct Common {
    const Quant* quant = nullptr;
    const Gpu* gpu = nullptr;
    Bytes memory = 0;  // the GPU's bytes, or the --vram card's; 0: no budget asked
};

Result<Common> common(const EngineRequest& r) {
    Common c;
    c.quant = r.quant != nullptr   ? r.quant
              : r.model != nullptr ? r.db->default_quant(*r.model)
                                   : r.db->recommended_quant();
    if (r.hardware) {
        if (r.hardware->gpus.size() != 1) {
            return fail(ErrorKind::bad_input, "--engine answers for one GPU",
                        "drop --engine for the split over several GPUs, or name one GPU");
        }
        c.gpu = r.hardware->gpus.front().gpu;
        // the real bytes; on unified memory only the share the GPU may use by default
        c.memory = r.hardware->gpus.front().memory;
    } else if (r.vram) {
        c.memory = card_bytes_for_gb(*r.vram);  // as the planner takes a --vram budget
    }
    return c;
}

// The llama.cpp profile's answer, held for its views.
struct LlamaProfileView {
    Model model;  // a copy: a file's model does not outlive the request
    const Quant* quant = nullptr;
    std::string file;
    LlamaCppOptions options;
    Estimate estimate;
    const Gpu* gpu = nullptr;
    Bytes memory = 0;  // 0: no budget asked
    Bytes margin = 0;  // kept free on the GPU (--margin)
    Bytes device = 0;  // what the GPU holds
    bool fits() const { return memory == 0 || fits_device(device, memory, margin); }
};

json profile_json(const LlamaProfileView& v) {
    const LlamaCppOptions& o = v.options;
    json doc = {{"engine", "llama.cpp"},
                {"llama_cpp_commit", kLlamaCppCommit},
                {"model", v.model.id},
                {"llama_arch", llama_arch(v.model).value_or("")},
                {"quant", v.quant->id},
                {"context", o.context},
                {"ubatch", o.ubatch},
                {"parallel", o.n_seq},
                {"flash_attn", o.flash_attn == FlashAttn::off ? "off" : "on"},
                {"cache_type_k", to_lower(o.cache_type_k)},
                {"cache_type_v", to_lower(o.cache_type_v)},
                {"backend", backend_name(o.backend)},
                {"estimate", {{"terms", estimate_json(v.estimate)}}},
                {"gpu_bytes", v.device},
                {"host_bytes", on(v.estimate, Device::cpu)},
                {"total_bytes", v.estimate.total()},
                {"units", "bytes"}};
    if (v.memory != 0) doc["fits"] = v.fits();
    return doc;
}

// One row per term, raw bytes, with the device it lives on.
void write_profile_csv(std::ostream& out, const LlamaProfileView& v) {
    CsvWriter csv(out, {"term", "bytes", "device"});
    for (const auto& t : v.estimate.terms) {
        csv.row(
            {term_name(t.kind), std::to_string(t.bytes), t.device == Device::gpu ? "gpu" : "cpu"});
    }
}

// --quiet: whether it fits the --gpu / --vram budget, else the bytes on the GPU.
std::string profile_answer(const LlamaProfileView& v) {
    if (v.memory != 0) return v.fits() ? "fits" : "does not fit";
    return std::to_string(v.device);
}

void write_profile_text(std::ostream& out, const LlamaProfileView& v) {
    const LlamaCppOptions& o = v.options;
    out << (v.file.empty() ? v.model.name + " at " + v.quant->id : v.file) << ", "
        << format_context(o.context) << " context: llama.cpp " << kLlamaCppCommit << " profile ("
        << backend_name(o.backend) << ")\n";
    out << "  ubatch " << o.ubatch << " · " << o.n_seq
        << (o.n_seq == 1 ? " sequence" : " sequences") << " · "
        << (o.outputs == 0 ? "every token's outputs"
                           : std::to_string(o.outputs) + (o.outputs == 1 ? " output" : " outputs"))
        << " reserved · flash attention " << (o.flash_attn == FlashAttn::off ? "off" : "on")
        << " · K " << to_lower(o.cache_type_k) << " / V " << to_lower(o.cache_type_v) << "\n\n";
    write_terms(out, v.estimate);
    if (v.memory != 0) {
        out << "\n  " << (v.gpu ? display_name(*v.gpu) : format_gib(v.memory) + " budget") << ": "
            << (v.fits() ? "fits" : "does not fit") << " (" << format_gb(v.device)
            << " on the GPU, " << format_gib(gpu_capacity(v.memory, v.margin)) << " available with "
            << format_gib(v.margin) << " kept free)\n";
    }
}

Result<CommandResult> run_llamacpp(const EngineRequest& r, const Common& c) {
    // The device's backend by the planner's rule (an Intel card's is Vulkan), unless --backend.
    const Backend backend =
        r.backend ? *r.backend
                  : (r.hardware ? backend_for(r.hardware->gpus.front()) : Backend::cuda);
    PlanSettings settings = r.settings;
    settings.estimate.context = r.context.value_or(default_context(*r.model));
    CANITRUN_TRY_ASSIGN(LlamaCppOptions o, llamacpp_options(*r.model, settings, backend));
    o.file_tensors = r.file_tensors;
    CANITRUN_TRY_ASSIGN(auto e, estimate_llamacpp(*r.model, *c.quant, o));

    auto v = std::make_shared<const LlamaProfileView>(LlamaProfileView{
        *r.model, c.quant, r.file, o, e, c.gpu, c.memory, r.settings.margin, on(e, Device::gpu)});
    CommandResult result;
    result.what = "--engine llama.cpp";
    result.views = {[v] { return profile_json(*v); },
                    [v](std::ostream& out) { write_profile_csv(out, *v); },
                    [v] { return std::vector<std::string>{profile_answer(*v)}; }};
    result.text = [v](std::ostream& out) { write_profile_text(out, *v); };
    result.verdict = v->memory == 0 ? Verdict::answered : verdict_of_fit(v->fits());
    return result;
}

}  // namespace

Result<CommandResult> run_engine(const EngineRequest& r) {
    CANITRUN_TRY_ASSIGN(auto c, common(r));
    return run_llamacpp(r, c);
}

}  // namespace canitrun::cli
