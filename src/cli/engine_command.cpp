#include "engine_command.hpp"

#include "canitrun/hardware.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app.hpp"
#include "canitrun/format.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/name_match.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/tensor_layout.hpp"
#include "json_output.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

using json = nlohmann::json;

Result<std::uint64_t> positive(const std::string& flag, const std::string& text) {
    std::uint64_t v = 0;
    bool ok = !text.empty() && text.size() <= 9;
    for (const char c : text) ok = ok && c >= '0' && c <= '9';
    if (ok) v = std::stoull(text);
    if (!ok || v == 0) {
        return fail(ErrorKind::bad_input, "bad " + flag + " value '" + text + "'",
                    "give a whole number of at least 1");
    }
    return v;
}

// --margin MIB: 0 up to 1 TiB, as bytes.
Result<Bytes> margin_bytes(const std::string& text) {
    std::uint64_t v = 0;
    bool ok = !text.empty() && text.size() <= 7;
    for (const char c : text) ok = ok && c >= '0' && c <= '9';
    if (ok) v = std::stoull(text);
    if (!ok || v > (1ULL << 20)) {
        return fail(ErrorKind::bad_input, "bad --margin value '" + text + "'",
                    "give the MiB to keep free on every GPU, 0 to 1048576 (default 1024)");
    }
    return v << 20;
}

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
        t.add_row({term.name, format_gb(term.bytes), device_name(term.device)});
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
        c.quant = r.db->recommended_quant();
    } else {
        auto q = r.db->find_quant(r.quant);
        if (!q) return std::unexpected(q.error());
        c.quant = *q;
    }
    if (!r.ctx.empty()) {
        auto ctx = parse_context(r.ctx);
        if (!ctx) return std::unexpected(ctx.error());
        c.context = *ctx;
    }
    if (!r.gpu.empty()) {
        auto gpus = parse_gpu_spec(*r.db, r.gpu);
        if (!gpus) return std::unexpected(gpus.error());
        if (gpus->size() != 1) {
            return fail(ErrorKind::bad_input, "--engine answers for one GPU, not '" + r.gpu + "'",
                        "drop --engine for the split over several GPUs, or name one GPU");
        }
        c.gpu = gpus->front();
        // the real bytes; on unified memory only the share the GPU may use by default
        c.vram = checked::mul_div_floor(c.gpu->vram_bytes, c.gpu->unified_gpu_share_permille, 1000);
    } else if (!r.vram.empty()) {
        auto v = parse_gb(r.vram);
        if (!v) return std::unexpected(v.error());
        c.vram = *v;
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
    auto ub = positive("--ubatch", f.ubatch);
    if (!ub) return std::unexpected(ub.error());
    auto par = positive("--parallel", f.parallel);
    if (!par) return std::unexpected(par.error());
    auto fa = parse_flash_attn(f.flash_attn);
    if (!fa) return std::unexpected(fa.error());
    return LlamaFlags{*ub, *par, *fa};
}

