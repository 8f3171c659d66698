#pragma once
// The facts of the model page beyond its tables, as sentences made from the report's figures
// and the model's data: the context window with its extension, the layer pattern in words and
// as a small diagram, "Why this quantization?", the FAQ, the LM Studio advice, the links, and
// the model's editorial text where the data carries one. One function each, shared by the
// terminal page, the JSON and the HTML page, so the three say the same thing.

#include <string>
#include <vector>

#include "canitrun/report.hpp"

namespace canitrun::cli {

struct FaqEntry {
    std::string question;
    std::string answer;
};

struct PageLink {
    std::string label;  // "Hugging Face", "GGUF files", "Ollama"
    std::string url;
};

struct PatternLegend {
    std::string glyph;  // the diagram's mark for the group
    std::string text;   // "Gated Attention: 2 KV heads x 256 dim, a KV cache that grows ..."
};

struct LayerPatternFacts {
    std::string words;    // "40 layers: 10 repeats of 3 Gated DeltaNet layers and 1 ..."
    std::string diagram;  // "layer 1 ░░░█ ×10 layer 40"; empty when too irregular to draw
    std::vector<PatternLegend> legend;
};

// What grows after load in RAM (llama-server's prompt cache and context checkpoints) and that
// every verdict counts it at its most; empty when nothing grows (the quick rule, --cache-ram 0
// on a model that makes no checkpoints).
std::string growth_sentence(const ModelReport& report);

// The outputs a plan reserves the compute graph for (--reserve-outputs): llama-server's, named
// as such, by default, or every token of the ubatch, with what llama-server would reserve
// instead; the report's is empty under the quick rule. planned_outputs gives the count (0:
// every token of the ubatch).
std::string outputs_sentence(const Model& model, const PlanSettings& settings);
std::string outputs_sentence(const ModelReport& report);
std::uint64_t planned_outputs(const ModelReport& report);

// The vision projector and the models held beside this one (--draft, --also), which every GPU
// verdict counts and the headline (the model alone) does not; empty when none.
std::string companions_sentence(const ModelReport& report);

// "10 of 40 layers cache", or, for an encoder the llama.cpp rule plans without a cache, that it
// keeps none.
std::string kv_layers_note(const ModelReport& report);

// "262,144 tokens natively, up to 1,010,000 with YaRN"
std::string context_sentence(const Model& model);

// The name the page gives a layer group's kind ("Gated DeltaNet", "sliding-window attention").
std::string kind_label(const Model& model, LayerKind kind);
// The same for one group, with what sets it apart from another group of its kind: its own
// sparse-attention indexer, a compression ratio ("compressed-attention (1 entry per 4 tokens,
// indexer)").
std::string group_label(const Model& model, const LayerGroup& group);

LayerPatternFacts layer_pattern_facts(const Model& model, bool unicode);

// "Why this quantization?": the weights floor, the card it needs, what context costs, and the
// quantizations either side of it.
std::string why_quant(const ModelReport& r);

// The second LM Studio sentence: weights first, then context, with what the window costs.
std::string lmstudio_advice(const ModelReport& r);

std::vector<FaqEntry> faq_entries(const ModelReport& r);

std::vector<PageLink> page_links(const Model& model);

// The quantization table's Download cell: the GGUF file's size, "-" for a format that is not
// GGUF; and the note under the table that says how it differs from the Weights column.
std::string download_text(const QuantRow& row);
// Where the model's repo names a file type for its publisher's own mix (ModelReport::
// publisher_mixes): which, in one sentence; "" where none.
std::string publisher_mix_text(const ModelReport& r);
extern const char* const kDownloadNote;

// What the plan says of a claim the editorial makes: "Q4_K_M runs fully on a 24 GB card at
// 8,192 tokens".
std::string claim_plan_text(const ClaimCheck& check);

// A piece of the editorial text (a paragraph or a point) with a mark after each sentence the
// page's plan contradicts (ModelReport::claim_checks), so the text is never read as the plan.
std::string editorial_marked(const ModelReport& r, const std::string& text);

// The editorial text's caveat when the page's figures come from another rule than the text's.
std::string editorial_caveat(const ModelReport& r);

}  // namespace canitrun::cli
