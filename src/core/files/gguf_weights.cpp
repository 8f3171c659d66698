#include "gguf_weights.hpp"

#include <algorithm>
#include <map>

#include "canitrun/checked.hpp"
#include "canitrun/ggml_type.hpp"
#include "canitrun/llamacpp_rules.hpp"

namespace canitrun {
namespace {

std::string ggml_name(std::uint32_t id) {
    const auto t = find_ggml_type(id);
    return t ? std::string(t->name) : std::to_string(id);
}

}  // namespace

Result<void> read_gguf_weights(const std::vector<GgufFile>& parts, GgufModel& out) {
    Model& m = out.model;
    const Architecture& a = m.arch;
    std::map<std::uint32_t, QuantMixEntry> mix;
    std::uint64_t params = 0, expert_params = 0;
    CANITRUN_TRY(catch_overflow(
        [&]() -> Result<void> {
            for (const auto& part : parts) {
                for (const auto& t : part.tensors) {
                    out.weights_bytes = checked::add(out.weights_bytes, t.bytes);
                    ++out.tensor_count;
                    FileTensor ft{t.name,
                                  t.bytes,
                                  t.type,
                                  static_cast<std::uint32_t>(t.dims.size()),
                                  {1, 1, 1, 1}};
                    for (std::size_t d = 0; d < t.dims.size() && d < ft.ne.size(); ++d) {
                        ft.ne[d] = t.dims[d];
                    }
                    out.tensors.push_back(std::move(ft));
                    QuantMixEntry& e = mix[t.type];
                    e.type_id = t.type;
                    e.type = ggml_name(t.type);
                    ++e.tensors;
                    e.bytes = checked::add(e.bytes, t.bytes);
                    const std::uint64_t n = t.elements();
                    params = checked::add(params, n);
                    if (llama_routed_expert_tensor(t.name)) {
                        expert_params = checked::add(expert_params, n);
                    }
                }
            }
            return {};
        },
        [&] {
            return fail(ErrorKind::bad_input,
                        "the GGUF file's tensors add up to more than 2^64 bytes",
                        "the file is corrupt");
        }));
    for (auto& [id, e] : mix) out.mix.push_back(e);
    std::stable_sort(
        out.mix.begin(), out.mix.end(),
        [](const QuantMixEntry& x, const QuantMixEntry& y) { return x.bytes > y.bytes; });
    m.params_total = params;
    m.params_rounding = 1;
    m.params_active = params;
    if (a.moe && a.moe->experts > 0) {
        // Routed experts: only experts_per_token of every expert tensor run per token.
        const std::uint64_t idle = checked::mul_div_floor(
            expert_params, a.moe->experts - std::min(a.moe->experts_per_token, a.moe->experts),
            a.moe->experts);
        m.params_active = params - idle;
    }
    return {};
}

}  // namespace canitrun
