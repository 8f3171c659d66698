#include "engine_command.hpp"

#include "canitrun/hardware.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/name_match.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/serving.hpp"
#include "canitrun/tensor_layout.hpp"
#include "csv_output.hpp"
#include "format.hpp"
#include "json_output.hpp"
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
    std::uint64_t context = kDefaultContext;
    const Gpu* gpu = nullptr;
    Bytes vram = 0;  // the GPU's real bytes, or --vram
};

Result<Common> common(const EngineRequest& r) {
    Common c;
    if (r.quant.empty()) {
        c.quant = r.model != nullptr ? r.db->default_quant(*r.model) : r.db->recommended_quant();
    } else {
        CANITRUN_TRY_ASSIGN(auto q, r.db->find_quant(r.quant));
        c.quant = q;
    }
    if (!r.ctx.empty()) {
        CANITRUN_TRY_ASSIGN(auto ctx, parse_context(r.ctx));
        c.context = ctx;
    }
    if (!r.gpu.empty()) {
        CANITRUN_TRY_ASSIGN(auto gpus, parse_gpu_spec(*r.db, r.gpu));
        if (gpus.size() != 1) {
            return fail(ErrorKind::bad_input, "--engine answers for one GPU, not '" + r.gpu + "'",
                        "drop --engine for the split over several GPUs, or name one GPU");
        }
        c.gpu = gpus.front();
        // the real bytes; on unified memory only the share the GPU may use by default
        c.vram = device_for(*c.gpu).memory;
    } else if (!r.vram.empty()) {
        CANITRUN_TRY_ASSIGN(auto v, parse_gb(r.vram));
        c.vram = v;
    }
    return c;
}

// --ubatch, --parallel and --flash-attn, as every llama.cpp view reads them.
struct LlamaFlags {
    std::uint64_t ubatch = 0;
    std::uint64_t n_seq = 0;
    FlashAttn flash_attn = FlashAttn::automatic;
};

Result<LlamaFlags> llama_flags(const EngineFlags& f) {
    // llama.cpp's own limits: a ubatch of up to 2^20 tokens, kLlamaMaxSequences sequences.
    CANITRUN_TRY_ASSIGN(const std::uint64_t ub,
                        parse_positive_count(f.ubatch, "--ubatch", 1ULL << 20));
    CANITRUN_TRY_ASSIGN(const std::uint64_t par,
                        parse_positive_count(f.parallel, "--parallel", kLlamaMaxSequences));
    CANITRUN_TRY_ASSIGN(const FlashAttn fa, parse_flash_attn(f.flash_attn));
    return LlamaFlags{ub, par, fa};
}

// The llama.cpp profile's answer, held for its views.
struct LlamaProfileView {
    Model model;  // a copy: a file's model does not outlive the request
    const Quant* quant = nullptr;
    std::string file;
    LlamaCppOptions options;
    Estimate estimate;
    const Gpu* gpu = nullptr;
    Bytes vram = 0;    // 0: no budget asked
    Bytes device = 0;  // what the GPU holds
    bool fits() const { return vram == 0 || device <= vram; }
};

json profile_json(const LlamaProfileView& v) {
    const LlamaCppOptions& o = v.options;
    json doc = {{"engine", "llama.cpp"},
                {"llama_cpp_commit", "5b4ebc5"},
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
    if (v.vram != 0) doc["fits"] = v.fits();
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
    if (v.vram != 0) return v.fits() ? "fits" : "does not fit";
    return std::to_string(v.device);
}

void write_profile_text(std::ostream& out, const LlamaProfileView& v) {
    const LlamaCppOptions& o = v.options;
    out << (v.file.empty() ? v.model.name + " at " + v.quant->id : v.file) << ", "
        << format_context(o.context) << " context: llama.cpp 5b4ebc5 profile ("
        << backend_name(o.backend) << ")\n";
    out << "  ubatch " << o.ubatch << " · " << o.n_seq
        << (o.n_seq == 1 ? " sequence" : " sequences") << " · flash attention "
        << (o.flash_attn == FlashAttn::off ? "off" : "on") << " · K " << to_lower(o.cache_type_k)
        << " / V " << to_lower(o.cache_type_v) << "\n\n";
    write_terms(out, v.estimate);
    if (v.vram != 0) {
        out << "\n  " << (v.gpu ? display_name(*v.gpu) : format_gb(v.vram) + " budget") << ": "
            << (v.fits() ? "fits" : "does not fit") << " (" << format_gb(v.device)
            << " on the GPU, " << format_gib(v.vram) << " available)\n";
    }
}

Result<CommandResult> run_llamacpp(const EngineRequest& r, const EngineFlags& f, const Common& c) {
    LlamaCppOptions o;
    o.context = c.context;
    CANITRUN_TRY_ASSIGN(auto lf, llama_flags(f));
    o.ubatch = lf.ubatch;
    o.n_seq = lf.n_seq;
    o.flash_attn = lf.flash_attn;
    o.cache_type_k = f.cache_type_k;
    o.cache_type_v = f.cache_type_v;
    o.file_tensors = r.file_tensors;
    std::string backend = f.backend;
    if (backend.empty()) {
        backend = (c.gpu && !c.gpu->backends.empty()) ? c.gpu->backends.front() : "cuda";
    }
    CANITRUN_TRY_ASSIGN(auto be, parse_backend(backend));
    o.backend = be;
    CANITRUN_TRY_ASSIGN(auto e, estimate_llamacpp(*r.model, *c.quant, o));

    auto v = std::make_shared<const LlamaProfileView>(
        LlamaProfileView{*r.model, c.quant, r.file, o, e, c.gpu, c.vram, on(e, Device::gpu)});
    CommandResult result;
    result.what = "--engine llama.cpp";
    result.views = {[v] { return profile_json(*v); },
                    [v](std::ostream& out) { write_profile_csv(out, *v); },
                    [v] { return std::vector<std::string>{profile_answer(*v)}; }};
    result.text = [v](std::ostream& out) { write_profile_text(out, *v); };
    result.code = v->fits() ? kExitOk : kExitDoesNotFit;
    return result;
}

}  // namespace

