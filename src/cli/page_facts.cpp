#include "page_facts.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/tensor_layout.hpp"
#include "format.hpp"

namespace canitrun::cli {
namespace {

std::string plural(std::uint64_t n, const std::string& one, const std::string& many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string join_and(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += i + 1 == items.size() ? (items.size() > 2 ? ", and " : " and ") : ", ";
        out += items[i];
    }
    return out;
}

std::string glyph(LayerKind kind, bool unicode) {
    switch (kind) {
        case LayerKind::full:
            return unicode ? "█" : "A";
        case LayerKind::sliding:
            return unicode ? "▓" : "W";
        case LayerKind::mla:
            return unicode ? "█" : "M";
        case LayerKind::linear:
            return unicode ? "░" : "L";
        case LayerKind::ssm:
            return unicode ? "▒" : "S";
        case LayerKind::conv:
            return unicode ? "░" : "C";
        case LayerKind::ffn:
            return unicode ? "·" : "-";
        case LayerKind::compressed:
            return unicode ? "█" : "D";
    }
    return "?";
}

// A group's glyph: its kind's, and for DeepSeek V4's compressed layers one per ratio (the
// window-only ones drawn as sliding layers, the heavy ratio lighter than ratio 4).
std::string group_glyph(const LayerGroup& g, bool unicode) {
    if (g.kind == LayerKind::compressed && g.compress_ratio == 0) {
        return glyph(LayerKind::sliding, unicode);
    }
    if (g.kind == LayerKind::compressed && g.compress_ratio > 4) return unicode ? "▒" : "H";
    if (g.kind == LayerKind::mla && keeps_window(g)) return glyph(LayerKind::sliding, unicode);
    return glyph(g.kind, unicode);
}

std::string group_detail(const Model& m, const LayerGroup& g, bool unicode) {
    const AttentionDims d = attention_dims(m, g);
    const std::string heads =
        fmt::format("{} KV heads {} {} dim", d.kv_heads, unicode ? "×" : "x", d.k_dim);
    switch (g.kind) {
        case LayerKind::full:
            return heads + ", a KV cache that grows with the context";
        case LayerKind::sliding:
            return heads + ", at most " + format_thousands(g.window) + " tokens cached";
        case LayerKind::mla:
            if (keeps_window(g)) {  // dots3note's sliding MLA
                return fmt::format("a {} + {} latent per token, at most {} tokens cached",
                                   g.kv_lora_rank, g.qk_rope_head_dim, format_thousands(g.window));
            }
            return fmt::format("a {} + {} latent per token, a cache that grows with the context",
                               g.kv_lora_rank, g.qk_rope_head_dim);
        case LayerKind::linear:
            return "linear attention, a fixed-size state";
        case LayerKind::ssm:
            return "state-space layer, a fixed-size state";
        case LayerKind::conv:
            return "a short convolution, a fixed-size state";
        case LayerKind::ffn:
            return "a feed-forward block alone, nothing cached";
        case LayerKind::compressed:
            if (g.compress_ratio == 0) {
                return heads + ", at most " + format_thousands(g.window) + " tokens cached";
            }
            return fmt::format("{}, the last {} tokens raw and one entry per {} tokens{}", heads,
                               format_thousands(g.window), g.compress_ratio,
                               g.index_head_dim ? " with an indexer key" : "");
    }
    return "";
}

// Runs of equal groups in a stretch of the period: "3 Gated DeltaNet layers and 1 Gated
// Attention layer".
std::string runs_words(const Model& m, const std::vector<std::size_t>& groups, std::size_t n) {
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i;
        while (j < n && groups[j] == groups[i]) ++j;
        const std::string label = group_label(m, m.arch.layer_groups[groups[i]]);
        parts.push_back(plural(j - i, label + " layer", label + " layers"));
        i = j;
    }
    return join_and(parts);
}

const QuantRow* row_for(const ModelReport& r, const std::string& id) {
    for (const auto& row : r.rows) {
        if (row.quant->id == id) return &row;
    }
    return nullptr;
}

std::string vram_of(const QuantRow& row) {
    return format_gb(row.estimate.on(Device::gpu));
}

}  // namespace

