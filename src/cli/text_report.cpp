#include "text_report.hpp"

#include <fmt/format.h>

#include "canitrun/kv_cache.hpp"
#include "chart.hpp"
#include "format.hpp"
#include "hardware_text.hpp"
#include "launch_lines.hpp"
#include "page_facts.hpp"
#include "style.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

constexpr std::size_t kGpusShown = 10;

std::string title(const Model& m) {
    return m.name + (m.is_moe() ? " (MoE)" : "");
}

std::string card_text(const std::optional<CardClass>& card) {
    return card ? fmt::format("{} GB card", card->gb) : std::string("beyond every card");
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
    return out;
}

std::string capitalized(std::string s) {
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
}

void write_card(std::ostream& out, const ModelReport& r) {
    const Model& m = *r.model;
    out << heading(out, title(m)) << "\n";
    std::vector<std::string> facts = {m.vendor, format_params(m.params_total) + " params"};
    if (m.is_moe()) facts.push_back(format_params(m.params_active) + " active (MoE)");
    facts.push_back(format_context(m.context_native) + " context");
    if (!m.license.empty()) facts.push_back(m.license);
    if (m.commercial_use) facts.push_back("Commercial use ok");
    out << "  " << join(facts, " · ") << "\n";
    std::vector<std::string> inputs;
    for (const auto& mod : m.modalities) inputs.push_back(capitalized(mod));
    if (!m.released.empty()) out << "  Released " << m.released;
    if (!inputs.empty())
        out << (m.released.empty() ? "  " : " · ") << "Inputs: " << join(inputs, " · ");
    out << "\n";
    if (m.arch.moe) {
        const MoE& moe = *m.arch.moe;
        out << "  Active experts: " << moe.experts_per_token << " routed";
        if (moe.shared_experts > 0) out << " + " << moe.shared_experts << " shared";
        out << " of " << moe.experts << " total\n";
    }
    if (m.context_extended > m.context_native) out << "  Context: " << context_sentence(m) << "\n";
    const std::uint64_t fixed = count_recurrent_layers(m);
    if (fixed > 0) {
        const char* kind = count_layers(m, LayerKind::linear) ? "Linear attention"
                           : count_layers(m, LayerKind::conv) ? "Short-convolution"
                                                              : "State-space";
        out << "  " << kind << " layers: " << fixed << " of " << m.arch.layers
            << " (fixed-size state, no KV growth)\n";
    }
    if (const auto sliding = count_layers(m, LayerKind::sliding)) {
        out << "  Sliding-window layers: " << sliding << " of " << m.arch.layers << "\n";
    }
    out << "\n";

    const Quant* fp16 = nullptr;
    for (const auto& row : r.rows) {
        if (row.quant->id == kFullPrecisionQuant) fp16 = row.quant;
    }
    out << "  " << title(m) << " needs roughly " << format_gb(r.selected.on(Device::gpu))
        << " VRAM at " << r.quant->id;
    for (const auto& row : r.rows) {
        if (row.quant == fp16 && fp16 != r.quant)
            out << " (" << format_gb(row.estimate.on(Device::gpu)) << " at " << kFullPrecisionQuant
                << ")";
    }
    const std::size_t native = r.gpus.native.size();
    out << ". " << count_of(native, "GPU") << " we track " << runs_for(native)
        << " it fully in VRAM at " << format_plan_context(r.options.context, r.settings.n_seq)
        << " context.\n";
    out << "  " << count_of(native, "GPU") << " " << runs_for(native) << " this natively · "
        << r.gpus.offload.size() << " with CPU offload\n\n";

    // The headers show only in Markdown, which needs a header row; the terminal prints rows.
    Table t({"Figure", "Size", "Note"}, {false, true, false});
    // Under llama.cpp's rule the figure is what the GPU holds (token_embd and logits stay in RAM).
    t.add_row({r.quant->id + (r.rule == Rule::quick ? " total" : " on the GPU"),
               format_gb(r.selected.on(Device::gpu)),
               "at " + format_plan_context(r.options.context, r.settings.n_seq) + " context"});
    if (r.smallest_gpu != nullptr) {
        t.add_row({"Smallest GPU", fmt::format("{} GB", r.smallest_gpu->vram_gb),
                   display_name(*r.smallest_gpu) + ", at " + r.quant->id});
    } else {
        t.add_row({"Smallest GPU", "none", "no GPU in the database holds it at " + r.quant->id});
    }
    std::string layers_note = kv_layers_note(r);
    const auto sliding = count_layers(m, LayerKind::sliding);
    if (sliding > 0 && !layers_note.starts_with("no KV")) {
        layers_note += fmt::format(" ({} only their window)", sliding);
    }
    t.add_row({"KV cache, full context", format_gb(r.kv_full_context), layers_note});
    t.write_rows(out);
    if (const std::string grows = growth_sentence(r); !grows.empty()) {
        out << "  " << grows << "\n";
    }
    if (const std::string beside = companions_sentence(r); !beside.empty()) {
        out << "  " << beside << "\n";
    }
}

