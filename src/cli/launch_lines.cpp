#include "launch_lines.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "canitrun/launch_command.hpp"
#include "format.hpp"
#include "page_facts.hpp"
#include "shell_words.hpp"
#include "style.hpp"

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
// its offload), then the model's sampling: the page's lines after "./llama-server".
std::vector<std::string> llama_server_lines(const ModelReport& r, const Sampling* s) {
    const LaunchTarget target{r.model, r.quant, {}};
    const bool planned = r.hardware && r.hardware->selected.plan.kind != PlanKind::none;
    const std::vector<std::string> args =
        llama_server_args(target, r.settings, planned ? &r.hardware->hardware : nullptr,
                          planned ? &r.hardware->selected.plan.placement : nullptr);
    std::vector<std::string> lines = {shell_join({args[0], args[1]}),
                                      shell_join({args.begin() + 2, args.end()})};
    if (s != nullptr) {
        const std::string flags = sampling_flags(*s);
        if (!flags.empty()) lines.push_back(flags);
        if (!s->chat_template_kwargs.empty()) {
            lines.push_back(shell_join({"--chat-template-kwargs", s->chat_template_kwargs}));
        }
    }
    return lines;
}

// Where the model's GGUF repo lacks the quantization (loads_from_repo, the core's rule) the
// line loads a local file by -m: say where that file comes from, and what the repo has.
std::string local_file_note(const ModelReport& r) {
    const Model& model = *r.model;
    const Quant& quant = *r.quant;
    if (quant.format != "gguf" || model.run.gguf_repo.empty() || loads_from_repo(model, quant))
        return "";
    std::string out =
        model.run.gguf_repo + " publishes no " + quant.id + " file, so the " +
        "llama.cpp lines load a local " + model.id + "-" + quant.id +
        ".gguf: make it with llama.cpp's convert_hf_to_gguf.py and llama-quantize" +
        (quant.recipe_base.empty() ? " (type " + quant.id + ")"
                                   : " (" + quant.recipe_base + " with " + quant.recipe_publisher +
                                         "'s per-tensor types)") +
        ".";
    if (model.run.gguf_quants.empty()) return out;
    out += " The repo publishes";
    for (std::size_t i = 0; i < model.run.gguf_quants.size(); ++i) {
        out += (i == 0 ? " " : ", ") + model.run.gguf_quants[i];
    }
    return out + " (--quant " + model.run.gguf_quants.front() + ").";
}

RunCommand llama_server(const ModelReport& r, std::string heading, const Sampling* s) {
    RunCommand c{"llama.cpp", std::move(heading), "llama-server", "", local_file_note(r), {}, {},
                 {}};
    c.lines = llama_server_lines(r, s);
    for (const std::string& line : c.lines) {
        if (!line.empty()) c.command += " " + line;
    }
    return c;
}

// With --also, llama-server's router: every model planned, each in a process of its own, from
// one preset file (launch_command.hpp, llama_router_launch).
RunCommand llama_router(const ModelReport& r) {
    const LaunchTarget target{r.model, r.quant, {}};
    const bool planned = r.hardware && r.hardware->selected.plan.kind != PlanKind::none;
    const RouterLaunch launch =
        llama_router_launch(target, r.settings, planned ? &r.hardware->hardware : nullptr,
                            planned ? &r.hardware->selected.plan.placement : nullptr);
    std::vector<std::string> args = {"llama-server"};
    args.insert(args.end(), launch.args.begin(), launch.args.end());
    RunCommand c{"llama.cpp router",
                 "llama.cpp router (every model planned, at once, each in a llama-server "
                 "process of its own)",
                 shell_join(args),
                 "",
                 "The router itself holds no GPU memory; a request names its model (\"model\": "
                 "\"" +
                     launch.models.front().name + "\").",
                 {},
                 {},
                 {}};
    c.file_name = kRouterPresetFile;
    c.file_text = "version = 1\n";
    for (const RouterModel& m : launch.models) {
        c.file_text += "\n[" + m.name + "]\n";
        for (const auto& [key, value] : m.options) {
            c.file_text.append(key).append(" = ").append(value).append("\n");
        }
    }
    return c;
}

}  // namespace