std::string context_sentence(const Model& m) {
    std::string s = format_thousands(m.context_native) + " tokens natively";
    if (m.context_extended > m.context_native) {
        s += ", up to " + format_thousands(m.context_extended) + " with " +
             (m.context_extension.empty() ? std::string("context extension") : m.context_extension);
    }
    return s;
}

std::string kind_label(const Model& m, LayerKind kind) {
    switch (kind) {
        case LayerKind::full:
            return m.arch.full_name.empty() ? "full-attention" : m.arch.full_name;
        case LayerKind::sliding:
            return "sliding-window";
        case LayerKind::mla:
            return "latent-attention (MLA)";
        case LayerKind::linear:
            return m.arch.linear_name.empty() ? "linear-attention" : m.arch.linear_name;
        case LayerKind::ssm:
            return "state-space (Mamba)";
        case LayerKind::conv:
            return m.arch.linear_name.empty() ? "short-convolution" : m.arch.linear_name;
        case LayerKind::ffn:
            return "feed-forward-only";
        case LayerKind::compressed:
            return "compressed-attention";
    }
    return "?";
}

std::string group_label(const Model& m, const LayerGroup& g) {
    std::string label = kind_label(m, g.kind);
    if (g.kind == LayerKind::compressed) {
        if (g.compress_ratio == 0) return label + " (window only)";
        return label + " (1 entry per " + std::to_string(g.compress_ratio) + " tokens" +
               (g.index_head_dim > 0 ? ", indexer)" : ")");
    }
    if (g.kind == LayerKind::mla && keeps_window(g)) label = "sliding-window " + label;
    return g.index_head_dim > 0 ? label + " with indexer" : label;
}

LayerPatternFacts layer_pattern_facts(const Model& m, bool unicode) {
    LayerPatternFacts f;
    const LayerPattern p = layer_pattern(m);
    const std::string layers = plural(m.arch.layers, "layer", "layers");
    if (p.period.empty() || m.arch.layer_groups.size() < 2) {
        const LayerKind kind =
            m.arch.layer_groups.empty() ? LayerKind::full : m.arch.layer_groups[0].kind;
        f.words = layers + ", all of them " + kind_label(m, kind) + " layers";
        LayerGroup all;
        all.kind = kind;
        if (!m.arch.layer_groups.empty()) all = m.arch.layer_groups[0];
        f.legend.push_back(
            {glyph(kind, unicode), kind_label(m, kind) + ": " + group_detail(m, all, unicode)});
        return f;
    }
    const std::size_t n = p.period.size();
    if (p.repeats > 1) {
        f.words =
            layers + ": " + std::to_string(p.repeats) + " repeats of " + runs_words(m, p.period, n);
        if (p.tail > 0) f.words += ", then " + runs_words(m, p.period, p.tail);
    } else {
        std::vector<std::string> counts;
        for (const auto& g : m.arch.layer_groups) {
            counts.push_back(
                plural(g.count, group_label(m, g) + " layer", group_label(m, g) + " layers"));
        }
        f.words = layers + ": " + join_and(counts);
    }
    // Drawn when one repeat (and the tail) is short enough to read at a glance.
    if (n <= 16 || (p.repeats == 1 && n <= 64)) {
        std::string run;
        for (const std::size_t g : p.period) run += group_glyph(m.arch.layer_groups[g], unicode);
        std::string tail;
        for (std::size_t i = 0; i < p.tail; ++i) {
            tail += group_glyph(m.arch.layer_groups[p.period[i]], unicode);
        }
        f.diagram = "layer 1 " + run;
        if (p.repeats > 1) f.diagram += (unicode ? " ×" : " x") + std::to_string(p.repeats);
        if (!tail.empty()) f.diagram += " " + tail;
        f.diagram += " layer " + std::to_string(m.arch.layers);
    }
    std::vector<std::size_t> seen;
    for (const std::size_t g : p.period) {
        if (std::find(seen.begin(), seen.end(), g) != seen.end()) continue;
        seen.push_back(g);
        const LayerGroup& grp = m.arch.layer_groups[g];
        f.legend.push_back({group_glyph(grp, unicode),
                            group_label(m, grp) + ": " + group_detail(m, grp, unicode)});
    }
    return f;
}

