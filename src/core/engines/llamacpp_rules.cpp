#include "canitrun/llamacpp_rules.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "canitrun/checked.hpp"
#include "canitrun/tensor_layout.hpp"

namespace canitrun {

bool llama_host_input_tensor(std::string_view name) {
    // LLM_TENSOR_LAYER_INPUT in llama-arch.cpp: the embeddings, and BERT's learned positions,
    // token types and the embeddings' norm
    return name == "token_embd.weight" || name == "per_layer_token_embd.weight" ||
           name == "position_embd.weight" || name == "token_types.weight" ||
           name.starts_with("token_embd_norm.");
}

int llama_tensor_layer(std::string_view name) {
    if (!name.starts_with("blk.")) return -1;
    std::size_t at = 4;
    int layer = 0;
    bool digits = false;
    while (at < name.size() && name[at] >= '0' && name[at] <= '9' && layer < 1000000) {
        layer = layer * 10 + (name[at] - '0');
        digits = true;
        ++at;
    }
    return digits && at < name.size() && name[at] == '.' ? layer : -1;
}

bool llama_routed_expert_tensor(std::string_view name) {
    return name.find("_exps.") != std::string_view::npos;
}

bool llama_arch_keeps_no_memory(std::string_view arch) {
    return arch == "bert" || arch == "nomic-bert" || arch == "gemma-embedding";
}

bool llama_arch_picks_outputs_last(std::string_view arch) {
    // the models' `if (!cparams.embeddings_nextn_masked && inp_out_ids)` after build_norm
    static constexpr std::array<std::string_view, 9> kLast = {
        "bailingmoe3", "cohere2moe", "gemma4",    "hy_v3", "gpt-oss",
        "qwen35",      "qwen35moe",  "qwen3next", "step35"};
    return std::find(kLast.begin(), kLast.end(), arch) != kLast.end();
}

LlamaServe llama_serve(const Model& model) {
    if (model.run.pooling == "rank") return LlamaServe::reranking;
    if (!model.run.pooling.empty()) return LlamaServe::embeddings;
    const auto arch = llama_arch(model);
    return arch && llama_arch_keeps_no_memory(*arch) ? LlamaServe::embeddings
                                                     : LlamaServe::completion;
}

bool llama_arch_supports_tensor_split(std::string_view arch) {
    // llm_arch_supports_sm_tensor's cases returning false, by LLM_ARCH_NAMES' spelling
    static constexpr std::array<std::string_view, 30> kRefused = {
        "grok",          "mpt",         "plamo2",     "minicpm3",   "gemma3n",
        "mamba",         "mamba2",      "jamba",      "falcon-h1",  "olmo2",
        "olmoe",         "deepseek2",   "deepseek32", "hy_v4",      "dots3note",
        "glm-dsa",       "bitnet",      "t5",         "nemotron_h", "nemotron_h_moe",
        "granitehybrid", "minimax-01",  "minimax-m2", "minimax-m3", "mistral4",
        "kimi-linear",   "bailingmoe3", "kimi-k3",    "qwen3tts",   "qwen4exp"};
    return std::find(kRefused.begin(), kRefused.end(), arch) == kRefused.end();
}

std::uint64_t llama_padded_context(std::uint64_t context) {
    return checked::mul((checked::add(context, kLlamaCachePad - 1)) / kLlamaCachePad,
                        kLlamaCachePad);
}

std::uint64_t llama_sliding_cells(std::uint64_t n_ctx_seq, std::uint64_t window,
                                  std::uint64_t n_ubatch) {
    return llama_padded_context(std::min(n_ctx_seq, checked::add(window, n_ubatch)));
}

std::uint64_t llama_sequence_context(std::uint64_t n_ctx, std::uint64_t n_seq) {
    return n_ctx / std::max<std::uint64_t>(n_seq, 1);
}

Model llama_cache_model(const Model& model, std::uint64_t context, std::uint64_t n_ubatch) {
    Model out = model;
    const std::uint64_t n_ctx = llama_padded_context(context);
    for (auto& g : out.arch.layer_groups) {
        if (!keeps_window(g)) continue;
        g.window = llama_sliding_cells(n_ctx, g.window, n_ubatch);
    }
    return out;
}

std::uint64_t llama_default_swa_period(const std::string& arch) {
    static const std::map<std::string, std::uint64_t> periods = {
        {"gemma2", 2},       {"gemma3", 6}, {"gemma3n", 5},      {"cohere2", 4}, {"cohere2moe", 4},
        {"gpt-oss", 2},      {"llama4", 4}, {"olmo2", 4},        {"exaone4", 4}, {"afmoe", 4},
        {"smallthinker", 4}, {"plamo3", 8}, {"muse-glimmer", 4},
    };
    const auto it = periods.find(arch);
    return it == periods.end() ? 0 : it->second;
}

bool llama_gated_delta_net(const std::string& arch) {
    return arch == "qwen3next" || arch == "qwen35" || arch == "qwen35moe" || arch == "qwen4exp";
}

}  // namespace canitrun
