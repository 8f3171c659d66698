#include "canitrun/server_terms.hpp"

#include <algorithm>

#include "canitrun/context_window.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/launch_command.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/tensor_layout.hpp"

namespace canitrun {
namespace {

// The vision projector where the line loads it (server_terms.hpp): the data's bytes.
void add_projector(ServerTerms& t, const Model& model, const Quant& quant,
                   const ServerSettings& s) {
    if (!loads_projector(model, quant, s)) return;
    t.projector_on_gpu = s.mmproj_offload;
    if (s.mmproj_file_bytes > 0) {
        // A file given with --mmproj: its tensors; clip's compute buffer is not known for it.
        t.projector = s.mmproj_file_bytes;
        return;
    }
    const ProjectorInfo& p = model.run.projector;
    t.projector = p.bytes;
    t.projector_compute = p.compute_bytes;
    t.projector_host_compute = p.host_compute_bytes;
}

// load_all_data's async uploads (llama-model-loader.cpp lines 1509-1520 at 0ad4a86): 4 pinned
// buffers of 1 MiB, or of 64 MiB + 2 x the read alignment with direct I/O.
constexpr Bytes kUploadBuffers = 4;
constexpr Bytes kUploadBufferBytes = 1ULL << 20;
constexpr Bytes kDirectUploadBufferBytes = 64ULL << 20;
// O_DIRECT's alignment: the file's st_blksize (llama-mmap.cpp line 207), 4096 B on the usual
// Linux file systems (ext4, xfs, btrfs with 4 KiB blocks): an assumption.
constexpr Bytes kDirectBlock = 4096;

// --load-mode on the hardware as llama.cpp resolves it (server_terms.hpp, load_staging).
void set_load_mode(ServerTerms& t, LoadMode mode, const Hardware& hardware) {
    bool metal = false, no_mmap_device = false;
    for (const auto& d : hardware.gpus) {
        const Backend b = backend_for(d);
        metal = metal || b == Backend::metal;
        no_mmap_device = no_mmap_device || (d.unified && b != Backend::metal);
    }
    t.mapped = mode == LoadMode::mmap || mode == LoadMode::mmap_mlock ||
               (mode == LoadMode::automatic && !no_mmap_device);
    if (t.mapped) return;
    // O_DIRECT is Linux's: a Mac reads buffered (llama-mmap.cpp's #ifdef __linux__).
    const bool direct = mode == LoadMode::direct_io && !metal;
    t.direct_block = direct ? kDirectBlock : 0;
    t.upload_by_tensor = metal;
    const Bytes each = direct ? kDirectUploadBufferBytes + 2 * kDirectBlock : kUploadBufferBytes;
    t.upload_buffers = metal ? 0 : kUploadBuffers * each;
}

// A companion's bytes per device from its own placement, less `staged` of its RAM: a draft's
// staging, which the main model's load_staging term holds instead (server_terms.hpp).
Companion companion_from(const std::string& name, const Placement& p, Bytes staged) {
    Companion c{name, {}, checked::sub(p.ram.total(), staged)};
    for (const auto& g : p.gpus) c.gpus.push_back(g.total());
    return c;
}

// CPU_REPACK's copy (cpu_repack.hpp) where llama.cpp makes one: on a machine without a GPU,
// unless --no-repack, for every model it loads there. A draft's load_tensors and a router
// child's build the same buffer-type list as the main model's (make_cpu_buft_list, with
// use_extra_bufts from the line: common_base_params_to_speculative copies the main model's
// no_extra_bufts, and a child gets its preset's --no-repack).
Result<Bytes> repack_bytes(const Model& model, const Quant& quant, const Hardware& hardware,
                           const PlanSettings& settings) {
    const ServerSettings& s = settings.server;
    if (!hardware.gpus.empty() || !s.repack) return Bytes{0};
    if (settings.file) return file_repack_bytes(settings.file->tensors, s.cpu);  // its own types
    return llamacpp_repack_bytes(model, quant, s.cpu);
}

Bytes staging_in(const Share& ram) {
    for (const auto& r : ram.resident) {
        if (r.name == "load_staging") return r.load;
    }
    return 0;
}

}  // namespace

PlanSettings companion_settings(const ResidentModel& model, const PlanSettings& settings) {
    PlanSettings s = settings_for_model(*model.model, settings);
    // The companion's own weights, never the main model's file: a file companion by its own
    // tensors (the quick rule, for an architecture llama.cpp's layout does not model, by their
    // sum).
    s.file = nullptr;
    s.estimate.weights_bytes_override.reset();
    if (model.file && s.rule == Rule::quick) {
        s.estimate.weights_bytes_override = model.file->weights_bytes;
    } else if (model.file) {
        s.file = model.file->weights;
    }
    ServerSettings server;
    server.cache_ram = 0;
    server.ctx_checkpoints = 0;
    server.kv_offload = settings.server.kv_offload;
    server.repack = settings.server.repack;
    server.cpu = settings.server.cpu;
    server.op_offload = settings.server.op_offload;
    server.host_blas = settings.server.host_blas;  // the same binary runs the companion
    server.load_mode = settings.server.load_mode;
    server.vision = settings.server.vision;
    server.mmproj_offload = settings.server.mmproj_offload;
    s.server = std::move(server);
    s.margin = 0;
    return s;
}

Result<Placement> companion_placement(const ResidentModel& model, const Hardware& hardware,
                                      const PlanSettings& settings, bool own_process) {
    const PlanSettings s = companion_settings(model, settings);
    CANITRUN_TRY_ASSIGN(auto parts, plan_parts(*model.model, *model.quant, s));
    PlacementOptions o = placement_for(hardware, s);
    o.margin = 0;
    if (!own_process) o.gpu_runtime.clear();
    o.server.kv_in_ram = !s.server.kv_offload;
    CANITRUN_TRY_ASSIGN(o.server.cpu_repack, repack_bytes(*model.model, *model.quant, hardware, s));
    // The main line's --load-mode: a draft gets the main model's load params, and a router's
    // child the router's arguments (server_terms.hpp, draft and also).
    set_load_mode(o.server, s.server.load_mode, hardware);
    // An --also model is loaded by its repo as the main model is, its projector with it by the
    // same rule (#37); a draft (-md / -hfd) loads none. (--mmproj is the main model file's.)
    if (own_process) add_projector(o.server, *model.model, *model.quant, s.server);
    return place(parts, hardware, o);
}

Result<Companion> place_companion(const std::string& name, const ResidentModel& model,
                                  const Hardware& hardware, const PlanSettings& settings,
                                  bool own_process) {
    CANITRUN_TRY_ASSIGN(auto p, companion_placement(model, hardware, settings, own_process));
    return companion_from(name, p, 0);
}

PlanSettings draft_settings(const PlanSettings& main) {
    PlanSettings s = main;
    s.cache_type_k = kDefaultKvType;
    s.cache_type_v = kDefaultKvType;
    s.estimate.kv_type = {};
    return s;
}

namespace {

// The prompt cache's most: --cache-ram, or nothing for an encoder, whose sequence state holds
// no cache to save (llama_arch_keeps_no_memory).
Bytes prompt_cache_most(const Model& model, const ServerSettings& server) {
    const auto arch = llama_arch(model);
    return arch && llama_arch_keeps_no_memory(*arch) ? 0 : server.cache_ram;
}

}  // namespace

Result<MtpContextBytes> mtp_context_bytes(const Model& model, const LlamaCppOptions& options) {
    return catch_overflow(
        [&]() -> Result<MtpContextBytes> {
            CANITRUN_TRY_ASSIGN(const auto caches, llamacpp_group_caches(model, options));
            Bytes kv = 0;
            for (std::size_t g = 0; g < model.arch.layer_groups.size() && g < caches.size(); ++g) {
                const LayerKind k = model.arch.layer_groups[g].kind;
                if (k == LayerKind::full || k == LayerKind::mla) kv = caches[g].kv;
            }
            MtpContextBytes out;
            out.kv = checked::mul(kv, model.arch.mtp_layers);
            // The context inherits the target's n_ubatch (server-context.cpp creates it with
            // common_context_params_to_llama(params_base); common/speculative.cpp lines
            // 2537-2588 at 0ad4a86 give it the target's n_ctx): one block's graph over them.
            CANITRUN_TRY_ASSIGN(out.compute, llamacpp_mtp_compute_bytes(model, options));
            return out;
        },
        [] { return overflow_error("the MTP context"); });
}

namespace {

// The MTP layers' weights and the MTP draft context's KV cache and compute buffer at the
// settings (mtp_context_bytes); nothing where the files do not carry them (mtp_loadable: the
// command refuses --mtp for its own model, a list of models plans those without).
Result<Bytes> mtp_bytes(const Model& model, const Quant& quant, const PlanSettings& settings) {
    if (!mtp_loadable(model, settings.file.get())) return Bytes{0};
    Bytes weights = 0;
    if (settings.file) {
        weights = settings.file->sums.mtp;  // the file's own nextn blocks (file_mtp_tensor)
    } else {
        CANITRUN_TRY_ASSIGN(weights, llamacpp_mtp_weight_bytes(model, quant));
    }
    if (weights == 0) return Bytes{0};
    // The MTP context's cache types are the draft's (f16 unless -ctkd / -ctvd), whatever the
    // target's: common_base_params_to_speculative takes params.speculative.draft.cache_type_k
    // (common/speculative.cpp at 0ad4a86); the CPU harness measured f16 beside a q8_0 target.
    CANITRUN_TRY_ASSIGN(const auto options,
                        llamacpp_options(model, draft_settings(settings), Backend::cuda));
    CANITRUN_TRY_ASSIGN(const auto context, mtp_context_bytes(model, options));
    return checked::add(weights, checked::add(context.kv, context.compute));
}

// -nkvo: one attention layer's tensors on the CPU (server_terms.hpp), the widest layer's: per
// ubatch token, f32 copies of Q, K and V and the attention's output (twice without flash
// attention: KQV and its contiguous copy, beside the KQ scores over the layer's cells), and with
// flash attention the f16 casts of the masks (without it the host's f32 masks serve as they are).
Result<Bytes> nkvo_attention_bytes(const Model& model, const PlanSettings& settings) {
    CANITRUN_TRY_ASSIGN(const auto o, llamacpp_options(model, settings, Backend::cpu));
    const std::uint64_t n_ctx = llama_padded_context(o.context);
    const std::uint64_t n_seq = std::max<std::uint64_t>(o.n_seq, 1);
    const std::uint64_t n_kv = o.kv_unified ? n_ctx : llama_padded_context(n_ctx / n_seq);
    const std::uint64_t ubatch = std::min(o.ubatch, n_ctx);
    const bool flash = o.flash_attn != FlashAttn::off;
    std::uint64_t full = 0, swa = 0, widest = 0;
    for (const auto& g : model.arch.layer_groups) {
        if (g.kind != LayerKind::full && g.kind != LayerKind::sliding) continue;
        const AttentionDims d = attention_dims(model, g);
        const std::uint64_t heads = d.heads, kv_heads = d.kv_heads, k = d.k_dim, v = d.v_dim;
        const bool sliding = g.kind == LayerKind::sliding;
        const std::uint64_t cells = sliding ? llama_sliding_cells(n_kv, g.window, ubatch) : n_kv;
        (sliding ? swa : full) = cells;
        const std::uint64_t qkv =
            checked::add(checked::mul(heads, k), checked::mul(kv_heads, checked::add(k, v)));
        const std::uint64_t out = checked::mul(heads, v);
        const std::uint64_t floats = flash ? checked::add(qkv, out)
                                           : checked::add(checked::add(qkv, checked::mul(2, out)),
                                                          checked::mul(heads, cells));
        widest = std::max(widest, floats);
    }
    if (widest == 0) return Bytes{0};
    const std::uint64_t masks = flash ? checked::mul(2, checked::add(full, swa)) : 0;
    return checked::mul(ubatch, checked::add(checked::mul(4, widest), masks));
}

}  // namespace

const char* load_mode_name(LoadMode mode) {
    switch (mode) {
        case LoadMode::automatic:
            return "auto";
        case LoadMode::none:
            return "none";
        case LoadMode::mmap:
            return "mmap";
        case LoadMode::mlock:
            return "mlock";
        case LoadMode::mmap_mlock:
            return "mmap+mlock";
        case LoadMode::direct_io:
            return "dio";
    }
    return "auto";
}

Result<LoadMode> parse_load_mode(std::string_view text) {
    for (const LoadMode m : {LoadMode::automatic, LoadMode::none, LoadMode::mmap, LoadMode::mlock,
                             LoadMode::mmap_mlock, LoadMode::direct_io}) {
        if (text == load_mode_name(m)) return m;
    }
    return fail(ErrorKind::bad_input, "--load-mode '" + std::string(text) + "' is not a load mode",
                "use auto, none, mmap, mlock, mmap+mlock or dio (llama.cpp's --load-mode)");
}

Result<bool> mtp_loadable(const Model& model, const FileWeights* file) {
    if (file != nullptr) {
        if (file->sums.mtp > 0) return true;
        return fail(ErrorKind::bad_input, "--mtp: " + model.id + " carries no MTP layers to load",
                    "drop --mtp, or give a GGUF file converted with them (llama.cpp's converter "
                    "keeps them unless --no-mtp)");
    }
    if (model.arch.mtp_layers == 0) {
        return fail(ErrorKind::bad_input, "--mtp: " + model.id + " has no MTP layers",
                    "drop --mtp");
    }
    if (model.run.gguf_mtp) return true;
    const std::string files =
        model.run.gguf_repo.empty() ? "GGUF files" : "GGUF files (" + model.run.gguf_repo + ")";
    return fail(ErrorKind::bad_input,
                "--mtp: " + model.id + "'s published " + files +
                    " do not carry its MTP layers, so llama.cpp cannot load them",
                "drop --mtp, or plan a GGUF file that carries them by its path");
}

bool loads_projector(const Model& model, const Quant& quant, const ServerSettings& server) {
    if (!server.vision) return false;
    if (server.mmproj_file_bytes > 0) return true;
    return !model.run.mmproj.empty() && model.run.projector.bytes > 0 &&
           loads_from_repo(model, quant);
}

Result<ServerGrowth> server_growth(const Model& model, const Quant& quant,
                                   const PlanSettings& settings) {
    if (settings.rule == Rule::quick) return ServerGrowth{};
    CANITRUN_TRY_ASSIGN(const auto parts, plan_parts(model, quant, settings));
    const auto sequences = std::max<std::uint64_t>(settings.n_seq, 1);
    ServerTerms terms;
    terms.kv_streams = sequences;
    terms.sequences = sequences;
    const Bytes one = checkpoint_bytes(parts, terms);
    ServerGrowth g;
    g.prompt_cache = prompt_cache_most(model, settings.server);
    if (one > 0) {
        g.checkpoint_count = checked::mul(settings.server.ctx_checkpoints, sequences);
        g.checkpoints = checked::mul(g.checkpoint_count, one);
    }
    return g;
}

ServerSettings planned_server(ServerSettings server, const Placement* placement) {
    if (placement == nullptr) return server;
    if (placement->capped_checkpoints) server.ctx_checkpoints = *placement->capped_checkpoints;
    if (placement->capped_cache_ram) server.cache_ram = *placement->capped_cache_ram;
    return server;
}

Result<PlacementOptions> server_placement_for(const Model& model, const Quant& quant,
                                              const Hardware& hardware,
                                              const PlanSettings& settings, PlacementOptions user) {
    PlacementOptions o = placement_for(hardware, settings, std::move(user));
    if (settings.rule == Rule::quick) return o;
    const ServerSettings& s = settings.server;
    ServerTerms& t = o.server;
    t.prompt_cache = prompt_cache_most(model, s);
    t.checkpoints = checked::mul(s.ctx_checkpoints, std::max<std::uint64_t>(settings.n_seq, 1));
    t.checkpoints_given = s.ctx_checkpoints_given;
    t.prompt_cache_given = s.cache_ram_given;
    t.kv_streams = std::max<std::uint64_t>(settings.n_seq, 1);
    t.sequences = t.kv_streams;
    t.kv_in_ram = !s.kv_offload;
    if (t.kv_in_ram && !hardware.gpus.empty()) {
        CANITRUN_TRY_ASSIGN(t.nkvo_attention, nkvo_attention_bytes(model, settings));
    }
    CANITRUN_TRY_ASSIGN(t.cpu_repack, repack_bytes(model, quant, hardware, settings));
    if (s.mtp) {
        CANITRUN_TRY_ASSIGN(t.mtp, mtp_bytes(model, quant, settings));
    }
    set_load_mode(t, s.load_mode, hardware);
    add_projector(t, model, quant, s);
    if (s.draft) {
        CANITRUN_TRY_ASSIGN(
            const auto p, companion_placement(*s.draft, hardware, draft_settings(settings), false));
        // Loaded after the main model in the same process: one staging alive at a time.
        t.draft_staging = staging_in(p.ram);
        t.companions.push_back(companion_from("draft:" + s.draft->model->id, p, t.draft_staging));
    }
    for (const auto& a : s.also) {
        CANITRUN_TRY_ASSIGN(auto c,
                            place_companion("also:" + a.model->id, a, hardware,
                                            ollama_model_settings(settings, *a.model), true));
        t.companions.push_back(std::move(c));
    }
    return o;
}

}  // namespace canitrun