std::string why_quant(const ModelReport& r) {
    const Model& m = *r.model;
    const std::string q = r.quant->id;
    std::string s =
        q + " puts the weights at " + format_gb(r.selected.tensor_bytes()) +
        " whatever the context; " +
        (r.rule == Rule::quick ? "with the page's " + std::to_string(r.options.overhead_percent) +
                                     " % for activations and buffers"
                               : std::string("with llama.cpp's own buffers")) +
        " it needs " + format_gb(r.selected.on(Device::gpu)) + " on the GPU at " +
        format_context(r.options.context) + " context, so ";
    if (r.smallest_gpu != nullptr) {
        const std::string gb = std::to_string(r.smallest_gpu->vram_gb);
        s += fmt::format("{} {} GB card is the smallest that holds it (the {}).", article_for(gb),
                         gb, display_name(*r.smallest_gpu));
    } else {
        s += "no single GPU we track holds it whole.";
    }
    if (r.kv_growth_to_full) {
        s += " The KV cache grows by " + format_gb(*r.kv_growth_to_full) + " from " +
             format_context(r.options.context) + " to the full " +
             format_thousands(m.context_native) + "-token window";
        if (!is_all_attention(m) && r.kv_all_attention_growth_to_full) {
            s += ", against " + format_gb(*r.kv_all_attention_growth_to_full) +
                 " if every layer used full attention";
        }
        s += ".";
    }
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        if (r.rows[i].quant != r.quant) continue;
        std::vector<std::string> sides;
        if (i > 0) {
            sides.push_back("one step up in quality, " + r.rows[i - 1].quant->id + " needs " +
                            vram_of(r.rows[i - 1]));
        }
        if (i + 1 < r.rows.size()) {
            sides.push_back("one step down, " + r.rows[i + 1].quant->id + " needs " +
                            vram_of(r.rows[i + 1]));
        }
        if (!sides.empty()) {
            std::string both = join_and(sides);
            both[0] = static_cast<char>(both[0] - 'a' + 'A');
            s += " " + both + ".";
        }
    }
    return s;
}

std::string lmstudio_advice(const ModelReport& r) {
    const Model& m = *r.model;
    std::string s = "Budget for the " + format_gb(r.selected.tensor_bytes()) +
                    " of weights first, then add context: the full " +
                    format_thousands(m.context_native) + "-token window adds " +
                    format_gb(r.kv_full_context) + " of KV cache";
    if (!is_all_attention(m)) {
        s += " here (" + format_gb(r.kv_all_attention_full_context) +
             " if every layer cached the whole context)";
    }
    return s + ".";
}

