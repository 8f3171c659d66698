#include "run_commands.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "canitrun/launch_command.hpp"
#include "format.hpp"
#include "page_facts.hpp"

namespace canitrun::cli {
namespace {

std::string number(double v) {
    std::string s = fmt::format("{:.2f}", v);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s += '0';
    return s;
}

std::string sampling_flags(const Sampling& s) {
    std::string out;
    const auto add = [&](const char* flag, const std::string& value) {
        out += (out.empty() ? "" : " ") + std::string(flag) + " " + value;
    };
    if (s.temp) add("--temp", number(*s.temp));
    if (s.top_p) add("--top-p", number(*s.top_p));
    if (s.top_k) add("--top-k", std::to_string(*s.top_k));
    if (s.min_p) add("--min-p", number(*s.min_p));
    if (s.presence_penalty) add("--presence-penalty", number(*s.presence_penalty));
    return out;
}

// The plan's own llama-server line (its context, cache types, flash attention and, with --gpu,
// its offload), then the model's sampling.
void llama_server(std::ostream& out, const ModelReport& r, const Sampling* s) {
    const LaunchTarget target{r.model, r.quant, {}};
    const bool planned = r.hardware && r.hardware->selected.plan.kind != PlanKind::none;
    const std::vector<std::string> args =
        llama_server_args(target, r.settings, planned ? &r.hardware->hardware : nullptr,
                          planned ? &r.hardware->selected.plan.placement : nullptr);
    out << "    ./llama-server \\\n      " << args[0] << " " << args[1] << " \\\n     ";
    for (std::size_t i = 2; i < args.size(); ++i) out << " " << args[i];
    if (s != nullptr) {
        const std::string flags = sampling_flags(*s);
        if (!flags.empty()) out << " \\\n      " << flags;
        if (!s->chat_template_kwargs.empty()) {
            out << " \\\n      --chat-template-kwargs '" << s->chat_template_kwargs << "'";
        }
    }
    out << "\n";
}

}  // namespace

void write_run_commands(std::ostream& out, const ModelReport& r) {
    const Model& model = *r.model;
    const Quant& quant = *r.quant;
    const auto& samplings = model.run.sampling;
    if (!model.run.gguf_repo.empty() && quant.format == "gguf") {
        if (samplings.empty()) {
            out << "  llama.cpp\n";
            llama_server(out, r, nullptr);
        }
        for (std::size_t i = 0; i < samplings.size(); ++i) {
            const Sampling& s = samplings[i];
            out << "\n  llama.cpp (" << s.mode << " mode"
                << (i == 0 ? ", " + model.vendor + "'s recommended sampling" : std::string())
                << ")\n";
            llama_server(out, r, &s);
        }
        if (!model.run.mmproj.empty()) {
            // -hf fetches the repo's projector and loads it (llama.cpp's --mmproj-auto, on by
            // default; tests/fixtures/runtime-flags/llama-cpp.json), so the lines above already
            // run with vision: a --mmproj naming a file the user has not downloaded would fail.
            out << "\n  Vision: -hf also fetches the repo's projector (" << model.run.mmproj
                << ") and loads it; add --no-mmproj to run text only.\n";
        }
    } else if (quant.format != "gguf") {
        out << "  " << quant.id
            << " is not a GGUF format: llama.cpp, Ollama and LM Studio load GGUF files;"
            << " use a runtime that reads " << quant.format << " (vLLM, TensorRT-LLM).\n";
    }
    if (!model.run.ollama.empty()) {
        std::string env;
        for (const auto& e : ollama_environment(r.settings)) env += e + " ";
        out << "\n  Ollama (the context and cache planned above; the tag's quantization is "
               "Ollama's choice)\n    "
            << env << "ollama serve   # then: ollama run " << model.run.ollama << "\n";
    }
    if (!model.run.lmstudio_search.empty()) {
        out << "\n  LM Studio\n    Search for '" << model.run.lmstudio_search << "' and take the "
            << quant.id << " build; set its context length to " << r.settings.estimate.context
            << ".\n    " << lmstudio_advice(r) << "\n";
    }
}

}  // namespace canitrun::cli
