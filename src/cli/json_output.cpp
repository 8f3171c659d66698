#include "json_output.hpp"

#include <nlohmann/json.hpp>

#include "hardware_json.hpp"
#include "json_sink.hpp"
#include "launch_lines.hpp"
#include "page_facts.hpp"

#include "canitrun/kv_cache.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/plan_settings.hpp"

namespace canitrun::cli {
namespace {

// The objects written many times in a document (GPU references, terms, grid cells, curve
// points) give their members in the order of their names, the order they are printed, so
// JsonText need not put them in order; any order prints the same bytes.

using nlohmann::json;

// The RAM the GPU lists assume, in GB: whole as typed (--ram 64), else its fraction (63.9).
void write_ram_gb(JsonSink& w, Bytes ram) {
    if (ram % kGB == 0) {
        w.value(ram / kGB);
    } else {
        w.value(static_cast<double>(ram) / static_cast<double>(kGB));
    }
}

void write_gpu_ref(JsonSink& w, const Gpu* gpu) {
    if (gpu == nullptr) return w.null();
    w.begin_object();
    w.field("id", gpu->id);
    w.field("name", gpu->name);
    w.field("vram_bytes", gpu->vram_bytes);
    w.field("vram_gb", gpu->vram_gb);
    w.end_object();
}

void write_gpu_refs(JsonSink& w, const std::vector<const Gpu*>& gpus) {
    w.begin_array();
    for (const Gpu* g : gpus) write_gpu_ref(w, g);
    w.end_array();
}

// The commands the page prints to run the model (launch_lines.hpp), each on one line.
void write_run_commands(JsonSink& w, const ModelReport& r) {
    w.begin_array();
    for (const RunCommand& c : run_commands(r)) {
        w.begin_object();
        w.field("engine", c.engine);
        w.field("heading", c.heading);
        if (!c.command.empty()) w.field("command", c.command);
        if (!c.then.empty()) w.field("then", c.then);
        if (!c.note.empty()) w.field("note", c.note);
        if (!c.file_name.empty()) {
            w.field("file_name", c.file_name);
            w.field("file_text", c.file_text);
        }
        w.end_object();
    }
    w.end_array();
}

void write_choice(JsonSink& w, const std::optional<QuantChoice>& choice) {
    if (!choice) return w.null();
    w.begin_object();
    w.field("quant", choice->quant->id);
    w.field("total_bytes", choice->estimate.total());
    w.end_object();
}

void write_estimate(JsonSink& w, const Estimate& e) {
    w.begin_array();
    for (const auto& t : e.terms) {
        w.begin_object();
        w.field("bytes", t.bytes);
        w.field("device", t.device == Device::gpu ? "gpu" : "cpu");
        w.field("name", term_name(t.kind));
        w.end_object();
    }
    w.end_array();
}

void write_model(JsonSink& w, const Model& m) {
    w.begin_object();
    w.field("id", m.id);
    w.field("name", m.name);
    w.field("family", m.family);
    w.field("vendor", m.vendor);
    w.field("aliases", m.aliases);
    w.field("released", m.released);
    w.field("license", m.license);
    w.field("commercial_use", m.commercial_use);
    w.field("modalities", m.modalities);
    w.field("params_total", m.params_total);
    w.field("params_active", m.params_active);
    const ParamCount computed = count_params(m);
    w.key("params_computed");
    w.begin_object();
    w.field("total", computed.total);
    w.field("active", computed.active);
    w.end_object();
    w.field("context_native", m.context_native);
    w.field("context_extended", m.context_extended);
    w.field("moe", m.is_moe());
    w.field("layers", m.arch.layers);
    w.field("kv_layers", count_kv_layers(m));
    w.key("layer_groups");
    w.begin_array();
    for (const auto& g : m.arch.layer_groups) {
        w.begin_object();
        w.field("kind", layer_kind_name(g.kind));
        w.field("count", g.count);
        if (keeps_window(g)) w.field("window", g.window);  // sliding, or a sliding MLA
        w.end_object();
    }
    w.end_array();
    w.field("source", m.source);
    if (const auto& moe = m.arch.moe) {
        w.key("experts");
        w.begin_object();
        w.field("total", moe->experts);
        w.field("routed_per_token", moe->experts_per_token);
        w.field("shared", moe->shared_experts);
        w.end_object();
    }
    w.end_object();
}

void write_kv_curve(JsonSink& w, const std::vector<KvCurvePoint>& curve) {
    w.begin_array();
    for (const auto& p : curve) {
        w.begin_object();
        w.field("all_attention_bytes", p.all_attention_bytes);
        w.field("all_attention_total_bytes", p.all_attention_total_bytes);
        w.field("context", p.context);
        w.field("this_model_bytes", p.this_model_bytes);
        w.field("this_model_total_bytes", p.this_model_total_bytes);
        w.end_object();
    }
    w.end_array();
}

}  // namespace

json estimate_json(const Estimate& e) {
    return tree_of(write_estimate, e);
}

json model_json(const Model& m) {
    return tree_of(write_model, m);
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
            {"int8_dot_tops", g.int8_dot_tops},
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
        {"recipe", q.recipe_base.empty() ? json(nullptr)
                                         : json{{"publisher", q.recipe_publisher},
                                                {"base", q.recipe_base},
                                                {"imatrix", q.recipe_imatrix},
                                                {"tensor_rules", q.recipe_tensors.size()}}},
        {"source", q.source}};
}

