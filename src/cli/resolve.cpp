// The command line resolved once (request.hpp): the only place in src/cli that parses a flag's
// value, loads the database, classifies a model argument or picks a default.

#include "request.hpp"

#include "canitrun/context_window.hpp"
#include "canitrun/database_files.hpp"
#include "canitrun/embedded_snapshot.hpp"
#include "canitrun/file_report.hpp"
#include "canitrun/gpu_description.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/model_argument.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/server_terms.hpp"
#include "canitrun/serving.hpp"
#include "canitrun/strings.hpp"
#include "engine_command.hpp"
#include "hardware_options.hpp"

namespace canitrun::cli {
namespace {

[[noreturn]] void refuse(const std::string& message, const std::string& hint) {
    throw Failure{Error{ErrorKind::bad_input, message, hint}};
}

// A model beside the planned one (--draft, --also): MODEL or MODEL:QUANT of the database; the
// recommended quantization when none is given.
ResidentModel resident_model(const Database& db, const std::string& spec) {
    const auto colon = spec.rfind(':');
    const std::string name = colon == std::string::npos ? spec : spec.substr(0, colon);
    ResidentModel r;
    r.model = need(db.find_model(name));
    r.quant = colon == std::string::npos ? db.recommended_quant()
                                         : need(db.find_quant(spec.substr(colon + 1)));
    return r;
}

// --draft: a local GGUF file (a .gguf name, or any existing file, as a model argument is
// classified), else MODEL or MODEL:QUANT of the database.
ResidentModel draft_model(const Database& db, const std::string& spec) {
    if (classify_model_argument(db, spec) == ModelArgumentKind::gguf_file) {
        return need(resident_gguf_file(db, spec));
    }
    return resident_model(db, spec);
}

// The flags only llama.cpp reads, refused by the engines that have no such setting. Given or
// not is whether the flag was typed, never whether its value equals the default.
void refuse_llama_flags(const EngineFlags& f, const std::string& engine) {
    const std::pair<const char*, bool> llama_only[] = {
        {"--ubatch", !f.ubatch.empty()},
        {"--parallel", !f.parallel.empty()},
        {"--flash-attn", !f.flash_attn.empty()},
        {"--reserve-outputs", !f.reserve_outputs.empty()},
        {"--cache-type-k", !f.cache_type_k.empty()},
        {"--cache-type-v", !f.cache_type_v.empty()},
        {"--backend", !f.backend.empty()},
        {"--margin", !f.margin.empty()},
        {"--cache-ram", !f.cache_ram.empty()},
        {"--ctx-checkpoints", !f.ctx_checkpoints.empty()},
        {"--no-kv-offload", f.no_kv_offload},
        {"--no-repack", f.no_repack},
        {"--no-op-offload", f.no_op_offload},
        {"--blas-build", f.blas_build},
        {"--mtp", f.mtp},
        {"--load-mode", !f.load_mode.empty()},
        {"--no-mmproj", f.no_mmproj},
        {"--no-mmproj-offload", f.no_mmproj_offload},
        {"--draft", !f.draft.empty()},
        {"--also", !f.also.empty()}};
    for (const auto& [flag, given] : llama_only) {
        if (given) {
            refuse(
                std::string(flag) + " is a llama.cpp setting, and --engine " + engine + " has none",
                "leave it out, or use --engine llama.cpp (the default)");
        }
    }
}

// --ubatch, --parallel, --flash-attn and the cache types over the core's defaults.
void llama_settings(const EngineFlags& f, PlanSettings& s) {
    // llama.cpp's own limits: a ubatch of up to 2^20 tokens, kLlamaMaxSequences sequences.
    if (!f.ubatch.empty()) s.ubatch = need(parse_positive_count(f.ubatch, "--ubatch", 1ULL << 20));
    if (!f.parallel.empty()) {
        s.n_seq = need(parse_positive_count(f.parallel, "--parallel", kLlamaMaxSequences));
    }
    if (!f.flash_attn.empty()) s.flash_attn = need(parse_flash_attn(f.flash_attn));
    if (!f.reserve_outputs.empty()) s.outputs = need(parse_output_reserve(f.reserve_outputs));
    // --kv-type sets both caches; --cache-type-k / -v, where given, override it.
    if (!f.cache_type_k.empty()) s.cache_type_k = f.cache_type_k;
    if (!f.cache_type_v.empty()) s.cache_type_v = f.cache_type_v;
}

// The rule's settings from --engine and the llama.cpp flags, with the floors every choice among
// quantizations obeys (--min-quant, --min-speed).
PlanSettings plan_settings(const Database& db, const Options& o, const Request& r,
                           const EstimateOptions& estimate) {
    PlanSettings s;
    if (r.engine == EngineKind::quick) {
        refuse_llama_flags(o.engine, "quick");
        s = quick_settings(estimate);
    } else {
        // --backend belongs to a file's llama.cpp profile; the page picks it per device.
        const bool profile = r.explicit_profile() && (r.model.file() || r.model.remote());
        if (!o.engine.backend.empty() && r.command == Command::model && !profile) {
            refuse(
                "--backend is chosen per device: CUDA for NVIDIA, ROCm for AMD, Metal for "
                "Apple, Vulkan for Intel",
                "name the hardware with --gpu; --backend applies to a .gguf file with "
                "--engine llama.cpp");
        }
        s.estimate = estimate;
        llama_settings(o.engine, s);
        if (!o.engine.margin.empty()) s.margin = need(parse_margin_mib(o.engine.margin));
        // --cache-ram in MiB (llama-server's unit); 0 turns the prompt cache off. llama-server's
        // -1 (no limit) has no most to plan for, so it is refused.
        if (!o.engine.cache_ram.empty()) {
            const std::uint64_t mib =
                need(parse_count(o.engine.cache_ram, "--cache-ram", 1ULL << 30));
            s.server.cache_ram = checked::mul(mib, 1ULL << 20);
            s.server.cache_ram_given = true;
        }
        if (!o.engine.ctx_checkpoints.empty()) {
            s.server.ctx_checkpoints =
                need(parse_count(o.engine.ctx_checkpoints, "--ctx-checkpoints", 1ULL << 16));
            s.server.ctx_checkpoints_given = true;
        }
        s.server.kv_offload = !o.engine.no_kv_offload;
        s.server.repack = !o.engine.no_repack;
        s.server.op_offload = !o.engine.no_op_offload;
        s.server.host_blas = o.engine.blas_build;
        s.server.mtp = o.engine.mtp;
        if (!o.engine.load_mode.empty()) {
            s.server.load_mode = need(parse_load_mode(o.engine.load_mode));
        }
        s.server.vision = !o.engine.no_mmproj;
        s.server.mmproj_offload = !o.engine.no_mmproj_offload;
    }
    if (!o.min_quant.empty()) {
        s.min_quality_rank = need(db.find_quant(o.min_quant))->quality_rank;
    } else if (const auto floor = db.find_quant(kDefaultMinQuant)) {
        s.min_quality_rank = (*floor)->quality_rank;  // a --data database may have no Q2_K
    }
    s.min_decode_tokens_per_s =
        o.min_speed.empty() ? kDefaultMinSpeed : need(parse_tokens_per_second(o.min_speed));
    if (!o.hw.split_mode.empty()) s.split_mode = need(parse_split_mode(o.hw.split_mode));
    if (!o.engine.draft.empty()) s.server.draft = draft_model(db, o.engine.draft);
    for (const auto& a : o.engine.also) s.server.also.push_back(resident_model(db, a));
    return s;
}

ModelArgument model_argument(const Database& db, const std::string& text) {
    return {text, text.empty() ? ModelArgumentKind::database : classify_model_argument(db, text)};
}

// --host machines (each with --ram where it gives none) and --link.
Cluster cluster_of(const Database& db, const Options& o, std::optional<Bytes> ram) {
    Cluster c;
    if (!o.link.empty()) c.link_gbits = need(parse_link_gbits(o.link));
    if (o.hosts.size() > kMaxHosts) {
        refuse(std::to_string(o.hosts.size()) + " hosts are more than canitrun plans",
               "give at most " + std::to_string(kMaxHosts) + " --host");
    }
    for (const std::string& spec : o.hosts) c.hosts.push_back(need(parse_host(db, spec, ram)));
    return c;
}

// The hardware of --gpu, or of the one --host; --ngl and the other placement flags need GPUs.
void resolve_hardware(const Database& db, const Options& o, Request& r) {
    HardwareFlags hw = o.hw;
    if (r.command == Command::local && hw.gpu.empty()) hw.gpu = "auto";  // this machine
    if (!o.hosts.empty() && (!o.hw.gpu.empty() || !o.vram.empty())) {
        refuse("--host names each machine's GPUs",
               "give the GPUs in --host and leave out --gpu and --vram");
    }
    std::optional<Hardware>& hardware = r.report.hardware;
    hardware = need(hardware_from_flags(db, hw, r.ram));
    if (o.hosts.size() == 1) {
        // One --host is one machine: the plan of --gpu with that host's RAM.
        hardware = r.cluster.hosts.front().hardware;
        if (!o.hw.ram_bandwidth.empty()) {
            hardware->ram_bandwidth_gbps = need(parse_bandwidth(o.hw.ram_bandwidth));
        }
    }
    r.report.placement = need(placement_from_flags(o.hw));
    if (!hardware && (!o.hw.ngl.empty() || !o.hw.n_cpu_moe.empty() || o.hw.cpu_moe ||
                      !o.hw.tensor_split.empty())) {
        refuse("--ngl, --n-cpu-moe, --cpu-moe and --tensor-split place layers on GPUs",
               "name the GPUs with --gpu, e.g. --gpu \"RTX 4090\" or --gpu auto");
    }
    if (!o.hw.tensor_split.empty() && hardware && hardware->gpus.size() < 2) {
        refuse("--tensor-split splits layers over several GPUs",
               "give two or more GPUs, e.g. --gpu 2x3090 --tensor-split 3,1");
    }
}

// --users N of --ctx tokens each: llama-server --parallel N -c N x C (serving.hpp).
void resolve_users(const Options& o, Request& r) {
    if (o.users.empty()) return;
    r.users = need(parse_count(o.users, "--users", kLlamaMaxSequences));
    if (r.engine_has_own_view()) return;
    if (!o.engine.parallel.empty()) {
        refuse("--users and --parallel both set the sequences",
               "give --users N (each with --ctx tokens) or --parallel N");
    }
    r.report.plan = need(settings_for_users(r.report.plan, *r.users, r.report.estimate.context));
    r.report.estimate.context = r.report.plan.estimate.context;
    r.report.context_explicit = true;
}

// The values every planning command shares.
void resolve_values(const Database& db, const Options& o, Request& r) {
    ReportOptions& ro = r.report;
    if (!o.quant.empty()) ro.quant = need(db.find_quant(o.quant));
    if (!o.ctx.empty()) r.context = need(parse_context(o.ctx));
    if (!o.hw.ram.empty()) r.ram = need(parse_gb(o.hw.ram));
    if (!o.vram.empty()) ro.vram_budget = need(parse_gb(o.vram));
    if (!o.engine.backend.empty()) r.backend = need(parse_backend(o.engine.backend));
    if (!o.engine.gpu_memory_utilization.empty()) {
        r.vllm_utilization_pct = need(parse_utilization_pct(o.engine.gpu_memory_utilization));
    }
    r.cluster = cluster_of(db, o, r.ram);
    if (r.context) ro.estimate.context = *r.context;
    ro.context_explicit = r.context.has_value();
    ro.estimate.kv_type =
        need(parse_kv_type(o.kv_type.empty() ? std::string(kDefaultKvType) : o.kv_type));
    if (r.ram) {
        ro.fit.ram = *r.ram;
        ro.fit.ram_given = true;
    }
    resolve_hardware(db, o, r);
    if (!r.engine_has_own_view()) ro.plan = plan_settings(db, o, r, ro.estimate);
    resolve_users(o, r);
    if (r.command == Command::fit)
        r.sort = need(parse_fit_sort(o.sort.empty() ? "params" : o.sort));
    r.filter = ListFilter{o.family, o.vendor, std::nullopt, {}};
    if (!o.min_vram.empty()) r.filter.min_vram_bytes = need(parse_gb(o.min_vram));
    if (!o.since.empty()) r.filter.since = need(parse_release_date(o.since));
}

// A context past the model's window is refused, the same for every engine and every view
// (the page, vLLM, exo, RPC over hosts): what one sequence holds is --ctx, or with --parallel N
// (llama.cpp's n_ctx over N streams) its share.
void check_window(const Request& r) {
    if (!r.context || r.model.kind != ModelArgumentKind::database || !r.model.given()) return;
    const auto model = r.db->find_model(r.model.text);
    if (!model) return;  // the command names the unknown model itself
    const std::uint64_t n = r.users || r.engine_has_own_view() ? 1 : r.report.plan.n_seq;
    need(check_context(**model, llama_sequence_context(*r.context, n)));
}

// --mtp on a database model whose files do not carry its MTP layers is refused, once, as the
// core says (mtp_loadable); a model file answers for itself (gguf_plan_settings).
void check_mtp(const Request& r) {
    if (!r.report.plan.server.mtp || r.engine_has_own_view()) return;
    std::vector<ModelArgument> named = r.operands;
    named.push_back(r.model);
    for (const auto& a : named) {
        if (a.kind != ModelArgumentKind::database || !a.given()) continue;
        const auto model = r.db->find_model(a.text);
        if (model) need(mtp_loadable(**model, nullptr));
    }
}

}  // namespace

const Database& load_database(const Options& o) {
    if (o.db == nullptr) {
        if (o.data_dir.empty()) {
            o.db = need(embedded_database());
        } else {
            o.data_db = need(parse_database(need(read_database_dir(o.data_dir))));
            o.db = &*o.data_db;
        }
        if (!o.described_gpus.empty()) {
            o.data_db = need(with_described_gpus(*o.db, o.described_gpus));
            o.db = &*o.data_db;
        }
    }
    return *o.db;
}

Result<EngineKind> parse_engine(const std::string& text) {
    const std::string e = to_lower(text);
    if (e.empty() || e == "llama.cpp" || e == "llamacpp") return EngineKind::llamacpp;
    if (e == "quick") return EngineKind::quick;
    if (e == "vllm") return EngineKind::vllm;
    if (e == "exo") return EngineKind::exo;
    return fail(ErrorKind::bad_input, "unknown engine '" + text + "'",
                "use quick, llama.cpp, vllm or exo");
}

Result<Request> resolve(const Options& o, Command command) {
    try {
        Request r;
        r.flags = &o;
        r.command = command;
        const Database& db = load_database(o);
        r.db = &db;
        r.model = model_argument(db, o.model);
        for (const std::string& operand : o.operands) {
            r.operands.push_back(model_argument(db, operand));
        }
        r.engine = need(parse_engine(o.engine.engine));
        r.engine_given = !o.engine.engine.empty();
        if (r.engine_has_own_view()) refuse_llama_flags(o.engine, o.engine.engine);
        resolve_values(db, o, r);
        check_window(r);
        check_mtp(r);
        return r;
    } catch (const Failure& f) {
        return std::unexpected(f.error);
    }
}

}  // namespace canitrun::cli