void write_quant_table(std::ostream& out, const ModelReport& r) {
    out << "\n"
        << heading(out, "VRAM at each quantization (" +
                            format_plan_context(r.options.context, r.settings.n_seq) +
                            " context, KV cache " + r.options.kv_type.id + "; GB = 10^9 bytes)")
        << "\n";
    const bool llama = r.rule == Rule::llamacpp;
    Table t(
        llama ? std::vector<std::string>{"Quant", "Download", "Weights", "KV cache", "VRAM", "RAM"}
              : std::vector<std::string>{"Quant", "Download", "Weights", "KV cache", "Total"},
        llama ? std::vector<bool>{false, true, true, true, true, true}
              : std::vector<bool>{false, true, true, true, true});
    bool any_cuda = false;
    for (const auto& row : r.rows) {
        std::string name = row.quant->id;
        if (row.quant->recommended) name += " (rec)";
        if (row.quant->requires_backend == "cuda") {
            name += " (CUDA only)";
            any_cuda = true;
        }
        std::vector<std::string> cells = {name, download_text(row),
                                          format_gb(row.estimate.tensor_bytes()),
                                          format_gb(row.estimate.term(TermKind::kv_cache)),
                                          format_gb(row.estimate.on(Device::gpu))};
        if (llama) cells.push_back(format_gb(row.estimate.on(Device::cpu)));
        t.add_row(cells);
    }
    t.write(out);
    if (r.rule == Rule::llamacpp) {
        out << "  VRAM = weights + KV cache + recurrent state + llama.cpp's compute buffer and the "
               "CUDA context on one GPU; RAM = token_embd, the logits and the graph's inputs "
               "(host_compute), which llama.cpp keeps in host memory.\n  "
            << kDownloadNote << "\n";
        if (const std::string mix = publisher_mix_text(r); !mix.empty()) out << "  " << mix << "\n";
        return;
    }
    out << "  Total = weights + KV cache + " << r.options.overhead_percent
        << " % overhead (activations, runtime buffers).";
    if (any_cuda) out << " NVFP4 only runs on CUDA GPUs.";
    out << " --kv-type turboquant estimates a TurboQuant KV cache.\n  " << kDownloadNote << "\n";
}

// The llama.cpp rule's buffers for the selected quantization, term by term.
void write_allocation(std::ostream& out, const ModelReport& r) {
    if (r.rule != Rule::llamacpp) return;
    out << "\n"
        << heading(out, "What llama.cpp allocates (" + r.quant->id + ", " +
                            format_plan_context(r.options.context, r.settings.n_seq) +
                            " context, one CUDA GPU)")
        << "\n";
    Table t({"Term", "Size", "Where"}, {false, true, false});
    for (const auto& term : r.selected.terms) {
        t.add_row({term_name(term.kind), format_gb(term.bytes),
                   term.device == Device::gpu ? "GPU" : "RAM"});
    }
    t.add_row({"on the GPU", format_gb(r.selected.on(Device::gpu)), ""});
    t.add_row({"in RAM", format_gb(r.selected.on(Device::cpu)), ""});
    t.write(out);
    out << "  A GPU also keeps " << format_margin(r.settings.margin)
        << " free (llama.cpp's fitting margin, --margin); the CUDA context (runtime) is as "
           "measured on an H200 (validation/cuda-h200).\n";
}