std::vector<FaqEntry> faq_entries(const ModelReport& r) {
    const Model& m = *r.model;
    const std::string q = r.quant->id;
    const Bytes total = r.selected.on(Device::gpu);
    const std::string ctx = format_context(r.options.context);
    std::vector<FaqEntry> out;
    std::vector<std::string> sizes = {format_gb(total) + " at " + q};
    for (const char* id : kQuotedQuants) {
        const QuantRow* row = row_for(r, id);
        if (row != nullptr && row->quant != r.quant) sizes.push_back(vram_of(*row) + " at " + id);
    }
    std::string vram = "About " + join_and(sizes) + ", at " + ctx + " context.";
    if (!is_all_attention(m) && r.kv_growth_to_full) {
        vram += " Only " + std::to_string(count_growing_layers(m)) + " of " +
                std::to_string(m.arch.layers) +
                " layers keep a cache that grows with the context,"
                " so the full window adds just " +
                format_gb(*r.kv_growth_to_full) + ".";
    }
    out.push_back({"What are its VRAM requirements?", vram});
    std::string params = format_params(m.params_total) + " parameters in total";
    params += m.is_moe() ? ", of which " + format_params(m.params_active) +
                               " are active per token (Mixture of Experts): it reads and computes "
                               "far fewer weights per token than its size suggests."
                         : ", all of them active per token (a dense model).";
    out.push_back({"How many parameters does it have?", params});
    if (!m.benchmarks.empty()) {
        std::vector<std::string> scores;
        for (const auto& b : m.benchmarks) scores.push_back(fmt::format("{} {}", b.name, b.score));
        out.push_back({"How capable is it?", m.vendor + " reports " + join_and(scores) +
                                                 "; these are the vendor's own figures."});
    }
    const std::string consider =
        r.smallest_gpu ? fmt::format("a {} GB GPU like the {}", r.smallest_gpu->vram_gb,
                                     r.smallest_gpu->short_name)
                       : std::string("more memory than any single GPU we track");
    // A total between 24.0 and 25.8 GB fits a "24 GB" card, which "within 24 GB" alone would
    // contradict (CardAnswer::past_marketed_gb).
    const auto card_gib = [](const CardAnswer& c, Bytes need) {
        return c.past_marketed_gb(need) ? fmt::format(" (a {} GB card holds {} GiB)", c.gb, c.gb)
                                        : std::string();
    };
    // A need under the card's size that its usable memory (its GiB less --margin) still does not
    // hold is "more than" what is usable, not than the card's size.
    const auto short_of = [&](const CardAnswer& c) {
        if (total > c.gb * kGB || c.usable >= total) return std::to_string(c.gb) + " GB";
        return fmt::format("the {} a {} GB card leaves usable ({} kept free)", format_gb(c.usable),
                           c.gb, format_margin(r.settings.margin));
    };
    for (const CardAnswer& c : r.card_answers) {
        std::string a = std::string(c.fits ? "Yes. " : "No. ") + "At " + q + " it needs " +
                        format_gb(total) + (c.fits ? ", within " : ", more than ") +
                        (c.fits ? std::to_string(c.gb) + " GB" + card_gib(c, total) : short_of(c)) +
                        ".";
        if (!c.fits) a += " You will need " + consider + ".";
        out.push_back(
            {fmt::format("Can it run on {} {} GB GPU?", article_for(std::to_string(c.gb)), c.gb),
             a});
    }
    if (!r.card_answers.empty()) {
        const CardAnswer& c = r.card_answers.back();
        out.push_back({fmt::format("Highest-quality quantization that fits in {} GB:", c.gb),
                       c.best ? c.best->quant->id + ", " +
                                    format_gb(c.best->estimate.on(Device::gpu)) +
                                    card_gib(c, c.best->estimate.on(Device::gpu)) + "."
                              : std::string("No quantization fits whole.")});
    }
    out.push_back(
        {"What GPU do I need?",
         r.smallest_gpu
             ? fmt::format("A {} GB GPU is the minimum. At {} it needs {}. Good option: {} ({} "
                           "GB).",
                           r.smallest_gpu->vram_gb, q, format_gb(total), r.smallest_gpu->short_name,
                           r.smallest_gpu->vram_gb)
             : "No single GPU we track holds it at " + q +
                   "; split it over several (--gpu 2x...) "
                   "or offload to system RAM."});
    return out;
}

std::vector<PageLink> page_links(const Model& m) {
    std::vector<PageLink> out;
    if (!m.hf_repo.empty()) out.push_back({"Hugging Face", "https://huggingface.co/" + m.hf_repo});
    if (!m.run.gguf_repo.empty()) {
        out.push_back({"GGUF files", "https://huggingface.co/" + m.run.gguf_repo});
    }
    if (!m.run.ollama.empty()) {
        // A tag without a namespace is in Ollama's own library.
        const bool library = m.run.ollama.find('/') == std::string::npos;
        out.push_back({"Ollama", std::string("https://ollama.com/") + (library ? "library/" : "") +
                                     m.run.ollama});
    }
    return out;
}

