#include "canitrun/launch_command.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "canitrun/context_window.hpp"
#include "canitrun/fit.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/server_terms.hpp"
#include "canitrun/tensor_layout.hpp"

namespace canitrun {
namespace {

// llama-server's default -b (common/common.h n_batch).
constexpr std::uint64_t kLlamaDefaultBatch = 2048;

std::string kv_of(const PlanSettings& s, const std::string& specific) {
    if (!specific.empty()) return specific;
    return s.estimate.kv_type.id.empty() ? std::string(kDefaultKvType) : s.estimate.kv_type.id;
}

void add(std::vector<std::string>& args, std::string_view flag, const std::string& value) {
    args.emplace_back(flag);
    args.push_back(value);
}

// Past the native window a YaRN model's GGUF runs on plain RoPE unless the line turns YaRN on
// (its config ships without rope_scaling; Qwen's model cards give llama.cpp exactly these
// flags): the factor is the sequence's context over the native window, rounded up, as the
// cards' examples (4 for 131,072 of 32,768).
void add_rope_scaling(std::vector<std::string>& args, const Model& model, const PlanSettings& s) {
    const std::uint64_t per_seq = s.estimate.context / std::max<std::uint64_t>(s.n_seq, 1);
    if (model.context_extension != "YaRN" || model.context_native == 0 ||
        per_seq <= model.context_native) {
        return;
    }
    const std::uint64_t factor = (per_seq + model.context_native - 1) / model.context_native;
    add(args, "--rope-scaling", "yarn");
    add(args, "--rope-scale", std::to_string(factor));
    add(args, "--yarn-orig-ctx", std::to_string(model.context_native));
}

// The model's GGUF repo holds the quantization's file: the types it lists where the data lists
// them (run.gguf_quants), else every file type, and a recipe where the repo is its
// publisher's (bartowski's Q4_K_L is not in unsloth/Qwen3-8B-GGUF).
bool repo_publishes(const RunInfo& run, const Quant& quant) {
    if (!run.gguf_quants.empty()) {
        return std::find(run.gguf_quants.begin(), run.gguf_quants.end(), quant.id) !=
               run.gguf_quants.end();
    }
    if (quant.recipe_base.empty()) return true;
    return run.gguf_repo.rfind(quant.recipe_publisher + "/", 0) == 0;
}

// The server's own terms where they differ from llama-server's defaults (server_terms.hpp),
// and the draft model, with every layer on the GPUs (-ngld 99) as planned.
void add_server_args(std::vector<std::string>& args, const ServerSettings& server) {
    if (server.cache_ram != kDefaultCacheRam) {
        add(args, "--cache-ram", std::to_string(server.cache_ram >> 20));
    }
    if (server.ctx_checkpoints != kDefaultCtxCheckpoints) {
        add(args, "--ctx-checkpoints", std::to_string(server.ctx_checkpoints));
    }
    if (!server.kv_offload) args.emplace_back("-nkvo");
    if (!server.repack) args.emplace_back("--no-repack");
    if (!server.op_offload) args.emplace_back("--no-op-offload");
    if (server.mtp) add(args, "--spec-type", "draft-mtp");
    if (server.load_mode != LoadMode::automatic) {
        add(args, "--load-mode", load_mode_name(server.load_mode));
    }
    if (server.draft) {
        const Model& m = *server.draft->model;
        const std::string& q = server.draft->quant->id;
        if (server.draft->file) {
            add(args, "-md", server.draft->file->path);
        } else if (m.run.gguf_repo.empty()) {
            add(args, "-md", m.id + "-" + q + ".gguf");
        } else {
            add(args, "-hfd", m.run.gguf_repo + ":" + q);
        }
        add(args, "-ngld", "99");
        // At 0ad4a86 -md alone drafts nothing: --spec-type defaults to none (common.h line
        // 371), and only a draft file's MTP tensors or a repo's sidecar set a type
        // (common/arg.cpp lines 544-570), so the line names draft-simple.
        if (!server.mtp) add(args, "--spec-type", "draft-simple");
    }
}

// The projector's flags where the line loads the model by its repo (which loads the repo's
// mmproj too, llama.cpp's --mmproj-auto): --no-mmproj for text only, --no-mmproj-offload to
// keep it on the CPU.
void add_projector_args(std::vector<std::string>& args, const Model& model,
                        const ServerSettings& server) {
    if (model.run.mmproj.empty()) return;
    if (!server.vision) {
        args.emplace_back("--no-mmproj");
    } else if (!server.mmproj_offload) {
        args.emplace_back("--no-mmproj-offload");
    }
}

// lo..hi (of one digit count) as regex alternatives, a digit class per place where it can:
// 0..18 is "[0-9]" (one digit) and "1[0-8]".
void add_number_range(std::vector<std::string>& out, std::uint64_t lo, std::uint64_t hi) {
    if (lo == hi) {
        out.push_back(std::to_string(lo));
    } else if (lo / 10 == hi / 10) {
        out.push_back((lo >= 10 ? std::to_string(lo / 10) : "") + "[" + std::to_string(lo % 10) +
                      "-" + std::to_string(hi % 10) + "]");
    } else {
        if (lo % 10 != 0) {
            add_number_range(out, lo, lo / 10 * 10 + 9);
            lo = lo / 10 * 10 + 10;
        }
        const std::uint64_t tens_end = hi % 10 == 9 ? hi / 10 : hi / 10 - 1;  // whole decades
        if (lo / 10 <= tens_end) {
            std::vector<std::string> tens;
            add_number_range(tens, lo / 10, tens_end);
            for (const auto& t : tens) out.push_back(t + "[0-9]");
        }
        if (hi % 10 != 9) add_number_range(out, hi / 10 * 10, hi);
    }
}

// -ot's value for a chosen set of layers' experts in RAM: llama.cpp's own pattern for one
// layer's routed experts (common/common.h LLM_FFN_EXPS_REGEX, what --n-cpu-moe moves) over
// the set's runs, each run cut where its digit count changes.
std::string experts_override(const std::vector<std::uint64_t>& layers) {
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < layers.size();) {
        std::size_t j = i;
        while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
        for (std::uint64_t lo = layers[i], top = 10; lo <= layers[j]; top *= 10) {
            if (lo >= top) continue;
            const std::uint64_t hi = std::min(layers[j], top - 1);
            add_number_range(parts, lo, hi);
            lo = hi + 1;
        }
        i = j + 1;
    }
    std::string alternatives;
    for (const auto& p : parts) alternatives += (alternatives.empty() ? "" : "|") + p;
    if (parts.size() > 1) alternatives = "(" + alternatives + ")";
    return "blk\\." + alternatives + "\\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU";
}

}  // namespace

