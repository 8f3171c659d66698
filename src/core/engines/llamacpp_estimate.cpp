// The model's weights as llama.cpp types and places them (the layout kept per model, the
// typed bytes per quantization, the host inputs split from the rest) and estimate_llamacpp,
// which assembles them with the cache and buffers of llamacpp_engine.cpp.

#include <memory>
#include <optional>

#include "cache_setup.hpp"
#include "canitrun/checked.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "quant_memo.hpp"

namespace canitrun {

Result<std::shared_ptr<const PreparedLayout>> llamacpp_layout(const Model& model) {
    // The last model's layout, kept: every search over quantizations and contexts asks for the
    // same model's layout many times in a row (some 70 times a served answer). Keyed by every
    // field tensor_layout reads, not the address, so an edited copy at the same address is never
    // served a stale layout; not the whole model, whose == was 4 % of a served answer.
    thread_local struct {
        std::optional<Model> model;
        std::shared_ptr<const PreparedLayout> prepared;
    } last;
    if (last.model && same_layout_inputs(*last.model, model)) return last.prepared;
    CANITRUN_TRY_ASSIGN(auto layout, tensor_layout(model));
    auto prepared = std::make_shared<const PreparedLayout>(prepare_layout(std::move(layout)));
    last.model = model;
    last.prepared = prepared;
    return prepared;
}

Result<std::shared_ptr<const std::vector<Bytes>>> llamacpp_tensor_bytes(
    const std::shared_ptr<const PreparedLayout>& prepared, const Quant& quant) {
    thread_local QuantMemo<std::shared_ptr<const std::vector<Bytes>>> memo;
    const auto typed = [&]() -> Result<std::shared_ptr<const std::vector<Bytes>>> {
        CANITRUN_TRY_ASSIGN(auto bytes, quantize_bytes(*prepared, quantize_request(quant)));
        return std::make_shared<const std::vector<Bytes>>(std::move(bytes));
    };
    CANITRUN_TRY_ASSIGN(const auto* kept, memo.get(prepared, quant.id, typed));
    return *kept;
}

Result<std::vector<TypedTensor>> llamacpp_tensors(const Model& model, const Quant& quant) {
    CANITRUN_TRY_ASSIGN(const auto layout, tensor_layout(model));
    return quantize_tensors(layout, quantize_request(quant));
}

namespace {

// The host inputs (llama_host_input_tensor), token_embd among them, and every other tensor:
// from the file when there is one, else as llama-quantize would type the model's tensors.
struct WeightSplit {
    Bytes host = 0;
    Bytes embd = 0;  // token_embd alone: a tied output head's copy
    Bytes rest = 0;
};

// The host inputs, token_embd and the rest of a typed layout: a walk over every tensor.
Result<WeightSplit> layout_weight_split(const std::shared_ptr<const PreparedLayout>& prepared,
                                        const Quant& quant) {
    CANITRUN_TRY_ASSIGN(const auto typed, llamacpp_tensor_bytes(prepared, quant));
    const std::vector<Bytes>& bytes = *typed;
    const auto& tensors = prepared->layout.tensors;
    WeightSplit w;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (prepared->host_input[i]) {
            w.host = checked::add(w.host, bytes[i]);
            if (tensors[i].name == "token_embd.weight") w.embd = bytes[i];
        } else {
            w.rest = checked::add(w.rest, bytes[i]);
        }
    }
    return w;
}

Result<WeightSplit> weight_split(const Model& model, const Quant& quant, const LlamaCppOptions& o) {
    if (o.file_tensors) {
        return WeightSplit{o.file_tensors->host_inputs, o.file_tensors->token_embd,
                           o.file_tensors->other};
    }
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    // Kept per quantization (quant_memo.hpp): no context in it, and a page asks for it some
    // twenty times.
    thread_local QuantMemo<WeightSplit> memo;
    CANITRUN_TRY_ASSIGN(const WeightSplit* kept, memo.get(prepared, quant.id, [&]() {
        return layout_weight_split(prepared, quant);
    }));
    return *kept;
}

Estimate assemble_llamacpp(const Model& model, const LlamaCppOptions& o, WeightSplit w,
                           const std::vector<LayerCache>& caches, Bytes compute,
                           Bytes host_compute) {
    const bool gpu = o.backend != Backend::cpu;
    // Tied embeddings: llama.cpp duplicates token_embd as the output head
    // (TENSOR_DUPLICATED), which lands in the device buffer when the output layer is
    // offloaded; on the CPU the mmap'd file backs both.
    if (gpu && model.arch.tied_embeddings) w.rest = checked::add(w.rest, w.embd);
    const Device dev = gpu ? Device::gpu : Device::cpu;
    Bytes kv = 0;
    Bytes recurrent = checked::mul(ngram_conv_state_bytes(model), o.n_seq);
    const auto& groups = model.arch.layer_groups;
    const std::vector<std::uint64_t> owners = kv_owner_counts(model);
    for (std::size_t i = 0; i < groups.size(); ++i) {
        kv = checked::add(kv, checked::mul(caches[i].kv, owners[i]));
        recurrent = checked::add(recurrent, checked::mul(caches[i].recurrent, groups[i].count));
    }
    Estimate e;
    e.terms.push_back({TermKind::weights, w.rest, dev});
    e.terms.push_back({TermKind::token_embd, w.host, Device::cpu});
    e.terms.push_back({TermKind::kv_cache, kv, dev});
    e.terms.push_back({TermKind::recurrent_state, recurrent, dev});
    e.terms.push_back({TermKind::compute, compute, dev});
    e.terms.push_back({TermKind::output, llamacpp_output_bytes(model, o), Device::cpu});
    if (gpu) e.terms.push_back({TermKind::host_compute, host_compute, Device::cpu});
    const Bytes pool = has_cuda_pool(o.backend) ? cuda_pool_bytes(model, o) : 0;
    e.terms.push_back(
        {TermKind::runtime, checked::add(runtime_overhead_bytes(o.backend), pool), dev});
    e.total();
    return e;
}

}  // namespace

Result<Estimate> estimate_llamacpp(const Model& model, const Quant& quant,
                                   const LlamaCppOptions& o) {
    // One setup for the three (cache_setup.hpp), asked in the same order.
    CANITRUN_TRY_ASSIGN(const auto setup, cache_setup(model, o));
    CANITRUN_TRY_ASSIGN(const auto caches, group_caches_of(model, setup));
    CANITRUN_TRY_ASSIGN(const Bytes compute, compute_of(model, setup, o));
    CANITRUN_TRY_ASSIGN(const Bytes host_compute, host_compute_of(model, setup, o));
    return catch_overflow(
        [&]() -> Result<Estimate> {
            CANITRUN_TRY_ASSIGN(const WeightSplit w, weight_split(model, quant, o));
            return assemble_llamacpp(model, o, w, caches, compute, host_compute);
        },
        [&] { return overflow_error("the estimate for " + model.id); });
}

}  // namespace canitrun