Result<EngineAnswer> run_llamacpp(const EngineRequest& r, const EngineFlags& f, const Common& c) {
    LlamaCppOptions o;
    o.context = c.context;
    auto lf = llama_flags(f);
    if (!lf) return std::unexpected(lf.error());
    o.ubatch = lf->ubatch;
    o.n_seq = lf->n_seq;
    o.flash_attn = lf->flash_attn;
    o.cache_type_k = f.cache_type_k;
    o.cache_type_v = f.cache_type_v;
    o.file_tensors = r.file_tensors;
    std::string backend = f.backend;
    if (backend.empty()) {
        backend = (c.gpu && !c.gpu->backends.empty()) ? c.gpu->backends.front() : "cuda";
    }
    auto be = parse_backend(backend);
    if (!be) return std::unexpected(be.error());
    o.backend = *be;
    auto e = estimate_llamacpp(*r.model, *c.quant, o);
    if (!e) return std::unexpected(e.error());

    const Bytes device = on(*e, Device::gpu);
    const bool fits = c.vram == 0 || device <= c.vram;
    std::ostringstream out;
    if (r.json) {
        json doc = {{"engine", "llama.cpp"},
                    {"llama_cpp_commit", "5b4ebc5"},
                    {"model", r.model->id},
                    {"llama_arch", llama_arch(*r.model).value_or("")},
                    {"quant", c.quant->id},
                    {"context", c.context},
                    {"ubatch", o.ubatch},
                    {"parallel", o.n_seq},
                    {"flash_attn", o.flash_attn == FlashAttn::off ? "off" : "on"},
                    {"cache_type_k", to_lower(o.cache_type_k)},
                    {"cache_type_v", to_lower(o.cache_type_v)},
                    {"backend", backend_name(o.backend)},
                    {"estimate", {{"terms", estimate_json(*e)}}},
                    {"gpu_bytes", device},
                    {"host_bytes", on(*e, Device::cpu)},
                    {"total_bytes", e->total()},
                    {"units", "bytes"}};
        if (c.vram != 0) doc["fits"] = fits;
        out << doc.dump(2) << "\n";
    } else {
        out << (r.file.empty() ? r.model->name + " at " + c.quant->id : r.file) << ", "
            << format_context(c.context) << " context: llama.cpp 5b4ebc5 profile ("
            << backend_name(o.backend) << ")\n";
        out << "  ubatch " << o.ubatch << " · " << o.n_seq
            << (o.n_seq == 1 ? " sequence" : " sequences") << " · flash attention "
            << (o.flash_attn == FlashAttn::off ? "off" : "on") << " · K "
            << to_lower(o.cache_type_k) << " / V " << to_lower(o.cache_type_v) << "\n\n";
        write_terms(out, *e);
        if (c.vram != 0) {
            out << "\n  " << (c.gpu ? display_name(*c.gpu) : format_gb(c.vram) + " budget") << ": "
                << (fits ? "fits" : "does not fit") << " (" << format_gb(device) << " on the GPU, "
                << format_gib(c.vram) << " available)\n";
        }
    }
    return EngineAnswer{out.str(), fits ? kExitOk : kExitDoesNotFit};
}

}  // namespace

// "0.9" -> 90 (percent, two decimals at most)
Result<std::uint64_t> utilization_pct(const std::string& text) {
    const auto bad = [&] {
        return fail(ErrorKind::bad_input, "bad --gpu-memory-utilization value '" + text + "'",
                    "give a fraction in (0, 1], e.g. 0.9");
    };
    const auto dot = text.find('.');
    const std::string whole = text.substr(0, dot);
    std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
    if (whole.size() > 1 || frac.size() > 2 || (whole.empty() && frac.empty())) return bad();
    for (const char c : whole + frac) {
        if (c < '0' || c > '9') return bad();
    }
    while (frac.size() < 2) frac += '0';
    const std::uint64_t pct = (whole.empty() ? 0 : std::stoull(whole)) * 100 + std::stoull(frac);
    if (pct == 0 || pct > 100) return bad();
    return pct;
}

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
        {"--margin", f.margin != defaults.margin}};
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
    auto quick = engine_is_quick(f);
    if (!quick) return std::unexpected(quick.error());
    if (*quick) {
        auto none = refuse_llama_flags(f, "quick");
        if (!none) return std::unexpected(none.error());
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
    auto lf = llama_flags(f);
    if (!lf) return std::unexpected(lf.error());
    s.ubatch = lf->ubatch;
    s.n_seq = lf->n_seq;
    s.flash_attn = lf->flash_attn;
    auto margin = margin_bytes(f.margin);
    if (!margin) return std::unexpected(margin.error());
    s.margin = *margin;
    // --kv-type sets both caches; --cache-type-k / -v, where given, override it.
    const EngineFlags defaults;
    if (f.cache_type_k != defaults.cache_type_k) s.cache_type_k = f.cache_type_k;
    if (f.cache_type_v != defaults.cache_type_v) s.cache_type_v = f.cache_type_v;
    return s;
}

Result<EngineAnswer> run_engine(const EngineRequest& r, const EngineFlags& f) {
    auto c = common(r);
    if (!c) return std::unexpected(c.error());
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
    return run_llamacpp(r, f, *c);
}

}  // namespace canitrun::cli