bool llamacpp_extends_window(const Model& model, const PlanSettings& s) {
    const std::uint64_t per_seq = s.estimate.context / std::max<std::uint64_t>(s.n_seq, 1);
    return model.context_native == 0 || per_seq <= model.context_native ||
           model.context_extension == "YaRN";
}

bool loads_from_repo(const Model& model, const Quant& quant) {
    return !model.run.gguf_repo.empty() && repo_publishes(model.run, quant);
}

std::string tensor_split_text(const std::vector<std::uint64_t>& split) {
    std::string out;
    for (const auto n : split) out += (out.empty() ? "" : ",") + std::to_string(n);
    return out;
}

std::uint64_t llamacpp_gpu_layers(const Placement& p) {
    // One unit on the GPUs is the head alone, which -ngl 1 keeps there whatever the idle units.
    return p.gpu_layers > 1 ? checked::add(p.gpu_layers, p.idle_units) : p.gpu_layers;
}

std::vector<std::uint64_t> llamacpp_tensor_split(const Placement& p) {
    // -sm row and tensor read -ts as each GPU's part of every matrix, not as units.
    if (p.idle_units == 0 || p.row_split || p.tensor_parallel || p.gpus.size() < 2) {
        return p.tensor_split;
    }
    // Each GPU's own units, the idle ones with the head's: counts that sum to llama.cpp's units
    // on the GPUs place exactly (Placement's unit ends: ceil(count x units / units) = count).
    std::vector<std::uint64_t> units;
    units.reserve(p.gpus.size());
    for (const auto& g : p.gpus) {
        units.push_back(g.output ? checked::add(g.layers, checked::add(1, p.idle_units))
                                 : g.layers);
    }
    return units;
}