std::string claim_plan_text(const ClaimCheck& c) {
    return fmt::format("{} {} on a {} GB card at {} tokens", c.quant->id,
                       c.plan_fits ? "runs fully" : "does not run fully", c.claim->card_gb,
                       format_thousands(c.context));
}

std::string editorial_marked(const ModelReport& r, const std::string& text) {
    std::string out = text;
    std::vector<std::string> marked;  // claims already marked: several may share one sentence
    for (const ClaimCheck& c : r.claim_checks) {
        const std::string& said = c.claim->text;
        if (!c.contradicted() || std::find(marked.begin(), marked.end(), said) != marked.end()) {
            continue;
        }
        const auto at = out.find(said);
        if (at == std::string::npos) continue;
        std::string notes;
        for (const ClaimCheck& other : r.claim_checks) {
            if (other.claim->text != said || !other.contradicted()) continue;
            notes += (notes.empty() ? "" : "; ") + claim_plan_text(other);
        }
        out.insert(at + said.size(), " [Not so by this page's plan: " + notes + ".]");
        marked.push_back(said);
    }
    return out;
}

std::string editorial_caveat(const ModelReport& r) {
    const Editorial& e = r.model->editorial;
    if (e.source.empty()) return "";
    std::string s = "Written by a person, not computed: " + e.source + ".";
    if (e.rule == "quick" && r.rule != Rule::quick) {
        s += " Its figures are the reference page's 12 % rule";
        if (r.quick_contrast)
            s += " (" + format_gb(r.quick_contrast->total) + " at " + r.quant->id + ")";
        s += "; llama.cpp's own buffers (above) come to " + format_gb(r.selected.on(Device::gpu)) +
             ", so where the two differ, the figures above are the plan.";
    }
    return s;
}

std::string growth_sentence(const ModelReport& r) {
    if (!r.growth || r.growth->total() == 0) return {};
    const ServerGrowth& g = *r.growth;
    std::string parts;
    if (g.prompt_cache > 0) {
        parts = fmt::format("llama-server's prompt cache up to {} (--cache-ram {})",
                            format_gb(g.prompt_cache), g.prompt_cache >> 20);
    }
    if (g.checkpoints > 0) {
        parts += fmt::format("{}{} context checkpoints, {}", parts.empty() ? "" : " and ",
                             g.checkpoint_count, format_gb(g.checkpoints));
    }
    return fmt::format(
        "Up to {} more in RAM after load: {}. Every verdict here counts it at its most "
        "against {} of RAM; where a plan holds its load but not that, its line lowers what the "
        "command left out (--ctx-checkpoints, then --cache-ram).",
        format_gb(g.total()), parts,
        // The RAM the verdicts were planned with: the machine's where there is one (detected
        // or --ram), else the page's table's (--ram, 32 GB by default).
        format_gb(r.hardware ? r.hardware->hardware.ram : r.fit.ram));
}

namespace {

// llama-server's reservation at the settings (llama_server_outputs; 0: every token, as for an
// embedding or reranking model).
std::uint64_t server_outputs(const Model& model, const PlanSettings& settings) {
    return llama_server_outputs(model, settings.n_seq, draft_tokens(model, settings));
}

std::string outputs_words(std::uint64_t n) {
    return n == 0 ? "every token of the ubatch" : plural(n, "output", "outputs");
}

}  // namespace

std::uint64_t planned_outputs(const ModelReport& r) {
    return r.settings.outputs == OutputReserve::all ? 0 : server_outputs(*r.model, r.settings);
}

std::string outputs_sentence(const ModelReport& r) {
    return r.rule == Rule::llamacpp ? outputs_sentence(*r.model, r.settings) : std::string();
}

