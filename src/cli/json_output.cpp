#include "json_output.hpp"

#include <nlohmann/json.hpp>

#include "hardware_json.hpp"
#include "page_facts.hpp"
#include "run_commands.hpp"

#include "canitrun/kv_cache.hpp"
#include "canitrun/param_count.hpp"

namespace canitrun::cli {
namespace {

using nlohmann::json;

// The RAM the GPU lists assume, in GB: whole as typed (--ram 64), else its fraction (63.9).
json ram_gb_json(Bytes ram) {
    if (ram % kGB == 0) return ram / kGB;
    return static_cast<double>(ram) / static_cast<double>(kGB);
}

json gpu_ref(const Gpu* gpu) {
    if (gpu == nullptr) return nullptr;
    return {{"id", gpu->id},
            {"name", gpu->name},
            {"vram_gb", gpu->vram_gb},
            {"vram_bytes", gpu->vram_bytes}};
}

json gpu_refs(const std::vector<const Gpu*>& gpus) {
    json out = json::array();
    for (const Gpu* g : gpus) out.push_back(gpu_ref(g));
    return out;
}

// The commands the page prints to run the model (run_commands.hpp), each on one line.
json run_commands_json(const ModelReport& r) {
    json out = json::array();
    for (const RunCommand& c : run_commands(r)) {
        json entry = {{"engine", c.engine}, {"heading", c.heading}};
        if (!c.command.empty()) entry["command"] = c.command;
        if (!c.then.empty()) entry["then"] = c.then;
        if (!c.note.empty()) entry["note"] = c.note;
        out.push_back(entry);
    }
    return out;
}

json choice_json(const std::optional<QuantChoice>& choice) {
    if (!choice) return nullptr;
    return {{"quant", choice->quant->id}, {"total_bytes", choice->estimate.total()}};
}

}  // namespace

json estimate_json(const Estimate& e) {
    json terms = json::array();
    for (const auto& t : e.terms) {
        terms.push_back({{"name", term_name(t.kind)},
                         {"bytes", t.bytes},
                         {"device", t.device == Device::gpu ? "gpu" : "cpu"}});
    }
    return terms;
}

json model_json(const Model& m) {
    json groups = json::array();
    for (const auto& g : m.arch.layer_groups) {
        json group = {{"kind", layer_kind_name(g.kind)}, {"count", g.count}};
        if (g.kind == LayerKind::sliding) group["window"] = g.window;
        groups.push_back(group);
    }
    const ParamCount computed = count_params(m);
    json out = {{"id", m.id},
                {"name", m.name},
                {"family", m.family},
                {"vendor", m.vendor},
                {"aliases", m.aliases},
                {"released", m.released},
                {"license", m.license},
                {"commercial_use", m.commercial_use},
                {"modalities", m.modalities},
                {"params_total", m.params_total},
                {"params_active", m.params_active},
                {"params_computed", {{"total", computed.total}, {"active", computed.active}}},
                {"context_native", m.context_native},
                {"context_extended", m.context_extended},
                {"moe", m.is_moe()},
                {"layers", m.arch.layers},
                {"kv_layers", count_kv_layers(m)},
                {"layer_groups", groups},
                {"source", m.source}};
    if (const auto& moe = m.arch.moe) {
        out["experts"] = {{"total", moe->experts},
                          {"routed_per_token", moe->experts_per_token},
                          {"shared", moe->shared_experts}};
    }
    return out;
}

json gpu_json(const Gpu& g) {
    return {{"id", g.id},
            {"name", g.name},
            {"vendor", g.vendor},
            {"class", gpu_class_name(g.gpu_class)},
            {"vram_gb", g.vram_gb},
            {"vram_bytes", g.vram_bytes},
            {"bandwidth_gbps", g.bandwidth_gbps},
            {"fp16_tflops", g.fp16_tflops},
            {"fp32_tflops", g.fp32_tflops},
            {"architecture", g.architecture},
            {"backends", g.backends},
            {"release_year", g.release_year},
            {"devices", g.devices},
            {"source", g.source}};
}

json quant_json(const Quant& q) {
    return {
        {"id", q.id},
        {"bits_per_weight", static_cast<double>(q.bpw_e4) / static_cast<double>(kBpwScale)},
        {"quality_rank", q.quality_rank},
        {"recommended", q.recommended},
        {"requires_backend", q.requires_backend.empty() ? json(nullptr) : json(q.requires_backend)},
        {"format", q.format},
        {"source", q.source}};
}

json kv_curve_json(const std::vector<KvCurvePoint>& curve) {
    json out = json::array();
    for (const auto& p : curve) {
        out.push_back({{"context", p.context},
                       {"this_model_bytes", p.this_model_bytes},
                       {"all_attention_bytes", p.all_attention_bytes},
                       {"this_model_total_bytes", p.this_model_total_bytes},
                       {"all_attention_total_bytes", p.all_attention_total_bytes}});
    }
    return out;
}

namespace {

// What grows after load in RAM (server_terms.hpp's ServerGrowth), with the page's sentence.
json growth_json(const ModelReport& r) {
    return {{"prompt_cache_bytes", r.growth->prompt_cache},
            {"checkpoints_bytes", r.growth->checkpoints},
            {"checkpoints", r.growth->checkpoint_count},
            {"total_bytes", r.growth->total()},
            {"text", growth_sentence(r)}};
}

// The vision projector of a multimodal model (run.projector, server_terms.hpp): whether the
// plan counts it (the llama.cpp rule, -hf loads it, no --no-mmproj), its bytes and how they were
// known; bytes null where the data has no size for it.
json projector_json(const ModelReport& r) {
    const Model& m = *r.model;
    const ProjectorInfo& p = m.run.projector;
    const bool counted = r.rule == Rule::llamacpp && r.quant != nullptr &&
                         loads_projector(m, *r.quant, r.settings.server);
    const auto known = [&](std::uint64_t b) { return p.bytes == 0 || b == 0 ? json() : json(b); };
    return {{"file", m.run.mmproj},
            {"counted", counted},
            {"on_gpu", r.settings.server.mmproj_offload},
            {"bytes", known(p.bytes)},
            {"basis", p.bytes == 0 ? json() : json(p.basis)},
            {"compute_bytes", known(p.compute_bytes)},
            {"host_compute_bytes", known(p.host_compute_bytes)},
            {"source", p.bytes == 0 ? json() : json(p.source)}};
}

// The page's facts in words (page_facts.hpp), the same sentences the terminal page prints.
json page_facts_json(const ModelReport& r) {
    const Model& m = *r.model;
    const LayerPatternFacts pattern = layer_pattern_facts(m, true);
    json legend = json::array();
    for (const auto& l : pattern.legend) legend.push_back({{"glyph", l.glyph}, {"text", l.text}});
    json faq = json::array();
    for (const auto& e : faq_entries(r))
        faq.push_back({{"question", e.question}, {"answer", e.answer}});
    json links = json::array();
    for (const auto& l : page_links(m)) links.push_back({{"label", l.label}, {"url", l.url}});
    json out = {{"context", context_sentence(m)},
                {"context_extended", m.context_extended},
                {"context_extension", m.context_extension},
                {"layer_pattern",
                 {{"words", pattern.words}, {"diagram", pattern.diagram}, {"legend", legend}}},
                {"why_quant", why_quant(r)},
                {"lmstudio_advice", lmstudio_advice(r)},
                {"faq", faq},
                {"links", links},
                {"editorial", nullptr}};
    const Editorial& e = m.editorial;
    if (!e.source.empty()) {
        out["editorial"] = {{"who_for", e.who_for},
                            {"best_for", e.best_for},
                            {"not_ideal_for", e.not_ideal_for},
                            {"verdict", e.verdict},
                            {"source", e.source},
                            {"rule", e.rule.empty() ? json(nullptr) : json(e.rule)},
                            {"caveat", editorial_caveat(r)}};
    }
    return out;
}

}  // namespace

json model_report_json(const ModelReport& r) {
    json quants = json::array();
    for (const auto& row : r.rows) {
        quants.push_back({{"quant", row.quant->id},
                          {"weights_bytes", row.estimate.term(TermKind::weights)},
                          {"kv_cache_bytes", row.estimate.term(TermKind::kv_cache)},
                          {"overhead_bytes", row.estimate.term(TermKind::overhead)},
                          {"total_bytes", row.estimate.total()},
                          {"gpu_bytes", row.estimate.on(Device::gpu)},
                          {"recommended", row.quant->recommended},
                          {"cuda_only", row.quant->requires_backend == "cuda"},
                          {"terms", estimate_json(row.estimate)}});
    }
    json matrix = json::array();
    for (const auto& row : r.matrix) {
        json cells = json::array();
        for (std::size_t i = 0; i < row.cells.size(); ++i) {
            const auto& c = row.cells[i];
            cells.push_back(
                {{"context", r.matrix_contexts[i]},
                 {"total_bytes", c.total},
                 {"card_gb", c.card ? json(c.card->gb) : json(nullptr)},
                 {"card_class", c.card ? json(gpu_class_name(c.card->gpu_class)) : json(nullptr)}});
        }
        matrix.push_back({{"quant", row.quant->id}, {"cells", cells}});
    }
    json out = {
        {"model", model_json(*r.model)},
        {"quant", r.quant->id},
        {"context", r.options.context},
        {"kv_type", r.options.kv_type.id},
        {"overhead_percent", r.options.overhead_percent},
        {"units", "bytes"},
        {"rule", rule_name(r.rule)},
        {"estimate",
         {{"total_bytes", r.selected.total()},
          {"gpu_bytes", r.selected.on(Device::gpu)},
          {"host_bytes", r.selected.on(Device::cpu)},
          {"terms", estimate_json(r.selected)}}},
        {"quants", quants},
        {"matrix", matrix},
        {"kv_comparison",
         {{"context", r.model->context_native},
          {"kv_cache_bytes", r.kv_full_context},
          {"all_attention_kv_cache_bytes", r.kv_all_attention_full_context},
          {"total_bytes", r.total_full_context},
          {"all_attention_total_bytes", r.total_all_attention_full_context},
          {"recurrent_state_bytes", r.recurrent_state},
          {"curve", kv_curve_json(r.kv_curve)}}},
        {"facts", page_facts_json(r)},
        {"run_commands", run_commands_json(r)},
        {"smallest_gpu", gpu_ref(r.smallest_gpu)},
        {"gpus",
         {{"native", gpu_refs(r.gpus.native)},
          {"offload", gpu_refs(r.gpus.offload)},
          {"ram_gb_assumed", ram_gb_json(r.fit.ram)}}},
    };
    if (!r.rule_note.empty()) out["rule_note"] = r.rule_note;
    if (r.quick_contrast) {
        out["quick_rule"] = {
            {"total_bytes", r.quick_contrast->total},
            {"card_gb", r.quick_contrast->card ? json(r.quick_contrast->card->gb) : json(nullptr)}};
    }
    json cards = json::array();
    for (const auto& c : r.card_answers) {
        cards.push_back({{"gb", c.gb}, {"fits", c.fits}, {"best", choice_json(c.best)}});
    }
    out["card_answers"] = cards;
    if (r.vram) {
        out["vram_query"] = {
            {"budget_bytes", r.vram->budget},
            {"fits_recommended", r.vram->fits_recommended},
            {"best_quant", r.vram->best ? json(r.vram->best->quant->id) : json(nullptr)},
            {"best", choice_json(r.vram->best)},
            {"best_with_offload", choice_json(r.vram->best_offload)}};
    }
    if (r.hardware) out["hardware"] = hardware_report_json(*r.model, *r.hardware);
    if (r.growth) out["grows_after_load"] = growth_json(r);
    if (!r.model->run.mmproj.empty()) out["projector"] = projector_json(r);
    return out;
}

}  // namespace canitrun::cli
