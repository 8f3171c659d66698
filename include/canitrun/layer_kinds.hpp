#pragma once
// Which layer group (and so which kind: full or sliding attention, linear attention, SSM, MLA)
// each layer of the stack has. One rule for every user: the quick estimate's parts, the
// llama.cpp tensor layout and the llama.cpp planner. With two groups the rarer one sits at
// every (layers / count)-th layer, the last of each period, as llama.cpp's
// full_attention_interval (qwen3next, qwen35) and set_swa_pattern (gemma2: every 2nd layer
// global; gemma3: every 6th) place them; of two groups as many, the full-attention one is
// the rarer (gemma2 and gpt-oss slide on even layers); the other groups fill the rest in order.
// A model whose architecture states its layer_order (Nemotron-H's pattern) has that order.

#include <cstddef>
#include <string>
#include <vector>

#include "canitrun/model.hpp"

namespace canitrun {

// One index into model.arch.layer_groups per layer, in stack order. The length is the sum of
// the groups' counts.
std::vector<std::size_t> layer_group_order(const Model& model);

// The order Architecture::layer_order states (one group index per layer): a digit names its
// group by index, a letter the first group of its kind that still has layers to place (two
// groups of one kind fill in turn: MiniMax-M3's 3 dense-lead layers, then its 57 with an
// indexer). Empty when it states none or does not match the groups.
std::vector<std::size_t> stated_group_order(const Architecture& arch);

// The layer_order that states `order`: kind letters where they say it, else one digit per
// layer (groups of one kind that interleave, GLM-5.2's layers with and without an indexer).
std::string layer_order_text(const Architecture& arch, const std::vector<std::size_t>& order);

// The same as kinds; a model without groups is all full attention (arch.layers of them).
std::vector<LayerKind> layer_kinds(const Model& model);

// How the stack repeats (the page's "ten repeats of three Gated DeltaNet layers and one Gated
// Attention layer"): the shortest run of layer groups whose repeats give the stack, with a tail
// (a prefix of the run) when the layer count is not a multiple of it.
struct LayerPattern {
    std::vector<std::size_t> period;  // group indices, in stack order
    std::uint64_t repeats = 0;
    std::size_t tail = 0;  // layers after the last whole repeat
};
LayerPattern layer_pattern(const Model& model);

}  // namespace canitrun
