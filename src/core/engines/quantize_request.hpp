#pragma once
// A quantization request's tensor rules: which tensors a recipe's rule names, for which models it
// holds, and the file a plain request names as the model's publisher makes it. Internal to the
// llama-quantize rules (quantize_rules.cpp).

#include <string_view>
#include <vector>

#include "canitrun/error.hpp"
#include "canitrun/ggml_type.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"

namespace canitrun::detail {

// A rule's tensor: the whole name, or that tensor of every layer ("ssm_alpha.weight" for
// "blk.3.ssm_alpha.weight"), as a --tensor-type pattern anchored at a name's end.
bool names(const TensorTypeRule& rule, std::string_view tensor);

// A rule of a publisher's per-model choice holds for its architecture (family, model) only.
bool holds_for(const TensorTypeRule& rule, const TensorLayout& layout);

// The file a plain request names, as the layout's publisher makes it: the recipe its repo's
// file of that type is made by (published_recipe), with the caller's imatrix flag where it sets
// one; otherwise the request itself. A request with rules of its own (a recipe asked for by name)
// is taken as it is. (A layout without plain_recipes is llama-quantize's own: tools/accuracy
// clears them.)
QuantizeRequest as_published(const TensorLayout& layout, const QuantizeRequest& request);

// The ggml type of each of the request's rules, in order; an error names a type ggml lacks.
Result<std::vector<GgmlType>> rule_types(const QuantizeRequest& request);

}  // namespace canitrun::detail