json kv_curve_json(const std::vector<KvCurvePoint>& curve) {
    return tree_of(write_kv_curve, curve);
}

namespace {

// What grows after load in RAM (server_terms.hpp's ServerGrowth), with the page's sentence.
void write_growth(JsonSink& w, const ModelReport& r) {
    w.begin_object();
    w.field("prompt_cache_bytes", r.growth->prompt_cache);
    w.field("checkpoints_bytes", r.growth->checkpoints);
    w.field("checkpoints", r.growth->checkpoint_count);
    w.field("total_bytes", r.growth->total());
    w.field("text", growth_sentence(r));
    w.end_object();
}

void write_editorial(JsonSink& w, const ModelReport& r) {
    const Editorial& e = r.model->editorial;
    if (e.source.empty()) return w.null();
    w.begin_object();
    w.field("who_for", e.who_for);
    w.field("best_for", e.best_for);
    w.field("not_ideal_for", e.not_ideal_for);
    w.field("verdict", e.verdict);
    w.field("source", e.source);
    if (e.rule.empty()) {
        w.field("rule", nullptr);
    } else {
        w.field("rule", e.rule);
    }
    w.field("caveat", editorial_caveat(r));
    // The claims the page's plan contradicts: the text stays as written above.
    w.key("contradicted");
    w.begin_array();
    for (const ClaimCheck& c : r.claim_checks) {
        if (!c.contradicted()) continue;
        w.begin_object();
        w.field("text", c.claim->text);
        w.field("quant", c.quant->id);
        w.field("card_gb", c.claim->card_gb);
        w.field("context", c.context);
        w.field("claims_fits", c.claim->fits);
        w.field("plan_fits", c.plan_fits);
        w.field("plan", claim_plan_text(c));
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

// The vision projector of a multimodal model (run.projector, server_terms.hpp): whether the
// plan counts it (the llama.cpp rule, -hf loads it, no --no-mmproj), its bytes and how they were
// known; bytes null where the data has no size for it.
void write_projector(JsonSink& w, const ModelReport& r) {
    const Model& m = *r.model;
    const ProjectorInfo& p = m.run.projector;
    const bool counted = r.rule == Rule::llamacpp && r.quant != nullptr &&
                         loads_projector(m, *r.quant, r.settings.server);
    const auto known = [&](std::uint64_t b) {
        return p.bytes == 0 || b == 0 ? std::nullopt : std::optional<std::uint64_t>(b);
    };
    const auto said = [&](const std::string& text) {
        return p.bytes == 0 ? std::nullopt : std::optional<std::string>(text);
    };
    w.begin_object();
    w.field("file", m.run.mmproj);
    w.field("counted", counted);
    w.field("on_gpu", r.settings.server.mmproj_offload);
    w.field("bytes", known(p.bytes));
    w.field("basis", said(p.basis));
    w.field("compute_bytes", known(p.compute_bytes));
    w.field("host_compute_bytes", known(p.host_compute_bytes));
    w.field("source", said(p.source));
    w.end_object();
}

// The page's facts in words (page_facts.hpp), the same sentences the terminal page prints.
void write_page_facts(JsonSink& w, const ModelReport& r) {
    const Model& m = *r.model;
    const LayerPatternFacts pattern = layer_pattern_facts(m, true);
    w.begin_object();
    w.field("context", context_sentence(m));
    w.field("context_extended", m.context_extended);
    w.field("context_extension", m.context_extension);
    w.key("layer_pattern");
    w.begin_object();
    w.field("words", pattern.words);
    w.field("diagram", pattern.diagram);
    w.key("legend");
    w.begin_array();
    for (const auto& l : pattern.legend) {
        w.begin_object();
        w.field("glyph", l.glyph);
        w.field("text", l.text);
        w.end_object();
    }
    w.end_array();
    w.end_object();
    w.field("why_quant", why_quant(r));
    w.field("lmstudio_advice", lmstudio_advice(r));
    w.key("faq");
    w.begin_array();
    for (const auto& e : faq_entries(r)) {
        w.begin_object();
        w.field("question", e.question);
        w.field("answer", e.answer);
        w.end_object();
    }
    w.end_array();
    w.key("links");
    w.begin_array();
    for (const auto& l : page_links(m)) {
        w.begin_object();
        w.field("label", l.label);
        w.field("url", l.url);
        w.end_object();
    }
    w.end_array();
    w.key("editorial");
    write_editorial(w, r);
    w.end_object();
}

// Each quantization's estimate at the asked context.
void write_quant_rows(JsonSink& w, const ModelReport& r) {
    w.begin_array();
    for (const auto& row : r.rows) {
        w.begin_object();
        w.field("cuda_only", row.quant->requires_backend == "cuda");
        w.field("file_bytes", row.file_bytes);
        w.field("gpu_bytes", row.estimate.on(Device::gpu));
        w.field("kv_cache_bytes", row.estimate.term(TermKind::kv_cache));
        w.field("overhead_bytes", row.estimate.term(TermKind::overhead));
        for (const PlainFileRecipe& p : r.publisher_mixes) {
            if (p.file_type == row.quant->id) w.field("publisher_mix", p.recipe);
        }
        w.field("quant", row.quant->id);
        w.field("recommended", row.quant->recommended);
        w.key("terms");
        write_estimate(w, row.estimate);
        w.field("total_bytes", row.estimate.total());
        w.field("weights_bytes", row.estimate.term(TermKind::weights));
        w.end_object();
    }
    w.end_array();
}

// The quantization x context grid, each cell with the card class it needs.
void write_matrix(JsonSink& w, const ModelReport& r) {
    w.begin_array();
    for (const auto& row : r.matrix) {
        w.begin_object();
        w.key("cells");
        w.begin_array();
        for (std::size_t i = 0; i < row.cells.size(); ++i) {
            const auto& c = row.cells[i];
            w.begin_object();
            if (c.card) {
                w.field("card_class", gpu_class_name(c.card->gpu_class));
                w.field("card_gb", c.card->gb);
            } else {
                w.field("card_class", nullptr);
                w.field("card_gb", nullptr);
            }
            w.field("context", r.matrix_contexts[i]);
            w.field("total_bytes", c.total);
            w.end_object();
        }
        w.end_array();
        w.field("quant", row.quant->id);
        w.end_object();
    }
    w.end_array();
}

void write_kv_comparison(JsonSink& w, const ModelReport& r) {
    w.begin_object();
    w.field("context", r.model->context_native);
    w.field("kv_cache_bytes", r.kv_full_context);
    w.field("all_attention_kv_cache_bytes", r.kv_all_attention_full_context);
    w.field("total_bytes", r.total_full_context);
    w.field("all_attention_total_bytes", r.total_all_attention_full_context);
    w.field("recurrent_state_bytes", r.recurrent_state);
    w.key("curve");
    write_kv_curve(w, r.kv_curve);
    w.end_object();
}

// What the page answers beside the plan: the quick rule's contrast, the 16 / 24 GB cards
// (below), --vram's budget (below).
void write_quick_rule(JsonSink& w, const ModelReport& r) {
    w.begin_object();
    w.field("card_gb", r.quick_contrast->card
                           ? std::optional<std::uint64_t>(r.quick_contrast->card->gb)
                           : std::nullopt);
    w.field("total_bytes", r.quick_contrast->total);
    w.end_object();
}

void write_card_answers(JsonSink& w, const ModelReport& r) {
    w.begin_array();
    for (const auto& c : r.card_answers) {
        w.begin_object();
        w.key("best");
        write_choice(w, c.best);
        w.field("fits", c.fits);
        w.field("gb", c.gb);
        w.field("usable_bytes", c.usable);
        w.end_object();
    }
    w.end_array();
}

void write_vram_query(JsonSink& w, const ModelReport& r) {
    w.begin_object();
    w.key("best");
    write_choice(w, r.vram->best);
    w.key("best_quant");
    if (r.vram->best) {
        w.value(r.vram->best->quant->id);
    } else {
        w.null();
    }
    w.key("best_with_offload");
    write_choice(w, r.vram->best_offload);
    w.field("budget_bytes", r.vram->budget);
    w.field("fits_recommended", r.vram->fits_recommended);
    w.field("usable_bytes", r.vram->usable);
    w.end_object();
}

}  // namespace

// The members in the order of their names, as the document prints them: JsonText then writes
// the page's 74 KB once, where members out of order are copied out and back in order (json_sink).
void write_model_report(JsonSink& w, const ModelReport& r) {
    w.begin_object();
    w.key("card_answers");
    write_card_answers(w, r);
    w.field("context", r.options.context);
    w.key("estimate");
    w.begin_object();
    w.field("gpu_bytes", r.selected.on(Device::gpu));
    w.field("host_bytes", r.selected.on(Device::cpu));
    w.key("terms");
    write_estimate(w, r.selected);
    w.field("total_bytes", r.selected.total());
    w.end_object();
    w.key("facts");
    write_page_facts(w, r);
    w.key("gpus");
    w.begin_object();
    w.key("native");
    write_gpu_refs(w, r.gpus.native);
    w.key("offload");
    write_gpu_refs(w, r.gpus.offload);
    w.key("ram_gb_assumed");
    write_ram_gb(w, r.fit.ram);
    w.end_object();
    if (r.growth) {
        w.key("grows_after_load");
        write_growth(w, r);
    }
    if (r.hardware) {
        w.key("hardware");
        write_hardware_report(w, *r.model, *r.hardware);
    }
    w.key("kv_comparison");
    write_kv_comparison(w, r);
    w.field("kv_type", r.options.kv_type.id);
    w.key("matrix");
    write_matrix(w, r);
    w.key("model");
    write_model(w, *r.model);
    if (r.rule == Rule::llamacpp) {
        // The outputs the compute buffer is reserved for (--reserve-outputs), with the page's
        // sentence: llama-server's by default.
        w.key("outputs_reserved");
        w.begin_object();
        w.field("outputs", planned_outputs(r));
        w.field("reserve", output_reserve_name(r.settings.outputs));
        w.field("text", outputs_sentence(r));
        w.end_object();
    }
    w.field("overhead_percent", r.options.overhead_percent);
    if (!r.model->run.mmproj.empty()) {
        w.key("projector");
        write_projector(w, r);
    }
    w.field("quant", r.quant->id);
    w.key("quants");
    write_quant_rows(w, r);
    if (r.quick_contrast) {
        w.key("quick_rule");
        write_quick_rule(w, r);
    }
    w.field("rule", rule_name(r.rule));
    if (!r.rule_note.empty()) w.field("rule_note", r.rule_note);
    w.key("run_commands");
    write_run_commands(w, r);
    w.key("smallest_gpu");
    write_gpu_ref(w, r.smallest_gpu);
    w.field("units", "bytes");
    if (r.vram) {
        w.key("vram_query");
        write_vram_query(w, r);
    }
    w.end_object();
}

json model_report_json(const ModelReport& r) {
    return tree_of(write_model_report, r);
}

}  // namespace canitrun::cli