void write_matrix(std::ostream& out, const ModelReport& r) {
    if (r.matrix.empty()) return;
    out << "\n"
        << heading(out,
                   "Quantization × context: where it fits (total VRAM, smallest card that "
                   "holds it)")
        << "\n";
    std::vector<std::string> header = {"Quant"};
    std::vector<bool> right = {false};
    for (auto ctx : r.matrix_contexts) {
        header.push_back(format_context(ctx) + " ctx");
        header.push_back("");
        right.push_back(true);
        right.push_back(false);
    }
    Table t(header, right);
    for (const auto& row : r.matrix) {
        std::vector<std::string> cells = {row.quant->id + (row.quant->recommended ? " (rec)" : "")};
        for (const auto& cell : row.cells) {
            cells.push_back(format_gb(cell.total));
            cells.push_back(card_text(cell.card) +
                            (cell.card && cell.card->gpu_class != GpuClass::consumer
                                 ? fmt::format(" ({})", gpu_class_name(cell.card->gpu_class))
                                 : ""));
        }
        t.add_row(cells);
    }
    t.write(out);
    out << "  Cards up to 32 GB are consumer GPUs; 48 GB and 96 GB workstation; 80 GB and up "
           "datacenter.\n";
}

// The page's chart, when the output asks for it (style.hpp): KV cache against context.
void write_kv_chart(std::ostream& out, const ModelReport& r) {
    write_kv_chart_section(out, *r.model, r.kv_curve,
                           r.options.kv_type.id + ", " + rule_name(r.rule) + " rule", r.quant->id);
}

void write_pattern(std::ostream& out, const ModelReport& r) {
    const Model& m = *r.model;
    const LayerPatternFacts f = layer_pattern_facts(m, chart_of(out).unicode);
    out << "\n" << heading(out, "How the layers are built") << "\n  " << f.words << "\n";
    if (!f.diagram.empty()) out << "    " << f.diagram << "\n";
    for (const auto& l : f.legend) out << note_mark(out) << l.glyph << " " << l.text << "\n";
}

void write_hybrid(std::ostream& out, const ModelReport& r) {
    const Model& m = *r.model;
    const std::uint64_t kv_layers = count_kv_layers(m);
    const std::uint64_t full_window = m.context_native;
    if (is_all_attention(m)) {
        out << "\nKV cache at the full " << format_thousands(full_window)
            << "-token context: " << format_gb(r.kv_full_context) << " (every one of the "
            << m.arch.layers
            << (count_layers(m, LayerKind::mla) ? " layers caches one compressed latent per token"
                                                : " layers caches K and V")
            << "); total at " << r.quant->id << ": " << format_gb(r.total_full_context) << "\n";
        write_kv_chart(out, r);
        return;
    }
    out << "\n"
        << heading(out, "What a full " + format_thousands(full_window) + "-token context costs")
        << "\n";
    const std::uint64_t linear = count_recurrent_layers(m);
    const std::uint64_t sliding = count_layers(m, LayerKind::sliding);
    if (linear > 0) {
        const std::string kind =
            m.arch.linear_name.empty() ? "linear-attention" : m.arch.linear_name;
        out << "  " << kv_layers << " of " << m.arch.layers
            << " layers keep a KV cache that grows with the context; the other " << linear << " ("
            << kind << ") hold a fixed-size recurrent state\n  (" << format_gb(r.recurrent_state)
            << " in f32 at any context; the page's rule leaves it to the overhead term).\n";
    }
    if (sliding > 0) {
        out << "  " << sliding << " of " << m.arch.layers
            << " layers use sliding-window attention and cache at most their window;"
            << " the rest cache every token.\n";
    }
    Table t({"", "This model", "All-attention " + format_params(m.params_total)},
            {false, true, true});
    t.add_row({"KV cache at " + format_context(full_window), format_gb(r.kv_full_context),
               format_gb(r.kv_all_attention_full_context)});
    if (r.kv_growth_to_full && r.kv_all_attention_growth_to_full) {
        t.add_row({"KV growth from " + format_plan_context(r.options.context, r.settings.n_seq),
                   format_gb(*r.kv_growth_to_full), format_gb(*r.kv_all_attention_growth_to_full)});
    }
    // Under llama.cpp's rule the total is GPU and RAM together, so it is the matrix's VRAM
    // cell plus what llama.cpp keeps in host memory: say so, or the two look like they disagree.
    const bool llamacpp = r.rule == Rule::llamacpp;
    t.add_row({"Total at " + r.quant->id + ", " + format_context(full_window) +
                   (llamacpp ? " (GPU + RAM)" : ""),
               format_gb(r.total_full_context), format_gb(r.total_all_attention_full_context)});
    t.write(out);
    out << "  KV cache only at " << r.options.kv_type.id << "; weights ("
        << format_gb(r.selected.tensor_bytes()) << " at " << r.quant->id
        << (llamacpp ? "), the compute buffer and the runtime come on top in the totals.\n"
                     : ") and overhead come on top in the totals.\n");
    write_kv_chart(out, r);
}

