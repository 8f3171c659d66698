#pragma once
// What the server-term tests share: a plan's placement for a model on named GPUs, a resident
// term by name, a context's settings, and a model as a GGUF file carrying its MTP layers.
#include <string>
#include <vector>

#include "canitrun/hardware_questions.hpp"
#include "canitrun/plan_settings.hpp"
#include "catch.hpp"
#include "test_support.hpp"

namespace canitrun::test {

// The resident term of that name on the share; a term of 0 bytes is none.
inline ResidentTerm term(const Share& s, const std::string& name) {
    for (const auto& r : s.resident) {
        if (r.name == name) return r;
    }
    return {};
}

inline Placement plan_of(const std::string& model, const std::string& quant,
                         const std::vector<std::string>& gpus, const PlanSettings& settings) {
    const auto a =
        answer_for(test::model(model), test::quant(quant), test::hardware_of(gpus), settings);
    REQUIRE(a);
    return a->plan.placement;
}

inline Placement plan_of(const Model& model, const std::string& quant,
                         const std::vector<std::string>& gpus, const PlanSettings& settings) {
    const auto a = answer_for(model, test::quant(quant), test::hardware_of(gpus), settings);
    REQUIRE(a);
    return a->plan.placement;
}

// The model as a GGUF file that carries its MTP layers would be: Qwen 3.5 converted by the
// pinned converter, which keeps the block (conversion/qwen.py's _QwenMtpMixin at 0ad4a86),
// where the published files predate that (data: run.gguf_mtp false).
inline Model with_mtp_files(const std::string& id) {
    Model m = test::model(id);
    m.run.gguf_mtp = true;
    return m;
}

inline PlanSettings at_context(std::uint64_t context) {
    PlanSettings s;
    s.estimate.context = context;
    return s;
}

}  // namespace canitrun::test
