#include "canitrun/server_terms.hpp"

#include <algorithm>

#include "canitrun/context_window.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/tensor_layout.hpp"

namespace canitrun {

Result<Placement> companion_placement(const ResidentModel& model, const Hardware& hardware,
                                      const PlanSettings& settings, bool own_process) {
    PlanSettings s = settings_for_model(*model.model, settings);
    s.server = ServerSettings{};
    s.server.cache_ram = 0;
    s.server.ctx_checkpoints = 0;
    s.margin = 0;
    CANITRUN_TRY_ASSIGN(auto parts, plan_parts(*model.model, *model.quant, s));
    PlacementOptions o = placement_for(hardware, s);
    o.margin = 0;
    if (!own_process) o.gpu_runtime.clear();
    o.server.kv_in_ram = !settings.server.kv_offload;
    return place(parts, hardware, o);
}

Result<Companion> place_companion(const std::string& name, const ResidentModel& model,
                                  const Hardware& hardware, const PlanSettings& settings,
                                  bool own_process) {
    CANITRUN_TRY_ASSIGN(auto p, companion_placement(model, hardware, settings, own_process));
    Companion c{name, {}, p.ram.total()};
    for (const auto& g : p.gpus) c.gpus.push_back(g.total());
    return c;
}

PlanSettings draft_settings(const PlanSettings& main) {
    PlanSettings s = main;
    s.cache_type_k = "f16";
    s.cache_type_v = "f16";
    s.estimate.kv_type = {};
    return s;
}

namespace {

// Another resident model's settings: one sequence at the main model's context per sequence,
// capped at the model's own window.
PlanSettings also_settings(const PlanSettings& main, const Model& model) {
    PlanSettings s = main;
    s.n_seq = 1;
    s.estimate.context = std::min(sequence_context(main), longest_supported_context(model));
    return s;
}

// The prompt cache's most: --cache-ram, or nothing for an encoder, whose sequence state holds
// no cache to save (llama_arch_keeps_no_memory).
Bytes prompt_cache_most(const Model& model, const ServerSettings& server) {
    const auto arch = llama_arch(model);
    return arch && llama_arch_keeps_no_memory(*arch) ? 0 : server.cache_ram;
}

// The MTP layers' weights and, each, a full-attention layer's KV cache at the settings.
Result<Bytes> mtp_bytes(const Model& model, const Quant& quant, const PlanSettings& settings) {
    CANITRUN_TRY_ASSIGN(const Bytes weights, llamacpp_mtp_weight_bytes(model, quant));
    if (weights == 0) return Bytes{0};
    CANITRUN_TRY_ASSIGN(const auto options, llamacpp_options(settings, Backend::cuda));
    CANITRUN_TRY_ASSIGN(const auto caches, llamacpp_group_caches(model, options));
    Bytes kv = 0;
    for (std::size_t g = 0; g < model.arch.layer_groups.size() && g < caches.size(); ++g) {
        if (model.arch.layer_groups[g].kind == LayerKind::full) kv = caches[g].kv;
    }
    return checked::add(weights, checked::mul(kv, model.arch.mtp_layers));
}

}  // namespace

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

Result<PlacementOptions> server_placement_for(const Model& model, const Quant& quant,
                                              const Hardware& hardware,
                                              const PlanSettings& settings, PlacementOptions user) {
    PlacementOptions o = placement_for(hardware, settings, std::move(user));
    if (settings.rule == Rule::quick) return o;
    const ServerSettings& s = settings.server;
    ServerTerms& t = o.server;
    t.prompt_cache = prompt_cache_most(model, s);
    t.checkpoints = checked::mul(s.ctx_checkpoints, std::max<std::uint64_t>(settings.n_seq, 1));
    t.kv_streams = std::max<std::uint64_t>(settings.n_seq, 1);
    t.sequences = t.kv_streams;
    t.kv_in_ram = !s.kv_offload;
    if (hardware.gpus.empty() && s.repack && settings.file) {
        t.cpu_repack = file_repack_bytes(settings.file->tensors, s.cpu);  // the file's own types
    } else if (hardware.gpus.empty() && s.repack) {
        CANITRUN_TRY_ASSIGN(t.cpu_repack, llamacpp_repack_bytes(model, quant, s.cpu));
    }
    if (s.mtp) {
        CANITRUN_TRY_ASSIGN(t.mtp, mtp_bytes(model, quant, settings));
    }
    if (s.draft) {
        CANITRUN_TRY_ASSIGN(auto c, place_companion("draft:" + s.draft->model->id, *s.draft,
                                                    hardware, draft_settings(settings), false));
        t.companions.push_back(std::move(c));
    }
    for (const auto& a : s.also) {
        CANITRUN_TRY_ASSIGN(auto c, place_companion("also:" + a.model->id, a, hardware,
                                                    also_settings(settings, *a.model), true));
        t.companions.push_back(std::move(c));
    }
    return o;
}

}  // namespace canitrun
