#include "canitrun/plan_settings.hpp"

#include <algorithm>

#include "canitrun/kept_parts.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/speculative_speed.hpp"
#include "canitrun/strings.hpp"
#include "canitrun/tensor_layout.hpp"

namespace canitrun {

PlanSettings quick_settings(const EstimateOptions& options) {
    PlanSettings s;
    s.rule = Rule::quick;
    s.estimate = options;
    s.margin = 0;
    return s;
}

PlanSettings settings_for_model(const Model& model, const PlanSettings& asked, std::string* note) {
    if (asked.rule != Rule::llamacpp || llama_arch(model)) return asked;
    if (note != nullptr) {
        *note =
            "llama.cpp's tensor layout for this architecture is not modelled yet, so the "
            "figures are the quick rule's";
    }
    return quick_settings(asked.estimate);
}

std::uint64_t sequence_context(const PlanSettings& settings) {
    return llama_sequence_context(settings.estimate.context, settings.n_seq);
}

const char* rule_name(Rule rule) {
    return rule == Rule::quick ? "quick" : "llama.cpp";
}

const char* split_mode_name(SplitMode mode) {
    switch (mode) {
        case SplitMode::layer:
            return "layer";
        case SplitMode::row:
            return "row";
        case SplitMode::tensor:
            return "tensor";
    }
    return "layer";
}

Result<SplitMode> parse_split_mode(const std::string& text) {
    for (const SplitMode m : {SplitMode::layer, SplitMode::row, SplitMode::tensor}) {
        if (text == split_mode_name(m)) return m;
    }
    return fail(ErrorKind::bad_input, "unknown --split-mode '" + printable_text(text) + "'",
                "give layer, row or tensor (llama.cpp -sm)");
}

Backend backend_for(const GpuDevice& device) {
    if (device.gpu == nullptr) return Backend::cuda;
    const std::string& v = device.gpu->vendor;
    if (v == "nvidia") return Backend::cuda;
    if (v == "amd") return Backend::rocm;
    if (v == "apple") return Backend::metal;
    return Backend::vulkan;
}

Result<bool> rule_loads(const PlanSettings& settings, const Quant& quant) {
    if (settings.rule == Rule::quick || settings.file) return true;
    return is_llama_file_type(quant);
}

Result<bool> rule_offers(const PlanSettings& settings, const Quant& quant) {
    // A recipe (bartowski's Q4_K_L) answers when it is named: the searches choose among
    // llama-quantize's own file types, one file a size.
    if (!quant.recipe_base.empty()) return false;
    if (settings.min_quality_rank != 0 && quant.quality_rank > settings.min_quality_rank) {
        return false;
    }
    return rule_loads(settings, quant);
}

std::uint64_t default_context(const Model& model) {
    return model.context_native > 0 ? std::min(kDefaultContext, model.context_native)
                                    : kDefaultContext;
}

const char* output_reserve_name(OutputReserve reserve) {
    return reserve == OutputReserve::all ? "all" : "server";
}

Result<OutputReserve> parse_output_reserve(const std::string& text) {
    const std::string t = to_lower(text);
    if (t == "server") return OutputReserve::server;
    if (t == "all") return OutputReserve::all;
    return fail(ErrorKind::bad_input, "--reserve-outputs takes server or all, not '" + text + "'",
                "server: llama-server's outputs (the default); all: every token of the ubatch");
}

std::uint64_t draft_tokens(const Model& model, const PlanSettings& settings) {
    const bool mtp = settings.server.mtp && mtp_loadable(model, settings.file.get());
    return settings.server.draft || mtp ? kLlamaDraftMax : 0;
}

Result<LlamaCppOptions> llamacpp_options(const Model& model, const PlanSettings& settings,
                                         Backend backend) {
    const std::string kv = settings.estimate.kv_type.id.empty() ? std::string(kDefaultKvType)
                                                                : settings.estimate.kv_type.id;
    const auto type = parse_cache_type(kv);
    if (!type) {
        return fail(ErrorKind::bad_input, "llama.cpp has no KV cache type '" + kv + "'",
                    "use " + llamacpp_kv_type_names() + ", or --engine quick");
    }
    LlamaCppOptions o;
    o.context = settings.estimate.context;
    o.ubatch = settings.ubatch;
    o.n_seq = settings.n_seq;
    o.flash_attn = settings.flash_attn;
    o.cache_type_k = settings.cache_type_k.empty() ? kv : settings.cache_type_k;
    o.cache_type_v = settings.cache_type_v.empty() ? kv : settings.cache_type_v;
    o.backend = backend;
    if (settings.outputs == OutputReserve::server) {
        o.outputs = llama_server_outputs(model, settings.n_seq, draft_tokens(model, settings));
    }
    if (settings.file) o.file_tensors = settings.file->sums;
    return o;
}

Result<bool> require_loadable(const PlanSettings& settings, const Quant& quant) {
    if (settings.rule == Rule::quick || settings.file || is_llama_file_type(quant)) return true;
    return fail(ErrorKind::bad_input, "llama.cpp does not load " + quant.id + " files",
                "pick a GGUF quantization (canitrun quants), or --engine vllm / quick");
}

Result<ModelParts> plan_parts(const Model& model, const Quant& quant,
                              const PlanSettings& settings) {
    return plan_parts(model, quant, settings, {});
}

namespace {

// The units llama.cpp counts among -ngl's and -ts's past the stack that hold nothing: the MTP
// (nextn) blocks the GGUF file carries. The converter counts them in block_count (conversion/
// glm.py's Glm4MoeModel at 0ad4a86, and so n_layer_all) and llama_model::load_tensors splits
// n_layer_all + 1 units (src/llama-model.cpp at 0ad4a86: i_gpu_start, act_gpu_layers), while the
// blocks' tensors are skipped unless --mtp loads them (TENSOR_SKIP, src/models/glm4-moe.cpp),
// which server_terms then counts on the output head's device, where these units lie.
std::uint64_t idle_units(const Model& model, const PlanSettings& settings) {
    const bool carried = settings.file ? settings.file->sums.mtp > 0 : model.run.gguf_mtp;
    return carried ? model.arch.mtp_layers : 0;
}

Result<ModelParts> llamacpp_plan_parts(const Model& model, const Quant& quant,
                                       const PlanSettings& settings, std::string_view kept) {
    CANITRUN_TRY(require_loadable(settings, quant));
    CANITRUN_TRY_ASSIGN(auto o, llamacpp_options(model, settings, Backend::cuda));
    // A file's own tensors, through the same caches and buffers as a database model's.
    if (settings.file) return llamacpp_parts_at_context(settings.file->parts, model, o);
    // The database's tensors as the snapshot typed them, where it keeps this quantization.
    CANITRUN_TRY_ASSIGN(auto stored, kept_weight_parts(kept, quant.id));
    if (stored) return llamacpp_parts_at_context(std::move(*stored), model, o);
    return llamacpp_parts(model, quant, o);
}

}  // namespace

Result<ModelParts> plan_parts(const Model& model, const Quant& quant, const PlanSettings& settings,
                              std::string_view kept) {
    if (settings.rule == Rule::quick) return model_parts(model, quant, settings.estimate);
    CANITRUN_TRY_ASSIGN(auto parts, llamacpp_plan_parts(model, quant, settings, kept));
    parts.idle_units = idle_units(model, settings);
    return parts;
}

Result<ModelParts> plan_parts_at_context(ModelParts parts, const Model& model,
                                         const PlanSettings& settings) {
    if (settings.rule == Rule::quick) {
        return parts_at_context(std::move(parts), model, settings.estimate);
    }
    CANITRUN_TRY_ASSIGN(auto o, llamacpp_options(model, settings, Backend::cuda));
    return llamacpp_parts_at_context(std::move(parts), model, o);
}

PlacementOptions placement_for(const Hardware& hardware, const PlanSettings& settings,
                               PlacementOptions user) {
    user.margin = 0;
    user.gpu_runtime.clear();
    if (settings.rule == Rule::quick) return user;
    user.margin = settings.margin;
    user.op_offload = settings.server.op_offload;
    user.host_blas = settings.server.host_blas;
    user.gpu_mask_copy.clear();
    user.gpu_pool.clear();
    user.gpu_moe_fusion.clear();
    user.gpu_maps_file.clear();
    for (const auto& d : hardware.gpus) {
        user.gpu_runtime.push_back(runtime_overhead_bytes(backend_for(d)));
        user.gpu_mask_copy.push_back(keeps_mask_copy(backend_for(d)));
        user.gpu_pool.push_back(has_cuda_pool(backend_for(d)));
        user.gpu_moe_fusion.push_back(fuses_moe_reduction(backend_for(d)));
        user.gpu_maps_file.push_back(maps_file_span(backend_for(d)));
    }
    return user;
}

}  // namespace canitrun