std::string outputs_sentence(const Model& model, const PlanSettings& settings) {
    const std::uint64_t server = server_outputs(model, settings);
    if (settings.outputs == OutputReserve::all) {
        return fmt::format(
            "The compute buffer is planned for every token of the ubatch (--reserve-outputs all: "
            "llama-bench's and the library's reservation){}.",
            server == 0 ? ""
                        : fmt::format("; llama-server, which the printed lines run, reserves {} "
                                      "and needs less",
                                      outputs_words(server)));
    }
    return fmt::format(
        "The compute buffer is planned for llama-server's outputs, {} a ubatch{}, as the printed "
        "lines run it; --reserve-outputs all plans every token (llama-bench's reservation).",
        outputs_words(server),
        server == 0 ? " (an embedding or reranking model outputs them all)"
                    : " (n_parallel x (1 + drafted tokens))");
}

std::string kv_layers_note(const ModelReport& r) {
    const Model& m = *r.model;
    const auto arch = llama_arch(m);
    if (r.rule == Rule::llamacpp && arch && llama_arch_keeps_no_memory(*arch)) {
        return "no KV cache: llama.cpp runs this encoder without one";
    }
    return fmt::format("{} of {} layers cache", count_kv_layers(m), m.arch.layers);
}

std::string companions_sentence(const ModelReport& r) {
    const ServerSettings& s = r.settings.server;
    if (r.rule != Rule::llamacpp) return {};
    std::string out;
    if (s.vision && s.mmproj_file_bytes > 0) {
        // A model file's --mmproj: its tensors, in the figures above and in every verdict.
        out = fmt::format(
            "Vision projector ({}, --mmproj): {} {} (its compute buffer not counted: no "
            "recorded log). Every GPU verdict counts it.",
            s.mmproj_file, format_gb(s.mmproj_file_bytes),
            s.mmproj_offload ? "on the first GPU" : "in RAM (--no-mmproj-offload)");
    } else if (r.quant != nullptr && loads_projector(*r.model, *r.quant, s)) {
        const ProjectorInfo& p = r.model->run.projector;
        out = fmt::format(
            "Vision projector ({}, which -hf loads): {}{} {}. Every GPU verdict counts it; the "
            "figures above are the text model alone (--no-mmproj for text only).",
            r.model->run.mmproj, format_gb(p.bytes),
            p.compute_bytes == 0
                ? " (its compute buffer not counted: no recorded log)"
                : fmt::format(" and its compute buffer {}", format_gb(p.compute_bytes)),
            s.mmproj_offload ? "on the first GPU" : "in RAM (--no-mmproj-offload)");
    }
    if (!s.draft && s.also.empty()) return out;
    std::string names;
    if (s.draft) names = "the draft " + s.draft->model->id + " (" + s.draft->quant->id + ")";
    for (const auto& a : s.also) {
        names += (names.empty() ? "" : ", ") + a.model->id + " (" + a.quant->id + ", --also)";
    }
    return out + (out.empty() ? "" : " ") + "Held beside it: " + names +
           ". Every GPU verdict counts them; the figures above are this model alone.";
}

std::string download_text(const QuantRow& row) {
    return row.file_bytes ? format_gb(*row.file_bytes) : std::string("-");
}

std::string publisher_mix_text(const ModelReport& r) {
    const auto& mixes = r.publisher_mixes;
    if (mixes.empty()) return "";
    const std::string& repo = r.model->run.gguf_repo;
    std::string names;
    for (std::size_t i = 0; i < mixes.size(); ++i) {
        if (i > 0) names += i + 1 == mixes.size() ? " and " : ", ";
        names += mixes[i].file_type + " (its " + mixes[i].recipe + " recipe)";
    }
    return "In " + repo + ", " + names + (mixes.size() == 1 ? " is " : " are ") +
           repo.substr(0, repo.find('/')) +
           "'s own mix, not llama-quantize's: the table and the printed commands size that file.";
}

const char* const kDownloadNote =
    "Download = the GGUF file (tensors, header and tokenizer). Weights = what is allocated for "
    "them, which can be more: llama.cpp keeps a tied output head's copy of token_embd on the GPU "
    "as well as in RAM.";

}  // namespace canitrun::cli