std::string preset_command(const RunCommand& c, const std::string& indent) {
    if (c.file_name.empty()) return "";
    // One printf of the file's lines, each a quoted word: copied from an indented page it writes
    // every line from the first column, as llama.cpp's INI grammar wants (common/preset.cpp
    // parse_ini_from_file: no space before a key or a section), which a here-document would not.
    std::string out = indent + "printf '%s\\n' \\\n";
    std::size_t start = 0;
    while (start < c.file_text.size()) {
        const std::size_t end = c.file_text.find('\n', start);
        out += indent + "  " + shell_word(c.file_text.substr(start, end - start)) + " \\\n";
        start = end == std::string::npos ? c.file_text.size() : end + 1;
    }
    return out + indent + "  > " + shell_word(c.file_name) + "\n";
}

std::string llama_server_block(const RunCommand& c, const std::string& indent) {
    std::string out =
        indent + "./llama-server \\\n" + indent + "  " + c.lines[0] + " \\\n" + indent + " ";
    if (!c.lines[1].empty()) out += " " + c.lines[1];
    for (std::size_t i = 2; i < c.lines.size(); ++i) {
        out += " \\\n" + indent + "  " + c.lines[i];
    }
    return out + "\n";
}

std::vector<RunCommand> run_commands(const ModelReport& r) {
    const Model& model = *r.model;
    const Quant& quant = *r.quant;
    std::vector<RunCommand> out;
    const auto& samplings = model.run.sampling;
    if (!model.run.gguf_repo.empty() && quant.format == "gguf") {
        if (samplings.empty()) out.push_back(llama_server(r, "llama.cpp", nullptr));
        for (std::size_t i = 0; i < samplings.size(); ++i) {
            const Sampling& s = samplings[i];
            out.push_back(llama_server(
                r,
                "llama.cpp (" + s.mode + " mode" +
                    (i == 0 ? ", " + model.vendor + "'s recommended sampling" : std::string()) +
                    ")",
                &s));
        }
        if (!r.settings.server.also.empty()) out.push_back(llama_router(r));
    }
    if (!model.run.ollama.empty()) {
        std::string env;
        for (const auto& e : ollama_environment(r.settings)) env += shell_word(e) + " ";
        // Ollama's rule for how many sequences a model gets, the one --also is planned by.
        std::string note;
        if (ollama_num_parallel(model, r.settings.n_seq) < r.settings.n_seq) {
            note =
                "Ollama serves this model one request at a time whatever "
                "OLLAMA_NUM_PARALLEL says (server/sched.go): the plan's " +
                std::to_string(r.settings.n_seq) +
                " sequences are llama-server's; under Ollama the users wait in turn.";
        }
        // A cache type Ollama does not take runs f16 (or K's type for V): say so, never
        // claim the plan's cache.
        const bool same_cache = ollama_runs_planned_cache(r.settings);
        if (!same_cache) {
            note += std::string(note.empty() ? "" : " ") +
                    "Ollama's FAQ lists f16, q8_0 and q4_0 for OLLAMA_KV_CACHE_TYPE, one type "
                    "for K and V: this line runs " +
                    ollama_cache_type(r.settings) +
                    ", not the cache planned above, so its memory is not the plan's.";
        }
        out.push_back({"Ollama",
                       std::string("Ollama (the context ") + (same_cache ? "and cache " : "") +
                           "planned above; the tag's quantization is Ollama's choice)",
                       env + "ollama serve",
                       "ollama run " + shell_word(model.run.ollama),
                       note,
                       {},
                       {},
                       {}});
    }
    if (!model.run.lmstudio_search.empty()) {
        out.push_back({"LM Studio",
                       "LM Studio",
                       "",
                       "",
                       "Search for '" + model.run.lmstudio_search + "' and take the " + quant.id +
                           " build; set its context length to " +
                           std::to_string(r.settings.estimate.context) + ".",
                       {},
                       {},
                       {}});
    }
    return out;
}

