#include "run_commands.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "canitrun/format.hpp"

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

void llama_server(std::ostream& out, const Model& model, const Quant& quant, const Sampling* s) {
    out << "    ./llama-server \\\n"
        << "      -hf " << model.run.gguf_repo << ":" << quant.id << " \\\n"
        << "      -c " << run_context(model) << " -ngl 99";
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

std::uint64_t run_context(const Model& model) {
    return std::min<std::uint64_t>(32768, model.context_native);
}

void write_run_commands(std::ostream& out, const Model& model, const Quant& quant) {
    const auto& samplings = model.run.sampling;
    if (!model.run.gguf_repo.empty() && quant.format == "gguf") {
        if (samplings.empty()) {
            out << "  llama.cpp\n";
            llama_server(out, model, quant, nullptr);
        }
        for (std::size_t i = 0; i < samplings.size(); ++i) {
            const Sampling& s = samplings[i];
            out << "\n  llama.cpp (" << s.mode << " mode"
                << (i == 0 ? ", " + model.vendor + "'s recommended sampling" : std::string())
                << ")\n";
            llama_server(out, model, quant, &s);
        }
        if (!model.run.mmproj.empty()) {
            out << "\n  llama.cpp with vision (the projector file goes alongside the weights)\n"
                << "    ./llama-server -hf " << model.run.gguf_repo << ":" << quant.id << " \\\n"
                << "      --mmproj " << model.run.mmproj << "\n";
        }
    } else if (quant.format != "gguf") {
        out << "  " << quant.id
            << " is not a GGUF format: llama.cpp, Ollama and LM Studio load GGUF files;"
            << " use a runtime that reads " << quant.format << " (vLLM, TensorRT-LLM).\n";
    }
    if (!model.run.ollama.empty()) {
        out << "\n  Ollama\n    ollama run " << model.run.ollama << "\n";
    }
    if (!model.run.lmstudio_search.empty()) {
        out << "\n  LM Studio\n    Search for '" << model.run.lmstudio_search << "' and take the "
            << quant.id << " build.\n";
    }
}

}  // namespace canitrun::cli
