#include "canitrun/tensor_layout.hpp"

#include <optional>
#include <string>

#include "canitrun/layer_kinds.hpp"
#include "layout_builder.hpp"

// Which llama.cpp architecture a model is: a file's or a log's own name, or the one a database
// family converts to (convert_hf_to_gguf.py / conversion/*.py at llama.cpp 0ad4a86).

namespace canitrun {
namespace {

using namespace layout;

std::unexpected<Error> unsupported(const Model& model) {
    return fail(ErrorKind::bad_input,
                "--engine llama.cpp does not model the architecture of " + model.id + " yet",
                "use --engine quick");
}

// A model read from a GGUF file or a llama.cpp log has llama.cpp's own architecture name as
// its family; database families that only resemble one are mapped below. An architecture
// is known exactly when it has a builder.
Result<std::string> own_name_or_unsupported(const Model& m) {
    if (has_layout_builder(m.family)) return m.family;
    return unsupported(m);
}

// The recurrent hybrids' and the MLA models' architectures (nullopt for any other model).
std::optional<Result<std::string>> recurrent_or_mla_arch(const Model& m) {
    const std::string& f = m.family;
    if (has_kind(m, LayerKind::compressed)) {
        if (f == "deepseek-v4") return std::string("deepseek4");
        return own_name_or_unsupported(m);
    }
    if (has_kind(m, LayerKind::ssm)) {
        if (f == "granite4") return std::string("granitehybrid");
        if (f == "jamba") return std::string("jamba");
        if (f == "nemotron-h" || f == "nemotron-nano" || f == "nemotron-3") {
            return std::string(m.is_moe() ? "nemotron_h_moe" : "nemotron_h");
        }
        return own_name_or_unsupported(m);
    }
    if (!has_kind(m, LayerKind::mla)) return std::nullopt;
    const bool indexer = group_or_empty(m, LayerKind::mla).index_head_dim > 0;
    if (f == "deepseek-v2" || f == "deepseek-v3" || f == "deepseek-r1" || f == "kimi-k2" ||
        f == "glm-4.7") {
        return std::string(indexer ? "deepseek32" : "deepseek2");
    }
    // Mistral Large 3's params.json converts to deepseek2 (conversion/mistral.py's
    // MistralMoeModel); GLM-5 is glm-dsa, DeepSeek V3.2's tensors under its own name.
    if (f == "mistral-large3") return std::string("deepseek2");
    if (f == "kimi-linear") return std::string("kimi-linear");
    if (f == "glm-5" && indexer) return std::string("glm-dsa");
    if (f == "hy4") return std::string("hy_v4");        // Tencent Hy4 (HYV4ForCausalLM)
    if (f == "dots3") return std::string("dots3note");  // Dots3NoteForCausalLM
    return own_name_or_unsupported(m);
}

// Database families that are one llama.cpp architecture each, some only as MoE or only dense.
enum class Experts { any, moe, dense };
struct FamilyArch {
    const char* family;
    const char* arch;
    Experts experts;
};
constexpr FamilyArch kFamilyArchs[] = {
    {"gemma4", "gemma4", Experts::any},
    {"gpt-oss", "gpt-oss", Experts::any},
    {"smollm3", "smollm3", Experts::any},
    {"olmo2", "olmo2", Experts::any},
    {"olmo3", "olmo2", Experts::any},  // OLMo 3: olmo2 with a window
    {"seed-oss", "seed_oss", Experts::any},
    {"glm-4.5", "glm4moe", Experts::moe},
    {"glm-4.6", "glm4moe", Experts::moe},
    {"glm-4.7", "glm4moe", Experts::moe},
    {"minimax-m2", "minimax-m2", Experts::moe},
    {"minimax-m3", "minimax-m3", Experts::moe},
    {"hunyuan", "hunyuan-moe", Experts::moe},
    {"phi3.5", "phimoe", Experts::moe},
    {"phi3.5", "phi3", Experts::dense},
    {"exaone4", "exaone4", Experts::dense},
    {"glm-4", "glm4", Experts::dense},
    {"command-r", "command-r", Experts::any},
    {"command-a", "cohere2", Experts::any},
    {"granite3.3", "granite", Experts::dense},
    {"granite4", "granite", Experts::dense},
    {"granite4.1", "granite", Experts::dense},
    {"granite4.2", "granite", Experts::dense},  // 4.1 post-trained for reasoning
    {"ernie-4.5", "ernie4_5-moe", Experts::moe},
    {"llama4", "llama4", Experts::moe},
    {"mimo-v2", "mimo2", Experts::moe},
    {"mimo-v2.6", "mimo2", Experts::moe},
    {"step-3.5", "step35", Experts::moe},
    {"mixtral", "llama", Experts::any},
    {"minicpm5", "llama", Experts::dense},  // MiniCPM5 is a plain LlamaForCausalLM
};

std::optional<std::string> family_arch(const Model& m) {
    for (const auto& e : kFamilyArchs) {
        if (m.family != e.family) continue;
        if (e.experts == Experts::any || (e.experts == Experts::moe) == m.is_moe()) return e.arch;
    }
    return std::nullopt;
}

// Qwen's and Gemma's families, told apart by the id and the layer kinds.
std::optional<std::string> qwen_or_gemma_arch(const Model& m) {
    const std::string& f = m.family;
    const bool linear = has_kind(m, LayerKind::linear);
    const bool vl = m.id.find("-vl-") != std::string::npos;
    if (f == "qwen3.5" || f == "qwen3.6" || f == "qwen3.8") {
        // Qwen3.8-Flash-Next is Qwen4's architecture under a 3.8 name (Qwen4ExpForCausalLM)
        if (m.arch.hyper_connections > 0) return "qwen4exp";
        return m.is_moe() ? "qwen35moe" : "qwen35";
    }
    if (f == "qwen3" && vl && !linear) return m.is_moe() ? "qwen3vlmoe" : "qwen3vl";
    if (f == "qwen3" || (f == "deepseek-r1" && m.id.find("qwen3") != std::string::npos)) {
        if (linear) return "qwen3next";
        return m.is_moe() ? "qwen3moe" : "qwen3";
    }
    if (linear) return std::nullopt;
    if (f == "qwen2.5") return vl ? "qwen2vl" : "qwen2";
    if (f == "deepseek-r1" && m.id.find("distill-qwen") != std::string::npos) return "qwen2";
    if (m.id.starts_with("gemma-3-")) return "gemma3";
    if (m.id.starts_with("gemma-3n-")) return "gemma3n";
    if (m.id.starts_with("gemma-2-")) return "gemma2";
    return std::nullopt;
}

Result<std::string> arch_of(const Model& m) {
    const std::string& f = m.family;
    if (f == "falcon-h1") return std::string("falcon-h1");
    if (f == "lfm2" && has_kind(m, LayerKind::conv)) {
        return std::string(m.is_moe() ? "lfm2moe" : "lfm2");
    }
    if (auto arch = recurrent_or_mla_arch(m)) return *arch;
    if (auto arch = qwen_or_gemma_arch(m)) return *arch;
    if (has_kind(m, LayerKind::linear)) return own_name_or_unsupported(m);
    if (auto arch = family_arch(m)) return *arch;
    if ((f == "phi4" || f == "phi4-mini") && !has_kind(m, LayerKind::sliding)) {
        return std::string("phi3");
    }
    if (!m.is_moe() && !has_kind(m, LayerKind::sliding) &&
        (f.starts_with("llama3") || f == "llama2" || f == "mistral" || f == "mistral-nemo" ||
         f == "mistral-large" || f == "mistral-small" || f == "magistral" || f == "devstral" ||
         f == "ministral" || f == "ministral3" || f == "falcon3" ||
         m.id.find("distill-llama") != std::string::npos)) {
        return std::string("llama");
    }
    return own_name_or_unsupported(m);
}

}  // namespace

Result<std::string> llama_arch(const Model& m) {
    // The last model's answer, kept: a plan asks it some 40 times per model (the cache, the
    // output phase, the server's settings at every context a search tries), which was 5 % of
    // `fit`'s instructions. It reads only fields that same_layout_inputs compares.
    thread_local struct {
        std::optional<Model> model;
        Result<std::string> arch;
    } last;
    if (!last.model || !same_layout_inputs(*last.model, m)) {
        last.arch = arch_of(m);
        last.model = m;
    }
    return last.arch;
}

bool same_layout_inputs(const Model& a, const Model& b) {
    return a.id == b.id && a.family == b.family && a.context_native == b.context_native &&
           a.context_extension == b.context_extension &&
           a.run.gguf_quantized_before == b.run.gguf_quantized_before &&
           a.run.gguf_indexer_every_layer == b.run.gguf_indexer_every_layer &&
           a.run.gguf_imatrix == b.run.gguf_imatrix &&
           a.run.gguf_plain_recipes == b.run.gguf_plain_recipes && a.arch == b.arch &&
           a.modalities == b.modalities;
}

}  // namespace canitrun