std::string llama_build_note(const PlanSettings& settings) {
    if (!settings.server.host_blas) return "";
    return "Planned for a llama.cpp built with a BLAS backend (--blas-build): BLAS is chosen when "
           "llama.cpp is built (cmake -DGGML_BLAS=ON), not by a flag of llama-server. The release "
           "binaries have none; they copy the weights kept in RAM into the first GPU for a prompt "
           "(op offload) instead.";
}

namespace {

std::string window_or_vision_note(const ModelReport& r) {
    const Model& model = *r.model;
    const Quant& quant = *r.quant;
    if (quant.format != "gguf") {
        return quant.id + " is not a GGUF format: llama.cpp, Ollama and LM Studio load GGUF " +
               "files; use a runtime that reads " + quant.format + " (vLLM, TensorRT-LLM).";
    }
    if (!model.run.gguf_repo.empty() && !llamacpp_extends_window(model, r.settings)) {
        // Not "use --engine vllm": its plan stops at the native window too (vllm_layout's
        // context_capped), so the line it prints would not reach this context either.
        return "llama.cpp has no " + model.context_extension + ": past the native " +
               std::to_string(model.context_native) +
               "-token window the lines above run plain RoPE, where the model was not trained. "
               "The model card's route to " +
               std::to_string(model.context_extended) +
               " tokens is its own vLLM setup, which canitrun does not plan (--engine vllm "
               "stops at the native window).";
    }
    if (model.run.gguf_repo.empty() || model.run.mmproj.empty()) return "";
    if (!r.settings.server.vision)
        return "Vision: off (--no-mmproj): the lines above run text only.";
    // -hf fetches the repo's projector and loads it (llama.cpp's --mmproj-auto, on by default;
    // tests/fixtures/runtime-flags/llama-cpp.json), so the lines above already run with
    // vision: a --mmproj naming a file the user has not downloaded would fail.
    return "Vision: -hf also fetches the repo's projector (" + model.run.mmproj + ") and loads it" +
           (model.run.projector.bytes == 0
                ? " (its memory is not counted: its size is not in the data)"
                : "") +
           "; add --no-mmproj to run text only.";
}

}  // namespace

std::string run_format_note(const ModelReport& r) {
    const std::string local = local_file_note(r);
    const std::string rest = window_or_vision_note(r);
    return local + (local.empty() || rest.empty() ? "" : " ") + rest;
}

void write_run_commands(std::ostream& out, const ModelReport& r) {
    const Model& model = *r.model;
    const Quant& quant = *r.quant;
    const std::vector<RunCommand> commands = run_commands(r);
    // In Markdown each way to run is a heading of its own, and a blank line before it.
    const bool md = format_of(out) == Format::markdown;
    bool first = true;
    for (const RunCommand& c : commands) {
        if (c.engine != "llama.cpp") continue;
        // The one line without sampling has its heading on the first line; with sampling,
        // each heading follows a blank line.
        out << (first && model.run.sampling.empty() && !md ? "" : "\n")
            << subheading(out, c.heading) << "\n";
        out << llama_server_block(c, "    ");
        first = false;
    }
    const std::string format_note = run_format_note(r);
    if (!format_note.empty())
        out << (quant.format == "gguf" ? "\n  " : "  ") << format_note << "\n";
    const std::string build_note = llama_build_note(r.settings);
    if (!build_note.empty() && quant.format == "gguf" && !first) {
        out << "\n  " << build_note << "\n";
    }
    for (const RunCommand& c : commands) {
        if (c.engine == "llama.cpp router") {
            out << "\n"
                << subheading(out, c.heading) << "\n"
                << preset_command(c, "    ") << "    ./" << c.command << "\n"
                << note_mark(out) << c.note << "\n";
        } else if (c.engine == "Ollama") {
            out << "\n"
                << subheading(out, c.heading) << "\n    " << c.command << "   # then: " << c.then
                << "\n";
            if (!c.note.empty()) out << note_mark(out) << c.note << "\n";
        } else if (c.engine == "LM Studio") {
            out << "\n"
                << subheading(out, c.heading) << "\n"
                << note_mark(out) << c.note << "\n"
                << note_mark(out) << lmstudio_advice(r) << "\n";
        }
    }
}

}  // namespace canitrun::cli