void write_gpu_list(std::ostream& out, const std::vector<const Gpu*>& gpus) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < gpus.size() && i < kGpusShown; ++i) {
        names.push_back(fmt::format("{} ({} GB)", display_name(*gpus[i]), gpus[i]->vram_gb));
    }
    out << note_mark(out) << join(names, ", ");
    if (gpus.size() > kGpusShown) out << ", and " << gpus.size() - kGpusShown << " more";
    out << "\n";
}

void write_gpus(std::ostream& out, const ModelReport& r, const FitOptions& fit) {
    out << "\n"
        << heading(out, "GPUs (" + r.quant->id + ", " +
                            format_plan_context(r.options.context, r.settings.n_seq) + " context)")
        << "\n";
    if (r.smallest_gpu != nullptr) {
        out << "  Smallest GPU: " << display_name(*r.smallest_gpu) << " ("
            << r.smallest_gpu->vram_gb << " GB)\n";
    }
    out << "  Run it natively (" << r.gpus.native.size() << "):\n";
    if (!r.gpus.native.empty()) write_gpu_list(out, r.gpus.native);
    out << "  Run it with CPU offload, slower (" << r.gpus.offload.size() << ", assuming "
        << format_ram_gb(fit.ram) << " GB of system RAM; --ram):\n";
    if (!r.gpus.offload.empty()) write_gpu_list(out, r.gpus.offload);
    out << "  Full lists: canitrun gpus " << r.model->id << "\n";
}

void write_faq(std::ostream& out, const ModelReport& r) {
    out << "\n" << heading(out, "Frequently asked") << "\n";
    for (const FaqEntry& e : faq_entries(r)) out << "  " << e.question << " " << e.answer << "\n";
}

void write_editorial(std::ostream& out, const ModelReport& r) {
    const Editorial& e = r.model->editorial;
    if (e.source.empty()) return;
    const std::string name = r.model->name;
    if (!e.who_for.empty()) {
        out << "\n"
            << heading(out, "Who is " + name + " for?") << "\n  " << editorial_marked(r, e.who_for)
            << "\n";
    }
    const auto list = [&](const char* title, const std::vector<std::string>& items) {
        if (items.empty()) return;
        out << "\n" << heading(out, title) << "\n";
        for (const auto& item : items) out << "  - " << editorial_marked(r, item) << "\n";
    };
    list("Best for", e.best_for);
    list("Not ideal for", e.not_ideal_for);
    if (!e.verdict.empty()) {
        out << "\n"
            << heading(out, "So should you run it?") << "\n  " << editorial_marked(r, e.verdict)
            << "\n";
    }
    out << "  (" << editorial_caveat(r) << ")\n";
}

