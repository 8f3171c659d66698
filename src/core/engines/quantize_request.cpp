// A quantization request and the recipes that type it: a quantization's own recipe, the
// publisher's recipe for a plain-named file (RunInfo::gguf_plain_recipes), and which tensors and
// models a recipe's rule holds for.

#include "quantize_request.hpp"

#include <string>

namespace canitrun {

QuantizeRequest quantize_request(const Quant& quant) {
    if (quant.recipe_base.empty()) return QuantizeRequest{quant.id, std::nullopt, {}};
    return QuantizeRequest{quant.recipe_base, quant.recipe_imatrix, quant.recipe_tensors};
}

QuantizeRequest floor_request(const std::vector<PlainFileRecipe>& plain_recipes,
                              const Quant& quant) {
    QuantizeRequest r = quantize_request(quant);
    if (!r.tensor_types.empty()) return r;
    for (const PlainFileRecipe& p : plain_recipes) {
        if (p.file_type == r.file_type)
            r.tensor_types.insert(r.tensor_types.end(), p.tensors.begin(), p.tensors.end());
    }
    return r;
}

const PlainFileRecipe* published_recipe(const TensorLayout& layout, std::string_view file_type) {
    for (const PlainFileRecipe& p : layout.plain_recipes) {
        // scoped as a recipe's per-model rule is
        if (p.file_type == file_type &&
            detail::holds_for({"", "", p.arch, p.family, p.model}, layout))
            return &p;
    }
    return nullptr;
}

namespace detail {

bool names(const TensorTypeRule& rule, std::string_view tensor) {
    if (tensor == rule.tensor) return true;
    return tensor.size() > rule.tensor.size() && tensor.ends_with(rule.tensor) &&
           tensor[tensor.size() - rule.tensor.size() - 1] == '.';
}

bool holds_for(const TensorTypeRule& rule, const TensorLayout& layout) {
    return (rule.arch.empty() || rule.arch == layout.arch) &&
           (rule.family.empty() || rule.family == layout.family) &&
           (rule.model.empty() || rule.model == layout.model_id);
}

QuantizeRequest as_published(const TensorLayout& layout, const QuantizeRequest& request) {
    if (!request.tensor_types.empty()) return request;
    const PlainFileRecipe* p = published_recipe(layout, request.file_type);
    if (p == nullptr) return request;
    return QuantizeRequest{request.file_type, request.imatrix.value_or(p->imatrix), p->tensors};
}

Result<std::vector<GgmlType>> rule_types(const QuantizeRequest& request) {
    std::vector<GgmlType> out;
    for (const auto& rule : request.tensor_types) {
        const auto t = find_ggml_type(rule.type);
        if (!t) {
            return fail(ErrorKind::bad_input, "no ggml type '" + rule.type + "' for " +
                                                  rule.tensor + " in the recipe of " +
                                                  request.file_type);
        }
        out.push_back(*t);
    }
    return out;
}

}  // namespace detail

}  // namespace canitrun