std::vector<std::string> placement_args(const Hardware* hardware, const Placement* placement) {
    std::vector<std::string> args;
    if (hardware != nullptr && hardware->gpus.empty()) {
        add(args, "-ngl", "0");
    } else if (placement != nullptr && placement->ram.layers > 0) {
        // layers in RAM, with or without other layers' experts there: -ngl says which
        add(args, "-ngl", std::to_string(llamacpp_gpu_layers(*placement)));
    } else {
        add(args, "-ngl", "99");
    }
    if (placement != nullptr && placement->cpu_moe_layers > 0) {
        // every layer's experts: llama.cpp's --cpu-moe (-ot exps=CPU) says so in one flag
        if (placement->all_experts_in_ram()) {
            args.emplace_back("--cpu-moe");
        } else if (!placement->cpu_moe_set.empty()) {
            add(args, "-ot", experts_override(placement->cpu_moe_set));
        } else {
            add(args, "--n-cpu-moe", std::to_string(placement->cpu_moe_layers));
        }
    }
    if (hardware != nullptr && hardware->gpus.size() > 1) {
        // The split planned: given or found (unit counts), else in proportion to memory
        // (llama.cpp's default, from free memory).
        std::string split;
        const auto units =
            placement != nullptr ? llamacpp_tensor_split(*placement) : std::vector<std::uint64_t>{};
        if (!units.empty()) {
            split = tensor_split_text(units);
        } else {
            for (const auto& d : hardware->gpus) {
                split += (split.empty() ? "" : ",") + std::to_string(d.memory / kGiB);
            }
        }
        add(args, "-ts", split);
        // llama.cpp's -sm: layer is its default (common/arg.cpp, --split-mode); row where the
        // plan cuts matrices by rows (a quantization chosen beside it is planned by layer)
        if (placement != nullptr && placement->row_split) {
            add(args, "-sm", split_mode_name(SplitMode::row));
        }
        if (placement != nullptr && placement->tensor_parallel) {
            add(args, "-sm", split_mode_name(SplitMode::tensor));
        }
    }
    return args;
}

std::vector<std::string> llama_server_args(const LaunchTarget& t, const PlanSettings& s,
                                           const Hardware* hardware, const Placement* placement) {
    std::vector<std::string> args;
    if (!t.load.empty()) {
        args.insert(args.end(), t.load.begin(), t.load.end());
        // The projector file given with --mmproj, as given (llama.cpp's --mmproj FILE).
        if (s.server.vision && !s.server.mmproj_file.empty()) {
            add(args, "--mmproj", s.server.mmproj_file);
            if (!s.server.mmproj_offload) args.emplace_back("--no-mmproj-offload");
        }
    } else if (loads_from_repo(*t.model, *t.quant)) {
        add(args, "-hf", t.model->run.gguf_repo + ":" + t.quant->id);
        add_projector_args(args, *t.model, s.server);
    } else {
        add(args, "-m", t.model->id + "-" + t.quant->id + ".gguf");
    }
    add(args, "-c", std::to_string(s.estimate.context));
    add_rope_scaling(args, *t.model, s);
    const auto placed = placement_args(hardware, placement);
    args.insert(args.end(), placed.begin(), placed.end());
    const std::string k = kv_of(s, s.cache_type_k);
    const std::string v = kv_of(s, s.cache_type_v);
    if (k != kDefaultKvType) add(args, "-ctk", k);
    if (v != kDefaultKvType) add(args, "-ctv", v);
    if (s.flash_attn == FlashAttn::on) add(args, "-fa", "on");
    if (s.flash_attn == FlashAttn::off) add(args, "-fa", "off");
    // Always said, one included: llama-server's --parallel defaults to -1, auto, which runs 4
    // slots in one unified KV stream (common/arg.cpp, tools/server/server.cpp at 0ad4a86), so
    // without it a plan for one sequence would run with four: four recurrent states in a hybrid
    // model and the compute buffer of four sequences in one stream.
    add(args, "--parallel", std::to_string(std::max<std::uint64_t>(s.n_seq, 1)));
    if (s.ubatch != 512) add(args, "-ub", std::to_string(s.ubatch));
    // llama.cpp caps the ubatch at the batch (-b, 2048 by default: common/common.h, recorded
    // in tests/fixtures/runtime-flags/llama-cpp.json), so a larger ubatch needs -b as large.
    if (s.ubatch > kLlamaDefaultBatch) add(args, "-b", std::to_string(s.ubatch));
    add_server_args(args, planned_server(s.server, placement));
    // an embedding or reranking model's endpoint (llama_serve), refused without its flag
    if (llama_serve(*t.model) == LlamaServe::embeddings) args.emplace_back("--embeddings");
    if (llama_serve(*t.model) == LlamaServe::reranking) args.emplace_back("--reranking");
    return args;
}

std::string ollama_cache_type(const PlanSettings& s) {
    // Ollama quantizes its cache only with flash attention on, to q8_0 or q4_0, and one type
    // for K and V (OLLAMA_KV_CACHE_TYPE); any other type runs f16.
    const std::string k = kv_of(s, s.cache_type_k);
    return k == "q8_0" || k == "q4_0" ? k : "f16";
}

bool ollama_runs_planned_cache(const PlanSettings& s) {
    const std::string kv = ollama_cache_type(s);
    return kv == kv_of(s, s.cache_type_k) && kv == kv_of(s, s.cache_type_v);
}

