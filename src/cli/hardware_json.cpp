#include "hardware_json.hpp"

#include <nlohmann/json.hpp>

#include "hardware_text.hpp"
#include "speed_text.hpp"

namespace canitrun::cli {
namespace {

using json = nlohmann::json;

json resident_json(const Share& s) {
    json terms = json::array();
    for (const auto& r : s.resident) {
        terms.push_back({{"name", r.name},
                         {"load_bytes", r.load},
                         {"most_bytes", r.most},
                         {"grows", r.grows()}});
    }
    return terms;
}

json share_json(const Share& s) {
    return {{"layers", s.layers},
            {"output_head", s.output},
            {"weights_bytes", s.weights},
            {"kv_cache_bytes", s.kv_cache},
            {"overhead_bytes", s.overhead},
            {"recurrent_state_bytes", s.recurrent_state},
            {"compute_bytes", s.compute},
            {"runtime_bytes", s.runtime},
            {"total_bytes", s.total()},
            {"capacity_bytes", s.capacity},
            {"fits", s.fits()},
            {"read_per_token_bytes", s.read_per_token},
            {"mapped_bytes", s.mapped},
            {"most_bytes", s.most()},
            {"resident", resident_json(s)}};
}

}  // namespace

json hardware_json(const Hardware& h) {
    json gpus = json::array();
    for (const auto& d : h.gpus) {
        gpus.push_back({{"name", d.name},
                        {"id", d.gpu != nullptr ? json(d.gpu->id) : json(nullptr)},
                        {"memory_bytes", d.memory},
                        {"bandwidth_gbps", d.bandwidth_gbps},
                        {"fp16_tflops", d.fp16_tflops},
                        {"unified", d.unified}});
    }
    return {{"gpus", gpus},
            {"ram_bytes", h.ram},
            {"ram_bandwidth_gbps", h.ram_bandwidth_gbps},
            {"notes", h.notes}};
}

json hardware_answer_json(const HardwareAnswer& a, const Hardware& hardware) {
    const Placement& p = a.plan.placement;
    json devices = json::array();
    for (const auto& g : p.gpus) devices.push_back(share_json(g));
    json out = {{"quant", a.quant->id},
                {"context", a.settings.estimate.context},
                {"plan", plan_kind_name(a.plan.kind)},
                {"gpu_layers", p.gpu_layers},
                {"cpu_moe_layers", p.cpu_moe_layers},
                {"tensor_split", p.tensor_split},
                {"gpus", devices},
                {"ram", share_json(p.ram)},
                {"gpu_total_bytes", p.gpu_total()},
                {"speed", speed_json(a, hardware)}};
    if (a.speculative) {
        const SpeculativeSpeed& s = *a.speculative;
        out["speculative"] = {{"target_tokens_per_s", s.target_tokens_per_s},
                              {"draft_tokens_per_s", s.draft_tokens_per_s},
                              {"acceptance", s.acceptance},
                              {"draft_max", s.draft_max},
                              {"tokens_per_s", s.tokens_per_s},
                              {"assumed", true}};
    }
    return out;
}

json serving_speed_json(const ServingSpeed& s) {
    return {{"users", s.users},
            {"per_user_tokens_per_s", s.per_user_tokens_per_s},
            {"total_tokens_per_s", s.total_tokens_per_s},
            {"compute_bound", s.compute_bound}};
}

json hardware_report_json(const Model& model, const HardwareReport& r) {
    json out = {
        {"hardware", hardware_json(r.hardware)},
        {"selected", hardware_answer_json(r.selected, r.hardware)},
        {"best", r.best ? hardware_answer_json(*r.best, r.hardware) : json(nullptr)},
        {"fastest", r.fastest ? hardware_answer_json(*r.fastest, r.hardware) : json(nullptr)},
        {"max_context", r.max_context ? json(*r.max_context) : json(nullptr)}};
    if (r.users_speed) out["users_speed"] = serving_speed_json(*r.users_speed);
    if (r.serving) {
        out["serving"] = {{"per_user_context", r.serving->per_user_context},
                          {"max_users", r.serving->max_users},
                          {"speed", r.serving->max_users > 0 ? serving_speed_json(r.serving->speed)
                                                             : json(nullptr)}};
    }
    if (r.selected.plan.kind != PlanKind::none && r.selected.quant->format == "gguf") {
        out["llama_cpp_command"] =
            fitted_llama_command(model, r.selected, r.hardware, r.model_file);
    }
    return out;
}

json system_json(const DetectedSystem& system, const Hardware& hardware) {
    json gpus = json::array();
    for (std::size_t i = 0; i < system.gpus.size(); ++i) {
        const DetectedGpu& d = system.gpus[i];
        const GpuDevice& dev = hardware.gpus[i];
        gpus.push_back({{"name", d.name},
                        {"vendor", d.vendor},
                        {"memory_bytes", d.memory},
                        {"usable_bytes", dev.memory},
                        {"free_bytes", d.free ? json(*d.free) : json(nullptr)},
                        {"integrated", d.integrated},
                        {"found_by", d.via},
                        {"database_id", dev.gpu != nullptr ? json(dev.gpu->id) : json(nullptr)},
                        {"bandwidth_gbps", dev.bandwidth_gbps}});
    }
    return {{"gpus", gpus},
            {"ram_bytes", system.ram ? json(*system.ram) : json(nullptr)},
            {"notes", system.notes}};
}

json model_fits_json(const Hardware& hardware, const EstimateOptions& options,
                     const std::vector<ModelFit>& fits) {
    json models = json::array();
    for (const auto& f : fits) {
        json entry = hardware_answer_json(f.answer, hardware);
        entry["model"] = f.model->id;
        entry["params_total"] = f.model->params_total;
        entry["max_context"] = f.max_context;
        models.push_back(entry);
    }
    return {
        {"hardware", hardware_json(hardware)}, {"context", options.context}, {"models", models}};
}

}  // namespace canitrun::cli