// One line: which rule made the figures, and where the page's rule would answer otherwise.
void write_rule(std::ostream& out, const ModelReport& r) {
    if (r.rule == Rule::quick) {
        out << "  Figures: the reference page's rule (weights + KV cache + "
            << r.options.overhead_percent << " %)"
            << (r.rule_note.empty() ? "; the default plans what llama.cpp allocates"
                                    : "; " + r.rule_note)
            << ".\n";
        return;
    }
    out << "  Figures: what llama.cpp allocates (tensors as llama-quantize types them, KV cells,"
           " compute buffer, CUDA context), "
        << format_margin(r.settings.margin)
        << " kept free per GPU; --engine quick for the reference page's rule.\n";
    out << "  " << outputs_sentence(r) << "\n";
    if (r.quick_contrast) {
        const auto& q = *r.quick_contrast;
        out << "  The page's 12 % rule would say " << format_gb(q.total) << " at " << r.quant->id
            << (q.card ? fmt::format(" and {} {} GB card", article_for(std::to_string(q.card->gb)),
                                     q.card->gb)
                       : std::string())
            << "; llama.cpp's own buffers come to " << format_gb(r.selected.on(Device::gpu))
            << " on the GPU.\n";
    }
}

}  // namespace

void write_queries(std::ostream& out, const ModelReport& r) {
    const Bytes total = r.selected.on(Device::gpu);
    if (r.vram) {
        const VramAnswer& v = *r.vram;
        // A budget the user typed in whole GB reads back as typed: "24 GB", not "24.0 GB".
        const std::string budget =
            v.budget % kGB == 0 ? fmt::format("{} GB", v.budget / kGB) : format_gb(v.budget);
        out << "\nWith " << budget << " of VRAM: " << r.quant->id << " (" << format_gb(total)
            << ") " << (v.fits_recommended ? "fits" : "does not fit");
        // What the plans were held to: a card of that many GiB less the margin (budget_usable).
        if (v.usable != v.budget) {
            out << " the " << format_gb(v.usable) << " usable (" << format_margin(r.settings.margin)
                << " kept free)";
        }
        out << ".";
        if (v.best) {
            out << " Highest-quality quantization that fits: " << v.best->quant->id << " ("
                << format_gb(v.best->estimate.on(Device::gpu)) << ").";
        } else {
            out << " No quantization fits whole.";
        }
        if (v.best_offload) {
            out << " With CPU offload: " << v.best_offload->quant->id << " ("
                << format_gb(v.best_offload->estimate.on(Device::gpu))
                << " in all, part in system RAM).";
        }
        out << "\n";
    }
    if (r.hardware) write_hardware_section(out, *r.model, *r.quant, r.options, *r.hardware);
}

void write_text_report(std::ostream& out, const ModelReport& r) {
    write_card(out, r);
    if (r.context_status == ContextStatus::extended) {
        const Model& m = *r.model;
        out << "  Note: " << format_plan_context(r.options.context, r.settings.n_seq)
            << " is past the native " << format_context(m.context_native)
            << " window; it runs only with "
            << (m.context_extension.empty() ? "context extension" : m.context_extension)
            << ", and quality may drop.\n";
    }
    write_rule(out, r);
    write_queries(out, r);  // the user's own question (--vram, --gpu) first
    write_quant_table(out, r);
    write_allocation(out, r);
    write_matrix(out, r);
    write_pattern(out, r);
    write_hybrid(out, r);
    write_gpus(out, r, r.fit);
    write_faq(out, r);
    const Model& m = *r.model;
    if (!m.benchmarks.empty()) {
        std::vector<std::string> scores;
        for (const auto& b : m.benchmarks) scores.push_back(fmt::format("{} {}", b.name, b.score));
        out << "\n"
            << heading(out, "Benchmarks (vendor-reported)") << "\n  " << join(scores, " · ")
            << "\n";
    }
    out << "\n" << heading(out, "How to run it locally (" + r.quant->id + ")") << "\n";
    write_run_commands(out, r);
    out << "\n" << heading(out, "Why " + r.quant->id + "?") << "\n  " << why_quant(r) << "\n";
    write_editorial(out, r);
    if (!m.notes.empty()) out << "\n" << heading(out, "Notes") << "\n  " << m.notes << "\n";
    std::vector<std::string> links;
    for (const auto& l : page_links(m)) links.push_back(l.label + ": " + l.url);
    if (!links.empty())
        out << "\n" << heading(out, "Links") << "\n  " << join(links, "\n  ") << "\n";
    out << "\nSource: " << m.source << "\n";
}

}  // namespace canitrun::cli