std::vector<std::string> ollama_environment(const PlanSettings& s) {
    // OLLAMA_CONTEXT_LENGTH is each request's context: Ollama starts its runner with that
    // times OLLAMA_NUM_PARALLEL (llm/llama_server.go; tests/fixtures/runtime-flags/ollama.json),
    // so it is the plan's context per sequence, not the whole cache.
    std::vector<std::string> env = {"OLLAMA_CONTEXT_LENGTH=" + std::to_string(sequence_context(s))};
    const std::string kv = ollama_cache_type(s);
    if (kv != "f16") {
        env.push_back("OLLAMA_FLASH_ATTENTION=1");
        env.push_back("OLLAMA_KV_CACHE_TYPE=" + kv);
    }
    if (s.n_seq > 1) env.push_back("OLLAMA_NUM_PARALLEL=" + std::to_string(s.n_seq));
    // With --also, every model planned resident at once: OLLAMA_MAX_LOADED_MODELS's default 0
    // lets the scheduler keep 3 per GPU, or 3 on the CPU (envconfig/config.go, server/sched.go;
    // tests/fixtures/runtime-flags/ollama.json), and past that it unloads one to load another.
    if (!s.server.also.empty()) {
        env.push_back("OLLAMA_MAX_LOADED_MODELS=" + std::to_string(1 + s.server.also.size()));
    }
    return env;
}

std::uint64_t ollama_num_parallel(const Model& model, std::uint64_t requested) {
    // sched.go's list, as Config.ModelFamily (the GGUF's general.architecture) names them.
    static constexpr std::array<std::string_view, 11> kSerial = {
        "mllama", "qwen3vl", "qwen3vlmoe", "qwen35",         "qwen35moe",      "qwen3next",
        "lfm2",   "lfm2moe", "nemotron_h", "nemotron_h_moe", "nemotron_h_omni"};
    if (llama_serve(model) != LlamaServe::completion) return 1;  // no completion capability
    const auto arch = llama_arch(model);
    if (arch && std::find(kSerial.begin(), kSerial.end(), *arch) != kSerial.end()) return 1;
    return std::max<std::uint64_t>(requested, 1);
}

namespace {

// A preset section's options from llama-server's arguments: a flag followed by another flag
// (or by nothing) takes no value. Every value llama_server_args writes is a number, a name or
// a path, none spelled as a flag.
std::vector<std::pair<std::string, std::string>> preset_options(
    const std::vector<std::string>& args) {
    const auto is_flag = [](const std::string& a) {
        return a.size() > 1 && a[0] == '-' &&
               (a[1] == '-' || std::isalpha(static_cast<unsigned char>(a[1])) != 0);
    };
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string key = args[i].substr(args[i].find_first_not_of('-'));
        const bool valued = i + 1 < args.size() && !is_flag(args[i + 1]);
        out.emplace_back(key, valued ? args[++i] : "true");
    }
    out.emplace_back("load-on-startup", "true");
    return out;
}

}  // namespace

RouterLaunch llama_router_launch(const LaunchTarget& target, const PlanSettings& settings,
                                 const Hardware* hardware, const Placement* placement) {
    RouterLaunch r;
    r.models.push_back({target.model->id,
                        preset_options(llama_server_args(target, settings, hardware, placement))});
    for (const auto& a : settings.server.also) {
        const PlanSettings s = companion_settings(a, ollama_model_settings(settings, *a.model));
        const LaunchTarget t{
            a.model, a.quant,
            a.file ? std::vector<std::string>{"-m", a.file->path} : std::vector<std::string>{}};
        std::string name = a.model->id;
        // two sections of one name are refused (server-models.cpp add_model)
        for (int n = 2; std::any_of(r.models.begin(), r.models.end(),
                                    [&](const RouterModel& m) { return m.name == name; });
             ++n) {
            name = a.model->id + "-" + std::to_string(n);
        }
        r.models.push_back({name, preset_options(llama_server_args(t, s, hardware, nullptr))});
    }
    r.args = {"--models-preset", kRouterPresetFile, "--models-max",
              std::to_string(r.models.size())};
    return r;
}

PlanSettings ollama_model_settings(const PlanSettings& main, const Model& model) {
    PlanSettings s = main;
    s.n_seq = ollama_num_parallel(model, main.n_seq);
    const std::uint64_t per_sequence =
        std::min(sequence_context(main), longest_supported_context(model));
    s.estimate.context = checked::mul(per_sequence, s.n_seq);
    return s;
}

}  // namespace canitrun
