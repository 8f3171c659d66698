#include "hardware_json.hpp"

#include <nlohmann/json.hpp>

#include "canitrun/launch_command.hpp"
#include "hardware_text.hpp"
#include "json_sink.hpp"
#include "launch_lines.hpp"
#include "shell_words.hpp"
#include "speed_text.hpp"

namespace canitrun::cli {
namespace {

using json = nlohmann::json;

// The devices' shares and their terms give their members in the order of their names, the
// order they are printed (json_output.cpp says why).
void write_resident(JsonSink& w, const Share& s) {
    w.begin_array();
    for (const auto& r : s.resident) {
        w.begin_object();
        w.field("grows", r.grows());
        w.field("load_bytes", r.load);
        w.field("most_bytes", r.most);
        w.field("name", r.name);
        w.end_object();
    }
    w.end_array();
}

void write_share(JsonSink& w, const Share& s) {
    w.begin_object();
    w.field("capacity_bytes", s.capacity);
    w.field("compute_bytes", s.compute);
    w.field("fits", s.fits());
    w.field("kv_cache_bytes", s.kv_cache);
    w.field("layers", s.layers);
    w.field("mapped_bytes", s.mapped);
    w.field("most_bytes", s.most());
    w.field("output_head", s.output);
    w.field("overhead_bytes", s.overhead);
    w.field("read_per_token_bytes", s.read_per_token);
    w.field("recurrent_state_bytes", s.recurrent_state);
    w.key("resident");
    write_resident(w, s);
    w.field("runtime_bytes", s.runtime);
    w.field("total_bytes", s.total());
    w.field("weights_bytes", s.weights);
    w.end_object();
}

void write_hardware(JsonSink& w, const Hardware& h) {
    w.begin_object();
    w.key("gpus");
    w.begin_array();
    for (const auto& d : h.gpus) {
        w.begin_object();
        w.field("name", d.name);
        w.key("id");
        if (d.gpu != nullptr) {
            w.value(d.gpu->id);
        } else {
            w.null();
        }
        w.field("memory_bytes", d.memory);
        w.field("bandwidth_gbps", d.bandwidth_gbps);
        w.field("fp16_tflops", d.fp16_tflops);
        w.field("unified", d.unified);
        w.end_object();
    }
    w.end_array();
    w.field("ram_bytes", h.ram);
    w.field("ram_bandwidth_gbps", h.ram_bandwidth_gbps);
    w.field("notes", h.notes);
    w.end_object();
}

// What the plan lowered of the growth settings the user left out (cap_growth); nothing when it
// lowered none. The page's plan and the serving line's plan each carry their own.
void write_growth_cap(JsonSink& w, const Placement& p) {
    if (!p.capped_checkpoints && !p.capped_cache_ram) return;
    w.key("growth_cap");
    w.begin_object();
    w.key("ctx_checkpoints");
    if (p.capped_checkpoints) {
        w.value(*p.capped_checkpoints);
    } else {
        w.null();
    }
    w.key("cache_ram_mib");
    if (p.capped_cache_ram) {
        w.value(*p.capped_cache_ram >> 20);
    } else {
        w.null();
    }
    w.field("text", growth_cap_sentence(p));
    w.end_object();
}

// A plan's kind and placement: members of the answer's object, and of its alternative's (the
// object's members are printed in name order, whatever order they are written in).
void write_plan(JsonSink& w, const Plan& plan) {
    const Placement& p = plan.placement;
    w.field("plan", plan_kind_name(plan.kind));
    w.field("gpu_layers", llamacpp_gpu_layers(p));
    w.field("cpu_moe_layers", p.cpu_moe_layers);
    w.field("cpu_moe_set", p.cpu_moe_set);  // -ot's chosen layers; empty: the first ones
    w.field("tensor_split", llamacpp_tensor_split(p));
    w.key("gpus");
    w.begin_array();
    for (const auto& g : p.gpus) write_share(w, g);
    w.end_array();
    w.key("ram");
    write_share(w, p.ram);
    w.field("gpu_total_bytes", p.gpu_total());
    w.field("gpu_usable_bytes", p.gpu_usable());
    write_growth_cap(w, p);
}

void write_speculative(JsonSink& w, const SpeculativeSpeed& s) {
    w.begin_object();
    w.field("target_tokens_per_s", s.target_tokens_per_s);
    w.field("draft_tokens_per_s", s.draft_tokens_per_s);
    w.field("acceptance", s.acceptance);
    w.field("draft_max", s.draft_max);
    w.field("tokens_per_s", s.tokens_per_s);
    w.field("assumed", true);
    w.end_object();
}

void write_serving_speed(JsonSink& w, const ServingSpeed& s) {
    w.begin_object();
    w.field("users", s.users);
    w.field("per_user_tokens_per_s", s.per_user_tokens_per_s);
    w.field("total_tokens_per_s", s.total_tokens_per_s);
    w.field("compute_bound", s.compute_bound);
    w.end_object();
}

void write_serving(JsonSink& w, const HardwareReport& r) {
    w.begin_object();
    w.field("per_user_context", r.serving->per_user_context);
    w.field("max_users", r.serving->max_users);
    w.key("speed");
    if (r.serving->max_users > 0) {
        write_serving_speed(w, r.serving->speed);
        write_growth_cap(w, r.serving->answer.plan.placement);
    } else {
        w.null();
    }
    w.end_object();
}

void write_optional_answer(JsonSink& w, const std::optional<HardwareAnswer>& a, const Hardware& h) {
    if (a) {
        write_hardware_answer(w, *a, h);
    } else {
        w.null();
    }
}

// The planner's own placement where the user's placement flags made the plan fail (core's
// answer_for), or --split-mode tensor beside the plan (tensor_split_option), as the text's
// sentence names it: its flags, its devices, its speed, and where the model is known, the
// llama-server line that carries it.
void write_alternative(JsonSink& w, const HardwareAnswer& a, const Hardware& h,
                       const LaunchTarget* target, const PlacementAlternative& alt) {
    const Placement& p = alt.plan.placement;
    w.begin_object();
    write_plan(w, alt.plan);
    w.field("flags", shell_join(placement_args(&h, &p)));
    // 0 in the core means no speed figure: null here, as the answer's own speed writes it.
    w.key("decode_tokens_per_s");
    if (alt.decode_tokens_per_s > 0) {
        w.value(alt.decode_tokens_per_s);
    } else {
        w.null();
    }
    if (target != nullptr && a.quant->format == "gguf") {
        w.field("llama_cpp_command", fitted_llama_command(*target->model, a, h, p, target->load));
    }
    w.end_object();
}

void write_answer(JsonSink& w, const HardwareAnswer& a, const Hardware& hardware,
                  const LaunchTarget* target) {
    w.begin_object();
    w.field("quant", a.quant->id);
    w.field("context", a.settings.estimate.context);
    write_plan(w, a.plan);
    w.key("speed");
    write_speed_json(w, a, hardware);
    if (a.speculative) {
        w.key("speculative");
        write_speculative(w, *a.speculative);
    }
    if (a.alternative) {
        w.key("alternative");
        write_alternative(w, a, hardware, target, *a.alternative);
    }
    if (a.tensor_option) {
        w.key("tensor_option");
        write_alternative(w, a, hardware, target, *a.tensor_option);
    }
    w.end_object();
}

}  // namespace

json hardware_json(const Hardware& h) {
    return tree_of(write_hardware, h);
}

void write_hardware_answer(JsonSink& w, const HardwareAnswer& a, const Hardware& hardware) {
    write_answer(w, a, hardware, nullptr);
}

json hardware_answer_json(const HardwareAnswer& a, const Hardware& hardware) {
    return tree_of(write_hardware_answer, a, hardware);
}

// The members in the order of their names, as the document prints them (the model page's
// writer says why).
void write_hardware_report(JsonSink& w, const Model& model, const HardwareReport& r) {
    w.begin_object();
    w.key("best");
    write_optional_answer(w, r.best, r.hardware);
    w.key("best_with_offload");
    write_optional_answer(w, r.with_offload, r.hardware);
    w.key("fastest");
    write_optional_answer(w, r.fastest, r.hardware);
    w.key("hardware");
    write_hardware(w, r.hardware);
    if (r.selected.plan.kind != PlanKind::none && r.selected.quant->format == "gguf") {
        const std::string build = llama_build_note(r.selected.settings);
        if (!build.empty()) w.field("llama_cpp_build", build);
        w.field("llama_cpp_command",
                fitted_llama_command(model, r.selected, r.hardware, r.model_load));
    }
    w.field("max_context", r.max_context);
    w.key("selected");
    const LaunchTarget target{&model, r.selected.quant, r.model_load};
    write_answer(w, r.selected, r.hardware, &target);
    if (r.serving) {
        w.key("serving");
        write_serving(w, r);
    }
    if (r.users_speed) {
        w.key("users_speed");
        write_serving_speed(w, *r.users_speed);
    }
    w.end_object();
}

json hardware_report_json(const Model& model, const HardwareReport& r) {
    return tree_of(write_hardware_report, model, r);
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
