#include "canitrun/estimate.hpp"

namespace canitrun {
namespace {

Result<Estimate> assemble(Bytes weights, Bytes kv, std::uint64_t overhead_percent) {
    Estimate e;
    e.terms.push_back({TermKind::weights, weights, Device::gpu});
    e.terms.push_back({TermKind::kv_cache, kv, Device::gpu});
    const Bytes overhead = checked::mul_div_floor(checked::add(weights, kv), overhead_percent, 100);
    e.terms.push_back({TermKind::overhead, overhead, Device::gpu});
    e.total();  // checks that the sum fits
    return e;
}

}  // namespace

const char* term_name(TermKind kind) {
    switch (kind) {
        case TermKind::weights:
            return "weights";
        case TermKind::token_embd:
            return "token_embd";
        case TermKind::kv_cache:
            return "kv_cache";
        case TermKind::recurrent_state:
            return "recurrent_state";
        case TermKind::overhead:
            return "overhead";
        case TermKind::compute:
            return "compute";
        case TermKind::output:
            return "output";
        case TermKind::runtime:
            return "runtime";
        case TermKind::activation_reserve:
            return "activation_reserve";
        case TermKind::mmproj:
            return "mmproj";
        case TermKind::weights_llama_cpp:
            return "weights_llama_cpp";
        case TermKind::file_size:
            return "file_size";
        case TermKind::host_compute:
            return "host_compute";
    }
    return "?";
}

Bytes Estimate::term(TermKind kind) const {
    for (const auto& t : terms) {
        if (t.kind == kind) return t.bytes;
    }
    return 0;
}

Bytes Estimate::tensor_bytes() const {
    return checked::add(term(TermKind::weights), term(TermKind::token_embd));
}

Bytes Estimate::total() const {
    Bytes sum = 0;
    for (const auto& t : terms) sum = checked::add(sum, t.bytes);
    return sum;
}

Bytes Estimate::on(Device device) const {
    Bytes sum = 0;
    for (const auto& t : terms) {
        if (t.device == device) sum = checked::add(sum, t.bytes);
    }
    return sum;
}

Bytes weight_bytes(std::uint64_t params, const Quant& quant) {
    // params x (bpw_e4 / 10^4) / 8
    return checked::mul_div_ceil(params, quant.bpw_e4, 8 * kBpwScale);
}

Result<Estimate> estimate(const Model& model, const Quant& quant, const EstimateOptions& options) {
    return catch_overflow(
        [&] {
            const Bytes weights = options.weights_bytes_override
                                      ? *options.weights_bytes_override
                                      : weight_bytes(model.params_total, quant);
            return assemble(weights, kv_cache_bytes(model, options.context, options.kv_type),
                            options.overhead_percent);
        },
        [&] {
            return overflow_error("the estimate for " + model.id,
                                  "lower --ctx, or check the model's entry in the database");
        });
}

Result<Estimate> estimate_all_attention(const Model& model, const Quant& quant,
                                        const EstimateOptions& options) {
    return estimate(all_attention_variant(model), quant, options);
}

}  // namespace canitrun