Result<bool> engine_is_quick(const EngineFlags& f) {
    const std::string e = to_lower(f.engine);
    if (e == "quick") return true;
    if (e.empty() || e == "llama.cpp" || e == "llamacpp" || e == "vllm" || e == "exo") return false;
    return fail(ErrorKind::bad_input, "unknown engine '" + f.engine + "'",
                "use quick, llama.cpp, vllm or exo");
}

bool engine_is_vllm(const EngineFlags& f) {
    return to_lower(f.engine) == "vllm";
}

bool engine_is_exo(const EngineFlags& f) {
    return to_lower(f.engine) == "exo";
}

bool engine_has_own_view(const EngineFlags& f) {
    return engine_is_vllm(f) || engine_is_exo(f);
}

bool engine_is_explicit_profile(const EngineFlags& f) {
    const std::string e = to_lower(f.engine);
    return e == "llama.cpp" || e == "llamacpp" || e == "vllm";
}

Result<bool> refuse_llama_flags(const EngineFlags& f, const std::string& engine) {
    const EngineFlags defaults;
    const std::pair<const char*, bool> llama_only[] = {
        {"--ubatch", f.ubatch != defaults.ubatch},
        {"--parallel", f.parallel != defaults.parallel},
        {"--flash-attn", f.flash_attn != defaults.flash_attn},
        {"--cache-type-k", f.cache_type_k != defaults.cache_type_k},
        {"--cache-type-v", f.cache_type_v != defaults.cache_type_v},
        {"--backend", !f.backend.empty()},
        {"--margin", f.margin != defaults.margin},
        {"--cache-ram", f.cache_ram != defaults.cache_ram},
        {"--ctx-checkpoints", f.ctx_checkpoints != defaults.ctx_checkpoints},
        {"--no-kv-offload", f.no_kv_offload},
        {"--no-repack", f.no_repack},
        {"--mtp", f.mtp},
        {"--draft", !f.draft.empty()},
        {"--also", !f.also.empty()}};
    for (const auto& [flag, given] : llama_only) {
        if (given) {
            return fail(
                ErrorKind::bad_input,
                std::string(flag) + " is a llama.cpp setting, and --engine " + engine + " has none",
                "leave it out, or use --engine llama.cpp (the default)");
        }
    }
    return true;
}

Result<PlanSettings> plan_settings_from_flags(const EngineFlags& f,
                                              const EstimateOptions& estimate) {
    CANITRUN_TRY_ASSIGN(auto quick, engine_is_quick(f));
    if (quick) {
        CANITRUN_TRY(refuse_llama_flags(f, "quick"));
        return quick_settings(estimate);
    }
    if (!f.backend.empty()) {
        return fail(ErrorKind::bad_input,
                    "--backend is chosen per device: CUDA for NVIDIA, ROCm for AMD, Metal for "
                    "Apple, Vulkan for Intel",
                    "name the hardware with --gpu; --backend applies to a .gguf file with "
                    "--engine llama.cpp");
    }
    PlanSettings s;
    s.estimate = estimate;
    CANITRUN_TRY_ASSIGN(auto lf, llama_flags(f));
    s.ubatch = lf.ubatch;
    s.n_seq = lf.n_seq;
    s.flash_attn = lf.flash_attn;
    CANITRUN_TRY_ASSIGN(s.margin, parse_margin_mib(f.margin));
    // --kv-type sets both caches; --cache-type-k / -v, where given, override it.
    const EngineFlags defaults;
    if (f.cache_type_k != defaults.cache_type_k) s.cache_type_k = f.cache_type_k;
    if (f.cache_type_v != defaults.cache_type_v) s.cache_type_v = f.cache_type_v;
    // --cache-ram in MiB (llama-server's unit); 0 turns the prompt cache off. llama-server's
    // -1 (no limit) has no most to plan for, so it is refused.
    CANITRUN_TRY_ASSIGN(const std::uint64_t cache_mib,
                        parse_count(f.cache_ram, "--cache-ram", 1ULL << 30));
    s.server.cache_ram = checked::mul(cache_mib, 1ULL << 20);
    CANITRUN_TRY_ASSIGN(s.server.ctx_checkpoints,
                        parse_count(f.ctx_checkpoints, "--ctx-checkpoints", 1ULL << 16));
    s.server.kv_offload = !f.no_kv_offload;
    s.server.repack = !f.no_repack;
    s.server.mtp = f.mtp;
    return s;
}

Result<CommandResult> run_engine(const EngineRequest& r, const EngineFlags& f) {
    CANITRUN_TRY_ASSIGN(auto c, common(r));
    if (engine_is_exo(f)) {
        return fail(ErrorKind::bad_input, "--engine exo plans database models over machines",
                    "e.g. canitrun llama-3.1-405b --engine exo --host m3-ultra-256gb --host "
                    "m3-ultra-256gb");
    }
    if (to_lower(f.engine) == "vllm") {
        // vLLM is its own view of database models (vllm_view.cpp); files are GGUF here.
        return fail(ErrorKind::bad_input, "--engine vllm loads checkpoints, not GGUF files",
                    "use --engine llama.cpp for a GGUF file");
    }
    return run_llamacpp(r, f, c);
}

}  // namespace canitrun::cli
